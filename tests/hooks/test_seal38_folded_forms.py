"""seal38 (test37b T15, T8): a sealed value was withheld only as spelled with a space between its words:
"maple-otter", "maple_otter", "mapleotter", "rowan8841", "COBALT-FINCH", "4410 7788 maple", reversed
"otter maple", and a dash-joined code re-typed with spaces or none ("5520 1199 3377", "552011993377") were
stored in the clear.  The seal rules now hold each value's separator-folded form too
(``core.textwindows.folded_form``), matched over whole words joined by spaces, ``-``, ``_``, ``.`` or ``/``
or none; a two-word secret's reversed order is a form."""

from __future__ import annotations

from objstore import scan_store
from tests.hooks.test_seal_later_turns import _mem
from tests.hooks.test_seal_two_word_values import sealed_session

VALUES = ["maple otter", "rowan 8841", "the vendor code is 4410-7788 maple", "Cobalt Finch",
          "door code 5520-1199-3377"]
QUOTED = ["maple-otter", "maple_otter", "mapleotter", "Maple.Otter", "otter maple", "rowan-8841", "rowan8841",
          "8841 rowan", "4410 7788 maple", "COBALT-FINCH", "cobaltfinch", "5520 1199 3377", "552011993377"]


def test_later_turns_quoting_a_sealed_value_with_other_separators_are_stored_withheld(tmp_path):
    s, env = sealed_session(tmp_path, VALUES, "f38")
    s.prompt("it is " + " ; it is ".join(QUOTED) + " ; maple-otterly and amaple_otter stay")
    s.stop("Noted.")
    _mem(env, "gc", "--prune=now")
    needles = [q.encode() for q in QUOTED if len(q) >= 9 and q.lower() not in ("maple-otter", "maple_otter")]
    assert scan_store(s.store, needles) == []
    out = _mem(env, "show", s.sid[:8]).stdout
    assert out.count("[REDACTED:sealed-value]") == len(QUOTED), out
    assert "maple-otterly and amaple_otter stay" in out, out   # whole words only


LABELLED = ["alarm 4410 9921", "wifi pass: otter maple", "locker 3391 blue"]


def test_later_turns_quoting_the_code_of_a_sealed_label_and_code_are_stored_withheld(tmp_path):
    """test37b T8: a code of two groups, two words after a colon, a number and a word got no rule."""
    s, env = sealed_session(tmp_path, LABELLED, "l38")
    s.prompt("it is 4410 9921 ok; alarm is 4410-9921; it is otter maple ok; use maple otter on the guest wifi; "
             "it is 3391 blue ok; the 3391 bus is blue")
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [b"4410 9921", b"4410-9921", b"otter maple", b"maple otter", b"3391 blue"]) == []
    out = _mem(env, "show", s.sid[:8]).stdout
    assert out.count("[REDACTED:sealed-value]") == 5 and "the 3391 bus is blue" in out, out
