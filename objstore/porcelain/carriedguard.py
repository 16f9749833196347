"""The forget guard an export may carry (session 41, test40 T12, fresh40 F8).

A tombstone recognizes its value only with local files that are no
object and no ref: the ``tombstone-digests`` pairs (keyed digest -> the
SHA-256 it stands for, ``objstore.memory.tombdigests``) and the
``forgotten:KEY`` lines of ``seal-rules`` (keyed BLAKE2b of a forgotten
value's forms under the file's own key, ``objstore.memory.sealrulefile``).
A plain ``mem export`` carries neither: in a store that imports it, an
agent can write every forgotten value back.

Carrying them in the clear would undo test34 T13: a SHA-256 (or a keyed
digest with its key beside it) of a four-digit PIN gives the PIN back in
10,000 tries, from a file people copy around.  So the guard travels only
when the person asks (``mem export --guard-passphrase-file FILE``), sealed
to that passphrase (an age file, scrypt, as the vault's identity): one
record ``{"guard": "<base64 of the age file>"}`` right after the header
(docs/format.md, "Export (mem-export/1)").  Its plaintext is UTF-8 JSON
``{"format": "mem-forget-guard/1", "pairs": [[K, d], ...], "rules_key": HEX
| null, "rules": [[DIGEST, LENGTH, LABEL], ...]}``: the pairs of the
exported tombstones' keyed digests, and the ``forgotten:`` lines of the
exported scope with their key; never the hash key, never a sealed key's
line, never a value.  ``mem import jsonl FILE --guard-passphrase-file
FILE`` opens it before anything is written and keeps it as its own:
the pairs appended to its ``tombstone-digests`` (as a pull from an
encrypted remote does), the lines into its ``seal-rules`` beside its own
when that file is absent, empty of lines or under the same key, else
(session 42, test41 T23) in a further section under the export's key
(``sealrulefile.SealRules.more``), and one audit line ``import jsonl
guard`` per tombstone whose pair it noted, which ``mem fsck`` counts
(:func:`carried_guard_state`).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field

from objstore.core import audit
from objstore.core.errors import CorruptObject, InvalidInput, NotFound, WrongPassphrase
from objstore.core.objects import Tombstone
from objstore.core.store import Store
from objstore.memory.sealrulefile import FORGOTTEN_LABEL, RULES_FILE, SealRules, load as load_rules, save as save_rules
from objstore.memory.tombdigests import DIGESTS_FILE, add_digests, read_digests

#: the plaintext's format name
GUARD_FORMAT = "mem-forget-guard/1"
#: the audit command of a tombstone whose pair an import's carried guard noted
GUARD_AUDIT = "import jsonl guard"


@dataclass
class Guard:
    """A forget guard as it travels: ``pairs`` ``[(keyed, sha256)]`` (32
    bytes each), ``rules_key`` (32 bytes, or None without rules) and
    ``rules`` ``[(label, digest, length)]`` (labels ``forgotten:KEY``)."""

    pairs: list[tuple[bytes, bytes]] = field(default_factory=list)
    rules_key: bytes | None = None
    rules: list[tuple[str, bytes, int]] = field(default_factory=list)
    #: (session 42) ``[(key, rules)]``: rules of the exporting store's further ``seal-rules``
    #: sections (an earlier import's, kept under its own key), each key other than ``rules_key``
    more: list[tuple[bytes, list[tuple[str, bytes, int]]]] = field(default_factory=list)

    def sections(self) -> list[tuple[bytes, list[tuple[str, bytes, int]]]]:
        """``[(key, rules)]`` of every set of rules, ``rules_key``'s first."""
        return ([(self.rules_key, self.rules)] if self.rules_key and self.rules else []) + self.more

    def count(self) -> int:
        """How many rules, under every key."""
        return len(self.rules) + sum(len(r) for _k, r in self.more)


def build_guard(store: Store, tombstones: list[Tombstone], in_scope) -> Guard:
    """The guard of the exported ``tombstones`` (as stored): the pairs of
    their keyed digests this store's ``tombstone-digests`` names, and the
    ``forgotten:KEY`` lines of ``seal-rules`` whose KEY ``in_scope(KEY)``
    keeps, with the file's key.  Reads only."""
    digests = read_digests(store)
    pairs = sorted({(t.value_sha256, digests[t.value_sha256]) for t in tombstones if t.value_sha256 in digests})
    have = load_rules(store)

    def kept(lines):
        return sorted((k, d, n) for k, d, n in lines
                      if k.startswith(FORGOTTEN_LABEL) and in_scope(k[len(FORGOTTEN_LABEL):]))
    rules = kept(have.lines if have else [])
    more = [(r.key, got) for r in (have.more if have else []) if (got := kept(r.lines))]
    return Guard(pairs, have.key if have and rules else None, rules, more)


def seal_guard(guard: Guard, passphrase: str) -> str:
    """The ``guard`` record's value: base64 (RFC 4648, no line breaks) of
    the age file (scrypt stanza, the vault's work factor) of its JSON."""
    from objstore.vault.age import encrypt   # deferred: off the start-up paths
    doc = {"format": GUARD_FORMAT, "pairs": [[k.hex(), d.hex()] for k, d in guard.pairs],
           "rules_key": guard.rules_key.hex() if guard.rules_key else None,
           "rules": [[d.hex(), n, k] for k, d, n in guard.rules]}
    if guard.more:   # (only then: a guard without it is byte for byte session 41's)
        doc["more"] = [[key.hex(), [[d.hex(), n, k] for k, d, n in rules]] for key, rules in guard.more]
    data = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode("utf-8")
    return base64.b64encode(encrypt(data, passphrase=passphrase)).decode("ascii")


def open_guard(value, passphrase: str, lineno: int) -> Guard:
    """The :class:`Guard` of a ``guard`` record's ``value`` on line ``lineno``.
    Raises WrongPassphrase (exit 12) when ``passphrase`` does not open it,
    InvalidInput (exit 2) when it is not a guard (not base64, not an age
    file, not the JSON above)."""
    from objstore.vault.age import AgeError, NoIdentityMatched, decrypt   # deferred: off the start-up paths
    bad = f"line {lineno}: the export's forget guard is damaged"
    try:
        raw = base64.b64decode(value.encode("ascii"), validate=True) if isinstance(value, str) else None
    except (ValueError, UnicodeEncodeError):
        raw = None
    if not raw:
        raise InvalidInput(f"{bad} (not base64)")
    try:
        doc = json.loads(decrypt(raw, passphrase=passphrase).decode("utf-8"))
    except NoIdentityMatched:
        odd = "starts with a byte-order mark" if passphrase.startswith("\ufeff") else "starts or ends with a " \
            "space" if passphrase != passphrase.strip() else None   # (test41 T32: no word of the file's bytes)
        raise WrongPassphrase("wrong passphrase for the export's forget guard",
                              hint="give the passphrase 'mem export --guard-passphrase-file' was given; nothing was "
                                   "imported" + (f"; the passphrase file's first line {odd}, which is used as it "
                                                 "is" if odd else "")) from None
    except (AgeError, ValueError) as e:
        raise InvalidInput(f"{bad} ({e})") from None
    try:
        if doc["format"] != GUARD_FORMAT:
            raise ValueError(doc["format"])
        pairs = [(bytes.fromhex(k), bytes.fromhex(d)) for k, d in doc["pairs"]]
        key = bytes.fromhex(doc["rules_key"]) if doc["rules_key"] else None
        rules = [(str(lab), bytes.fromhex(d), int(n)) for d, n, lab in doc["rules"]]
        more = [(bytes.fromhex(k), [(str(lab), bytes.fromhex(d), int(n)) for d, n, lab in rs])
                for k, rs in doc.get("more", [])]
    except (KeyError, TypeError, ValueError, AttributeError):
        raise InvalidInput(f"{bad} (not a {GUARD_FORMAT} guard)") from None
    if any(len(k) != 32 or len(d) != 32 for k, d in pairs) or (key is not None and len(key) != 32) \
            or any(len(d) != 32 or n < 1 or not lab.startswith(FORGOTTEN_LABEL) or any(c.isspace() for c in lab)
                   for lab, d, n in [*rules, *(r for _k, rs in more for r in rs)]) or (rules and key is None) \
            or any(len(k) != 32 or not rs for k, rs in more):
        raise InvalidInput(f"{bad} (a pair or rule of the wrong shape)")
    return Guard(pairs, key, rules, more)


@dataclass
class Applied:
    """What :func:`apply_guard` kept: ``pairs`` noted, ``rules`` added,
    ``rules_left`` not applied (this store's ``seal-rules`` does not
    read), ``sections``: how many rules went into a section of their own
    key (this store's own rules are under another: test41 T23)."""

    pairs: int = 0
    rules: int = 0
    rules_left: int = 0
    sections: int = 0


def apply_guard(store: Store, guard: Guard, tombstone_digests: set[bytes]) -> Applied:
    """Keep ``guard`` as this store's own: its pairs whose keyed digest one
    of the imported tombstones holds (``tombstone_digests``) appended to
    ``tombstone-digests``, its rules added to ``seal-rules``: to its first
    section when the file is absent, that section has no line (it then
    takes the guard's key) or has the guard's key; else (session 42, test41
    T23: this store's own rules are under its own key) to a further section
    under the guard's key (:attr:`SealRules.more`), made when there is
    none.  A ``seal-rules`` that does not read keeps none (``rules_left``:
    fsck names the file).  Caller holds the store lock.  Raises OSError."""
    out = Applied()
    out.pairs = add_digests(store, b"mem-tombstone-digests 1\n" + b"".join(
        f"{k.hex()} {d.hex()}\n".encode("ascii") for k, d in guard.pairs if k in tombstone_digests))
    if not guard.count():
        return out
    have = load_rules(store)
    path = store.root / RULES_FILE
    if have is None and (path.exists() or path.is_symlink()):
        out.rules_left = guard.count()   # a damaged file: left as it is (fsck names it)
        return out
    for key, rules in guard.sections():
        if have is None:
            have = SealRules(key, [])
        sec = have if have.key == key else next((r for r in have.more if r.key == key), None)
        if sec is None and not have.lines:   # an empty first section takes the key (as in session 41)
            have = sec = SealRules(key, [], have.more)
        if sec is None:
            have.more.append(sec := SealRules(key, []))
        new = set(rules) - set(sec.lines)
        sec.lines = sorted(set(sec.lines) | new)
        out.rules += len(new)
        out.sections += len(new) if sec is not have else 0
    if out.rules:
        save_rules(store, have)
    return out


def note_guarded(store: Store, tomb_ids: list[str], time_ms: int) -> None:
    """Append an audit line :data:`GUARD_AUDIT` for each tombstone id of
    ``tomb_ids`` (whose pair the import's guard noted): what
    :func:`carried_guard_state` counts.  Raises AuditUnwritten."""
    for oid in tomb_ids:
        audit.append(store.reflog.root, time_ms, GUARD_AUDIT, f"tombstones/{oid}", None, oid)


def carried_guard_state(store: Store) -> tuple[int, str | None]:
    """For ``mem fsck``: how many tombstones an import brought with a
    carried guard (:data:`GUARD_AUDIT`) still recognize their values, and
    the problem (exit 13) when some of them no longer do (their lines gone
    from ``tombstone-digests``: deleted, cut short, damaged, a folder in
    its place), else None.  Reads the audit log, the tombstones and the
    digests file."""
    try:
        entries = audit.read(store.reflog.root)
    except CorruptObject:   # no file: cannot tell (fsck names the audit log: core.storelayout, test41 T29)
        return 0, None
    ids = {e.ref[len("tombstones/"):] for e in entries if e.command == GUARD_AUDIT and e.ref.startswith("tombstones/")}
    if not ids:
        return 0, None
    pairs = read_digests(store)
    held = lost = 0
    for _name, oid in store.refs.iter("tombstones", damaged=[]):
        if oid not in ids:
            continue
        try:
            t = store.get(oid, Tombstone)
        except (CorruptObject, NotFound):
            continue   # fsck reports a lost tombstone
        if t.value_sha256 in pairs:
            held += 1
        else:
            lost += 1
    if not lost:
        return held, None
    p = store.root / DIGESTS_FILE
    state = "is missing" if not (p.exists() or p.is_symlink()) else "is not a regular file" if not p.is_file() \
        else "lacks their lines (cut short or damaged)"
    return held, (f"{DIGESTS_FILE} {state}: {lost} tombstone{'s' if lost != 1 else ''} that 'mem import jsonl' "
                  f"brought with the export's forget guard can no longer stop {'their values' if lost != 1 else 'its value'}: "
                  "an agent can write a forgotten value again; import the same export again with "
                  "--guard-passphrase-file FILE (it adds only the lines that are missing), or put the file back "
                  "from a copy")
