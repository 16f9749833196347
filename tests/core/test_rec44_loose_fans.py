"""objstore.core.idprefix: a call lists the objects folder once and opens only the
fan-out folders it holds (a recall's ~30 prefixes fall in ~15 fans a packed store
lacks: a failed open each before), and still finds every loose and packed id."""

from __future__ import annotations

import os

from objstore.core.idprefix import expand_prefixes
from objstore.memory.documents import all_turn_docs
from objstore.memory.opening import open_store
from objstore.retrieval.evaluate import write_sessions
from tests.retrieval.recall_helpers import turn


def test_absent_fan_folders_are_not_opened_and_every_id_is_found(store_path, monkeypatch):
    with open_store(store_path, create=True) as s:
        write_sessions(s, [("sess-a", [turn(w) for w in ("zanzibar quokka", "marmalade fjord", "lantern")])])
        packed = [d.id for d in all_turn_docs(s)]
        loose = s.objects.put(b"blob 5\0hello")   # a loose object beside the pack
        root = os.fspath(s.objects.root)
        fans = {n for n in os.listdir(root) if len(n) == 2}
        absent = [f"{a}{b}" for a in "0123456789abcdef" for b in "0123456789abcdef"
                  if f"{a}{b}" not in fans][:20]
        listed: list[str] = []
        real = os.listdir

        def listdir(path="."):
            listed.append(os.fspath(path).rstrip(os.sep))
            return real(path)

        monkeypatch.setattr(os, "listdir", listdir)
        asked = [i[:32] for i in packed] + [loose[:32]] + [f + "0" * 30 for f in absent]
        got = expand_prefixes(s, asked)
        monkeypatch.setattr(os, "listdir", real)
    assert got[:len(packed) + 1] == [*packed, loose]
    assert got[len(packed) + 1:] == [None] * len(absent)
    opened = {os.path.basename(p) for p in listed if os.path.dirname(p) == root and len(os.path.basename(p)) == 2}
    assert opened <= fans, sorted(opened - fans)   # batch: each absent fan's folder was opened too
    assert loose[:2] in opened
