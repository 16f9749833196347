"""The session block's rule-8 verdicts are kept (``laterturns.VERDICTS_FILE``,
session 27, lat27): a fact's verdict depends only on its version, the later
turns it is compared with (their ids) and the rule's code, so a block whose
facts and candidate turns an earlier block saw reads it back instead of
running the rule again.  A new turn or version is a new digest: nothing is
served stale.  The file holds digests and indices only.  Real ``mem``
processes on real Claude Code transcripts."""

from __future__ import annotations

import time
from pathlib import Path

from objstore.retrieval.laterturns import _VERDICTS_HEAD, CUE_READ, VERDICTS_FILE
from tests.retrieval.test_fact_later_turn import CONFIRM, FACT, KEY, MOVED, _later, _session

AGAIN = "Update: the staging database switched to port 7000 now, 6543 is retired."


def _block(mem) -> str:
    return mem("context", "--project", "billing").stdout


def _marked(block: str) -> str:
    """The later turn's line above the fact's marked line."""
    lines = block.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith(f"- {KEY} ("))
    assert "MAY BE OUT OF DATE" in lines[at], block
    return lines[at - 1]


def test_a_kept_verdict_serves_the_same_block_and_a_new_turn_is_judged_anew(mem, tmp_path, store_path):
    _later(mem, tmp_path, [("user", MOVED), ("assistant", CONFIRM)])
    kept = store_path / VERDICTS_FILE
    assert not kept.exists()
    first = _block(mem)
    assert _marked(first).endswith(MOVED)
    raw = kept.read_bytes()
    assert raw.startswith(_VERDICTS_HEAD) and (len(raw) - len(_VERDICTS_HEAD)) % 17 == 0 and len(raw) > 18
    assert b"staging" not in raw and b"5432" not in raw and b"6543" not in raw   # digests, no words
    assert _block(mem) == first and kept.read_bytes() == raw   # read back, nothing new to write
    # a later correction: the candidate turns differ, so the rule runs again and the newest turn marks it
    _session(tmp_path / "tx2", "eeeeffff-2222-3333-4444-555555555555", [("user", AGAIN)],
             int(time.time() * 1000) + 4000)
    mem("import", "claude-code", str(tmp_path / "tx2"))
    assert _marked(_block(mem)).endswith(AGAIN)
    assert len(kept.read_bytes()) > len(raw)


def test_the_block_reads_the_kept_verdict(mem, tmp_path, store_path):
    """A verdict turned to "no later turn" in the file is what the next
    block serves: the rule is not run again for the same inputs.  A file
    that does not parse is ignored and written anew."""
    _later(mem, tmp_path, [("user", MOVED), ("assistant", CONFIRM)])
    first = _block(mem)
    kept = store_path / VERDICTS_FILE
    raw = bytearray(kept.read_bytes())
    h = len(_VERDICTS_HEAD)
    # two records: the fact states a value (1), and its verdict: the first of the turns compared (0)
    assert [raw[i] for i in range(h + 16, len(raw), 17)] == [1, 0], raw
    marks = [h + 17 + 16]
    raw[marks[0]] = 255
    kept.write_bytes(bytes(raw))
    assert "MAY BE OUT OF DATE" not in _block(mem)
    kept.write_bytes(b"not the format")
    assert _block(mem) == first
    assert kept.read_bytes().startswith(_VERDICTS_HEAD)


def test_many_later_turns_keep_per_fact_search_verdicts(mem, tmp_path, store_path):
    chatter = [x for i in range(CUE_READ + 3) for x in (("user", f"ok now run test suite {i} again"),
                                                         ("assistant", "done"))]
    _later(mem, tmp_path, chatter + [("user", MOVED), ("assistant", CONFIRM)])
    first = _block(mem)
    assert _marked(first).endswith(MOVED)
    assert (store_path / VERDICTS_FILE).exists()
    assert _block(mem) == first
