"""``mem forget KEY`` of a fact a "remember that …" prompt wrote left the
value in that prompt's turn, served by ``mem search`` and ``mem recall``
and found by ``mem scan`` after ``gc`` (test33 T7), while ``mem seal`` of
the same key withheld it there.  The forget now rewrites the turns its
versions cite as their source, and the turns quoting the value, with the
value withheld (``sealsources.add_source_turns``); the preview says so.
Real ``mem hook claude-code`` and ``mem`` processes on a real store."""

from __future__ import annotations

import json

SID = "dddddddd-0000-4000-8000-0000000033a7"


def _prompt(mem, tmp_path, words: str) -> None:
    (tmp_path / "acme").mkdir(exist_ok=True)
    mem("hook", "claude-code", input=json.dumps({
        "hook_event_name": "UserPromptSubmit", "session_id": SID, "transcript_path": None,
        "cwd": str(tmp_path / "acme"), "prompt": words}), env={"MEM_NO_HELPER": "1", "MEM_HOOK_FORK": "0"})


def test_forgetting_a_remembered_key_takes_the_value_out_of_its_prompt(mem, tmp_path):
    _prompt(mem, tmp_path, "remember that the launch codename is zebra-umbrella-7731")
    _prompt(mem, tmp_path, "remember that the build agent is runner-7")
    keys = {ln.split()[0] for ln in mem("keys").stdout.splitlines() if ln.strip()}
    assert keys == {"project/acme/remembered/launch-codename", "project/acme/remembered/build-agent"}, keys
    assert "zebra-umbrella-7731" in mem("search", "zebra", "umbrella").stdout     # the prompt's turn holds it
    r = mem("forget", "project/acme/remembered/launch-codename", "--dry-run")
    assert "withhold the value in 1 turn holding it" in r.stdout and f"turn {SID} #0 user" in r.stdout, r.stdout
    mem("forget", "project/acme/remembered/launch-codename", "--yes")
    mem("gc", "--prune=now")
    assert "zebra" not in mem("search", "zebra", "umbrella", exit_code=None).stdout
    assert "zebra" not in mem("recall", "launch codename", "--all-projects", exit_code=None).stdout
    r = mem("scan", "zebra-umbrella-7731", "--no-remotes", exit_code=None)
    assert r.stdout.startswith("found nowhere"), r.stdout
    # the other statement and its turn are as they were; the forgotten one's turn keeps its place
    assert mem("get", "project/acme/remembered/build-agent").stdout.strip() == "the build agent is runner-7"
    turns = json.loads(mem("show", SID, "--json").stdout)["turns"]
    assert [t["text"] for t in turns][1] == "remember that the build agent is runner-7"
    assert len(turns) == 2 and turns[0]["text"] == "remember that [REDACTED:forgotten-value]", turns
