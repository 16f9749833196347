"""Scrub a transcript the store captured from without its scrubbed records
coming back: ``mem forget --match TEXT --scrub-sources``.

A scrub changes a record's text, and a turn whose source is derived from its
text (a Claude Code prompt, stored under its alias ``cc:p:<hash>:<n>``; a
Codex message ``cx:u:``/``cx:a:``) is then read with another source: the
next import (or a hook's catch-up, which reads the rewritten file again)
would take it for a new record and capture the scrubbed text, all of the
forgotten turn but the matched words.  So, before the file is rewritten,
the transcript is parsed as it is and as it will be (in memory: the
scrubbed text is written nowhere else), and for each record whose stored
key changes and whose turn the store holds, a scrubbed-record tombstone
(``objstore.memory.tombstones.scrubbed_tombstone``) names it: capture then
takes that record for the stored turn (``TurnAppender.add``).  The
tombstones are written under the store lock before the file changes, so no
capture can read the scrubbed record first.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from objstore.capture import claude_code, codex
from objstore.capture.promptscan import keyed_alias
from objstore.capture.scrub import open_regular, scrub, scrubbed
from objstore.capture.transcriptfile import is_transcript_file
from objstore.core.hashkey import store_key
from objstore.core.store import Store, now_ms
from objstore.memory.appender import TurnAppender
from objstore.memory.tombstones import put_tombstone, scrubbed_tombstone

#: lines read to tell a Codex rollout from a Claude Code transcript
_SNIFF_LINES = 50


def _is_codex(data: bytes) -> bool:
    """Whether ``data`` reads as a Codex rollout (a record with a
    ``payload`` or ``record_type``, or a legacy header) rather than a Claude
    Code transcript (agent-formats §2.2, §3.1)."""
    for line in data.split(b"\n", _SNIFF_LINES)[:_SNIFF_LINES]:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            if "payload" in rec or "record_type" in rec:
                return True
            if "sessionId" in rec or "uuid" in rec:
                return False
    return False


def _parse(path: Path, data: bytes) -> list:
    reader = codex if _is_codex(data) else claude_code
    return list(reader.parse_file(path, reader.ParseStats(), data=data))


def scrubbed_records(store: Store, path: Path, data: bytes, new: bytes) -> list:
    """The scrubbed-record tombstones that scrubbing ``path`` from ``data``
    to ``new`` needs: one per record whose stored key (alias or source)
    the scrub changes and whose session's chain holds it (a record never
    captured is captured scrubbed later, as any new record).  Records are
    paired in file order, by session, role and time."""
    before, after = _parse(path, data), _parse(path, new)
    app = TurnAppender(store, command="forget")
    flt = app.filter()
    now = now_ms()
    key = store_key(store.root)
    out = []
    for b, a in zip(before, after):
        if (b.session, b.role, b.timestamp) != (a.session, a.role, a.timestamp):
            continue
        kb, ka = b.alias or b.source, a.alias or a.source
        sid = app.valid_sid(b.session)
        if kb == ka or sid is None or sid in flt.sessions:
            continue
        # a prompt's alias as the store holds it: keyed with its hash key (pid38), or an older mem's plain one
        have = app.state(sid).sources
        kb = next((k for k in (keyed_alias(kb, key), kb) if k in have), None)
        if kb is None:
            continue
        when = flt.forgets(sid, (kb, b.source), (b.text, app.stored_text(b.text)))
        out.append(scrubbed_tombstone(sid, kb, a.source, when or now))
    return out


def scrub_captured(store: Store, path: str | os.PathLike, text: str,
                   roots: Iterable[str | os.PathLike] = ()) -> int:
    """:func:`objstore.capture.scrub.scrub` of one transcript ``path`` the
    store captured from, after writing (under the store lock) the
    scrubbed-record tombstones its rewritten records need
    (:func:`scrubbed_records`).  Returns the lines rewritten: 0, the file
    untouched, when it is no transcript (``is_transcript_file`` with the
    harnesses' folders ``roots``, as ``imported_sources`` listed it: a hook
    event may have named any file, fresh42 F13).  Raises as ``scrub`` does,
    and StoreLocked."""
    path = Path(os.path.realpath(path))
    if not is_transcript_file(path, roots):
        return 0
    with open_regular(path) as f:
        data = f.read()
    new, changed = scrubbed(data, text)
    if changed:
        with store.lock("forget"):
            for t in scrubbed_records(store, path, data, new):
                put_tombstone(store, t)
    return scrub(path, text)
