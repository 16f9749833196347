"""Whose word a served fact is (test29 P18).

P18: the session-start block (``mem context``, the SessionStart hook) showed
an agent's guess under "User:" above the person's project value, and a
pinned agent guess or a derived fact like the person's, with no mark.  Each
line of a value that is not ``user_stated`` now says so
(``context.ORIGIN_MARKS``), and one name's facts keep ``keyrank`` rule 5's
order across the block's sections (``keyrank.block_name_order``)."""

from __future__ import annotations

import json
import re

from objstore.memory.facts import remember
from objstore.retrieval.context import render_context

DATE = r"\d{4}-\d\d-\d\d"


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _index(lines: list[str], pattern: str) -> int:
    got = [i for i, line in enumerate(lines) if re.fullmatch(pattern, line)]
    assert len(got) == 1, (pattern, lines)
    return got[0]


def test_an_agents_guess_is_marked_and_follows_the_persons_value_in_mem_context(store, mem):
    """P18's shape through the real command: the person's project value,
    an agent's ``user/style`` and an agent's pinned ``project/api/indent``."""
    store.close()
    mem("remember", "project/api/style", "indent with 2 spaces in this repo")
    mem("remember", "user/style", "indent with tabs I think", env={"CLAUDECODE": "1"})
    mem("remember", "project/api/indent", "indent with 4 spaces (guess)", env={"CLAUDECODE": "1"})
    mem("pin", "project/api/indent")
    lines = _lines(mem("context", "--project", "api").stdout)
    pinned = _index(lines, "Pinned:")
    indent = _index(lines, rf"- project/api/indent \(recorded {DATE}, an agent's note\): indent with 4 spaces \(guess\)")
    person = _index(lines, rf"- project/api/style \(recorded {DATE}\): indent with 2 spaces in this repo")
    agent = _index(lines, rf"- user/style \(recorded {DATE}, an agent's note\): indent with tabs I think")
    assert pinned < indent < _index(lines, "Project api:") < person < agent
    assert "User:" not in lines   # the agent's user/style went after the person's value, into its section


def test_derived_facts_are_marked_and_the_persons_are_not(store):
    remember(store, "project/shop/deploy-day", "we deploy the shop on Friday")
    remember(store, "project/shop/episodes/s1", "situation: a slow deploy; lesson: warm the cache", trust="derived")
    text = render_context(store, ("shop",), budget=1500).text
    lines = _lines(text)
    _index(lines, rf"- project/shop/deploy-day \(recorded {DATE}\): we deploy the shop on Friday")
    _index(lines, rf"- project/shop/episodes/s1 \(recorded {DATE}, derived\): situation: a slow deploy; "
                  r"lesson: warm the cache")


def test_one_names_order_holds_across_the_blocks_sections(store):
    """keyrank rule 5 in the block: the project's value, then the person's
    ``user/`` default (moved after it, out of "User:"); the person's before
    an agent's whatever the scope; other facts keep their places."""
    remember(store, "user/style", "spaces, 4 wide", kind="user")
    remember(store, "user/editor", "vim", kind="user")
    remember(store, "project/api/style", "2 spaces in this repo")
    remember(store, "project/api/db", "postgres 16 on port 5432")
    lines = _lines(render_context(store, ("api",), budget=1500).text)
    user = _index(lines, "User:")
    editor = _index(lines, rf"- user/editor \(recorded {DATE}\): vim")
    proj = _index(lines, "Project api:")
    assert user < editor < proj < _index(lines, rf"- project/api/style \(recorded {DATE}\): 2 spaces in this repo") \
        < _index(lines, rf"- user/style \(recorded {DATE}\): spaces, 4 wide")
    remember(store, "project/api/editor", "helix here I think", trust="agent_observed")
    lines = _lines(render_context(store, ("api",), budget=1500).text)
    assert _index(lines, "User:") < _index(lines, rf"- user/editor \(recorded {DATE}\): vim") \
        < _index(lines, rf"- project/api/editor \(recorded {DATE}, an agent's note\): helix here I think")


def test_the_session_start_hook_marks_an_agents_note(tmp_path, store):
    """The SessionStart hook (a real process) serves the same lines."""
    import subprocess
    import sys

    from tests.conftest import REPO
    from tests.hooks._util import until_within_budget
    remember(store, "project/api/style", "indent with 2 spaces in this repo")
    remember(store, "user/style", "indent with tabs I think", trust="agent_observed", kind="user")
    store.close()
    cwd = tmp_path / "api"
    cwd.mkdir()
    out = tmp_path / "hook.out"
    tries = iter(range(10))

    def run() -> subprocess.CompletedProcess:
        data = {"hook_event_name": "SessionStart", "session_id": f"start-{next(tries)}", "cwd": str(cwd),
                "source": "startup"}
        with open(out, "wb") as f:
            return subprocess.run([sys.executable, "-m", "cmds", "hook", "claude-code"], input=json.dumps(data).encode(),
                                  stdout=f, stderr=subprocess.DEVNULL, cwd=REPO, timeout=60)
    p, _within = until_within_budget("SessionStart", run, store=tmp_path / "store")
    assert p.returncode == 0
    lines = _lines(json.loads(out.read_text())["hookSpecificOutput"]["additionalContext"])
    assert _index(lines, rf"- project/api/style \(recorded {DATE}\): indent with 2 spaces in this repo") \
        < _index(lines, rf"- user/style \(recorded {DATE}, an agent's note\): indent with tabs I think")
