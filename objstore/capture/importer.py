"""``mem import``: agent transcripts (Claude Code, Codex) into sessions.

Streams each file through its reader (``claude_code``, ``codex``) and the
same exclusions and lineage rule as the hooks (``sync.import_filter``), and
appends the turns with the one turn appender
(``objstore.memory.appender.TurnAppender``, in pack mode): objects go into
packs of at most :data:`PACK_ROLL` objects, and each complete pack is made
durable before the session refs that name its turns are published and the
turns indexed.  Capture is idempotent: importing the same transcript again
adds nothing, and a file whose identity (``objstore.core.fileid``) is the
one recorded when this store last read it in full is not read again.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from blake3 import blake3

from objstore.capture import claude_code
from objstore.capture.rollup import rollup_files
from objstore.capture.sourcelist import ledger_sources, record_sources
from objstore.capture.sync import import_filter, states_fact, write_stated
from objstore.capture.takeback import take_back_stated
from objstore.capture.transcript import count_files, enable_fast_json, transcript_refused
from objstore.core.errors import InvalidInput, MemError
from objstore.core.hashkey import store_key
from objstore.core.fileid import ReadLedger, hidden_source, identity, is_hidden_source, ledger_path
from objstore.core.namerule import name_rule_digest
from objstore.core.refs import session_ref
from objstore.core.repack import MAX_PACKS
from objstore.core.store import Store
from objstore.core.text import replace_spans
from objstore.index.errors import IndexBusyError, SearchIndexError
from objstore.index.procmem import trim_heap
from objstore.memory.documents import grow_turn_layout
from objstore.memory.forget import merge_index_segments
from objstore.memory.indexbatch import IndexBatch
from objstore.memory.refill import Refill
from objstore.memory.hiddenids import path_holds
from objstore.memory.scope import parent_namespace, read_registry
from objstore.capture.sealedprompt import withhold_sealed
from objstore.memory.appender import TurnAppender
from objstore.memory.citations import FactCites, note_chains
from objstore.memory.sessions import CapturedTurn

TYPE_CHECKING = False  # typing's, without importing typing (as objstore.memory.appender)
if TYPE_CHECKING:
    from objstore.capture.parseworker import ParseWorker, ParseWorkers

INDEX_BATCH = 20_000
PACK_ROLL = 20_000  # objects per import pack: refs are published when a pack is complete
#: a new turns index is laid out (``TurnAppender.start_index``: its size extrapolated from what was read)
#: once this many turns are written and 1/LAYOUT_PART of the bytes to read are read, or at the first publish
#: (PACK_ROLL objects), whichever comes first: tantivy indexes from then on, beside the parsing
LAYOUT_TURNS = 4096
LAYOUT_PART = 10
#: bytes of transcripts to read from which an import parses them in a child process (its start costs ~50 ms)
PARALLEL_MIN_BYTES = 8 << 20
#: bytes of transcripts to read from which an import (``workers`` None, two cores or more) parses them in
#: two children (``ParseWorkers``, each session tree's files in one) rather than one: below it the second child's
#: start (~0.15 s of CPU) and the forecasts it loses at sessions that cross files cost more than it saves
#: (docs/benchmarks.md, "Session 15 (branch imp15)")
PARALLEL2_MIN_BYTES = 64 << 20
#: transcript paths the name rule asks (not vouched for by the read ledger) from which the import loads
#: the redaction's one-pass matcher before the first (``redact.expect_bulk``): its load (~4-8 ms) costs
#: less than the substring tests of ~40-70 names; the rule's CPU over the bench corpus's 451 halves, and
#: the sub-agent rollups at the end use it too (docs/benchmarks.md, "Session 34 (branch `imp34`)")
BULK_NAMES = 64
#: bytes of transcripts to read in this process from which it decodes them with msgspec when
#: installed (``transcript.enable_fast_json``: importing it costs ~15 ms; the parse worker always does)
FAST_JSON_MIN_BYTES = 1 << 20

#: harness name -> its reader module (``discover(paths)``, ``parse_file(path, stats)``), imported
#: when that harness is imported (a catch-up of Claude Code transcripts never loads Codex's reader)
READERS = {"claude-code": "objstore.capture.claude_code", "codex": "objstore.capture.codex"}
HARNESSES = tuple(READERS)


@dataclass
class ImportResult:
    """Summary of an import (the JSON of ``mem import --json``)."""

    files: int = 0
    #: sessions in the files given (those of unchanged files included, from the read ledger),
    #: sub-agent namespaces (``<session>.agent-<id>``) included, as ``mem sessions`` lists them
    sessions: int = 0
    #: how many of ``sessions`` are sub-agent namespaces
    subagent_sessions: int = 0
    sessions_new: int = 0
    turns_added: int = 0
    turns_seen: int = 0
    lines: int = 0
    lines_skipped: int = 0
    records_ignored: int = 0
    session_ids: list[str] = field(default_factory=list)
    files_skipped: int = 0
    #: of ``files_skipped``: files that are no transcript at all (not a regular file, such as
    #: a FIFO or a device, or read whole without one transcript record: binary, another format)
    files_not_transcripts: int = 0
    #: when no transcript file was found: the regular files the folders given hold (none named
    #: as a transcript: no ``.jsonl``), at most 1000; 0 for an empty folder
    files_other: int = 0
    files_unchanged: int = 0
    turns_skipped: int = 0
    turns_forgotten: int = 0
    secrets_redacted: int = 0
    #: turns stored without their working directory and project, which held a credential
    paths_refused: int = 0
    #: turns written in the places of lost placeholders (``objstore.memory.refill``), and how
    #: many of those places' gaps got their ids from before the damage back (verified)
    turns_refilled: int = 0
    gaps_refilled: int = 0
    gaps_verified: int = 0
    errors: list[str] = field(default_factory=list)
    index_error: str | None = None
    #: what "forget that" prompts took back (``takeback.TakenBack``, in order)
    taken_back: list = field(default_factory=list)


def import_transcripts(store: Store, harness: str, paths: Iterable[str | os.PathLike], *,
                       progress: Callable[[int, int], None] | None = None,
                       command: str | None = None, reread: bool = False,
                       workers: int | None = None) -> ImportResult:
    """Import agent transcripts (files or trees such as ``~/.claude/projects``
    or ``~/.codex/sessions``) as sessions of turns.

    Streams each file (bounded memory: one line at a time plus the set of
    source ids of the sessions it touches), appends new turns, and at each
    pack roll (and at the end) publishes the session refs by compare-and-swap,
    then indexes them.  A file that cannot be read (a dangling link, not a
    regular file, an I/O error) is skipped and counted, never fatal; so is a
    turn whose session id is not a valid ref name, and a file read whole in
    which no line is a transcript record (binary, another format: counted
    in ``files_not_transcripts`` too, and not marked read).

    A file whose identity (:mod:`objstore.core.fileid`: stat and a digest of
    its first and last bytes) is the one recorded when this store last read
    it in full is not read again (counted in ``files_unchanged``), so an
    import with nothing new reads no transcript body; ``reread`` reads every
    file regardless (still idempotent).  Memory stays bounded: the appender's
    session states are dropped after each publish.  Claude Code sub-agent
    files read are rolled up (``objstore.capture.rollup``, their summaries
    indexed in one write) and only then marked read, so an unchanged one
    costs nothing and a crash before its summary reads it again.

    Args:
        harness: ``claude-code`` or ``codex``.
        paths: files or directories; see the reader's ``discover``.
        progress: called as ``progress(files_done, files_total)``.
        workers: 1 parses and redacts the files in a child process
            (``objstore.capture.parseworker``) while this one stores what it
            has sent (the machine's second core); 2 or more, in that many
            children, a session tree's files in one (``ParseWorkers``); 0 parses here; None (default)
            uses one child when there are two cores and at least
            :data:`PARALLEL_MIN_BYTES` to read, two from
            :data:`PARALLEL2_MIN_BYTES`.  The result is the same
            either way; if a child dies, this process parses the rest.
    Returns:
        :class:`ImportResult`.
    Raises:
        InvalidInput for an unknown harness; FileNotFoundError for a path
        that does not exist; StoreLocked.
    """
    if harness not in READERS:
        raise InvalidInput(f"unknown harness {harness!r}; known: {', '.join(HARNESSES)}")
    reader = importlib.import_module(READERS[harness])
    command = command or f"import {harness}"
    paths = list(paths)
    reals: dict[Path, str] = {}   # each file's real path, as the walk found it
    found = list(reader.discover(paths, reals))
    res = ImportResult()
    stats = reader.ParseStats()
    bad_sessions: set[str] = set()
    # sessions seen -> "new" (no turn stored before this import)
    seen: dict[str, bool] = {}
    grown: set[str] = set()  # sessions this import added turns to
    with store.lock(command):
        packs_before = {p.name for p in store.packs.packs}   # the packs this import writes are the others
        refill = Refill(store)  # a mended session's lost turns go back in their places
        app = TurnAppender(store, command=command, harness=harness, pack=True, refill=refill,
                           withhold=withhold_sealed)
        # exclusions (no-capture sessions, excluded paths, #nomem) and records copied by a resume/fork
        wrap = import_filter(store, app)
        ledger: set[str] = set()
        read_ledger = ReadLedger(ledger_path(store.root / "cache", harness), _ledger_salt(store, harness))
        holds = path_holds(app.filter())   # a path holding a --match text: hidden in every list (test42 T1)
        lkey = _ledger_key(store, res.errors, holds)   # a path a forget hid is keyed hidden in the read ledger too
        files, named = _credential_named(found, reals, _vouched(read_ledger, lkey))
        _vouch(read_ledger, {reals[p] for p in files})
        if not files and not named:
            res.files_other = count_files(paths)
        read: list[tuple[str, list | None, list[str]]] = []  # files read in full, marked once their turns are published
        rolls_up = harness == "claude-code"
        held: list[tuple[str, list | None, list[str]]] = []  # sub-agent files read in full, marked after their rollup
        # what to read: a file's identity is taken before it is read (a later change reads it again)
        plan: list[tuple[str, list | None, bool, str | None]] = []  # (real path, identity, unchanged, error)
        for path in files:
            real = reals[path]
            if not path.is_file():
                plan.append((real, None, False, "not a regular file (or a dangling link)"))  # named once, by the caller's line
                continue
            ident = identity(path)
            plan.append((real, ident, not reread and read_ledger.unchanged(lkey(real), ident), None))
        # the files as strings from here on, one sharing its real path's when they are equal: a Path is ~0.5 KB,
        # held for the whole import (~12 MB for the 24,333 files of a million turns)
        files = [r if r == (given := os.fspath(p)) else given for p, (r, *_x) in zip(files, plan)]
        found = reals = None
        to_read = [p for p, (_r, _i, unchanged, err) in zip(files, plan) if not unchanged and err is None]
        # sub-agent files read: each gets its summary in its parent's namespace (unchanged: written)
        agents = [p for p, (_r, _i, unchanged, _e) in zip(files, plan)
                  if os.path.basename(p).startswith("agent-") and not unchanged]
        rolls_up = rolls_up and bool(agents)
        reg = read_registry(store.root)  # the child guesses the projects the import will name
        worker = _start_worker(reader, to_read, workers, harness, None if reg.damage else reg.projects,
                               store_key(store.root))
        failed: tuple[type[Exception], ...] = ()   # what a child's end raises, caught below
        if worker is not None:   # the child's module is loaded only when one is started (~10 ms)
            from objstore.capture.parseworker import WorkerFailed  # deferred: loaded with the child only
            failed = (WorkerFailed,)
        # bytes to read, and read so far: the turns this import brings are estimated from them
        # when its first index batch is committed (a new store's turns index is sized for them)
        sizes = {}
        for p in to_read:
            with contextlib.suppress(OSError):
                sizes[p] = os.stat(p).st_size
        to_read_bytes, read_bytes = sum(sizes.values()), 0
        if worker is None and to_read_bytes >= FAST_JSON_MIN_BYTES:
            enable_fast_json()  # msgspec when installed (the fast extra): the same records, decoded faster

        def add_file(path: Path, file_sids: set[str]) -> None:
            """Append one file's turns, parsed here or by the worker."""
            sub = path if rolls_up and path.name.startswith("agent-") else None   # #nomem's sub-agents
            if worker is None:
                _add_turns(app, wrap(reader.parse_file(path, stats), sub), path, res, bad_sessions, seen, grown,
                           file_sids, stated)
                return
            src = _from_worker(worker, app, stats)
            _add_turns(app, wrap(src, sub), path, res, bad_sessions, seen, grown, file_sids, stated)
            for _ in src:  # the filters read every turn; if one stopped early, the next file still starts
                pass       # at its own messages

        # (turn id, prompt) of each added prompt that states a fact ("remember that …"): written at the end, as
        # the sync writes them (late), once every turn is published and indexed (test33 T21)
        stated: list = []
        laid_out = False  # app.start_index() called
        stored: set[str] | None = None  # the session refs, listed once an unchanged file's sessions are counted
        try:
            for i, name in enumerate(files):
                path = Path(name)
                real, ident, unchanged, err = plan[i]
                listed = err is None   # a file that is no transcript is never recorded as a source
                try:
                    if err is not None:
                        raise OSError(err)
                    res.files_unchanged += unchanged
                    file_sids: set[str] = set()
                    if unchanged:  # its sessions still count in the summary, as already stored
                        for sid in read_ledger.sessions_of(lkey(real)):
                            if sid in seen or sid in app.filter().sessions:
                                continue
                            if stored is None:
                                stored = _session_refs(store)
                            if sid in stored or store.refs.read(session_ref(sid)) is not None:
                                seen[sid] = False
                    else:
                        counts = (res.turns_seen, res.turns_skipped)
                        lines0, bad0, foreign0 = stats.lines, stats.lines_skipped, stats.records_foreign
                        skipped0 = bad0 + foreign0
                        try:
                            add_file(path, file_sids)
                        except failed:
                            # the child is gone: this file and the rest are parsed here (what was
                            # added from the child's part of this file is known now: skipped)
                            worker.close()
                            worker = None
                            res.turns_seen, res.turns_skipped = counts
                            add_file(path, file_sids)
                        finally:
                            app.redactions.clear()
                        lines = stats.lines - lines0
                        if lines and stats.lines_skipped + stats.records_foreign - skipped0 == lines:
                            # not one line was a record of the harness (bad lines, or JSON such as
                            # {"x": 1}): not marked read, so each import says so again
                            res.files_skipped += 1
                            res.files_not_transcripts += 1
                            # its lines are told of here, not counted again as bad lines (test26 V14)
                            stats.lines_skipped, stats.records_foreign = bad0, foreign0
                            res.errors.append(f"{path}: not a {harness} transcript (none of its "
                                              f"{lines} lines is a transcript record); skipped")
                            listed = False
                        else:
                            read.append((real, ident, sorted(file_sids)))
                except OSError as e:
                    res.files_skipped += 1
                    res.files_not_transcripts += err is not None
                    res.errors.append(f"{path}: {e.strerror or e}")
                if listed:   # read (or read before): cache/imported-files lists it for scan and --scrub-sources
                    ledger.add(real)
                read_bytes += sizes.get(name, 0)
                if not laid_out and app.added >= LAYOUT_TURNS and read_bytes * LAYOUT_PART >= to_read_bytes:
                    # tantivy indexes from here on, not only after the first publish
                    app.expected_turns = expected_turns(app.added, read_bytes, to_read_bytes)
                    app.start_index()
                    laid_out = True
                last = i == len(files) - 1
                if last or app.pending >= PACK_ROLL or len(app.docs) >= INDEX_BATCH:
                    app.expected_turns = expected_turns(app.added, read_bytes, to_read_bytes)
                    # the index of this batch is written in the background while the next files are read
                    # (the last one: while the rollups run)
                    ierr = app.publish(index=res.index_error is None, wait=last and not rolls_up)
                    res.index_error = res.index_error or ierr
                    if not last:  # published: a later file of one of them reloads its state from the store
                        app.drop_states()
                        store.packs.drop_pages()  # the pack index pages its lookups read (all, as the store grows)
                    for entry in read:  # their turns are stored and their refs published
                        if rolls_up and os.path.basename(entry[0]).startswith("agent-"):
                            held.append(entry)  # a sub-agent's file: marked once its summary is written
                        else:
                            _mark(read_ledger, lkey, *entry)
                    read_ledger.save()
                    read = []
                if progress:
                    progress(i + 1, len(files))
            if worker is not None:
                worker.close()
                worker = None
            if rolls_up:
                # the rollups run while the last batch of turns is indexed; the index journal keeps
                # that batch's sessions and the summaries' keys until both are written
                ib = IndexBatch(store, defer_refs=True, clear_journal=False)
                # the summaries' chains are in hand: noted as they are written, the first forget
                # need not read each one again (a derived file: one not written is written by that forget)
                cites = FactCites.load(store)
                rollup_files(store, agents, final=True, command=command, batch=True,
                             chains=app.subagent_chains, index_batch=ib, cites=cites)
                ierr = app.wait_index(clear=ib.error is None)  # a failed flush: the next writer replays
                res.index_error = res.index_error or ierr
                with contextlib.suppress(MemError, OSError):
                    note_chains(store, (), command, memo=cites)
                for entry in held:
                    _mark(read_ledger, lkey, *entry)
                if held:
                    read_ledger.save()
            if stated:   # after the index: a fact's index commit clears the journal, which the batches had
                write_stated(store, stated, command, rules=app.filter())
        finally:
            if worker is not None:
                worker.close()
            app.close()
            record_sources(store, ledger, res.errors, roots=paths, holds=holds)
        if stated:   # "forget that" right after a "remember that" (test34b T28): the prompt hook's rule
            res.taken_back = take_back_stated(store, stated)
        # the run's lists and ledgers are done with: freed before the end merges, which reuse their memory
        plan = to_read = agents = sizes = read = held = ledger = read_ledger = reg = wrap = stored = None
        ib = cites = None
        if refill.replaced:  # turns rewritten above a filled gap: their old documents go
            ierr = refill.unindex() if res.index_error is None else None
            res.index_error = res.index_error or ierr
        if res.index_error is None and app.added:
            try:  # a store past the small layout its first import gave its turns index: laid out anew
                grow_turn_layout(store)
            except IndexBusyError:
                pass  # another writer holds the turns index: the next import lays it out
            except SearchIndexError as e:
                res.index_error = str(e)
        if _merge_packs(store, packs_before, res) and res.index_error is None:
            _merge_segments(store, res)
    res.turns_added = app.written
    res.turns_forgotten = app.forgotten + app.matches_redacted
    res.secrets_redacted = app.secrets_redacted
    res.paths_refused = app.paths_refused
    res.turns_refilled, res.gaps_refilled, res.gaps_verified = refill.refilled, refill.gaps_refilled, refill.gaps_verified
    res.files = len(files) - res.files_skipped
    res.files_skipped += len(named)
    res.errors[:0] = [_named_error(p) for p in named]
    res.lines, res.lines_skipped, res.records_ignored = stats.lines, stats.lines_skipped, stats.records_ignored
    res.session_ids = sorted(seen)
    res.sessions = len(seen)
    res.subagent_sessions = sum(1 for sid in seen if parent_namespace(sid) is not None)
    res.sessions_new = sum(1 for sid, new in seen.items() if new and sid in grown)
    if app.named_values:   # pin39 (prox38's limit): a password or PIN a turn named, from the session's earlier turns
        from objstore.memory.sessionearlier import withhold_earlier_after  # defer: forget; a password named only
        withhold_earlier_after(store, app.named_values)
    return res


def _merge_packs(store: Store, before: set[str], res: ImportResult) -> bool:
    """When the store holds more than ``MAX_PACKS`` packs (gc's rule), merge
    the small packs this import wrote (those not named in ``before``; one
    every :data:`PACK_ROLL` objects, ~5 MB: 113 at the million-turn corpus)
    into packs of up to ``PACK_TARGET_BYTES`` (``Store.merge_small``): a
    large import leaves about as many packs as ``mem gc`` would, and every
    later recall opens fewer (docs/benchmarks.md, "Session 28 (branch
    `pk28`)").  Runs once the refs and the index are written; an older pack
    is never rewritten (its cost is gc's), so this costs what the import
    wrote.  A merge that fails (a full disk) leaves every object readable
    and is told in ``res.errors``; a kill leaves what gc removes or merges.
    Returns whether the store held more than ``MAX_PACKS`` packs (a large
    import: :func:`_merge_segments` follows)."""
    store.packs.reload()
    if len(store.packs.packs) <= MAX_PACKS:
        return False
    mine = [p for p in store.packs.packs if p.name not in before]
    # what the import freed (its appender's state, its lists, tantivy's writers) goes back to the OS first,
    # so that the merge's buffers do not grow the heap above it (docs/benchmarks.md, "Session 30 (branch `rss30`)")
    gc.collect()
    store.packs.drop_pages()
    trim_heap()
    try:
        store.merge_small(mine)
    except (MemError, OSError) as e:
        res.errors.append(f"the {len(mine)} packs this import wrote were not merged ({e}); 'mem gc' merges them")
    return True


def _merge_segments(store: Store, res: ImportResult) -> None:
    """After a large import (one that left more than ``MAX_PACKS`` packs),
    merge each turn shard's small search-index segments as ``mem gc`` does
    (``objstore.memory.forget.merge_index_segments``): tantivy's merge
    policy leaves up to 7 small segments a shard beside the import's large
    ones, and every later new process opens each segment's files.  At the
    2.07M-turn corpus: 137 -> 106 segments for ~1.4 s CPU, the prompt hook
    ~5 % less CPU, recall ~2 %, every recall answer the same
    (docs/benchmarks.md, "Session 29 (branch `scl29`)").  Another writer
    holding the turns index (``IndexBusyError``) leaves them to gc; a
    failed merge leaves the shard as it was and is told in ``res.errors``."""
    try:
        merge_index_segments(store)
    except IndexBusyError:
        pass  # another writer holds the turns index: 'mem gc' merges them
    except (SearchIndexError, MemError, OSError) as e:
        res.errors.append(f"the small search index segments were not merged ({e}); 'mem gc' merges them")


def _session_refs(store: Store) -> set[str]:
    """The ids of the sessions that have a healthy ref, by one listing
    (``Refs.iter``: the packed file parsed once, ~1.6 ms for the bench
    corpus's 451 sessions, against ~8 ms for a read of each).  An id not in
    it (a forgotten session, a damaged ref, a name the listing normalizes
    otherwise) is read as before by the caller; so is every id when the
    listing fails."""
    try:
        return {name[len("sessions/"):] for name, _oid in store.refs.iter("sessions", damaged=[])}
    except (MemError, OSError):
        return set()


def _credential_named(files: list[Path], reals: dict[Path, str] | None = None,
                      vouched: Callable[[Path, str], bool] | None = None) -> tuple[list[Path], list[Path]]:
    """``(files to read, files whose name holds a credential)``: a
    transcript's name gives its session id when its records carry none
    (``<session>.jsonl``, ``agent-<id>.jsonl``) and its path is kept in the
    read ledgers, none of which is redacted; by the one name rule
    (:func:`objstore.memory.writechecks.check_key_credentials`) such a file is
    skipped whole (counted in ``files_skipped``), not read, not recorded;
    so is a file in a folder whose path holds one
    (:func:`objstore.core.redact.path_holds_credential`: ``…/sk-ant-…/x.jsonl``),
    which the ledgers and the turns' project would keep.  The one rule of
    every sync too (:func:`objstore.capture.transcript.transcript_refused`).
    ``reals``: each file's real path, when known; ``vouched(path, real)``:
    whether the rule need not be asked again (:func:`_vouched`)."""
    reals = reals or {}
    ask = [p for p in files if not (vouched and vouched(p, reals[p]))]
    if len(ask) >= BULK_NAMES:
        from objstore.core.redact import expect_bulk  # defer: the rules compile at import
        expect_bulk()   # the one-pass matcher from the first name: the import's serial head and tail
    named = [p for p in ask if transcript_refused(p, reals.get(p))]
    if not named:
        return files, []
    drop = set(named)
    return [p for p in files if p not in drop], named


def _vouched(read_ledger: ReadLedger, lkey: Callable[[str], str]) -> Callable[[Path, str], bool] | None:
    """``vouched(path, real)`` for :func:`_credential_named`, or None when the
    read ledger was not vouched for under the name rule this mem runs
    (:func:`objstore.core.namerule.name_rule_digest`, the ledger's
    ``names``).  True when the ledger keys ``real`` (so the rule found it
    clean) and ``path`` is ``real`` as given (no link, no ``..``): the same
    string, the same rule, the same verdict, without compiling the rule (with
    nothing new, ~90 of ~210 ms of CPU for the bench corpus's 451 files).  A
    key a forget hid is asked again (the ledger holds no clear path to
    trust)."""
    digest = name_rule_digest()
    if digest is None or read_ledger.names != digest:
        return None
    files = read_ledger.files
    return lambda path, real: real in files and lkey(real) == real and os.path.abspath(path) == real


def _vouch(read_ledger: ReadLedger, clean: set[str]) -> None:
    """Vouch for ``read_ledger`` under the name rule this mem runs, once its
    import asked the rule of its own files (``clean``: the real paths it
    found clean): every other key it holds in the clear is asked too, and one
    that now holds a credential (a rule added since) is dropped
    (:meth:`ReadLedger.vouch`).  Costs one check per such key, once per
    change of the rule; nothing when the ledger is vouched for already or
    the rule's code cannot be read."""
    digest = name_rule_digest()
    if digest is not None and read_ledger.names != digest:
        read_ledger.vouch(digest, lambda key: key in clean or is_hidden_source(key) or not transcript_refused(key))


def _named_error(p: Path) -> str:
    """The error line of a file :func:`_credential_named` skipped; a folder
    holding a credential is not shown at all."""
    from objstore.core.redact import path_holds_credential  # deferred: the rules compile at import
    if path_holds_credential(os.path.dirname(os.path.abspath(p))):
        return ("a transcript's folder holds a credential (its path would be stored in the clear): file skipped, "
                "nothing of it stored; rename the folder to import it")
    return (f"{_shown(p)}: the file name holds a credential (a session id is taken from it); file "
            "skipped, nothing of it stored: rename it to import it")


def _shown(path: Path | str) -> str:
    """``path`` as a message shows it: what of its file name holds a
    credential (:func:`objstore.core.redact.name_hits`) as ``[REDACTED]``."""
    from objstore.core.redact import name_hits  # deferred: the redaction rules compile at import
    head, name = os.path.split(str(path))
    hits = name_hits(name)
    if not hits:
        return str(path)
    return os.path.join(head, replace_spans(name, [(h.start, h.end) for h in hits], "[REDACTED]"))


def _add_turns(app: TurnAppender, turns: Iterable[CapturedTurn], path: Path, res: ImportResult,
               bad_sessions: set[str], seen: dict[str, bool], grown: set[str], file_sids: set[str],
               stated: list | None = None) -> None:
    """Append one file's (filtered) turns; counts into ``res``; ``stated``
    receives ``(turn id, turn)`` of each prompt added that states a fact
    (``sync.states_fact``).  OSError propagates."""
    try:
        _add_each(app, turns, path, res, bad_sessions, seen, grown, file_sids, stated)
    except BaseException:
        app.refill.end_file(app, read_whole=False)  # records kept for a lost turn's place wait for a whole read
        raise
    app.refill.end_file(app)


def _add_each(app: TurnAppender, turns: Iterable[CapturedTurn], path: Path, res: ImportResult,
              bad_sessions: set[str], seen: dict[str, bool], grown: set[str], file_sids: set[str],
              stated: list | None = None) -> None:
    for ct in turns:
        res.turns_seen += 1
        sid = app.valid_sid(ct.session)
        if sid is None:
            if ct.session not in bad_sessions:
                bad_sessions.add(ct.session)
                res.errors.append(f"{_shown(path)}: a session id holds a credential (never stored nor shown); "
                                  "its turns skipped" if ct.session in app.credential_sids else
                                  f"{_shown(path)}: session id {ct.session[:80]!r} is not usable; turns skipped")
            res.turns_skipped += 1
            continue
        if sid not in app.filter().sessions and sid not in seen:  # a forgotten one stays gone
            seen[sid] = app.state(sid).head is None
        file_sids.add(sid)
        forgotten = app.forgotten
        if (oid := app.add(ct)) is not None:
            grown.add(sid)
            if stated is not None and app.forgotten == forgotten and states_fact(ct):
                stated.append((oid, ct))


def _start_worker(reader, to_read: list[str], workers: int | None, harness: str,
                  registry: dict[str, str] | None = None, key: bytes | None = None) -> ParseWorker | ParseWorkers | None:
    """A :class:`ParseWorker` for ``to_read`` (``workers`` 1), :class:`ParseWorkers`
    (``workers`` 2 or more), or None: ``workers`` 0, one core, less than
    :data:`PARALLEL_MIN_BYTES` to read (``workers`` None), or the child cannot
    be started (then this process parses).  ``workers`` None is 1, or 2 from
    :data:`PARALLEL2_MIN_BYTES` to read."""
    if workers == 0 or not to_read or not sys.executable or (workers is None and (os.cpu_count() or 1) < 2):
        return None
    if workers is None:
        size = _bytes_of(to_read)
        if size < PARALLEL_MIN_BYTES:
            return None
        workers = 2 if size >= PARALLEL2_MIN_BYTES else 1
    from objstore.capture.parseworker import ParseWorker, ParseWorkers  # deferred: ~10 ms, a child's only
    try:
        if workers > 1:
            return ParseWorkers(reader.__name__, to_read, harness, registry, workers,
                                tree_of=getattr(reader, "tree_key", None), key=key)  # a session tree in one child
        return ParseWorker(reader.__name__, to_read, harness, registry, key)
    except OSError:
        return None


def _bytes_of(paths: list[str]) -> int:
    """The total size of the files in ``paths`` (those that cannot be stat'ed count 0)."""
    total = 0
    for p in paths:
        try:
            total += os.stat(p).st_size
        except OSError:
            pass
    return total


def _from_worker(worker: ParseWorker, app: TurnAppender, stats) -> Iterator[CapturedTurn]:
    """One file's turns as the worker sends them, their redactions handed to
    ``app`` (``TurnAppender.redactions``; those of the last chunks only, so
    memory stays bounded: an older one is computed again if asked for).
    Raises OSError when the file could not be read to its end (the turns
    before it are yielded first), WorkerFailed when the child is gone."""
    recent: list[list[str]] = []
    for msg in worker.messages():
        if msg[0] == "turns":
            if len(recent) >= 4:
                for t in recent.pop(0):
                    app.redactions.pop(t, None)
            texts = []
            for row in msg[1]:
                (session, source, role, text, ts, cwd, project, alias, entrypoint, redacted, n) = row[:11]
                if text:
                    app.redactions[text] = (text, 0) if redacted is None else (redacted, n)
                    texts.append(text)
                yield CapturedTurn(session, source, role, text, ts, cwd, project, alias, entrypoint,
                                   row[11] if len(row) > 11 else None, tuple(row[12]) if len(row) > 12 else (),
                                   row[13] if len(row) > 13 else "")
            recent.append(texts)
        else:
            _tag, counts, err = msg
            files, lines, skipped, ignored = counts[:4]
            stats.files += files
            stats.lines += lines
            stats.lines_skipped += skipped
            stats.records_ignored += ignored
            stats.records_foreign += counts[4] if len(counts) > 4 else 0
            if err is not None:
                raise OSError(err)


def _ledger_key(store: Store, damaged: list[str] | None = None,
                holds: Callable[[str], bool] | None = None) -> Callable[[str], str]:
    """``key(real path) -> str``: the key of a transcript in the import read
    ledger (``cache/read-ledger-<harness>.json.z``): its real path, or, for a
    path a forget hid in ``cache/imported-files`` (it names a forgotten
    text: ``forgetfiles``, ``core.fileid.hidden_source``), the same hidden
    form, so a re-import never writes a forgotten path back in the clear;
    so is a path ``holds`` says holds a ``--match`` text (``hiddenids.path_holds``).
    ``damaged``: as :func:`~objstore.capture.sourcelist.ledger_sources` (a damaged list is rebuilt here)."""
    hidden = {x for x in ledger_sources(store, damaged) if is_hidden_source(x)}
    if not hidden and holds is None:
        return lambda real: real
    return lambda real: h if (h := hidden_source(real)) in hidden or (holds and holds(real)) else real


def _mark(read_ledger: ReadLedger, lkey: Callable[[str], str], real: str, ident: list | None,
          sessions: list[str]) -> None:
    """Mark ``real`` read in ``read_ledger`` under its key (:func:`_ledger_key`);
    a hidden one loses any entry an older mem wrote under its clear path."""
    key = lkey(real)
    read_ledger.mark(key, ident, sessions)
    if key != real:
        read_ledger.forget(real)


def _ledger_salt(store: Store, harness: str) -> str:
    """What a file's import depends on besides its bytes: the harness and the
    capture configuration (exclusions, marker); a change re-reads every file."""
    try:
        cfg = (store.root / "config.toml").read_bytes()
    except OSError:
        cfg = b""
    return f"{harness}:{blake3(cfg).hexdigest(length=16)}"


def expected_turns(added: int, read_bytes: int, total_bytes: int) -> int:
    """The turns an import is expected to index in all, by extrapolation:
    ``added`` turns from the first ``read_bytes`` of ``total_bytes`` bytes of
    transcripts (0 when nothing was read yet).  Sizes a new store's turns
    index (``SearchIndex.stream``)."""
    if read_bytes <= 0 or added <= 0:
        return 0
    return -(-added * max(total_bytes, read_bytes) // read_bytes)


def import_claude_code(store: Store, paths: Iterable[str | os.PathLike], **kw) -> ImportResult:
    """:func:`import_transcripts` for Claude Code."""
    return import_transcripts(store, "claude-code", paths, **kw)


#: the other harness of each, for :func:`other_harness`
_OTHER = {"claude-code": "codex", "codex": "claude-code"}
#: how many lines of a file :func:`other_harness` looks at
_SNIFF_LINES = 64


def other_harness(path: str | os.PathLike, harness: str) -> str | None:
    """The other harness (``"codex"`` for ``"claude-code"`` and back) whose
    transcript the file ``path`` is, when none of its first
    :data:`_SNIFF_LINES` lines is a record of ``harness`` and one is a record
    of the other (``claude_code.is_record``, ``codex.is_record``): the hint
    for a person who gave one harness's file to the other's import (test16
    F13); None otherwise, and for a path that is no regular file or cannot be
    read.  Reads at most those lines."""
    other = _OTHER.get(harness)
    if other is None:
        return None
    from objstore.capture import codex  # deferred: a Claude Code import needs it only for this hint
    mine, theirs = ((claude_code.is_record, codex.is_record) if harness == "claude-code"
                    else (codex.is_record, claude_code.is_record))
    found = False
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            for n, line in enumerate(f):
                if n >= _SNIFF_LINES:
                    break
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(rec, dict):
                    continue
                if mine(rec):
                    return None
                found = found or theirs(rec)
    except OSError:
        return None
    return other if found else None
