"""Singular/plural slips in the push/pull/gc summaries ("sent 1 objects",
"1 damaged remote packs replaced (1 objects sent again)", tester s14): one
helper, ``cmds._out.plural``, writes every count."""

from __future__ import annotations

import re


def test_push_says_one_object(invoke, tmp_path):
    remote = tmp_path / "remote"
    remote.mkdir()
    invoke("remote", "add", "origin", str(remote))
    invoke("remember", "project/a/f", "one value")
    out = invoke("push").stdout
    assert re.search(r"sent 1 object \(", out), out   # "1 ref updated": tests/remote/test_remote_cli.py


def test_no_count_of_one_reads_plural_in_the_summaries():
    """Every count the remote summary writes goes through plural(): a
    SyncResult with each count at 1 has no "1 <word>s"."""
    from cmds._remote import summary
    from objstore.remote.connection import SyncResult
    import dataclasses
    one = {}
    for f in dataclasses.fields(SyncResult):
        cur = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        one[f.name] = ["x"] if isinstance(cur, (list, tuple)) else 1 if isinstance(cur, int) else cur
    text = summary(SyncResult(**one))
    for part in ("sent 1 object (", "received 1 object (", "1 ref updated", "1 challenge queued",
                 "1 forgotten value purged", "1 remote pack rewritten", "1 remote pack of an unfinished",
                 "1 damaged remote pack replaced (1 object sent again)", "1 lost turn put back"):
        assert part in text, (part, text)
