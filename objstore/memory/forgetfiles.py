"""What a forget leaves on disk besides objects, refs and the index:
derived files it scrubs (:func:`scrub_derived`, step 5 of
``docs/forget.md``), the sentinel scan that shows a value is found nowhere
(:func:`scan_store`), the temp files of killed writers it deletes
(:func:`drop_leftover_temps`), and when a text was forgotten
(:func:`forgotten_at`).
Split from ``objstore.memory.forget`` by concern; that module re-exports
these names."""

from __future__ import annotations

import json
import os
import re
import zlib
from pathlib import Path

from objstore.core.atomic import Z_SUFFIX, atomic_write, deflate_z, inflate_z, open_regular
from objstore.core.fileid import hidden_source, hide_ledger_paths, is_ledger_name
from objstore.core.gc import leftover_temps, remove_temp, temp_size
from objstore.core.errors import MemError
from objstore.core.objects import normalize_value, value_digest
from objstore.core.pack import Pack
from objstore.core.packlines import body_chunks
from objstore.core.salvage import salvage_pack
from objstore.core.store import Store
from objstore.core.text import confusable_fold, matcher, text_form
from objstore.memory.tombstones import all_tombstones

#: the shortest text (normalized) that ``--match`` forgets and that a scrub looks for
MIN_MATCH_CHARS = 3


# -- derived files --------------------------------------------------------------

#: the ledger of transcript files imports read (``objstore.capture.importer``); a forget hides a
#: line naming a forgotten text (:func:`hidden_source`) instead of dropping it
SOURCES_FILE = "cache/imported-files"


def scrub_derived(store: Store, needles: list[str], keep_names: bool = False) -> list[str]:
    """Remove forgotten texts from derived files: every file under
    ``<store>/cache`` and every file in ``<store>/logs``.  A line-oriented
    text file loses the lines that contain a needle (rewritten atomically;
    a compressed one under ``cache/``, ``*.z`` as ``core.atomic.write_z``
    writes it, is tested inflated and written compressed again, or deleted
    when it does not inflate); any other file containing one is deleted (caches are rebuilt on
    demand), but a read ledger (``core.fileid``; its compressed JSON tested
    inflated) keeps its place: its paths alone are tested, and a path
    holding a needle is hidden there (``fileid.hide_ledger_paths``), as in
    ``cache/imported-files``; a damaged one, which cannot be tested, is
    deleted.
    A FIFO, a device or a socket there holds nothing stored and is skipped,
    never read or waited on (``core.atomic.open_regular``; session 23: a
    forget hung on a FIFO in ``cache/``).
    Matching is ``objstore.core.text.matcher`` (NFC, case folding,
    whitespace runs), except for a needle of hex digits alone (a number, a
    piece of a hash): :func:`derived_matcher`.  ``keep_names`` (a ``--match``
    that empties no value): a line whose hits all lie inside the names of
    live keys (plain or sealed) is kept, as ``forget --match`` never empties
    a name, which the refs and reflogs keep in the clear (fresh41 F29: a
    live key's write left the audit log).  Returns the files changed,
    relative to the store.
    """
    # each needle once (a --match text is also a rare word of the turn it names)
    needles = list(dict.fromkeys(n for n in needles if len(n.strip()) >= MIN_MATCH_CHARS))
    tests = [derived_matcher(n) for n in needles]
    if not tests:
        return []
    # a file of ASCII bytes without ESC folds to its .lower() (NFC and casefold of ASCII, no escape
    # to strip): its bytes can hold a needle only if they hold the needle's longest word
    # (the probe matcher() tests first), lower-cased; a non-ASCII word cannot be in them
    # (and the needle as it reads: fullwidth 'ｚｅｂｒａ' matches an ASCII 'zebra', core.text.matcher)
    probes = [max(normalize_value(f).split(" "), key=len) for n in needles for f in (n, confusable_fold(n))]
    ascii_probes = _fewest_probes(p.encode("ascii") for p in probes if p.isascii())

    def hit(s: str) -> bool:
        forms: dict = {}    # s folded once for all the tests (core.text.text_form)
        return any(t(s, forms) for t in tests)

    names = [n for ns in ("facts", "sealed") for n in (r.split("/", 1)[1] for r, _o in store.refs.iter(ns, damaged=[]))
             if hit(n)] if keep_names else []

    def line_hit(s: str) -> bool:   # hit(), outside the live names (``keep_names``)
        if not hit(s):
            return False
        for name in names:
            s = s.replace(name, "")
        return hit(s)

    def cannot_hit(data: bytes) -> bool:
        if not data.isascii() or b"\x1b" in data:
            return False
        low = data.lower()
        return not any(p in low for p in ascii_probes)

    def hit_any(s: str) -> bool:   # hit(), after the probes where they decide
        return not (s.isascii() and cannot_hit(s.encode("ascii"))) and hit(s)

    changed = []
    # string paths: a store of a million turns has ~25,000 small files under cache/lineage,
    # and a Path per file cost more than reading it
    targets: list[str] = [os.path.join(d, f) for d, _s, fs in os.walk(store.root / "cache") for f in fs]
    logs = store.root / "logs"
    if logs.is_dir():
        targets += [e.path for e in os.scandir(logs) if e.is_file()]
    for name in targets:
        try:
            with open_regular(name) as fh:   # a FIFO in cache/: skipped, never waited on (session 23)
                data = fh.read()
                st = os.fstat(fh.fileno())
        except OSError:
            continue
        p = Path(name)
        if is_ledger_name(p.name) and p.parent == store.root / "cache":   # its paths tested, whole
            try:
                hidden = hide_ledger_paths(data, name, hit_any)
            except ValueError:
                hidden = b""               # cannot be tested (damaged): a cache, deleted
            if hidden is None:
                continue
            if hidden:
                atomic_write(p, hidden, durable=False)
            else:
                p.unlink()
            changed.append(str(p.relative_to(store.root)))
            continue
        packed = p.suffix == Z_SUFFIX and p.parent == store.root / "cache"   # a compressed line cache
        if packed:
            try:
                data = inflate_z(name, data, st)   # inflated once a process (a forget read it already)
            except ValueError:   # damaged: it cannot be tested, and a cache is rebuilt on demand
                p.unlink()
                changed.append(str(p.relative_to(store.root)))
                continue
        if cannot_hit(data) or not hit(data.decode("utf-8", "replace")):
            continue
        text_like = packed or p.suffix in (".log", ".txt", "") or p.name.endswith("history")
        if name == os.path.join(store.root, SOURCES_FILE):
            # the transcripts a later --scrub-sources must still find: hidden, never dropped
            lines = data.decode("utf-8", "surrogateescape").splitlines()
            kept_s = [hidden_source(ln) if hit(ln) and os.path.isabs(ln) else ln for ln in lines]
            atomic_write(p, "".join(ln + "\n" for ln in kept_s).encode("utf-8", "surrogateescape"))
        elif p.parent.name in _ID_RECORDS and p.suffix == ".json" and (hid := _scrubbed_record(data, hit)):
            if hid == data:   # the hit is in its field names only: no quote of a text (test31 U4)
                continue
            atomic_write(p, hid, durable=False)   # a hook's cursor: its path by hash, its place kept
        elif p.parent == store.root / "cache" / "sessions" and p.suffix == ".msgpack" \
                and (st_kept := scrubbed_session_state(store, data, hit)) is not None:
            atomic_write(p, st_kept, durable=False)   # what the session was shown, less the forgotten (test36b T19)
        elif text_like:
            lines = data.splitlines(keepends=True)
            kept = b"".join(ln for ln in lines if not line_hit(ln.decode("utf-8", "replace")))
            if kept == data:
                continue   # its hits all lie in live keys' names
            atomic_write(p, deflate_z(kept) if packed else kept)
        else:
            p.unlink()
        changed.append(str(p.relative_to(store.root)))
    return changed


#: the version id a session state keeps for a key it was shown at a version forgotten since: no object's
#: (``retrieval.shownbefore`` reads a version it cannot read as forgotten: "changed since shown earlier")
FORGOTTEN_SHOWN = "0" * 64


def scrubbed_session_state(store: Store, data: bytes, hit) -> bytes | None:
    """A session state (``cache/sessions/<id>.msgpack``, ``docs/format.md``)
    that quotes a forgotten value (``hit(text)`` True), rewritten to hold
    no text: no start block (the next start renders one), ``injected`` the
    ids whose objects are still there, and ``shown`` each key the session
    was shown (its start block's pairs, then ``shown``): the version id
    where it is still there and its value does not ``hit``, else
    :data:`FORGOTTEN_SHOWN` (no forgotten version's id is kept: test36b
    T8); a key whose name ``hit`` matches is left out (a ``--match`` forgets such
    a key whole, and no file may name it).  So a prompt that serves the key's new value still says it changed
    since shown (test36b T19).  None: not a state this can read (then it is
    deleted, as before).  Never raises."""
    import msgpack  # defer: a forget that finds a session state only
    try:
        st = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        return None
    if not isinstance(st, dict) or not isinstance(st.get("injected"), dict):
        return None
    start = st.get("start") if isinstance(st.get("start"), dict) else {}
    pairs = [tuple(x) for x in start.get("facts") or [] if isinstance(x, (list, tuple)) and len(x) == 2]
    shown = st.get("shown") if isinstance(st.get("shown"), dict) else {}
    injected = {}
    for oid, t in st["injected"].items():
        try:
            if isinstance(oid, str) and store.has(oid):
                injected[oid] = t
        except (MemError, ValueError):
            continue
    out: dict[str, str] = {}
    for key, oid in [*pairs, *shown.items()]:
        if not isinstance(key, str) or oid not in st["injected"] or hit(key):   # a key named by the text: gone
            continue
        try:
            keep = oid in injected and not hit(str(getattr(store.get(oid), "body", "")))
        except (MemError, ValueError):
            keep = False
        if not keep:
            injected[FORGOTTEN_SHOWN] = st["injected"][oid]
        out[key] = oid if keep else FORGOTTEN_SHOWN
    st.update(start=None, injected=injected, shown=out)
    return msgpack.packb(st, use_bin_type=True)


#: a needle of hex digits alone, normalized, and what may not adjoin it (:func:`derived_matcher`)
_HEX = re.compile(r"[0-9a-f]+")
_ALNUM = frozenset("0123456789abcdefghijklmnopqrstuvwxyz")


def derived_matcher(needle: str):
    """``objstore.core.text.matcher(needle)`` for the derived files
    :func:`scrub_derived` tests, but a needle that is hex digits alone once
    normalized (``114494``, ``8080``, ``facade``) hits only where no ASCII
    letter or digit adjoins it: inside a longer number or hash (the times
    in ns of a read ledger, the ids of a reflog, a cache or the lineage
    log) it is no quote of a text (test25b U6: a forgotten ``114494`` was
    found in a time ``1768901144943000078``, and the 2.4 MB read ledger of
    a million-turn store deleted).  Tested on the text folded as it is and,
    for a non-ASCII text, as it reads (``confusable_fold``), as ``matcher``
    does.  Returns a predicate ``f(text, forms=None) -> bool`` (``forms``:
    as ``matcher``'s)."""
    norm = normalize_value(needle)
    if not _HEX.fullmatch(norm):
        return matcher(needle)
    def whole(f: str) -> bool:   # an occurrence no letter or digit adjoins (each one found by str.find)
        at = f.find(norm)
        while at >= 0:
            end = at + len(norm)
            if (at == 0 or f[at - 1] not in _ALNUM) and (end == len(f) or f[end] not in _ALNUM):
                return True
            at = f.find(norm, at + 1)
        return False

    def match(text: str, forms: dict | None = None) -> bool:
        if whole(text_form(text, forms, "fold")):
            return True
        return not text.isascii() and whole(text_form(text, forms, "seen"))

    return match


def _fewest_probes(probes) -> list[bytes]:
    """The probes (byte strings) a file must hold one of for any of
    ``probes`` to be in it: each distinct probe once, and none that holds
    another (a file without ``b"bebigok"`` has no ``b"bebigoks"`` either),
    so that :func:`scrub_derived` reads each file's bytes once a probe that
    can decide, not once a needle and a form of it (a ``--match`` of one
    turn: its text, the match, the match again as a rare word, each as
    typed and as it reads, 8 scans of ~45 MB at a million turns, 3 left)."""
    distinct = sorted(set(probes), key=len)
    out: list[bytes] = []
    for p in distinct:
        if not any(q in p for q in out):
            out.append(p)
    return out


def drop_leftover_temps(store: Store) -> list[tuple[str, int]]:
    """Delete the temp files killed writers left (``gc.leftover_temps``,
    without the ``.pack`` files that lack their index, which may hold what
    a lost index named: ``mem fsck --repair`` reads them), under the store
    lock (re-entrant), which every writer holds, so none is a running
    write's.  A forget's step 5: a pack's temp file of an import killed -9
    holds its turns, values and all, which no other step of a forget reads
    (tester finding U2: ``forget --match`` said "nothing matches" while one
    held the text, until a gc).  Returns ``(path relative to the store,
    bytes)`` of each deleted.  Raises StoreLocked."""
    out = []
    with store.lock("forget"):
        for p in leftover_temps(store, incomplete=False):
            try:
                size = temp_size(p)
                remove_temp(p)
            except OSError:
                continue
            out.append((str(p.relative_to(store.root)), size))
    return out


#: the cache folders of JSON records of ids, counts and one path (``cursors/``: a hook's cursor,
#: ``capture.cursors``; ``session-state/``: a session's head and source ids, ``memory.sessions``)
_ID_RECORDS = ("cursors", "session-state")


def _values(obj) -> list[str]:
    """The string values of a decoded JSON record (nested ones too), never its field names."""
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _values(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _values(v)]
    return [obj] if isinstance(obj, str) else []


def _scrubbed_record(data: bytes, hit) -> bytes | None:
    """A record of :data:`_ID_RECORDS` tested by its values, not its field
    names (a rare word of a forgotten text such as ``session`` is no quote
    of it: test31 U4, where a forgotten JSON value deleted every cursor and
    ``mem scan`` then found the transcripts nowhere).  A hook cursor whose
    ``path`` holds the text is written again with the path by hash
    (``hidden_source``; the hook keeps it so: ``Cursor.hidden``), so the
    next hook neither reads the transcript again from its start nor writes
    the path back.  Returns the bytes to keep (``data`` itself when no value
    holds the text), or None when another value holds it or the record
    does not decode (the file is deleted)."""
    try:
        h = json.loads(data)
    except ValueError:
        return None
    if not isinstance(h, dict):
        return None
    path = h.get("path")
    if isinstance(path, str) and os.path.isabs(path) and hit(path):
        h["path"] = hidden_source(path)
        data = json.dumps(h).encode()
    return None if any(hit(v) for v in _values(h)) else data


# -- verification -----------------------------------------------------------------

def _pack_frames(p: Path) -> tuple[list[bytes], bool]:
    """The decompressed frames of pack ``p`` and whether they are known to
    be all of it: through its index when that reads, else what
    :func:`objstore.core.salvage.salvage_pack` still decompresses, which
    may be only part of it (a damaged pack, bytes set aside in the
    quarantine: False).  A pack without an index (being written, or
    orphaned) is read by salvage too and not counted as unreadable (what
    salvage cannot frame of it is unknown, as it was before it was read)."""
    if not p.with_suffix(".idx").exists():
        try:
            return [frame for _oid, frame in salvage_pack(p)], True
        except OSError:
            return [], True
    try:
        with Pack(p.with_suffix(".idx")) as pack:
            frames = []
            for _oid, frame in pack.frames_in_body_order():
                if isinstance(frame, MemError):
                    raise frame
                frames.append(frame)
            return frames, True
    except MemError:
        pass
    try:
        return [frame for _oid, frame in salvage_pack(p)], False
    except OSError:
        return [], False


def _pack_chunks(data: bytes) -> list[bytes]:
    """Pack version 8: every chunk of the line table of the pack file
    ``data`` (its chunk blocks, found without the index), those no frame
    names any more too: a forgotten value must be in none of them.
    Empty for other versions."""
    if len(data) < 16 or data[4:8] != b"\0\0\0\x08":
        return []
    start = 16 + int.from_bytes(data[12:16], "big")
    return [b"\n".join(lines) for _at, _first, lines in body_chunks(data, start, len(data) - 32)]


def scan_store(root, needles: list[bytes], unsure: list[str] | None = None,
               irregular: list[str] | None = None, unread: list[tuple[str, str]] | None = None) -> list[str]:
    """Sentinel scan: every file under ``root`` whose bytes, or whose
    zlib-decompressed bytes (loose objects), or any decompressed entry of a
    pack, contain any of ``needles``.

    A pack that cannot be read whole (damaged, or bytes ``fsck --repair``
    set aside in the quarantine) is searched in every entry that still
    decompresses (:func:`_pack_frames`); when none holds a needle, the rest
    is unknown: its path (relative to ``root``) is appended to ``unsure``
    when given (``mem scan`` says it could not search all of it, and
    reports no match), else it counts as a match (the check after a forget
    never passes what it could not read).

    A FIFO, a device or a socket among the files (``fsck --repair`` sets
    a ref that was a FIFO aside in ``quarantine/``) is neither read nor
    waited on (``core.atomic.open_regular``; session 23 Y10: ``mem scan``
    hung on it): it holds no stored bytes, and its path (relative to
    ``root``) is appended to ``irregular`` when given (``mem scan`` names
    it as skipped).  A file that does not open for another reason (a
    symlink whose target is gone, no permission) is appended to ``unread``
    when given, as ``(path relative to root, the error's words)``: ``mem
    scan`` says it could not read everything (F10/F14: "found nowhere").

    Returns the matching paths relative to ``root`` (empty = clean).  Used
    after a forget to show that the value is found nowhere on disk.
    """
    hits = []
    base = Path(root)
    for dirpath, _dirs, files in os.walk(base):
        for f in files:
            p = Path(dirpath) / f
            try:
                with open_regular(p) as fh:
                    data = fh.read()
            except OSError as e:
                # EINVAL: not a regular file; ENXIO: a socket (the helper's run/helper.sock, fresh39 F1)
                not_regular = e.errno == 22 or (e.errno == 6 and p.is_socket())
                if not_regular and irregular is not None:
                    irregular.append(str(p.relative_to(base)))
                elif not not_regular and unread is not None:
                    unread.append((str(p.relative_to(base)), e.strerror or type(e).__name__))
                continue
            views = [data]
            try:
                views.append(zlib.decompress(data))
            except zlib.error:
                pass
            whole = True
            if p.suffix == ".pack":
                frames, whole = _pack_frames(p)
                views += frames + _pack_chunks(data)
            rel = str(p.relative_to(base))
            if any(n in v for n in needles for v in views):
                hits.append(rel)
            elif not whole:
                (unsure if unsure is not None else hits).append(rel)
    return sorted(hits)


def forgotten_at(store: Store, text: str) -> int | None:
    """When ``text`` was forgotten, from the tombstones: the time (ms) of the
    newest tombstone whose digest is that of ``text`` (normalized): a
    ``--match`` rule, a forgotten fact value or a forgotten turn text; None
    when no tombstone names it.  Lets ``mem forget --match TEXT
    --scrub-sources`` scrub the agent's transcripts after a plain forget,
    when nothing in the store holds the text any more."""
    digest = value_digest(text)
    times = [t.time for t in all_tombstones(store) if t.value_sha256 == digest]
    return max(times) if times else None
