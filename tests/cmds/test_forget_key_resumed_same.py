"""A ``mem forget KEY`` killed (SIGKILL) among the tombstones of the turns
it rewrites with the value withheld, then run again (what fsck and doctor
advise), leaves the store a forget that was never stopped leaves: before,
recovery emptied the turns tombstoned before the kill (their whole text
gone) while the rerun withheld only the value in the rest (fgk33's
left-out).  Two copies of one store, a real ``mem`` process each, a real
SIGKILL; compared by ``mem export`` and ``mem show``.

The two copies are one store, so they hold one hash key (``core.hashkey``,
made at a store's first keyed tombstone: a copy made before then would be a
second store keying its own): the copy is made after the key, and the
exports then hold the same keyed tombstone digests byte for byte."""

from __future__ import annotations

import json
import shutil
import signal

from objstore.core.hashkey import store_key
from tests.cmds.test_forget_key_stopped import KEY, PERSON, VALUE, _among_turn_tombstones, _setup
from tests.conftest import journal_deletes, signal_forget_midway

MARK = "[REDACTED:forgotten-value]"


def _export(mem, home) -> list[str]:
    """The store's objects and refs as ``mem export`` gives them, sorted;
    a tombstone without its time and id (each forget writes its own time,
    which its id hashes), and neither the export's own time nor the
    tombstones' refs."""
    out = []
    for line in mem("export", "-o", "-", env={"MEM_HOME": str(home)}).stdout.splitlines():
        rec = json.loads(line)
        if "format" in rec or rec.get("ref", "").startswith("tombstones/"):
            continue
        if rec.get("object") == "tombstone":
            rec.pop("id")
            rec["fields"].pop("time")
        out.append(json.dumps(rec, sort_keys=True))
    return sorted(out)


def test_a_resumed_key_forget_leaves_the_store_an_unstopped_one_leaves(mem, store_path, tmp_path):
    _setup(mem, tmp_path, turns=300)
    store_key(store_path)    # (the module doc: one store, one key)
    plain = tmp_path / "plain"
    shutil.copytree(store_path, plain, symlinks=True)
    mem("forget", KEY, "--yes", env={**PERSON, "MEM_HOME": str(plain)})   # never stopped
    code, _err = signal_forget_midway(store_path, [KEY], signal.SIGKILL, PERSON, ready=_among_turn_tombstones)
    assert code == -signal.SIGKILL and not journal_deletes(store_path)
    r = mem("forget", KEY, "--yes", env=PERSON)        # recovery, then the rerun finishes it
    assert "already forgotten" not in r.stdout, r.stdout
    for home in (plain, store_path):
        mem("gc", "--prune=now", env={"MEM_HOME": str(home)})
        assert "ok:" in mem("fsck", env={"MEM_HOME": str(home)}).stdout
        found = json.loads(mem("scan", VALUE, "--json", "--no-remotes", exit_code=None,
                               env={"MEM_HOME": str(home)}).stdout)
        assert [p for p in found if p["place"] != "transcript"] == []
    a, b = _export(mem, plain), _export(mem, store_path)
    assert a == b
    turns = [t for t in a if "ship it to" in t]
    assert len(turns) == 300 and all(MARK in t for t in turns), a[:3]   # each keeps its text, the value withheld
    ids = [json.loads(t).get("id") for t in turns[:1] + turns[-1:]]
    for oid in ids:
        assert mem("show", oid, env={"MEM_HOME": str(plain)}).stdout == mem("show", oid).stdout
        assert MARK in mem("show", oid).stdout
