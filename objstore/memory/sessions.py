"""Sessions: chains of turn objects, the one turn appender, listing and reading.

A session is a chain of :class:`Turn` objects linked by ``parent``;
``refs/sessions/<id>`` points at the last one.  Every turn is written by
:class:`TurnAppender` (``mem import``, the hooks, evaluations), which applies
the forget filter (``tombstones.CaptureFilter``: a forgotten session, record
or text never comes back), redacts credentials (``objstore.core.redact``)
and publishes in the store's order: objects (synced), the index journal,
refs by compare-and-swap with their reflog entry, then the search index.
Appending is idempotent: each turn carries the id of its source record, and
a record whose source is already in the session's chain is skipped, so
capturing the same transcript again adds nothing.

Session state cache: ``<store>/cache/session-state/<h>.json`` (``h`` =
SHA-256 of the session id, 32 hex) holds a session's head, next seq and
source ids (never text) and whether the next turn is untrusted
(``taints``, ``objstore.memory.provenance``), valid while the session ref
still points at that head (else rebuilt by walking the new turns back to
the cached head).  Written by the hooks' appends; a bulk import (pack mode)
writes none.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from blake3 import blake3

from objstore.core.atomic import atomic_write
from objstore.core.codec import encode
from objstore.core.errors import AmbiguousId, IntegrityError, InvalidInput, MemError, NotFound
from objstore.core.ids import MIN_PREFIX_LEN, blake2b, sha256
from objstore.core.objects import Turn
from objstore.core.record import Frozen, Record, set_fields
from objstore.core.refs import session_ref, validate_session_id
from objstore.core.store import Store, now_ms, syncfs
from objstore.index.errors import IndexBusyError, SearchIndexError
from objstore.memory.provenance import reads_outside
from objstore.memory.facts import list_keys, walk
from objstore.memory.scope import AGENT_SEP, check_agent, is_ancestor, namespace_root, parent_namespace
from objstore.memory.tombstones import CaptureFilter, capture_filter, redact_matches

if TYPE_CHECKING:
    from objstore.core.packwriter import PackWriter


class TurnVersion(Frozen):
    """A turn with its id."""

    __slots__ = ("id", "turn")

    def __init__(self, id: str, turn: Turn) -> None:
        set_fields(self, id, turn)


class CapturedTurn(Frozen):
    """One conversation turn.  ``role`` is "user" | "assistant" | "tool"; ``text`` is never
    empty; ``timestamp`` is integer ms since the Unix epoch (UTC), 0 if unknown; ``source``
    ("cc:..."), stable across re-parses, identifies the source record(s).  ``alias``, for a
    user prompt only, is the key under which a hook may have captured the same prompt
    before the transcript held it (``objstore.capture.claude_code.prompt_alias``); "" otherwise.
    ``entrypoint``: what started the agent (Claude Code's record field, or the hook's
    ``CLAUDE_CODE_ENTRYPOINT``), "" when unknown; stored on the :class:`Turn`.
    ``forecast``: what :class:`TurnForecast` computed for it elsewhere (``mem
    import``'s parse worker), or None; :meth:`TurnAppender.add` uses it only
    when the turn it writes is exactly the forecast one.

    The input of :class:`TurnAppender`: the transcript readers
    (``objstore.capture``) produce it, the appender stores it as a
    :class:`Turn`."""

    __slots__ = ("session", "source", "role", "text", "timestamp", "cwd", "project", "alias", "entrypoint",
                 "forecast")

    def __init__(self, session: str, source: str, role: str, text: str, timestamp: int, cwd: str, project: str,
                 alias: str = "", entrypoint: str = "", forecast: tuple | None = None) -> None:
        set_fields(self, session, source, role, text, timestamp, cwd, project, alias, entrypoint, forecast)


class SessionInfo(Frozen):
    """One line of ``mem sessions``: id, project, first and last turn time (ms), turn count, head id;
    ``damaged``: the chain is damaged, ``turns`` counts only the readable turns from the head."""

    __slots__ = ("id", "project", "started", "last", "turns", "head", "damaged")

    def __init__(self, id: str, project: str, started: int, last: int, turns: int, head: str,
                 damaged: bool = False) -> None:
        set_fields(self, id, project, started, last, turns, head, damaged)


#: characters of a sub-agent's last turn, whitespace collapsed, that its rollup
#: quotes when the sub-agent ended without a final message (:meth:`ChainNotes.last_snippet`)
SNIPPET_CHARS = 300
#: a longer last text is kept by :class:`ChainNotes` as its first this many
#: characters when they hold the snippet (an import keeps one per sub-agent to the end)
_KEEP_CHARS = 4 * SNIPPET_CHARS


class ChainNotes(Record):
    """What a sub-agent's rollup (``objstore.capture.rollup``) reads of its
    chain: ``ids`` the raw 32-byte ids of its turns, oldest first, end to
    end (32 bytes a turn, not a string each: an import keeps them for every
    sub-agent turn it writes), ``forgotten`` the positions of the turns
    ``forget`` emptied, ``cwd`` the first non-empty working directory,
    ``project`` the last non-empty project, ``last_role`` / ``last_text``
    the last turn's (its text cut to what :meth:`last_snippet` reads: an
    import keeps the notes of every sub-agent it writes until its rollups,
    and a report of several KB each added up to tens of MB at a million
    turns).  Built by :meth:`add` turn by turn: by
    :class:`TurnAppender` for the sub-agent sessions it writes from their
    first turn (an import), or by :meth:`of` from a chain read back."""

    __slots__ = ("ids", "forgotten", "cwd", "project", "last_role", "last_text")

    def __init__(self, ids: bytearray | None = None, forgotten: set[int] | None = None, cwd: str = "",
                 project: str = "", last_role: str = "", last_text: str = "") -> None:
        set_fields(self, bytearray() if ids is None else ids, set() if forgotten is None else forgotten, cwd,
                   project, last_role, last_text)

    def __len__(self) -> int:
        return len(self.ids) // 32

    def add(self, oid: str, turn: Turn) -> None:
        """Note the chain's next turn (``oid``: its 64-hex id)."""
        self.add_fields(oid, turn.forgotten, turn.cwd, turn.project, turn.role, turn.text)

    def add_fields(self, oid: str, forgotten: int, cwd: str, project: str, role: str, text: str) -> None:
        """:meth:`add` given the turn's fields instead of the :class:`Turn`."""
        if forgotten:
            self.forgotten.add(len(self))
        self.ids += bytes.fromhex(oid)
        if cwd and not self.cwd:
            self.cwd = cwd
        if project:
            self.project = project
        if len(text) > _KEEP_CHARS:
            head = text[:_KEEP_CHARS]
            if len(" ".join(head.split())) >= SNIPPET_CHARS:  # else (mostly blanks) kept whole
                text = head
        self.last_role, self.last_text = role, text

    def last_snippet(self) -> str:
        """The last turn's text with its whitespace collapsed to single
        blanks, at most SNIPPET_CHARS characters ("" without a turn)."""
        return " ".join(self.last_text.split())[:SNIPPET_CHARS]

    def kept_ids(self, last: int) -> tuple[str, ...]:
        """The ids (64 hex) of the chain's last ``last`` turns that were not
        forgotten, oldest first."""
        n = len(self)
        return tuple(self.ids[32 * k:32 * k + 32].hex() for k in range(max(0, n - last), n)
                     if k not in self.forgotten)

    @classmethod
    def of(cls, turns: list[TurnVersion]) -> "ChainNotes":
        """The notes of a chain read back (:func:`session_turns`, oldest first)."""
        notes = cls()
        for tv in turns:
            notes.add(tv.id, tv.turn)
        return notes


def walk_turns(store: Store, oid: str | None) -> Iterator[TurnVersion]:
    """Turns from ``oid`` back along parent links (newest first).

    A damaged or missing *older* turn ends the walk there
    (``Store.walk_chain``).  Raises IntegrityError when the first turn
    (``oid`` itself) is missing or damaged."""
    for tid, t in store.walk_chain(oid, Turn, "turn"):
        yield TurnVersion(tid, t)


#: most characters a captured turn's text keeps (``mem remember`` caps a value
#: at the same 100,000: ``facts.MAX_BODY_CHARS``); a longer one keeps its head
#: and tail around a marker (:func:`cap_turn_text`)
MAX_TURN_CHARS = 100_000
_CAP_HEAD = (MAX_TURN_CHARS - 64) * 3 // 5   # 64: room for the marker
_CAP_TAIL = MAX_TURN_CHARS - 64 - _CAP_HEAD
_CAP_SEEK = 256                              # how far a cut moves to fall on white space


def cap_turn_text(text: str) -> str:
    """``text`` when it has at most :data:`MAX_TURN_CHARS` characters; else
    its first ~60,000 and last ~40,000 characters around the line
    ``[… N characters cut …]`` (N: how many were left out), each cut moved
    to white space within 256 characters when there is some (a token, a
    credential among them, is not split, so redaction still sees it
    whole).  The result has at most :data:`MAX_TURN_CHARS` characters, so
    capping again changes nothing.  Applied before redaction to every turn
    a capture writes (``TurnAppender``, and ``mem import``'s parse worker
    for the turns it forecasts): a 20 MB paste is kept as its ends, as
    recall and injection show a turn's ends anyway."""
    if len(text) <= MAX_TURN_CHARS:
        return text
    head = _CAP_HEAD
    ws = max(text.rfind(c, head - _CAP_SEEK, head) for c in " \n\t")
    if ws > 0:
        head = ws
    tail = len(text) - _CAP_TAIL
    ws = [i for i in (text.find(c, tail, tail + _CAP_SEEK) for c in " \n\t") if i >= 0]
    if ws:
        tail = min(ws) + 1
    return f"{text[:head]}\n[… {tail - head} characters cut …]\n{text[tail:]}"


def turn_doc(oid: str, t: Turn):
    """The search-index document of a turn."""
    from objstore.index.schema import IndexDoc  # deferred: the index schema imports tantivy
    return IndexDoc(id=oid, kind="turn", ref=t.session, time=t.timestamp,
                    project=t.project, role=t.role, text=t.text, seq=t.seq)


#: ``IndexDoc.unchecked`` once :func:`_turn_doc` has imported the index schema (a
#: ``from … import`` in a function costs 1-2 µs a call: once per turn of an import)
_unchecked_doc = None


def _turn_doc(oid: str, session: str, timestamp: int, project: str, role: str, text: str, seq: int):
    """:func:`turn_doc` of a turn given by its fields, unchecked: those of a
    turn :meth:`TurnAppender.add` has just validated and written, ``oid``
    its id."""
    global _unchecked_doc
    make = _unchecked_doc
    if make is None:
        from objstore.index.schema import IndexDoc  # deferred: the index schema imports tantivy
        make = _unchecked_doc = IndexDoc.unchecked
    return make(oid, "turn", session, timestamp, project, role, text, seq)


class TurnForecast:
    """The turns :meth:`TurnAppender.add` would write for a stream of
    records if it wrote every one of them, each session's chain starting
    empty (a new session) or going on from the turn forecast before it:
    computed beside the appender (``mem import``'s parse worker, another
    process), so that the appender, which owns the chains, only checks
    them.  :meth:`next` gives, for one record and the text the appender
    would store (credentials redacted), ``(fields, frame, digest,
    taints_after, message)``: ``fields`` the tuple ``(session, seq, role,
    text, timestamp, harness, cwd, project, source, parent, entrypoint,
    untrusted)`` of the :class:`Turn` (never forgotten), ``frame`` its
    canonical frame (``codec.encode``), ``digest`` the 32-byte BLAKE3 of
    the frame (its id), ``taints_after`` :func:`taints_after` of it,
    ``message`` its :func:`message_digest` for an assistant message
    (a ``cc:msg:`` source; else None); or
    None when no turn can be forecast (an unusable session id, an invalid
    turn).  The appender uses a forecast only when the turn it writes has
    exactly those fields (then the frame is the one it would encode), and
    otherwise encodes as usual: a forecast is never wrong, only unused.
    Memory: one small tuple per session seen."""

    def __init__(self, harness: str) -> None:
        self.harness = harness
        #: session (as the record names it) -> (session id, head id, next seq, taints) or None (unusable)
        self._chains: dict[str, tuple | None] = {}

    def next(self, ct: CapturedTurn, text: str, project: str | None = None) -> tuple | None:
        """The forecast of ``ct`` stored with ``text`` (see the class doc),
        and with ``project`` instead of ``ct.project`` when given (the name
        the writer's project registry is expected to give its cwd)."""
        chain = self._chains.get(ct.session, False)
        if chain is False:
            try:
                chain = (validate_session_id(ct.session), None, 0, False)
            except InvalidInput:
                chain = None
            self._chains[ct.session] = chain
        if chain is None:
            return None
        sid, head, seq, taints = chain
        source = ct.alias or ct.source
        project = ct.project if project is None else project
        try:
            turn = Turn(session=sid, seq=seq, role=ct.role, text=text, timestamp=ct.timestamp,
                        harness=self.harness, cwd=ct.cwd, project=project, source=source, parent=head,
                        entrypoint=ct.entrypoint, untrusted=taints)
            frame = encode(turn)
        except MemError:
            self._chains[ct.session] = None  # the appender cannot write it either: no forecast after it
            return None
        digest = blake3(frame).digest()
        after = taints_after(turn)
        self._chains[ct.session] = (sid, digest.hex(), seq + 1, after)
        msg = _digest(text) if ct.role == "assistant" and source.startswith("cc:msg:") else None
        return ((sid, seq, ct.role, text, ct.timestamp, self.harness, ct.cwd, project, source, head,
                 ct.entrypoint, taints), frame, digest, after, msg)


def list_sessions(store: Store) -> list[SessionInfo]:
    """Every session, oldest start first."""
    out = []
    damaged: list[str] = []
    for name, oid in store.refs.iter("sessions", damaged=damaged):
        try:
            chain = list(walk_turns(store, oid))
        except IntegrityError:
            chain = []
        times = [tv.turn.timestamp for tv in chain if tv.turn.timestamp]
        # the newest turn that knows its project (a last record without cwd does not blank it)
        project = next((tv.turn.project for tv in chain if tv.turn.project), "")
        out.append(SessionInfo(id=name[len("sessions/"):], project=project,
                               started=min(times) if times else 0, last=max(times) if times else 0,
                               turns=len(chain), head=oid,
                               damaged=not chain or chain[-1].turn.parent is not None))
    store.note_damaged_refs("sessions", damaged)  # listed sessions are the healthy ones; fsck --repair mends the rest
    out.sort(key=lambda s: (s.started, s.id))
    return out


def count_sessions(store: Store) -> int:
    """Number of sessions (one directory listing; no object is read)."""
    return store.refs.count("sessions")


def session_turns(store: Store, sid: str) -> list[TurnVersion]:
    """A session's turns in order (oldest first).  Raises NotFound."""
    sid = validate_session_id(sid)
    head = store.refs.read(session_ref(sid))
    if head is None:
        raise NotFound(f"no session {sid}", hint="list sessions with: mem sessions")
    return list(reversed(list(walk_turns(store, head))))


def resolve_session(store: Store, prefix: str, *, required: bool = False) -> str | None:
    """A session id: an exact id, or an unambiguous prefix of >= 4 chars.
    A prefix that matches one session and only its own sub-agent
    namespaces (``<id>.agent-…``, which start with its id) names that
    session.  The one resolver of session ids (``mem show``, ``mem forget
    --session``, ``mem derive --session``, ``--from-agent``'s session).

    Returns None when nothing matches (``required``: raises NotFound);
    raises AmbiguousId when several do."""
    sid = _resolve_session(store, prefix)
    if sid is None and required:
        raise NotFound(f"no session {prefix}", hint="list sessions with: mem sessions")
    return sid


def _resolve_session(store: Store, prefix: str) -> str | None:
    if not prefix or "/" in prefix:
        return None
    try:
        if store.refs.read(session_ref(validate_session_id(prefix))) is not None:
            return validate_session_id(prefix)
    except MemError:
        return None
    if len(prefix) < MIN_PREFIX_LEN:
        return None
    hits = [n[len("sessions/"):] for n, _ in store.refs.iter("sessions") if n[len("sessions/"):].startswith(prefix)]
    roots = {namespace_root(h) for h in hits}
    if len(hits) > 1 and len(roots) == 1 and roots <= set(hits):
        return roots.pop()  # a session and its sub-agents: the prefix names the session
    if len(hits) > 1:
        shown = ", ".join(sorted(hits)[:10]) + (", …" if len(hits) > 10 else "")
        raise AmbiguousId(f"{prefix} matches {len(hits)} sessions: {shown}", hint="give more characters")
    return hits[0] if hits else None


def subagent_namespaces(store: Store) -> set[str]:
    """Every sub-agent namespace the store holds (``<session>.agent-<id>``,
    ``<session>.sidechain``, nested ones): the ids of sessions that are a
    child namespace (their turns), and the namespaces of fact versions
    written there (``remember --session S --agent NAME``; every version of
    every key is read, so this costs one object read per fact version)."""
    out = {n[len("sessions/"):] for n, _oid in store.refs.iter("sessions")}
    for _key, head in list_keys(store):
        try:
            out.update(v.fact.namespace for v in walk(store, head) if v.fact.namespace)
        except MemError:
            continue  # a damaged chain: fsck names it
    return {ns for ns in out if parent_namespace(ns) is not None}


def _agent_of(ns: str) -> str:
    """The last sub-agent id of a namespace (``S.agent-a.agent-b`` -> ``b``), "" for none."""
    i = ns.rfind(AGENT_SEP)
    return ns[i + len(AGENT_SEP):] if i > 0 else ""


def agent_namespace(store: Store, agent: str, session: str | None = None) -> str:
    """The namespace of the sub-agent ``agent`` names (``mem recall
    --from-agent``): ``agent`` is a sub-agent name or id (``explorer``,
    ``a4ca7529859c158c2``, also ``agent-a4ca…`` as its file is named), an
    unambiguous prefix of >= 4 characters of one, or a whole namespace name
    (``<session>.agent-<id>``).  Sub-agents are those of
    :func:`subagent_namespaces`: with ``session`` (an id or an unambiguous
    prefix, :func:`resolve_session`; a session with no turns by its id) only
    that session's, else every session's.  An exact id wins over a prefix.

    Raises:
        InvalidInput: a bad agent name or session id.
        NotFound: no such sub-agent (in ``session``, when given).
        AmbiguousId: several sub-agents match (their namespaces are listed),
            or ``session`` is an ambiguous prefix.
    """
    sid = None
    if session:
        sid = resolve_session(store, session) or validate_session_id(session)
    known = subagent_namespaces(store)
    if sid is not None:
        known = {ns for ns in known if namespace_root(ns) == sid}
    where = f"session {sid}" if sid is not None else "this store"
    if parent_namespace(agent) is not None:  # a whole namespace name
        ns = validate_session_id(agent)
        if any(k == ns or is_ancestor(ns, k) for k in known):
            return ns
        raise NotFound(f"no sub-agent namespace {ns} in {where}",
                       hint="list sessions with: mem sessions (a sub-agent is <session>.agent-<id>)")
    check_agent(agent)
    names = [agent] + ([agent[len("agent-"):]] if agent.startswith("agent-") and len(agent) > len("agent-") else [])
    hits = sorted(ns for ns in known if _agent_of(ns) in names)
    if not hits:
        hits = sorted(ns for ns in known for n in names if len(n) >= 4 and _agent_of(ns).startswith(n))
    if not hits:
        here = sorted(known) if sid is not None else []
        hint = (f"its sub-agents: {', '.join(_agent_of(k) or k for k in here[:10])}" if here
                else "list sessions with: mem sessions (a sub-agent is <session>.agent-<id>)")
        raise NotFound(f"no sub-agent {agent} in {where}", hint=hint)
    if len(hits) > 1:
        shown = ", ".join(hits[:5]) + (", …" if len(hits) > 5 else "")
        raise AmbiguousId(f"{agent} names {len(hits)} sub-agents: {shown}",
                          hint="give its session with --session, or the whole namespace name")
    return hits[0]


# --------------------------------------------------------------------------- session state

class SessionState(Record):
    """What a writer needs to append to a session: its ref, the head when
    loaded (for compare-and-swap), the new head, the next seq, the set of
    source ids already in the chain, and the head turn's role and source;
    ``taints``: the next turn is untrusted, the head is or called an outside
    tool (``provenance``)."""

    __slots__ = ("sid", "ref", "start_head", "head", "next_seq", "sources", "head_role", "head_source", "taints")

    def __init__(self, sid: str, ref: str, start_head: str | None, head: str | None, next_seq: int, sources: set[str],
                 head_role: str = "", head_source: str = "", taints: bool = False) -> None:
        set_fields(self, sid, ref, start_head, head, next_seq, sources, head_role, head_source, taints)


def session_state_path(store: Store, sid: str) -> Path:
    """The state cache file of ``sid`` (see the module doc)."""
    h = sha256(sid.encode("utf-8", "surrogatepass")).hexdigest()[:32]   # not hashlib's: OpenSSL costs ~2-4 ms
    return store.root / "cache" / "session-state" / f"{h}.json"


def load_session(store: Store, sid: str) -> SessionState:
    """A session's :class:`SessionState`, from the cache when the ref still
    points at the cached head; otherwise the turns added since the cached
    head are walked (or the whole chain when the cache is missing or the
    chain was rewritten).  Raises IntegrityError for a broken chain."""
    ref = session_ref(sid)
    head = store.refs.read(ref)
    cached: dict | None = None
    try:
        cached = json.loads(session_state_path(store, sid).read_bytes())
        if cached.get("sid") != sid:
            cached = None
    except (OSError, ValueError):
        cached = None
    if head is None:
        if cached:
            drop_session_cache(store, sid)      # the session was forgotten: nothing of it stays
        return SessionState(sid, ref, None, None, 0, set())
    if cached and cached.get("head") == head and "taints" in cached:
        return SessionState(sid, ref, head, head, int(cached["seq"]), set(cached["sources"]),
                            str(cached.get("head_role", "")), str(cached.get("head_source", "")),
                            bool(cached["taints"]))
    stop = cached.get("head") if cached else None
    sources: set[str] = set()
    seq = 0
    reached = False
    top = None
    for tv in walk_turns(store, head):
        if tv.id == stop:
            reached = True
            break
        top = top or tv.turn
        sources.add(tv.turn.source)
        seq = max(seq, tv.turn.seq + 1)
    if reached and cached:
        sources |= set(cached["sources"])
        seq = max(seq, int(cached["seq"]))
    if top is None and head is not None:  # the cached head is the head (a cache without "taints")
        top = store.get(head, Turn)
    st = SessionState(sid, ref, head, head, seq, sources, top.role if top else "", top.source if top else "",
                      taints_after(top) if top else False)
    save_session_state(store, st)
    return st


def taints_after(turn: Turn) -> bool:
    """Whether the turn after ``turn`` is untrusted (``provenance``): ``turn``
    is, or it is an assistant turn that called a tool reading outside
    content."""
    return turn.untrusted or (turn.role == "assistant" and reads_outside(turn.text, turn.cwd))


def save_session_state(store: Store, st: SessionState) -> None:
    """Write the state cache of ``st`` (best effort: it is a cache)."""
    if st.head is None:
        return
    data = json.dumps({"sid": st.sid, "head": st.head, "seq": st.next_seq, "head_role": st.head_role,
                       "head_source": st.head_source, "taints": st.taints, "sources": sorted(st.sources)},
                      ensure_ascii=False).encode("utf-8", "surrogatepass")
    try:
        atomic_write(session_state_path(store, st.sid), data, durable=False)
    except OSError:
        pass  # a cache: the next load walks the chain


def drop_session_cache(store: Store, sid: str) -> None:
    """Delete the cached state of ``sid`` (a forgotten session keeps none)."""
    try:
        session_state_path(store, sid).unlink()
    except FileNotFoundError:
        pass


# --------------------------------------------------------------------------- the turn appender

def _digest(text: str) -> bytes:
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def message_digest(turn: Turn) -> bytes:
    """:meth:`TurnAppender.text_digest` of a stored turn's text, or ``b""`` for a
    forgotten (emptied) turn."""
    return b"" if turn.forgotten else _digest(turn.text)


def live_turn_docs(store: Store, docs: list, olds: dict[str, str | None]) -> list:
    """The turn documents of ``docs`` whose turn is still in its session's
    chain, above the session's old head ``olds[session]`` (the head before
    the write that stored them), and not forgotten: what may be indexed
    after the store lock was released (:meth:`TurnAppender.index_deferred`).
    A session that was forgotten or rewritten meanwhile keeps none."""
    by: dict[str, list] = {}
    for d in docs:
        by.setdefault(d.ref, []).append(d)
    out = []
    for sid, ds in by.items():
        want = {d.id for d in ds}
        live: set[str] = set()
        try:
            for tv in walk_turns(store, store.refs.read(session_ref(sid))):
                if tv.id == olds.get(sid) or len(live) == len(want):
                    break
                if tv.id in want and not tv.turn.forgotten:
                    live.add(tv.id)
        except MemError:
            pass       # no ref (forgotten), or a damaged chain: index nothing of it
        out += [d for d in ds if d.id in live]
    return out


class TurnAppender:
    """The one writer of turns: ``mem import`` (``objstore.capture.importer``),
    the hooks (``objstore.capture.sync``) and evaluations
    (``objstore.retrieval.evaluate``) all append through it.  The caller
    holds the store lock.

    :meth:`add` writes one turn object, unless its session id is unusable,
    its record (source or alias) is already in the session, or its session
    was forgotten; a forgotten record is stored emptied, ``--match`` rules
    are applied, credentials are redacted.  Objects go loose (the first 64
    fsynced one by one, the rest synced once in :meth:`publish`) or, with
    ``pack=True`` (bulk import, evaluations), into one pack.  :meth:`publish`
    makes the objects durable, notes the sessions in the index journal, moves
    each touched session ref by compare-and-swap with its reflog entry
    (``Store.update_ref``), saves the state caches and indexes the new turns
    (``index=False`` leaves that to the next writer through the journal).

    Counters: ``written`` (objects), ``added`` (turns that are not
    forgotten), ``forgotten`` (records of forgotten sessions skipped, and
    records stored emptied), ``matches_redacted`` (turns a ``--match`` rule
    changed), ``secrets_redacted`` (credentials replaced).
    """

    def __init__(self, store: Store, *, command: str, harness: str = "claude-code", pack: bool = False,
                 refill=None) -> None:
        from objstore.core.redact import redact  # deferred: the redaction rules compile at import
        self.store = store
        self.command = command
        self.harness = harness
        self.pack = pack
        self.states: dict[str, SessionState] = {}
        self.dirty: set[str] = set()
        self.docs: list = []
        self.written = 0
        self.added = 0
        self.forgotten = 0
        self.matches_redacted = 0
        self.secrets_redacted = 0
        self._flt: CaptureFilter | None = None
        self._redact = redact
        self._valid: dict[str, str | None] = {}
        self._bulk = False
        self._writer: PackWriter | None = None
        self._stream = None          # pack mode: the import's one index writer (SearchIndex.stream)
        #: pack mode: about how many turns this appender will write (0: unknown), read
        #: at its first index commit: a store without a turns index lays it out for
        #: that many (``SearchIndex.stream``); the caller updates it as it reads
        self.expected_turns = 0
        self._stream_error: str | None = None
        #: (session, source) -> :meth:`text_digest` of the assistant messages written by this
        #: appender (``cc:msg:`` sources), readable before :meth:`publish` makes them visible
        self.message_digests: dict[tuple[str, str], bytes] = {}
        #: text -> (the text with its credentials replaced, how many), computed
        #: elsewhere by ``objstore.core.redact.redact`` (``mem import``'s parse
        #: worker); a text not in it is redacted here
        self.redactions: dict[str, tuple[str, int]] = {}
        #: (owned journal entries, documents, session -> old head) of publishes with defer_index
        self._deferred: list = []
        self._oids: list[str] = []          # loose objects written since the last publish
        self._flt_refs: list | None = None  # the tombstone refs the forget filter was read from
        #: sub-agent session -> :class:`ChainNotes` of its whole chain, for the sub-agent
        #: sessions this appender writes from their first turn (an import's rollups read
        #: them instead of the chain); ``_whole``: session -> it had no turn when first loaded
        self.subagent_chains: dict[str, ChainNotes] = {}
        self._whole: dict[str, bool] = {}
        #: ``objstore.memory.refill.Refill`` when the caller reads whole transcripts in order
        #: (``mem import``): the records a mended session lacks go in its lost placeholders' places
        self.refill = refill

    def _redacted(self, text: str) -> tuple[str, int]:
        """``text`` as a turn stores it (capped, credentials replaced:
        :meth:`_stored`, or as :attr:`redactions` has it), and how many
        credentials were replaced."""
        got = self.redactions.get(text)
        if got is not None:
            return got
        return self._stored(text)

    def _stored(self, text: str) -> tuple[str, int]:
        """The text a turn of ``text`` stores (capped, :func:`cap_turn_text`,
        then its credentials replaced) and how many credentials were."""
        text = cap_turn_text(text)
        red = self._redact(text)
        return (red.text, len(red.hits)) if red.hits else (text, 0)

    def text_digest(self, text: str) -> bytes:
        """16-byte digest of ``text`` as a turn would store it (credentials
        redacted): what tells two copies of one message apart (``objstore.capture.sync``,
        resumed and forked sessions)."""
        if text:
            text = self._redacted(text)[0]
        return _digest(text)

    @property
    def pending(self) -> int:
        """Objects written since the last :meth:`publish`."""
        return self._writer.count if self._writer is not None else 0

    def _put(self, frame: bytes, digest: bytes | None = None) -> str:
        """Write one frame; ``digest``: its BLAKE3 when known (pack mode)."""
        if self.pack:
            if self._writer is None:
                self._writer = self.store.pack_writer()
            return self._writer.add(frame, digest)
        # the first turns are fsynced one by one (cheap); past 64, the rest
        # are written without fsync and the filesystem is synced once in publish
        # (per write: the store's flag is shared with other threads' writers)
        objs = self.store.objects
        durable = objs.durable and self.written < 64
        if objs.durable and not durable:
            self._bulk = True
        oid = objs.put(frame, durable=durable)
        self._oids.append(oid)
        return oid

    def close(self) -> None:
        """Drop an unpublished pack (after an error, too)."""
        if self._writer is not None:
            self._writer.abort()
            self._writer = None
        self._close_stream()

    def _close_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()  # uncommitted documents are dropped: the index journal replays them

    def _index(self, doc) -> None:
        """Send a turn's document to the index: in pack mode straight to the
        import's stream (tantivy indexes it in its own thread, visible at the
        next :meth:`publish`), else kept for :meth:`publish`."""
        if not self.pack:
            self.docs.append(doc)
            return
        if self._stream_error is not None:
            return  # the index is behind; the journal replays these sessions
        try:
            if self._stream is None:
                self._stream = self.store.index.stream(  # turns it has just written; a new layout
                    "turn", fresh=True, expected_docs=lambda: self.expected_turns)  # sized at the 1st commit
            self._stream.add(doc)
        except SearchIndexError as e:
            self._stream_error = str(e)
            self._close_stream()

    def drop_states(self) -> None:
        """Forget the in-memory state of the sessions (all published: call
        after :meth:`publish`), so a long import keeps memory bounded; a later
        turn of one of them reloads it (from the state cache)."""
        self.states = {sid: st for sid, st in self.states.items() if sid in self.dirty}
        if self.refill is not None:
            self.refill.keep_only(self.dirty)
        # published messages are read from their chains now (``start_head`` moved past them)
        self.message_digests = {k: d for k, d in self.message_digests.items() if k[0] in self.dirty}

    def filter(self) -> CaptureFilter:
        """The store's :class:`CaptureFilter` (read once)."""
        if self._flt is None:
            self._flt_refs = list(self.store.refs.iter("tombstones"))   # what it is read from (revalidate)
            self._flt = capture_filter(self.store)
        return self._flt

    def sync_objects(self) -> None:
        """Make the loose objects written without fsync durable (one
        filesystem sync); :meth:`publish` does it before any ref moves, a
        caller that added turns before taking the store lock does it first."""
        if self._bulk:
            syncfs(self.store.root)
            self._bulk = False

    def revalidate(self) -> bool:
        """For turns added *before* the store lock was taken (loose mode;
        the caller now holds it): True when they can be published as they
        are: every session they read is still at the head they were chained
        to, the tombstones are those the forget filter was read from (a
        forget meanwhile could empty one of them), and every object written
        is still there (a ``gc --prune=now`` meanwhile).  Else the caller
        calls :meth:`reset` and adds them again, under the lock."""
        store = self.store
        if self._flt is not None and list(store.refs.iter("tombstones")) != self._flt_refs:
            return False
        if any(store.refs.read(st.ref) != st.start_head for st in self.states.values()):
            return False
        return all(store.objects.contains(oid) for oid in self._oids)

    def reset(self) -> None:
        """Forget every turn added since the last :meth:`publish` (their
        objects stay, unreferenced: gc's) and every state read."""
        self.states.clear()
        self.dirty.clear()
        self.docs = []
        self._flt = self._flt_refs = None
        self._oids = []
        self._bulk = False
        self.message_digests.clear()
        self.subagent_chains.clear()
        self._whole.clear()
        if self.refill is not None:
            self.refill.keep_only(set())
        self.written = self.added = self.forgotten = self.matches_redacted = self.secrets_redacted = 0

    def state(self, sid: str) -> SessionState:
        """The (cached) state of a validated session id."""
        st = self.states.get(sid)
        if st is None:
            st = self.states[sid] = load_session(self.store, sid)
            self._whole.setdefault(sid, st.head is None)  # later loads (after a publish) keep it
            if self.refill is not None:
                self.refill.loaded(sid, st)
        return st

    def valid_sid(self, sid: str) -> str | None:
        """``sid`` validated and normalised, or None when it cannot be a ref name."""
        if sid not in self._valid:
            try:
                self._valid[sid] = validate_session_id(sid)
            except InvalidInput:
                self._valid[sid] = None
        return self._valid[sid]

    def known(self, ct: CapturedTurn) -> bool:
        """True when the turn (by source or alias) is already in its session."""
        sid = self.valid_sid(ct.session)
        if sid is None:
            return True
        srcs = self.state(sid).sources
        return ct.source in srcs or bool(ct.alias and ct.alias in srcs)

    def add(self, ct: CapturedTurn, *, harness: str | None = None) -> str | None:
        """Write one turn unless its session or record is known or forgotten;
        returns the new object id or None."""
        sid = self.valid_sid(ct.session)
        if sid is None:
            return None
        flt = self.filter()
        if sid in flt.sessions:
            self.forgotten += 1
            return None
        st = self.state(sid)
        known = ct.source in st.sources or bool(ct.alias and ct.alias in st.sources)
        if self.refill is not None and sid in self.refill.plans:
            return self.refill.add(self, sid, st, ct, known, harness)
        if known:
            return None
        return self.write_next(sid, st, ct, harness, flt)[0]

    def write_next(self, sid: str, st: "SessionState", ct: CapturedTurn, harness: str | None,
                   flt: CaptureFilter, forecast: bool = True) -> tuple[str, Turn | None]:
        """Write ``ct`` as the next turn of ``st`` (``st.head``, ``st.next_seq``:
        the caller knows the chain does not hold it) with every capture rule
        (forget filter, ``--match`` rules, redaction, taint); returns its id
        and the :class:`Turn` (None when a forecast frame was written;
        ``forecast=False`` always builds the turn)."""
        turn = None
        text, forgotten = ct.text, 0
        source = ct.alias or ct.source
        red = self._redacted(text) if (flt.turns and text) else None
        gone = flt.forgets(sid, (source, ct.source), (text, red[0])) if red is not None else None
        if gone is not None:
            text, forgotten = "", gone      # kept as an emptied turn (its tombstone's time): it never comes back
            self.forgotten += 1
        elif sid in flt.rules:
            text, n = redact_matches(text, flt.rules[sid])
            self.matches_redacted += bool(n)
            red = None if n else red
        if text:
            text, n = red if red is not None else self._redacted(text)  # credentials never reach disk
            self.secrets_redacted += n
        harness = harness or self.harness
        seq = st.next_seq
        fc = ct.forecast if forecast else None
        if fc is not None and self.pack and not forgotten and fc[0] == (
                sid, seq, ct.role, text, ct.timestamp, harness, ct.cwd, ct.project, source, st.head,
                ct.entrypoint, st.taints):
            # the turn below, encoded and hashed elsewhere (TurnForecast): every field is the same
            oid = self._put(fc[1], fc[2])
            taints, msg = fc[3], fc[4]
        else:
            turn = Turn(session=sid, seq=seq, role=ct.role, text=text, timestamp=ct.timestamp,
                        harness=harness, cwd=ct.cwd, project=ct.project, source=source,
                        parent=st.head, forgotten=forgotten, entrypoint=ct.entrypoint,
                        untrusted=st.taints)
            oid = self._put(encode(turn))
            taints, msg = taints_after(turn), None
        self.written += 1
        st.head, st.next_seq = oid, seq + 1
        st.head_role, st.head_source = ct.role, source
        st.taints = taints  # session taint spreads forward only
        st.sources.add(source)      # what the chain holds, so the cache equals a walk
        if ct.role == "assistant" and source.startswith("cc:msg:"):
            self.message_digests[(sid, source)] = b"" if forgotten else (msg or _digest(text))  # = message_digest
        if AGENT_SEP in sid and self._whole.get(sid):
            notes = self.subagent_chains.get(sid)
            if notes is None:
                notes = self.subagent_chains[sid] = ChainNotes()
            notes.add_fields(oid, forgotten, ct.cwd, ct.project, ct.role, text)
        self.dirty.add(sid)
        if not forgotten:
            self._index(_turn_doc(oid, sid, ct.timestamp, ct.project, ct.role, text, seq))
            self.added += 1
        return oid, turn

    def put_rewritten(self, turn: Turn) -> str:
        """Write ``turn``, a chain's turn moved onto a new parent (no capture
        rule: it was applied when the turn was first written); indexed unless
        forgotten.  Returns its id."""
        oid = self._put(encode(turn))
        if not turn.forgotten:
            self._index(turn_doc(oid, turn))
        return oid

    def publish(self, *, index: bool = True, wait: bool = True, defer_index: bool = False) -> str | None:
        """Make written turns durable and visible; returns an index error
        message (turns stored, index behind; the journal replays it) or None.

        In pack mode the new turns are indexed by the import's
        :class:`~objstore.index.searchindex.IndexStream` in a background
        thread; ``wait=False`` returns before that batch is committed (the
        index journal keeps its sessions until the next :meth:`publish`
        has waited for it), so the caller can go on reading transcripts.

        ``defer_index`` (loose mode, with ``index``): the sessions are noted
        in journal entries this process owns (``IndexJournal.own``) and the
        new turns are indexed by :meth:`index_deferred`, which the caller
        runs *after* it has released the store lock: a large batch holds
        the lock for its object and ref writes only (the proxy's capture
        writer).  Where owned entries are not possible it indexes here."""
        store = self.store
        if self._writer is not None:
            self._writer.finish()  # the pack and its index are durable before any ref names them
            self._writer = None
            store.packs.reload()
        err = self._wait_index()
        if not self.dirty:
            return err
        self.sync_objects()      # objects durable before any ref names them
        t = now_ms()
        moved = sorted(self.dirty)
        moves = [(sid, self.states[sid].start_head) for sid in moved]
        owned = store.journal.own(moves) if (defer_index and index and not self.pack) else None
        if owned is None:
            store.journal.sessions(moves)
        # one batch: the filesystem synced a few times, not three fsyncs per session
        store.update_refs([(self.states[sid].ref, self.states[sid].start_head, self.states[sid].head)
                           for sid in moved], self.command, time_ms=t)
        for sid in moved:
            st = self.states[sid]
            st.start_head = st.head
            if not self.pack:  # a bulk import leaves no cache file per session (a 4 KiB block each);
                save_session_state(store, st)  # the next writer of one walks its chain once
        self.dirty.clear()
        self._oids = []
        docs, self.docs = self.docs, []
        if owned is not None:
            self._deferred.append((owned, docs, dict(moves)))
            return None
        if self._stream_error is not None:
            return self._stream_error
        if not index:
            self._close_stream()
            return None
        try:
            if docs:
                store.index.add(docs)
            if self._stream is not None:
                self._stream.commit(wait=wait)  # the refs name these turns now: index them
                return self._wait_index() if wait else None
            store.journal.clear()
        except SearchIndexError as e:
            self._stream_error = str(e)
            self._close_stream()
            return str(e)
        return None

    def index_deferred(self, *, busy_wait_s: float = 600.0) -> str | None:
        """Index the turns of :meth:`publish` ``(defer_index=True)``; the
        caller does *not* hold the store lock.  Under the turns index's own
        writer lock, only turns still in their session's chain and not
        forgotten are added (:func:`live_turn_docs`): a ``forget`` that ran
        since the publish has rewritten the chain and purged the index, and
        what it removed does not come back; a forget that starts now purges
        after this commit (it waits for the same lock).  Then the owned
        journal entries are deleted; on an index error they are left to the
        next holder of the store lock, which replays them.  A busy index
        (another writer holds its lock) is waited for up to ``busy_wait_s``
        seconds in all (the caller is a background writer nobody waits
        for).  Returns the index error message or None."""
        import time  # deferred: the hooks' import path stays lean
        err = None
        pending, self._deferred = self._deferred, []
        deadline = time.monotonic() + busy_wait_s
        for owned, docs, olds in pending:
            try:
                while docs:
                    try:
                        self.store.index.add(docs, keep=lambda ds, olds=olds: live_turn_docs(self.store, ds, olds))
                        break
                    except IndexBusyError:
                        if time.monotonic() >= deadline:
                            raise
            except SearchIndexError as e:
                err = err or str(e)
                owned.abandon()
                continue
            except BaseException:
                owned.abandon()
                raise
            owned.done()
        return err

    def redact_ahead(self, texts) -> None:
        """Compute the redaction of ``texts`` now (before the store lock is
        taken), so that :meth:`add` finds it in :attr:`redactions`."""
        for text in texts:
            if text and text not in self.redactions:
                self.redactions[text] = self._stored(text)

    def wait_index(self, *, clear: bool = True) -> str | None:
        """Pack mode: wait for the batch of turns the last :meth:`publish`
        (``wait=False``) left being indexed; once it is committed, clear the
        index journal (``clear``: when the caller's own index writes since,
        noted there too, are committed as well; else the next writer
        replays them).  Returns the index error, or None."""
        return self._wait_index(clear=clear)

    def _wait_index(self, *, clear: bool = True) -> str | None:
        """Wait for the stream's batch being written; clear the index journal
        when it is committed (and ``clear``).  Returns the index error, or None."""
        if self._stream is None:
            return self._stream_error
        try:
            self._stream.wait()
        except SearchIndexError as e:
            self._stream_error = str(e)
            self._close_stream()
            return self._stream_error
        if clear:
            self.store.journal.clear()
        return None
