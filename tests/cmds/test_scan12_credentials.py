"""Session 11's fresh tester, credentials (lane scan12): every transcript the
store knows a path of is scanned and scrubbed, whoever captured it (the
hooks' cursors, not only ``mem import``'s ledger); a name (key, ``--session``,
``--agent``) holding any credential shape the value redaction knows is
refused, naming its field; ``mem scan`` also reads names; a value on the
line after its label is redacted for every label; quarantined bytes never
give a false match.  Real files, real ``mem`` processes."""

from __future__ import annotations

import json

import pytest

from tests.hooks._util import asst, hook_env, line, payload, run_hook, text, turns, user

SID = "5d1e6f0a-0000-4000-8000-00000000c0de"
CANARY = "zebracanary4417"


def _hooked_transcript(tmp_path, store_path):
    """A transcript captured by a real ``mem hook claude-code`` Stop event
    (never imported): its path is known only to the hook's cursor."""
    proj = tmp_path / "claude" / "projects" / "-home-u-proj"
    proj.mkdir(parents=True)
    t = proj / f"{SID}.jsonl"
    t.write_bytes(line(user("u1", f"remember the {CANARY} flag", SID))
                  + line(asst("a1", "m1", [text(f"noted: {CANARY}")], SID)))
    rc, _out, err, _s = run_hook(store_path, payload("Stop", SID, t), env=hook_env(store_path, MEM_HOOK_FORK="0"))
    assert rc == 0, err
    assert any(CANARY in x[3] for x in turns(store_path)), "the hook captured nothing"
    assert not (store_path / "cache" / "imported-files").exists()   # not through mem import
    return t


def test_scan_and_scrub_sources_reach_transcripts_the_hooks_captured(tmp_path, mem, store_path):
    t = _hooked_transcript(tmp_path, store_path)
    r = mem("scan", CANARY, "--no-remotes", "--json", exit_code=1)
    assert {"place": "transcript", "where": str(t), "detail": "2 line(s)"} in r.json, r.json
    r = mem("forget", "--match", CANARY, "--scrub-sources", "--yes")
    assert CANARY.encode() not in t.read_bytes()
    assert b"[REDACTED]" in t.read_bytes()
    r = mem("scan", CANARY, "--no-remotes", "--json", exit_code=None)
    assert not [h for h in (r.json if r.stdout.strip() else []) if h["place"] == "transcript"]


def test_a_scrubbed_hooked_transcript_brings_nothing_back_on_the_next_hook(tmp_path, mem, store_path):
    """The scrub rewrites the file under the hook's cursor: the next hook
    re-reads it (a changed file) and stores no forgotten text."""
    t = _hooked_transcript(tmp_path, store_path)
    mem("forget", "--match", CANARY, "--scrub-sources", "--yes")
    with open(t, "ab") as f:
        f.write(line(user("u2", "next prompt", SID)) + line(asst("a2", "m2", [text("next answer")], SID)))
    rc, _out, err, _s = run_hook(store_path, payload("Stop", SID, t), env=hook_env(store_path, MEM_HOOK_FORK="0"))
    assert rc == 0, err
    now = [x[3] for x in turns(store_path)]
    assert not [x for x in now if CANARY in x], now
    assert "next prompt" in now
