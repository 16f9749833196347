"""``mem doctor``: checks that the store and its wiring are healthy, each
finding with the command that fixes it.

Checks (each returns findings, never raises for what it finds):

* ``store``: each path of ``core.storelayout.LAYOUT`` present is of its type (a folder
  where a file should be stops the commands that use it); a check stopped
  by damage it reads is a finding of that check (:func:`run_check`):
  doctor reports, never stops.  A store this user cannot write
  (``storeperms.unwritable_note``): an error while mem's hooks are
  installed, since every prompt is then lost, else a warning (fresh43 F10).
* ``permissions``: the store directory is the owner's only (0700 folders,
  0600 files); the store holds private text.
* ``index``: the derived search index exists, is complete (no ``PARTIAL``
  mark: ``objstore.index.searchindex``), is not behind the refs (its
  crash journal is empty once a ``remember`` committing its index is waited
  for; a live writer still at work is a warning, not an error, and so is a
  journal holding only new turns, which ``mem hook shell`` leaves for the
  next writer by design) and is not damaged (``SearchIndex.verify``: its
  generations open and their files match their checksums); a warning when it was built before terminal
  escape sequences were removed from texts (``mem reindex``).
* ``packs``: every pack file and its index are as written (each pack's
  whole-file checksums, ``Pack.verify_checksums``: a BLAKE3 of every byte,
  nothing inflated; test28 Y7) and every pack can be opened.  It does not
  read each packed object: ``mem fsck`` does (and names each damaged object).
* ``objects``: every loose object (a write since the last gc) decompresses
  and hashes to its id (test28b Z7); a session or fact key among them that
  no ref names is reported as ``mem fsck`` reports it (an error where fsck
  exits 13; ``objstore.porcelain.doctorobjects``, test33b T16).
* ``forget``: no forget was stopped before it wrote all its tombstones
  (``objstore.core.unfinished``): only the same forget, run again,
  finishes one; push, backup and export refuse until then.
* ``pull``: no pull was stopped after it installed its packs and before it
  set every ref new here (``objstore.core.pullstop``): a warning, with the
  ``mem pull`` that finishes it.
* ``config``: ``<store>/config.toml`` can be read: an unreadable one stops
  capture (an exclusion that cannot be read must not be ignored), and the
  hooks only log it.
* ``projects``: the project registry (``<store>/projects.json``) can be
  read: while it is damaged, projects it no longer names go by their
  qualified names and it is not rewritten (``objstore.memory.scope``); a
  folder it names whose identity changed (a remote added or changed) and
  that now goes by another name is a warning (``scope.moved_projects``);
  so is a folder whose repository was another project's in a folder now
  gone, when that name holds memory and its own none
  (``scope.copies_of_gone``; the checks: ``objstore.porcelain.doctorprojects``).
* ``locks``: no ``*.lock`` file left by a killed writer (a ref's or a
  file's lock, git's lockfile protocol) older than a minute.  A lock file a
  live process holds an flock on (``objstore.core.lock.lock_held``) is
  never stale, whatever its age; nor are the flock files of ``locks/``
  (the store-wide lock), ``.mem-init.lock`` (the store's creation) and ``run/`` (the resident helper's
  ``helper.lock``), kept between holders: the kernel drops a flock with
  its process.
* ``temps``: no temp file of a killed writer (``objstore.core.gc.stale_temps``:
  a pack's ``tmp-pack-*`` an import killed -9 left holds its turns), named
  with its size; ``mem gc`` deletes them.
* ``hooks``: the agent settings files the caller names run ``mem hook
  claude-code`` for every event mem installs, with a command that exists.
* ``refs``: ref and reflog files that hold no object id or a damaged line
  (``objstore.core.fsck.ref_file_problems``, fsck's own reading), and refs
  naming an object the store does not hold — a tombstone's above all, since
  what it forgets could then be written back (test29 P6); a fact, sealed or
  session ref that is gone while its reflog names its head (a deleted ref
  file, ``refs/facts``, ``refs/packed-sessions``), a fact ref naming
  another key's version (session 29's fresh helper), and a fact or sealed
  ref set back to an older version than its reflog's last move (a
  file-level restore: ``core.fsck.set_back_refs``, fsck's check; test34b
  T25).  Reads no object but
  the fact refs' heads (within ``doctorrefs.REF_LOOKUPS``).
* ``behind``: no hooked transcript is more than ``BEHIND_BYTES`` past its
  cursor (a warning: the hooks store a part per event; test29 P15).
* ``transcripts``: the transcripts the store imported from can still be read
  (a warning: capture goes on without them).
* ``remotes``: every remote answers and this store's sync key opens it.
* ``derive``: ``cache/derive-state.json`` (which turns derive already
  read) can be used (the caller asks ``objstore.derive.run.state_damage``);
  while it is damaged ``mem derive`` exits 13 and ``derive.auto`` does not
  run.  ``--fix`` renames it ``derive-state.json.damaged-<ms>`` (kept, as a
  damaged ``config`` is): the next run reads every session again (a value
  already stored is not written again: ``remember`` of the same value).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from pathlib import Path

from objstore.capture.cursors import drop_cursor, iter_cursors, unusable_cursors
from objstore.capture.shellcap import spool_waiting
from objstore.integrations.proxyspool import waiting_turns
from objstore.capture.sourcelist import imported_sources
from objstore.core.errors import MemError, PackFileMissing
from objstore.core.journal import STOPPED_FORGET, STOPPED_FORGET_FIX
from objstore.core.gc import stale_temps_note
from objstore.core import packzstd, pullstop
from objstore.core.packformat import ZSTD_VERSION, header_version
from objstore.core.packback import packs_to_put_back
from objstore.core.settings import config_problem, marker_problem, value
from objstore.core.lock import lock_held, lock_holder
from objstore.core.store import FACT_COMMIT_WAIT_S, FACT_WRITER, INIT_LOCK
from objstore.core.sealstate import plain_and_sealed
from objstore.memory.sealrules import rules_problem, rules_refused
from objstore.core.store import Store
from objstore.core.audit import damage_note as audit_damage_note
from objstore.core.storepath import folder_damage, refs_dir_damage
from objstore.core.storelayout import layout_damage
from objstore.core.storeperms import denied_notes, unwritable_note
from objstore.integrations.install import EVENT_TIMEOUTS, handler_home, is_mem_handler
from objstore.porcelain.doctorobjects import loose_findings
from objstore.porcelain.doctorrefs import refs_findings as _refs
from objstore.porcelain.doctorprojects import copied_findings, moved_findings, orphan_findings, registry_findings
from objstore.porcelain.finding import Finding
from objstore.porcelain.guardsay import guard_findings

LOCK_GRACE_S = 60
#: a hooked transcript this many bytes past its cursor is named (``behind``): more than one
#: hook event reads (``cmds._hookrun.SYNC_BYTES``), so its capture is behind (test29 P15)
BEHIND_BYTES = 8 << 20

#: folders of the store whose ``*.lock`` files are flocked, not created
#: per write: ``locks`` (the store lock) and ``run`` (the resident helper's
#: ``helper.lock``, ``objstore.resident.server``).  They stay between
#: holders and a flock dies with its process, so they are never stale.
FLOCK_DIRS = ("locks", "run")


def _permissions(root: Path) -> list[Finding]:
    loose: list[str] = []
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(dirpath, name)
            try:
                mode = os.lstat(p).st_mode
            except OSError:
                continue
            if stat.S_ISLNK(mode):
                continue
            if mode & 0o077:
                loose.append(p)
    try:
        if os.stat(root).st_mode & 0o077:
            loose.insert(0, str(root))
    except OSError:
        pass
    denied = [Finding("permissions", "error", note, note.rsplit("; ", 2)[-2], ())   # (fresh41 F7)
              for note in denied_notes(root)]
    if not loose:
        return denied
    return denied + [Finding("permissions", "error",
                    f"{len(loose)} file(s) or folder(s) of the store can be read by other users "
                    f"(e.g. {loose[0]})", f"chmod -R go-rwx {root}  (or: mem doctor --fix)", tuple(loose))]


def _layout(root: Path) -> list[Finding]:
    """An error for each path of ``core.storelayout.LAYOUT`` of the wrong
    type (``layout_damage``), with its fix; one naming a path that cannot
    be read."""
    try:
        damage = layout_damage(root)
    except OSError as e:
        p = e.filename or root
        return [Finding("store", "error", f"{p} cannot be read ({e.strerror})", f"check {p}", (str(p),))]
    return [Finding("store", "error", f"{d.path} is {d.other} where the store keeps {d.want}: the commands "
                    "that use it stop with an error",
                    "mem fsck --repair  (sets it aside)" if d.by_fsck else
                    f"mv {d.path} {d.path}.damaged  (mem makes it again)", (str(d.path),)) for d in damage]


def _audit(store: Store) -> list[Finding]:
    """A warning naming the lines of ``logs/audit`` that are not audit lines
    (``core.audit.damage_note``: fresh40 F10, skipped silently)."""
    note = audit_damage_note(store.reflog.root)
    return [Finding("audit", "warning", note, "nothing needed: the other lines are read (to start a clean log, "
                    "move logs/audit aside: mem makes it again; the old lines stay in the moved file)")] if note else []


def _codec(store: Store) -> list[Finding]:
    """An error when this Python has no zstd codec (``objstore.core.packzstd``)
    while the store holds version-7 packs or asks for them
    (``store.pack_codec = "zstd"``): every command that reads those packs, or
    writes one, exits 14 (test27 V10: doctor said "no problem found").  One
    header read per pack, and only without the codec."""
    if packzstd.zstd is not None:
        return []
    packs = sorted((store.root / "objects" / "pack").glob("*.pack"))
    v7 = [p for p in packs if header_version(p) == ZSTD_VERSION]
    try:
        asks = value(store.root, "store.pack_codec") == "zstd"
    except MemError:
        asks = False   # a config.toml that does not parse: the config check names it
    if not v7 and not asks:
        return []
    what = (f"{len(v7)} of the store's {len(packs)} packs are version 7 (zstd blocks)" if v7 else
            'config.toml asks for version-7 packs (store.pack_codec = "zstd")')
    return [Finding("codec", "error", f"{what} and this Python has no zstd codec: every command that reads "
                    "them" + (" or writes a pack" if asks else "") + " exits 14", packzstd.INSTALL_HINT)]


def _packs(store: Store) -> list[Finding]:
    """An error naming the packs that cannot be opened or whose whole-file
    checksums do not match (:meth:`objstore.core.packcheck.PackChecks.verify_checksums`):
    a read of every pack byte (~0.3 s a GB), no object inflated.  Without
    the zstd codec a version-7 pack is the ``codec`` check's, not damage."""
    packs = store.packs
    bad = [f"{idx.name}: {err}" for idx, err in packs.broken if not isinstance(err, PackFileMissing)]
    out = [Finding("packs", "error", f"{err.pack_path} is missing (not damaged: its index {idx.name} is intact; "
                   "its objects cannot be read until it is back)", "put the file back, then: mem fsck  ('mem fsck "
                   "--repair' keeps every ref and reflog as it is while a pack file is missing)")
           for idx, err in packs.broken if isinstance(err, PackFileMissing)]   # (test33 T17)
    out += [Finding("packs", "error", f"pack-{pb.name} is sound ({pb.count} objects), but {pb.where(store.root)} "
                    "in the quarantine", "mem fsck --repair  (puts it back)")
            for pb in packs_to_put_back(store.root)]
    for pack in packs.packs:
        if pack.version == ZSTD_VERSION and packzstd.zstd is None:
            continue
        bad += [f"pack {pack.name[:16]}: {p}" for p in pack.verify_checksums()]
    if not bad:
        return out
    return out + [Finding("packs", "error", f"{len(bad)} pack problem(s): the objects they hold may be lost "
                    f"(first: {bad[0]})", "mem fsck  (names each damaged object; then: mem fsck --repair)",
                    tuple(bad))]


def _unfinished(store: Store) -> list[Finding]:
    """A forget stopped before it wrote all its tombstones (``objstore.core.unfinished``), and a key
    both sealed and plain (a seal stopped half-way, ``objstore.core.sealstate``): an error each."""
    out = [Finding("forget", "error", f"{s.describe()} {s.stopped()}; push, backup and export refuse until it "
                   "is finished", s.rerun()) for s in store.unfinished.list()]
    try:
        both = plain_and_sealed(store)
    except MemError:
        both = []   # a damaged ref: mem fsck names it
    for what, rerun in pullstop.unfinished(store.root, store.refs.read):   # (shared with mem fsck)
        out.append(Finding("pull", "warning", what, rerun))
    return out + [Finding("seal", "error", f"{key} is both sealed and plain: a 'mem seal' was stopped before it "
                          "removed the plaintext, which search, recall and the agent's context still serve",
                          f"mem seal {key}  (or: mem fsck --repair)") for key in both]


def _writer_at_work(store: Store) -> bool:
    """True when the index journal is not empty because a live writer holding
    the store lock is still at work (an import, a forget), after waiting, as
    a reader does (``Store.try_recover``), up to ``FACT_COMMIT_WAIT_S``
    seconds for a ``remember`` committing its fact's index.  Never takes the
    lock: a stopped writer's journal is left for the findings to report."""
    lock = store.root / "locks" / "store.lock"
    deadline = time.monotonic() + FACT_COMMIT_WAIT_S
    while not store.journal.is_empty() and lock_held(lock):
        if lock_holder(lock).get("command") != FACT_WRITER or time.monotonic() >= deadline:
            return True
        time.sleep(0.05)
    return False


def _index(store: Store) -> list[Finding]:
    d = store.root / "index"
    if not d.is_dir() or not any(d.iterdir()):
        has_content = any(True for ns in ("facts", "sessions") for _ in store.refs.iter(ns, damaged=[], folders=[]))
        if not has_content:
            return []  # a new, empty store: nothing to index yet
        return [Finding("index", "error", "the search index is missing", "mem reindex")]
    if (d / "PARTIAL").is_file():
        return [Finding("index", "error", "the search index holds only what was written since it was deleted",
                        "mem reindex  (or any search: it rebuilds a partial index)")]
    if _writer_at_work(store):
        return [Finding("index", "warning", "a write is in progress: the search index catches up when "
                        "it ends", "wait for it, then run mem doctor again")]
    if not store.journal.is_empty():    # and no live writer holds the lock: one was stopped
        j = store.journal.read()
        if (j.forgets or j.turn_forgets or j.queue) and not store.unfinished.list():   # (else: see _unfinished)
            return [Finding("index", "error", STOPPED_FORGET, STOPPED_FORGET_FIX)]
        if j.sessions and not (j.facts or j.forgets or j.turn_forgets or j.queue or j.deletes or j.damaged or j.torn
                               or j.settled):
            # turns whose indexing was left to the next writer: 'mem hook shell' does so by design
            # (a shell's command waits for nothing); a stopped import's turns read the same, and
            # either way the next lock holder indexes them (test17 T12)
            n = len(j.sessions)
            return [Finding("index", "warning", f"new turns of {n} session{'s' if n != 1 else ''} wait in the "
                            "index journal (a hook such as 'mem hook shell' leaves its indexing to the next "
                            "writer): the next search or write indexes them",
                            "nothing to do  (mem reindex indexes them now)")]
        if not (damaged := store.index.verify()):   # a damaged file is said as such (fresh40 F3)
            return [Finding("index", "error", "the search index is behind the refs (an interrupted write)",
                            "mem reindex  (or any write: the next lock replays the journal)")]
    else:
        damaged = store.index.verify()
    if damaged:
        return [Finding("index", "error", f"the search index is damaged ({damaged[0]}"
                        + (f"; {len(damaged) - 1} more" if len(damaged) > 1 else "")
                        + "): search and recall fail with exit 13",
                        "mem fsck --repair  (or mem reindex)")]
    try:
        old, greek = not store.index.strips_escapes(), not store.index.folds_greek()
    except Exception:       # an index damaged in a way verify cannot see: search reports it
        old = greek = False
    if old:
        return [Finding("index", "warning", "the search index was built before terminal escape codes were "
                        "removed from texts: words inside colour codes are not found", "mem reindex")]
    if greek:   # (the README's "a store indexed by a mem from before 2026-12-05": fresh41 F21)
        return [Finding("index", "warning", "the search index was built before Greek accents were folded: "
                        "an accented Greek word is found only as it is spelled", "mem reindex")]
    return []


def _config(root: Path) -> list[Finding]:
    p = config_problem(root, stamp=False)   # stopped: error; defaults: a warning
    if p is None:
        why = marker_problem(value(root, "capture.ignore_marker"))   # written by hand (test44 T5)
        return [Finding("config", "warning", f"capture.ignore_marker {why}",
                        "mem config capture.ignore_marker '#nomem'")] if why else []
    where = f"{p.path} line {p.line}" if p.line else p.path
    if p.capture_stopped:
        return [Finding("config", "error", f"{where}: {p.reason}: capture is stopped until it can be read",
                        f"fix or remove {root / 'config.toml'}", (str(root / "config.toml"),))]
    return [Finding("config", "warning", f"{where}: {p.reason}: capture goes on, but every setting is at its "
                    "default until it can be read", f"fix or remove {root / 'config.toml'}",
                    (str(root / "config.toml"),))]


def _locks(root: Path, now: float) -> list[Finding]:
    stale = []
    for dirpath, dirs, files in os.walk(root):
        if Path(dirpath) == root and "index" in dirs:
            dirs.remove("index")  # tantivy's own lock files: it manages them
        for f in files:
            if not f.endswith(".lock"):
                continue
            p = Path(dirpath) / f
            if (p.parent.parent == root and p.parent.name in FLOCK_DIRS) or (p.parent == root and f == INIT_LOCK):
                continue  # flock files, kept between holders: never stale
            try:
                age = now - p.stat().st_mtime
            except OSError:
                continue
            if age > LOCK_GRACE_S and not lock_held(p):
                stale.append(str(p))
    if not stale:
        return []
    return [Finding("locks", "error", f"{len(stale)} stale lock file(s) left by a killed writer "
                    f"(e.g. {stale[0]}); the ref behind it cannot move",
                    "mem doctor --fix  (removes them)", tuple(stale))]


def _temps(store: Store) -> list[Finding]:
    """The temp files killed writers left (``gc.stale_temps``), by name and size."""
    note = stale_temps_note(store)
    return [Finding("temps", "warning", note, "mem gc  (deletes them)")] if note else []


def _shell_spool(store: Store) -> list[Finding]:
    """Shell records kept in the spool whose writers stopped before they
    were stored (``objstore.capture.shellcap``, test27b X5)."""
    n = spool_waiting(store.root)
    if not n:
        return []
    return [Finding("capture", "warning", f"{n} shell command record{'s' if n != 1 else ''} not stored yet, "
                    "kept in cache/shell-spool (the store lock was held, or a writer is storing them now)",
                    "nothing to do  (the next recorded shell command stores them)")]


def _proxy_spool(store: Store) -> list[Finding]:
    """Proxy capture batches kept in the spool whose proxy stopped (or
    still waits) before they were stored (``objstore.integrations.proxyspool``,
    test28 Y9)."""
    batches, turns = waiting_turns(store.root)
    if not batches:
        return []
    return [Finding("capture", "warning", f"{turns} proxy turn{'s' if turns != 1 else ''} ({batches} "
                    f"batch{'es' if batches != 1 else ''}) not stored yet, kept in cache/proxy-spool (the store "
                    "lock was held when the proxy stopped, or a proxy is storing them now)",
                    "mem proxy  (a proxy started on this store stores them first)")]


def _read_only(root: Path, settings: list[Path]) -> list[Finding]:
    """The store cannot be written (``storeperms.unwritable_note``): an
    error while mem's hooks are installed in one of ``settings`` (every
    prompt is then lost), else a warning (fresh43 F10)."""
    note = unwritable_note(root)
    if note is None:
        return []
    hooked = False
    for path in settings:
        try:
            doc = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        hooks = doc.get("hooks") if isinstance(doc, dict) else None
        hooked = hooked or isinstance(hooks, dict) and any(
            is_mem_handler(h) for gs in hooks.values() if isinstance(gs, list) for g in gs if isinstance(g, dict)
            for h in (g.get("hooks") if isinstance(g.get("hooks"), list) else []))
    what, fix = note.rsplit("; ", 1)
    return [Finding("store", "error" if hooked else "warning", what, fix, (str(root),))]


def _same_store(a: str | None, b: str | None) -> bool:
    """True when two stores as handlers name them (None: the default) are one."""
    if a is None or b is None:
        return a is b
    return os.path.realpath(a) == os.path.realpath(b)


def _hooks(settings: list[Path], command: str, hook_store: str | None = "") -> list[Finding]:
    """The agent's hooks: installed for every event, their command exists,
    and (``hook_store`` not ``""``) their exec-form handlers name this store
    (``hook_store``: its path as ``mem setup`` writes it, None for the
    default store); test33 T6: a moved store's hooks went on naming the old
    path, and doctor on the moved store said ok."""
    out = []
    for path in settings:
        try:
            doc = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            # not installed is a choice (MCP only, imports, after `mem setup --undo`), not damage: a
            # warning, exit 0 (fresh42 F7); hooks installed but broken stay errors below
            out.append(Finding("hooks", "warning", f"no agent settings at {path}: capture hooks are not installed "
                               "(Claude Code sessions are not captured)", "mem setup  (if you want them)"))
            continue
        except (OSError, ValueError) as e:
            out.append(Finding("hooks", "error", f"{path} is not readable JSON ({e})", f"fix {path} by hand"))
            continue
        hooks = doc.get("hooks") if isinstance(doc, dict) else None
        hooks = hooks if isinstance(hooks, dict) else {}
        missing, commands, homes = [], set(), set()
        for ev in EVENT_TIMEOUTS:
            hs = [h for g in (hooks.get(ev) or []) if isinstance(g, dict)
                  for h in (g.get("hooks") if isinstance(g.get("hooks"), list) else []) if is_mem_handler(h)]
            if not hs:
                missing.append(ev)
            commands |= {h["command"] for h in hs}
            homes |= {handler_home(h) for h in hs if isinstance(h.get("args"), list)}
        if missing and len(missing) == len(EVENT_TIMEOUTS):
            out.append(Finding("hooks", "warning", f"{path}: capture hooks are not installed (Claude Code "
                               "sessions are not captured)", "mem setup  (if you want them)"))
        elif missing:
            out.append(Finding("hooks", "error", f"{path}: mem's hook is missing for {', '.join(missing)}",
                               "mem setup"))
        for cmd in sorted(commands):
            exe = cmd.split()[0].strip("\"'") if " " in cmd else cmd
            if not (shutil.which(exe) or Path(exe).is_file()):
                out.append(Finding("hooks", "error", f"{path}: the hook runs {exe}, which does not exist "
                                   "(capture has stopped)", "mem setup  (rewrites the command)"))
        if hook_store != "" and homes and not any(_same_store(h, hook_store) for h in homes):
            named = ", ".join(sorted(h or "~/.mem (the default)" for h in homes))
            here = hook_store or "~/.mem (the default)"
            out.append(Finding("hooks", "warning", f"{path}: the hooks capture into {named}, not this store "
                               f"({here}): sessions are neither captured here nor served from here",
                               f"mem{'' if hook_store is None else ' --home ' + hook_store} setup  "
                               "(points the hooks at this store)"))
    return out


def _cursors(store: Store) -> list[Finding]:
    bad = unusable_cursors(store)
    if not bad:
        return []
    name, why = bad[0]
    d = store.root / "cache" / "cursors"
    return [Finding("cursors", "warning", f"{len(bad)} hook cursor(s) cannot be used (e.g. {d / name}: {why}): "
                    "capture reads that transcript again from its start, storing nothing twice",
                    "mem doctor --fix  (removes them)", tuple(n for n, _why in bad))]


def _behind(store: Store) -> list[Finding]:
    """Transcripts the hooks capture (a saved cursor, not hidden: a hidden
    one's path is never written) that grew more than :data:`BEHIND_BYTES`
    past their cursor (the same file: device and inode): the hooks catch
    up a chunk per event, ``mem hook catch-up`` or an import at once."""
    behind: list[tuple[str, int]] = []
    for cur in iter_cursors(store):
        if cur.hidden:
            continue
        try:
            st = os.stat(cur.path)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (cur.dev, cur.ino) and st.st_size - cur.offset > BEHIND_BYTES:
            behind.append((cur.path, st.st_size - cur.offset))
    if not behind:
        return []
    behind.sort(key=lambda b: -b[1])
    path, n = behind[0]
    return [Finding("behind", "warning", f"{len(behind)} transcript(s) the hooks capture are behind (e.g. {path}: "
                    f"{n / (1 << 20):.1f} MiB not stored yet); each hook event stores a part",
                    f"mem hook catch-up  (or mem import claude-code {path})", tuple(p for p, _n in behind))]


def _transcripts(sources: list[str]) -> list[Finding]:
    gone = [p for p in sources if not os.access(p, os.R_OK)]
    if not gone:
        return []
    return [Finding("transcripts", "warning", f"{len(gone)} imported transcript(s) can no longer be read "
                    f"(e.g. {gone[0]}); what was captured from them stays in the store",
                    "nothing to do unless they moved: mem import claude-code NEWPATH", tuple(gone))]


def _remotes(remotes: list[tuple[str, str | None]]) -> list[Finding]:
    return [Finding("remotes", "error", f"remote {name} cannot be read: {why}",
                    f"mem remote list; check the URL, credentials and sync key of {name}")
            for name, why in remotes if why]


def _remote_files(damage: list[tuple[str, str]]) -> list[Finding]:
    return [Finding("remotes", "error", problem, todo) for problem, todo in damage]


def _derive_state(store: Store, why: str | None) -> list[Finding]:
    if not why:
        return []
    return [Finding("derive", "error", f"derive's state {why}: mem derive exits 13 and derive.auto does not run "
                    "until it is set aside", "mem doctor --fix  (renames it; the next derive run reads every "
                    "session again)", (str(store.root / "cache" / "derive-state.json"),))]


def _seal_rules(store: Store) -> list[Finding]:
    why = rules_problem(store)   # test34b T23: a sealed value quoted later is stored in the clear
    return [Finding("seal", "error" if rules_refused(store) else "warning", why, "mem sealed rebuild-rules")] \
        if why else []   # an error when every write is refused (fresh41 F6)


def run_check(name: str, check, *args) -> list[Finding]:
    """``check(*args)``'s findings; a check stopped by damage it reads
    (a ``MemError`` such as a directory where the index journal should be,
    an ``OSError`` of a store path replaced by the other file type, a
    ``ValueError`` of garbage in a state file) is itself a finding (``error``,
    check ``name``, its message, the error's hint or ``mem fsck --repair``
    as the fix): doctor reports every damage and runs its other checks,
    never stops (test30 R2).  Callers that gather a check's input outside
    :func:`diagnose` (``cmds/doctor.py``) use it too."""
    try:
        return check(*args)
    except MemError as e:
        return [Finding(name, "error", f"the check could not run: {e}",
                        e.hint or "mem fsck  (it names the damage; mem fsck --repair sets it aside)")]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
        where = f" ({e.filename})" if isinstance(e, OSError) and e.filename else ""
        what = (e.strerror or type(e).__name__) if isinstance(e, OSError) else f"{type(e).__name__}: {str(e)[:80]}"
        if isinstance(e, PermissionError):   # no damage (fresh43 F5): its fix is a mode or an owner
            return [Finding(name, "error", f"the check could not run: {what}{where}: this user may not read or "
                            "write it, which is no damage", f"chmod u+rw {e.filename or 'the path'} (or fix its "
                            "owner or attributes: ls -l, lsattr); do not delete or replace it")]
        return [Finding(name, "error", f"the check could not run: {what}{where}: a file or folder of the "
                        "store is damaged or of the other type",
                        "mem fsck  (it names the damage; mem fsck --repair sets it aside), or move the path "
                        "named aside by hand")]


def diagnose(store: Store, *, settings: list[Path] = (), hook_command: str = "mem", hook_store: str | None = "",
             now: float | None = None, remotes: list[tuple[str, str | None]] = (),
             remote_files: list[tuple[str, str]] = (), derive_state: str | None = None) -> list[Finding]:
    """Run every check (module doc) and return the findings, errors first.

    Args:
        settings: agent settings files that should run mem's hooks (the
            caller finds them; objstore never looks them up itself).
        hook_command: the mem command the hooks should run (for messages).
        hook_store: this store as the hooks name it (``mem setup``'s
            ``--home`` path, None for the default store); a warning when
            the installed hooks name another; ``""``: not checked.
        remotes: ``(name, None or why it cannot be read)`` of each remote
            (``objstore.remote.inspect.remote_reachable``, asked by the caller).
        remote_files: ``(problem, what the user must do)`` of a damaged
            ``remotes.json`` or ``sync-key`` (``objstore.remote.config.damage``).
        derive_state: why ``cache/derive-state.json`` cannot be used, or None
            (``objstore.derive.run.state_damage``, asked by the caller).
    """
    now = time.time() if now is None else now
    checks = (("store", _layout, store.root), ("permissions", _permissions, store.root), ("codec", _codec, store), ("packs", _packs, store),
              ("objects", loose_findings, store), ("refs", _refs, store), ("forget", _unfinished, store),
              ("index", _index, store), ("config", _config, store.root), ("projects", registry_findings, store.root),
              ("projects", moved_findings, store.root), ("projects", copied_findings, store),
              ("projects", orphan_findings, store),
              ("locks", _locks, store.root, now), ("temps", _temps, store), ("audit", _audit, store),
              ("hooks", _hooks, list(settings), hook_command, hook_store), ("cursors", _cursors, store),
              ("store", _read_only, store.root, list(settings)),
              ("behind", _behind, store), ("transcripts", lambda s: _transcripts(imported_sources(s, hooked=False)),
                                            store),
              ("remotes", _remote_files, list(remote_files)), ("remotes", _remotes, list(remotes)),
              ("derive", _derive_state, store, derive_state), ("capture", _shell_spool, store),
              ("capture", _proxy_spool, store), ("seal", _seal_rules, store),
              ("guards", guard_findings, store))
    out = [f for name, check, *args in checks for f in run_check(name, check, *args)]
    return sorted(out, key=lambda f: f.severity != "error")


def diagnose_unopened(root: Path, why: str, *, settings: list[Path] = (), hook_command: str = "mem",
                      hook_store: str | None = "", now: float | None = None) -> list[Finding]:
    """The findings of a store that cannot be opened because its ``config``
    is missing or damaged, or a file or a link stands in place of ``refs/``
    (``core.storepath.refs_dir_damage``; ``why``: the open's message, e.g. ``<root>/config
    is not a mem store config``): that one as an error (``check`` ``store``,
    fixed by ``mem fsck --repair``, ``objstore.memory.opening.repair_config``), then every
    check that needs no open store (permissions, ``config.toml``, the
    project registry, stale locks, the agent's hooks), errors first.  The
    checks that read the store (index, forget, temps, cursors, transcripts,
    remotes) wait for the repair: the error says so."""
    now = time.time() if now is None else now
    root = Path(root)
    refs = (refs_dir_damage(root) or (None,))[0]   # "refs" or "refs/facts" (fresh39 F10), or None
    folder = next((n for n in ("objects", "logs", "cache") if folder_damage(root / n) is not None), None)
    out = [Finding("store", "error", f"{why}; the checks that read the store (index, forgets, temp files, "
                   "cursors, transcripts, remotes) were skipped until it is repaired",
                   f"mem fsck --repair  (sets what stands in place of {refs}/ aside in the quarantine and sets "
                   "each ref again from its reflog or objects)" if refs else
                   "mem fsck --repair  (sets it aside and makes an empty cache/: derived data)"
                   if folder == "cache" else
                   f"move {root / folder} out of the way, then restore it from a backup" if folder else
                   "mem fsck --repair  (sets a damaged config aside as config.damaged-<ms> and writes the "
                   "default one; objects and refs are kept)",
                   (str(root / (refs or folder or "config")),))]
    named = out[0].paths      # (the layout check does not name it twice)
    out += [f for name, check, *args in (("store", lambda r: [f for f in _layout(r) if f.paths != named], root),
                                         ("permissions", _permissions, root),
                                         ("config", _config, root), ("projects", registry_findings, root),
                                         ("projects", moved_findings, root),
                                         ("locks", _locks, root, now),
                                         ("hooks", _hooks, list(settings), hook_command, hook_store))
            for f in run_check(name, check, *args)]
    return sorted(out, key=lambda f: f.severity != "error")


def fix(store: Store | None, findings: list[Finding]) -> list[str]:
    """Repair what can be repaired without asking: tighten permissions,
    remove stale lock files and unusable hook cursors, set a damaged
    ``derive-state.json`` aside (under the store lock, which a derive run
    holds to write it).  Returns what was done, one line each.  ``store``
    is None for a store that cannot be opened (:func:`diagnose_unopened`):
    its findings hold no cursors.  Raises StoreLocked when the lock is busy
    for the derive state."""
    done = []
    for f in findings:
        if f.check == "permissions":
            for p in f.paths:
                try:
                    mode = os.lstat(p).st_mode
                    os.chmod(p, stat.S_IMODE(mode) & 0o700)
                except OSError:
                    continue
            done.append(f"tightened permissions of {len(f.paths)} path(s)")
        elif f.check == "locks":
            removed = 0
            for p in f.paths:
                if lock_held(p):
                    continue  # taken since diagnose looked: its holder lives
                try:
                    os.unlink(p)
                    removed += 1
                except FileNotFoundError:
                    pass
            done.append(f"removed {removed} stale lock file(s)")
        elif f.check == "cursors":
            still = dict(unusable_cursors(store))     # a hook may have rewritten one since
            removed = sum(drop_cursor(store, n) for n in f.paths if n in still)
            done.append(f"removed {removed} unusable hook cursor(s)")
        elif f.check == "derive":
            with store.lock("doctor --fix"):
                aside = f"{f.paths[0]}.damaged-{int(time.time() * 1000)}"
                try:
                    os.rename(f.paths[0], aside)
                except FileNotFoundError:
                    continue
            done.append(f"set the damaged derive state aside as {aside}")
    return done
