"""Session 41 lead's small fixes, through real ``mem`` processes."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_a_push_with_nothing_to_send_says_so(mem, tmp_path):
    """test41 T16: a second push said only "received no new object (588 B
    read)", the same line as a pull's."""
    h = ["--home", str(tmp_path / "s")]
    (tmp_path / "r").mkdir()
    mem(*h, "remember", "user/a", "b", env=PERSON)
    mem(*h, "remote", "add", "origin", str(tmp_path / "r"), env=PERSON)
    assert "sent 1 object" in mem(*h, "push", env=PERSON).stdout
    out = mem(*h, "push", env=PERSON).stdout
    assert out.startswith("origin: sent no object: the remote had everything"), out
    assert "sent no object" not in mem(*h, "pull", env=PERSON).stdout
