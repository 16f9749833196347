"""``mem scan TEXT``: every place a text still exists, so a person can check
a forget.

Places searched:

* **store objects**, decoded (fact versions, turns, queue items), matched
  with the one normalization (``normalize_value``: NFC, case-folded, white
  space runs folded); so are the objects of the **temp files** of a write
  under ``objects`` (a pack being written, or left by a killed writer,
  as far as it decompresses);
* **store files** that are not objects (logs, caches, state files, the
  shell history kept in the store), raw and zlib-decompressed, for the
  UTF-8 bytes of the text (a pack, in the quarantine too, by its
  decompressed objects: a damaged one is searched in what still
  decompresses and reported ``skipped``, never as a match); and the **names** of every file and folder of
  the store (a ref file is named by its key), normalized, percent-decoded;
* the **names** objects carry: the keys of fact versions, queue items,
  tombstones and sealed values, a fact's namespace (session and sub-agent
  names) and owner, a turn's session id and working directory (a name is
  text too: it can hold what a person typed);
* **the search index**, by asking it (its document store is compressed);
* **the agents' transcripts** this store captured from (imported, or read
  by the hooks: ``objstore.capture.sourcelist.imported_sources``), and
  their file and folder names;
* **other files** the caller names (shell history files);
* **remotes and backups**: blobs the caller reads back and decrypts
  (``objstore.remote.inspect.remote_plaintexts``), passed as ``blobs``.

Sealed values are encrypted and cannot match; a scan never prints the text,
only where it was found.
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from objstore.capture.scrub import find, is_regular, is_zsh_history, open_regular, plain_spans, unmetafy
from objstore.core.codec import decode
from objstore.core.gc import leftover_temps
from objstore.core.packformat import TEMP_PREFIX
from objstore.core.reachability import walk
from objstore.core.salvage import salvage_pack
from objstore.core.errors import InvalidInput, MemError
from objstore.core.objects import Fact, QueueItem, Sealed, Tombstone, Turn, normalize_value, value_digest
from objstore.core.store import Store
from objstore.core.text import confusable_fold, matcher
from objstore.core.textwindows import dotless
from objstore.memory.forget import scan_store
from objstore.memory.tombstones import holds_text, match_forms
from objstore.retrieval.search import search, searchable


#: how a ``skipped`` hit that stores nothing (a FIFO, a device, a socket) starts its detail
NOT_REGULAR = "not a regular file"


@dataclass(frozen=True, slots=True)
class ScanHit:
    """One place holding the text.

    Attributes:
        place: ``object``, ``store file``, ``temp file`` (under
            ``objects``: a write's, running or interrupted), ``index``,
            ``transcript`` or ``file``; ``skipped`` for a file that could not be searched
            whole (a damaged pack, one in the quarantine: the objects that
            still decompress were searched and hold no match; a file that
            does not open), or was not read (not a regular file), which is
            not a match (:func:`left_unread`).
        where: an object id with its type and key/session, or a path.
        detail: e.g. ``fact project/api/db v2`` or ``3 lines``.
    """

    place: str
    where: str
    detail: str = ""


def keys_naming(store: Store, text: str) -> list[str]:
    """The keys (plain and sealed, sorted, each once) whose name holds
    ``text``, matched as ``scan`` and ``forget --match`` match (case and
    white space ignored).  ``forget --match`` empties values, never renames
    a key: ``mem forget KEY`` forgets such a key whole (docs/forget.md), and
    ``forget --match`` and ``mem scan`` name these keys to say so.  Raises
    InvalidInput for a blank text."""
    norm = normalize_value(text)
    if not norm:
        raise InvalidInput("the text to match is blank")
    keys = {name.split("/", 1)[1] for ns in ("facts", "sealed") for name, _oid in store.refs.iter(ns, damaged=[])}
    m = matcher(text)
    return sorted(k for k in keys if m(k))


def kept_only_by_reflogs(store: Store, hits: list[ScanHit]) -> list[ScanHit]:
    """The ``object`` hits that no ref reaches and a reflog entry alone
    keeps (``core.reachability.walk``'s ``reflog_only``; session 23: an
    older mem's recovery of a killed forget left such entries): ``forget
    --match`` changes nothing there (it rewrites what refs reach), ``mem
    fsck --repair`` drops the entry when a tombstone forgets the object
    (``reflog_drops.drop_forgotten_reflog_entries``), then gc deletes it.
    Cost: one walk of the store from its refs and reflogs, only when
    ``hits`` holds an object."""
    objs = [h for h in hits if h.place == "object"]
    if not objs:
        return []
    only = walk(store, missing=[]).reflog_only
    return [h for h in objs if h.where in only]


def reading(text: str) -> Callable[..., bool]:
    """A predicate ``f(s, forms=None) -> bool``: whether ``s`` holds ``text`` as ``core.text.matcher``
    finds it (a substring, case and white space ignored, as it reads), or as the seal and forget checks
    read a text (han40, test39b B14: ``tombstones.holds_text`` of the rules of ``text``'s normalized and
    :func:`~objstore.core.textwindows.dotless` forms and their separator-folded ones,
    ``tombstones.match_forms``): "ıstanbul42" finds "ISTANBUL42" and back, "okapi-quetzal-5521" finds
    "okapi、quetzal、5521", "红色大象九号" finds "红色 大象 九号".  Cost: one SHA-256 per word start of
    ``s`` and rule length (:func:`~objstore.core.textwindows.find_matches`) beyond the matcher's test."""
    m = matcher(text)
    forms = {f for t in {text, confusable_fold(text)} for x in {normalize_value(t), dotless(normalize_value(t))}
             for f in match_forms(x)}
    rules = [(value_digest(f), len(f)) for f in forms]

    def hit(s: str, forms: dict | None = None) -> bool:
        return m(s, forms) or holds_text(s, rules)
    return hit


def _in(m: Callable[[str], bool], *fields: str) -> bool:
    """The text of ``m`` (``core.text.matcher``) occurs in one of ``fields``."""
    return any(f and m(f) for f in fields)


def _object_hit(obj: object, m: Callable[[str], bool]) -> str | None:
    """What an object holding the text in a value or in a name it carries
    is (``fact KEY vN``, ``turn S #n (role)``), or None: a fact's key,
    namespace (session and sub-agent names) and owner (the agent that wrote
    it), a turn's session id and working directory, a queue item's key and
    owner, a tombstone's or sealed value's key."""
    if isinstance(obj, Fact):
        if _in(m, obj.body, obj.key, obj.namespace, obj.owner):
            return f"fact {obj.key} v{obj.version}"
    elif isinstance(obj, Turn):
        if _in(m, obj.text, obj.session, obj.cwd):
            return f"turn {obj.session} #{obj.seq} ({obj.role})"
    elif isinstance(obj, QueueItem):
        if _in(m, obj.body, obj.key, obj.owner):
            return f"queue item for {obj.key}"
    elif isinstance(obj, (Tombstone, Sealed)):   # their keys are names a text can end up in
        if _in(m, obj.key, getattr(obj, "owner", "")):
            return f"{obj.TYPE_NAME} {obj.key}"
    return None


#: what an object hit's detail ends with when only the checks' reading finds the text there (:func:`reading`:
#: "okapi、quetzal、5521" for "okapi-quetzal-5521"): ``forget --match`` of the text does not find it
SPELLED_OTHERWISE = " (spelled otherwise)"
#: what a transcript hit's detail starts with when its file or folder name holds the text (no forget
#: changes a name: test43 T8)
NAME_HOLDS = "its name holds it"


def _object_hits(store: Store, m: Callable[[str], bool], plain: Callable[[str], bool] | None = None) -> list[ScanHit]:
    """The store's objects holding the text (:func:`_object_hit`); with ``plain`` (the ``core.text.matcher``
    of the text), the detail of a hit ``plain`` does not find ends with :data:`SPELLED_OTHERWISE`."""
    hits = []
    for oid in sorted(set(store.objects) | set(store.packs)):
        try:
            obj = decode(store.read_frame(oid), strict=False)
        except MemError:
            continue
        what = _object_hit(obj, m)
        if what is not None:
            hits.append(ScanHit("object", oid, what + (SPELLED_OTHERWISE if plain is not None
                                                       and _object_hit(obj, plain) is None else "")))
    return hits


def _temp_hits(store: Store, m: Callable[[str], bool], raw: set[str]) -> list[ScanHit]:
    """The temp files under ``objects`` (``gc.leftover_temps``: a pack or
    an object being written, or left by a killed writer; a ``.pack``
    without its index) holding the text: their objects, as far as they
    decompress (``salvage_pack``; a temp pack has no trailer), matched as
    the store's are, or their bytes (``raw``: the paths, relative to the
    store, :func:`~objstore.memory.forgetfiles.scan_store` found a needle
    in).  Tester finding U2: an import killed -9 left a pack's temp file
    holding its turns, and scan said "found nowhere"."""
    hits = []
    for p in leftover_temps(store):
        rel = os.path.relpath(p, store.root)
        if rel.split(os.sep, 1)[0] != "objects" or not p.is_file():
            continue
        frames: list[bytes] = []
        try:
            if p.suffix == ".pack" or (p.name.startswith(TEMP_PREFIX) and p.suffix != ".idx"):
                frames = [f for _oid, f in salvage_pack(p, trailer=p.suffix == ".pack")]
            else:   # a loose object's temp file: one zlib stream
                frames = [zlib.decompress(p.read_bytes())]
        except (OSError, zlib.error):
            pass
        found = []
        for frame in frames:
            try:
                what = _object_hit(decode(frame, strict=False), m)
            except MemError:
                continue
            if what is not None:
                found.append(what)
        if not found and rel not in raw:
            continue
        kind = ("a pack without its index ('mem fsck' names it)" if p.suffix == ".pack" else
                "a temp file of a write, running or interrupted ('mem gc' removes it when no write runs)")
        what = (f"{len(found)} object(s), e.g. {found[0]}, in " if found else "") + kind
        hits.append(ScanHit("temp file", str(p), what))
    return hits


def left_unread(hits: Iterable[ScanHit]) -> list[ScanHit]:
    """The ``skipped`` hits of ``hits`` that may hold stored bytes the scan
    could not read (a damaged pack's rest, a file that does not open), as
    against a FIFO, device or socket, which stores nothing: a scan with one
    found nowhere only where it looked (``mem scan`` exit 3)."""
    return [h for h in hits if h.place == "skipped" and not h.detail.startswith(NOT_REGULAR)]


def _name_hits(store: Store, m: Callable[[str], bool]) -> list[ScanHit]:
    """Files and folders of the store whose path (a ref named by a key,
    e.g. ``refs/facts/<key>``) holds the text."""
    hits = []
    for dirpath, dirs, files in os.walk(store.root):
        for name in (*dirs, *files):
            rel = os.path.relpath(os.path.join(dirpath, name), store.root)
            if m(name) or m(unquote(name)):
                hits.append(ScanHit("store file", str(store.root / rel), "its name"))
    return hits


def scan(store: Store, text: str, *, transcripts: Iterable[str] = (), files: Iterable[str | Path] = (),
         index: bool = True, blobs: Iterable[tuple[str, str, bytes]] = ()) -> list[ScanHit]:
    """Every place ``text`` still exists (see module doc).

    Args:
        text: what to look for (non-blank).
        transcripts: agent transcript files to search (JSON strings decoded).
        files: other files to search raw (shell history).
        index: also ask the search index.
        blobs: ``(place, name, plaintext)`` read elsewhere, e.g. every object
            of a remote (place ``remote NAME``).
    Returns:
        the hits, objects first; empty when the text is found nowhere
        (entries of place ``skipped`` say what could not be searched whole
        and are no match).
    Raises:
        InvalidInput: a blank text.
    Cost: decodes every object (O(store size)).
    """
    norm = normalize_value(text)
    if not norm:
        raise InvalidInput("nothing to scan for: the text is blank")
    m = reading(text)     # the one matching rule (as it reads too: core.text), and the checks' (B14)
    hits = _object_hits(store, m, matcher(text)) + _name_hits(store, m)
    needles = sorted({text.encode(), text.strip().encode(), norm.encode()} - {b""})
    unsure: list[str] = []
    irregular: list[str] = []
    unread: list[tuple[str, str]] = []
    raw = set()
    for rel in scan_store(store.root, needles, unsure, irregular, unread):
        if rel.split("/", 1)[0] != "objects":
            hits.append(ScanHit("store file", str(store.root / rel)))
        else:
            raw.add(rel)
    hits += _temp_hits(store, m, raw)
    hits += [ScanHit("skipped", str(store.root / rel), "a damaged pack: searched the objects that still "
                     "decompress; the rest cannot be read") for rel in unsure]
    hits += [ScanHit("skipped", str(store.root / rel), NOT_REGULAR + " (a FIFO, a device or a socket): "
                     "not read, it stores nothing") for rel in irregular
             if not rel.startswith("run/")]   # the resident helper's own socket (fresh40 F1)
    hits += [ScanHit("skipped", str(store.root / rel), f"could not be read ({why}): not searched")
             for rel, why in unread]
    if index and searchable(text):   # punctuation alone is in no index term
        try:
            for h in search(store, text, limit=50):
                if m(h.snippet or ""):
                    hits.append(ScanHit("index", h.id, f"{h.kind} {h.ref}"))
        except MemError as e:
            hits.append(ScanHit("index", "(not searchable)", str(e)))
    if transcripts:
        transcripts = [str(p) for p in transcripts]
        hits += [ScanHit("skipped", p, NOT_REGULAR + ": not read (a FIFO or a device a ledger lists)")
                 for p in transcripts if os.path.exists(p) and not is_regular(p)]
        for th in find(transcripts, text):
            hits.append(ScanHit("transcript", str(th.path), f"{th.lines} line(s)"))
        # a name holds text too: Claude Code names a project's folder after its working directory, every
        # character but a letter or digit written '-' (test28 Y3, test28b Z6: "Zeb Quill" -> "Zeb-Quill")
        folder = re.sub(r"[^A-Za-z0-9]", "-", text)
        fm = matcher(folder) if folder.strip("-") and folder != text else None
        named = {str(q) for q in (Path(t) for t in transcripts) for q in (q.parent, q)
                 if m(q.name) or (fm is not None and fm(q.name))}
        hits += [ScanHit("transcript", n, f"{NAME_HOLDS} (Claude Code names a project's folder after the "
                         "working directory): mem cannot rename it; rename or delete it yourself")
                 for n in sorted(named)]
    for place, name, data in blobs:
        if any(n in data for n in needles) or m(data.decode("utf-8", "replace")):
            hits.append(ScanHit(place, name))
    for p in map(Path, files):
        try:
            with open_regular(p) as f:
                data = f.read()
        except OSError as e:
            if p.exists() and not is_regular(p):
                hits.append(ScanHit("skipped", str(p), NOT_REGULAR + ": not read"))
            elif os.path.lexists(p):   # (no permission, a symlink whose target is gone)
                hits.append(ScanHit("skipped", str(p), f"could not be read ({e.strerror or type(e).__name__}): "
                                    "not searched"))
            continue
        if is_zsh_history(p):   # zsh writes its history metafied (test25 T19)
            data = unmetafy(data)
        if any(n in data for n in needles) or m(data.decode("utf-8", "replace")) \
                or plain_spans(data.decode("utf-8", "surrogateescape"), text):   # (a shell's continued line)
            hits.append(ScanHit("file", str(p)))
    return hits
