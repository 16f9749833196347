"""fresh38 F20, test38 T9.7/T9.8: a sealed key answered "no key" to ``mem
pin``, ``mem promote`` and the review shell's ``diff`` and ``forget``.
Each now finds it and says what it does for a sealed key: pin, unpin,
reinforce and promote refuse (exit 6), saying why; the shell's diff says
what ``mem diff`` says; the shell's forget forgets every sealed version,
as ``mem forget KEY`` does, showing no value."""

from __future__ import annotations

from cmds.shell.commands import ShellState, dispatch
from objstore.vault import identity, sealed as vault
from tests.conftest import word_in


def _sealed(store):
    identity.init_vault(store, "correct horse battery", work_factor=10)
    vault.remember_sealed(store, "user/pin", "7311-secret-pin")
    vault.remember_sealed(store, "user/pin", "7312-secret-pin")


def test_pin_promote_unpin_reinforce_of_a_sealed_key_say_it_is_sealed(store, invoke):
    _sealed(store)
    for args, says in ((("pin", "user/pin"), "a sealed value is never put in a session, so it is not pinned"),
                       (("unpin", "user/pin"), "a sealed value is never pinned"),
                       (("reinforce", "user/pin"), "never goes dormant"),
                       (("promote", "user/pin"), "so it is not curated or standing"),
                       (("promote", "user/pin", "--demote"), "is never curated")):
        r = invoke(*args, exit_code=6)
        assert "user/pin is sealed: " in r.stderr and says in r.stderr, (args, r.stderr)
        assert "no key" not in r.stderr and not word_in("7312", r.stdout + r.stderr)
    assert invoke("pin", "user/nothing", exit_code=4).stderr.startswith("Error: no key user/nothing")
    assert store.refs.read("facts/user/pin") is None   # nothing written in the clear


def test_the_shells_diff_and_pin_of_a_sealed_key_say_it_is_sealed(store):
    _sealed(store)
    state = ShellState(store, width=80)
    for line, says in (("diff user/pin", "mem diff compares plain values"),
                       ("diff user/pin v1 v2", "mem diff compares plain values"),
                       ("pin user/pin", "so it is not pinned")):
        text = "\n".join(dispatch(state, line).lines)
        assert "user/pin is sealed: " in text and says in text, (line, text)
        assert "no key" not in text and not word_in("7311", text)


def test_the_shells_forget_of_a_sealed_key_forgets_every_sealed_version(store):
    _sealed(store)
    state = ShellState(store, width=80)
    reply = dispatch(state, "forget user/pin")
    text = "\n".join(reply.lines)
    assert "will forget the sealed key user/pin: 2 sealed versions" in text, text
    assert not word_in("7311", text) and not word_in("7312", text)
    assert reply.ask.on_answer("no").lines == ["nothing forgotten"]
    assert store.refs.read("sealed/user/pin") is not None
    done = reply.ask.on_answer("yes")
    assert done.lines[0] == "forgot the sealed key user/pin: 2 objects deleted", done.lines
    assert store.refs.read("sealed/user/pin") is None
    assert "no key user/pin" in "\n".join(dispatch(state, "forget user/pin").lines)
