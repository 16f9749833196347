"""The prompt hook keeps recall's order of one name's facts (keyrank rule 5;
test28b Z10, Z2): in the api repo, where the person said
``project/api/style "2 spaces in this repo"`` beside their ``user/style``
and a ``global/style "tabs"``, no wording of "tabs or spaces?" injects the
global value alone (the gate used to pick ``tabs``, a rare word of the
global value, and leave the project's out); the project's value goes first.
An agent's guess in the project goes after the person's values of the name.
A fact the session already had keeps the later ones of its name out.  Real
``mem hook claude-code`` processes, each prompt on the store as it was,
capture off (``MEM_NO_CAPTURE=1``): under load the hook's capture child
can index the prompt's own turn before the gate reads the words'
document frequencies, and a word the prompt holds then looks commoner (the
gate's answer would depend on that race, not on the rule tested here)."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.hooks._util import hook_env, run_hook_done, store_as_it_was

API = "/home/dev/api"


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """Two stores: the person's three values of ``style``, and the same with an agent's project guess."""
    import subprocess
    import sys

    from tests.conftest import REPO, wait_remember_done
    root = tmp_path_factory.mktemp("scope")

    def remember(home, key, value, agent="0"):
        env = {**hook_env(home), "MEM_AGENT": agent}
        subprocess.run([sys.executable, "-m", "cmds", "remember", key, value], env=env, cwd=REPO, check=True,
                       capture_output=True, timeout=120)
        wait_remember_done(home)
    person, agent = root / "person", root / "agent"
    remember(person, "project/api/style", "2 spaces in this repo")
    remember(agent, "project/api/style", "tabs here I think", agent="claude")
    for home in (person, agent):
        remember(home, "user/style", "spaces, 4 wide")
        remember(home, "global/style", "tabs")
    return {"person": person, "agent": agent}


def _injected(tmp_path, template, prompt: str, cwd: str = API, session: str = "scope-order",
              before: list[dict] = ()) -> tuple[list[str], str]:
    """The fact keys the prompt hook injects for ``prompt``, in order, on a copy of ``template``, and the
    gate's trace of the last run (for the assertion's message)."""
    store = tmp_path / "store"
    shutil.rmtree(store, ignore_errors=True)
    shutil.copytree(template, store, symlinks=True)
    for event in before:
        rc, _out, err, _s = run_hook_done(store, event, env=hook_env(store, MEM_NO_CAPTURE="1"),
                                          reset=store_as_it_was(store, tmp_path / "before-copy"))
        assert rc == 0, err
    event = {"hook_event_name": "UserPromptSubmit", "session_id": session, "cwd": cwd, "prompt": prompt}
    trace = tmp_path / "trace.jsonl"
    rc, out, err, _s = run_hook_done(store, event, env=hook_env(store, MEM_TRACE=str(trace), MEM_NO_CAPTURE="1"),
                                     reset=store_as_it_was(store, tmp_path / "copy"))
    assert rc == 0, err
    seen = trace.read_text().splitlines()[-1] if trace.exists() else "no trace"
    if not out.strip():
        return [], seen
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return re.findall(r"^- ((?:project/[^/\s]+|user|global)/\S+) \(", text, re.MULTILINE), seen


@pytest.mark.parametrize("prompt", [
    "should I indent with tabs or spaces here?",    # test28b Z10's wording
    "tabs or spaces?",
    "should I use tabs?",
    "do we indent with tabs?",
    "are tabs ok for indentation in this file?",
    "style: tabs or spaces?",
])
def test_the_projects_value_goes_first_and_the_global_one_never_alone(tmp_path, stores, prompt):
    got, trace = _injected(tmp_path, stores["person"], prompt)
    # the name's three values count as one fact against the limit (test29b Q7): the found one comes last
    assert got == ["project/api/style", "user/style", "global/style"], trace


def test_a_prompt_the_project_value_answers_alone_stays_alone(tmp_path, stores):
    """Rule 5 moves the facts before an injected one, not those after it."""
    got, trace = _injected(tmp_path, stores["person"], "what indentation style should I use in this repo?")
    assert got == ["project/api/style"], trace


def test_in_another_project_the_persons_default_goes_before_global(tmp_path, stores):
    got, trace = _injected(tmp_path, stores["person"], "should I indent with tabs or spaces here?",
                           cwd="/home/dev/web")
    assert got == ["user/style", "global/style"], trace


def test_an_agents_guess_in_the_project_goes_after_the_persons_values(tmp_path, stores):
    """test28b Z2 in the hook: the agent's ``tabs here I think`` matched with
    ``global/style``; the person's ``user/style`` goes first, as in recall."""
    got, trace = _injected(tmp_path, stores["agent"], "style here: tabs?")
    assert got[:2] == ["user/style", "global/style"], trace


def test_a_value_the_session_already_had_keeps_the_later_ones_out(tmp_path, stores):
    """The session-start block gave the project's value: a prompt that finds
    only the global one injects nothing, not the global value alone."""
    start = {"hook_event_name": "SessionStart", "session_id": "scope-start", "cwd": API, "source": "startup"}
    got, trace = _injected(tmp_path, stores["person"], "should I use tabs?", session="scope-start", before=[start])
    assert got == [], trace


def test_the_name_the_prompt_found_is_injected_with_its_narrower_values(tmp_path):
    """test29b Q7 (a regression of the rule above): the global value the
    prompt's words found came with the project's and the person's values of
    its name, which took the two facts the limit allows, and the found one
    was dropped "over the limit"; a name's values now count as one."""
    import subprocess
    import sys

    from tests.conftest import REPO, wait_remember_done
    home = tmp_path / "g5"
    for key, value in (("global/deploy", "to deploy to staging run make stage from the repo root"),
                       ("project/api/deploy", "the api deploys through the platform team's pipeline"),
                       ("user/deploy", "I deploy on fridays only"),
                       *((f"project/api/k{i}", f"unrelated fact number {i} about caching layers") for i in range(6))):
        subprocess.run([sys.executable, "-m", "cmds", "remember", key, value], env=hook_env(home), cwd=REPO,
                       check=True, capture_output=True, timeout=120)
        wait_remember_done(home)
    for prompt in ("deploy staging command?", "how do I deploy to staging with make stage?"):
        keys, trace = _injected(tmp_path, home, prompt)
        assert "global/deploy" in keys, (prompt, keys, trace)
        assert keys.index("project/api/deploy") < keys.index("global/deploy"), keys


def test_a_sealed_project_value_withholds_the_global_one(tmp_path):
    """test29b Q6: the project's own value of the name is sealed (not shown):
    the global value of the name is not given alone in that project, and
    recall marks it overridden there."""
    import subprocess
    import sys

    from tests.conftest import REPO, wait_remember_done
    home = tmp_path / "sealed"
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")

    def mem(*args):
        subprocess.run([sys.executable, "-m", "cmds", *args], env=hook_env(home), cwd=REPO, check=True,
                       capture_output=True, timeout=120)
        wait_remember_done(home)
    mem("remember", "global/db-host", "the database host is db.internal")
    mem("vault", "init", "--passphrase-file", str(pp))
    mem("remember", "project/api/db-host", "the database host is 10.0.0.5", "--sensitivity", "secret")
    keys, trace = _injected(tmp_path, home, "which database host should I connect to?")
    assert "global/db-host" not in keys, trace
    keys, trace = _injected(tmp_path, home, "which database host should I connect to?", cwd="/home/dev/web")
    assert keys == ["global/db-host"], trace      # another project: the global value as before
    # recall's side: the global hit is marked overridden in api (text and --json), not in web

    def recall(project, *extra):
        return subprocess.run([sys.executable, "-m", "cmds", "recall", "which database host should I connect to",
                               "--project", project, *extra], env=hook_env(home), cwd=REPO, check=True,
                              capture_output=True, text=True, timeout=120).stdout
    out = recall("api")
    assert "the database host is db.internal" in out
    assert "(overridden in project api by project/api/db-host, sealed: mem sealed show project/api/db-host)" in out
    assert "10.0.0.5" not in out
    hits = [h for h in json.loads(recall("api", "--json"))["hits"] if h.get("key") == "global/db-host"]
    assert [h.get("overridden_by") for h in hits] == ["project/api/db-host"]
    assert "overridden by" not in recall("web")
    # test30b S12: the session block of api withholds the global value and says why; web's shows it
    def context(project):
        return subprocess.run([sys.executable, "-m", "cmds", "context", "--project", project], env=hook_env(home),
                              cwd=REPO, check=True, capture_output=True, text=True, timeout=120).stdout
    mem("remember", "global/db-host", "the database host is db.internal", "--kind", "user")   # a kind the block shows
    block = context("api")
    assert "db.internal" not in block and "10.0.0.5" not in block
    assert "not shown: global/db-host, which project/api/db-host overrides here" in block
    assert "db.internal" in context("web")
    # test30b S3: a question that does not name the key gets the mark too, and MCP recall carries it
    from objstore.integrations.access import Caller
    from objstore.integrations.mcptools import MemoryTools
    from objstore.memory.opening import open_store
    st = open_store(home)
    try:
        got = MemoryTools(st).tool_recall(Caller(name="t", role="read"), ["database host"], project="api")
        facts = [i for i in got["items"] if i.get("key") == "global/db-host"]
        assert facts and facts[0]["overridden_by"] == "project/api/db-host"
        assert "10.0.0.5" not in json.dumps(got)
    finally:
        st.close()
