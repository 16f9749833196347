"""Defects a fresh user found trying the README (session 4): --from-agent,
derive --session/--plan -q/a missing claude CLI, mem queue --json, and the
import summary's session count.  The bundled sample transcripts
(cmds/data/sample-projects: two sessions, one with a sub-agent) are copied
into the test's folder, so nothing here needs ../shared."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"
PARENT = "a3e1d7b0-1c2f-4b8a-9e55-7c6d0f9b2e33"        # the sample session with a sub-agent
AGENT = "a7c41e9d2b0f3e6a1"
OTHER = "5f0c9a52-7a43-4d6e-9b1e-2d1f8c0e4a11"


@pytest.fixture
def sample(tmp_path) -> Path:
    dst = tmp_path / "projects"
    shutil.copytree(SAMPLE, dst)
    return dst


def test_from_agent_finds_the_sub_agent_takes_its_namespace_and_says_what_is_wrong(invoke, sample):
    invoke("import", "claude-code", str(sample))
    invoke("remember", "project/shop/invoice-bug", "the invoice export drops rows with a null vat id",
           "--session", "S1", "--agent", "explorer")
    q = ("recall", "invoice export", "--all-projects", "--json")
    # without --session: found in whichever session holds it (was: exit 4, "no sub-agent")
    assert [h["key"] for h in invoke(*q, "--from-agent", "explorer").json["hits"]] == ["project/shop/invoice-bug"]
    # the namespace name as mem sessions / mem show print it (was: exit 2, "bad agent name")
    assert invoke(*q, "--from-agent", "S1.agent-explorer").json["hits"]
    # an unknown sub-agent of a given session: exit 4 as the help says (was: exit 0, no hits)
    r = invoke(*q, "--session", "S1", "--from-agent", "nobody", exit_code=4)
    assert "no sub-agent nobody in session S1" in r.stderr and "explorer" in r.stderr
    invoke(*q, "--session", "S1", "--from-agent", "S2.agent-explorer", exit_code=4)
    # one name in two sessions: refused, and both namespaces are named
    invoke("remember", "project/shop/other", "the invoice export of the other session", "--session", "S2",
           "--agent", "explorer")
    r = invoke(*q, "--from-agent", "explorer", exit_code=4)
    assert "S1.agent-explorer" in r.stderr and "S2.agent-explorer" in r.stderr and "--session" in r.stderr
    assert invoke(*q, "--session", "S2", "--from-agent", "explorer").json["hits"][0]["key"] == "project/shop/other"
    # a captured sub-agent: by id, id prefix, file name or namespace, with or without a session prefix
    q = ("recall", "port 5432", "--all-projects", "--json")
    for spec in ([AGENT], [AGENT[:6]], ["agent-" + AGENT], [f"{PARENT}.agent-{AGENT}"],
                 ["--session", PARENT[:8], AGENT]):
        hits = invoke(*q, *spec[:-1], "--from-agent", spec[-1]).json["hits"]
        assert hits and {h["session"] for h in hits} == {f"{PARENT}.agent-{AGENT}"}, spec


def test_a_session_prefix_names_the_session_before_its_sub_agents(mem, sample):
    """'mem show a3e1d7b0' matched the session and its sub-agent's namespace
    (exit 4, ambiguous); the one resolver now names the session."""
    mem("import", "claude-code", str(sample))
    assert mem("show", PARENT[:8], "--json").json["session"] == PARENT
    assert mem("show", f"{PARENT}.agent-{AGENT[:4]}", "--json").json["session"] == f"{PARENT}.agent-{AGENT}"


def test_derive_session_prefix_quiet_plan_and_a_missing_claude_cli(mem, sample, tmp_path):
    mem("import", "claude-code", str(sample))
    env = {"OPENAI_BASE_URL": "", "OPENAI_API_KEY": ""}
    p = mem("derive", "--plan", "--json", "--session", PARENT[:8], env=env).json
    assert p["calls"] == 1 and {e["session"] for e in p["excerpts"]} == {PARENT}   # was: 0 sessions, silently
    r = mem("derive", "--plan", "--session", "zzzz9", env=env, exit_code=4)
    assert "no session zzzz9" in r.stderr
    r = mem("derive", "--plan", "-q", env=env)
    assert len(r.stdout.splitlines()) == 1 and r.stdout.startswith("would send 3 excerpts")
    empty = tmp_path / "no-claude-here"
    empty.mkdir()
    r = mem("derive", env={**env, "PATH": str(empty)}, exit_code=1)                    # was: exit 0, "0 proposals: ;"
    assert "claude CLI is not on PATH" in r.stderr and "nothing was sent" in r.stderr and r.stdout == ""


def test_queue_json_without_list(invoke):
    invoke("remember", "project/acme/db", "postgres 16 on port 5433")
    assert invoke("queue", "--json").json == []          # was: exit 2, "No such option '--json'"
    iid = invoke("remember", "project/acme/db", "postgres 17", "--trust", "agent_observed", "--json").json["queued"]
    assert [i["id"] for i in invoke("queue", "--json").json] == [iid]
    assert invoke("queue", "--json", "show", iid[:8]).json["body"] == "postgres 17"


def test_import_summary_counts_every_session_as_mem_sessions_lists_them(mem, sample):
    first = mem("import", "claude-code", str(sample), "--json").json
    assert (first["sessions"], first["subagent_sessions"], first["sessions_new"]) == (3, 1, 3)
    assert "(3 sessions incl. 1 sub-agent: 0 new, 3 already stored;" in mem("import", "claude-code", str(sample)).stdout
    # one transcript grows; the others (the sub-agent's among them) are not read again, yet still counted
    f = sample / "-home-dev-acme-api" / f"{OTHER}.jsonl"
    rec = next(json.loads(line) for line in f.read_text().splitlines()[::-1] if '"type": "user"' in line)
    rec.update(uuid="grown-1", message={"role": "user", "content": "one more prompt after the import"})
    with f.open("a") as out:
        out.write(json.dumps(rec) + "\n")
    again = mem("import", "claude-code", str(sample), "--json").json
    assert again["turns_added"] == 1 and again["files_unchanged"] == 2
    assert (again["sessions"], again["subagent_sessions"], again["sessions_new"]) == (3, 1, 0)   # was: 1 session
    assert len(mem("sessions", "--json").json) == again["sessions"]


def test_config_covers_decay_days_spells_booleans_as_git_and_offers_the_closest_name(mem, invoke):
    invoke("remember", "project/x/db", "postgres 16")
    listing = {r["name"]: r for r in invoke("config", "--json").json}
    assert listing["decay.days"]["value"] == listing["decay.days"]["default"] == 60   # was: not a setting at all
    mem("config", "decay.days", "30")                                               # real processes
    assert mem("decay", "--dry-run", "--json").json["days"] == 30
    r = mem("config", "decay_days", "30", exit_code=2)
    assert "did you mean decay.days?" in r.stderr                                   # was: no suggestion
    assert "did you mean derive.auto?" in invoke("config", "derive.atuo", "true", exit_code=2).stderr
    invoke("config", "decay.days", "0", exit_code=2)
    # booleans: the spellings git config takes, any case, stored as true/false
    for text, want in (("yes", True), ("On", True), ("1", True), ("off", False), ("NO", False), ("0", False)):
        assert invoke("config", "derive.auto", text, "--json").json["value"] is want, text
    r = invoke("config", "derive.auto", "maybe", exit_code=2)
    assert "true or false (also yes/no, on/off, 1/0" in r.stderr
    # a hand-edited value of the wrong type names the setting and the file
    toml = Path(os.environ["MEM_HOME"]) / "config.toml"
    toml.write_text(toml.read_text().replace("days = 30", 'days = "ten"'))
    r = mem("decay", "--dry-run", exit_code=2)
    assert "decay.days" in r.stderr and "config.toml" in r.stderr
    # the usage line shows both arguments as optional (was: 'mem config [OPTIONS] NAME VALUE')
    assert "config [OPTIONS] [NAME] [VALUE]\n" in invoke("config", "--help").stdout


def test_auto_max_calls_has_one_default(store):
    import objstore
    import objstore.derive.auto as auto
    assert not hasattr(auto, "AUTO_MAX_CALLS")             # the second copy of 40 is gone
    assert objstore.config_value(store.root, "derive.auto_max_calls") == \
        objstore.config_settings["derive.auto_max_calls"].default
    (store.root / "config.toml").write_text("[derive]\nauto_max_calls = 3\nauto = \"yes\"\n")
    assert objstore.config_value(store.root, "derive.auto_max_calls") == 3
    assert auto.auto_enabled(objstore.derive_config(store.root))   # a boolean as mem config spells it
