"""Schema and documents of the search index.

The records callers pass and get back (:class:`IndexDoc`, :class:`Hit`),
the formats a generation may have been built in (:class:`GenFormat`), the
tantivy schema of each and the conversion of a record to a tantivy
document.  The schema is specified in ``docs/format.md`` ("Search index",
"Schema").
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import tantivy

from objstore.core.ids import is_full_id
from objstore.core.record import Frozen, set_fields
from objstore.core.text import confusable_fold, confusable_lines, fold, reads_differently
from objstore.index.analysis import (
    ANALYZERS,
    PLAIN_ANALYZER,
    PLAIN_STOP_ANALYZER,
    PAIRS_ANALYZER,
    MAX_TOKEN_BYTES,
    PLAIN_MAX_TOKEN_BYTES,
    SIMPLE_STEM_ANALYZER,
    SIMPLE_STEM_DIFF_ANALYZER,
    SIMPLE_STEM_VOCAB_ANALYZER,
    SIMPLE_STEM_COLID_ANALYZER,
    SIMPLE_STEM_FAST_ANALYZER,
    SIMPLE_STEM_KEYED_ANALYZER,
    SIMPLE_STEM_SHORT_ANALYZER,
    SIMPLE_STEM_STOP_ANALYZER,
    GREEK_FOLD_SUFFIX,
    dotted_i_variant,
    glued_pairs,
    greek_fold,
    joined_token,
    lower_folds,
    nfc,
    plain_aligned,
    plain_differing_words,
    sigma_variant,
    simple_text,
    simple_tokens,
    stem_tokens,
)
from objstore.index.docids import (
    FAST_ID_KEY_BYTES,
    ID_KEY_BYTES,
    OID_COLUMNS,
    SHORT_ID_KEY_BYTES,
    PREFIX_HEX,
    STAND_IN_TAIL,
    column_values,
    delete_object,
    doc_object_id,
    id_key,
    expand,
    id_query,
    ids_at,
    oid_columns,
)
from objstore.index.errors import IndexCorruptError

__all__ = [
    "FLAG_LONG",
    "FORMATS",
    "ID_KEY_BYTES",
    "FAST_ID_KEY_BYTES",
    "SHORT_ID_KEY_BYTES",
    "OID_COLUMNS",
    "PREFIX_HEX",
    "STAND_IN_TAIL",
    "PlainCarriers",
    "id_key",
    "GenFormat",
    "Hit",
    "IndexDoc",
    "KINDS",
    "create_index",
    "delete_object",
    "doc_object_id",
    "hit_from_doc",
    "hits_at",
    "id_query",
    "expand",
    "ids_at",
    "oid_columns",
    "read_format",
    "reading_words",
    "new_format",
    "schema_for",
    "to_tantivy_doc",
]

#: Document kinds, one sub-index each.
KINDS: tuple[str, ...] = ("fact", "turn", "history")
#: Value of the ``flags`` field of a document whose case-folded body is
#: PLAIN_MAX_TOKEN_BYTES or more (``plain`` may lack one of its tokens).
FLAG_LONG = "long"
# --------------------------------------------------------------------------
# records


class IndexDoc(Frozen):
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

    __slots__ = ("id", "kind", "ref", "time", "project", "role", "text", "seq")

    def __init__(self, id: str, kind: str, ref: str, time: int, project: str, role: str, text: str,
                 seq: int = 0) -> None:
        set_fields(self, id, kind, ref, time, project, role, text, seq)
        if not isinstance(self.id, str) or not is_full_id(self.id):
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

    @classmethod
    def unchecked(cls, id: str, kind: str, ref: str, time: int, project: str, role: str, text: str,
                  seq: int = 0) -> "IndexDoc":
        """An ``IndexDoc`` of values the caller has already checked (the
        turn appender's: a turn it has just validated and written, ``id``
        from its hash), built without the checks of ``__init__`` (they cost
        more than the rest of making an import's document)."""
        d = cls.__new__(cls)
        set_fields(d, id, kind, ref, time, project, role, text, seq)
        return d


class Hit(Frozen):
    """One search result: the stored metadata of an ``IndexDoc`` plus its
    BM25 ``score`` (float, higher is better; comparable within one query).
    ``seq`` is 0 for facts and for hits of a ``mem_words`` generation."""

    __slots__ = ("id", "kind", "ref", "time", "project", "role", "score", "seq")

    def __init__(self, id: str, kind: str, ref: str, time: int, project: str, role: str, score: float,
                 seq: int = 0) -> None:
        set_fields(self, id, kind, ref, time, project, role, score, seq)


# --------------------------------------------------------------------------
# schema / tantivy helpers


class GenFormat(Frozen):
    """What a generation was built with: ``analyzer`` of ``text`` ("stem" or
    "words"), ``has_seq``: whether it has the ``seq`` field, ``has_plain``:
    whether it has the ``plain`` + ``flags`` fields (substring prefilter),
    ``no_escapes``: whether its bodies had terminal escape sequences removed
    before analysis (the ``noesc`` marker field; older generations index
    ``\x1b[1mword`` as ``1mword`` until ``mem reindex``), ``id_bytes``:
    whether its ``id`` field holds the 32 raw bytes of the object id (a
    bytes field) instead of its 64 hex digits (a raw text field; older
    generations, still read and written as they are), ``positions``:
    whether ``text`` records token positions (multi-token words are then
    phrase queries; older generations), ``has_pairs``: whether it has the
    ``pairs`` field (the adjacent-token pairs of glued words, which answer
    multi-token words in a generation without positions), ``simple``:
    whether ``text`` was analysed by ``mem_simple_stem`` (tantivy's
    ``simple`` tokenizer over :func:`~objstore.index.analysis.simple_text`;
    ``analyzer`` is then "stem") instead of the ``mem_words`` regex: a
    query token is looked up there as its
    :func:`~objstore.index.analysis.simple_tokens`;
    ``id_key_field``: whether the indexed ``id`` holds the 16-byte
    :func:`id_key` of the id (indexed, not stored) and a stored-only bytes
    field ``oid`` its 32 raw bytes (``id_bytes`` is then True too); ``text_norms_only``: whether ``text`` is the only field
    with fieldnorms (one byte per document and field; the filters and the
    prefilter never read one), set in ``meta.json`` by
    :func:`create_index` since tantivy-py 0.27 cannot ask for it;
    ``fast_time_seq``: whether ``time`` and ``seq`` are fast fields only,
    not stored (:func:`hits_at` reads them from their columns);
    ``plain_stop``: whether ``plain`` is analysed by ``mem_plain_s`` (the
    words of :func:`~objstore.index.analysis.plain_stop_words` left out:
    ``text`` holds them) and a field ``plainall`` (``mem_plain``, every
    token) takes the case-folded body instead where it is not
    :func:`~objstore.index.analysis.plain_aligned`; ``text`` is then named
    ``mem_simple_stem_s`` (``id_key_field`` is True too); ``fast_oid``:
    the object id is not stored but held in four u64 fast fields
    (:data:`OID_COLUMNS`; :func:`ids_at` reads them) and the ``id`` key is
    FAST_ID_KEY_BYTES long; ``text`` is then named ``mem_simple_stem_f``
    (``plain_stop`` is True too); ``short_key``: a ``fast_oid``
    generation whose ``id`` key is SHORT_ID_KEY_BYTES long; ``text`` is
    then named ``mem_simple_stem_t``; ``plain_diff``: a ``short_key``
    generation whose ``plain`` holds only the words of a body that ``text``
    does not hold as themselves (:func:`~objstore.index.analysis.plain_differing`;
    the substring prefilter asks ``text`` for any word); ``text`` is then
    named ``mem_simple_stem_d``; ``plain_vocab``: a ``plain_diff``
    generation whose ``plain`` holds a word the stemmer changes (ASCII,
    shorter than MAX_TOKEN_BYTES) only in the documents a writer's
    :class:`PlainCarriers` lets carry it (at least the first of each
    session, by ``seq``, among those it wrote; every document that other
    writers add carries all its words); the substring prefilter asks
    ``text`` for the stem of every such ``plain`` term an open token
    matches; ``text`` is then named ``mem_simple_stem_v``; ``col_id``: a
    ``plain_vocab`` generation without the ``id`` field: an object's
    documents are found by the :data:`OID_COLUMNS` alone (:func:`id_query`,
    :func:`~objstore.index.genfiles.held_ids`); ``text`` is then named ``mem_simple_stem_c``;
    ``prefix_id``: a ``col_id`` generation whose columns hold the id's
    first 16 bytes only (``oid0``, ``oid1``; no ``oid2``, ``oid3``): a
    document's whole id comes from the object store (:func:`ids_at`);
    ``no_freqs``: ``text`` is indexed with document ids only (tantivy's
    ``basic`` record, no term frequencies: BM25 counts each matching term
    once; the turns' generations since session 25, read from the
    ``record`` in ``meta.json``); ``greek_fold``: a ``simple``
    generation whose ``text`` (and ``pairs``) had the diacritics of
    Greek letters dropped (:func:`~objstore.index.analysis.greek_fold`;
    ``plain`` keeps them): its ``text`` tokenizer's name ends in
    ``GREEK_FOLD_SUFFIX`` (``_g``; since session 29, test26b W5), and a
    query word is looked up there folded, elsewhere as it is spelled.
    Formats: ``docs/format.md``, "Search index", "Index formats"."""

    __slots__ = ("analyzer", "has_seq", "has_plain", "no_escapes", "id_bytes", "positions", "has_pairs",
                 "simple", "id_key_field", "text_norms_only", "fast_time_seq", "plain_stop", "fast_oid",
                 "short_key", "plain_diff", "plain_vocab", "col_id", "prefix_id", "no_freqs", "greek_fold")

    def __init__(self, analyzer: str, has_seq: bool, has_plain: bool = False, no_escapes: bool = False,
                 id_bytes: bool = False, positions: bool = True, has_pairs: bool = False,
                 simple: bool = False, id_key_field: bool = False, text_norms_only: bool = False,
                 fast_time_seq: bool = False, plain_stop: bool = False, fast_oid: bool = False,
                 short_key: bool = False, plain_diff: bool = False, plain_vocab: bool = False,
                 col_id: bool = False, prefix_id: bool = False, no_freqs: bool = False,
                 greek_fold: bool = False) -> None:
        set_fields(self, analyzer, has_seq, has_plain, no_escapes, id_bytes, positions, has_pairs, simple,
                   id_key_field, text_norms_only, fast_time_seq, plain_stop, fast_oid, short_key, plain_diff,
                   plain_vocab and plain_diff,   # a format without plain_diff has no vocabulary either
                   col_id and plain_vocab and plain_diff, prefix_id and col_id and plain_vocab and plain_diff,
                   no_freqs and not positions,   # positions come with frequencies (tantivy's records)
                   greek_fold and simple)        # (a suffix of the simple tokenizers' names)

    @property
    def tokenizer(self) -> str:
        """The tokenizer name of this format's ``text`` field (as in ``meta.json``):
        with ``greek_fold``, that of the format without it and GREEK_FOLD_SUFFIX."""
        if self.greek_fold:
            return self.replace(greek_fold=False).tokenizer + GREEK_FOLD_SUFFIX
        if self.simple:
            if self.col_id:
                return SIMPLE_STEM_COLID_ANALYZER
            if self.plain_vocab:
                return SIMPLE_STEM_VOCAB_ANALYZER
            if self.plain_diff:
                return SIMPLE_STEM_DIFF_ANALYZER
            if self.short_key:
                return SIMPLE_STEM_SHORT_ANALYZER
            if self.fast_oid:
                return SIMPLE_STEM_FAST_ANALYZER
            if self.plain_stop:
                return SIMPLE_STEM_STOP_ANALYZER
            return SIMPLE_STEM_KEYED_ANALYZER if self.id_key_field else SIMPLE_STEM_ANALYZER
        return ANALYZERS[self.analyzer]

    def tokens(self, toks: tuple[str, ...]) -> tuple[str, ...]:
        """:func:`~objstore.index.analysis.tokenize` tokens as this format
        cuts them (before stemming): themselves, but in a ``simple``
        format a non-ASCII token may become several
        (:func:`~objstore.index.analysis.simple_tokens`)."""
        if not self.simple or all(t.isascii() for t in toks):
            return toks
        return tuple(p for t in toks for p in simple_tokens(t))

    def token_terms(self, tok: str) -> tuple[str, ...]:
        """The terms of one :func:`~objstore.index.analysis.tokenize` token
        in this format (one, or in a ``simple`` format possibly several)."""
        return self.forms(self.tokens((tok,)))

    def key(self, oid: str) -> "str | bytes":
        """The term of object id ``oid`` (64 lowercase hex) in this
        generation's ``id`` field: its :func:`id_key` (``id_key_field``),
        its raw 32 bytes, or the hex itself.  Not for a ``col_id``
        generation (it has no ``id`` field: :func:`id_query`)."""
        if self.col_id:
            raise ValueError("a col_id generation has no id term")
        if self.id_key_field:
            return id_key(oid, SHORT_ID_KEY_BYTES if self.short_key else
                          FAST_ID_KEY_BYTES if self.fast_oid else ID_KEY_BYTES)
        return bytes.fromhex(oid) if self.id_bytes else oid

    def forms(self, toks: tuple[str, ...]) -> tuple[str, ...]:
        """Word tokens (as :meth:`tokens` gives them) in this generation's term form."""
        return stem_tokens(toks) if self.analyzer == "stem" else toks

    def word_terms(self, toks: tuple[str, ...]) -> tuple[str, ...]:
        """The terms of one query word of :func:`tokenize` tokens ``toks``
        in this generation (:meth:`tokens`, then :meth:`forms`)."""
        return self.forms(self.tokens(toks))

    def joined(self, toks: tuple[str, ...]) -> str | None:
        """The alternative term of a query word of :func:`tokenize`
        tokens ``toks``: the concatenation (:func:`joined_token` of its
        :meth:`tokens`), or for a one-token Greek word the other form of its
        final sigma (:func:`~objstore.index.analysis.sigma_variant`), in this
        generation's term form; or None.  A one-token word holding ``i``
        has the other spelling of a Turkish ``İ`` instead
        (:func:`~objstore.index.analysis.dotted_i_variant`)."""
        j = joined_token(self.tokens(toks)) or sigma_variant(toks) or dotted_i_variant(toks)
        if j is None or self.analyzer != "stem":
            return j
        return stem_tokens((j,))[0]


#: The format of new generations per analyzer option (those of the turns:
#: :func:`new_format`).  The turns' generations are ``plain_diff`` since
#: session 16 (built in session 15: −958 KB on the corpus's store for
#: ~0.5 s of import CPU; ``docs/benchmarks.md``, "Session 16 (branch
#: ``size16``)").
FORMATS = {"stem": GenFormat("stem", True, True, True, True, positions=False, has_pairs=True, simple=True,
                            id_key_field=True, text_norms_only=True, fast_time_seq=True, plain_stop=True,
                            fast_oid=True, short_key=True, plain_diff=True, plain_vocab=True, col_id=True,
                            greek_fold=True),
           "words": GenFormat("words", False, False)}


def new_format(analyzer: str, kind: str, prefix_id: bool = False) -> GenFormat:
    """The format of new generations of sub-index ``kind`` ("fact", "turn" or
    "history") with ``analyzer`` option: :data:`FORMATS` for the turns
    without the ``pairs`` field (since session 7: a multi-token word is the
    conjunction of its terms there, its glued form checked against the
    hits' text when the caller can read it, ``SearchIndex.search``'s
    ``texts``), and for the facts without ``plain_stop`` (a few hundred
    documents, where dropping words saves little, and a ``remember`` would
    otherwise build ``mem_plain_s``: ~3-8 ms) nor ``fast_oid`` (which
    goes with it); ``prefix_id``: the turns' generations hold the first
    16 bytes of an id only (:attr:`GenFormat.prefix_id`; for an index
    that can ask its store for the rest); the turns' ``text`` without term
    frequencies (:attr:`GenFormat.no_freqs`, since session 25: −1.6 MB of
    the benchmark corpus's 19.4 MB store; LoCoMo's R@10 0.772 → 0.768, the
    other evaluations unchanged: ``docs/benchmarks.md``, "Session 25
    (branch ``sz25``)").  ``KeyError``
    for an unknown analyzer."""
    fmt = FORMATS[analyzer]
    return fmt.replace(has_pairs=False, prefix_id=prefix_id, no_freqs=True) if kind == "turn" else fmt.replace(plain_stop=False, fast_oid=False, short_key=False,
                                                                            plain_diff=False, plain_vocab=False, col_id=False)


def _build_schema(fmt: GenFormat) -> "tantivy.Schema":
    sb = tantivy.SchemaBuilder()
    if fmt.id_key_field:
        # the delete and lookup key: a 16-byte key costs 34 B per document in the term dictionary,
        # a 12-byte one (fast_oid) 27-29, a 10-byte one (short_key) 23-25, the whole 32-byte id 62
        # (docs/format.md, "Search index: schema")
        if not fmt.col_id:   # (col_id: the columns answer lookups: -21 B per document)
            sb.add_bytes_field("id", stored=False, indexed=True)
        if fmt.fast_oid:  # 32 random bytes: 32 B per document in columns, ~40 in the doc store
            for name in oid_columns(fmt):   # (prefix_id: two, 16 B a document)
                sb.add_unsigned_field(name, stored=False, indexed=False, fast=True)
        else:
            sb.add_bytes_field("oid", stored=True, indexed=False)
    elif fmt.id_bytes:
        sb.add_bytes_field("id", stored=True, indexed=True)
    else:
        sb.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
    for name in ("kind", "ref"):
        sb.add_text_field(name, stored=True, tokenizer_name="raw", index_option="basic")
    # time: filtered by range queries only, which tantivy answers from the fast field when the field is
    # not indexed; generations with positions (older) index it too (a term per distinct millisecond:
    # 0.37 MB per 37,000 turns) and are read the same way
    sb.add_integer_field("time", stored=not fmt.fast_time_seq, indexed=fmt.positions, fast=True)
    for name in ("project", "role"):
        sb.add_text_field(name, stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_text_field(
        "text", stored=False, tokenizer_name=fmt.tokenizer,
        index_option="position" if fmt.positions else "basic" if fmt.no_freqs else "freq",
    )
    if fmt.has_seq:
        sb.add_integer_field("seq", stored=not fmt.fast_time_seq, indexed=True, fast=True)
    if fmt.has_plain:
        plain_tok = PLAIN_STOP_ANALYZER if fmt.plain_stop else PLAIN_ANALYZER
        sb.add_text_field("plain", stored=False, tokenizer_name=plain_tok, index_option="basic")
        sb.add_text_field("flags", stored=False, tokenizer_name="raw", index_option="basic")
        if fmt.plain_stop:  # the bodies that are not plain_aligned, every token
            sb.add_text_field("plainall", stored=False, tokenizer_name=PLAIN_ANALYZER, index_option="basic")
    if fmt.has_pairs:
        sb.add_text_field("pairs", stored=False, tokenizer_name=PAIRS_ANALYZER, index_option="basic")
    if fmt.no_escapes:    # a marker: never written to
        sb.add_text_field("noesc", stored=False, tokenizer_name="raw", index_option="basic")
    return sb.build()


_SCHEMAS: dict = {}


def schema_for(fmt: "GenFormat | str") -> "tantivy.Schema":
    """The tantivy schema of a new generation in format ``fmt`` (a
    :class:`GenFormat`, or a key of :data:`FORMATS`; built once per process
    and format).  ``KeyError`` for an unknown key."""
    sc = _SCHEMAS.get(fmt)
    if sc is None:
        sc = _SCHEMAS[fmt] = _build_schema(FORMATS[fmt] if isinstance(fmt, str) else fmt)
    return sc


def create_index(fmt: GenFormat, path: Path) -> "tantivy.Index":
    """Create an empty tantivy index of format ``fmt`` in the existing empty
    directory ``path`` and return it open (analyzers not registered).  With
    ``fmt.text_norms_only`` the ``meta.json`` tantivy wrote is rewritten,
    before any document exists, with ``"fieldnorms": false`` on every
    field but ``text`` (tantivy's own schema option, which tantivy-py 0.27
    does not expose; ``docs/format.md``, "Search index: schema"), then the
    index is opened again from it.  Raises ``ValueError`` (tantivy) or
    ``OSError``."""
    index = tantivy.Index(schema_for(fmt), path=str(path), reuse=False)
    if not fmt.text_norms_only:
        return index
    meta_path = Path(path) / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    for f in meta["schema"]:
        opts = f.get("options") or {}
        if f["name"] == "text":
            continue
        if isinstance(opts.get("indexing"), dict):
            opts["indexing"]["fieldnorms"] = False
        elif "fieldnorms" in opts:
            opts["fieldnorms"] = False
    tmp = meta_path.with_name(".meta.json.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(meta))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, meta_path)
    return tantivy.Index.open(str(path))


def _norms_text_only(fields: dict) -> bool:
    """Whether ``text`` is the only field of a ``meta.json`` schema (fields
    by name) with fieldnorms."""
    for name, f in fields.items():
        opts = f.get("options") or {}
        idx = opts.get("indexing")
        norms = idx.get("fieldnorms", True) if isinstance(idx, dict) else opts.get("fieldnorms", False)
        if name != "text" and norms:
            return False
    return True


def read_format(gen_dir: Path, raw: bytes | None = None, meta: dict | None = None) -> GenFormat:
    """The format of the generation in directory ``gen_dir``, from the schema
    in its ``meta.json`` (read here, or ``raw``: its bytes, read by the
    caller; ``meta``: those bytes as ``json.loads`` gives them, parsed by the
    caller: not read nor parsed again).  Raises ``IndexCorruptError`` for an unreadable ``meta.json``,
    an unknown tokenizer on ``text``, an ``oid`` field that is not a
    stored bytes field beside an indexed bytes ``id``, or a ``text`` named
    ``mem_simple_stem_s`` or ``mem_simple_stem_f`` without a ``plain`` of
    ``mem_plain_s`` and a ``plainall`` of ``mem_plain`` (or such fields
    under another ``text``), or a ``text`` named ``mem_simple_stem_f`` or
    ``mem_simple_stem_t`` without the fast u64 fields :data:`OID_COLUMNS` beside an indexed bytes
    ``id`` (or such fields under another ``text``; a ``mem_simple_stem_c``
    one may lack ``oid2`` and ``oid3`` both: :attr:`GenFormat.prefix_id`)."""
    try:
        if meta is None:
            if raw is None:
                raw = (gen_dir / "meta.json").read_bytes()
            meta = json.loads(raw.decode("utf-8"))
        fields = {f["name"]: f for f in meta["schema"]}
        indexing = fields["text"]["options"]["indexing"]
        tok = indexing["tokenizer"]
        greek = isinstance(tok, str) and tok.endswith(GREEK_FOLD_SUFFIX) and tok.startswith(SIMPLE_STEM_ANALYZER)
        if greek:   # the folding generations' names: those of the formats without the fold, and the suffix
            tok = tok[:-len(GREEK_FOLD_SUFFIX)]
        record = indexing.get("record", "position")
        positions = record == "position"
        fast_oid = OID_COLUMNS[0] in fields
        col_id = tok == SIMPLE_STEM_COLID_ANALYZER
        if col_id and ("id" in fields or not fast_oid):
            raise ValueError(f"a text of {SIMPLE_STEM_COLID_ANALYZER} goes with {', '.join(OID_COLUMNS)} and no id")
        prefix_id = col_id and OID_COLUMNS[2] not in fields and OID_COLUMNS[3] not in fields
        cols = OID_COLUMNS[:2] if prefix_id else OID_COLUMNS
        if fast_oid and not (all(fields[c]["type"] == "u64" and fields[c]["options"].get("fast") for c in cols)
                             and "oid" not in fields
                             and (col_id or fields.get("id", {}).get("type") == "bytes"
                                  and fields["id"]["options"].get("indexed"))):
            raise ValueError(f"{', '.join(OID_COLUMNS)} must be fast u64 fields beside an indexed bytes id")
        id_key_field = "oid" in fields or fast_oid
        if "oid" in fields and not (fields["oid"]["type"] == "bytes" and fields["oid"]["options"].get("stored")
                              and fields["id"]["type"] == "bytes" and fields["id"]["options"].get("indexed")):
            raise ValueError("oid must be a stored bytes field beside an indexed bytes id")
        norms_text_only = _norms_text_only(fields)
        fast_time_seq = not fields["time"]["options"].get("stored", True)
        if fast_time_seq and not (fields["time"]["options"].get("fast")
                                  and ("seq" not in fields or fields["seq"]["options"].get("fast"))):
            raise ValueError("a time that is not stored must be a fast field, and seq with it")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise IndexCorruptError(f"{gen_dir}/meta.json: unreadable schema: {e}") from e
    names = {v: k for k, v in ANALYZERS.items()}
    simple_names = (SIMPLE_STEM_ANALYZER, SIMPLE_STEM_KEYED_ANALYZER, SIMPLE_STEM_STOP_ANALYZER,
                    SIMPLE_STEM_FAST_ANALYZER, SIMPLE_STEM_SHORT_ANALYZER, SIMPLE_STEM_DIFF_ANALYZER,
                    SIMPLE_STEM_VOCAB_ANALYZER, SIMPLE_STEM_COLID_ANALYZER)
    fast_names = (SIMPLE_STEM_FAST_ANALYZER, SIMPLE_STEM_SHORT_ANALYZER, SIMPLE_STEM_DIFF_ANALYZER,
                  SIMPLE_STEM_VOCAB_ANALYZER, SIMPLE_STEM_COLID_ANALYZER)
    names.update(dict.fromkeys(simple_names, "stem"))
    if tok not in names:
        raise IndexCorruptError(f"{gen_dir}: text field uses unknown tokenizer {tok!r}")
    plain_stop = tok in (SIMPLE_STEM_STOP_ANALYZER, *fast_names)
    if plain_stop != (_field_tokenizer(fields, "plain") == PLAIN_STOP_ANALYZER) or plain_stop != (
            _field_tokenizer(fields, "plainall") == PLAIN_ANALYZER) or ("plainall" in fields and not plain_stop):
        raise IndexCorruptError(f"{gen_dir}/meta.json: a plain field of {PLAIN_STOP_ANALYZER} and a plainall field "
                                f"go with the {SIMPLE_STEM_STOP_ANALYZER}, {SIMPLE_STEM_FAST_ANALYZER}, "
                                f"{SIMPLE_STEM_SHORT_ANALYZER}, {SIMPLE_STEM_DIFF_ANALYZER} and "
                                f"{SIMPLE_STEM_VOCAB_ANALYZER} tokenizers "
                                f"and only with them (text uses {tok!r})")
    if fast_oid != (tok in fast_names):
        raise IndexCorruptError(f"{gen_dir}/meta.json: the {', '.join(OID_COLUMNS)} fields go with the "
                                f"{SIMPLE_STEM_FAST_ANALYZER}, {SIMPLE_STEM_SHORT_ANALYZER}, "
                                f"{SIMPLE_STEM_DIFF_ANALYZER} and {SIMPLE_STEM_VOCAB_ANALYZER} tokenizers and "
                                f"only with them (text uses {tok!r})")
    if id_key_field != (tok in simple_names[1:]):
        raise IndexCorruptError(f"{gen_dir}/meta.json: an oid field goes with the {SIMPLE_STEM_KEYED_ANALYZER} "
                                f"and {SIMPLE_STEM_STOP_ANALYZER} tokenizers and only with them (text uses {tok!r})")
    return GenFormat(names[tok], "seq" in fields, "plain" in fields and "flags" in fields, "noesc" in fields,
                     col_id or fields.get("id", {}).get("type") == "bytes", positions, "pairs" in fields,
                     tok in simple_names, id_key_field, norms_text_only, fast_time_seq, plain_stop, fast_oid,
                     tok in fast_names[1:], tok in fast_names[2:], tok in fast_names[3:], col_id, prefix_id,
                     record == "basic", greek)


def _field_tokenizer(fields: dict, name: str) -> str | None:
    """The tokenizer of text field ``name`` of a ``meta.json`` schema (fields
    by name), or None when there is no such field or it is not indexed text."""
    try:
        return fields[name]["options"]["indexing"]["tokenizer"]
    except (KeyError, TypeError):
        return None


class PlainCarriers:
    """Which words of the ``plain`` of a :attr:`GenFormat.plain_vocab`
    generation a document carries: a writer's memo, per session (``ref``),
    of the least ``seq`` of a document it wrote that carries each word the
    stemmer changes.  A document carries every such word unless a document
    of its session with a smaller ``seq`` written by the same writer since
    the memo was last cleared carries it (so each holder of a word has a
    carrier of it at or before its own ``seq``: a forget empties a turn and
    rewrites every later turn of its session, whose new documents carry
    their words again); every other word is always carried.  The writer
    must :meth:`clear` it before a batch that deletes a document and after
    a write it rolls back (a carrier gone); clearing only costs bytes.
    Bounded: cleared at MAX words (then every document carries its words
    again until each session has written them once more).  Thread-safe for
    writers of distinct sessions (each session's documents go to one shard,
    one writer thread); the worst a race does is a word carried twice.
    ``docs/format.md``, "Search index: formats and analyzers"."""

    #: words remembered in all before the memo is cleared (~100 B each)
    MAX = 262_144
    __slots__ = ("_first", "_n")

    def __init__(self) -> None:
        self._first: dict[str, dict[bytes, int]] = {}
        self._n = 0

    def clear(self) -> None:
        """Forget every carrier (after a delete or a rolled-back write)."""
        self._first, self._n = {}, 0

    def carried(self, ref: str, seq: int, words: "set[bytes]") -> "set[bytes] | list[bytes]":
        """The words of ``words`` (:func:`~objstore.index.analysis.plain_differing_words`
        of a document of session ``ref`` at ``seq``) that the document
        carries in ``plain``, recorded as carried (see the class doc)."""
        first = self._first.get(ref)
        if first is None:
            if self._n >= self.MAX:
                self.clear()
            first = self._first[ref] = {}
        out = []
        added = 0
        for w in words:
            if w.isascii() and len(w) < MAX_TOKEN_BYTES:
                q = first.get(w)
                if q is not None and q < seq:
                    continue
                if q is None:
                    added += 1
                first[w] = seq
            out.append(w)
        self._n += added
        return out


def reading_words(text: str, folded: str) -> str:
    """The words ``text`` adds to ``plain`` (or ``plainall``) as it reads
    (test16 F14): those of ``fold(confusable_fold(text))`` that are not
    words of ``folded`` (``fold(text)``, as :func:`to_tantivy_doc` has it),
    but for an ASCII word without a letter or digit (``...`` of an
    ellipsis: it holds no token), sorted and joined by spaces; "" when none.
    Words are ``str.split``'s.  Only the lines that read differently are
    folded again (:func:`~objstore.core.text.confusable_lines`; ``fold`` is
    line by line too when ``text`` holds no escape sequence): the words of
    the other lines are words of ``folded`` already.  A candidate word is
    looked up among ``folded``'s words only when it occurs in ``folded`` at
    all (the set of them is built for that text then).  The same words as
    folding the whole reading (session 17) in ~40 % of its time on the
    corpus's 1,823 such texts (each a cut tool output ending in ``…``)."""
    if "\x1b" in text or "\x9b" in text:   # fold strips escape sequences, which may span lines
        part, seen = text, confusable_fold(text)
    else:
        part, seen = confusable_lines(text)
    if seen == part:
        return ""
    words = None
    out = []
    for w in set(fold(seen).split()).difference((folded if part is text else fold(part)).split()):
        if w.isascii() and not any(c.isalnum() for c in w):
            continue
        if w in folded:
            if words is None:
                words = set(folded.split())
            if w in words:
                continue
        out.append(w)
    return " ".join(sorted(out))


def to_tantivy_doc(d: IndexDoc, fmt: GenFormat, carriers: "PlainCarriers | None" = None) -> "tantivy.Document":
    """The tantivy document of ``d`` for a generation of format ``fmt``: the
    stored fields, the NFC body in ``text`` (through :func:`simple_text` in
    a ``simple`` format, before it :func:`greek_fold` in a ``greek_fold``
    one, for ``pairs`` too), if ``fmt.has_pairs`` its
    :func:`glued_pairs` in ``pairs`` and, if ``fmt.has_plain``, the
    case-folded body in ``plain`` (with ``fmt.plain_stop``: in ``plainall``
    instead when it is not :func:`plain_aligned`; with ``fmt.plain_diff``
    only its :func:`plain_differing_words` in ``plain``; with ``fmt.plain_vocab``
    and ``carriers`` only those that ``carriers`` says it carries) and ``flags`` = ``long``
    when that is PLAIN_MAX_TOKEN_BYTES or more in UTF-8."""
    doc = tantivy.Document()
    if fmt.fast_oid:
        if not fmt.col_id:
            doc.add_bytes("id", fmt.key(d.id))
        for name, v in column_values(fmt, d.id):
            doc.add_unsigned(name, v)
    elif fmt.id_key_field:
        doc.add_bytes("id", id_key(d.id))
        doc.add_bytes("oid", bytes.fromhex(d.id))
    elif fmt.id_bytes:
        doc.add_bytes("id", bytes.fromhex(d.id))
    else:
        doc.add_text("id", d.id)
    doc.add_text("kind", d.kind)
    doc.add_text("ref", d.ref)
    doc.add_integer("time", d.time)
    doc.add_text("project", d.project)
    doc.add_text("role", d.role)
    text = nfc(d.text)
    common = lower_folds(text)  # one scan: each form below is then the text's own (the import's many bodies)
    body = greek_fold(text) if fmt.greek_fold and not common else text   # (plain keeps the diacritics)
    doc.add_text("text", simple_text(body) if fmt.simple and not common else body)
    if fmt.has_seq:
        doc.add_integer("seq", d.seq)
    if fmt.has_pairs:
        pairs = glued_pairs(body)
        if pairs:
            doc.add_text("pairs", pairs)
    if fmt.has_plain:
        # the one matching form (core.text's fold); whitespace runs do not matter here
        folded = text.lower() if common else fold(text)
        if not fmt.plain_stop or common or plain_aligned(text):
            if fmt.plain_diff:
                words = plain_differing_words(folded)
                if carriers is not None and fmt.plain_vocab and words:
                    words = carriers.carried(d.ref, d.seq, words)
                kept = b" ".join(words).decode("utf-8", "surrogatepass")
            else:
                kept = folded
            if kept:
                doc.add_text("plain", kept)
        else:
            doc.add_text("plainall", folded)
        if reads_differently(text):
            # as it reads too (core.text.matcher; test16 F14): the words a zero-width space or soft hyphen
            # cut, or fullwidth letters hid, in their plain form
            alt = reading_words(text, folded)
            if alt:
                doc.add_text("plainall" if fmt.plain_stop else "plain", alt)
        if (len(folded) * 4 >= PLAIN_MAX_TOKEN_BYTES
                and len(folded.encode("utf-8", "surrogatepass")) >= PLAIN_MAX_TOKEN_BYTES):
            doc.add_text("flags", FLAG_LONG)  # may hold a token the plain field dropped
    return doc


def hit_from_doc(doc: "tantivy.Document", score: float, time: int | None = None, seq: int | None = None,
                 oid: str | None = None) -> Hit:
    """The :class:`Hit` of a stored tantivy document with ``score``;
    ``time``/``seq``: their values when the caller read them from the fast
    fields (a :attr:`GenFormat.fast_time_seq` generation stores neither;
    default: the stored ones, 0 when absent); ``oid``: the object id when
    the caller read it (:func:`ids_at`; default: the stored one)."""
    return Hit(
        id=doc_object_id(doc) if oid is None else oid,
        kind=doc.get_first("kind"),
        ref=doc.get_first("ref") or "",
        time=int((doc.get_first("time") if time is None else time) or 0),
        project=doc.get_first("project") or "",
        role=doc.get_first("role") or "",
        score=float(score),
        seq=int((doc.get_first("seq") if seq is None else seq) or 0),
    )


def hits_at(searcher: "tantivy.Searcher", fmt: GenFormat, scored: list, resolve=None) -> list[Hit]:
    """The :class:`Hit` of each ``(score, DocAddress)`` of ``scored``, in
    order, from a searcher of a generation of format ``fmt``: the stored
    fields, and in a :attr:`GenFormat.fast_time_seq` generation ``time``
    and ``seq`` from their fast fields (one ``fast_field_values`` call
    each, tantivy-py 0.27), in a :attr:`GenFormat.fast_oid` generation the
    object id from its columns too (:func:`ids_at`, with ``resolve``, the
    index's store resolver, for a ``prefix_id`` one).  Raises ``ValueError``
    (tantivy) for a damaged document, ``IndexCorruptError`` for a document
    without an id."""
    docs = [searcher.doc(addr) for _score, addr in scored]
    if not fmt.fast_time_seq and not fmt.fast_oid:
        return [hit_from_doc(d, score) for d, (score, _addr) in zip(docs, scored)]
    addrs = [addr for _score, addr in scored]
    none = [None] * len(addrs)
    times = [t or 0 for t in searcher.fast_field_values("time", addrs)] if fmt.fast_time_seq else none
    seqs = [q or 0 for q in searcher.fast_field_values("seq", addrs)] if fmt.fast_time_seq and fmt.has_seq else (
        [0] * len(addrs) if fmt.fast_time_seq else none)
    oids = ids_at(searcher, fmt, addrs, resolve) if fmt.fast_oid else none
    return [hit_from_doc(d, score, t, q, o) for d, (score, _addr), t, q, o in zip(docs, scored, times, seqs, oids)]
