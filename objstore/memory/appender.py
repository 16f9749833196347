"""The turn appender: :class:`TurnAppender`, the one writer of turns.

``mem import``, the hooks and evaluations append through it.  It applies
the forget filter (``tombstones.CaptureFilter``: a forgotten session, record
or text never comes back), redacts credentials (``objstore.core.redact``)
and publishes in the store's order: objects (synced), the index journal,
refs by compare-and-swap with their reflog entry, then the search index.
Appending is idempotent: each turn carries the id of its source record, and
a record whose source is already in the session's chain is skipped, so
capturing the same transcript again adds nothing.  The chains, the session
state cache and the captured-turn records it reads and writes are
``objstore.memory.sessions``'.
"""

from __future__ import annotations

from objstore.core.codec import encode
from objstore.core.errors import InvalidInput, MemError
from objstore.core.objects import Turn
from objstore.core.refs import session_ref, validate_session_id
from objstore.core.store import Store, now_ms, syncfs
from objstore.index.errors import IndexBusyError, SearchIndexError
from objstore.memory.writechecks import check_key_credentials
from objstore.memory.hiddenids import hide_places, hide_sid
from objstore.memory.scope import AGENT_SEP
from objstore.memory.sealrulefile import load_checked
from objstore.memory.sealrules import SealRules, withhold_sealed_values
from objstore.memory.sessionrules import SessionValues
from objstore.memory.sessions import (CapturedTurn, ChainNotes, SessionState, cap_turn_text, digest_text, load_session,
                                      save_session_state, taints_after, turn_doc, turn_doc_fields, walk_turns)
from objstore.memory.tombstones import CaptureFilter, capture_filter
from objstore.memory.turnmeta import record_written, source_marks

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path (docs/benchmarks.md, session 16)
if TYPE_CHECKING:
    from collections.abc import Callable

    from objstore.core.packwriter import PackWriter
    from objstore.core.redact import RedactResult


#: ``objstore.core.redact.path_holds_credential`` once :meth:`TurnAppender._path_refused` has imported it
_path_holds_credential = None


def message_digest(turn: Turn) -> bytes:
    """:meth:`TurnAppender.text_digest` of a stored turn's text, or ``b""`` for a
    forgotten (emptied) turn."""
    return b"" if turn.forgotten else digest_text(turn.text)


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


def redaction_marks(text: str) -> frozenset[str]:
    """The redaction markers ``text`` holds (``[REDACTED:<rule>]``, at most
    64 characters each), as a set of str; empty for most texts (one
    substring search)."""
    out = set()
    i = text.find("[REDACTED:")
    while i >= 0:
        j = text.find("]", i, i + 64)
        if j < 0:
            break
        out.add(text[i:j + 1])
        i = text.find("[REDACTED:", j)
    return frozenset(out)


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
                 refill=None, withhold: Callable[..., str] | None = None) -> None:
        self.store = store
        #: ``(store, text) -> text`` withholding what a sealed key holds (a "remember that" prompt on a
        #: sealed key: ``capture.sealedprompt.withhold_sealed``), applied after the redaction; run only
        #: when the store has a sealed key (one ref listing per appender, :meth:`_any_sealed`); and
        #: ``(store, text, previous) -> text`` on every user turn, ``previous()`` the redaction markers of
        #: the session's previous user turn (:meth:`_previous_marks`, called only for a take-back): a
        #: take-back of a withheld or redacted value says its new value (test33b T9)
        self.withhold = withhold
        self._sealed: bool | None = None
        #: session -> the redaction markers its newest user turn holds (:func:`redaction_marks`)
        self._prompt_marks: dict[str, frozenset[str]] = {}
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
        self._seal: SealRules | None | bool = False   # False: not read yet
        self._values = SessionValues(store)   # the session rules (objstore.memory.sessionrules)
        self._redact: Callable[[str], RedactResult] | None = None   # objstore.core.redact.redact, once needed
        self._valid: dict[str, str | None] = {}
        #: session ids refused because they hold a credential (:meth:`valid_sid`)
        self.credential_sids: set[str] = set()
        #: turns written without their cwd and project, which held a credential (:meth:`_path_refused`)
        self.paths_refused = 0
        self._bulk = False
        self._writer: PackWriter | None = None
        self._stream = None          # pack mode: the import's one index writer (SearchIndex.stream)
        #: pack mode: about how many turns this appender will write (0: unknown), read
        #: at :meth:`start_index` or its first index commit: a store without a turns index lays it out for
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
        #: pack mode: session -> the non-empty cwd and project values of its turns written since the
        #: last publish; ``_meta``: session -> [head before this appender's first publish of it, head
        #: now, values (a tuple), the marks of its chain's sources (``turnmeta.source_marks``' hex
        #: digits as bytes)], or None when a chain was rewritten or moved
        #: by another writer meanwhile:
        #: given to ``turnmeta.record_written`` by :meth:`close` (the first forget --match reads no chain)
        self._meta_new: dict[str, set[str]] = {}
        self._meta: dict[str, list | None] = {}

    def _redacted(self, text: str) -> tuple[str, int]:
        """``text`` as a turn stores it (capped, credentials replaced:
        :meth:`_stored`, or as :attr:`redactions` has it; a sealed key's
        value withheld: :attr:`withhold` and the local seal rules), and how many credentials were
        replaced (a withheld value counts as one)."""
        got = self.redactions.get(text)
        if got is None:
            got = self._stored(text)
        seal = self.seal_rules()
        if seal is not None:   # a sealed value quoted after its seal (sealrules; test34 T4)
            kept, n = withhold_sealed_values(got[0], seal)
            got = (kept, got[1] + n)
        if self.withhold is not None and self._any_sealed():
            kept = self.withhold(self.store, got[0])
            if kept != got[0]:
                return kept, got[1] + 1
        return got

    def _any_sealed(self) -> bool:
        """Whether the store has a sealed key (listed once per appender)."""
        if self._sealed is None:
            self._sealed = next(iter(self.store.refs.iter("sealed", damaged=[])), None) is not None
        return self._sealed

    def _previous_marks(self, sid: str, st: SessionState) -> frozenset[str]:
        """The redaction markers (:func:`redaction_marks`) of session
        ``sid``'s newest user turn before the one being written (state
        ``st``): kept as this appender writes user turns, else read back from
        the chain once per session, from its published head
        (``st.start_head``: what this appender wrote on it since holds no
        user turn), the first user turn down, at most 256 turns (a damaged
        chain reads none).  A take-back after ``[REDACTED:sealed-value]`` or a
        password's marker is withheld (test33b T9)."""
        got = self._prompt_marks.get(sid)
        if got is None:
            got = frozenset()
            try:
                for i, tv in enumerate(walk_turns(self.store, st.start_head)):
                    if tv.turn.role == "user" or i >= 256:
                        got = redaction_marks(tv.turn.text) if tv.turn.role == "user" else got
                        break
            except MemError:
                pass
            self._prompt_marks[sid] = got
        return got

    def _stored(self, text: str) -> tuple[str, int]:
        """The text a turn of ``text`` stores (capped, :func:`cap_turn_text`,
        then its credentials replaced) and how many credentials were."""
        text = cap_turn_text(text)
        if self._redact is None:   # an appender that stores no text (a catch-up with nothing new)
            from objstore.core.redact import redact   # deferred: never loads the rules (~4 ms)
            self._redact = redact
        red = self._redact(text)
        return (red.text, len(red.hits)) if red.hits else (text, 0)

    @property
    def named_values(self) -> dict[str, list[str]]:
        """Session id -> the values its turns written here named a password
        or PIN (``SessionValues.named``; ``objstore.memory.sessionearlier``)."""
        return self._values.named

    def stored_text(self, text: str) -> str:
        """``text`` as a turn of it stores it (capped, credentials replaced)."""
        return self._redacted(text)[0]

    def text_digest(self, text: str) -> bytes:
        """16-byte digest of ``text`` as a turn would store it (credentials
        redacted): what tells two copies of one message apart (``objstore.capture.sync``,
        resumed and forked sessions)."""
        if text:
            text = self._redacted(text)[0]
        return digest_text(text)

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
        """Drop an unpublished pack (after an error, too); in pack mode, note
        the published sessions' cwd and project values in the turn-meta cache
        (``turnmeta.record_written``); then drop the run's per-session state
        (states, message digests, validated ids, sub-agent chains; the
        counters and the turns :meth:`index_deferred` indexes stay)."""
        if self._writer is not None:
            self._writer.abort()
            self._writer = None
        self._close_stream()
        meta, self._meta = self._meta, {}
        self._meta_new.clear()
        written = {sid: (m[0], m[1], m[2], m[3]) for sid, m in meta.items() if m is not None}
        if written:
            record_written(self.store, written)
        # the run's per-session state goes with it (its counters stay, and the turns whose indexing
        # was deferred: index_deferred runs after close): a large import frees it before its end
        # merges (docs/benchmarks.md, "Session 30 (branch `rss30`)")
        self.states, self.message_digests, self._valid, self.subagent_chains, self._whole = {}, {}, {}, {}, {}
        self._prompt_marks = {}

    def _note_published(self, moves: list[tuple[str, str | None]]) -> None:
        """Pack mode, after :meth:`publish` moved the refs of ``moves``
        (session, its head before): note each session's old and new head and
        the values of the turns written on top, and the marks of its chain's
        sources (``turnmeta.source_marks``), for :meth:`close`."""
        for sid, base in moves:
            vals = self._meta_new.pop(sid, set())
            head = self.states[sid].head
            # the whole chain's (the state has them all), as bytes: kept for every session the run
            # publishes until close, the values as a tuple and the marks' hex digits as their bytes
            # take ~10 MB less at 2.07M turns (docs/benchmarks.md, "Session 31 (branch `rss31`)")
            marks = bytes.fromhex(source_marks(self.states[sid].sources))
            if sid not in self._meta:
                self._meta[sid] = [base, head, tuple(vals), marks]
                continue
            m = self._meta[sid]
            if m is None:
                continue
            if m[1] != base:        # another writer moved it between two publishes: read it when asked
                self._meta[sid] = None
                continue
            m[1] = head
            m[2] = tuple(vals.union(m[2]))
            m[3] = marks

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

    def start_index(self) -> None:
        """Pack mode: lay out a turns index this import creates now, sized by
        :attr:`expected_turns` as it is, instead of at the first
        :meth:`publish`, so that tantivy indexes the turns written so far
        and those that follow while the caller goes on
        (``IndexStream.start``); nothing is visible before a publish.
        Nothing without turns written, after an index error, or when the
        layout exists.  An index error is kept and returned by the next
        :meth:`publish` (the journal replays those sessions)."""
        if self._stream is None or self._stream_error is not None:
            return
        try:
            self._stream.start()
        except SearchIndexError as e:
            self._stream_error = str(e)
            self._close_stream()

    def drop_states(self) -> None:
        """Forget the in-memory state of the sessions (all published: call
        after :meth:`publish`), so a long import keeps memory bounded; a later
        turn of one of them reloads it (from the state cache)."""
        self.states = {sid: st for sid, st in self.states.items() if sid in self.dirty}
        self._prompt_marks = {sid: v for sid, v in self._prompt_marks.items() if sid in self.states}
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

    def seal_rules(self) -> SealRules | None:
        """The store's local seal rules (``sealrules.load``, read once), or
        None without a seal.  Raises IntegrityError when the rules file is
        there but does not read (``sealrulefile.refuse_unreadable``)."""
        if self._seal is False:
            rules = load_checked(self.store)   # unreadable, or damaged with a seal: nothing captured (test42 T25)
            self._seal = rules
        return self._seal

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
        self._prompt_marks.clear()
        self.dirty.clear()
        self.docs = []
        self._flt = self._flt_refs = None
        self._seal = False
        self._oids = []
        self._bulk = False
        self.message_digests.clear()
        self.subagent_chains.clear()
        self._whole.clear()
        self._meta_new.clear()
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

    def _path_refused(self, cwd: str, project: str) -> bool:
        """Whether a turn's ``cwd`` or ``project`` holds a credential (the
        one path rule, ``objstore.core.redact.path_holds_credential``):
        the turn is then written without either (``""``, unknown) and
        :attr:`paths_refused` counts it."""
        global _path_holds_credential
        held = _path_holds_credential
        if held is None:   # then kept: a ``from … import`` costs ~1 µs, once per turn of an import
            from objstore.core.redact import path_holds_credential  # deferred: the rules compile at import
            held = _path_holds_credential = path_holds_credential
        if held(cwd) or held(project):
            self.paths_refused += 1
            return True
        return False

    def valid_sid(self, sid: str) -> str | None:
        """``sid`` validated and normalised, or None when it cannot be a ref
        name or when it, or a sub-agent name in it, holds a credential (the
        one name rule, :func:`objstore.memory.writechecks.check_key_credentials`:
        a session id names ref files, reflogs, the audit log and the index,
        none of which is redacted); such an id is added to
        :attr:`credential_sids`, so a caller can say why without showing it.
        One holding a ``--match`` text is its hidden id (``hiddenids.hide_sid``)."""
        if sid not in self._valid:
            try:
                ok: str | None = validate_session_id(sid)
            except InvalidInput:
                ok = None
                try:                # malformed too (too long, a '/'): still never shown when it holds one
                    check_key_credentials(sid, "session")
                except InvalidInput:
                    self.credential_sids.add(sid)
            if ok is not None:
                try:
                    check_key_credentials(ok, "namespace")
                    ok = hide_sid(self.filter(), self.store.root, ok)   # holding a --match text (test42 T1)
                except InvalidInput:
                    ok = None
                    self.credential_sids.add(sid)
            self._valid[sid] = ok
        return self._valid[sid]

    def known(self, ct: CapturedTurn) -> bool:
        """True when the turn (by source or alias) is already in its session."""
        sid = self.valid_sid(ct.session)
        if sid is None:
            return True
        srcs = self.state(sid).sources
        hit = self.filter().as_stored(sid, ct.source)
        return ct.source in srcs or bool(ct.alias and ct.alias in srcs) or bool(hit and hit[0] in srcs) \
            or bool(ct.legacy and ct.legacy in srcs)

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
        hit = flt.as_stored(sid, ct.source)
        if hit is not None:     # a record --scrub-sources rewrote: it is the stored turn, under its old key
            ct = CapturedTurn(ct.session, ct.source, ct.role, ct.text, ct.timestamp, ct.cwd, ct.project, hit[0],
                              ct.entrypoint)
        known = ct.source in st.sources or bool(ct.alias and ct.alias in st.sources) \
            or bool(ct.legacy and ct.legacy in st.sources)     # an older mem's plain prompt alias (test34b T10)
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
        hit = flt.as_stored(sid, ct.source)
        if hit is not None:     # a scrubbed record whose turn the chain lost: never its scrubbed rest
            source = hit[0]
        red = self._redacted(text) if (flt.turns and text and hit is None) else None
        gone = hit[1] if hit is not None else \
            flt.forgets(sid, (source, ct.source, ct.legacy), (text, red[0])) if red is not None else None
        if gone is not None:
            text, forgotten = "", gone      # kept as an emptied turn (its tombstone's time): it never comes back
            self.forgotten += 1
        elif flt.text or sid in flt.rules:   # a --match text: never stored in the clear (txt42)
            text, n = flt.withhold(sid, text)
            self.matches_redacted += bool(n)
            red = None if n else red
        if text:
            text, n = red if red is not None else self._redacted(text)  # credentials never reach disk
            if ct.role == "user" and self.withhold is not None:   # a take-back of what the previous prompt
                kept = self.withhold(self.store, text, lambda: self._previous_marks(sid, st))   # had withheld
                text, n = kept, n + (kept != text)
            # a value withheld before in the session (a fetched secret, a password: test34b T15), and this one's
            text, m = self._values.apply(sid, text, cap_turn_text(ct.text), ct.withheld, ct.project)
            self.secrets_redacted += n + m + (ct.text.count("[REDACTED:fetched-secret]") if ct.withheld else 0)
        if ct.role == "user":
            self._prompt_marks[sid] = redaction_marks(text)
        harness = harness or self.harness
        cwd, project = ct.cwd, ct.project
        if cwd or project:   # a --match forget empties a cwd/project holding its text
            cwd, project = hide_places(flt, sid, cwd, project)
        if (cwd or project) and self._path_refused(cwd, project):
            cwd = project = ""              # a credential in the path: written nowhere (counted)
        seq = st.next_seq
        fc = ct.forecast if forecast else None
        if fc is not None and self.pack and not forgotten and fc[0] == (
                sid, seq, ct.role, text, ct.timestamp, harness, cwd, project, source, st.head,
                ct.entrypoint, st.taints):
            # the turn below, encoded and hashed elsewhere (TurnForecast): every field is the same
            oid = self._put(fc[1], fc[2])
            taints, msg = fc[3], fc[4]
        else:
            turn = Turn(session=sid, seq=seq, role=ct.role, text=text, timestamp=ct.timestamp,
                        harness=harness, cwd=cwd, project=project, source=source,
                        parent=st.head, forgotten=forgotten, entrypoint=ct.entrypoint,
                        untrusted=st.taints)
            oid = self._put(encode(turn))
            taints, msg = taints_after(turn), None
        self.written += 1
        if self.pack and (cwd or project):
            vals = self._meta_new.get(sid)
            if vals is None:
                vals = self._meta_new[sid] = set()
            vals.update(v for v in (cwd, project) if v)
        st.head, st.next_seq = oid, seq + 1
        st.head_role, st.head_source = ct.role, source
        st.taints = taints  # session taint spreads forward only
        st.sources.add(source)      # what the chain holds, so the cache equals a walk
        if ct.role == "assistant" and source.startswith("cc:msg:"):
            self.message_digests[(sid, source)] = b"" if forgotten else (msg or digest_text(text))  # = message_digest
        if AGENT_SEP in sid and self._whole.get(sid):
            notes = self.subagent_chains.get(sid)
            if notes is None:
                notes = self.subagent_chains[sid] = ChainNotes()
            notes.add_fields(oid, forgotten, cwd, project, ct.role, text, ct.timestamp)
        self.dirty.add(sid)
        if not forgotten:
            self._index(turn_doc_fields(oid, sid, ct.timestamp, project, ct.role, text, seq))
            self.added += 1
        return oid, turn

    def chain_rewritten(self, sid: str) -> None:
        """Note that session ``sid``'s chain is rewritten, not only extended
        (a gap filled, turns moved onto a new parent): :meth:`close` does not
        extend its turn-meta cache line (it is read again when asked)."""
        self._meta[sid] = None

    def put_rewritten(self, turn: Turn) -> str:
        """Write ``turn``, a chain's turn moved onto a new parent (no capture
        rule: it was applied when the turn was first written); indexed unless
        forgotten.  Returns its id."""
        oid = self._put(encode(turn))
        self.chain_rewritten(turn.session)
        if not turn.forgotten:
            self._index(turn_doc(oid, turn))
        return oid

    def publish(self, *, index: bool = True, wait: bool = True, defer_index: bool = False) -> str | None:
        """Make written turns durable and visible; returns an index error
        message (turns stored, index behind; the journal replays it) or None.

        Pack mode: the pack and its index are written and fsynced first,
        unreadable (``PackWriter.finish(install=False)``), while the last
        batch's index commit goes on; then one durable journal append notes
        the sessions (``S`` lines) and, first, the ref of each session this
        publish creates (``N`` lines); only then is the pack made readable
        and the refs moved.  A ``kill -9`` before that append leaves temp
        files (gc's), one after it turns whose new sessions the next holder
        of the store lock sets (``objstore.memory.recovery``): never stored
        turns that no ref names, which ``mem fsck`` reports as lost refs
        (tester finding W8).  Loose mode notes the same ``N`` lines, once its
        objects are synced and before the refs move (test33b T16: a prompt
        hook stopped between left its turn with no session ref).

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
        writer = self._writer   # (until installed: an error before aborts it, ``close``)
        # the pack and its index durable, not readable yet: while the last batch is being indexed
        if writer is not None and writer.finish(install=False) is None:   # (the costly part, before the wait)
            self._writer = writer = None    # no object in it: no file
        err = self._wait_index()
        if not self.dirty:
            self._install()
            return err
        self.sync_objects()      # objects durable before any ref names them
        t = now_ms()
        moved = sorted(self.dirty)
        moves = [(sid, self.states[sid].start_head) for sid in moved]
        owned = store.journal.own(moves) if (defer_index and index and not self.pack) else None
        if owned is None:   # with an N line for each new session's ref, before its turns can be read
            store.journal.sessions(moves, new_refs=[(self.states[sid].ref, self.states[sid].head)
                                                    for sid, old in moves if old is None])
        self._install()          # readable now: a stop before the refs move leaves them to recovery
        # one batch: the filesystem synced a few times, not three fsyncs per session
        store.update_refs([(self.states[sid].ref, self.states[sid].start_head, self.states[sid].head)
                           for sid in moved], self.command, time_ms=t)
        if self.pack:
            self._note_published(moves)
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

    def _install(self) -> None:
        """Make the pack :meth:`publish` prepared readable (``PackWriter.install``)."""
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.install()
            self.store.packs.reload()

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
