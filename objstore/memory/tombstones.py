"""Tombstones: what was forgotten or rejected, and the filter that keeps it
from coming back.

A tombstone (``objstore.core.objects.Tombstone``, under
``refs/tombstones/<id>``) names a key and the SHA-256 of a normalized value
(a forgotten or rejected fact value), a turn's source record id (a forgotten
turn), ``session:<id>`` (a forgotten session) or ``match:<id>`` (a
``forget --match`` rule of a session: the hash and length of the match text,
never the text) or :data:`TEXT_KEY` (a forgotten text that may not come back
inside any other value: the hash and length of a ``--match`` text or of a
forgotten fact value of at least :data:`MIN_TEXT_CHARS` characters).
``facts.remember`` refuses a lower-trust write of a tombstoned value
(:func:`forgotten_in`: the value of that key, any forgotten fact value, or a
value holding a forgotten text); every turn writer (``sessions.TurnAppender``:
import, hooks, evaluations) applies the :class:`CaptureFilter`, so a
forgotten session, record or text is never captured again.  The matching
rules are written down in ``docs/format.md`` ("Tombstone") and
``docs/forget.md`` ("No resurrection").
"""

from __future__ import annotations


from objstore.core.objects import Fact, Tombstone, Turn, value_digest
from objstore.core.record import Record, set_fields
from objstore.core.store import Store
from objstore.core.text import confusable_fold, normalized_map, replace_spans


def put_tombstone(store: Store, tombstone: Tombstone) -> str:
    """Write ``tombstone`` and its ref ``tombstones/<id>`` (no reflog: the
    ref never moves; the audit log records it, so a lost ref is noticed:
    ``reachability.lost_tombstones``); returns its id.  Idempotent.  Caller
    holds the lock."""
    tid = store.put(tombstone)
    ref = f"tombstones/{tid}"
    if store.refs.read(ref) is None:
        store.update_ref(ref, None, tid, "tombstone", audit_only=True)
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


#: the key of a text tombstone (no ':' and no scope, so an older mem, which
#: knows only key, ``session:``, ``match:`` and source tombstones, ignores it)
TEXT_KEY = "text"
#: a forgotten fact value this long (normalized) or longer also gets a text
#: tombstone; a shorter one ("vim", "8080") is a common word, refused only
#: as a whole value
MIN_TEXT_CHARS = 8
_FACT_SCOPES = ("user/", "global/", "project/")


def text_tombstone(digest: bytes, length: int, time: int) -> Tombstone:
    """The :data:`TEXT_KEY` tombstone of a forgotten text whose normalized
    form (``objstore.core.text.normalize_value``) is ``length`` characters
    long and hashes to ``digest``: reason ``text:<length>``."""
    return Tombstone(key=TEXT_KEY, value_sha256=digest, time=time, reason=f"text:{length}")


def _rule(t: Tombstone) -> tuple[bytes, int] | None:
    """``(sha256, length)`` of a ``match:`` or :data:`TEXT_KEY` tombstone."""
    try:
        n = int(t.reason.rsplit(":", 1)[1])
    except (IndexError, ValueError):
        return None
    return (t.value_sha256, n) if n > 0 else None


def forgotten_in(tombstones: list[Tombstone], key: str, body: str) -> str | None:
    """Why a lower-trust write of ``body`` under ``key`` must be refused,
    or None.  ``tombstones``: :func:`all_tombstones`.

    * ``"key"``: a tombstone of ``key`` (a forget or a rejection) names the
      normalized ``body`` (SHA-256 equality);
    * ``"value"``: ``body`` equals a fact value forgotten under another key
      (a tombstone of a ``user/``, ``global/`` or ``project/`` key whose
      reason is not ``rejected``: a rejection is about that key only);
    * ``"text"``: the normalized ``body`` contains a forgotten text (a
      :data:`TEXT_KEY` tombstone, or a ``match:`` rule of any session)
      starting where a word starts (:func:`find_matches` ``word_starts``).

    Each check is made on ``body`` and on its
    :func:`objstore.core.text.confusable_fold` (NFKC, default-ignorable
    characters removed), so fullwidth letters or a zero-width space do not
    hide a forgotten value.

    Cost: one SHA-256 of ``body``, and with text rules one SHA-256 per
    word start of the normalized ``body`` and distinct rule length (50
    forgotten texts of distinct lengths and a 540-character body: ~5 ms)."""
    seen = confusable_fold(body)
    digests = {value_digest(body), value_digest(seen)}
    rules: list[tuple[bytes, int]] = []
    other = False
    for t in tombstones:
        if t.key == key:
            if t.value_sha256 in digests:
                return "key"
        elif t.key == TEXT_KEY or t.key.startswith("match:"):
            r = _rule(t)
            if r is not None:
                rules.append(r)
        elif t.key.startswith(_FACT_SCOPES) and t.reason != "rejected" and t.value_sha256 in digests:
            other = True
    if other:
        return "value"
    if rules and any(find_matches(normalized_map(text)[0], rules, word_starts=True) for text in {body, seen}):
        return "text"
    return None


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
    norm, starts, ends = normalized_map(text)
    spans = [(starts[s], ends[e - 1]) for s, e in find_matches(norm, rules)]
    if not spans:
        return text, 0
    return replace_spans(text, spans, REDACTED), len(spans)


def find_matches(norm: str, rules: list[tuple[bytes, int]], *, word_starts: bool = False) -> list[tuple[int, int]]:
    """``(start, end)`` of every window ``norm[start:end]`` of a normalized
    text (``objstore.core.text.normalized_map``) whose UTF-8 hashes to a
    rule's SHA-256, the rule giving the window's length in characters; a
    window never starts at a collapsed space.  With ``word_starts`` a window
    starts only where a word starts or at a character that is not a letter
    or digit (so ``xzebrafrog`` holds no ``zebrafrog``; ``-pS3cret`` is found
    in ``mysql -pS3cret``): about a sixth of the positions of a prose text.
    Sorted.  Cost: one SHA-256 per position tried and distinct rule length."""
    from hashlib import sha256  # deferred: _hashlib (OpenSSL) costs ~2 ms at start-up
    by_len: dict[int, set[bytes]] = {}
    for digest, n in rules:
        if 0 < n <= len(norm):
            by_len.setdefault(n, set()).add(digest)
    if not by_len:
        return []
    starts = [s for s in range(len(norm)) if norm[s] != " " and (
        not word_starts or s == 0 or not norm[s].isalnum() or not norm[s - 1].isalnum())]
    out: list[tuple[int, int]] = []
    for n, digests in by_len.items():
        for s in starts:
            if s + n <= len(norm) and sha256(norm[s:s + n].encode("utf-8")).digest() in digests:
                out.append((s, s + n))
    return sorted(out)
