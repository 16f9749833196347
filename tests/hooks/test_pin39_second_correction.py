"""pin39 (corr38's limit, test37b T14): a second correction of a user key holding a value alone ("my tz is UTC",
"actually CET", "sorry, I meant EET" over ``user/timezone`` = ``Europe/Berlin``) wrote nothing: the take-back
reader read the first correction's version ("CET", the value alone) as the statement the next one corrects, and
"CET" names no subject.  Now it reads the first statement with that value ("my tz is CET"), so EET is the key's
next version, its value alone.  Real ``mem hook`` and ``mem`` processes on a real store."""

from __future__ import annotations

from tests.hooks._util import wait_store_processes_gone
from tests.hooks.test_correct_next_prompt37 import _told
from tests.hooks.test_correct_next_prompt38 import _read_again
from tests.hooks.test_remember_next_take_back import _S, _chain, _current, _mem


def test_a_second_correction_of_a_bare_user_key_is_its_next_bare_version(tmp_path):
    s = _S(tmp_path)
    _mem(s.store, "remember", "user/timezone", "Europe/Berlin")
    wait_store_processes_gone(s.store)
    for said in ("remember that my tz is UTC", "actually CET"):
        _told(s, s.prompt(said))
        s.stop("Noted.")
    assert _current(s.store, "user/timezone") == "CET"      # (the first correction, as corr38 made it)
    ctx = _read_again(s, _told(s, s.prompt("sorry, I meant EET")))
    assert "Corrected as you asked: user/timezone = EET (it held: CET)" in ctx, ctx
    s.stop("Noted.")
    assert [b for _v, b, _t, gone in _chain(s.store, "user/timezone") if not gone] == \
        ["EET", "CET", "UTC", "Europe/Berlin"]
    assert not s.remembered(), s.remembered()   # (nothing filed under the project)
