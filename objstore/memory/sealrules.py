"""The local seal rules: a sealed value withheld in every turn captured
after the seal (test34 T4: the session the seal rewrote went on, its next
Stop sync stored the agent's reply and a tool output quoting the sealed
value in the clear, and search/recall served them).

``mem seal KEY`` writes no tombstone (``sealsources``: a hash of a short
secret is as good as the secret, and tombstones travel to remotes).  It
writes instead, for each form of each sealed value
(``sealsources.quoted_forms``, at least ``MIN_TEXT_CHARS`` once
normalized), a line in :data:`RULES_FILE`: a keyed BLAKE2b-256 (RFC 7693 keyed
mode, a MAC) of the normalized form under a random 32-byte key kept in the same file, and its
length.  The file is mode 0600, local to this store: no object, no ref, so
``mem push``, ``mem backup`` and ``mem export`` never carry it, and
without the key a digest cannot be tried against guesses.  The turn writer
(``objstore.memory.appender``) stores every later turn with a span whose
normalized form matches a rule replaced by ``[REDACTED:sealed-value]``,
in any session.  ``mem unseal KEY`` removes the key's rules.
docs/vault.md, "Sealing"; the file's format in docs/format.md.
"""

from __future__ import annotations

import os

from objstore.core.atomic import atomic_write
from objstore.core.ids import blake2b
from objstore.core.objects import normalize_value
from objstore.core.store import Store
from objstore.core.text import normalized_map, replace_spans
from objstore.memory.sessions import WITHHELD
from objstore.memory.tombstones import MIN_TEXT_CHARS, find_matches

#: the rules file, under the store's root (docs/format.md, "Local seal rules")
RULES_FILE = "seal-rules"
_HEAD = "mem-seal-rules 1"


class SealRules:
    """The parsed :data:`RULES_FILE`: ``key`` (32 bytes) and ``lines``
    ``[(sealed key, digest, length)]``."""

    __slots__ = ("key", "lines")

    def __init__(self, key: bytes, lines: list[tuple[str, bytes, int]]) -> None:
        self.key, self.lines = key, lines

    def rules(self) -> list[tuple[bytes, int]]:
        """``[(digest, length)]`` of every line, distinct."""
        return sorted({(d, n) for _k, d, n in self.lines})


def load(store: Store, file: str = RULES_FILE, want: str = _HEAD) -> SealRules | None:
    """The store's seal rules, or None when it has none (one failed open:
    the turn writer's whole cost without a seal).  A damaged file is read
    as far as it parses (a bad line is skipped; a bad head: None).
    ``file`` and its head line ``want``: another rules file of this format
    (``objstore.memory.sessionrules``)."""
    try:
        text = (store.root / file).read_text(encoding="ascii")
    except (OSError, ValueError):
        return None
    head, *rest = text.splitlines() or [""]
    name, _sp, keyhex = head.rpartition(" ")
    try:
        key = bytes.fromhex(keyhex)
    except ValueError:
        return None
    if name != want or len(key) != 32:
        return None
    lines = []
    for ln in rest:
        try:
            digest, n, k = ln.split(" ", 2)
            lines.append((k, bytes.fromhex(digest), int(n)))
        except ValueError:
            continue
    return SealRules(key, lines)


def save(store: Store, rules: SealRules, file: str = RULES_FILE, head: str = _HEAD, ordered: bool = False) -> None:
    """Write ``rules`` as ``file`` (head line ``head``), its lines sorted
    (``ordered``: in ``rules.lines``' order, the first duplicate kept): the one
    atomic write, a temporary file of mode 0600, fsync of file and folder,
    then rename.  Caller holds the store lock.  Raises OSError."""
    lines = list(dict.fromkeys(rules.lines)) if ordered else sorted(set(rules.lines))
    body = "".join(f"{d.hex()} {n} {k}\n" for k, d, n in lines)
    atomic_write(store.root / file, f"{head} {rules.key.hex()}\n{body}".encode("ascii"))


def rule_digest(key: bytes, text: str) -> bytes:
    """The rule of the normalized ``text`` under ``key`` (32 bytes): its
    keyed BLAKE2b-256 (32 bytes)."""
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=32, key=key).digest()


def add_rules(store: Store, key: str, texts: list[str]) -> int:
    """Add the rule of each of ``texts`` (normalized; fewer than
    ``MIN_TEXT_CHARS`` characters: none) for the sealed ``key``; the file
    and its random key are made on the first.  Returns how many rules
    were added.  Caller holds the store lock.  Raises OSError."""
    forms = sorted({norm for x in texts if len(norm := normalize_value(x)) >= MIN_TEXT_CHARS})
    if not forms:
        return 0
    have = load(store) or SealRules(os.urandom(32), [])
    lines = set(have.lines)
    new = {(key, rule_digest(have.key, x), len(x)) for x in forms} - lines
    if new:
        save(store, SealRules(have.key, [*lines, *new]))
    return len(new)


def drop_rules(store: Store, key: str) -> int:
    """Remove the rules of the sealed ``key`` (``mem unseal``); the file
    goes when none is left.  Returns how many were removed.  Caller holds
    the store lock.  Raises OSError."""
    have = load(store)
    if have is None:
        return 0
    keep = [ln for ln in have.lines if ln[0] != key]
    if len(keep) == len(have.lines):
        return 0
    if keep:
        save(store, SealRules(have.key, keep))
    else:
        (store.root / RULES_FILE).unlink(missing_ok=True)
    return len(have.lines) - len(keep)


def withhold_sealed_values(text: str, rules: SealRules) -> tuple[str, int]:
    """``text`` with every span (starting at a word start:
    and ending at a word end: ``tombstones.find_matches`` with the key)
    whose normalized form matches one of ``rules`` replaced by
    ``[REDACTED:sealed-value]``, and how many spans.  Cost: one keyed
    BLAKE2b per word start whose window of a rule's length ends a word."""
    if not text or not rules.lines:
        return text, 0
    norm, starts, ends = normalized_map(text)
    found = find_matches(norm, rules.rules(), word_starts=True, key=rules.key)
    if not found:
        return text, 0
    return replace_spans(text, [(starts[s], ends[e - 1]) for s, e in found], WITHHELD), len(found)
