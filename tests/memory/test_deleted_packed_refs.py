"""``rm <store>/refs/packed-sessions`` (or ``packed-facts``): ``mem
sessions`` was empty, ``mem fsck`` said ok and ``fsck --repair`` "nothing
to repair", although the reflog named every head and the turns were all
stored (session 11's fresh tester).  Now fsck reports each session or key
whose objects are stored but that no ref names, ``--repair`` sets its ref
again (from its reflog, else from its objects) and ``gc`` deletes none of
them meanwhile."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def _transcripts(d: Path, n: int = 3) -> Path:
    d.mkdir()
    for i in range(n):
        with open(d / f"s{i}.jsonl", "w") as f:
            for j in range(3):
                f.write(json.dumps({"type": "user", "uuid": f"u{i}-{j}", "sessionId": f"sess{i}", "cwd": "/p",
                                    "timestamp": f"2026-01-05T10:00:0{j}Z",
                                    "message": {"role": "user", "content": f"the quokka plan {i} {j}"}}) + "\n")
    return d


def _sessions(invoke) -> set[str]:
    return {s["id"] for s in invoke("sessions", "--json").json}


@pytest.mark.parametrize("reflog", [True, False], ids=["reflog-kept", "reflog-gone"])
def test_deleted_packed_sessions_are_found_kept_by_gc_and_restored(mem, invoke, store_path, tmp_path, reflog):
    invoke("import", "claude-code", str(_transcripts(tmp_path / "t")))
    before = _sessions(invoke)
    assert len(before) == 3 and (store_path / "refs" / "packed-sessions").exists()
    (store_path / "refs" / "packed-sessions").unlink()
    if not reflog:
        (store_path / "logs" / "packed-sessions").unlink()
    assert _sessions(invoke) == set()
    r = invoke("fsck", exit_code=13)
    assert r.stdout.count("ref sessions/sess") == 3 and "missing, while 3 of its turns are stored" in r.stdout
    g = invoke("gc", "--prune=now", "--json").json             # nothing of them is deleted meanwhile
    assert g["deleted"] == 0 and len(g["unnamed"]) == (0 if reflog else 3)   # (a reflog is a gc root)
    r = mem("fsck", "--repair")                                  # a real process
    assert r.stdout.count("restored sessions/" if reflog else "rebuilt sessions/") == 3
    assert _sessions(invoke) == before
    assert "quokka plan 2 2" in invoke("show", "sess2").stdout
    assert invoke("fsck").stdout.startswith("ok:")


def test_deleted_packed_facts_are_restored(invoke, store_path, tmp_path):
    from tests.conftest import gen_corpus
    corpus = gen_corpus(tmp_path / "projects", "--sessions", "6", "--turns", "80", "--subagent-share", "0.5",
                        "--seed", "5")
    invoke("import", "claude-code", str(corpus))
    packed = store_path / "refs" / "packed-facts"
    if not packed.exists():
        pytest.skip("this corpus wrote no packed fact refs")
    keys = {k["key"] for k in invoke("keys", "--json").json}
    packed.unlink()
    assert {k["key"] for k in invoke("keys", "--json").json} < keys
    assert "ref facts/" in invoke("fsck", exit_code=13).stdout
    invoke("gc", "--prune=now")
    invoke("fsck", "--repair")
    assert {k["key"] for k in invoke("keys", "--json").json} == keys
    assert invoke("fsck").stdout.startswith("ok:")


def test_a_forgotten_session_is_garbage_not_a_lost_ref(invoke, store_path, tmp_path):
    invoke("import", "claude-code", str(_transcripts(tmp_path / "t", 2)))
    invoke("forget", "--session", "sess0", "--yes")
    assert invoke("fsck").stdout.startswith("ok:")
    assert invoke("gc", "--prune=now", "--json").json["unnamed"] == []
    assert _sessions(invoke) == {"sess1"}
