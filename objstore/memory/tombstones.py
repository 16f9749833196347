"""Tombstones: what was forgotten or rejected, and the filter that keeps it
from coming back.

A tombstone (``objstore.core.objects.Tombstone``, under
``refs/tombstones/<id>``) names a key and the SHA-256 of a normalized value
(a forgotten or rejected fact value), a turn's source record id (a forgotten
turn), ``session:<id>`` (a forgotten session) or ``match:<id>`` (a
``forget --match`` rule of a session: the hash and length of the match text,
never the text).  ``facts.remember`` refuses a lower-trust write of a
tombstoned value; every turn writer (``sessions.TurnAppender``: import,
hooks, evaluations) applies the :class:`CaptureFilter`, so a forgotten
session, record or text is never captured again.
"""

from __future__ import annotations


from objstore.core.objects import Fact, Tombstone, Turn, value_digest
from objstore.core.record import Record, set_fields
from objstore.core.store import Store
from objstore.core.text import normalized_map, replace_spans


def put_tombstone(store: Store, tombstone: Tombstone) -> str:
    """Write ``tombstone`` and its ref ``tombstones/<id>`` (no reflog: the
    ref never moves); returns its id.  Idempotent.  Caller holds the lock."""
    tid = store.put(tombstone)
    ref = f"tombstones/{tid}"
    if store.refs.read(ref) is None:
        store.update_ref(ref, None, tid)
    return tid


def tombstones_for(store: Store, key: str) -> list[Tombstone]:
    """Tombstones recorded for ``key``."""
    return [t for t in all_tombstones(store) if t.key == key]


def is_rejected(store: Store, key: str, body: str) -> bool:
    """True when a tombstone of ``key`` (a forget or a rejection) matches
    the normalized ``body``."""
    digest = value_digest(body)
    return any(t.value_sha256 == digest for t in tombstones_for(store, key))


def all_tombstones(store: Store) -> list[Tombstone]:
    """Every tombstone in the store."""
    return [store.get(oid, Tombstone) for _n, oid in store.refs.iter("tombstones")]


# -- no resurrection -----------------------------------------------------------

class CaptureFilter(Record):
    """What capture must not bring back, built from the tombstones.

    Attributes:
        sessions: forgotten whole sessions (their records are skipped).
        sources: source record ids of forgotten turns (captured with the text removed).
        digests: SHA-256 of the normalized text of forgotten turns: a record
            whose text hashes to one is captured emptied too, whatever its
            source id (a copy of the record in another file or position).
        rules: session id -> [(sha256, length)] of ``--match`` texts to redact.
    """

    __slots__ = ("sessions", "sources", "digests", "rules")

    def __init__(self, sessions: set[str] | None = None, sources: set[str] | None = None,
                 digests: set[bytes] | None = None, rules: dict[str, list[tuple[bytes, int]]] | None = None) -> None:
        set_fields(self, set() if sessions is None else sessions, set() if sources is None else sources,
                   set() if digests is None else digests, {} if rules is None else rules)

    def __bool__(self) -> bool:
        return bool(self.sessions or self.sources or self.rules)

    def forgets(self, source: str, text: str) -> bool:
        """True when a captured record must be stored emptied."""
        return source in self.sources or (bool(self.digests) and value_digest(text) in self.digests)


def capture_filter(store: Store) -> CaptureFilter:
    """The :class:`CaptureFilter` of ``store`` (one pass over its tombstones)."""
    flt = CaptureFilter()
    for t in all_tombstones(store):
        if t.key.startswith("session:"):
            flt.sessions.add(t.key[len("session:"):])
        elif t.key.startswith("match:"):
            try:
                n = int(t.reason.split(":", 1)[1])
            except (IndexError, ValueError):
                continue
            flt.rules.setdefault(t.key[len("match:"):], []).append((t.value_sha256, n))
        elif ":" in t.key and not t.key.startswith(("user/", "global/", "project/")):
            flt.sources.add(t.key)
            flt.digests.add(t.value_sha256)
    return flt


def forgotten_check(store: Store):
    """``check(obj) -> bool``: True for a fact version or turn whose value
    a tombstone of ``store`` forgets (a turn of a forgotten session, a turn
    whose source or text a tombstone names, a version whose key + value
    digest a tombstone names).  gc deletes unreachable objects it marks at
    once (``objstore.core.gc.plan_gc`` ``forgotten``)."""
    flt = capture_filter(store)
    facts = {(t.key, t.value_sha256) for t in all_tombstones(store) if t.key.startswith(("user/", "global/", "project/"))}

    def check(obj) -> bool:
        if isinstance(obj, Turn):
            return obj.session in flt.sessions or (bool(obj.text) and flt.forgets(obj.source, obj.text))
        if isinstance(obj, Fact):
            return bool(obj.body) and (obj.key, value_digest(obj.body)) in facts
        return False
    return check


REDACTED = "[forgotten]"


def redact_matches(text: str, rules: list[tuple[bytes, int]]) -> tuple[str, int]:
    """Replace every span of ``text`` whose normalized form
    (``objstore.core.text.normalize_value``: NFC, case-folded, whitespace
    runs as one space) hashes to a rule's SHA-256, with ``[forgotten]``; the
    characters around the spans are kept as they are.  The rule holds only the hash and the normalized
    length, never the text.  Cost: one SHA-256 per position and rule.

    Returns ``(text, spans redacted)``.
    """
    from hashlib import sha256  # deferred: _hashlib (OpenSSL) costs ~2 ms at start-up
    norm, starts, ends = normalized_map(text)
    spans: list[tuple[int, int]] = []
    for digest, n in rules:
        if n <= 0 or n > len(norm):
            continue
        for s in range(len(norm) - n + 1):
            if norm[s] == " ":
                continue
            if sha256(norm[s:s + n].encode("utf-8")).digest() == digest:
                spans.append((starts[s], ends[s + n - 1]))
    if not spans:
        return text, 0
    return replace_spans(text, spans, REDACTED), len(spans)
