"""The review shell shows a sealed key masked: metadata, never the value."""

from __future__ import annotations

from cmds.shell.commands import ShellState, dispatch
from objstore.vault import identity, sealed as vault
from tests.conftest import word_in


def test_sealed_key_is_masked_in_show_and_log(store):
    identity.init_vault(store, "correct horse battery", work_factor=10)
    vault.remember_sealed(store, "user/pin", "7311-secret-pin")
    state = ShellState(store, width=80)
    for line in ("show user/pin", "log user/pin"):
        reply = dispatch(state, line)
        text = "\n".join(reply.lines)
        assert "sealed: 1 version" in text and "mem sealed show user/pin" in text
        assert not word_in("7311", text)   # a word: the short ids and times shown are hex and digits
