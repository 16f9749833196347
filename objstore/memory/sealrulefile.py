"""The local seal rules file (``seal-rules``; docs/format.md, "Local seal
rules"): its parsed form, its one reader and writer, and the digest of a
rule (:mod:`objstore.memory.sealrules` holds what applies the rules to
turns).  Split from it (session 37) so a fact write can ask whether a value
holds a sealed value or a forgotten key's form (:func:`rule_labels_in`) without
importing the turn side (``sealrules`` imports ``sessions``, which imports
``facts``).
"""

from __future__ import annotations

from objstore.core.atomic import atomic_write, read_regular
from objstore.core.errors import IntegrityError
from objstore.core.ids import blake2b
from objstore.core.store import Store
from objstore.core.storeperms import refuse_denied
from objstore.core.text import confusable_fold, normalized_form
from objstore.core.textwindows import dotless, folded_form
from objstore.core.webescapes import escapes_read, may_hold_escapes

#: the rules file, under the store's root (docs/format.md, "Local seal rules")
RULES_FILE = "seal-rules"
#: the most bytes read of the file (a FIFO or a folder in its place raises, never waits: test43 T20)
_MAX_BYTES = 1 << 31
_HEAD = "mem-seal-rules 1"
#: the label of a forgotten key's rules: ``forgotten:<key>`` (a sealed key's rules carry the key alone)
FORGOTTEN_LABEL = "forgotten:"


class SealRules:
    """The parsed :data:`RULES_FILE`: ``key`` (32 bytes) and ``lines``
    ``[(sealed key, digest, length)]`` of its first section (this store's
    own key), and ``more``: its further sections (session 42, test41 T23),
    each a :class:`SealRules` of its own key holding the ``forgotten:``
    rules ``mem import jsonl`` kept from an export's guard made under
    another store's key (no ``more`` of their own).  ``damaged``: the
    file :func:`load` read it from was cut short (its last line without
    its ``\n``) or held a line that does not parse (test42 T25)."""

    __slots__ = ("key", "lines", "more", "damaged")

    def __init__(self, key: bytes, lines: list[tuple[str, bytes, int]], more: list[SealRules] | None = None) -> None:
        self.key, self.lines, self.more, self.damaged = key, lines, list(more or ()), False

    def rules(self) -> list[tuple[bytes, int]]:
        """``[(digest, length)]`` of every line of the first section, distinct."""
        return sorted({(d, n) for _k, d, n in self.lines})

    def sealed_keys(self) -> set[str]:
        """The sealed keys that have a rule here (not the forgotten ones)."""
        return {k for k, _d, _n in self.lines if not k.startswith(FORGOTTEN_LABEL)}

    def sections(self) -> list[SealRules]:
        """Each section with a line as a :class:`SealRules` without ``more``:
        the first, then the others; what matching tries, one key each."""
        return [r for r in (SealRules(self.key, self.lines), *self.more) if r.lines]

    def count(self) -> int:
        """How many lines, in every section."""
        return len(self.lines) + sum(len(r.lines) for r in self.more)


def load(store: Store, file: str = RULES_FILE, want: str = _HEAD) -> SealRules | None:
    """The store's seal rules, or None when it has none (one failed open:
    the turn writer's whole cost without a seal).  A damaged file is read
    as far as it parses (a bad line is skipped; a bad head: None; a later
    head line that does not parse: its section's lines are skipped).
    ``file`` and its head line ``want``: another rules file of this format
    (``objstore.memory.sessionrules``).  A later head line ``want KEY``
    starts a further section under ``KEY`` (:attr:`SealRules.more`; one
    whose key is the first's adds to the first)."""
    try:   # (bytes, each line decoded alone: one torn or foreign line spoils only itself, test39b B10)
        raw = read_regular(store.root / file, _MAX_BYTES)
    except OSError:
        return None
    head, *rest = [ln.decode("ascii", "replace") for ln in raw.split(b"\n")] or [""]
    key = _head_key(head, want)
    if key is None:
        return None
    sections: dict[bytes, list[tuple[str, bytes, int]]] = {key: []}
    lines: list | None = sections[key]
    bad = not rest or rest.pop() != ""   # (the last line without its LF: cut short)
    for ln in rest:
        if ln.startswith(want + " "):   # a further section (session 42); a bad head: its lines are skipped
            more = _head_key(ln, want)
            lines = None if more is None else sections.setdefault(more, [])
            bad = bad or more is None
            continue
        try:
            digest, n, k = ln.split(" ", 2)
            if "\ufffd" not in ln and lines is not None:
                lines.append((k, bytes.fromhex(digest), int(n)))
            else:
                bad = True
        except ValueError:
            bad = True
    out = SealRules(key, sections.pop(key), [SealRules(k, v) for k, v in sections.items()])
    out.damaged = bad
    return out


def _head_key(line: str, want: str) -> bytes | None:
    """The key of a head line ``want <64 hex>``, or None."""
    name, _sp, keyhex = line.rpartition(" ")
    try:
        key = bytes.fromhex(keyhex)
    except ValueError:
        return None
    return key if name == want and len(key) == 32 else None


def check_writable(store: Store, file: str = RULES_FILE) -> None:
    """Raise IntegrityError (exit 13) when ``file`` stands as a folder (or
    another non-file) where the store keeps the rules: :func:`save` could
    not replace it (fresh44 F14: ``mem seal`` crashed half way, every way
    out an internal error).  Called by :func:`save` and before a seal
    changes anything.  Reads only."""
    p = store.root / file
    if p.is_dir() or (p.exists() and not p.is_file()):
        raise IntegrityError(f"{file} is a folder (or no regular file) where the store keeps a file: it cannot be "
                             "written", hint=f"move it out of the way (mv {p} {p}.bad), then 'mem sealed "
                             "rebuild-rules' writes it again from the sealed values")


def save(store: Store, rules: SealRules, file: str = RULES_FILE, head: str = _HEAD, ordered: bool = False) -> None:
    """Write ``rules`` as ``file`` (head line ``head``), its lines sorted
    (``ordered``: in ``rules.lines``' order, the first duplicate kept), then
    each further section with a line (:attr:`SealRules.more`), sorted by
    key, under its own head line: the one atomic write, a temporary file of
    mode 0600, fsync of file and folder, then rename.  Caller holds the
    store lock.  Raises OSError, IntegrityError (:func:`check_writable`)."""
    check_writable(store, file)
    lines = list(dict.fromkeys(rules.lines)) if ordered else sorted(set(rules.lines))
    body = "".join(f"{d.hex()} {n} {k}\n" for k, d, n in lines)
    for more in sorted((r for r in rules.more if r.lines and r.key != rules.key), key=lambda r: r.key):
        body += f"{head} {more.key.hex()}\n" + "".join(f"{d.hex()} {n} {k}\n" for k, d, n in sorted(set(more.lines)))
    atomic_write(store.root / file, f"{head} {rules.key.hex()}\n{body}".encode("ascii"))


def rule_digest(key: bytes, text: str) -> bytes:
    """The rule of the normalized ``text`` under ``key`` (32 bytes): its
    keyed BLAKE2b-256 (32 bytes)."""
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=32, key=key).digest()


def window_digests(key: bytes, window: str) -> set[bytes]:
    """The rules (:func:`rule_digest` under ``key``) a window
    ``find_matches`` found may have matched: the window's own, and its
    separator-folded form's (``core.textwindows.folded_form``: a run of
    words joined by separators matches a folded rule), each also as its
    ``core.textwindows.dotless`` form ("i̇stanbul42" holds "istanbul42")."""
    return {rule_digest(key, f) for w in {window, dotless(window)} for f in (w, folded_form(w))}


def refuse_unreadable(store: Store) -> None:
    """Raise IntegrityError (exit 13) when :data:`RULES_FILE` is there but
    :func:`load` reads no rules from it (a folder, a damaged head): a write
    or a captured turn then cannot tell a sealed or forgotten value from
    any other and stored it in the clear (test40 T18), or when it is absent
    while a key is sealed (test43 T11: deleted, the sealed value was written
    and captured in the clear; a seal always writes the file, rule or none).
    Returns when the file is absent and no key is sealed (no seal, no
    ``forget KEY``: nothing to withhold)."""
    p = store.root / RULES_FILE
    refuse_denied(p)   # unreadable, not damaged: exit 1, never "move it away" (fresh41 F7)
    if p.exists() or p.is_symlink():
        raise IntegrityError(f"{p} is damaged (it does not read as seal rules): a value written now could hold "
                             "a sealed or forgotten value in the clear", hint="'mem sealed rebuild-rules' writes "
                             f"it again from the sealed values; with no vault, move it away (mv {p} {p}.bad)")
    if any_sealed(store):
        raise IntegrityError(f"{p} is missing while a key is sealed: a value written now could hold a sealed "
                             "value in the clear", hint="'mem sealed rebuild-rules' writes it again from the "
                             "sealed values (it asks for the vault passphrase)")


def load_checked(store: Store) -> SealRules | None:
    """:func:`load` for a write or a captured turn: None without the file;
    raises IntegrityError (exit 13) when it is there but reads as no rules
    (:func:`refuse_unreadable`), or when it is damaged (``damaged``: cut
    short, a line that does not parse) while a key is sealed: a lost line
    may have been a sealed value's rule, so nothing is written in the clear
    until ``mem sealed rebuild-rules`` writes it again (test42 T25: the
    sealed value was written by an agent and captured in the clear).  The
    refs of sealed keys are listed only for a damaged file."""
    rules = load(store)
    if rules is None:
        refuse_unreadable(store)
    elif rules.damaged and any_sealed(store):
        refuse_damaged(store)
    return rules


def refuse_damaged(store: Store) -> None:
    """Raise :func:`load_checked`'s IntegrityError (exit 13) of a damaged
    :data:`RULES_FILE` while a key is sealed."""
    p = store.root / RULES_FILE
    raise IntegrityError(f"{p} is damaged ({damage_said(store)}) while a key is sealed: a value written now "
                         "could hold a sealed value whose rule was lost", hint="'mem sealed rebuild-rules' "
                         "writes it again from the sealed values (it asks for the vault passphrase)")


def any_sealed(store: Store) -> bool:
    """Whether a key of ``store`` is sealed (a ``refs/sealed/`` ref, or a
    file in place of a scope's folder there).  Lists those refs."""
    folders: list[str] = []
    return any(True for _n, _h in store.refs.iter("sealed", damaged=[], folders=folders)) or bool(folders)


def damage_said(store: Store) -> str:
    """What is wrong with a damaged :data:`RULES_FILE` (``SealRules.damaged``),
    as a clause: cut short (its last line lost its end, and the lines after
    it with it), or a line that does not parse (garbage, or a rule mangled)."""
    try:
        raw = read_regular(store.root / RULES_FILE, _MAX_BYTES)
    except OSError:
        return "it cannot be read"
    return "cut short: its last line lost its end, and any line after it" if not raw.endswith(b"\n") else \
        "a line does not parse: garbage, or a rule mangled"


def rule_labels_in(store: Store, body: str) -> set[str]:
    """The labels of the local seal rules a span of ``body`` matches (word
    start to word end, as ``sealrules.withhold_sealed_values`` finds them),
    as written, as it reads (``core.text.confusable_fold``: fullwidth
    letters, invisible characters) or with its URL, HTML and JSON escapes
    read (``core.webescapes``; test43 T13): a sealed key's name, or
    ``forgotten:KEY`` for a forgotten key's value-shaped forms.
    ``facts.remember`` refuses a plain write holding a sealed value (test37
    T13: the code of a sealed key written in the clear under another key)
    and a lower-trust write holding a forgotten form (test37 T1:
    "zebra-lantern-7781" written back by an agent after its key's forget,
    which the turn writer already withheld).  Empty without rules (no file,
    a damaged head).  Cost: the file's read, then one keyed BLAKE2b per
    word start a rule's length can end at.  Raises IntegrityError (exit
    13) when the file is there but does not load (a folder, a damaged
    head): a write then could not tell a sealed value from any other, and
    stored it in the clear (test40 T18), or is damaged while a key is
    sealed (:func:`load_checked`)."""
    rules = load(store)
    if rules is None:
        refuse_unreadable(store)
        return set()
    out: set[str] = set()
    for sec in rules.sections():   # (one pass per key: the store's own, then an import's, test41 T23)
        out |= _labels_in(sec, body)
    if not out and rules.damaged and any_sealed(store):   # (a rule it names is said first: exit 6)
        refuse_damaged(store)
    return out


def _labels_in(rules: SealRules, body: str) -> set[str]:
    """:func:`rule_labels_in` for one section (one key)."""
    from objstore.memory.tombstones import find_matches  # defer: a store with seal rules only
    by_digest: dict[bytes, set[str]] = {}
    for k, d, _n in rules.lines:
        by_digest.setdefault(d, set()).add(k)
    out: set[str] = set()
    read = escapes_read(body) if may_hold_escapes(body) else None   # "%20", "&nbsp;" (test43 T13)
    for text in dict.fromkeys((body, confusable_fold(body), *(read[:1] if read else ()))):
        norm = normalized_form(text)
        for st, en in find_matches(norm, rules.rules(), word_starts=True, key=rules.key):
            for d in window_digests(rules.key, norm[st:en]):
                out |= by_digest.get(d, set())
    return out
