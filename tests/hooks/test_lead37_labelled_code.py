"""test37 T3: a sealed value written as a label and a code ("door code
5520-1199-3377", "vendor portal pin 8841-2290-5573") got a rule for the
whole text only, which no later turn repeats: every later turn quoting the
code was stored in the clear (and sent to derive's model).  Now the code
is a form of its own.  Real hooks and ``mem remember --sensitivity
secret``."""

from __future__ import annotations

from objstore import scan_store
from objstore.memory.sealsources import quoted_forms
from tests.hooks.test_seal_later_turns import _mem
from tests.hooks.test_seal_two_word_values import sealed_session

VALUES = ["door code 5520-1199-3377", "vendor portal pin 8841-2290-5573"]


def test_later_turns_quoting_a_labelled_sealed_code_are_stored_withheld(tmp_path):
    s, env = sealed_session(tmp_path, VALUES, "l37c")
    s.prompt("open the door with 5520-1199-3377 and the vendor portal with 8841-2290-5573")
    s.stop("Done: door 5520-1199-3377, vendor 8841-2290-5573.")
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [b"5520-1199-3377", b"8841-2290-5573"]) == []
    out = _mem(env, "show", s.sid[:8]).stdout
    assert out.count("[REDACTED:sealed-value]") >= 4 and "open the door with [REDACTED" in out, out


def test_a_code_after_a_label_is_a_form_and_ordinary_labelled_numbers_are_not():
    assert quoted_forms("door code 5520-1199-3377") == ["door code 5520-1199-3377", "5520-1199-3377"]
    for v in ("deploy on host 12", "use node 20.11.0", "room 4 floor 12345678"):
        assert all(len(f.split()) > 1 for f in quoted_forms(v)), (v, quoted_forms(v))
