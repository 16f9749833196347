"""A ``mem pull`` from a remote that holds a session whole puts back the
turns ``mem fsck --repair`` lost with the session's head (test36b T16: the
lost-head placeholder, "how many is unknown", stayed between the remote's
turns, the session grew by one turn, and the next push made it the
remote's history).  The placeholder names the lost head's id; the remote's
turns up to that id are the lost ones, byte for byte.  A real transcript
imported, pushed to a folder remote, a byte of the pack block holding the
head flipped, repaired, pulled."""

from __future__ import annotations

from tests.memory.test_refill import SID, _flip_block_of
from tests.remote.test_pull_refill import pushed  # noqa: F401  (the fixture)


def _turns(invoke) -> list[dict]:
    return invoke("show", SID, "--json").json["turns"]


def test_pull_puts_back_the_turns_lost_with_the_head(invoke, store_path, pushed, tmp_path):  # noqa: F811
    before = _turns(invoke)
    _flip_block_of(store_path, before[-1]["id"], 0.5)
    invoke("fsck", "--repair")
    mended = _turns(invoke)
    assert mended[-1]["source"].startswith("lost:") and len(mended) < len(before)
    invoke("pull")
    after = _turns(invoke)
    assert [(t["seq"], t["source"], t["text"], t["id"]) for t in after] == \
           [(t["seq"], t["source"], t["text"], t["id"]) for t in before]
    assert "(lost" not in invoke("show", SID).stdout
    # the push sends no placeholder: a clone of the remote holds the session as it was
    invoke("push")
    clone = tmp_path / "clone"
    invoke("--home", str(clone), "clone", str(pushed))
    again = invoke("--home", str(clone), "show", SID, "--json").json["turns"]
    assert [t["id"] for t in again] == [t["id"] for t in before]
