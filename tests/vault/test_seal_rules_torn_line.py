"""test39b B10: one bad line appended to ``seal-rules`` (a torn append, a
bad copy) made the whole file unreadable, so every seal check was off: a
plain write quoting a sealed value was stored in the clear, and fsck blamed
the first line.  The good lines still apply; fsck names the bad one's kind."""

from __future__ import annotations


def test_a_torn_last_line_leaves_the_other_rules_working(vstore, store_path, mem):
    mem("remember", "user/s1", "istanbul-42-kapi", "--sensitivity", "secret")
    with open(store_path / "seal-rules", "ab") as f:
        f.write(b"garbage\x00\xff\n")
    r = mem("remember", "project/u/d", "see istanbul-42-kapi", exit_code=6)
    assert "sealed" in r.stderr
    out = mem("fsck", exit_code=None).stdout
    assert "seal-rules is damaged (a line does not parse: garbage" in out, out   # (test42 T25: said as it is)
    mem("remember", "project/u/e", "a plain value", exit_code=13)   # a lost line may have been a rule (T25)
