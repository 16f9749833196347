"""One damaged line of a packed ref file (``refs/packed-sessions``,
``refs/packed-facts``) or of a packed reflog (``logs/packed-*``): readers go
on with the healthy part, and say on stderr what they skipped (exit 0, as
for a damaged ref file: docs/exit-codes.md, 13); ``mem fsck`` exits 13;
``mem fsck --repair`` mends it.  Before, ``mem sessions`` dropped the
session without a word (fresh9 tester)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"


@pytest.fixture
def imported(invoke, tmp_path, store_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE, corpus)
    agent = next(corpus.rglob("agent-*.jsonl"))     # two sub-agents: their summaries go to refs/packed-facts
    agent.with_name("agent-b0000000000000001.jsonl").write_text(
        agent.read_text().replace(agent.stem[len("agent-"):], "b0000000000000001"))
    invoke("import", "claude-code", str(corpus))
    return store_path


def _damage_first_line(p: Path) -> None:
    lines = p.read_text().splitlines(keepends=True)
    lines[0] = "zz" + lines[0][2:]          # the id is no longer an id
    p.write_text("".join(lines))


def test_a_damaged_packed_session_line_is_said_and_repaired(invoke, imported):
    before = {s["id"] for s in invoke("sessions", "--json").json}
    assert len(before) >= 2
    _damage_first_line(imported / "refs" / "packed-sessions")
    r = invoke("sessions", "--json")
    assert len(r.json) == len(before) - 1
    assert "damaged ref (refs/packed-sessions line 1) skipped" in r.stderr, r.stderr
    r = invoke("fsck", exit_code=13)
    assert "refs/packed-sessions line 1" in r.stdout + r.stderr
    invoke("fsck", "--repair")
    r = invoke("sessions", "--json")
    assert {s["id"] for s in r.json} == before and "damaged" not in r.stderr
    assert invoke("fsck").stdout.startswith("ok:")


def test_a_damaged_packed_fact_line_is_said(invoke, imported):
    keys = invoke("keys", "--json").json
    _damage_first_line(imported / "refs" / "packed-facts")
    r = invoke("keys", "--json")
    assert len(r.json) == len(keys) - 1
    assert "damaged ref (refs/packed-facts line 1) skipped" in r.stderr, r.stderr
    invoke("fsck", exit_code=13)
    invoke("fsck", "--repair")
    assert len(invoke("keys", "--json").json) == len(keys)


def test_a_damaged_packed_reflog_line_is_said_and_dropped(invoke, imported):
    log = imported / "logs" / "packed-sessions"
    n = len(invoke("reflog", "--json").json)
    _damage_first_line(log)
    r = invoke("reflog", "--json")
    assert len(r.json) == n - 1
    assert "damaged ref (logs/packed-sessions line 1) skipped" in r.stderr, r.stderr
    r = invoke("fsck", exit_code=13)
    assert "logs/packed-sessions line 1" in r.stdout + r.stderr
    invoke("fsck", "--repair")
    assert not log.read_text().startswith("zz")
    r = invoke("reflog", "--json")
    assert len(r.json) == n - 1 and "damaged" not in r.stderr
    assert invoke("fsck").stdout.startswith("ok:")


@pytest.mark.parametrize("name", ["a%2fb", "%73", "%ff", "x%2Eb%41"])
def test_a_packed_session_line_in_no_canonical_escaping_is_damage(invoke, imported, name):
    """A well-shaped line whose name ``Refs.path`` would not write: ``a%2fb``
    (an id holding '/'), ``%73`` (``s`` escaped), ``%ff`` (not UTF-8),
    ``x%2Eb%41`` (a '.' escaped inside): every reader skips it and says so,
    as for any damaged line; fsck exits 13 naming it; --repair drops it and
    every stored session is still listed.  Before, ``a%2fb`` and ``%ff``
    made ``Refs.iter`` raise (every reader of sessions failed)."""
    p = imported / "refs" / "packed-sessions"
    before = {s["id"] for s in invoke("sessions", "--json").json}
    lines = p.read_text().splitlines(keepends=True)
    n = len(lines) + 1
    p.write_text("".join(lines) + f"{'c' * 64} {name}\n")
    r = invoke("sessions", "--json")
    assert {s["id"] for s in r.json} == before
    assert f"damaged ref (refs/packed-sessions line {n}) skipped" in r.stderr, r.stderr
    assert invoke("search", "the", "--json", exit_code=None).exit_code in (0, 1)
    r = invoke("fsck", exit_code=13)
    assert f"refs/packed-sessions line {n}" in r.stdout + r.stderr
    invoke("gc", exit_code=None)             # refused or not, nothing a listed session needs goes
    invoke("fsck", "--repair")
    assert name not in p.read_text().split()
    r = invoke("sessions", "--json")
    assert {s["id"] for s in r.json} == before and "damaged" not in r.stderr
    assert invoke("fsck").stdout.startswith("ok:")


def test_crlf_line_ends_in_the_packed_files_are_damage_not_names(invoke, imported):
    """test25b U1: with CRLF line ends every packed session read as '<id>\\r':
    `mem sessions` listed the ids with a \\r, `mem show ID` found no session and
    `import --reread` stored every session again.  Now each such line is damage:
    skipped and said, gc refuses, fsck names it, fsck --repair mends it."""
    before = {s["id"] for s in invoke("sessions", "--json").json}
    keys = invoke("keys", "--json").json
    for name in ("packed-sessions", "packed-facts"):
        p = imported / "refs" / name
        p.write_bytes(p.read_bytes().replace(b"\n", b"\r\n"))
    r = invoke("sessions", "--json")
    assert not [s for s in r.json if "\r" in s["id"]] and "refs/packed-sessions line 1" in r.stderr, r.stderr
    invoke("gc", "--prune=now", exit_code=13)
    assert "packed-sessions line 1" in (r := invoke("fsck", exit_code=13)).stdout + r.stderr
    invoke("fsck", "--repair")
    assert {s["id"] for s in invoke("sessions", "--json").json} == before
    assert invoke("keys", "--json").json == keys
    assert invoke("fsck").stdout.startswith("ok:")
