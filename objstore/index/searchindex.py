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
        turns/                  sub-index for kind "turn", sharded by session
            CURRENT             "shards 16\n" then one line per shard: its generation or "-" (empty)
            LOCK                one lock for all shards
            gen-4/ gen-5/ ...   one complete tantivy index per non-empty shard
        history/                sub-index for kind "history", same shape as facts/

A ``CURRENT`` of ``shards <N>`` (1 <= N <= 4096) is followed by exactly N
lines, line i (0-based) naming the live generation of shard i, or ``-`` if
shard i holds no document; a generation belongs to at most one shard.  A
``CURRENT`` of one line ``gen-<n>`` is a one-shard layout (always the case
for facts and history; the turns of a store indexed before sharding).  The
turns of session S live in shard ``int.from_bytes(BLAKE3(UTF-8 of
S)[:4], "big") % N`` (``SearchIndex.shard_of``); every turn of a session is
in the same shard.  Readers always use the N recorded in ``CURRENT``, so an
index laid out with any N (or unsharded) is read and written correctly;
only ``rebuild`` and ``purge("turn")`` lay the turns out anew, with the
instance's N (default: 16, doubled while the index being replaced has more
than SHARD_TARGET_DOCS = 2048 turn documents per shard, at most 256).

Why separate sub-indexes: facts are few and their superseded versions are deleted
from the index routinely.  A tantivy delete only writes a ``.del`` bitset; the
deleted document's terms, positions and stored fields stay in the segment
files (and in ``doc_freq``) until the segment is rewritten.  Keeping facts in
their own small index makes "physically forget a fact" (``purge``) a cheap
rebuild of that index alone.  Turns are many and append-only; forgetting
one turn rebuilds only its session's shard (``purge_turn_shards``: the
survivors of that shard are re-read from the object store), so the cost of
a forget is O(turns in one shard) instead of O(all turns).  ``history``
holds the fact versions that are not current (superseded ones and
backfills), so that recall can resolve a query that matches an old value to
the key's current version; ``search`` leaves it out unless asked.  Any
``purge("fact", …)`` empties it as well (a forgotten key's old versions
must go, and the survivors' history is derived data: ``mem reindex``
restores it).

Generations: ``CURRENT`` names the live generation directory ``gen-<n>`` of
each shard (n a positive decimal integer, never reused within the sub-index:
a new generation gets one more than the highest existing number).  It is
replaced atomically (write ``CURRENT.tmp-<pid>-<thread>``, fsync,
``os.replace``, fsync the directory).  ``add`` commits into the live
generation of each touched shard (a shard without one gets a new generation
and ``CURRENT`` is rewritten).  ``rebuild``, ``purge`` and
``purge_turn_shards`` write complete new generations (of every shard, or of
the shards named), commit them, switch ``CURRENT`` to them in one write, and
only then delete the generation directories they replace.  A crash at any
point leaves either the old or the new generations live, plus possibly
orphan ``gen-*`` directories (or ``CURRENT.tmp-*`` files); the next write
(``add``/``rebuild``/``purge``) of that sub-index removes every ``gen-*``
directory that ``CURRENT`` does not name.
``verify_purged`` reports such orphans as problems, since they may still
hold forgotten text.

A sub-index whose directory or ``CURRENT`` file does not exist is empty:
searching it returns nothing, and nothing is created until the first write.
A ``CURRENT`` with other content, or naming a missing/unreadable generation,
is corruption (``IndexCorruptError``); ``rebuild`` repairs it.

Concurrency: writers of one sub-index (any process) serialise on an
``flock`` of ``<sub>/LOCK``; readers take no lock, re-read ``CURRENT`` on
every search (and reload a generation only when its ``meta.json`` changed)
and keep working on a generation that is being deleted (POSIX keeps
unlinked, already-open files readable).

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
plain     text, ``mem_plain``,       the body NFC-normalised and case-folded
          doc ids only, NOT stored   (``str.casefold``), unstemmed; only for
                                     ``substring_candidates``, never scored
flags     text, raw, doc ids only,   ``long`` when the case-folded body is
          NOT stored                 PLAIN_MAX_TOKEN_BYTES (32 KiB) or more
                                     in UTF-8 (it may hold a token ``plain``
                                     dropped)
========  =========================  ===========================================

Index formats.  A generation records its own schema in ``meta.json``; the
``text`` field's tokenizer name says which analyzer built it, and readers
query each generation with that analyzer:

* ``mem_stem`` (current, written by default): ``mem_words`` followed by the
  Snowball English stemmer (tantivy ``Filter.stemmer("english")``, i.e.
  Porter2: ``running`` -> ``run``, ``databases`` -> ``databas``), plus the
  ``seq``, ``plain`` and ``flags`` fields.  Stemming bought +0.03 R@5 on
  LoCoMo (``docs/benchmarks.md``).  A ``mem_stem`` generation written before
  ``plain`` existed (no ``plain``/``flags``) is read and written to as it
  is; ``substring_candidates`` answers None for its kind until ``mem
  reindex``.
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

Analyzer ``mem_plain`` (field ``plain``): tantivy's ``simple`` tokenizer
(maximal runs of characters for which Rust's ``char::is_alphanumeric``
holds; everything else separates), then dropping tokens of
PLAIN_MAX_TOKEN_BYTES (32,768) or more UTF-8 bytes.  No lowercasing or
folding: the text is case-folded by Python before it reaches the analyzer,
exactly as ``objects.normalize_value`` does (``casefold(NFC(text))``; its
whitespace collapsing changes no token, whitespace being a separator).

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
more words scores higher (BM25).  Each live generation (a sub-index, or one
shard of the turns) is searched separately and the hits are merged by
score; stored fields are loaded for the best ``limit`` only.  To make the
scores comparable, every term and phrase query is boosted by ``idf_all /
idf_gen`` (tantivy's idf formula, document counts and frequencies summed
over every searched generation), so every sub-index and shard scores with
collection-wide IDF; only BM25's length normalisation (average field
length) stays per generation.  As in tantivy itself, deleted but not yet
purged documents still count in document frequencies.

Filters (``projects``, ``exclude_refs``, ``roles``) are constant-score
clauses: they select documents without changing any score.

Substring prefilter
-------------------

``substring_candidates(text)`` names the documents that may contain
``text`` as a substring in the sense of ``mem forget --match``: ``norm =
normalize_value(text)`` (NFC, ``casefold``, whitespace runs as one space,
stripped) occurs in ``normalize_value(body)``.  Let ``t1 .. tk`` be the
``mem_plain`` tokens of ``norm`` (computed without the length limit).  A
token is *left-open* if it is t1 and ``norm`` starts with a token
character, *right-open* if it is tk and ``norm`` ends with one.  The
candidates are the documents whose ``plain`` terms include every token
that is neither (term query), and which are flagged ``long`` or have, for
each open token t, a term ending with t (left-open only: regex ``.*t``),
starting with t (right-open only: ``t.*``) or containing t (both:
``.*t.*``).

Why no document is missed: the field holds the tokens of ``B =
casefold(NFC(body))``, and ``normalize_value(body)`` is B with each
whitespace run replaced by one space (and stripped).  Whitespace is a
separator, so both strings have the same tokens.  Tokens are maximal runs
of token characters, and whether a character is one depends on the
character alone, so an occurrence of ``norm`` in B cuts B's tokens only at
its two ends: a token of ``norm`` with a separator (or another token) on
both sides within ``norm`` is a whole token of B; one touching the start of
``norm`` is the end of a token of B, one touching the end is the start of
one, one touching both lies inside one.  Every token of ``norm`` is shorter
than the limit (else the answer is None), so a whole token of B equal to it
was indexed; a longer token of B (the ``.*`` cases) may have been dropped,
but only if B has 32 KiB or more, and then the document is flagged
``long`` and passes the open-token tests.  Stemming plays no part
(``plain`` is unstemmed; the stemmed ``text`` field could not answer a
prefix or suffix test).  The result is a superset: positions and order of
the tokens are not checked, and the caller verifies each candidate against
its text.

Writers use ``WRITER_HEAP_BYTES`` (15 MB) heap and one indexing thread.
A rebuild of many shards buffers documents (BUILD_BUFFER_CHARS) and writes
FLUSH_THREADS shards at a time; a rebuild of a few shards (a purge) streams
into one writer per shard.  The analyzers are built once per process and
registered on every index opened (building one compiles the token regex).
Measured on the 2-core dev machine (tantivy-py 0.27): ``rebuild`` of 10,000
docs of ~110 words each (1.1 M tokens) takes ~1.3 s, nearly all of it in
tantivy's commit (the regex analyzer costs ~0.5 s of that versus tantivy's
default tokenizer; a 50 MB heap saves ~0.2 s); a one-doc ``add`` ~20 ms; a
two-word search ~0.6 ms; ``purge("fact")`` of 500 facts ~0.1 s.  On the
benchmark store (37,491 turn documents, 32 shards; ``docs/benchmarks.md``,
"Forget"): indexing a shard of 1,420 turns ~0.25 s (the ``plain`` field adds
~20 %), so ``purge_turn_shards`` of one shard 0.33-0.39 s with the reading
of its turns; ``substring_candidates`` ~22 ms; each shard adds ~0.45 ms to
the first search of a new process and ~0.05 ms to a warm search.
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
from typing import Callable, Iterable, Iterator, Mapping

import tantivy
from blake3 import blake3 as _blake3

from objstore.core.errors import MemError
from objstore.index.readonly import shadow_dir, writable

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
    "DEFAULT_TURN_SHARDS",
    "PLAIN_MAX_TOKEN_BYTES",
]

# --------------------------------------------------------------------------
# errors


class SearchIndexError(MemError):
    """Base class of every error this module raises on purpose (a
    :class:`objstore.core.errors.MemError`, so the CLI maps it: hint ``mem reindex``).

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
#: Tokens of this many UTF-8 bytes or more are dropped from the ``plain``
#: field; a document whose case-folded text is this long is flagged ``long``.
PLAIN_MAX_TOKEN_BYTES = 32_768
#: Shards of the turns sub-index in a new layout (see :class:`SearchIndex`).
DEFAULT_TURN_SHARDS = 16
#: A full rebuild with automatic sharding doubles the shard count (from
#: DEFAULT_TURN_SHARDS, up to MAX_AUTO_SHARDS) while the index it replaces
#: holds more than this many turn documents per shard.
SHARD_TARGET_DOCS = 2048
MAX_AUTO_SHARDS = 256
#: Largest shard count a CURRENT file may name.
MAX_SHARDS = 4096
#: Text (characters) a rebuild of many shards buffers before it writes them.
BUILD_BUFFER_CHARS = 64_000_000
#: Shards a rebuild of many shards writes at the same time.
FLUSH_THREADS = 2
#: A rebuild of at most this many shards streams into one open writer per
#: shard instead (tantivy indexes while the caller reads the next documents).
STREAM_SHARDS = 4

_ANALYZER_NAME = "mem_words"
_STEM_ANALYZER_NAME = "mem_stem"
_PLAIN_ANALYZER_NAME = "mem_plain"
_FLAG_LONG = "long"
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


def _build_plain_analyzer(limit: int | None = PLAIN_MAX_TOKEN_BYTES) -> "tantivy.TextAnalyzer":
    """``mem_plain``: tantivy's ``simple`` tokenizer (maximal runs of
    alphanumeric characters, Rust ``char::is_alphanumeric``; about twice as
    fast as the ``mem_words`` regex) and no other filter (the text is
    case-folded by Python before it reaches it), tokens of ``limit`` bytes or
    more dropped; ``limit=None`` keeps every token (used on match texts)."""
    b = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
    if limit is not None:
        b = b.filter(tantivy.Filter.remove_long(limit))
    return b.build()


_ANALYZERS: dict[str, "tantivy.TextAnalyzer"] = {}  # built on first use (start-up time)
_ANALYZER_LOCK = threading.Lock()
_REGISTERED: dict[str, "tantivy.TextAnalyzer"] = {}  # the objects registered on every Index


def _register(index: "tantivy.Index") -> None:
    """Register the analyzers on ``index``.  The analyzer objects are built
    once per process and shared by every index (building one compiles the
    token regex, ~0.7 ms; a process opening 16 shards would pay that 48 times)."""
    with _ANALYZER_LOCK:
        if not _REGISTERED:
            _REGISTERED.update({_ANALYZER_NAME: _build_analyzer(),
                                _STEM_ANALYZER_NAME: _build_analyzer(stem=True),
                                _PLAIN_ANALYZER_NAME: _build_plain_analyzer()})
        for name, a in _REGISTERED.items():
            index.register_tokenizer(name, a)


def _analyzer(stem: bool | str) -> "tantivy.TextAnalyzer":
    """The shared words (False), stemming (True) or ``"plain"`` (no filter,
    no length limit) analyzer; caller holds _ANALYZER_LOCK."""
    key = stem if isinstance(stem, str) else ("stem" if stem else "words")
    a = _ANALYZERS.get(key)
    if a is None:
        a = _ANALYZERS[key] = (_build_plain_analyzer(None) if key == "plain"
                               else _build_analyzer(key == "stem"))
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
    "words"), whether it has the ``seq`` field and the ``plain`` + ``flags``
    fields (substring prefilter)."""

    analyzer: str
    has_seq: bool
    has_plain: bool = False

    def forms(self, toks: tuple[str, ...]) -> tuple[str, ...]:
        """Word tokens in this generation's term form."""
        return _stem_tokens(toks) if self.analyzer == "stem" else toks

    def joined(self, toks: tuple[str, ...]) -> str | None:
        j = _joined(toks)
        if j is None or self.analyzer != "stem":
            return j
        return _stem_tokens((j,))[0]


_FORMATS = {"stem": _Fmt("stem", True, True), "words": _Fmt("words", False, False)}


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
    if fmt.has_plain:
        sb.add_text_field("plain", stored=False, tokenizer_name=_PLAIN_ANALYZER_NAME, index_option="basic")
        sb.add_text_field("flags", stored=False, tokenizer_name="raw", index_option="basic")
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
    return _Fmt(names[tok], "seq" in fields, "plain" in fields and "flags" in fields)


def _to_tantivy_doc(d: IndexDoc, fmt: _Fmt) -> "tantivy.Document":
    doc = tantivy.Document()
    doc.add_text("id", d.id)
    doc.add_text("kind", d.kind)
    doc.add_text("ref", d.ref)
    doc.add_integer("time", d.time)
    doc.add_text("project", d.project)
    doc.add_text("role", d.role)
    text = _nfc(d.text)
    doc.add_text("text", text)
    if fmt.has_seq:
        doc.add_integer("seq", d.seq)
    if fmt.has_plain:
        folded = text.casefold()  # as objects.normalize_value, whose whitespace runs do not matter here
        doc.add_text("plain", folded)
        if (len(folded) * 4 >= PLAIN_MAX_TOKEN_BYTES
                and len(folded.encode("utf-8", "surrogatepass")) >= PLAIN_MAX_TOKEN_BYTES):
            doc.add_text("flags", _FLAG_LONG)  # may hold a token the plain field dropped
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


_LIBC: list = []


def _trim_heap() -> None:
    """Give freed heap memory back to the OS (glibc ``malloc_trim``; a no-op
    elsewhere).  Every tantivy writer indexes in new threads, and glibc keeps
    what a thread freed in that thread's malloc arena: a rebuild writing 32
    shards one after the other otherwise peaks ~200 MB higher."""
    if not _LIBC:
        try:
            import ctypes
            _LIBC.append(ctypes.CDLL("libc.so.6").malloc_trim)
        except (OSError, AttributeError):
            _LIBC.append(None)
    if _LIBC[0] is not None:
        _LIBC[0](0)


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
# shards and CURRENT


def _shard_index(session_id: str, n: int) -> int:
    """Shard of a session among ``n``: the first 4 bytes of BLAKE3(UTF-8 of
    the session id), big-endian, modulo ``n`` (0 when ``n`` is 1)."""
    if n == 1:
        return 0
    h = _blake3(session_id.encode("utf-8", "surrogatepass")).digest(length=4)
    return int.from_bytes(h, "big") % n


@dataclass(frozen=True)
class _Manifest:
    """The content of a sub-index's ``CURRENT``: the live generation of each
    shard (None for an empty shard); one shard unless the layout is sharded."""

    gens: tuple[str | None, ...]

    @property
    def n(self) -> int:
        return len(self.gens)

    def live(self) -> list[tuple[int, str]]:
        """(shard, generation name) of every non-empty shard."""
        return [(i, g) for i, g in enumerate(self.gens) if g is not None]

    def render(self) -> str:
        if self.n == 1 and self.gens[0] is not None:
            return self.gens[0] + "\n"
        return f"shards {self.n}\n" + "".join((g or "-") + "\n" for g in self.gens)


def _parse_manifest(raw: str, path: Path) -> _Manifest:
    """Parse a ``CURRENT`` file (see the module docstring); IndexCorruptError
    for anything else."""
    lines = raw.strip().split("\n")
    bad = IndexCorruptError(f"{path}: bad content {raw[:40]!r}")
    if len(lines) == 1 and _GEN_RE.match(lines[0].strip()):
        return _Manifest((lines[0].strip(),))
    head = lines[0].split()
    if len(head) != 2 or head[0] != "shards" or not head[1].isdigit():
        raise bad
    n = int(head[1])
    if not 1 <= n <= MAX_SHARDS or len(lines) != n + 1:
        raise bad
    gens: list[str | None] = []
    for line in lines[1:]:
        line = line.strip()
        if line == "-":
            gens.append(None)
        elif _GEN_RE.match(line):
            gens.append(line)
        else:
            raise bad
    named = [g for g in gens if g is not None]
    if len(set(named)) != len(named):
        raise bad
    return _Manifest(tuple(gens))


# --------------------------------------------------------------------------
# one sub-index


class _Open(tuple):
    """A live generation opened for reading: ``(sub, name, shard, index,
    searcher, fmt)``."""

    __slots__ = ()

    def __new__(cls, sub, name, shard, index, searcher, fmt):  # noqa: D102
        return tuple.__new__(cls, (sub, name, shard, index, searcher, fmt))

    sub = property(lambda self: self[0])
    name = property(lambda self: self[1])
    shard = property(lambda self: self[2])
    index = property(lambda self: self[3])
    searcher = property(lambda self: self[4])
    fmt = property(lambda self: self[5])


class _Sub:
    """One sub-index directory (facts/, turns/ or history/): a ``CURRENT``
    naming the live generation of each shard, a ``LOCK``, ``gen-*`` dirs."""

    def __init__(self, root: Path, kind: str, lock_timeout: float, analyzer: str = "stem") -> None:
        self.kind = kind
        self.dir = root / _SUBDIR[kind]
        self.lock_timeout = lock_timeout
        self.new_fmt = _FORMATS[analyzer]
        self._cache: dict[str, tantivy.Index] = {}
        self._seen: dict[str, tuple] = {}  # generation -> meta.json signature at its last reload
        self._fmts: dict[str, _Fmt] = {}
        self._mutex = threading.RLock()

    def fmt(self, name: str) -> _Fmt:
        """Format of generation ``name`` (read from its meta.json once)."""
        f = self._fmts.get(name)
        if f is None:
            f = self._fmts[name] = _read_fmt(self.dir / name)
        return f

    # -- CURRENT ---------------------------------------------------------
    def manifest(self) -> _Manifest | None:
        """The parsed ``CURRENT``, or None if there is no index."""
        try:
            raw = (self.dir / "CURRENT").read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError):
            return None
        return _parse_manifest(raw, self.dir / "CURRENT")

    def manifest_lenient(self) -> _Manifest | None:
        """Like manifest(), but a corrupt CURRENT counts as absent (used by
        writers that are about to replace it)."""
        try:
            return self.manifest()
        except IndexCorruptError:
            return None

    def _write_manifest(self, m: _Manifest) -> None:
        tmp = self.dir / f"CURRENT.tmp-{os.getpid()}-{threading.get_ident()}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(m.render())
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

    def next_gen_number(self) -> int:
        """One more than the highest generation number on disk or in CURRENT."""
        nums = [int(n[4:]) for n in self.gen_dirs()]
        cur = self.manifest_lenient()
        if cur:
            nums += [int(g[4:]) for _s, g in cur.live()]
        return max(nums, default=0) + 1

    def remove_orphans(self, keep: set[str]) -> None:
        for name in self.gen_dirs():
            if name not in keep:
                shutil.rmtree(self.dir / name, ignore_errors=True)
        with contextlib.suppress(FileNotFoundError):
            for name in os.listdir(self.dir):
                if name.startswith("CURRENT.tmp-"):
                    with contextlib.suppress(OSError):
                        os.unlink(self.dir / name)

    def remove_orphans_of_current(self) -> None:
        cur = self.manifest_lenient()
        self.remove_orphans({g for _s, g in cur.live()} if cur else set())

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
            if not writable(path):  # a read-only store: tantivy needs a place for its lock file
                path = shadow_dir(path)
            index = tantivy.Index.open(str(path))
        except (ValueError, OSError) as e:
            raise IndexCorruptError(f"{path}: cannot open index: {e}") from e
        _register(index)
        self.fmt(name)
        return index

    def open_current(self) -> "tuple[_Manifest, dict[str, tantivy.Index]] | None":
        """(manifest, {generation name: open Index}) of the live generations,
        or None if there is no index.

        Retries a few times if CURRENT moves under us (a concurrent rebuild
        removing a generation we were about to open)."""
        with self._mutex:
            last_err: Exception | None = None
            for _ in range(5):
                m = self.manifest()
                if m is None:
                    self._cache = {}
                    return None
                opened: dict[str, tantivy.Index] = {}
                try:
                    for _s, name in m.live():
                        index = self._cache.get(name)
                        opened[name] = index if index is not None else self._open_gen(name)
                except IndexCorruptError as e:
                    last_err = e
                    if self.manifest_lenient() != m:
                        continue
                    raise
                self._cache = opened
                return m, opened
            assert last_err is not None
            raise last_err

    def reload_if_changed(self, name: str, index: "tantivy.Index") -> None:
        """``index.reload()`` unless generation ``name``'s meta.json is the
        one seen at the last reload (a commit replaces meta.json by a rename,
        so a new commit changes its inode, size or mtime).  A stat costs
        ~2 µs, a reload ~70 µs: this matters with 16+ shards per search."""
        try:
            st = os.stat(self.dir / name / "meta.json")
            sig = (st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            sig = None
        if sig is None or self._seen.get(name) != sig:
            index.reload()
            if sig is not None:
                self._seen[name] = sig

    def close(self) -> None:
        with self._mutex:
            self._cache = {}
            self._seen = {}

    # -- writing ---------------------------------------------------------
    def new_writer(self, index: "tantivy.Index", heap: int = WRITER_HEAP_BYTES) -> "tantivy.IndexWriter":
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
            writer = self.new_writer(self._open_gen(name))
            writer.garbage_collect_files()
            writer.wait_merging_threads()

    def apply(self, docs: list[IndexDoc], delete_ids: list[str], new_shards: int) -> int:
        """Delete then add, one commit per touched live generation (caller
        holds the lock).  Docs of a shard that has no generation yet go to a
        new one (``CURRENT`` rewritten once); with no index at all, a new
        layout of ``new_shards`` shards is created."""
        opened = self.open_current()
        self.remove_orphans(set(opened[1]) if opened else set())
        if opened is None:
            if not docs:
                return 0
            _Build(self, new_shards, None, None).run(docs)
            return len(docs)
        m, indexes = opened
        groups: dict[int, list[IndexDoc]] = {}
        for d in docs:
            groups.setdefault(_shard_index(d.ref, m.n), []).append(d)
        for s, name in m.live():
            self._apply_gen(name, indexes[name], groups.pop(s, []), delete_ids)
        if groups:  # shards without a generation yet
            _Build(self, m.n, set(groups), m).run(d for s in sorted(groups) for d in groups[s])
        return len(docs)

    def _apply_gen(self, name: str, index: "tantivy.Index", docs: list[IndexDoc],
                   delete_ids: list[str]) -> None:
        index.reload()
        searcher = index.searcher()
        # Only issue deletes for ids this generation has (doc_freq counts
        # deleted docs too; a redundant delete is harmless).  Re-added ids are
        # deleted first so that adding is idempotent.
        to_delete = [
            i for i in dict.fromkeys([*delete_ids, *(d.id for d in docs)])
            if searcher.doc_freq("id", i) > 0
        ]
        if not to_delete and not docs:
            return
        writer = self.new_writer(index, BULK_HEAP_BYTES if len(docs) > BULK_DOCS else WRITER_HEAP_BYTES)
        try:
            for i in to_delete:
                writer.delete_documents_by_term("id", i)
            fmt = self.fmt(name)
            for d in docs:
                writer.add_document(_to_tantivy_doc(d, fmt))
            writer.commit()
        except BaseException as e:
            with contextlib.suppress(Exception):
                writer.rollback()
            with contextlib.suppress(Exception):
                writer.wait_merging_threads()
            if isinstance(e, ValueError):  # tantivy's error type
                raise SearchIndexError(f"{self.dir / name}: write failed: {e}") from e
            raise
        try:
            writer.wait_merging_threads()
            index.reload()
        except ValueError as e:
            raise SearchIndexError(f"{self.dir / name}: after commit: {e}") from e
        if len(docs) > BULK_DOCS:  # a big batch (import): one of many writers in a row
            del writer
            _trim_heap()


class _Build:
    """New generations for some (or all) shards of a sub-index, written from a
    stream of documents; :meth:`switch` publishes them with one write of
    ``CURRENT``.  Caller holds the sub-index lock throughout.

    For at most STREAM_SHARDS shards every document goes straight to an open
    writer of its shard (tantivy's indexing thread works while the caller
    reads the next documents).  For more, documents are buffered per shard
    (BUILD_BUFFER_CHARS characters of text in all), then each shard's buffer
    is written with its own writer, one writer at a time, so memory stays
    bounded whatever the shard count.  A shard that receives no document
    gets no generation (``-``), except in a one-shard layout, which always
    has one.
    """

    def __init__(self, sub: _Sub, n: int, shards: set[int] | None, base: _Manifest | None) -> None:
        self.sub, self.n, self.base = sub, n, base
        self.shards = set(range(n)) if shards is None else set(shards)
        self._next = sub.next_gen_number()  # before removing orphans: numbers never repeat
        sub.remove_orphans_of_current()
        self._bufs: dict[int, list[IndexDoc]] = {}
        self._chars = 0
        self._gens: dict[int, tuple[str, tantivy.Index]] = {}
        self._stream = len(self.shards) <= STREAM_SHARDS
        self._writers: dict[int, tantivy.IndexWriter] = {}

    def add(self, d: IndexDoc) -> None:
        s = _shard_index(d.ref, self.n)
        if s not in self.shards:
            raise ValueError(f"doc {d.id} (session {d.ref!r}) belongs to shard {s}, "
                             f"not to the shards rebuilt ({sorted(self.shards)})")
        if self._stream:
            name, index = self._gen(s)
            w = self._writers.get(s)
            if w is None:
                w = self._writers[s] = self.sub.new_writer(index, BULK_HEAP_BYTES)
            try:
                w.add_document(_to_tantivy_doc(d, self.sub.fmt(name)))
            except ValueError as e:  # tantivy's error type
                raise SearchIndexError(f"{self.sub.dir / name}: add failed: {e}") from e
            return
        self._bufs.setdefault(s, []).append(d)
        self._chars += len(d.text)
        if self._chars >= BUILD_BUFFER_CHARS:
            self._flush_all()

    def _gen(self, s: int) -> "tuple[str, tantivy.Index]":
        g = self._gens.get(s)
        if g is None:
            name = f"gen-{self._next}"
            self._next += 1
            path = self.sub.dir / name
            path.mkdir(parents=True)
            try:
                index = tantivy.Index(_schema(self.sub.new_fmt.analyzer), path=str(path), reuse=False)
            except ValueError as e:
                shutil.rmtree(path, ignore_errors=True)
                raise SearchIndexError(f"{path}: cannot create index: {e}") from e
            _register(index)
            self.sub._fmts[name] = self.sub.new_fmt
            g = self._gens[s] = (name, index)
        return g

    def _flush(self, name: str, index: "tantivy.Index", docs: list[IndexDoc]) -> None:
        """Write ``docs`` into generation ``name`` with a writer of its own
        (thread-safe: runs in the flush pool)."""
        writer = self.sub.new_writer(index, WRITER_HEAP_BYTES)
        fmt = self.sub.fmt(name)
        try:
            for d in docs:
                writer.add_document(_to_tantivy_doc(d, fmt))
            writer.commit()
            writer.wait_merging_threads()
        except BaseException as e:
            with contextlib.suppress(Exception):
                writer.rollback()
            with contextlib.suppress(Exception):
                writer.wait_merging_threads()
            if isinstance(e, ValueError):  # tantivy's error type
                raise SearchIndexError(f"{self.sub.dir / name}: write failed: {e}") from e
            raise
        finally:
            del writer
            _trim_heap()

    def _flush_all(self) -> None:
        """Write every buffer, FLUSH_THREADS shards at a time (tantivy works
        without the GIL; each shard has its own writer and directory)."""
        jobs = [(*self._gen(s), docs) for s, docs in sorted(self._bufs.items()) if docs]
        self._bufs, self._chars = {}, 0
        if len(jobs) <= 1 or FLUSH_THREADS <= 1:
            for job in jobs:
                self._flush(*job)
        else:
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(max_workers=FLUSH_THREADS) as pool:
                futures = [pool.submit(self._flush, *job) for job in jobs]
            for f in futures:
                f.result()  # the first error, once every flush has ended

    def commit(self) -> None:
        """Write everything (nothing is published yet)."""
        for s in sorted(self._writers):
            try:
                self._writers[s].commit()
                self._writers[s].wait_merging_threads()
            except ValueError as e:
                raise SearchIndexError(f"{self.sub.dir / self._gens[s][0]}: commit failed: {e}") from e
            del self._writers[s]
        self._flush_all()
        if self.n == 1 and 0 in self.shards:
            self._gen(0)  # a one-shard layout always names a generation
        for name, _index in self._gens.values():
            if _gen_files(self.sub.dir / name)[1]:  # merges left dead segment files
                self.sub.collect_garbage(name)

    def switch(self) -> None:
        """Point CURRENT at the new generations, delete the ones they replace."""
        gens = list(self.base.gens) if self.base is not None else [None] * self.n
        for s in self.shards:
            g = self._gens.get(s)
            gens[s] = g[0] if g else None
        m = _Manifest(tuple(gens))
        self.sub._write_manifest(m)
        with self.sub._mutex:
            for name, index in self._gens.values():
                with contextlib.suppress(ValueError):
                    index.reload()
                self.sub._cache[name] = index
            keep = {g for _s, g in m.live()}
            self.sub._cache = {k: v for k, v in self.sub._cache.items() if k in keep}
        self.sub.remove_orphans(keep)

    def abort(self) -> None:
        """Discard the new generations (the live ones stay)."""
        for w in self._writers.values():
            with contextlib.suppress(Exception):
                w.rollback()
            with contextlib.suppress(Exception):
                w.wait_merging_threads()
        gens, self._gens, self._bufs, self._writers = self._gens, {}, {}, {}
        for name, _index in gens.values():
            shutil.rmtree(self.sub.dir / name, ignore_errors=True)

    def run(self, docs: Iterable[IndexDoc]) -> None:
        """add() every doc, commit(), switch(); abort() on any error."""
        try:
            for d in docs:
                self.add(d)
            self.commit()
        except BaseException:
            self.abort()
            raise
        self.switch()


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

    def __init__(self, root: Path, *, lock_timeout: float = 10.0, analyzer: str = "stem",
                 shards: int | None = None) -> None:
        """``root``: the index directory (``<store>/index``), need not exist.
        ``lock_timeout``: seconds a writer waits for the sub-index lock.
        ``analyzer``: format of the generations this instance creates
        (``"stem"``, the default, or ``"words"``; see the module docstring);
        existing generations are read and written in their own format.
        ``shards``: number of shards of the turns sub-index when this
        instance lays it out anew (first write, ``rebuild``, ``purge("turn")``);
        None (default) is automatic: DEFAULT_TURN_SHARDS (16), doubled by a
        rebuild while the index it replaces has more than SHARD_TARGET_DOCS
        turn documents per shard (at most MAX_AUTO_SHARDS).  An existing
        layout is always read and written with the shard count it records.
        Raises ``ValueError`` for an unknown analyzer or a shard count
        outside 1..MAX_SHARDS."""
        if analyzer not in ANALYZERS:
            raise ValueError(f"analyzer must be one of {tuple(ANALYZERS)}, got {analyzer!r}")
        if shards is not None and (not isinstance(shards, int) or isinstance(shards, bool)
                                   or not 1 <= shards <= MAX_SHARDS):
            raise ValueError(f"shards must be an int in 1..{MAX_SHARDS} or None, got {shards!r}")
        self.root = Path(root)
        self._shards = shards
        self._subs = {k: _Sub(self.root, k, lock_timeout, analyzer) for k in KINDS}

    # -- shards ----------------------------------------------------------
    def _layout_shards(self, kind: str, prev_docs: int = 0) -> int:
        """Shard count of a new layout of ``kind`` replacing ``prev_docs`` docs."""
        if kind != "turn":
            return 1
        if self._shards is not None:
            return self._shards
        n = DEFAULT_TURN_SHARDS
        while n < MAX_AUTO_SHARDS and prev_docs > n * SHARD_TARGET_DOCS:
            n *= 2
        return n

    def _turn_n(self) -> int:
        m = self._subs["turn"].manifest()
        return m.n if m is not None else self._layout_shards("turn")

    def shard_of(self, session_id: str) -> int:
        """The shard (0-based) of the turns sub-index that holds the turns of
        ``session_id``: ``int.from_bytes(blake3(utf8(session_id))[:4], "big")
        % N`` with N the shard count recorded in ``turns/CURRENT`` (0 for an
        unsharded layout; this instance's count if there is no index yet).
        Raises ``IndexCorruptError`` for an unreadable ``CURRENT``."""
        return _shard_index(session_id, self._turn_n())

    def turn_shards(self, session_ids: Iterable[str]) -> set[int]:
        """The shards holding the turns of ``session_ids`` (see :meth:`shard_of`)."""
        n = self._turn_n()
        return {_shard_index(s, n) for s in session_ids}

    def turn_shard_count(self) -> int:
        """N, the number of shards of the turns sub-index (as :meth:`shard_of`)."""
        return self._turn_n()

    # -- writing ---------------------------------------------------------
    def add(self, docs: Iterable[IndexDoc], *, delete_ids: Iterable[str] = ()) -> int:
        """Index ``docs`` and delete the documents whose id is in
        ``delete_ids``; returns the number of docs added.

        Per touched generation (a sub-index, or one shard of the turns) this
        is one writer and one commit, deletes applied before adds (so an id
        both deleted and added ends up present once).  Adding an id that is
        already indexed replaces it (idempotent); a repeated id within
        ``docs`` is added once.  A batch touching several kinds commits
        facts, then turns, then history (not atomic across them; the index
        is derived data).  A delete only hides a document: its text stays in
        the segment files until ``purge``.

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
            if not kdocs and (not dels or sub.manifest() is None):
                continue
            with sub.locked():
                added += sub.apply(kdocs, dels, self._layout_shards(kind))
        return added

    def rebuild(self, docs: Iterable[IndexDoc], *,
                progress: Callable[[int], None] | None = None) -> int:
        """Replace the whole index (every sub-index) by ``docs``.

        Streams ``docs`` once into NEW generations (buffered per shard, see
        BUILD_BUFFER_CHARS), commits them, then switches each ``CURRENT``
        atomically and deletes the old generations (and any orphans).
        The turns get a new layout (shard count: see ``shards`` in the
        constructor).  Searches keep working on the old generations until the
        switch.  ``progress(n)`` is called with the number of docs read so
        far every 1000 docs and at the end (before the commit), the final
        call always carrying the total.
        Returns the number of docs indexed (repeated ids count once).

        If ``docs`` or ``progress`` raises, the new generations are
        discarded and the old index stays live.  Raises ``ValueError`` for
        a non-``IndexDoc`` item, ``IndexBusyError``, ``SearchIndexError``.
        """
        return self._rebuild({k: None for k in KINDS}, docs, progress)

    def purge(self, kind: str, survivors: Iterable[IndexDoc]) -> None:
        """Physically remove everything of sub-index ``kind`` that is not in
        ``survivors``: rebuild that sub-index alone from ``survivors`` into
        new generations, switch to them, delete the old generations.

        Afterwards no file under the sub-index holds the forgotten text or
        ids; check with ``verify_purged(forgotten_ids)``.  For "fact" this
        is cheap (facts are few) and empties "history" too.  For "turn" it
        rebuilds every shard (a new layout, as ``rebuild``); to forget turns
        of a few sessions use :meth:`purge_turn_shards`.

        Raises ``ValueError`` if ``kind`` is unknown or a survivor has
        another kind (nothing is switched then), ``IndexBusyError``,
        ``SearchIndexError``.
        """
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        if kind == "fact":  # superseded versions of a forgotten key must go too: drop them all
            self._rebuild({"fact": None, "history": None}, survivors, None)
        else:
            self._rebuild({kind: None}, survivors, None)

    def purge_turn_shards(self, shards: Iterable[int], survivors: Iterable[IndexDoc]) -> None:
        """Physically remove the turns of ``shards`` that are not in
        ``survivors``: each of these shards is rebuilt from its survivors
        into a new generation (none if it has no survivor), ``CURRENT`` is
        switched once for all of them, and their old generations are deleted.
        Every other shard keeps its generation untouched, so the cost is
        O(turns of the shards named).

        ``survivors`` must be exactly the turns to keep in those shards (every
        live turn of every session whose :meth:`shard_of` is in ``shards``);
        each must be a "turn" whose session lies in one of ``shards``.  With
        no turns index on disk nothing is written (nothing to purge, and an
        index of some shards only would be incomplete); an empty ``shards``
        writes nothing either.  When ``shards`` are all the shards of a
        layout with fewer shards than this instance would lay out (e.g. a
        one-shard index from before sharding), the turns are laid out anew
        as by ``purge("turn", survivors)``.

        Raises ``ValueError`` for a shard outside 0..N-1, a non-``IndexDoc``
        survivor, one of another kind or of another shard (nothing is
        switched then); ``IndexCorruptError`` if ``turns/CURRENT`` is
        unreadable (``rebuild`` repairs it); ``IndexBusyError``,
        ``SearchIndexError``.
        """
        shards = set(shards)
        for s in shards:
            if not isinstance(s, int) or isinstance(s, bool):
                raise ValueError(f"shard must be an int, got {s!r}")
        sub = self._subs["turn"]
        cur = sub.manifest()
        if cur is not None and shards == set(range(cur.n)) and cur.n < self._layout_shards("turn"):
            # every shard of a layout with fewer shards than wanted (e.g. one
            # shard, indexed before sharding): the survivors are all the turns,
            # so lay them out anew, as purge("turn") does
            self._rebuild({"turn": None}, survivors, None)
            return
        if cur is None or not shards:
            n = self._turn_n()
            self._check_shards(shards, n)
            for d in survivors:  # validate, write nothing
                self._check_doc(d, ("turn",))
                if _shard_index(d.ref, n) not in shards:
                    raise ValueError(f"doc {d.id} is not in the shards {sorted(shards)}")
            return
        with sub.locked():
            m = sub.manifest()
            if m is None:
                return
            self._check_shards(shards, m.n)
            build = _Build(sub, m.n, shards, m)
            seen: set[str] = set()

            def docs() -> Iterator[IndexDoc]:
                for d in survivors:
                    self._check_doc(d, ("turn",))
                    if d.id not in seen:
                        seen.add(d.id)
                        yield d

            build.run(docs())

    @staticmethod
    def _check_shards(shards: set[int], n: int) -> None:
        for s in shards:
            if not 0 <= s < n:
                raise ValueError(f"shard {s} out of range: the turns index has {n} shard(s)")

    @staticmethod
    def _check_doc(d: object, kinds) -> None:
        if not isinstance(d, IndexDoc):
            raise ValueError(f"needs IndexDoc items, got {type(d).__name__}")
        if d.kind not in kinds:
            raise ValueError(f"doc {d.id} has kind {d.kind!r}, expected one of {tuple(kinds)}")

    def _doc_total(self, sub: _Sub) -> int:
        """Documents (deleted ones included) in the live generations of ``sub``; 0 if unreadable."""
        try:
            opened = sub.open_current()
            if opened is None:
                return 0
            total = 0
            for index in opened[1].values():
                index.reload()
                s = index.searcher()
                total += int(s.num_docs)
            return total
        except (SearchIndexError, ValueError):
            return 0

    def _rebuild(self, kinds: dict[str, None], docs: Iterable[IndexDoc],
                 progress: Callable[[int], None] | None) -> int:
        with contextlib.ExitStack() as stack:
            for k in KINDS:  # fixed order: no lock-order deadlock
                if k in kinds:
                    stack.enter_context(self._subs[k].locked())
            builds: dict[str, _Build] = {}
            try:
                for k in KINDS:
                    if k in kinds:
                        sub = self._subs[k]
                        builds[k] = _Build(sub, self._layout_shards(k, self._doc_total(sub)), None, None)
                seen: set[str] = set()
                n = 0
                for d in docs:
                    self._check_doc(d, tuple(builds))
                    if d.id in seen:
                        continue
                    seen.add(d.id)
                    builds[d.kind].add(d)
                    n += 1
                    if progress is not None and n % _PROGRESS_EVERY == 0:
                        progress(n)
                if progress is not None and (n == 0 or n % _PROGRESS_EVERY != 0):
                    progress(n)
                for b in builds.values():
                    b.commit()
            except BaseException:
                for b in builds.values():
                    b.abort()
                raise
            for b in builds.values():
                b.switch()
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
        False keeps the ``QUERY_STOPWORDS`` words.  Every shard of the turns
        is searched; scores use collection-wide IDF (module docstring).

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
        # Open a consistent searcher per live generation (sub-index or
        # shard) first: the term statistics of all of them are needed to
        # score on collection-wide IDF (otherwise a rare word in the small
        # facts index and a common one in the turns index would not compare).
        opened = self._open_searchers(kinds)
        if not opened:
            return []
        # word i in each generation's own term form
        forms = [[o.fmt.forms(toks) for toks in words] for o in opened]
        joins = [[o.fmt.joined(toks) for toks in words] for o in opened]
        num_docs = [int(o.searcher.num_docs) for o in opened]
        df: list[dict[str, int]] = []
        for i, o in enumerate(opened):
            terms = {t for f in forms[i] for t in f} | {j for j in joins[i] if j is not None}
            df.append({t: int(o.searcher.doc_freq("text", t)) for t in terms})
        total_docs = sum(num_docs)

        cache: dict[tuple[int, int | None], float] = {}

        def glob_idf(w: int, pos: int | None) -> float:
            """Collection-wide idf of word w's token at pos (None: its joined form)."""
            v = cache.get((w, pos))
            if v is None:
                n = sum(df[j][joins[j][w] if pos is None else forms[j][w][pos]] for j in range(len(opened))
                        if pos is not None or joins[j][w] is not None)
                v = cache[(w, pos)] = _idf(n, total_docs)
            return v

        found: list[tuple[float, int, object]] = []  # (score, generation, doc address)
        for i, o in enumerate(opened):
            if num_docs[i] == 0:
                continue

            def boost(w: int, joined: bool, i: int = i) -> float:
                if len(opened) == 1:
                    return 1.0
                if joined:
                    local = _idf(df[i][joins[i][w]], num_docs[i])
                    glob = glob_idf(w, None)
                else:
                    local = sum(_idf(df[i][t], num_docs[i]) for t in forms[i][w])
                    glob = sum(glob_idf(w, p) for p in range(len(forms[i][w])))
                return glob / local if local > 0 else 1.0

            schema = o.index.schema
            q = _build_query(schema, forms[i], joins[i], boost)
            if q is None:
                continue
            filters = _filter_clauses(schema, projects, exclude_refs, roles)
            if filters:
                q = tantivy.Query.boolean_query([(tantivy.Occur.Must, q), *filters])
            try:
                found += [(score, i, addr) for score, addr in o.searcher.search(q, limit, count=False).hits]
            except ValueError as e:
                raise IndexCorruptError(f"search in {o.sub.dir / o.name} failed: {e}") from e
        # Load the stored fields of the best `limit` only (and of any tied
        # with the last of them: ties are broken by time and id).
        found.sort(key=lambda f: -f[0])
        if len(found) > limit:
            cut = found[limit - 1][0]
            found = [f for f in found if f[0] >= cut]
        hits: list[Hit] = []
        for score, i, addr in found:
            try:
                hits.append(_hit(opened[i].searcher.doc(addr), score))
            except ValueError as e:
                raise IndexCorruptError(f"reading {opened[i].sub.dir / opened[i].name} failed: {e}") from e
        hits.sort(key=lambda h: (-h.score, -h.time, h.id))
        return hits[:limit]

    def _open_searchers(self, kinds: Iterable[str]) -> list[_Open]:
        """A searcher on every live generation of ``kinds`` (every shard)."""
        opened: list[_Open] = []
        for k in dict.fromkeys(kinds):
            sub = self._subs[k]
            cur = sub.open_current()
            if cur is None:
                continue
            m, indexes = cur
            for s, name in m.live():
                index = indexes[name]
                try:
                    sub.reload_if_changed(name, index)
                    opened.append(_Open(sub, name, s, index, index.searcher(), sub.fmt(name)))
                except ValueError as e:
                    raise IndexCorruptError(f"cannot read {sub.dir / name}: {e}") from e
        return opened

    def has_seq(self, kind: str = "turn") -> bool:
        """Whether the live generations of ``kind`` record turn positions
        (the ``seq`` field; False if one is a ``mem_words`` generation, or
        there is none)."""
        sub = self._subs[kind]
        opened = sub.open_current()
        if opened is None or not opened[0].live():
            return False
        return all(sub.fmt(name).has_seq for _s, name in opened[0].live())

    def turns_at(self, session: str, seqs: Iterable[int]) -> dict[int, Hit]:
        """The indexed turns of ``session`` at positions ``seqs``:
        ``{seq: Hit}`` (score 0.0); positions not indexed are absent, and a
        ``mem_words`` generation (no ``seq`` field) returns ``{}``.  Used to
        find a hit's neighbouring turns; reads the session's shard only.
        Raises ``IndexCorruptError``."""
        want = sorted({int(n) for n in seqs if int(n) >= 0})
        sub = self._subs["turn"]
        cur = sub.open_current() if want else None
        if cur is None:
            return {}
        m, indexes = cur
        name = m.gens[_shard_index(session, m.n)]
        if name is None or not sub.fmt(name).has_seq:
            return {}
        index = indexes[name]
        try:
            sub.reload_if_changed(name, index)
            searcher = index.searcher()
        except ValueError as e:
            raise IndexCorruptError(f"cannot read {sub.dir / name}: {e}") from e
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
            raise IndexCorruptError(f"search in {sub.dir / name} failed: {e}") from e
        return out

    def term_stats(self, words: Iterable[str], kinds: tuple[str, ...] = KINDS) -> tuple[int, dict[str, int]]:
        """Collection statistics for scoring outside tantivy: ``(number of
        documents, {word: document frequency})`` over the sub-indexes
        ``kinds`` (all shards), each word (a :func:`tokenize` token) counted
        in the term form of each generation.  Deleted-but-unpurged documents
        count, as in BM25 itself.  Raises ``IndexCorruptError``."""
        words = list(dict.fromkeys(words))
        n = 0
        out = {w: 0 for w in words}
        for o in self._open_searchers(kinds):
            n += int(o.searcher.num_docs)
            for w, t in zip(words, o.fmt.forms(tuple(words))):
                out[w] += int(o.searcher.doc_freq("text", t))
        return n, out

    def doc_count(self, kinds: tuple[str, ...] = ("fact", "turn")) -> dict[str, int]:
        """Live (not deleted) documents per kind: ``{"fact": n, "turn": m}``
        (pass ``kinds=KINDS`` to count ``history`` too; all shards summed);
        0 for a missing sub-index.  Raises ``IndexCorruptError``."""
        out = {k: 0 for k in kinds}
        for o in self._open_searchers(kinds):
            out[o.sub.kind] += int(o.searcher.num_docs)
        return out

    def missing_turns(self, heads: Mapping[str, str]) -> set[str]:
        """The sessions of ``heads`` (session id -> turn id) whose turn is not
        in the index (looked up in the session's shard; a deleted but not
        purged document counts as present).  A cheap check that the index
        keeps up with the sessions, e.g. before trusting
        :meth:`substring_candidates`.  Raises ``IndexCorruptError``."""
        cur = self._subs["turn"].open_current()
        if cur is None:
            return set(heads)
        m, indexes = cur
        searchers: dict[str, tantivy.Searcher] = {}
        out: set[str] = set()
        for sid, tid in heads.items():
            name = m.gens[_shard_index(sid, m.n)]
            if name is None:
                out.add(sid)
                continue
            searcher = searchers.get(name)
            if searcher is None:
                indexes[name].reload()  # exact: never trust a cached view here
                searcher = searchers[name] = indexes[name].searcher()
            if not searcher.doc_freq("id", tid):
                out.add(sid)
        return out

    def substring_candidates(self, text: str, kind: str = "turn") -> set[str] | None:
        """Ids of the documents of ``kind`` that may contain ``text`` as a
        substring, ignoring case and whitespace runs (the rule of
        ``objects.normalize_value``: NFC, case-folded, whitespace runs as
        one space); None when the index cannot answer exactly.

        Never misses a document of the index that contains the text; may
        return others (the caller checks each against its text).  Uses the
        ``plain`` field (the case-folded text, unstemmed, tokens up to
        PLAIN_MAX_TOKEN_BYTES): the inner tokens of the normalized text must
        be whole tokens of the document, its first token the end of one,
        its last the start of one (a single token: inside one); a document
        flagged ``long`` (may hold a token too long for the field) passes
        the first/last-token tests.  The algorithm and its proof are in the
        module docstring.

        None: no index of ``kind``; a live generation without the ``plain``
        field (built before it existed: ``mem reindex`` adds it); no token
        in the text; a token of PLAIN_MAX_TOKEN_BYTES or more; an
        unencodable text.  Raises ``ValueError`` for an unknown kind,
        ``IndexCorruptError``.
        """
        hits = self.substring_candidate_refs(text, kind)
        return None if hits is None else set(hits)

    def substring_candidate_refs(self, text: str, kind: str = "turn") -> dict[str, str] | None:
        """:meth:`substring_candidates` with each candidate's stored ``ref``
        (session id or fact key): ``{id: ref}``, or None."""
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}; expected one of {KINDS}")
        cond = _substring_conditions(text)
        if cond is None:
            return None
        exact, edges = cond
        sub = self._subs[kind]
        if sub.manifest() is None:
            return None
        opened = self._open_searchers((kind,))
        if not all(o.fmt.has_plain for o in opened):
            return None
        out: dict[str, str] = {}
        queries: list[tuple[tantivy.Schema, tantivy.Query]] = []  # equal schemas share a query
        for o in opened:
            n = int(o.searcher.num_docs)
            if n == 0:
                continue
            schema = o.index.schema
            q = next((q for sc, q in queries if sc == schema), None)
            if q is None:
                try:
                    q = _substring_query(schema, exact, edges)
                except ValueError:  # e.g. an automaton too large for tantivy's regex
                    return None
                queries.append((schema, q))
            try:
                for _score, addr in o.searcher.search(q, n, count=False).hits:
                    doc = o.searcher.doc(addr)
                    out[doc.get_first("id")] = doc.get_first("ref") or ""
            except ValueError as e:
                raise IndexCorruptError(f"search in {o.sub.dir / o.name} failed: {e}") from e
        return out

    def verify_purged(self, ids: Iterable[str]) -> list[str]:
        """Check that forgotten ``ids`` are physically gone; returns a list
        of human-readable problems, ``[]`` when clean.

        Reported, for each existing sub-index and each live generation (every
        shard): ``doc_freq(id) != 0`` (a deleted doc still counts); a
        segment in ``meta.json`` that has deletes (its files may hold
        deleted text); a file in the generation dir that belongs to no live
        segment (ignoring ``meta.json``, ``.managed.json`` and lock files)
        and that tantivy's garbage collection does not remove; a ``gen-*``
        dir that ``CURRENT`` does not name.  Raises ``ValueError`` for a
        malformed id, ``IndexCorruptError``.
        """
        ids = list(ids)
        for i in ids:
            if not isinstance(i, str) or not _ID_RE.match(i):
                raise ValueError(f"id must be 64 lowercase hex, got {i!r}")
        problems: list[str] = []
        for k, sub in self._subs.items():
            cur = sub.open_current()
            live = set(cur[1]) if cur else set()
            for name in sub.gen_dirs():
                if name not in live:
                    problems.append(f"{k}: orphan generation dir {sub.dir / name}")
            if cur is None:
                continue
            m, indexes = cur
            for s, name in m.live():
                label = k if m.n == 1 else f"{k} shard {s}"
                gen_dir = sub.dir / name
                deletes, stray = _gen_files(gen_dir)
                if stray:  # dead segment files: let tantivy collect them, then look again
                    with sub.locked():
                        sub.collect_garbage(name)
                    deletes, stray = _gen_files(gen_dir)
                index = indexes[name]
                index.reload()
                searcher = index.searcher()
                for i in ids:
                    df = searcher.doc_freq("id", i)
                    if df:
                        problems.append(f"{label}: doc_freq(id={i}) = {df}")
                problems += [f"{label}: segment {sid} has deletes {n} (deleted text still in its files)"
                             for sid, n in deletes]
                problems += [f"{label}: file {gen_dir / f} belongs to no live segment" for f in stray]
        return problems

    def term_doc_freq(self, text: str) -> dict[str, int]:
        """Document frequency of every token of ``text`` in the ``text`` field,
        summed over the sub-indexes and shards, deleted-but-unpurged
        documents included.

        ``{"zebraquokka": 0, ...}``: a forgotten word that no surviving
        document contains must count 0 (it is then absent from the term
        dictionaries, which a raw byte scan cannot show).  In a ``mem_stem``
        generation a token is looked up by its stem, so the count is that of
        the documents holding any word with the same stem: an upper bound of
        the token's own count, and 0 still proves the word is gone.
        """
        out = {tok: 0 for tok in tokenize(text)}
        toks = tuple(out)
        for o in self._open_searchers(KINDS):
            for tok, term in zip(toks, o.fmt.forms(toks)):
                out[tok] += o.searcher.doc_freq("text", term)
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


def _gen_files(gen_dir: Path) -> tuple[list[tuple[str, object]], list[str]]:
    """(segments of ``meta.json`` with deletes as (segment id, deletes),
    files of the generation dir that belong to no live segment)."""
    try:
        meta = json.loads((gen_dir / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise IndexCorruptError(f"{gen_dir}/meta.json unreadable: {e}") from e
    live: set[str] = set()
    deletes = []
    for seg in meta.get("segments", []):
        sid = str(seg.get("segment_id", "")).replace("-", "")
        live.add(sid)
        if seg.get("deletes"):
            deletes.append((sid, seg["deletes"]))
    stray = [f for f in sorted(os.listdir(gen_dir))
             if f not in ("meta.json", ".managed.json") and not f.endswith(".lock")
             and f.split(".", 1)[0] not in live]
    return deletes, stray


# --------------------------------------------------------------------------
# substring prefilter


def _word_char(analyzer: "tantivy.TextAnalyzer", c: str) -> bool:
    """Whether ``c`` is a token character of ``analyzer``: ``"a" + c`` is one token."""
    return analyzer.analyze("a" + c) == ["a" + c]


def _rx_escape(token: str) -> str:
    """``token`` as a literal of tantivy's regex syntax (Rust regex)."""
    return "".join(c if ("a" <= c <= "z" or "0" <= c <= "9") else "\\x{%X}" % ord(c) for c in token)


def _substring_conditions(text: str) -> tuple[list[str], list[str]] | None:
    """(plain terms every candidate must hold, regexes over plain terms of
    which every candidate not flagged ``long`` must hold a match) for a
    substring search of ``text``; None when the plain field cannot answer."""
    from objstore.core.objects import normalize_value
    if not isinstance(text, str):
        raise ValueError("text must be str")
    norm = normalize_value(text)
    if not norm:
        return None
    try:
        with _ANALYZER_LOCK:
            a = _analyzer("plain")
            toks = list(a.analyze(norm))
            if not toks:
                return None
            left_open = _word_char(a, norm[0])
            right_open = _word_char(a, norm[-1])
        if any(len(t.encode("utf-8")) >= PLAIN_MAX_TOKEN_BYTES for t in toks):
            return None
    except (UnicodeError, ValueError):  # e.g. a lone surrogate
        return None
    exact: list[str] = []
    edges: list[str] = []
    last = len(toks) - 1
    for i, t in enumerate(toks):
        lo = i == 0 and left_open
        ro = i == last and right_open
        if lo or ro:
            edges.append((".*" if lo else "") + _rx_escape(t) + (".*" if ro else ""))
        else:
            exact.append(t)
    return list(dict.fromkeys(exact)), list(dict.fromkeys(edges))


def _substring_query(schema: "tantivy.Schema", exact: list[str], edges: list[str]) -> "tantivy.Query":
    """AND(term plain:t for t in exact) AND (AND(regex plain:r for r in
    edges) OR flags:long), constant score."""
    must = [tantivy.Query.term_query(schema, "plain", t) for t in exact]
    if edges:
        rx = [tantivy.Query.regex_query(schema, "plain", r) for r in edges]
        e = rx[0] if len(rx) == 1 else tantivy.Query.boolean_query([(tantivy.Occur.Must, q) for q in rx])
        must.append(tantivy.Query.boolean_query([
            (tantivy.Occur.Should, e),
            (tantivy.Occur.Should, tantivy.Query.term_query(schema, "flags", _FLAG_LONG)),
        ]))
    q = must[0] if len(must) == 1 else tantivy.Query.boolean_query([(tantivy.Occur.Must, m) for m in must])
    return tantivy.Query.const_score_query(q, 1.0)


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
