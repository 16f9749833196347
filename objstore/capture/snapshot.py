"""The key a prompt hook gives its prompt, fixed before anything else runs
(:func:`prompt_snapshot`, :class:`PromptSnapshot`), and what it needs:
:func:`is_subagent`.

Split from :mod:`objstore.capture.live` (which re-exports them) so that the
prompt hook's own process, which only fixes the key and hands the write to
its capture child, does not import the capture chain (``live``, ``sync``,
``rollup``, ``appender``): it needs the transcript reader's prompt scan and
the cursors' names only (docs/benchmarks.md, "Session 18 (branch
`lat18`)"), which ``objstore.capture.promptscan`` holds apart from the
reader's turn building (session 32, lat32).  Keys and idempotence: ``docs/hooks.md``, ``docs/design.md``
(the prompt key ``cc:p:<hash>:<n>``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from objstore.capture.promptscan import cursor_key, keyed_hash, prompt_hash, scan_prompts
from objstore.capture.transcript import strip_mem_context
from objstore.core.atomic import CACHE_FILE_MAX_BYTES, read_regular
from objstore.core.hashkey import store_key
from objstore.core.record import Frozen, set_fields

__all__ = ["PromptSnapshot", "SNAPSHOT_MAX_BYTES", "is_subagent", "prompt_snapshot"]


#: bytes past the cursor a prompt hook reads to fix its prompt's key; beyond,
#: the transcript sync stores the prompt (Stop, SessionEnd, catch-up)
SNAPSHOT_MAX_BYTES = 8 << 20


def is_subagent(path: Path) -> bool:
    """True when ``path`` is a sub-agent's transcript (its file name starts
    with ``agent-``): read by the rollup, never given a prompt key."""
    return Path(path).name.startswith("agent-")


class PromptSnapshot(Frozen):
    """The key a prompt hook gives its prompt, fixed from the transcript as it
    was when the hook started, before anything else runs.

    ``key`` is ``cc:p:<hash>:<n>`` (``hash``: ``promptscan.keyed_hash`` of the
    plain hash under the store's hash key, made now when it has none): ``n`` counts the prompt records of this
    text in the transcript's first ``size`` bytes (the hook's start), as the
    reader counts them, plus one unless the last prompt record there has this
    text (then the delivery is that record: written before the hook ran, or a
    delivery that runs late).  Every delivery of one prompt (the hook
    registered twice) sees the same bytes and so computes the same key, and
    the reader gives the record the same key: the write is idempotent by
    construction, whatever runs in between.  ``key`` is "" when the
    transcript cannot tell (none given, a subagent's, or more than
    ``SNAPSHOT_MAX_BYTES`` unread): see :func:`objstore.capture.live.capture_prompt`."""

    __slots__ = ("key", "size")

    def __init__(self, key: str = "", size: int = 0) -> None:
        set_fields(self, key, size)


def prompt_snapshot(root: Path, transcript: Path | None, prompt: str) -> PromptSnapshot:
    """:class:`PromptSnapshot` of ``prompt`` from ``transcript`` (no lock, no
    store object: the hook's hot path).  The cursor under ``root`` (the
    store directory) gives the counts up to its offset, so only the bytes
    after it are scanned (:func:`promptscan.scan_prompts`)."""
    if transcript is None or is_subagent(transcript):
        return PromptSnapshot()
    h = prompt_hash(strip_mem_context(prompt))
    try:
        st = os.stat(transcript)
    except OSError:
        return PromptSnapshot()
    size, start, count, prev, known = st.st_size, 0, 0, "", {}
    try:
        r = json.loads(read_regular((Path(root) / "cache" / "cursors" / cursor_key(transcript)).with_suffix(".state"),
                                    CACHE_FILE_MAX_BYTES))   # a FIFO or /dev/zero: unusable, never waited on
        off = r["offset"]
        if type(off) is not int:     # a damaged cursor (test17 T16): as none
            raise TypeError("offset")
        if (r["dev"], r["ino"]) == (st.st_dev, st.st_ino) and 0 <= off <= size:
            start, count, prev = off, int(r["prompts"].get(h, 0)), str(r["prev_prompt"])
            known = r["prompt_ids"]
            if not isinstance(known, dict):
                raise TypeError("prompt_ids")
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        start, count, prev, known = 0, 0, "", {}      # no usable cursor: scan from the start
    if size - start > SNAPSHOT_MAX_BYTES:
        return PromptSnapshot(size=size)
    seen: set[str] = set()
    try:
        for uid, ph in scan_prompts(transcript, start=start, end=size):
            prev = ph
            if ph == h and uid not in seen and uid not in known:
                seen.add(uid)
                count += 1
    except OSError:
        return PromptSnapshot(size=size)
    try:
        hk = keyed_hash(h, store_key(root))
    except OSError:       # no key can be made (a read-only store): the prompt's capture fails there anyway
        return PromptSnapshot(size=size)
    return PromptSnapshot(f"cc:p:{hk}:{count if prev == h else count + 1}", size)
