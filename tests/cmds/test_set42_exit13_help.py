"""Every writer that refuses a set-back ref exits 13 (core/setback.py), but
the ``--help`` of seal, unseal, reinforce, pin, unpin, promote and forget
did not list 13 (test41 T7).  Real ``mem CMD --help`` processes."""

from __future__ import annotations

import re

import pytest


@pytest.mark.parametrize("cmd", ["seal", "unseal", "reinforce", "pin", "unpin", "promote", "forget"])
def test_help_lists_exit_13_for_a_set_back_ref(mem, cmd):
    text = " ".join(mem(cmd, "--help").stdout.split())
    assert re.search(r"\b13 (the|a) key's ref (was )?set back\b.*mem fsck --repair", text), text
