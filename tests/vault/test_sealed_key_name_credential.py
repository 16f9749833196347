"""test39b B13: a credential as the name of a sealed key was accepted by
``remember --sensitivity secret`` (and ``sealed import``), so it went in the
clear into ``refs/`` file names, ``mem sealed list`` and the audit log, which
a plain ``remember`` refuses (exit 2).  One name rule for both writes."""

from __future__ import annotations

import os

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"


def test_a_sealed_write_refuses_a_key_holding_a_credential(vstore, store_path, mem):
    r = mem("remember", f"project/x/{TOKEN}", "vvvvvvvv", "--sensitivity", "secret", exit_code=2)
    assert "holds a credential" in r.stderr and TOKEN not in r.stderr
    for root, dirs, files in os.walk(store_path):
        for n in dirs + files:
            assert TOKEN not in n
            p = os.path.join(root, n)
            if os.path.isfile(p) and not os.path.islink(p):
                assert TOKEN.encode() not in open(p, "rb").read(), p
