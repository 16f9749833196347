"""Sessions: chains of turn objects, listing and reading them, and the
session state cache.

A session is a chain of :class:`Turn` objects linked by ``parent``;
``refs/sessions/<id>`` points at the last one.  Every turn is written by
:class:`objstore.memory.appender.TurnAppender` (``mem import``, the hooks,
evaluations), from the :class:`CapturedTurn` records defined here.

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
import re
import time
from collections.abc import Iterator
from pathlib import Path

from blake3 import blake3

from objstore.core.atomic import CACHE_FILE_MAX_BYTES, atomic_write, read_regular
from objstore.core.codec import encode
from objstore.core.logfiles import append_log
from objstore.core.errors import AmbiguousId, IntegrityError, InvalidInput, MemError, NotFound
from objstore.core.ids import MIN_PREFIX_LEN, blake2b, sha256
from objstore.core.objects import Turn
from objstore.core.record import Frozen, Record, set_fields
from objstore.core.refs import session_ref, validate_session_id
from objstore.core.setback import set_back_to
from objstore.core.text import replace_spans
from objstore.core.wordwindows import joins
from objstore.memory.hiddensid import stored_sid
from objstore.memory.provenance import reads_outside
from objstore.memory.scope import AGENT_SEP, check_agent, is_ancestor, namespace_rank, namespace_root, parent_namespace

TYPE_CHECKING = False  # typing's, without importing typing (docs/benchmarks.md, session 16)
if TYPE_CHECKING:
    from objstore.core.store import Store


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
    ``withheld``: the values the reader withheld from ``text`` (a fetched
    secret's output: ``objstore.core.redact.fetched.fetched_values``), a
    tuple of str kept in memory only; the turn writer withholds them in the
    session's later turns (``objstore.memory.sessionrules``).
    ``legacy``: a prompt's alias as an older mem stored it (the plain hash,
    ``cc:p:<sha256>:<n>``) when ``alias`` is the keyed one: the turn is known
    when its session holds either; never stored.

    The input of :class:`TurnAppender`: the transcript readers
    (``objstore.capture``) produce it, the appender stores it as a
    :class:`Turn`."""

    __slots__ = ("session", "source", "role", "text", "timestamp", "cwd", "project", "alias", "entrypoint",
                 "forecast", "withheld", "legacy")

    def __init__(self, session: str, source: str, role: str, text: str, timestamp: int, cwd: str, project: str,
                 alias: str = "", entrypoint: str = "", forecast: tuple | None = None,
                 withheld: tuple[str, ...] = (), legacy: str = "") -> None:
        set_fields(self, session, source, role, text, timestamp, cwd, project, alias, entrypoint, forecast, withheld,
                   legacy)


class SessionInfo(Frozen):
    """One line of ``mem sessions``: id, project, first and last turn time (ms), turn count, head id;
    ``damaged``: the chain is damaged, ``turns`` counts only the readable turns from the head."""

    __slots__ = ("id", "project", "started", "last", "turns", "head", "damaged")

    def __init__(self, id: str, project: str, started: int, last: int, turns: int, head: str,
                 damaged: bool = False) -> None:
        set_fields(self, id, project, started, last, turns, head, damaged)


def _value_re(value: str) -> re.Pattern | None:
    """A pattern finding ``value`` in a text: case-insensitive, any run of
    blanks for one; None for an empty value."""
    words = value.split()
    if not words:
        return None
    return re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)


def withhold_value(text: str, value: str, whole: bool = False, marker: str = "") -> tuple[str, int]:
    """``text`` with every occurrence of ``value`` (case-insensitive, any
    blanks between its words; ``whole``: only where it is not part of a
    longer word or number, "4821" not in "14821" nor "pg-1" in "pg-1-b",
    a character of a script written without spaces being a word of its own,
    ``core.wordwindows.joins``: "密码是maple-otter-77请" holds "maple-otter-77",
    cjk39) replaced by ``marker`` (default :data:`WITHHELD`), and how many were."""
    pat = _value_re(value)
    if pat is None:
        return text, 0
    if not whole:
        return pat.subn((marker or WITHHELD).replace("\\", "\\\\"), text)
    spans: list[tuple[int, int]] = []
    pos = 0
    while (m := pat.search(text, pos)) is not None:
        a, b = m.span()
        if _edge(text, a - 1) and _edge(text, b):
            spans.append((a, b))
            pos = b
        else:
            pos = a + 1
    return (replace_spans(text, spans, marker or WITHHELD) if spans else text), len(spans)


def _edge(text: str, k: int) -> bool:
    """Whether ``text[k]`` (none: outside it) is no part of a word a whole value touching it would be
    inside: not ``-``, ``_`` nor a letter or digit that joins (``core.wordwindows.joins``)."""
    return not (0 <= k < len(text)) or not (text[k] in "-_" or joins(text[k]))


#: characters of a sub-agent's last turn, whitespace collapsed, that its rollup
#: what capture stores in place of a withheld tool result, a call that printed a sealed value or
#: read what one left (``objstore.capture.withhold``, whose ``SECRET_OUTPUT`` it is); a chain
#: holding it is :attr:`ChainNotes.withheld`
WITHHELD = "[REDACTED:sealed-value]"
#: what ``mem forget KEY`` leaves in a turn its value was remembered from (``sealsources.add_source_turns``)
FORGOTTEN = "[REDACTED:forgotten-value]"
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
    ``project`` the last non-empty project, ``last_time`` the greatest turn
    ``timestamp`` (ms since the epoch, 0 unknown: when it last spoke, the
    time its rollup is valid from: test32 X20), ``last_role`` / ``last_text``
    the last turn's (its text cut to what :meth:`last_snippet` reads: an
    import keeps the notes of every sub-agent it writes until its rollups,
    and a report of several KB each added up to tens of MB at a million
    turns), ``withheld`` whether a turn's text holds :data:`WITHHELD` (its
    rollup then looks for the values those results printed: test23b V3).  Built by :meth:`add` turn by turn: by
    :class:`TurnAppender` for the sub-agent sessions it writes from their
    first turn (an import), or by :meth:`of` from a chain read back."""

    __slots__ = ("ids", "forgotten", "cwd", "project", "last_role", "last_text", "withheld", "last_time")

    def __init__(self, ids: bytearray | None = None, forgotten: set[int] | None = None, cwd: str = "",
                 project: str = "", last_role: str = "", last_text: str = "", withheld: bool = False,
                 last_time: int = 0) -> None:
        set_fields(self, bytearray() if ids is None else ids, set() if forgotten is None else forgotten, cwd,
                   project, last_role, last_text, withheld, last_time)

    def __len__(self) -> int:
        return len(self.ids) // 32

    def add(self, oid: str, turn: Turn) -> None:
        """Note the chain's next turn (``oid``: its 64-hex id)."""
        self.add_fields(oid, turn.forgotten, turn.cwd, turn.project, turn.role, turn.text, turn.timestamp)

    def add_fields(self, oid: str, forgotten: int, cwd: str, project: str, role: str, text: str,
                   timestamp: int = 0) -> None:
        """:meth:`add` given the turn's fields instead of the :class:`Turn`
        (``timestamp``: ms since the epoch, 0 unknown)."""
        if timestamp > self.last_time:
            self.last_time = timestamp
        if forgotten:
            self.forgotten.add(len(self))
        self.ids += bytes.fromhex(oid)
        if cwd and not self.cwd:
            self.cwd = cwd
        if project:
            self.project = project
        if role == "tool" and not self.withheld and WITHHELD in text:
            self.withheld = True
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
_BLANKS = (" ", "\n", "\t")


def cap_turn_text(text: str) -> str:
    """``text`` when it has at most :data:`MAX_TURN_CHARS` characters; else
    its first ~60,000 and last ~40,000 characters around the line
    ``[… N characters cut …]`` (N: how many were left out), each cut where
    it splits no credential and no word (``redact.redact_cut``, the one cut
    of captured text; red18: the cut of its own kept the part of a token
    that crossed it, which no rule then recognised, wherever the 256
    characters around the cut held no blank, as in minified JSON; a blank
    the cut falls next to goes with the cut, docs/format.md "Length cap").  The result has at most :data:`MAX_TURN_CHARS` characters, so
    capping again changes nothing.  Applied before redaction to every turn
    a capture writes (``TurnAppender``, and ``mem import``'s parse worker
    for the turns it forecasts): a 20 MB paste is kept as its ends, as
    recall and injection show a turn's ends anyway; the parts kept are not
    redacted here (the writer redacts and counts)."""
    if len(text) <= MAX_TURN_CHARS:
        return text
    from objstore.core.redact import redact_cut  # deferred: the redaction rules compile at import
    head = redact_cut(text, _CAP_HEAD)[0]
    tail = redact_cut(text, _CAP_TAIL, tail=True)[0]
    head = head[:-1] if head[-1:] in _BLANKS else head     # the blank a cut fell after goes with the cut
    tail = tail[1:] if tail[:1] in _BLANKS else tail
    return f"{head}\n[… {len(text) - len(head) - len(tail)} characters cut …]\n{tail}"


def turn_doc(oid: str, t: Turn):
    """The search-index document of a turn."""
    from objstore.index.schema import IndexDoc  # deferred: the index schema imports tantivy
    return IndexDoc(id=oid, kind="turn", ref=t.session, time=t.timestamp,
                    project=t.project, role=t.role, text=t.text, seq=t.seq)


#: ``IndexDoc.unchecked`` once :func:`turn_doc_fields` has imported the index schema (a
#: ``from … import`` in a function costs 1-2 µs a call: once per turn of an import)
_unchecked_doc = None


def turn_doc_fields(oid: str, session: str, timestamp: int, project: str, role: str, text: str, seq: int):
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
            # positional (Turn's field order): keyword passing is a quarter of the construction, once per turn
            turn = Turn(sid, seq, ct.role, text, ct.timestamp, self.harness, ct.cwd, project, source, head, 0,
                        ct.entrypoint, taints)
            frame = encode(turn)
        except MemError:
            self._chains[ct.session] = None  # the appender cannot write it either: no forecast after it
            return None
        digest = blake3(frame).digest()
        after = taints_after(turn)
        self._chains[ct.session] = (sid, digest.hex(), seq + 1, after)
        msg = digest_text(text) if ct.role == "assistant" and source.startswith("cc:msg:") else None
        return ((sid, seq, ct.role, text, ct.timestamp, self.harness, ct.cwd, project, source, head,
                 ct.entrypoint, taints), frame, digest, after, msg)


def session_project(chain_newest_first) -> str:
    """The project of a session: that of its newest turn that knows one
    (a last record without ``cwd`` does not blank it; a session whose
    working directory moved is under the project it ended in), ``""``
    when none does.  ``chain_newest_first``: TurnVersions as
    :func:`walk_turns` yields them.  The one rule of ``mem sessions``,
    ``mem stats``, ``mem exclude``'s preview and ``mem export`` (test27 V2:
    they disagreed)."""
    return next((tv.turn.project for tv in chain_newest_first if tv.turn.project), "")


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
        project = session_project(chain)
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
    """A session id: an exact id (or the hidden id a session holding a
    ``--match`` text is stored under: ``hiddensid.stored_sid``), or an
    unambiguous prefix of >= 4 chars.
    A prefix that matches one session and only its own sub-agent
    namespaces (``<id>.agent-…``, which start with its id) names that
    session.  The one resolver of session ids (``mem show``, ``mem forget
    --session``, ``mem derive --session``, ``--from-agent``'s session).

    Returns None when nothing matches (``required``: raises NotFound);
    raises AmbiguousId when several do."""
    sid = _resolve_session(store, prefix)
    if sid is None and required and 0 < len(prefix) < MIN_PREFIX_LEN:   # as mem show says it (fresh43 F11)
        raise NotFound(f"no session {prefix}: an id or session prefix is too short (at least {MIN_PREFIX_LEN} "
                       "characters)", hint="give more of the id: mem sessions lists session ids")
    if sid is None and required:
        raise NotFound(f"no session {prefix}", hint="list sessions with: mem sessions")
    return sid


def _resolve_session(store: Store, prefix: str) -> str | None:
    if not prefix or "/" in prefix:
        return None
    try:
        if store.refs.read(session_ref(validate_session_id(prefix))) is not None:
            return validate_session_id(prefix)
        if (hidden := stored_sid(store, prefix)) != prefix and store.refs.read(session_ref(hidden)) is not None:
            return hidden
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
    from objstore.memory.facts import list_keys, walk  # deferred: the import's parse worker never needs facts
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


def episode_leaf(sid: str) -> str:
    """The last segment of the key derive files a session's episode under
    (``<scope>/episodes/<leaf>``: ``objstore.derive.run``), which a forget
    of the session takes too: ``sid`` with each run of characters other
    than word characters, ``.`` and ``-`` made ``-``, at most 80."""
    return re.sub(r"[^\w.-]+", "-", sid)[:80] or "session"


def agent_namespace(store: Store, agent: str, session: str | None = None, reader: str | None = None) -> str:
    """The namespace of the sub-agent ``agent`` names (``mem recall
    --from-agent``): ``agent`` is a sub-agent name or id (``explorer``,
    ``a4ca7529859c158c2``, also ``agent-a4ca…`` as its file is named), an
    unambiguous prefix of >= 4 characters of one, or a whole namespace name
    (``<session>.agent-<id>``).  Sub-agents are those of
    :func:`subagent_namespaces`: with ``session`` (an id or an unambiguous
    prefix, :func:`resolve_session`; a session with no turns by its id) only
    that session's, else every session's.  An exact id wins over a prefix.
    ``reader``: the namespace asking (``--agent``); only sub-agents it may
    read count (``scope.namespace_rank``: never a sibling's), and a miss
    says ``no sub-agent <agent>`` with no list (test29 P3).

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
    if reader:
        known = {ns for ns in known if namespace_rank(reader, ns) is not None}
        try:
            return agent_namespace_in(agent, known, "reach")
        except NotFound:
            raise NotFound(f"no sub-agent {agent}") from None
    return agent_namespace_in(agent, known, f"session {sid}" if sid is not None else "this store",
                              sid is not None)


def agent_namespace_in(agent: str, known: set, where: str, list_known: bool = False) -> str:
    """:func:`agent_namespace` among the sub-agent namespaces ``known``
    (``where`` names them in a message; ``list_known``: a miss's hint lists
    them).  Raises InvalidInput, NotFound, AmbiguousId as it does."""
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
        here = sorted(known) if list_known else []
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
        cached = json.loads(read_regular(session_state_path(store, sid), CACHE_FILE_MAX_BYTES))  # test18b V2
        if cached.get("sid") != sid:
            cached = None
    except (OSError, ValueError):
        cached = None
    start = head
    if head is None and cached:   # a forget drops the cache: a cache without a ref is a ref deleted (damage)
        head = _logged_head(store, ref, sid)
    if head is None:
        if cached:
            drop_session_cache(store, sid)      # the session was forgotten: nothing of it stays
        return SessionState(sid, ref, None, None, 0, set())
    if cached and cached.get("head") == head and "taints" in cached:   # (the common case: no reflog read)
        return SessionState(sid, ref, start, head, int(cached["seq"]), set(cached["sources"]),
                            str(cached.get("head_role", "")), str(cached.get("head_source", "")),
                            bool(cached["taints"]))
    head = _set_forward(store, ref, sid, head)
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
    st = SessionState(sid, ref, start, head, seq, sources, top.role if top else "", top.source if top else "",
                      taints_after(top) if top else False)
    save_session_state(store, st)
    return st


def _set_forward(store: Store, ref: str, sid: str, head: str) -> str:
    """The head the next turn of session ``sid`` goes on: ``head`` (what
    ``ref`` holds), or the later turn its reflog's last move set it to when
    the ref was set back to an older turn of that chain
    (``core.setback.set_back_to``: a synced folder's older copy; test41
    T33, the next capture forked past it and the later turns left the
    session for good).  Its chain holds ``head``'s, so nothing is dropped;
    the write moves the ref from ``head`` (its ``start_head``) past it.  Said
    in ``logs/hooks.log`` (capture fails open: no error).  One reflog tail
    read, only when the state cache does not name ``head``."""
    newer = set_back_to(store, ref, head)
    if newer is None:
        return head
    t = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    append_log(store.root, "hooks.log", f"{t} capture set-back {sid} {ref} was set back to {head[:12]}, older "
               f"than {newer[:12]} its reflog's last move set it to: the turns go on from {newer[:12]} (none "
               "dropped)\n", max_bytes=1 << 20)
    return newer


def _logged_head(store: Store, ref: str, sid: str) -> str | None:
    """The head the last entry of session ``sid``'s reflog moved ``ref`` to,
    when it is a stored turn of ``sid``: the ref was deleted (a damaged
    ``refs/packed-sessions``, a file removed), not forgotten (a forget drops
    the reflog and the state cache), so the next turn continues that chain
    (it started a new one beside it: crash30) and its write sets the ref
    again (``start_head`` None).  None otherwise.  Read only when the ref
    is missing while the session's state cache is there."""
    try:
        entries = store.reflog.read(ref)
        last = entries[-1].new if entries else None
        return last if last is not None and store.get(last, Turn).session == sid else None
    except MemError:   # a damaged reflog, a missing or damaged turn: a new chain, as before
        return None


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


def digest_text(text: str) -> bytes:
    """16-byte BLAKE2b of ``text`` (UTF-8): a message's digest (:class:`TurnForecast`,
    ``objstore.memory.appender``)."""
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
