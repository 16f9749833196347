"""The list of transcript files a store has captured from:
``<store>/cache/imported-files`` (the files ``mem import`` read, recorded
by :func:`record_sources`, with the folders named to those imports in
``cache/import-roots``) and the hooks' cursors, read by
:func:`imported_sources` for ``mem scan``, ``mem forget --scrub-sources``
and ``mem doctor``.  Split out of :mod:`objstore.capture.importer`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from objstore.capture.cursors import iter_cursors
from objstore.capture.transcript import transcript_refused
from objstore.capture.transcriptfile import is_transcript_file
from objstore.core.atomic import atomic_write
from objstore.core.fileid import hidden_source, is_hidden_source, load_ledger
from objstore.core.store import Store

__all__ = ["LEDGER_FILE", "ROOTS_FILE", "imported_sources", "import_roots", "ledger_sources", "record_sources"]

LEDGER_FILE = "cache/imported-files"
#: the folders named to ``mem import`` (a file named: its folder), one absolute path a line: where
#: the files of the ledger's hidden entries are looked for besides the harnesses' folders (test26 V10)
ROOTS_FILE = "cache/import-roots"


def imported_sources(store: Store, damaged: list[str] | None = None, *, hooked: bool = True,
                     roots: Iterable[str | os.PathLike] = (), neighbours: bool = False,
                     unfound: list[int] | None = None) -> list[str]:
    """Every transcript file this store has captured from (absolute paths,
    sorted): those ``mem import`` read (:func:`ledger_sources`) and those
    the hooks read (Claude Code capture: the path of each transcript cursor,
    ``cache/cursors``, :func:`objstore.capture.cursors.iter_cursors`, each
    while it is a transcript: ``transcriptfile.is_transcript_file``).  The
    one list ``mem scan`` and ``mem forget --scrub-sources`` read, so a
    transcript is scanned and scrubbed the same way whoever captured it.
    ``damaged``: as :func:`ledger_sources`; ``hooked=False``: the imported
    files alone (``mem doctor`` warns about those it can no longer read;
    Claude Code deletes old transcripts itself).  ``roots``: the
    transcript folders (the harnesses' defaults) walked to find the files
    of the ledger's hidden entries (a forget hid a path naming a forgotten
    text: ``forgetfiles.hidden_source``), with the folders imports were
    given (:func:`import_roots`); a hidden file elsewhere (moved, deleted,
    or its folder's name forgotten too) is not found, and ``unfound`` (a
    list) gets the number of such entries appended, so a caller can say
    that many captured files were not checked (test26 V10: ``mem scan``
    said "found nowhere" of a text the transcripts still held).  ``neighbours``: also every ``*.jsonl`` file beside a captured
    one (same folder, not walked further): the transcripts the next import
    or SessionStart catch-up would read from those folders, not captured
    yet (test16b B9: ``mem scan`` said "found nowhere" and
    ``--scrub-sources`` left such a file holding the text, which the next
    import stored).  Never raises for the files' content."""
    roots = list(roots)
    paths = set(ledger_sources(store, damaged))
    hooks = [c.path for c in iter_cursors(store)] if hooked else []
    hidden = {x for x in (*paths, *hooks) if is_hidden_source(x)}   # a hidden cursor too (Cursor.hidden)
    paths -= hidden
    if hidden:
        found = _find_hidden(hidden, (*roots, *import_roots(store)))
        paths |= found
        if unfound is not None:
            unfound.append(len(hidden) - len({hidden_source(p) for p in found} & hidden))
    # a hook's path only while it is a transcript: an event may name any file, an older mem kept it (fresh42 F13)
    paths.update(p for p in hooks if os.path.isabs(p) and "\0" not in p and is_transcript_file(p, roots))
    if neighbours:
        paths |= {p for p in _neighbours(paths) if is_transcript_file(p, roots)}
    return sorted(paths)


def _neighbours(paths: set[str]) -> set[str]:
    """The regular ``*.jsonl`` files in the folders of ``paths`` (not walked
    further, symlinks not followed) that an import would read: not one whose
    path holds a credential (``transcript.transcript_refused``, the one rule
    ``mem import`` skips such a file by: never captured, and its path is
    never shown); a folder that cannot be listed adds nothing."""
    found: set[str] = set()
    for folder in {os.path.dirname(p) for p in paths}:
        try:
            with os.scandir(folder) as it:
                found.update(e.path for e in it if e.name.endswith(".jsonl") and e.is_file(follow_symlinks=False))
        except OSError:
            continue
    new = sorted(found - paths)
    return {p for p in new if not transcript_refused(p)}


def _find_hidden(hidden: set[str], roots: Iterable[str | os.PathLike]) -> set[str]:
    """The files under ``roots`` (walked, symlinked folders not followed;
    a folder under another walked once) whose absolute path hashes to one
    of the ``hidden`` ledger entries."""
    found = set()
    tops = sorted({os.path.abspath(r) for r in roots})
    tops = [r for i, r in enumerate(tops) if not any(r.startswith(t.rstrip(os.sep) + os.sep) for t in tops[:i])]
    for root in tops:
        for d, _dirs, files in os.walk(os.path.abspath(root)):
            for f in files:
                path = os.path.join(d, f)
                if hidden_source(path) in hidden:
                    found.add(path)
    return found


def ledger_sources(store: Store, damaged: list[str] | None = None) -> list[str]:
    """Transcript files ``mem import`` has read (absolute paths).  Kept in
    ``<store>/cache/imported-files``:
    one path a line, UTF-8 with undecodable bytes of a path escaped
    (``surrogateescape``, as ``os.fsdecode``).

    The file is a cache: a line that is not an absolute path (damage: a
    stray byte, a torn write) is dropped and the file rebuilt from its sound
    lines and the files the read ledgers (``cache/read-ledger-*.json.z``, ``*.json``) list;
    a sentence saying so is appended to ``damaged`` when given.  Never raises
    for the file's content."""
    p = store.root / LEDGER_FILE
    try:
        data = p.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as e:
        if damaged is not None:
            damaged.append(f"{LEDGER_FILE} cannot be read ({e.strerror or e}): "
                           "--scrub-sources sees only the files the read ledgers list")
        return sorted(_read_ledger_files(store))
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    paths = {x for x in lines if (os.path.isabs(x) and "\0" not in x) or is_hidden_source(x)}
    bad = sum(1 for x in lines if x and x not in paths)
    if bad:
        paths |= _read_ledger_files(store)
        body = "".join(x + "\n" for x in sorted(paths)).encode("utf-8", "surrogateescape")
        try:
            atomic_write(p, body)
            how = "rebuilt it"
        except OSError as e:
            how = f"could not rewrite it: {e.strerror or e}"
        if damaged is not None:
            damaged.append(f"{LEDGER_FILE} (a cache) had {bad} damaged line{'s' if bad != 1 else ''}: "
                           f"{how} from its sound lines and the read ledgers")
    return sorted(paths)


def _read_ledger_files(store: Store) -> set[str]:
    """The absolute paths the read ledgers of every harness list."""
    out: set[str] = set()
    for f in (store.root / "cache").glob("read-ledger-*.json*"):   # compressed, or from before session 22
        try:
            files = load_ledger(f).get("files") or {}
        except (OSError, ValueError, AttributeError):
            continue
        out.update(k for k in files if isinstance(k, str) and os.path.isabs(k) and "\0" not in k)
    return out


def import_roots(store: Store) -> list[str]:
    """The folders named to imports (``cache/import-roots``: absolute paths,
    one a line, as :func:`record_sources` writes them); a line that is no
    absolute path (damage) is skipped.  A forget drops a line naming a
    forgotten text (``forgetfiles.scrub_derived``: a line-oriented cache).
    Never raises for the file."""
    try:
        data = (store.root / ROOTS_FILE).read_bytes()
    except OSError:
        return []
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    return [x for x in lines if os.path.isabs(x) and "\0" not in x]


def record_sources(store: Store, paths: set[str], damaged: list[str] | None = None,
                   roots: Iterable[str | os.PathLike] = (), holds: Callable[[str], bool] | None = None) -> None:
    """Add transcript paths to the ledger of imported files (a damaged
    ledger is rebuilt first: :func:`ledger_sources`), and ``roots`` (the
    paths named to the import: a folder as it is, a file by its folder,
    made absolute) to :func:`import_roots`.  ``holds(path)``: whether a
    path holds a ``--match`` text (``memory.hiddenids.path_holds``): such a
    path is listed by ``hidden_source``, such a root by its nearest folder
    that holds none (where scan still finds its files), test42 T1."""
    _record_roots(store, roots, paths, holds)
    listed = set(ledger_sources(store, damaged))
    if holds is not None:
        paths = {hidden_source(x) if holds(x) else x for x in paths}
    new = {x for x in paths - listed if hidden_source(x) not in listed}   # a hidden one stays hidden
    if not new:
        return
    p = store.root / LEDGER_FILE
    p.parent.mkdir(parents=True, exist_ok=True)
    # a path holding a newline is kept by its hidden form (found again by walking the folders: fresh42 F23)
    with open(p, "a", encoding="utf-8", errors="surrogateescape") as f:
        f.write("".join((hidden_source(x) if "\n" in x else x) + "\n" for x in sorted(new)))


def _record_roots(store: Store, roots: Iterable[str | os.PathLike], paths: set[str],
                  holds: Callable[[str], bool] | None = None) -> None:
    """Append the folders of ``roots`` not listed yet to ``cache/import-roots``:
    only a folder that holds one of the transcript ``paths`` read (test26b W10:
    a folder where nothing was found was listed, and walked by every scan);
    one that ``holds`` a ``--match`` text by its nearest parent that holds none."""
    folders = set()
    for r in roots:
        a = os.path.abspath(os.fsdecode(r))
        folder = a if os.path.isdir(a) else os.path.dirname(a)
        top = folder.rstrip(os.sep) + os.sep
        if any(p.startswith(top) for p in paths):
            while holds is not None and holds(folder) and folder != os.path.dirname(folder):
                folder = os.path.dirname(folder)
            folders.add(folder)
    # a folder whose name holds a credential is written nowhere (as a transcript path so named, never read)
    new = {f for f in folders - set(import_roots(store)) - {"", os.sep} if not transcript_refused(f)}
    if not new:
        return
    p = store.root / ROOTS_FILE
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "a", encoding="utf-8", errors="surrogateescape") as f:
        f.write("".join(x + "\n" for x in sorted(new) if "\n" not in x))
