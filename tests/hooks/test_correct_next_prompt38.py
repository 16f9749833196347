"""Session 38 (lane corr38): next-prompt corrections and the person's user
keys (test37b T1, T2, T14, T19.5, T19.8).

- A password corrected by the next prompt ("Actually, it's Zebra-Quill-4471",
  "sorry, I meant 8812") was silent, and "Correction: kiwi-mango-56" said
  "names no one new value" though it named one (redacted): each now says the
  new value is a credential kept out of the store, and how to seal it.
- "Actually, it's 6543 - also please run the migrations now" (a request
  after " - also please") was silent: it corrects like ", then restart …".
- "forget that" right after a correction was ignored, and a second
  correction in a row was silent: the take-back reader reads past the
  corrections said since the statement.
- "my time zone is X", "my tz is X", "my shell is zsh" (``user/prefs/shell``),
  "I use emacs as my editor now" were filed under the project beside the
  person's own user key; and the user key's value a bare zone became the
  whole sentence.  Now the user key's next version, its value alone when
  the key held a value alone.
- A correction that states another subject ("sorry, I meant the staging api
  host is api-stg-2") was silent: it says so.

Real ``mem hook`` and ``mem`` processes on real stores; each prompt waits
for the hook's detached children (``_S.prompt``)."""

from __future__ import annotations

import pytest

from tests.hooks._util import wait_store_processes_gone
from tests.hooks.test_correct_next_prompt37 import _told
from tests.hooks.test_remember_next_take_back import _S, _chain, _current, _mem

P = "project/proj/remembered/"


def _read_again(s, ctx: str) -> str:
    """``ctx``, or when a loaded machine left both the prompt hook and the Stop hook silent (the turn stored by
    a detached child: seen at load 30), the lines the take-back rule gives for the stored turn now, read
    without acting (``take_back_turn(act=False)``: for an answer that writes nothing, the same lines)."""
    if ctx:
        return ctx
    from objstore.capture.takeback import take_back_turn, takeback_lines
    from objstore.core.objects import Turn
    from objstore.core.refs import session_ref
    from tests.hooks.test_remember_next_take_back import open_store
    with open_store(s.store) as st:
        head = st.refs.read(session_ref(s.sid))
        newest = next(t for _i, t in st.walk_chain(head, Turn, "turn") if t.role == "user")
        return "\n".join(takeback_lines(take_back_turn(st, s.sid, newest.source, act=False), str))


def _session(tmp_path, said: list[str], keys: dict | None = None):
    """A session whose store holds ``keys`` (key -> value, by ``mem remember``) and whose prompts are ``said``,
    each answered: ``(session, what the last prompt was told)``."""
    s = _S(tmp_path)
    for key, value in (keys or {}).items():
        _mem(s.store, "remember", key, value)
        wait_store_processes_gone(s.store)
    for one in said[:-1]:
        s.prompt(one)
        s.stop("Noted.")
    return s, _told(s, s.prompt(said[-1]))


@pytest.mark.parametrize("said,fix,key", [
    ("remember that the staging db password is Tr0ub4dor-88", "Actually, it's Zebra-Quill-4471", "staging-db-password"),
    ("remember that the vpn pin is 4471", "sorry, I meant 8812", "vpn-pin"),
    ("remember that the admin pass is kiwi-mango-55", "Correction: kiwi-mango-56", "admin-pass"),
])
def test_t1_a_password_corrected_by_the_next_prompt_says_it_is_kept_out(tmp_path, said, fix, key):
    s, ctx = _session(tmp_path, [said, fix])
    ctx = _read_again(s, ctx)
    assert f"Not stored: the corrected value of {P}{key} is a credential" in ctx, ctx
    assert f"mem remember {P}{key} VALUE --sensitivity secret" in ctx and "names no one new value" not in ctx, ctx
    assert len(_chain(s.store, P + key)) == 1
    new = fix.rsplit(" ", 1)[1].encode()
    if len(new) >= 6:   # (a short needle may be found by chance in a store's bytes)
        assert not [p for p in s.store.rglob("*") if p.is_file() and new in p.read_bytes()]


def test_t1_a_correction_with_a_request_after_a_dash_corrects(tmp_path):
    s, ctx = _session(tmp_path, ["remember that the db port is 5432",
                                 "Actually, it's 6543 - also please run the migrations now"])
    assert f"Corrected as you asked: {P}db-port = the db port is 6543" in ctx, ctx
    assert _current(s.store, P + "db-port") == "the db port is 6543"


def test_t14_forget_that_after_a_correction_takes_both_back(tmp_path):
    s, ctx = _session(tmp_path, ["remember that the metrics port is 9090", "Actually, it's 9091", "forget that"])
    assert f"Taken back as you asked: {P}metrics-port is forgotten (it held: the metrics port is 9091)" in ctx, ctx
    assert _current(s.store, P + "metrics-port") is None


def test_t14_forget_that_after_a_correction_brings_back_the_value_before_both(tmp_path):
    key = P + "metrics-port"
    s, ctx = _session(tmp_path, ["remember that the metrics port is 9090", "Actually, it's 9091", "forget that"],
                      {key: "the metrics port is 8080"})
    assert "and the value it corrected are forgotten" in ctx and "current again: the metrics port is 8080" in ctx, ctx
    assert [(b, gone) for _v, b, _t, gone in _chain(s.store, key)][2] == ("the metrics port is 8080", False)
    assert _current(s.store, key) == "the metrics port is 8080"


def test_t14_a_second_correction_in_a_row_corrects_again(tmp_path):
    s, ctx = _session(tmp_path, ["remember that the grpc port is 50051", "Actually, it's 50052",
                                 "sorry, I meant 50053"])
    assert f"Corrected as you asked: {P}grpc-port = the grpc port is 50053 (it held: the grpc port is 50052)" in ctx
    assert [b for _v, b, _t, _g in _chain(s.store, P + "grpc-port")] == [
        "the grpc port is 50053", "the grpc port is 50052", "the grpc port is 50051"]


@pytest.mark.parametrize("said,fix,other", [
    ("remember that the api host is api-1", "sorry, I meant the staging api host is api-stg-2",
     "the staging api host is api-stg-2"),
    ("remember that the db port is 5432", "Actually, the cache port is 6380", "the cache port is 6380"),
])
def test_t19_8_a_correction_of_another_subject_says_so(tmp_path, said, fix, other):
    s, ctx = _session(tmp_path, [said, fix])
    ctx = _read_again(s, ctx)
    assert f"Not stored: the correction states another subject than {P}" in ctx and f"({other})" in ctx, ctx
    assert len(s.remembered()) == 1


def test_t2_statements_about_the_person_are_their_user_keys_next_versions(tmp_path):
    """test37b T2 and T19.5: each its user key's next version, the value alone as the key held it."""
    keys = {"user/timezone": "Europe/Berlin", "user/editor": "vim", "user/prefs/shell": "bash"}
    s, _ctx = _session(tmp_path, ["remember that my time zone is America/New_York", "remember that my tz is UTC",
                                  "remember that I use emacs as my editor now", "remember that my shell is zsh"], keys)
    s.stop("Noted.")
    assert [b for _v, b, _t, _g in _chain(s.store, "user/timezone")] == ["UTC", "America/New_York", "Europe/Berlin"]
    assert _current(s.store, "user/editor") == "emacs"
    assert _current(s.store, "user/prefs/shell") == "zsh"
    assert not s.remembered(), s.remembered()   # (nothing filed under the project)


def test_t19_5_a_user_key_of_statements_goes_on_as_statements(tmp_path):
    s, ctx = _session(tmp_path, ["remember that my timezone is UTC"], {"user/timezone": "my timezone is Europe/Berlin"})
    assert _current(s.store, "user/timezone") == "my timezone is UTC"
