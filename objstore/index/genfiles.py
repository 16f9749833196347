"""The files of one search-index generation on disk, read without a writer:
its segments (``segment_sizes``, ``generation_files``), the footer and
CRC check of every file tantivy wrote (``verify_file``) and of a whole
generation (``verify_generation``), tantivy's log-merge levels over its
segments and the padding that makes a level merge (``merge_levels``,
``pad_plan``), and the removal of a generation (``remove_generation``).  Formats: ``docs/format.md``,
"Search index"."""

from __future__ import annotations

import json
import os
import struct
from itertools import compress, repeat
from pathlib import Path

import tantivy

from objstore.index.analysis import register_analyzers
from objstore.index.errors import IndexCorruptError
from objstore.index.readonly import shadow_dir, writable
from objstore.index.schema import OID_COLUMNS, PREFIX_HEX, GenFormat, oid_columns, read_format

__all__ = [
    "FOOTER_MAGIC",
    "generation_files",
    "held_ids",
    "merge_levels",
    "pad_plan",
    "remove_generation",
    "segment_sizes",
    "check_new_files",
    "live_file_names",
    "record_written",
    "verify_file",
    "verify_generation",
]

#: The last 4 bytes of every file tantivy writes for a segment (little-endian u32).
FOOTER_MAGIC = 1337
_READ_CHUNK = 1 << 20
#: the file of a generation directory naming the segment files already
#: checked (:func:`check_new_files`)
VERIFIED = ".verified"
#: ``gen-<n>/.counts``: filtered document counts of one state of the generation
#: (``objstore.index.countcache``); like VERIFIED, not a segment file
COUNTS = ".counts"


#: suffix of a generation directory being removed (``gen-<n>.gone``: :func:`remove_generation`)
GONE = ".gone"
#: passes of ``shutil.rmtree`` over a generation directory before it counts as not removed
_REMOVE_PASSES = 3


def remove_generation(path: Path) -> bool:
    """Delete the generation directory ``path`` (``<sub>/gen-<n>``, or a
    ``gen-<n>.gone`` left by an earlier call); True when nothing of it is
    left.  First renamed to ``gen-<n>.gone``, then deleted with up to
    _REMOVE_PASSES passes of ``shutil.rmtree``.  The rename is why: every
    open tantivy ``Index`` runs a reader whose reload (its own, or its
    watcher thread's after a commit changed ``meta.json``, up to ~0.5 s
    later) creates ``.tantivy-meta.lock`` in the directory, even an emptied
    one, by its path.  In place, such a reload between rmtree's unlinks and
    its ``rmdir`` left the directory non-empty, and ``ignore_errors`` hid
    it: an orphan generation that ``verify_purged`` reports after a forget
    (the flaky ``test_forget_facts_merge``, session 23).  Once renamed, a
    reload by the old path fails (``NotFound``) and creates nothing; one
    that had already resolved the path is caught by the next pass.  A
    directory still there after the passes stays as ``gen-<n>.gone``: the
    sub-index's next write removes it (``SubIndex.remove_orphans``) and
    ``verify_purged`` reports it meanwhile.  Never raises for a directory
    that cannot be deleted (returns False); ``shutil`` is imported on first
    use (it pulls bz2 and lzma: ~2 ms of every start)."""
    import shutil
    import time
    path = Path(path)
    gone = path if path.name.endswith(GONE) else path.with_name(path.name + GONE)
    if gone != path:
        if gone.exists():   # an earlier removal's leftover of this number: it goes first
            shutil.rmtree(gone, ignore_errors=True)
        try:
            os.rename(path, gone)
        except FileNotFoundError:
            return not gone.exists()
        except OSError:      # (a read-only or odd filesystem: deleted where it is)
            gone = path
    for k in range(_REMOVE_PASSES):
        shutil.rmtree(gone, ignore_errors=True)
        if not os.path.lexists(gone):
            return True
        time.sleep(0.01 * (k + 1))
    return False



def segment_sizes(gen_dir: Path) -> list[tuple[int, int]]:
    """``(max_doc, deleted docs)`` of every segment in ``meta.json`` of
    ``gen_dir``.  Raises ``IndexCorruptError`` for an unreadable ``meta.json``."""
    try:
        meta = json.loads((gen_dir / "meta.json").read_text(encoding="utf-8"))
        return [(int(seg["max_doc"]), int((seg.get("deletes") or {}).get("num_deleted_docs", 0)))
                for seg in meta.get("segments", [])]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise IndexCorruptError(f"{gen_dir}/meta.json unreadable: {e}") from e


#: an object id's four big-endian u64 columns (:data:`OID_COLUMNS`) as its 32 bytes
_OID_BYTES = struct.Struct(">4Q")

#: :func:`held_ids` of more ids than this picks the addresses of every segment without first
#: intersecting the segment's ``oid0`` values with them (most segments hold some)
HELD_IDS_MANY = 64

#: segment ordinal -> [DocAddress(ordinal, 0), ... ] as long as the longest segment of that ordinal
#: read so far in this process (:func:`_addresses`)
_ADDRESS_CACHE: dict[int, list] = {}


def _addresses(ordinal: int, n: int) -> list:
    """``[DocAddress(ordinal, 0) ... DocAddress(ordinal, n - 1)]``, sliced
    from a per-process list kept per segment ordinal: building 130,000
    ``DocAddress`` objects costs ~15 ms, over half of a shard's
    :func:`held_ids` scan, and a forget's ``missing_turns`` scans every
    shard (whose segments share the ordinals 0, 1, ...).  A longer
    segment extends the list (so the shards of one scan build each
    address once).  Memory: ~56 B per address, once per ordinal (~7 MB
    at 130,000 documents).  ``n``: 0 or more."""
    got = _ADDRESS_CACHE.get(ordinal, [])
    if len(got) < n:   # a new list, never one changed in place: a thread may be reading the old one
        got = got + list(map(tantivy.DocAddress, repeat(ordinal, n - len(got)), range(len(got), n)))
        _ADDRESS_CACHE[ordinal] = got
    return got if len(got) == n else got[:n]


def held_ids(searcher: "tantivy.Searcher", fmt: GenFormat, oids: "list[str] | set[str]", gen_dir: Path,
             index: "tantivy.Index | None" = None) -> set[str]:
    """The ids of ``oids`` (64 lowercase hex) that a document of the
    generation in ``gen_dir`` (format ``fmt``, read by ``searcher``) holds,
    **live or deleted**: a deleted document keeps its terms and columns in
    its segment's files until a merge rewrites the segment, so an id not
    held is one of which no byte is left (the forget's proof).  By
    ``doc_freq`` of the ``id`` term (it counts deleted documents) or, in a
    ``col_id`` generation, by reading ``oid0`` at every doc id below each
    segment's ``max_doc`` (``meta.json``, whose segment count and live
    documents must be the searcher's) and the other columns of the
    documents whose ``oid0`` matches (``docs/format.md``, "Search index:
    formats", ``col_id``; in a ``prefix_id`` generation an id is held when
    a document holds its first 16 bytes).  ``index``: the open index of ``gen_dir``, for
    a caller that does not hold the sub-index lock: when a commit came
    between its searcher and ``meta.json``, it is reloaded and both read
    again (up to 5 times).  Raises ``IndexCorruptError`` when ``meta.json``
    is unreadable or does not describe the searcher's segments."""
    oids = list(dict.fromkeys(oids))
    if not oids:
        return set()
    if not fmt.col_id:
        return {i for i in oids if searcher.doc_freq("id", fmt.key(i)) > 0}
    for attempt in range(5):
        got = segment_sizes(gen_dir)
        sizes, live = [md for md, _dl in got], sum(md - dl for md, dl in got)
        # segment_ord is the order of meta.json: a doc id past a segment's max_doc would panic in tantivy
        if int(searcher.num_segments) == len(sizes) and int(searcher.num_docs) == live:
            break
        if index is None or attempt == 4:
            raise IndexCorruptError(f"{gen_dir}: {int(searcher.num_segments)} segments of {int(searcher.num_docs)} "
                                    f"documents searched, {len(sizes)} of {live} in meta.json")
        index.reload()
        searcher = index.searcher()
    want = {int(i[:16], 16) for i in oids}
    # a few ids (a forget's proof) are in few segments: a set intersection (in C) tells which, and is
    # cheaper than picking addresses; many (`missing_turns`: every head of the shard) are in most
    many = len(want) > HELD_IDS_MANY
    cand: list = []
    for o, n in enumerate(sizes):
        if not n:
            continue
        addrs = _addresses(o, n)
        col = searcher.fast_field_values(OID_COLUMNS[0], addrs)
        hit = want if many else want.intersection(col)
        if hit:   # the addresses whose oid0 is wanted, in one pass in C
            cand += compress(addrs, map(hit.__contains__, col))
    if not cand:
        return set()
    names = oid_columns(fmt)
    cols = [searcher.fast_field_values(name, cand) for name in names]
    packer = _OID_BYTES if len(names) == 4 else struct.Struct(f">{len(names)}Q")
    found = {packer.pack(*parts).hex() for parts in zip(*cols) if None not in parts}
    if fmt.prefix_id:   # the columns hold the first 16 bytes of an id
        return {i for i in oids if i[:PREFIX_HEX] in found}
    return {i for i in oids if i in found}


def generation_files(gen_dir: Path) -> tuple[list[tuple[str, object]], list[str]]:
    """(segments of ``meta.json`` with deletes as (segment id, deletes),
    files of the generation dir that belong to no live segment, ignoring
    ``meta.json``, ``.managed.json``, :data:`VERIFIED`, :data:`COUNTS` and lock files).  Raises
    ``IndexCorruptError`` for an unreadable ``meta.json``."""
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
             if f not in ("meta.json", ".managed.json", VERIFIED, COUNTS) and not f.endswith(".lock")
             and not f.startswith((VERIFIED + ".tmp", COUNTS + ".tmp"))
             and f.split(".", 1)[0] not in live]
    return deletes, stray


def verify_file(path: Path) -> str | None:
    """Check one file of a tantivy segment against its footer: None when
    sound, else why not (one phrase).

    Format (tantivy 0.27, ``directory/footer.rs``): the body, then a JSON
    object ``{"version": {...}, "crc": C}``, then its length as a
    little-endian u32, then ``FOOTER_MAGIC`` as a little-endian u32; ``C`` is
    the CRC-32 (IEEE, ``zlib.crc32``) of the body.  This is the check
    tantivy's ``Index::validate_checksum`` makes, which tantivy-py does not
    expose.  Reads the file once, 1 MiB at a time."""
    import zlib
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < 8:
                return "truncated (no footer)"
            f.seek(size - 8)
            tail = f.read(8)
            n, magic = int.from_bytes(tail[:4], "little"), int.from_bytes(tail[4:], "little")
            if magic != FOOTER_MAGIC or n > size - 8:
                return "no tantivy footer (truncated or overwritten)"
            body = size - 8 - n
            f.seek(body)
            try:
                crc = json.loads(f.read(n))["crc"]
            except (ValueError, KeyError, TypeError):
                return "unreadable footer"
            f.seek(0)
            got, left = 0, body
            while left:
                chunk = f.read(min(left, _READ_CHUNK))
                if not chunk:
                    return "shorter than it says"
                got = zlib.crc32(chunk, got)
                left -= len(chunk)
    except FileNotFoundError:
        return "missing"
    except OSError as e:
        return f"cannot be read: {e.strerror or e}"
    return None if got == crc else "checksum mismatch"


def _live_file_names(gen_dir: Path, raw: bytes | None = None, meta: dict | None = None) -> list[str] | None:
    """The names of the files of the live segments of ``gen_dir`` (those
    its ``meta.json`` lists; ``raw``: its bytes, ``meta``: them parsed, when
    read already), lock files left out, sorted; None when ``meta.json`` or
    the directory cannot be read."""
    try:
        if meta is None:
            meta = json.loads(raw.decode("utf-8") if raw is not None
                              else (gen_dir / "meta.json").read_text(encoding="utf-8"))
        live = {str(seg["segment_id"]).replace("-", "") for seg in meta.get("segments", [])}
        names = os.listdir(gen_dir)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return [n for n in sorted(names) if n.split(".", 1)[0] in live and not n.endswith(".lock")]


def _read_verified(gen_dir: Path) -> set[str]:
    """The signatures (``name size mtime_ns inode``) ``gen_dir/.verified`` names; none when unreadable."""
    try:
        with open(gen_dir / VERIFIED, encoding="utf-8") as f:
            return set(f.read().splitlines())
    except (OSError, ValueError):
        return set()


def _write_verified(gen_dir: Path, sigs: list[str]) -> None:
    """Write ``gen_dir/.verified`` anew (one signature a line) by an atomic
    rename; nothing when it cannot be written (a read-only store)."""
    tmp = gen_dir / f"{VERIFIED}.tmp-{os.getpid()}"
    try:
        tmp.write_text("".join(s + "\n" for s in sigs), encoding="utf-8")
        os.replace(tmp, gen_dir / VERIFIED)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass


def check_new_files(gen_dir: Path, raw: bytes | None = None, meta: dict | None = None) -> None:
    """Check, before a generation is opened for reading, every file of its
    live segments that was not checked before (:func:`verify_file`: its
    tantivy footer and CRC-32): tantivy checks neither when it opens or
    reads, so a damaged byte the query does not reach was a silent wrong
    answer, exit 0 where ``mem fsck`` exits 13.

    Segment files are written once and never changed, so a file checked
    once is named in ``gen_dir/.verified`` by ``name size mtime_ns inode``
    and only ``stat``-ed afterwards (one stat per file per process that
    opens the generation); a file changed since (a rewrite, a copy) is
    checked again.  Cost: one read of each new file, once (a commit's new
    segment, a rebuilt generation); a writer names the files it wrote
    itself (:func:`record_written`).  ``.verified`` is written by an atomic
    rename; when it cannot be written (a read-only store) the files are
    checked at every open.  A byte that rots in place (same size, mtime and
    inode) is found by ``mem fsck``, not here.

    ``raw``: the bytes of the generation's ``meta.json`` when the caller
    has read them (the open reads it once for its format and signature);
    ``meta``: those bytes parsed, when the caller has parsed them.

    Raises IndexCorruptError naming the first damaged file; a file removed
    meanwhile (a merge) is skipped: tantivy's open reports one it needs."""
    names = _live_file_names(gen_dir, raw, meta)
    if names is None:
        return   # tantivy's open and read_format report an unreadable generation
    done = _read_verified(gen_dir)
    sigs, new = [], False
    # string paths and a bound stat: at a million turns a recall opens ~870 segment files here
    # (16 shards of 7-13 segments), and pathlib joins cost more than the stat (9.6 -> ~4 ms)
    base, stat = os.path.join(os.fspath(gen_dir), ""), os.stat
    for name in names:
        try:
            st = stat(base + name)
        except OSError:
            continue
        sig = f"{name} {st.st_size} {st.st_mtime_ns} {st.st_ino}"
        if sig not in done:
            why = verify_file(gen_dir / name)
            if why == "missing":
                continue
            if why:
                raise IndexCorruptError(f"search index {gen_dir.parent.name}/{gen_dir.name}: {name}: {why}")
            new = True
        sigs.append(sig)
    if new:
        _write_verified(gen_dir, sigs)


def live_file_names(gen_dir: Path) -> frozenset[str]:
    """The names of the files of the live segments of generation
    ``gen_dir`` now (none when it cannot be read): what a writer holds
    before it writes, for :func:`record_written`."""
    return frozenset(_live_file_names(gen_dir) or ())


def record_written(gen_dir: Path, before: "frozenset[str] | set[str]") -> int:
    """Name in ``gen_dir/.verified`` the files of its live segments that a
    writer of this process wrote: those not among ``before``
    (:func:`live_file_names` taken before its first write to the
    generation, under the sub-index lock held until now, its merges waited
    for), so that the first reader after a write does not read them all
    again for their CRC (:func:`check_new_files`: ~0.25 s at 2M turns after
    an import).  As safe as the writer's own check: tantivy computed each
    file's CRC over the bytes it wrote, before its commit named the
    segment; a file that was in ``before`` keeps its line only
    if ``.verified`` named it as it is now (else the next reader checks
    it).  Called after the writer's last commit.  Returns the number of
    files named as written; never raises (a store that cannot be written
    is checked by its readers, as before)."""
    names = _live_file_names(gen_dir)
    if not names:
        return 0
    done = _read_verified(gen_dir)
    sigs, wrote = [], 0
    base = os.path.join(os.fspath(gen_dir), "")
    for name in names:
        try:
            st = os.stat(base + name)
        except OSError:
            continue
        sig = f"{name} {st.st_size} {st.st_mtime_ns} {st.st_ino}"
        if name not in before:
            wrote += 1
        elif sig not in done:
            continue
        sigs.append(sig)
    if wrote:
        _write_verified(gen_dir, sigs)
    return wrote


def verify_generation(gen_dir: Path) -> list[str]:
    """Check one generation directory: its ``meta.json`` reads and its schema is one of the formats
    (:func:`~objstore.index.schema.read_format`), every file of
    every segment it lists passes :func:`verify_file`, and tantivy opens
    it and a searcher over all its segments.  Returns [] when sound, else one
    line naming the generation (``<sub>/gen-<n>``), the number of damaged
    files and the first of them.  Cost: one read of every byte of the
    generation (CRC-32 at memory speed) plus an open; the stored documents
    are not decompressed.  Never raises for what it finds."""
    where = f"{gen_dir.parent.name}/{gen_dir.name}"
    try:
        meta = json.loads((gen_dir / "meta.json").read_text(encoding="utf-8"))
        live = {str(seg["segment_id"]).replace("-", "") for seg in meta.get("segments", [])}
        names = os.listdir(gen_dir)
    except FileNotFoundError as e:
        return [f"search index {where}: {os.path.basename(e.filename or 'meta.json')} is missing"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        return [f"search index {where}: meta.json unreadable ({e})"]
    bad = []
    for name in sorted(names):
        if name.split(".", 1)[0] in live and not name.endswith(".lock"):
            why = verify_file(gen_dir / name)
            if why:
                bad.append(f"{name}: {why}")
    if bad:
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        return [f"search index {where}: {len(bad)} damaged file(s): {bad[0]}{more}"]
    try:
        read_format(gen_dir)
    except IndexCorruptError as e:
        return [f"search index {where}: {e}"]
    try:
        path = gen_dir if writable(gen_dir) else shadow_dir(gen_dir)
        index = tantivy.Index.open(str(path))
        register_analyzers(index)
        index.searcher().num_docs
    except (ValueError, OSError) as e:
        return [f"search index {where}: cannot be opened ({e})"]
    return []


#: [padded merge] tantivy's default merge policy (``LogMergePolicy::default()``,
#: tantivy ``src/indexer/log_merge_policy.rs``, the only one tantivy-py's writers
#: use): segments above LOG_MERGE_MAX_DOCS live documents are never merged; the
#: others, sorted by ``max_doc`` (descending, stable), fall into levels: a
#: segment whose log2(max(live documents, LOG_MERGE_MIN_LAYER_DOCS)) is below the
#: current level's log2 size minus LOG_MERGE_LEVEL_LOG_SIZE starts a new level
#: (and sets its size); a commit merges every level of at least
#: LOG_MERGE_MIN_SEGMENTS segments into one segment, dropping deleted documents
#: and every term no live document has any more (``merger.rs``:
#: ``total_doc_freq == 0``: the term is not written).
LOG_MERGE_MIN_SEGMENTS = 8
LOG_MERGE_MIN_LAYER_DOCS = 10_000
LOG_MERGE_LEVEL_LOG_SIZE = 0.75
LOG_MERGE_MAX_DOCS = 10_000_000


def merge_levels(segments: list[tuple[int, int]]) -> list[tuple[float, list[int]]]:
    """The levels tantivy's default merge policy sees in ``segments``
    (``(max_doc, live documents)`` each, in any order): a list of
    ``(level log2 size, [indexes into segments])``, largest level first,
    as ``LogMergePolicy::compute_merge_candidates`` groups them (see
    LOG_MERGE_MIN_SEGMENTS: a level with that many members is merged at the
    next commit)."""
    import math
    order = sorted((i for i, (_md, live) in enumerate(segments) if live <= LOG_MERGE_MAX_DOCS),
                   key=lambda i: -segments[i][0])
    levels: list[tuple[float, list[int]]] = []
    cur = math.inf
    for i in order:
        size = math.log2(max(LOG_MERGE_MIN_LAYER_DOCS, segments[i][1]))
        if size < cur - LOG_MERGE_LEVEL_LOG_SIZE:
            cur = size
            levels.append((cur, []))
        levels[-1][1].append(i)
    return levels


def pad_plan(segments: list[tuple[int, int]], targets: set[int], extra: list[int] = ()) -> tuple[int, int] | None:
    """[padded merge] How to make tantivy's default merge policy merge the
    segments ``targets`` (indexes into ``segments``, ``(max_doc, live
    documents)`` each, as they will be once the caller's deletes are
    committed): ``(pads, docs)``, commit ``pads`` more segments of ``docs``
    documents each, after the segments of ``extra`` documents the caller
    commits first (``extra``: their sizes), and the level holding every
    target then has LOG_MERGE_MIN_SEGMENTS members, so tantivy merges it
    (the targets with the level's other segments).  None when no padding
    does it (the targets are in different levels, or a pad would land in
    another level).  The smallest pad that joins the level is chosen:
    ``ceil(2 ** (level size - LOG_MERGE_LEVEL_LOG_SIZE))`` documents, one
    when the level is the lowest (every segment under
    LOG_MERGE_MIN_LAYER_DOCS counts as that many)."""
    import math
    base = list(segments) + [(n, n) for n in extra]
    levels = merge_levels(base)
    home = [lv for lv in levels if targets & set(lv[1])]
    if len(home) != 1 or not targets <= set(home[0][1]):
        return None
    size = home[0][0]
    want = 2 ** (size - LOG_MERGE_LEVEL_LOG_SIZE)
    docs = 1 if want <= LOG_MERGE_MIN_LAYER_DOCS else math.ceil(want) + 1
    for pads in range(LOG_MERGE_MIN_SEGMENTS):
        trial = base + [(docs, docs)] * pads
        for _size, members in merge_levels(trial):
            if targets <= set(members) and len(members) >= LOG_MERGE_MIN_SEGMENTS:
                return pads, docs
    return None
