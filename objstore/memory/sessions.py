"""Sessions: capture transcripts as chains of turn objects, list and read them.

A session is a chain of :class:`Turn` objects linked by ``parent``;
``refs/sessions/<id>`` points at the last one.  Capture is idempotent: each
turn carries the id of its source record, and a record whose source is
already in the session's chain is skipped, so importing the same transcript
again adds nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from objstore.core.errors import MemError
from objstore.core.codec import encode
from objstore.core.objects import Turn
from objstore.core.refs import session_ref, validate_session_id
from objstore.core.store import Store, now_ms

INDEX_BATCH = 20_000
PACK_ROLL = 20_000  # objects per import pack: refs are published when a pack is complete


@dataclass(frozen=True, slots=True)
class TurnVersion:
    """A turn with its id."""

    id: str
    turn: Turn


@dataclass
class ImportResult:
    """Summary of an import (the JSON of ``mem import --json``)."""

    files: int = 0
    sessions: int = 0
    sessions_new: int = 0
    turns_added: int = 0
    turns_seen: int = 0
    lines: int = 0
    lines_skipped: int = 0
    records_ignored: int = 0
    session_ids: list[str] = field(default_factory=list)
    files_skipped: int = 0
    files_unchanged: int = 0
    turns_skipped: int = 0
    turns_forgotten: int = 0
    secrets_redacted: int = 0
    errors: list[str] = field(default_factory=list)
    index_error: str | None = None


@dataclass
class _SessionState:
    ref: str
    start_head: str | None
    head: str | None
    next_seq: int
    sources: set[str]
    initial: str | None = None


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One line of ``mem sessions``: id, project, first and last turn time (ms), turn count, head id."""

    id: str
    project: str
    started: int
    last: int
    turns: int
    head: str
    #: the chain is damaged: ``turns`` counts only the readable turns from the head
    damaged: bool = False


def walk_turns(store: Store, oid: str | None) -> Iterator[TurnVersion]:
    """Turns from ``oid`` back along parent links (newest first).

    A damaged or missing *older* turn ends the walk there (noted in
    ``store.damaged``; ``mem fsck --repair`` mends the chain).

    Raises:
        IntegrityError: the first turn (``oid`` itself) is missing or damaged."""
    from objstore.core.errors import CorruptObject, IntegrityError, NotFound
    seen = set()
    first = True
    while oid is not None and oid not in seen:
        seen.add(oid)
        try:
            t = store.get(oid, Turn)
        except (NotFound, CorruptObject) as e:
            store.damaged.setdefault(oid, str(e))
            if not first:
                return
            raise IntegrityError(f"turn {oid} is missing or damaged: {e}") from None
        first = False
        yield TurnVersion(oid, t)
        oid = t.parent


def turn_doc(oid: str, t: Turn):
    """The search-index document of a turn."""
    from objstore.index.searchindex import IndexDoc
    return IndexDoc(id=oid, kind="turn", ref=t.session, time=t.timestamp,
                    project=t.project, role=t.role, text=t.text, seq=t.seq)


def _load_state(store: Store, sid: str) -> _SessionState:
    ref = session_ref(sid)
    head = store.refs.read(ref)
    sources: set[str] = set()
    n = 0
    for tv in walk_turns(store, head):
        sources.add(tv.turn.source)
        n = max(n, tv.turn.seq + 1)
    return _SessionState(ref, head, head, n, sources, head)


#: harness name -> reader module (``discover(paths)``, ``parse_file(path, stats)``)
HARNESSES = ("claude-code", "codex")


def _reader(harness: str):
    if harness == "claude-code":
        from objstore.capture import claude_code
        return claude_code
    if harness == "codex":
        from objstore.capture import codex
        return codex
    from objstore.core.errors import InvalidInput
    raise InvalidInput(f"unknown harness {harness!r}; known: {', '.join(HARNESSES)}")


def import_transcripts(store: Store, harness: str, paths: Iterable[str | os.PathLike], *,
                       progress: Callable[[int, int], None] | None = None,
                       command: str | None = None, reread: bool = False) -> ImportResult:
    """Import agent transcripts (files or trees such as ``~/.claude/projects``
    or ``~/.codex/sessions``) as sessions of turns.

    Streams each file (bounded memory: one line at a time plus the set of
    source ids of the sessions it touches), writes new turns as objects,
    syncs once per file, then publishes each session ref by compare-and-swap,
    then indexes them.  A file that cannot be read (a dangling link, not a
    regular file, an I/O error) is skipped and counted, never fatal; so is a
    turn whose session id is not a valid ref name.

    A file whose identity (:mod:`objstore.core.fileid`: stat and a digest of
    its first and last bytes) is the one recorded when this store last read
    it in full is not read again (counted in ``files_unchanged``), so an
    import with nothing new reads no transcript body; ``reread`` reads every
    file regardless (still idempotent).

    Args:
        harness: ``claude-code`` or ``codex``.
        paths: files or directories; see the reader's ``discover``.
        progress: called as ``progress(files_done, files_total)``.
    Returns:
        :class:`ImportResult`.
    Raises:
        FileNotFoundError for a path that does not exist; StoreLocked.
    """
    from objstore.core.errors import InvalidInput
    reader = _reader(harness)
    command = command or f"import {harness}"
    files = list(reader.discover(paths))
    from objstore.core.fileid import ReadLedger, identity
    res = ImportResult()
    stats = reader.ParseStats()
    states: dict[str, _SessionState] = {}
    # sessions seen -> "new" (no turn stored before this import); the states
    # themselves are dropped after each publish so memory stays bounded
    seen: dict[str, bool] = {}
    grown: set[str] = set()  # sessions this import added turns to
    pending_docs: list = []
    bad_sessions: set[str] = set()
    valid_sids: dict[str, str] = {}
    with store.lock(command):
        from objstore.memory.forget import capture_filter, redact_matches
        from objstore.core.redact import redact as redact_secrets
        flt = capture_filter(store)  # forgotten sessions, records and --match rules: never brought back
        from objstore.capture.sync import import_filter
        # exclusions (no-capture sessions, excluded paths, #nomem) and records copied by a resume/fork
        wrap = import_filter(store, sources_of=lambda sid: states[sid].sources if sid in states else None)
        ledger: set[str] = set()
        writer = store.pack_writer()
        unpublished: set[str] = set()
        read_ledger = ReadLedger(store.root / "cache" / f"read-ledger-{harness}.json", _ledger_salt(store, harness))
        read: list[tuple[str, list]] = []  # files read in full, marked once their turns are published
        try:
            for i, path in enumerate(files):
                real = os.path.realpath(path)  # once: realpath is a pure-Python walk (~0.1 ms)
                try:
                    if not path.is_file():
                        raise OSError(f"not a regular file (or a dangling link): {path}")
                    ident = identity(path)
                    unchanged = not reread and read_ledger.unchanged(real, ident)
                    res.files_unchanged += unchanged
                    for ct in () if unchanged else wrap(reader.parse_file(path, stats)):
                        res.turns_seen += 1
                        try:
                            sid = valid_sids.get(ct.session) or valid_sids.setdefault(
                                ct.session, validate_session_id(ct.session))
                        except InvalidInput:
                            if ct.session not in bad_sessions:
                                bad_sessions.add(ct.session)
                                res.errors.append(f"{path}: session id {ct.session[:80]!r} is not usable; "
                                                  "turns skipped")
                            res.turns_skipped += 1
                            continue
                        if sid in flt.sessions:
                            res.turns_forgotten += 1
                            continue
                        st = states.get(sid)
                        if st is None:
                            st = states[sid] = _load_state(store, sid)
                            seen.setdefault(sid, st.initial is None)
                        if ct.source in st.sources or (ct.alias and ct.alias in st.sources):
                            continue  # alias: the same prompt captured by the prompt hook
                        text, forgotten = ct.text, 0
                        if flt.forgets(ct.source, text) or (ct.alias and ct.alias in flt.sources):
                            text, forgotten = "", now_ms()
                            res.turns_forgotten += 1
                        elif sid in flt.rules:
                            text, n = redact_matches(text, flt.rules[sid])
                            res.turns_forgotten += bool(n)
                        if text:
                            red = redact_secrets(text)  # credentials never reach disk
                            if red.hits:
                                text = red.text
                                res.secrets_redacted += len(red.hits)
                        turn = Turn(session=sid, seq=st.next_seq, role=ct.role, text=text,
                                    timestamp=ct.timestamp, harness=harness, cwd=ct.cwd,
                                    project=ct.project, source=ct.alias or ct.source, parent=st.head,
                                    forgotten=forgotten)
                        oid = writer.add(encode(turn))
                        st.head, st.next_seq = oid, st.next_seq + 1
                        st.sources.add(turn.source)
                        unpublished.add(sid)
                        grown.add(sid)
                        if not forgotten:
                            pending_docs.append(turn_doc(oid, turn))
                        res.turns_added += 1
                    if not unchanged:
                        read.append((real, ident))
                except OSError as e:
                    res.files_skipped += 1
                    res.errors.append(f"{path}: {e.strerror or e}")
                ledger.add(real)
                last = i == len(files) - 1
                if last or writer.count >= PACK_ROLL or len(pending_docs) >= INDEX_BATCH:
                    writer.finish()  # the pack and its index are durable before any ref names them
                    _publish(store, states, unpublished, command)
                    _flush_index(store, pending_docs, res)
                    unpublished, pending_docs = set(), []
                    if not last:  # published: a later file of one of them reloads its state from the store
                        states.clear()
                    for real, ident in read:  # their turns are stored and their refs published
                        read_ledger.mark(real, ident)
                    read_ledger.save()
                    read = []
                    if not last:
                        writer = store.pack_writer()
                if progress:
                    progress(i + 1, len(files))
        except BaseException:
            writer.abort()
            raise
        finally:
            record_sources(store, ledger)
    res.files = len(files) - res.files_skipped
    res.lines, res.lines_skipped, res.records_ignored = stats.lines, stats.lines_skipped, stats.records_ignored
    res.session_ids = sorted(seen)
    res.sessions = len(seen)
    res.sessions_new = sum(1 for sid, new in seen.items() if new and sid in grown)
    return res


def _ledger_salt(store: Store, harness: str) -> str:
    """What a file's import depends on besides its bytes: the harness and the
    capture configuration (exclusions, marker); a change re-reads every file."""
    from blake3 import blake3
    try:
        cfg = (store.root / "config.toml").read_bytes()
    except OSError:
        cfg = b""
    return f"{harness}:{blake3(cfg).hexdigest(length=16)}"


def import_claude_code(store: Store, paths: Iterable[str | os.PathLike], **kw) -> ImportResult:
    """:func:`import_transcripts` for Claude Code."""
    return import_transcripts(store, "claude-code", paths, **kw)


def imported_sources(store: Store) -> list[str]:
    """Transcript files this store has imported from (absolute paths), for
    ``mem forget --scrub-sources``.  Kept in ``<store>/cache/imported-files``."""
    try:
        return sorted(set((store.root / "cache" / "imported-files").read_text("utf-8").splitlines()) - {""})
    except FileNotFoundError:
        return []


def record_sources(store: Store, paths: set[str]) -> None:
    """Add transcript paths to the ledger of imported files."""
    new = paths - set(imported_sources(store))
    if not new:
        return
    p = store.root / "cache" / "imported-files"
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "a", encoding="utf-8", errors="surrogateescape") as f:
        f.write("".join(x.replace("\n", " ") + "\n" for x in sorted(new)))


def _publish(store: Store, states: dict, sids: set[str], command: str) -> None:
    """Move the refs of ``sids`` to their new heads (journal first)."""
    if not sids:
        return
    store.packs.reload()
    t = now_ms()
    store.journal.sessions([(sid, states[sid].start_head) for sid in sorted(sids)])
    for sid in sorted(sids):
        st = states[sid]
        store.refs.set_if_equals(st.ref, st.start_head, st.head)
        store.reflog.append(st.ref, st.start_head, st.head, t, command)
        st.start_head = st.head


def _flush_index(store: Store, docs: list, res: ImportResult) -> None:
    """Index what was published; on an index failure keep the journal (the
    next writer replays it) and report, since the turns are stored."""
    from objstore.index.searchindex import SearchIndexError
    if res.index_error:
        return
    try:
        if docs:
            store.index.add(docs)
        store.journal.clear()
    except SearchIndexError as e:
        res.index_error = str(e)


def list_sessions(store: Store) -> list[SessionInfo]:
    """Every session, oldest start first."""
    from objstore.core.errors import IntegrityError
    out = []
    for name, oid in store.refs.iter("sessions"):
        try:
            chain = list(walk_turns(store, oid))
        except IntegrityError:
            chain = []
        times = [tv.turn.timestamp for tv in chain if tv.turn.timestamp]
        out.append(SessionInfo(id=name[len("sessions/"):], project=chain[0].turn.project if chain else "",
                               started=min(times) if times else 0, last=max(times) if times else 0,
                               turns=len(chain), head=oid,
                               damaged=not chain or chain[-1].turn.parent is not None))
    out.sort(key=lambda s: (s.started, s.id))
    return out


def session_turns(store: Store, sid: str) -> list[TurnVersion]:
    """A session's turns in order (oldest first).  Raises NotFound."""
    from objstore.core.errors import NotFound
    sid = validate_session_id(sid)
    head = store.refs.read(session_ref(sid))
    if head is None:
        raise NotFound(f"no session {sid}", hint="list sessions with: mem sessions")
    return list(reversed(list(walk_turns(store, head))))


def resolve_session(store: Store, prefix: str) -> str | None:
    """A session id: an exact id, or an unambiguous prefix of >= 4 chars.

    Returns None when nothing matches; raises AmbiguousId when several do."""
    from objstore.core.errors import AmbiguousId
    if not prefix or "/" in prefix:
        return None
    try:
        if store.refs.read(session_ref(validate_session_id(prefix))) is not None:
            return validate_session_id(prefix)
    except MemError:
        return None
    if len(prefix) < 4:
        return None
    hits = [n[len("sessions/"):] for n, _ in store.refs.iter("sessions") if n[len("sessions/"):].startswith(prefix)]
    if len(hits) > 1:
        shown = ", ".join(sorted(hits)[:10]) + (", …" if len(hits) > 10 else "")
        raise AmbiguousId(f"{prefix} matches {len(hits)} sessions: {shown}", hint="give more characters")
    return hits[0] if hits else None
