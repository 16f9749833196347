"""Full-text search index over facts and turns (tantivy, BM25).

The index is *derived* data: everything in it can be rebuilt from the object
store at any time (``SearchIndex.rebuild``).  It lives at ``<store>/index/``.
Body text is indexed but never stored in the index; a hit carries only small
metadata and the caller loads the object itself to build a snippet
(``make_snippet``).

On-disk layout
==============

::

    <store>/index/
        facts/                  sub-index for kind "fact"
            CURRENT             text file: the live generation dir name + "\\n", e.g. "gen-3\\n"
            LOCK                empty file; flock()ed by every writer of this sub-index
            gen-3/              a complete tantivy index (meta.json, .managed.json,
                                <segment>.{idx,term,pos,store,fast,fieldnorm}[, <segment>.<opstamp>.del])
        turns/                  sub-index for kind "turn", same shape
            CURRENT
            LOCK
            gen-1/
        history/                sub-index for kind "history", same shape

Why separate sub-indexes: facts are few and their superseded versions are deleted
from the index routinely.  A tantivy delete only writes a ``.del`` bitset; the
deleted document's terms, positions and stored fields stay in the segment
files (and in ``doc_freq``) until the segment is rewritten.  Keeping facts in
their own small index makes "physically forget a fact" (``purge``) a cheap
rebuild of that index alone.  Turns are many and append-only.  ``history``
holds the fact versions that are not current (superseded ones and
backfills), so that recall can resolve a query that matches an old value to
the key's current version; ``search`` leaves it out unless asked.  Any
``purge("fact", …)`` empties it as well (a forgotten key's old versions
must go, and the survivors' history is derived data: ``mem reindex``
restores it).

Generations: ``CURRENT`` names the live generation directory ``gen-<n>``
(n a positive decimal integer, never reused: a new generation gets one more
than the highest existing number).  It is replaced atomically (write
``CURRENT.tmp-<pid>-<thread>``, fsync, ``os.replace``, fsync the directory).
``add`` commits into the live generation.  ``rebuild`` and ``purge`` write a
complete new generation,
commit it, switch ``CURRENT`` to it, and only then delete the old generation
directory.  A crash at any point leaves either the old or the new generation
live, plus possibly an orphan ``gen-*`` directory (or ``CURRENT.tmp-*``
file); the next write (``add``/``rebuild``/``purge``) of that sub-index
removes every ``gen-*`` directory that ``CURRENT`` does not name.
``verify_purged`` reports such orphans as problems, since they may still
hold forgotten text.

A sub-index whose directory or ``CURRENT`` file does not exist is empty:
searching it returns nothing, and nothing is created until the first write.
A ``CURRENT`` with other content, or naming a missing/unreadable generation,
is corruption (``IndexCorruptError``); ``rebuild`` repairs it.

Concurrency: writers of one sub-index (any process) serialise on an
``flock`` of ``<sub>/LOCK``; readers take no lock, re-read ``CURRENT`` on
every search and keep working on a generation that is being deleted (POSIX
keeps unlinked, already-open files readable).

Schema (tantivy, identical in both sub-indexes)
-----------------------------------------------

========  =========================  ===========================================
field     type                       notes
========  =========================  ===========================================
id        text, raw, stored          object id, 64 lowercase hex; delete key
kind      text, raw, stored          "fact" | "turn" | "history"
ref       text, raw, stored          fact key or session id
time      i64, stored, indexed, fast ms since the Unix epoch
project   text, raw, stored          "" if none
role      text, raw, stored          turn role, or fact kind for facts
text      text, ``mem_stem``,        body; positions indexed (phrase queries);
          NOT stored                 NFC-normalised before analysis
seq       i64, stored, indexed, fast turn position in its session (0 for facts);
                                     finds a hit's neighbouring turns
========  =========================  ===========================================

Index formats.  A generation records its own schema in ``meta.json``; the
``text`` field's tokenizer name says which analyzer built it, and readers
query each generation with that analyzer:

* ``mem_stem`` (current, written by default): ``mem_words`` followed by the
  Snowball English stemmer (tantivy ``Filter.stemmer("english")``, i.e.
  Porter2: ``running`` -> ``run``, ``databases`` -> ``databas``), plus the
  ``seq`` field.  Stemming bought +0.03 R@5 on LoCoMo (``docs/benchmarks.md``).
* ``mem_words`` (format of the first release, no ``seq`` field): still read
  and written to; ``mem reindex`` rewrites it in the current format.

``SearchIndex(root, analyzer="words")`` writes new generations in the old
format (used by the evaluation to measure what stemming buys).

Analyzer ``mem_words`` (must be registered on every ``Index`` open; this
module does it): regex tokenizer
``[\\p{Han}\\p{Hiragana}\\p{Katakana}\\p{Hangul}]|[\\p{L}\\p{M}\\p{N}&&[^<same CJK classes>]]+``
(each CJK/kana/hangul character is one token; any other run of letters,
combining marks and digits is one token; everything else, including ``_``,
separates), then
lowercase, ASCII folding (``Café`` -> ``cafe``, ``Straße`` -> ``strasse``),
and dropping tokens of 64 or more UTF-8 bytes (tantivy's ``remove_long(64)``
keeps only tokens shorter than 64 bytes).  ``tokenize`` exposes it;
``index_terms`` gives the terms of the ``mem_stem`` analyzer.

Queries
-------

User text is never parsed as tantivy query syntax.  The query is split on
whitespace (at most ``MAX_QUERY_WORDS`` distinct words are used); each word
is tokenized with ``mem_words``.  A word that is a single token listed in
``QUERY_STOPWORDS`` (``what``, ``did``, ``the`` ...) is dropped, unless every
word of the query is one (then all are kept: ``NOT``, ``AND OR`` still
search).  The tokens of each remaining word are then put in the form of the
generation searched (stemmed for ``mem_stem``):

* one token  -> term query on ``text``;
* several tokens (``re-index``, ``auth.py``, ``日本語``) -> phrase query of
  the tokens; unless a token is CJK or the concatenation is 64+ bytes,
  OR-ed with a term query of their concatenation (so ``re-index`` also
  finds ``reindex``);
* no token (``*``, ``(``, ``:``) -> ignored.

The per-word queries are combined as SHOULD clauses, so a document matching
more words scores higher (BM25).  Each sub-index is searched separately and
the hits are merged by score.  To make the scores comparable, every term and
phrase query is boosted by ``idf_all / idf_sub`` (tantivy's idf formula,
document frequencies summed over the searched sub-indexes), so both
sub-indexes score with collection-wide IDF; only BM25's length normalisation
(average field length) stays per sub-index.  As in tantivy itself, deleted
but not yet purged documents still count in document frequencies.

Filters (``projects``, ``exclude_refs``, ``roles``) are constant-score
clauses: they select documents without changing any score.

Writers use ``WRITER_HEAP_BYTES`` (15 MB) heap and one indexing thread.
Measured on the 2-core dev machine (tantivy-py 0.27): ``rebuild`` of 10,000
docs of ~110 words each (1.1 M tokens) takes ~1.3 s, nearly all of it in
tantivy's commit (the regex analyzer costs ~0.5 s of that versus tantivy's
default tokenizer; a 50 MB heap saves ~0.2 s); a one-doc ``add`` ~20 ms; a
two-word search ~0.6 ms; ``purge("fact")`` of 500 facts ~0.1 s.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import math
import os
import re
import shutil
import threading
import time as _time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

import tantivy

from .errors import MemError

__all__ = [
    "ANALYZERS",
    "QUERY_STOPWORDS",
    "index_terms",
    "IndexDoc",
    "Hit",
    "SearchIndex",
    "SearchIndexError",
    "IndexBusyError",
    "IndexCorruptError",
    "make_snippet",
    "tokenize",
    "KINDS",
    "MAX_QUERY_WORDS",
    "WRITER_HEAP_BYTES",
]

# --------------------------------------------------------------------------
# errors


class SearchIndexError(MemError):
    """Base class of every error this module raises on purpose (a
    :class:`objstore.errors.MemError`, so the CLI maps it: hint ``mem reindex``).

    Besides these, public functions raise ``ValueError`` for invalid
    arguments and may let ``OSError`` through for filesystem failures
    (permissions, disk full).
    """

    default_hint = "the search index is derived data: rebuild it with 'mem reindex'"


class IndexBusyError(SearchIndexError):
    """Another writer holds the sub-index lock and did not release it in time (exit 11)."""

    exit_code = 11


class IndexCorruptError(SearchIndexError):
    """The on-disk index cannot be read; ``SearchIndex.rebuild`` repairs it (exit 13)."""

    exit_code = 13


# --------------------------------------------------------------------------
# constants

KINDS: tuple[str, ...] = ("fact", "turn", "history")
_SUBDIR = {"fact": "facts", "turn": "turns", "history": "history"}

#: Heap of one index writer, in bytes (tantivy's per-thread minimum is 15 MB).
WRITER_HEAP_BYTES = 15_000_000
#: Heap of a writer for a large batch or a rebuild: fewer, larger segments.
BULK_HEAP_BYTES = 64_000_000
BULK_DOCS = 1000
#: Distinct query words used; the rest of a longer query is ignored.
MAX_QUERY_WORDS = 64
#: Tokens of this many UTF-8 bytes or more are dropped by the analyzer.
MAX_TOKEN_BYTES = 64

_ANALYZER_NAME = "mem_words"
_STEM_ANALYZER_NAME = "mem_stem"
#: analyzer option of :class:`SearchIndex` -> tokenizer name in the schema
ANALYZERS: dict[str, str] = {"stem": _STEM_ANALYZER_NAME, "words": _ANALYZER_NAME}

#: Query words dropped before searching (English function words and question
#: words; the classic SMART/NLTK-style list, trimmed).  Only single-token
#: words are dropped, and only when another word remains.
QUERY_STOPWORDS: frozenset[str] = frozenset("""
a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing don down
during each few for from further had has have having he her here hers herself
him himself his how i if in into is it its itself just ll me more most my
myself no nor not now of off on once only or other our ours ourselves out over
own re s same she should so some such t than that the their theirs them
themselves then there these they this those through to too under until up ve
very was we were what when where which while who whom why will with would you
your yours yourself yourselves
""".split())
_CJK = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}"
_TOKEN_PATTERN = r"[" + _CJK + r"]|[\p{L}\p{M}\p{N}&&[^" + _CJK + r"]]+"

_ID_RE = re.compile(r"[0-9a-f]{64}\Z")
_GEN_RE = re.compile(r"gen-([1-9][0-9]*)\Z")
_PROGRESS_EVERY = 1000
_LOCK_POLL_S = 0.05


def _build_analyzer(stem: bool = False) -> "tantivy.TextAnalyzer":
    b = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(_TOKEN_PATTERN))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.remove_long(MAX_TOKEN_BYTES))
    )
    if stem:
        b = b.filter(tantivy.Filter.stemmer("english"))
    return b.build()


def _register(index: "tantivy.Index") -> None:
    index.register_tokenizer(_ANALYZER_NAME, _build_analyzer())
    index.register_tokenizer(_STEM_ANALYZER_NAME, _build_analyzer(stem=True))


_ANALYZERS: dict[bool, "tantivy.TextAnalyzer"] = {}  # built on first use (start-up time)
_ANALYZER_LOCK = threading.Lock()


def _analyzer(stem: bool) -> "tantivy.TextAnalyzer":
    """The shared words (or stemming) analyzer; caller holds _ANALYZER_LOCK."""
    a = _ANALYZERS.get(stem)
    if a is None:
        a = _ANALYZERS[stem] = _build_analyzer(stem)
    return a


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def tokenize(text: str) -> list[str]:
    """Tokens of ``text`` exactly as the index sees them.

    ``text`` is NFC-normalised, split by the ``mem_words`` regex, lowercased
    and ASCII-folded; tokens of 64 or more UTF-8 bytes are dropped.  Example:
    ``'Café re-index auth.py 日本語'`` ->
    ``['cafe', 're', 'index', 'auth', 'py', '日', '本', '語']``.
    Returns ``[]`` for text without letters or digits.  Never raises for a
    ``str``; ``TypeError`` for anything else.
    """
    if not isinstance(text, str):
        raise TypeError(f"tokenize() needs str, got {type(text).__name__}")
    if not text:
        return []
    with _ANALYZER_LOCK:
        return list(_analyzer(False).analyze(_nfc(text)))


def index_terms(text: str, analyzer: str = "stem") -> list[str]:
    """Terms of ``text`` as a generation built with ``analyzer`` (``"stem"``
    or ``"words"``, see :data:`ANALYZERS`) holds them in its ``text`` field.

    ``"words"`` is :func:`tokenize`; ``"stem"`` stems each of those tokens
    (Snowball English), one term per token, in order:
    ``index_terms("Running databases")`` -> ``['run', 'databas']``.
    Raises ``TypeError`` for a non-str, ``ValueError`` for an unknown analyzer.
    """
    if analyzer not in ANALYZERS:
        raise ValueError(f"analyzer must be one of {tuple(ANALYZERS)}, got {analyzer!r}")
    if analyzer == "words":
        return tokenize(text)
    if not isinstance(text, str):
        raise TypeError(f"index_terms() needs str, got {type(text).__name__}")
    if not text:
        return []
    with _ANALYZER_LOCK:
        return list(_analyzer(True).analyze(_nfc(text)))


def _stem_tokens(toks: tuple[str, ...]) -> tuple[str, ...]:
    """Stem already-analyzed word tokens one by one (stemming a token never
    splits or drops it, so positions stay aligned)."""
    out = []
    with _ANALYZER_LOCK:
        stemmer = _analyzer(True)
        for t in toks:
            s = stemmer.analyze(t)
            out.append(s[0] if s else t)
    return tuple(out)


def _is_cjk_token(tok: str) -> bool:
    # CJK tokens are single characters by construction of the pattern.
    if len(tok) != 1:
        return False
    name = unicodedata.name(tok, "")
    return name.startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL"))


# --------------------------------------------------------------------------
# public records


@dataclass(frozen=True, slots=True)
class IndexDoc:
    """One document to index.

    Fields: ``id`` object id (64 lowercase hex); ``kind`` "fact" | "turn" |
    "history" (a fact version that is not current);
    ``ref`` fact key (e.g. "project/x/db") or session id; ``time`` ms since
    the Unix epoch (fact valid_from / turn timestamp); ``project`` ("" if
    none); ``role`` turn role ("user"/"assistant"/"tool") or the fact kind;
    ``text`` the body to index (indexed, never stored); ``seq`` the turn's
    position in its session (0 for facts; ignored by a ``mem_words``
    generation, which has no such field).

    Raises ``ValueError`` on construction if ``id`` is not 64 lowercase hex,
    ``kind`` is unknown, or ``time`` is not an int.
    """

    id: str
    kind: str
    ref: str
    time: int
    project: str
    role: str
    text: str
    seq: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID_RE.match(self.id):
            raise ValueError(f"IndexDoc.id must be 64 lowercase hex, got {self.id!r}")
        if self.kind not in KINDS:
            raise ValueError(f"IndexDoc.kind must be one of {KINDS}, got {self.kind!r}")
        if not isinstance(self.time, int) or isinstance(self.time, bool):
            raise ValueError(f"IndexDoc.time must be int ms, got {self.time!r}")
        if not isinstance(self.seq, int) or isinstance(self.seq, bool):
            raise ValueError(f"IndexDoc.seq must be int, got {self.seq!r}")
        for name in ("ref", "project", "role", "text"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"IndexDoc.{name} must be str")


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result: the stored metadata of an ``IndexDoc`` plus its
    BM25 ``score`` (float, higher is better; comparable within one query).
    ``seq`` is 0 for facts and for hits of a ``mem_words`` generation."""

    id: str
    kind: str
    ref: str
    time: int
    project: str
    role: str
    score: float
    seq: int = 0


# --------------------------------------------------------------------------
# schema / tantivy helpers


@dataclass(frozen=True)
class _Fmt:
    """What a generation was built with: the analyzer of ``text`` ("stem" or
    "words") and whether it has the ``seq`` field."""

    analyzer: str
    has_seq: bool

    def forms(self, toks: tuple[str, ...]) -> tuple[str, ...]:
        """Word tokens in this generation's term form."""
        return _stem_tokens(toks) if self.analyzer == "stem" else toks

    def joined(self, toks: tuple[str, ...]) -> str | None:
        j = _joined(toks)
        if j is None or self.analyzer != "stem":
            return j
        return _stem_tokens((j,))[0]


_FORMATS = {"stem": _Fmt("stem", True), "words": _Fmt("words", False)}


def _build_schema(fmt: _Fmt) -> "tantivy.Schema":
    sb = tantivy.SchemaBuilder()
    for name in ("id", "kind", "ref"):
        sb.add_text_field(name, stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_integer_field("time", stored=True, indexed=True, fast=True)
    for name in ("project", "role"):
        sb.add_text_field(name, stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_text_field(
        "text", stored=False, tokenizer_name=ANALYZERS[fmt.analyzer], index_option="position"
    )
    if fmt.has_seq:
        sb.add_integer_field("seq", stored=True, indexed=True, fast=True)
    return sb.build()


_SCHEMAS: dict[str, "tantivy.Schema"] = {}


def _schema(analyzer: str) -> "tantivy.Schema":
    """The schema of a new generation in format ``analyzer`` (built once)."""
    sc = _SCHEMAS.get(analyzer)
    if sc is None:
        sc = _SCHEMAS[analyzer] = _build_schema(_FORMATS[analyzer])
    return sc


def _read_fmt(gen_dir: Path) -> _Fmt:
    """The format of a generation, from the schema in its meta.json."""
    try:
        meta = json.loads((gen_dir / "meta.json").read_text(encoding="utf-8"))
        fields = {f["name"]: f for f in meta["schema"]}
        tok = fields["text"]["options"]["indexing"]["tokenizer"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise IndexCorruptError(f"{gen_dir}/meta.json: unreadable schema: {e}") from e
    names = {v: k for k, v in ANALYZERS.items()}
    if tok not in names:
        raise IndexCorruptError(f"{gen_dir}: text field uses unknown tokenizer {tok!r}")
    return _Fmt(names[tok], "seq" in fields)


def _to_tantivy_doc(d: IndexDoc, fmt: _Fmt) -> "tantivy.Document":
    doc = tantivy.Document()
    doc.add_text("id", d.id)
    doc.add_text("kind", d.kind)
    doc.add_text("ref", d.ref)
    doc.add_integer("time", d.time)
    doc.add_text("project", d.project)
    doc.add_text("role", d.role)
    doc.add_text("text", _nfc(d.text))
    if fmt.has_seq:
        doc.add_integer("seq", d.seq)
    return doc


def _is_lock_busy(exc: BaseException) -> bool:
    return "LockBusy" in str(exc)


def _query_words(query: str, stopwords: bool = True) -> list[tuple[str, ...]]:
    """Distinct token tuples of the whitespace-separated query words (at
    most MAX_QUERY_WORDS), in query order; words without tokens dropped, and
    with ``stopwords`` single-token stop words too unless nothing else is left."""
    out: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    for word in query.split():
        toks = tuple(tokenize(word))
        if not toks or toks in seen:
            continue
        seen.add(toks)
        out.append(toks)
        if len(out) >= 4 * MAX_QUERY_WORDS:
            break
    if stopwords:
        content = [t for t in out if not (len(t) == 1 and t[0] in QUERY_STOPWORDS)]
        out = content or out
    return out[:MAX_QUERY_WORDS]


def _joined(toks: tuple[str, ...]) -> str | None:
    """Concatenation alternative of a multi-token word (``re-index`` ->
    ``reindex``), or None when it makes no sense (CJK, too long)."""
    if len(toks) < 2 or any(_is_cjk_token(t) for t in toks):
        return None
    joined = "".join(toks)
    return joined if len(joined.encode()) < MAX_TOKEN_BYTES else None


def _idf(doc_freq: int, num_docs: int) -> float:
    # tantivy's BM25 idf: ln(1 + (N - n + 0.5) / (n + 0.5))
    n = min(doc_freq, num_docs)
    return math.log(1.0 + (num_docs - n + 0.5) / (n + 0.5))


def _build_query(
    schema: "tantivy.Schema",
    forms: list[tuple[str, ...]],
    joins: list[str | None],
    boost: Callable[[int, bool], float],
) -> "tantivy.Query | None":
    """SHOULD-combination of one sub-query per query word; None if no word.

    ``forms[i]`` are word i's terms in the generation's form, ``joins[i]``
    its concatenation alternative (or None).  ``boost(i, joined)`` gives the
    factor applied to word i's term/phrase query (or to its joined term),
    used to put every sub-index on collection-wide IDF."""

    def boosted(q: "tantivy.Query", i: int, joined: bool) -> "tantivy.Query":
        b = boost(i, joined)
        return q if b == 1.0 else tantivy.Query.boost_query(q, b)

    clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
    for i, toks in enumerate(forms):
        if len(toks) == 1:
            sub = boosted(tantivy.Query.term_query(schema, "text", toks[0]), i, False)
        else:
            sub = boosted(tantivy.Query.phrase_query(schema, "text", list(toks)), i, False)
            if joins[i] is not None:
                alt = boosted(tantivy.Query.term_query(schema, "text", joins[i]), i, True)
                sub = tantivy.Query.boolean_query(
                    [(tantivy.Occur.Should, sub), (tantivy.Occur.Should, alt)]
                )
        clauses.append((tantivy.Occur.Should, sub))
    if not clauses:
        return None
    return tantivy.Query.boolean_query(clauses)


def _filter_clauses(
    schema: "tantivy.Schema",
    projects: Iterable[str] | None,
    exclude_refs: Iterable[str],
    roles: Iterable[str] | None,
) -> list:
    """Constant-score (0) MUST / MUST_NOT clauses for the search filters."""

    def any_of(field: str, values: Iterable[str]) -> "tantivy.Query":
        qs = [(tantivy.Occur.Should, tantivy.Query.term_query(schema, field, v))
              for v in dict.fromkeys(values)]
        if not qs:
            return tantivy.Query.empty_query()
        return tantivy.Query.const_score_query(tantivy.Query.boolean_query(qs), 0.0)

    out = []
    if projects is not None:
        out.append((tantivy.Occur.Must, any_of("project", projects)))
    if roles is not None:
        out.append((tantivy.Occur.Must, any_of("role", roles)))
    for r in dict.fromkeys(exclude_refs):
        out.append((tantivy.Occur.MustNot, tantivy.Query.term_query(schema, "ref", r)))
    return out


def _hit(doc: "tantivy.Document", score: float) -> "Hit":
    return Hit(
        id=doc.get_first("id"),
        kind=doc.get_first("kind"),
        ref=doc.get_first("ref") or "",
        time=int(doc.get_first("time") or 0),
        project=doc.get_first("project") or "",
        role=doc.get_first("role") or "",
        score=float(score),
        seq=int(doc.get_first("seq") or 0),
    )


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --------------------------------------------------------------------------
# one sub-index


class _Sub:
    """One sub-index directory (facts/ or turns/) with generations."""

    def __init__(self, root: Path, kind: str, lock_timeout: float, analyzer: str = "stem") -> None:
        self.kind = kind
        self.dir = root / _SUBDIR[kind]
        self.lock_timeout = lock_timeout
        self.new_fmt = _FORMATS[analyzer]
        self._cache: tuple[str, tantivy.Index] | None = None
        self._fmts: dict[str, _Fmt] = {}
        self._mutex = threading.RLock()

    def fmt(self, name: str) -> _Fmt:
        """Format of generation ``name`` (read from its meta.json once)."""
        f = self._fmts.get(name)
        if f is None:
            f = self._fmts[name] = _read_fmt(self.dir / name)
        return f

    # -- CURRENT ---------------------------------------------------------
    def current_name(self) -> str | None:
        """Name of the live generation dir, or None if there is no index."""
        try:
            raw = (self.dir / "CURRENT").read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except NotADirectoryError:
            return None
        name = raw.strip()
        if not _GEN_RE.match(name):
            raise IndexCorruptError(f"{self.dir / 'CURRENT'}: bad content {raw[:40]!r}")
        return name

    def current_name_lenient(self) -> str | None:
        """Like current_name(), but a corrupt CURRENT counts as absent
        (used by writers that are about to replace it)."""
        try:
            return self.current_name()
        except IndexCorruptError:
            return None

    def _write_current(self, name: str) -> None:
        tmp = self.dir / f"CURRENT.tmp-{os.getpid()}-{threading.get_ident()}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(name + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.dir / "CURRENT")
        _fsync_dir(self.dir)

    def gen_dirs(self) -> list[str]:
        try:
            names = os.listdir(self.dir)
        except FileNotFoundError:
            return []
        return sorted((n for n in names if _GEN_RE.match(n)), key=lambda n: int(n[4:]))

    def _next_gen_name(self) -> str:
        nums = [int(n[4:]) for n in self.gen_dirs()]
        cur = self.current_name_lenient()
        if cur:
            nums.append(int(cur[4:]))
        return f"gen-{max(nums, default=0) + 1}"

    def _remove_orphans(self, keep: str | None) -> None:
        for name in self.gen_dirs():
            if name != keep:
                shutil.rmtree(self.dir / name, ignore_errors=True)
        with contextlib.suppress(FileNotFoundError):
            for name in os.listdir(self.dir):
                if name.startswith("CURRENT.tmp-"):
                    with contextlib.suppress(OSError):
                        os.unlink(self.dir / name)

    # -- lock ------------------------------------------------------------
    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Exclusive writer lock of this sub-index (flock on LOCK), waiting
        up to lock_timeout seconds; IndexBusyError after that."""
        self.dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.dir / "LOCK", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            deadline = _time.monotonic() + self.lock_timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as e:
                    if e.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                        raise
                    if _time.monotonic() >= deadline:
                        raise IndexBusyError(
                            f"{self.dir}: another writer holds the index lock"
                        ) from None
                    _time.sleep(_LOCK_POLL_S)
            self._remove_temp_files()
            yield
        finally:
            os.close(fd)  # releases the flock

    # -- open ------------------------------------------------------------
    def _open_gen(self, name: str) -> "tantivy.Index":
        path = self.dir / name
        if not (path / "meta.json").is_file():
            raise IndexCorruptError(f"{path}: no meta.json")
        try:
            index = tantivy.Index.open(str(path))
        except (ValueError, OSError) as e:
            raise IndexCorruptError(f"{path}: cannot open index: {e}") from e
        _register(index)
        self.fmt(name)
        return index

    def open_current(self) -> "tuple[str, tantivy.Index] | None":
        """(generation name, open Index) of the live generation, or None.

        Retries a few times if CURRENT moves under us (a concurrent rebuild
        removing the generation we were about to open)."""
        with self._mutex:
            last_err: Exception | None = None
            for _ in range(5):
                name = self.current_name()
                if name is None:
                    self._cache = None
                    return None
                if self._cache is not None and self._cache[0] == name:
                    return self._cache
                try:
                    index = self._open_gen(name)
                except IndexCorruptError as e:
                    last_err = e
                    if self.current_name() != name:
                        continue
                    raise
                self._cache = (name, index)
                return self._cache
            assert last_err is not None
            raise last_err

    def close(self) -> None:
        with self._mutex:
            self._cache = None

    # -- writing ---------------------------------------------------------
    def _new_writer(self, index: "tantivy.Index", heap: int = WRITER_HEAP_BYTES) -> "tantivy.IndexWriter":
        try:
            writer = index.writer(heap_size=heap, num_threads=1)
        except ValueError as e:
            if _is_lock_busy(e):
                raise IndexBusyError(f"{self.dir}: tantivy writer lock busy: {e}") from e
            raise SearchIndexError(f"{self.dir}: cannot create writer: {e}") from e
        # A writer killed mid-commit leaves files meta.json does not name
        # (e.g. "<segment>.<opstamp>.del"); the next commit would try to create
        # the same name and fail with FileAlreadyExists.  Collect them first.
        with contextlib.suppress(Exception):
            writer.garbage_collect_files()
        return writer

    def _remove_temp_files(self) -> None:
        """Delete tantivy's atomic-write temp files (``.tmp*``) that a killed
        writer left in generation dirs.  Only called with the lock held, so
        no live writer owns them."""
        for gen in self.gen_dirs():
            with contextlib.suppress(OSError):
                for ent in os.scandir(self.dir / gen):
                    if ent.name.startswith(".tmp"):
                        with contextlib.suppress(OSError):
                            os.unlink(ent.path)

    def collect_garbage(self, name: str) -> None:
        """Delete files of segments that merges made dead (tantivy leaves
        them until a writer's garbage collection).  Uses a fresh Index on
        generation ``name``, so no searcher of ours keeps the files alive.
        Caller holds the lock.  Errors are ignored: this only tidies."""
        with contextlib.suppress(Exception):
            writer = self._new_writer(self._open_gen(name))
            writer.garbage_collect_files()
            writer.wait_merging_threads()

    def start_generation(self) -> "_NewGen":
        """Create an empty new generation dir with an open writer (caller
        holds the lock).  Orphans are removed first."""
        name = self._next_gen_name()  # before removing orphans: numbers never repeat
        self._remove_orphans(keep=self.current_name_lenient())
        path = self.dir / name
        path.mkdir(parents=True)
        try:
            try:
                index = tantivy.Index(_schema(self.new_fmt.analyzer), path=str(path), reuse=False)
            except ValueError as e:
                raise SearchIndexError(f"{path}: cannot create index: {e}") from e
            _register(index)
            writer = self._new_writer(index, BULK_HEAP_BYTES)
        except BaseException:
            shutil.rmtree(path, ignore_errors=True)
            raise
        self._fmts[name] = self.new_fmt
        return _NewGen(self, name, index, writer)

    def apply(self, docs: list[IndexDoc], delete_ids: list[str]) -> int:
        """Delete then add in one commit (caller holds the lock)."""
        opened = self.open_current()
        self._remove_orphans(keep=opened[0] if opened else None)
        if opened is None:
            if not docs:
                return 0
            gen = self.start_generation()
            try:
                for d in docs:
                    gen.add(d)
                gen.commit_and_switch()
            except BaseException:
                gen.abort()
                raise
            return len(docs)
        _name, index = opened
        index.reload()
        searcher = index.searcher()
        # Only issue deletes for ids this sub-index has (doc_freq counts
        # deleted docs too; a redundant delete is harmless).  Re-added ids are
        # deleted first so that adding is idempotent.
        to_delete = [
            i for i in dict.fromkeys([*delete_ids, *(d.id for d in docs)])
            if searcher.doc_freq("id", i) > 0
        ]
        if not to_delete and not docs:
            return 0
        writer = self._new_writer(index, BULK_HEAP_BYTES if len(docs) > BULK_DOCS else WRITER_HEAP_BYTES)
        try:
            for i in to_delete:
                writer.delete_documents_by_term("id", i)
            for d in docs:
                writer.add_document(_to_tantivy_doc(d, self.fmt(_name)))
            writer.commit()
        except BaseException as e:
            with contextlib.suppress(Exception):
                writer.rollback()
            with contextlib.suppress(Exception):
                writer.wait_merging_threads()
            if isinstance(e, ValueError):  # tantivy's error type
                raise SearchIndexError(f"{self.dir}: write failed: {e}") from e
            raise
        try:
            writer.wait_merging_threads()
            index.reload()
        except ValueError as e:
            raise SearchIndexError(f"{self.dir}: after commit: {e}") from e
        return len(docs)


class _NewGen:
    """A generation being written; commit_and_switch() publishes it."""

    def __init__(self, sub: _Sub, name: str, index: "tantivy.Index",
                 writer: "tantivy.IndexWriter") -> None:
        self.sub, self.name, self.index, self.writer = sub, name, index, writer
        self.count = 0
        self._done = False

    def add(self, d: IndexDoc) -> None:
        try:
            self.writer.add_document(_to_tantivy_doc(d, self.sub.fmt(self.name)))
        except ValueError as e:  # tantivy's error type
            raise SearchIndexError(f"{self.sub.dir / self.name}: add failed: {e}") from e
        self.count += 1

    def commit(self) -> None:
        try:
            self.writer.commit()
            self.writer.wait_merging_threads()
        except ValueError as e:
            raise SearchIndexError(f"{self.sub.dir / self.name}: commit failed: {e}") from e
        self._done = True
        self.sub.collect_garbage(self.name)

    def switch(self) -> None:
        """Point CURRENT at this generation and delete the previous one."""
        old = self.sub.current_name_lenient()
        self.sub._write_current(self.name)
        self.index.reload()
        with self.sub._mutex:
            self.sub._cache = (self.name, self.index)
        if old and old != self.name:
            shutil.rmtree(self.sub.dir / old, ignore_errors=True)
        self.sub._remove_orphans(keep=self.name)

    def commit_and_switch(self) -> None:
        self.commit()
        self.switch()

    def abort(self) -> None:
        if not self._done:
            with contextlib.suppress(Exception):
                self.writer.rollback()
            with contextlib.suppress(Exception):
                self.writer.wait_merging_threads()
        self.index = None  # type: ignore[assignment]
        shutil.rmtree(self.sub.dir / self.name, ignore_errors=True)


# --------------------------------------------------------------------------
# the index


class SearchIndex:
    """BM25 full-text index of facts and turns kept under ``root``
    (``<store>/index``); see the module docstring for the layout.

    Nothing is created on disk until the first write.  Writers of one
    sub-index exclude each other (across processes) through a flock on
    ``<sub>/LOCK``; a writer waits up to ``lock_timeout`` seconds, then
    raises ``IndexBusyError``.  Readers take no lock.  An instance may be
    shared by threads.
    """

    def __init__(self, root: Path, *, lock_timeout: float = 10.0, analyzer: str = "stem") -> None:
        """``root``: the index directory (``<store>/index``), need not exist.
        ``lock_timeout``: seconds a writer waits for the sub-index lock.
        ``analyzer``: format of the generations this instance creates
        (``"stem"``, the default, or ``"words"``; see the module docstring);
        existing generations are read and written in their own format.
        Raises ``ValueError`` for an unknown analyzer."""
        if analyzer not in ANALYZERS:
            raise ValueError(f"analyzer must be one of {tuple(ANALYZERS)}, got {analyzer!r}")
        self.root = Path(root)
        self._subs = {k: _Sub(self.root, k, lock_timeout, analyzer) for k in KINDS}

    # -- writing ---------------------------------------------------------
    def add(self, docs: Iterable[IndexDoc], *, delete_ids: Iterable[str] = ()) -> int:
        """Index ``docs`` and delete the documents whose id is in
        ``delete_ids``; returns the number of docs added.

        Per touched sub-index this is one writer and one commit, deletes
        applied before adds (so an id both deleted and added ends up
        present once).  Adding an id that is already indexed replaces it
        (idempotent); a repeated id within ``docs`` is added once.  A batch
        touching both kinds commits facts first, then turns (not atomic
        across the two; the index is derived data).  A delete only hides a
        document: its text stays in the segment files until ``purge``.

        Raises ``ValueError`` for a malformed id in ``delete_ids`` or a
        non-``IndexDoc`` item, ``IndexBusyError``, ``IndexCorruptError``,
        ``SearchIndexError``.
        """
        by_kind: dict[str, dict[str, IndexDoc]] = {k: {} for k in KINDS}
        for d in docs:
            if not isinstance(d, IndexDoc):
                raise ValueError(f"add() needs IndexDoc items, got {type(d).__name__}")
            by_kind[d.kind].setdefault(d.id, d)
        dels = list(dict.fromkeys(delete_ids))
        for i in dels:
            if not isinstance(i, str) or not _ID_RE.match(i):
                raise ValueError(f"delete id must be 64 lowercase hex, got {i!r}")
        added = 0
        for kind in KINDS:
            sub = self._subs[kind]
            kdocs = list(by_kind[kind].values())
            if not kdocs and (not dels or sub.current_name() is None):
                continue
            with sub.locked():
                added += sub.apply(kdocs, dels)
        return added

    def rebuild(self, docs: Iterable[IndexDoc], *,
                progress: Callable[[int], None] | None = None) -> int:
        """Replace the whole index (both sub-indexes) by ``docs``.

        Streams ``docs`` once into a NEW generation of each sub-index, commits
        both, then switches each ``CURRENT`` atomically and deletes the old
        generations (and any orphans).  Searches keep working on the old
        generation until the switch.  ``progress(n)`` is called with the
        number of docs indexed so far every 1000 docs and at the end (before
        the commit), the final call always carrying the total.
        Returns the number of docs indexed (repeated ids count once).

        If ``docs`` or ``progress`` raises, the new generations are
        discarded and the old index stays live.  Raises ``ValueError`` for
        a non-``IndexDoc`` item, ``IndexBusyError``, ``SearchIndexError``.
        """
        return self._rebuild(KINDS, docs, progress)

    def purge(self, kind: str, survivors: Iterable[IndexDoc]) -> None:
        """Physically remove everything of sub-index ``kind`` that is not in
        ``survivors``: rebuild that sub-index alone from ``survivors`` into
        a new generation, switch to it, delete the old generation.

        Afterwards no file under the sub-index holds the forgotten text or
        ids; check with ``verify_purged(forgotten_ids)``.  For "fact" this
        is cheap (facts are few).  For "turn" it is, for now, also a full
        rebuild of the turns sub-index (a later change replaces it with a
        rewrite of only the affected segments / shards).

        Raises ``ValueError`` if ``kind`` is unknown or a survivor has
        another kind (nothing is switched then), ``IndexBusyError``,
        ``SearchIndexError``.
        """
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        if kind == "fact":  # superseded versions of a forgotten key must go too: drop them all
            self._rebuild(("fact", "history"), survivors, None)
        else:
            self._rebuild((kind,), survivors, None)

    def _rebuild(self, kinds: tuple[str, ...], docs: Iterable[IndexDoc],
                 progress: Callable[[int], None] | None) -> int:
        with contextlib.ExitStack() as stack:
            for k in KINDS:  # fixed order: no lock-order deadlock
                if k in kinds:
                    stack.enter_context(self._subs[k].locked())
            gens: dict[str, _NewGen] = {}
            try:
                for k in kinds:
                    gens[k] = self._subs[k].start_generation()
                seen: set[str] = set()
                n = 0
                for d in docs:
                    if not isinstance(d, IndexDoc):
                        raise ValueError(f"needs IndexDoc items, got {type(d).__name__}")
                    if d.kind not in gens:
                        raise ValueError(
                            f"doc {d.id} has kind {d.kind!r}, expected one of {kinds}"
                        )
                    if d.id in seen:
                        continue
                    seen.add(d.id)
                    gens[d.kind].add(d)
                    n += 1
                    if progress is not None and n % _PROGRESS_EVERY == 0:
                        progress(n)
                if progress is not None and (n == 0 or n % _PROGRESS_EVERY != 0):
                    progress(n)
                for g in gens.values():
                    g.commit()
            except BaseException:
                for g in gens.values():
                    g.abort()
                raise
            for g in gens.values():
                g.switch()
            return n

    # -- reading ---------------------------------------------------------
    def search(self, query: str, *, limit: int = 10,
               kinds: tuple[str, ...] = ("fact", "turn"),
               projects: Iterable[str] | None = None,
               exclude_refs: Iterable[str] = (),
               roles: Iterable[str] | None = None,
               stopwords: bool = True) -> list[Hit]:
        """BM25 search of ``query`` in the sub-indexes named by ``kinds``.

        ``query`` is plain text, never query syntax (see module docstring);
        quotes, colons, parentheses, AND/OR/NOT and ``*`` are ordinary
        words or separators.  Filters select without scoring: ``projects``
        (documents whose project is one of these; ``""`` is "no project",
        e.g. user and global facts), ``exclude_refs`` (drop these fact keys /
        session ids), ``roles`` (turn roles or fact kinds).  ``stopwords``
        False keeps the ``QUERY_STOPWORDS`` words.

        Returns at most ``limit`` hits, best first (ties: newer ``time``
        first, then id).  Returns ``[]`` for a query without tokens or when
        no index exists.  Raises ``ValueError`` if ``limit < 1`` or a kind
        is unknown, ``IndexCorruptError`` if the index cannot be read.
        """
        if not isinstance(query, str):
            raise ValueError("query must be str")
        if not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be an int >= 1, got {limit!r}")
        for k in kinds:
            if k not in KINDS:
                raise ValueError(f"unknown kind {k!r}; expected one of {KINDS}")
        words = _query_words(query, stopwords)
        if not words:
            return []
        projects = None if projects is None else list(projects)
        roles = None if roles is None else list(roles)
        exclude_refs = list(exclude_refs)
        # Open a consistent searcher per sub-index first: the term
        # statistics of all of them are needed to score on collection-wide
        # IDF (otherwise a rare word in the small facts index and a common
        # one in the turns index would not compare).
        opened = self._open_searchers(kinds)
        if not opened:
            return []
        # word i in each generation's own term form
        forms = [[fmt.forms(toks) for toks in words] for _, _, _, fmt in opened]
        joins = [[fmt.joined(toks) for toks in words] for _, _, _, fmt in opened]
        num_docs = [int(s.num_docs) for _, _, s, _ in opened]
        df: list[dict[str, int]] = []
        for i, (_, _, searcher, _) in enumerate(opened):
            terms = {t for f in forms[i] for t in f} | {j for j in joins[i] if j is not None}
            df.append({t: int(searcher.doc_freq("text", t)) for t in terms})
        total_docs = sum(num_docs)

        def total_df(w: int, pos: int | None) -> int:
            return sum(df[j][joins[j][w] if pos is None else forms[j][w][pos]] for j in range(len(opened))
                       if pos is not None or joins[j][w] is not None)

        hits: list[Hit] = []
        for i, (sub, index, searcher, _fmt) in enumerate(opened):
            def boost(w: int, joined: bool, i: int = i) -> float:
                if len(opened) == 1:
                    return 1.0
                if joined:
                    local = _idf(df[i][joins[i][w]], num_docs[i])
                    glob = _idf(total_df(w, None), total_docs)
                else:
                    local = sum(_idf(df[i][t], num_docs[i]) for t in forms[i][w])
                    glob = sum(_idf(total_df(w, p), total_docs) for p in range(len(forms[i][w])))
                return glob / local if local > 0 else 1.0

            q = _build_query(index.schema, forms[i], joins[i], boost)
            if q is None:
                continue
            filters = _filter_clauses(index.schema, projects, exclude_refs, roles)
            if filters:
                q = tantivy.Query.boolean_query([(tantivy.Occur.Must, q), *filters])
            try:
                res = searcher.search(q, limit, count=False)
                for score, addr in res.hits:
                    hits.append(_hit(searcher.doc(addr), score))
            except ValueError as e:
                raise IndexCorruptError(f"search in {sub.dir} failed: {e}") from e
        hits.sort(key=lambda h: (-h.score, -h.time, h.id))
        return hits[:limit]

    def _open_searchers(self, kinds: Iterable[str]) -> "list[tuple[_Sub, tantivy.Index, tantivy.Searcher, _Fmt]]":
        opened = []
        for k in dict.fromkeys(kinds):
            sub = self._subs[k]
            cur = sub.open_current()
            if cur is None:
                continue
            name, index = cur
            try:
                index.reload()
                opened.append((sub, index, index.searcher(), sub.fmt(name)))
            except ValueError as e:
                raise IndexCorruptError(f"cannot read {sub.dir}: {e}") from e
        return opened

    def has_seq(self, kind: str = "turn") -> bool:
        """Whether the live generation of ``kind`` records turn positions
        (the ``seq`` field; False for a ``mem_words`` generation or none)."""
        opened = self._subs[kind].open_current()
        return opened is not None and self._subs[kind].fmt(opened[0]).has_seq

    def turns_at(self, session: str, seqs: Iterable[int]) -> dict[int, Hit]:
        """The indexed turns of ``session`` at positions ``seqs``:
        ``{seq: Hit}`` (score 0.0); positions not indexed are absent, and a
        ``mem_words`` generation (no ``seq`` field) returns ``{}``.  Used to
        find a hit's neighbouring turns.  Raises ``IndexCorruptError``."""
        want = sorted({int(n) for n in seqs if int(n) >= 0})
        opened = self._open_searchers(("turn",))
        if not want or not opened:
            return {}
        sub, index, searcher, fmt = opened[0]
        if not fmt.has_seq:
            return {}
        schema = index.schema
        q = tantivy.Query.boolean_query([
            (tantivy.Occur.Must, tantivy.Query.term_query(schema, "ref", session)),
            (tantivy.Occur.Must, tantivy.Query.boolean_query(
                [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "seq", n)) for n in want])),
        ])
        out: dict[int, Hit] = {}
        try:
            for _score, addr in searcher.search(q, len(want) * 2 + 2, count=False).hits:
                h = _hit(searcher.doc(addr), 0.0)
                out.setdefault(h.seq, h)
        except ValueError as e:
            raise IndexCorruptError(f"search in {sub.dir} failed: {e}") from e
        return out

    def term_stats(self, words: Iterable[str], kinds: tuple[str, ...] = KINDS) -> tuple[int, dict[str, int]]:
        """Collection statistics for scoring outside tantivy: ``(number of
        documents, {word: document frequency})`` over the sub-indexes
        ``kinds``, each word (a :func:`tokenize` token) counted in the term
        form of each generation.  Deleted-but-unpurged documents count, as
        in BM25 itself.  Raises ``IndexCorruptError``."""
        words = list(dict.fromkeys(words))
        n = 0
        out = {w: 0 for w in words}
        for _sub, _index, searcher, fmt in self._open_searchers(kinds):
            n += int(searcher.num_docs)
            for w, t in zip(words, fmt.forms(tuple(words))):
                out[w] += int(searcher.doc_freq("text", t))
        return n, out

    def doc_count(self, kinds: tuple[str, ...] = ("fact", "turn")) -> dict[str, int]:
        """Live (not deleted) documents per kind: ``{"fact": n, "turn": m}``
        (pass ``kinds=KINDS`` to count ``history`` too); 0 for a missing
        sub-index.  Raises ``IndexCorruptError``."""
        out: dict[str, int] = {}
        for k in kinds:
            sub = self._subs[k]
            opened = sub.open_current()
            if opened is None:
                out[k] = 0
                continue
            opened[1].reload()
            out[k] = int(opened[1].searcher().num_docs)
        return out

    def verify_purged(self, ids: Iterable[str]) -> list[str]:
        """Check that forgotten ``ids`` are physically gone; returns a list
        of human-readable problems, ``[]`` when clean.

        Reported, for each existing sub-index: ``doc_freq(id) != 0`` (a
        deleted doc still counts); a segment in ``meta.json`` that has
        deletes (its files may hold deleted text); a file in the live
        generation dir that belongs to no live segment (ignoring
        ``meta.json``, ``.managed.json`` and lock files); a ``gen-*`` dir
        that ``CURRENT`` does not name.  Raises ``ValueError`` for a
        malformed id, ``IndexCorruptError``.
        """
        ids = list(ids)
        for i in ids:
            if not isinstance(i, str) or not _ID_RE.match(i):
                raise ValueError(f"id must be 64 lowercase hex, got {i!r}")
        problems: list[str] = []
        for k, sub in self._subs.items():
            opened = sub.open_current()
            for name in sub.gen_dirs():
                if opened is None or name != opened[0]:
                    problems.append(f"{k}: orphan generation dir {sub.dir / name}")
            if opened is None:
                continue
            name, index = opened
            gen_dir = sub.dir / name
            with sub.locked():
                sub.collect_garbage(name)
            index.reload()
            searcher = index.searcher()
            for i in ids:
                df = searcher.doc_freq("id", i)
                if df:
                    problems.append(f"{k}: doc_freq(id={i}) = {df}")
            try:
                meta = json.loads((gen_dir / "meta.json").read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise IndexCorruptError(f"{gen_dir}/meta.json unreadable: {e}") from e
            live: set[str] = set()
            for seg in meta.get("segments", []):
                sid = str(seg.get("segment_id", "")).replace("-", "")
                live.add(sid)
                if seg.get("deletes"):
                    problems.append(
                        f"{k}: segment {sid} has deletes {seg['deletes']} "
                        "(deleted text still in its files)"
                    )
            for fname in sorted(os.listdir(gen_dir)):
                if fname in ("meta.json", ".managed.json") or fname.endswith(".lock"):
                    continue
                if fname.split(".", 1)[0] not in live:
                    problems.append(f"{k}: file {gen_dir / fname} belongs to no live segment")
        return problems

    def term_doc_freq(self, text: str) -> dict[str, int]:
        """Document frequency of every token of ``text`` in the ``text`` field,
        summed over the sub-indexes, deleted-but-unpurged documents included.

        ``{"zebraquokka": 0, ...}``: a forgotten word that no surviving
        document contains must count 0 (it is then absent from the term
        dictionaries, which a raw byte scan cannot show).  In a ``mem_stem``
        generation a token is looked up by its stem, so the count is that of
        the documents holding any word with the same stem: an upper bound of
        the token's own count, and 0 still proves the word is gone.
        """
        out = {tok: 0 for tok in tokenize(text)}
        toks = tuple(out)
        for sub in self._subs.values():
            opened = sub.open_current()
            if opened is None:
                continue
            index = opened[1]
            index.reload()
            searcher = index.searcher()
            for tok, term in zip(toks, sub.fmt(opened[0]).forms(toks)):
                out[tok] += searcher.doc_freq("text", term)
        return out

    def close(self) -> None:
        """Drop open index handles (the instance stays usable and reopens
        lazily).  Never raises."""
        for sub in self._subs.values():
            sub.close()

    def __enter__(self) -> "SearchIndex":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --------------------------------------------------------------------------
# snippets

_ELLIPSIS = "…"


def _fold_char(c: str) -> str:
    """Approximation of lowercase + ASCII folding for locating a token."""
    base = "".join(ch for ch in unicodedata.normalize("NFKD", c)
                   if not unicodedata.combining(ch))
    return (base or c).lower()


def _find_token(text: str, tokens: set[str]) -> int | None:
    """Character offset in ``text`` of the first word holding a query
    token, refined to the token itself where it can be located."""
    stems = set(_stem_tokens(tuple(tokens)))
    probes = sorted({t for t in tokens | stems if t}, key=len, reverse=True)
    if text.isascii() and probes:
        # fast path: jump to words that contain a token or stem (case folds only)
        pat = re.compile("|".join(re.escape(x) for x in probes), re.I)
        word_re = re.compile(r"\S+")
        starts = (text.rfind(" ", 0, h.start()) + 1 for h in pat.finditer(text))
        matches = (word_re.match(text, st) for st in starts)
    else:
        matches = re.finditer(r"\S+", text)
    last = -1
    for m in matches:
        if m is None or m.start() <= last:
            continue
        last = m.start()
        word = m.group()
        wtoks = tokenize(word)
        hit = next((t for t in wtoks if t in tokens), None)
        if hit is None:
            hit = next((t for t, st in zip(wtoks, _stem_tokens(tuple(wtoks))) if st in stems), None)
        if hit is None:
            continue
        # Locate the token inside the word through a folded copy.
        folded: list[str] = []
        owner: list[int] = []
        for idx, ch in enumerate(word):
            f = _fold_char(ch)
            folded.append(f)
            owner.extend([idx] * len(f))
        pos = "".join(folded).find(hit)
        return m.start() + (owner[pos] if pos >= 0 else 0)
    return None


def make_snippet(text: str, query: str, width: int = 160) -> str:
    """A window of at most ``width`` characters of ``text`` around the first
    occurrence of a query token (same analyzer: case and accents folded).

    Whitespace runs are collapsed to one space first.  The window starts a
    little before the match (about a quarter of ``width``, moved to a word
    start when possible); "…" is added at each end where text was cut (so
    the result is at most ``width + 2`` characters).  With no match (or no
    query token) the window is the start of the text.  Raises ``ValueError``
    if ``width < 1``.
    """
    if not isinstance(width, int) or width < 1:
        raise ValueError(f"width must be an int >= 1, got {width!r}")
    flat = " ".join(_nfc(text).split())
    if len(flat) <= width:
        return flat
    qtoks = set(tokenize(query)) if query else set()
    qtoks = (qtoks - QUERY_STOPWORDS) or qtoks
    pos = _find_token(flat, qtoks) if qtoks else None
    if pos is None:
        start = 0
    else:
        lead = width // 4
        start = max(0, pos - lead)
        if start > 0:
            # prefer starting at a word boundary between start and pos
            sp = flat.find(" ", start, pos)
            if sp != -1 and flat[start - 1] != " ":
                start = sp + 1
        start = min(start, max(0, len(flat) - width))
    end = min(len(flat), start + width)
    snippet = flat[start:end].strip()
    if start > 0:
        snippet = _ELLIPSIS + snippet
    if end < len(flat):
        snippet = snippet + _ELLIPSIS
    return snippet
