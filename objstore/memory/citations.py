"""What each fact chain cites and which of its versions the index holds: a
derived memo for a forget's passes over every key (``docs/format.md``,
"Fact citations cache").

A forget rewrites every fact version whose ``sources`` or edges name a
forgotten or rewritten object (``docs/forget.md``, step 2).  No index
answers which facts cite an object, so the forget read every key's whole
chain for it: O(facts) reads and decodes (at a million turns, 8,330
sub-agent summaries of up to 1,000 ``rollup_of`` edges each, ~1.3 s).
The memo ``<store>/cache/fact-cites.z`` (a zlib stream of the text, since
session 27; ``cache/fact-cites`` uncompressed before, still read:
``core.atomic.read_z``) keeps, per chain head id, the ids
of the chain's versions the search index should hold (``documents.indexed_versions``)
and every source and edge target of its versions.  With the first, a
``--match`` forget trusts the facts index's substring prefilter for a key
only when each of those ids is in the index (a key the memo does not know
is read and matched whole); with the second, its passes read only the
chains that cite what changes.  A head id
fixes its chain (an id is the hash of the content, and each version names
its parent), so an entry is never wrong: a key whose ref moved has a new
head, not found in the memo, and is read again.  A chain whose walk
stopped at a damaged version is not kept (a repair may make it longer under
the same head).  The file is derived: a missing, damaged or unknown one
reads as empty and is written again by the next forget, which also drops
the entries of heads that are no longer any key's head (they name the
ids of replaced versions and of what they cited).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from objstore.core.atomic import read_z, write_z
from objstore.core.errors import IntegrityError
from objstore.core.store import Store
from objstore.memory.documents import indexed_versions
from objstore.memory.facts import list_keys, walk

__all__ = ["CITES_END", "CITES_FILE", "CITES_MAGIC", "FactCites", "chain_entry", "cite_key", "note_chains"]

#: the memo, relative to the store root
CITES_FILE = Path("cache") / "fact-cites"
#: its first line (version 2, session 24: an id cited is kept by its first 16 bytes, :func:`cite_key`)
CITES_MAGIC = "mem fact-cites 2"
#: the first line of version 1 (every cited string whole), still read
CITES_MAGIC_1 = "mem fact-cites 1"
#: hex digits of a cited 64-hex id the memo keeps
CITE_HEX = 32
_HEX = frozenset("0123456789abcdef")


def cite_key(s: str) -> str:
    """How the memo keeps a cited string ``s`` (a ``sources`` entry or an
    edge target): a 64-hex id (an object id) by its first CITE_HEX (32)
    digits, anything else whole.  Two ids share 128 bits with probability
    2**-128 per pair, and sharing them only makes :meth:`FactCites.citing`
    read a chain it need not: the memo stays a safe prefilter.  -32 B per
    cited id (the bench corpus: 3,786 ids, 266 KB -> 145 KB)."""
    return s[:CITE_HEX] if len(s) == 64 and _HEX.issuperset(s) else s
#: its last line: a file without it was cut short and is read as empty
CITES_END = "end"


def chain_entry(chain: list) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The memo's entry of the versions ``chain`` (``facts.Version``, newest
    first): ``(ids of its versions the index holds, every source and edge
    target of its versions, each once)``, or None when the chain cannot be
    kept: its walk stopped at a damaged version (the oldest one has a
    parent), or a cited string holds a tab or a newline (the file's
    separators)."""
    if not chain or chain[-1].fact.parent is not None:
        return None
    out: dict[str, None] = {}
    for v in chain:
        out.update(dict.fromkeys(v.fact.sources))
        out.update(dict.fromkeys(t for _rel, t in v.fact.edges))
    if any("\t" in s or "\n" in s for s in out):
        return None
    return tuple(v.id for v, _kind in indexed_versions(chain)), tuple(out)


class FactCites:
    """The memo of one store, read once (:meth:`load`), kept up to date as
    a forget reads chains (:meth:`note`), written back under the store lock
    (:meth:`save`)."""

    def __init__(self, root: Path, known: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]) -> None:
        self.path = root / CITES_FILE
        #: head id -> (ids of its chain's versions the index holds, what its chain cites)
        self.known = known
        self._dirty = False
        #: entries :meth:`note` added since :meth:`load`
        self.added = 0

    @classmethod
    def load(cls, store: Store) -> "FactCites":
        """The memo of ``store`` as its file holds it; empty when the file
        is missing, unreadable, not of this format or not ended by its
        last line (CITES_END).  Never raises for the file's content; reads no object."""
        root = store.root
        known: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        try:
            text = read_z(root / CITES_FILE).decode("utf-8")
        except (OSError, ValueError):   # missing, unreadable, damaged (UnicodeDecodeError is a ValueError)
            return cls(root, known)
        lines = text.split("\n")
        if lines[0] not in (CITES_MAGIC, CITES_MAGIC_1) or lines[-2:] != [CITES_END, ""]:   # not ours, or cut short
            return cls(root, known)
        for line in lines[1:-2]:
            parts = line.split("\t")
            if len(parts) < 2 or len(parts[0]) != 64:
                return cls(root, {})
            known[parts[0]] = (tuple(parts[1].split(" ")) if parts[1] else (), tuple(map(cite_key, parts[2:])))
        return cls(root, known)

    def citing(self, wanted: Iterable[str]) -> Callable[[str], bool]:
        """The test of a head id against ``wanted`` (ids and keys, read
        once here): False when the memo knows that the chain of that head
        cites none of them, True when it may cite one (an id cited by the
        same first 16 bytes, :func:`cite_key`) or the memo does not know the
        head."""
        keys = {cite_key(w) for w in wanted}
        known = self.known

        def may_cite(head: str) -> bool:
            got = known.get(head)
            return got is None or not keys.isdisjoint(got[1])
        return may_cite

    def indexed_ids(self, head: str) -> tuple[str, ...] | None:
        """The ids of the versions of ``head``'s chain that the search index
        should hold (``documents.indexed_versions``), or None when the memo does
        not know the head."""
        got = self.known.get(head)
        return None if got is None else got[0]

    def note(self, head: str, chain: list) -> None:
        """Remember the entry of the chain of ``head`` (its versions, newest
        first, as read; :func:`chain_entry`; nothing when it cannot)."""
        if head in self.known:
            return
        got = chain_entry(chain)
        if got is not None:
            self.known[head] = (got[0], tuple(map(cite_key, got[1])))
            self._dirty = True
            self.added += 1

    def save(self, heads: Mapping[str, str]) -> None:
        """Write the memo with the entries of ``heads`` (key -> head id:
        every key's head now) only, when it gained an entry or holds a head
        that is no longer current.  Atomic and durable.  Caller holds the store lock."""
        current = set(heads.values())
        if not self._dirty and current.issuperset(self.known):
            return
        self.known = {h: c for h, c in self.known.items() if h in current}
        write_z(self.path, self._lines())   # line by line: at a million turns the file is tens of MB
        self._dirty = False

    def _lines(self) -> Iterator[bytes]:
        """The file's lines (``docs/format.md``, "Fact citations cache"), encoded, each with its newline."""
        yield (CITES_MAGIC + "\n").encode("utf-8")
        for h, (ids, c) in self.known.items():
            yield ("\t".join((h, " ".join(ids), *c)) + "\n").encode("utf-8")
        yield (CITES_END + "\n").encode("utf-8")


def note_chains(store: Store, chains: Iterable[tuple[str, list]], command: str = "import", *,
                memo: "FactCites | None" = None) -> int:
    """Add to the memo of ``store`` the entries of ``chains`` (``(head id,
    its chain: facts.Version, newest first, exactly as facts.walk reads it
    from that head)``) that a writer has in hand, so that the next forget
    does not read them again: an import's sub-agent summaries (thousands at
    a million turns, each one chain read by the first ``--match`` forget
    otherwise; docs/benchmarks.md, session 22, scale22).  An entry is a function of its
    chain, so one noted here is the one a forget would note.  Heads that are
    no longer any key's head are dropped as :meth:`FactCites.save` does.
    ``memo``: the memo as :meth:`FactCites.load` read it, in which the
    writer noted chains as it wrote them (``rollup.rollup_files(cites=)``:
    none of them kept until now); it is saved with ``chains`` noted too.
    Returns the number of entries added to the memo since it was read.
    Takes the store lock; raises StoreLocked."""
    chains = [(h, c) for h, c in chains if h and c]
    if not chains and memo is None:
        return 0
    with store.lock(command):
        memo = FactCites.load(store) if memo is None else memo
        for head, chain in chains:
            memo.note(head, list(chain))
        if memo.added:
            memo.save(dict(list_keys(store)))
        return memo.added


def refresh(store: Store) -> int:
    """Bring the memo of ``store`` up to date: read the chain of every key
    whose head it does not know, drop the entries of heads that are no
    longer current, write it.  ``mem gc`` calls it after its sweep, so that
    the next forget reads only the chains it needs.  O(chains read): every
    key's chain the first time, the keys written since afterwards.
    Returns the number of chains read.  Takes the store lock; raises
    StoreLocked."""
    with store.lock("gc"):
        heads = dict(list_keys(store))
        memo = FactCites.load(store)
        n = 0
        for head in heads.values():
            if head in memo.known:
                continue
            try:
                memo.note(head, list(walk(store, head)))
            except IntegrityError:   # a damaged head: fsck --repair mends it; a forget reads it
                continue
            n += 1
        memo.save(heads)
        return n
