"""Object ids in the search index: the ``id`` key of a generation that has
one (:func:`id_key`), the fast u64 columns that hold the id in the others
(:data:`OID_COLUMNS`), and the lookups by id (:func:`id_query`,
:func:`delete_object`) and of a document's id (:func:`ids_at`).  Split
from :mod:`objstore.index.schema` (which re-exports every name here) when
that module neared the 40 KB limit.  Formats: ``docs/format.md``,
"Search index".
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable

import tantivy

from objstore.core.ids import blake2b
from objstore.index.errors import IndexCorruptError

__all__ = ["FAST_ID_KEY_BYTES", "ID_KEY_BYTES", "OID_COLUMNS", "PREFIX_HEX", "SHORT_ID_KEY_BYTES", "STAND_IN_TAIL",
           "column_values", "delete_object", "doc_object_id", "expand", "id_key", "id_query", "ids_at", "oid_columns"]

#: Bytes of the key a generation with :attr:`GenFormat.id_key_field` indexes in
#: its ``id`` field for an object id (:func:`id_key`; the whole id is stored
#: in ``oid``).
ID_KEY_BYTES = 16
#: Bytes of that key in a generation with :attr:`GenFormat.fast_oid` (a
#: 12-byte key takes ~7 B less per document in the term dictionary; two ids
#: share one with probability 2**-96 per pair, ~2**-57 over a million turns).
FAST_ID_KEY_BYTES = 12
#: Bytes of that key in a generation with :attr:`GenFormat.short_key` (the
#: turns' generations written since session 13): ~3.6 B less per document
#: than 12 in the term dictionary (the bench corpus: 1,085,992 -> 952,170
#: bytes of ``id`` terms); two ids share one with probability 2**-80 per
#: pair, ~2**-41 over a million turns.
SHORT_ID_KEY_BYTES = 10
#: The fast fields of a :attr:`GenFormat.fast_oid` generation that hold the
#: object id: its 32 raw bytes as four big-endian u64, in order.
OID_COLUMNS = ("oid0", "oid1", "oid2", "oid3")
_FOUR_U64 = struct.Struct(">4Q")
_TWO_U64 = struct.Struct(">2Q")
#: Hex digits of the id a :attr:`GenFormat.prefix_id` generation holds (in
#: ``oid0`` and ``oid1``: its first 16 bytes).
PREFIX_HEX = 32
#: The tail :func:`ids_at` gives a prefix the object store does not expand to
#: one object (none or several hold it): the stand-in ``prefix + STAND_IN_TAIL``
#: names no object (a 64-hex id ending in 128 zero bits is not a digest) yet
#: finds the document by :func:`id_query`, which reads the prefix only.
STAND_IN_TAIL = "0" * (64 - PREFIX_HEX)


def oid_columns(fmt: "GenFormat") -> tuple[str, ...]:
    """The :data:`OID_COLUMNS` a :attr:`GenFormat.fast_oid` generation of
    format ``fmt`` has: the first two in a :attr:`GenFormat.prefix_id` one,
    else all four."""
    return OID_COLUMNS[:2] if fmt.prefix_id else OID_COLUMNS


def column_values(fmt: "GenFormat", oid: str) -> "zip[tuple[str, int]]":
    """``(column, u64)`` of object id ``oid`` (64 lowercase hex) for each of
    :func:`oid_columns` of ``fmt``: the id's raw bytes, big-endian, 8 a
    column.  Raises ``ValueError`` for a malformed id."""
    return zip(oid_columns(fmt), _FOUR_U64.unpack(bytes.fromhex(oid)))


def id_key(oid: str, size: int = ID_KEY_BYTES) -> bytes:
    """The ``id`` term of object id ``oid`` (64 lowercase hex) in a
    generation with :attr:`GenFormat.id_key_field`: BLAKE2b with a ``size``-byte digest
    (RFC 7693, ``hashlib.blake2b(digest_size=size)``; :func:`objstore.core.ids.blake2b`) of its 32 raw bytes;
    ``size`` is ID_KEY_BYTES (16), FAST_ID_KEY_BYTES (12) in a
    :attr:`GenFormat.fast_oid` generation, SHORT_ID_KEY_BYTES (10) in a
    :attr:`GenFormat.short_key` one (a shorter digest is not a cut longer one).
    A hash rather than a prefix, so that ids that are not digests (tests'
    ``"0" * 63 + "1"``) differ in their keys as digests do; two ids share a
    key with probability 2**-(8 * size) per pair."""
    return blake2b(bytes.fromhex(oid), digest_size=size).digest()


def doc_object_id(doc: "tantivy.Document") -> str:
    """The object id (64 lowercase hex) of a stored tantivy document, from
    ``oid`` field (:attr:`GenFormat.id_key_field`) or of either form of the
    ``id`` field (:attr:`GenFormat.id_bytes`); not for a
    :attr:`GenFormat.fast_oid` generation's (:func:`ids_at`)."""
    v = doc.get_first("oid")
    if v is None:
        v = doc.get_first("id")
    return v.hex() if isinstance(v, bytes) else v


def delete_object(writer: "tantivy.IndexWriter", schema: "tantivy.Schema", fmt: "GenFormat", oid: str) -> None:
    """Delete (at the writer's next commit) the documents of object ``oid``
    from a generation of format ``fmt`` with schema ``schema``: by term for
    a hex ``id``; by a term query for a bytes ``id`` (:meth:`GenFormat.key`;
    tantivy-py 0.27 does not delete by a bytes term); by :func:`id_query`
    in a ``col_id`` generation."""
    if fmt.col_id:
        writer.delete_documents_by_query(id_query(schema, fmt, oid))
    elif fmt.id_bytes:
        writer.delete_documents_by_query(tantivy.Query.term_query(schema, "id", fmt.key(oid)))
    else:
        writer.delete_documents_by_term("id", oid)


def id_query(schema: "tantivy.Schema", fmt: "GenFormat", oid: str) -> "tantivy.Query":
    """The query of the documents of object ``oid`` (64 lowercase hex) in a
    generation of format ``fmt`` with schema ``schema``: its ``id`` term
    (:meth:`GenFormat.key`), or in a ``col_id`` generation ``oid0`` and
    ``oid1`` equal to the id's first 16 bytes (two one-value range queries,
    which tantivy answers by scanning the columns: each column read costs
    ~0.45 ms at 130,000 documents, so two, not four; two ids share 128
    bits with probability 2**-128 per pair, where the 10-byte ``id`` term
    they replace shared 80).  Like any search it finds live documents
    only: whether a deleted copy is left is :func:`~objstore.index.genfiles.held_ids`'s question.
    Raises ``ValueError`` for a malformed id."""
    if not fmt.col_id:
        return tantivy.Query.term_query(schema, "id", fmt.key(oid))
    return tantivy.Query.boolean_query([
        (tantivy.Occur.Must, tantivy.Query.range_query(schema, name, tantivy.FieldType.Unsigned, v, v))
        for name, v in zip(OID_COLUMNS[:2], _FOUR_U64.unpack(bytes.fromhex(oid)))])


def ids_at(searcher: "tantivy.Searcher", fmt: "GenFormat", addrs: list,
           resolve: "Callable[[list[str]], list[str | None]] | None" = None, known: Iterable[str] = ()) -> list[str]:
    """The object id (64 lowercase hex) of the document at each
    ``DocAddress`` of ``addrs``, in order, from a searcher of a generation
    of format ``fmt``: its :func:`oid_columns` (one ``fast_field_values``
    call each) in a :attr:`GenFormat.fast_oid` generation, else its stored
    fields (:func:`doc_object_id`).  A :attr:`GenFormat.prefix_id`
    generation holds the id's first 16 bytes only: the whole id is the
    caller's ``known`` id (64 hex) with that prefix if any, else the one
    ``resolve`` gives (``resolve(prefixes)``: for each 32-hex prefix of the
    list, the one object id of the store starting with it, or None when
    none or several do; the index's store resolver,
    :class:`~objstore.index.searchindex.SearchIndex`), else, without a
    resolver or with None, the prefix's stand-in ``prefix + STAND_IN_TAIL``
    (:data:`STAND_IN_TAIL`).  Raises ``ValueError`` (tantivy) for a
    damaged document or column, ``IndexCorruptError`` for a document
    without a value in a column."""
    if not fmt.fast_oid:
        return [doc_object_id(searcher.doc(a)) for a in addrs]
    names = oid_columns(fmt)
    cols = [searcher.fast_field_values(name, addrs) for name in names]
    try:
        if not fmt.prefix_id:
            return [_FOUR_U64.pack(*parts).hex() for parts in zip(*cols)]
        prefixes = [_TWO_U64.pack(*parts).hex() for parts in zip(*cols)]
    except struct.error as e:   # None: a document without its id
        raise IndexCorruptError(f"a document without its object id in {names}: {e}") from e
    return expand(prefixes, resolve, known)


def expand(prefixes: list[str], resolve: "Callable[[list[str]], list[str | None]] | None" = None,
           known: Iterable[str] = ()) -> list[str]:
    """The whole id (64 hex) of each 32-hex prefix of ``prefixes``, in
    order, as :func:`ids_at` expands those of a :attr:`GenFormat.prefix_id`
    generation: a ``known`` id with that prefix, else ``resolve``'s answer,
    else the stand-in ``prefix + STAND_IN_TAIL``.  ``resolve`` is called
    once, with the prefixes ``known`` does not answer (each once), when
    there are any."""
    mine = {k[:PREFIX_HEX]: k for k in known}
    out: list = [mine.get(p) for p in prefixes]
    ask = list(dict.fromkeys(p for p, o in zip(prefixes, out) if o is None))
    if ask:
        got = dict(zip(ask, resolve(ask))) if resolve is not None else {}
        out = [o or got.get(p) or p + STAND_IN_TAIL for p, o in zip(prefixes, out)]
    return out
