"""Facts: remember (supersede), read the current value, walk the history.

The supersession rule (``docs/design.md``): every write of a key creates
version N+1 whose ``parent`` is the head and moves ``refs/facts/<key>`` to it
by compare-and-swap.  The *current* version is the one with the greatest
``valid_from`` (ties: the higher version), so a backfill (a write whose
``valid_from`` is older than an existing version's) enters the history
without displacing the newer value.  No score or model ever decides it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator

from objstore.core.errors import (PERSON_ONLY_HINT, AmbiguousId, IntegrityError, InvalidInput, MemError, NotFound,
                                  RefConflict, Refused, WrittenUnlogged)
from objstore.core.ids import check_prefix, is_full_id
from objstore.core.objects import EDGE_KINDS, HELD_OUT_KINDS, Fact, KINDS, Turn, edge_target_kind, normalize_edges
from objstore.core.record import Frozen, set_fields
from objstore.core.refs import (fact_ref, key_scope, parse_version_spec, refuse_if_credential, sealed_ref, validate_key,
                                validate_session_id)
from objstore.core.codec import encode
from objstore.core.store import Store, now_ms, syncfs
from objstore.memory.lost import lost_current, lost_message
from objstore.memory.served import no_version, sealed_plain
from objstore.memory.supersede import Version, current_of, weighed
from objstore.memory.validity import plain_valid_from, why_no_current
from objstore.memory.writechecks import check_key_credentials, check_key_lookalike, check_memory_file_write, \
    check_names_hold_no_secret

DEFAULT_KIND = {"user": "user", "global": "reference", "project": "project"}
MAX_BODY_CHARS = 100_000


class RememberResult(Frozen):
    """Outcome of :func:`remember`.

    Attributes:
        written: False when the body and kind equal the head's (nothing written), unless the body held
            a credential (redacted) and a source the head does not cite says it again (red37).
        version: the new (or unchanged head) version.
        previous: id of the head before the write, or None.
        current: id of the key's current version after the write (differs
            from ``version.id`` for a backfill; None while every version
            is scheduled ahead).
        queued: the review-queue item id when the write was parked instead
            of written (``objstore.memory.proposals.park``); then ``written`` is False
            and ``version``/``current`` are the head's and the current's
            (None for a key that does not exist yet).
    """

    __slots__ = ("key", "written", "version", "previous", "current", "index_error", "redacted", "queued")

    def __init__(self, key: str, written: bool, version: Version, previous: str | None, current: str | None,
                 index_error: str | None = None, redacted: int = 0, queued: str | None = None) -> None:
        set_fields(self, key, written, version, previous, current, index_error, redacted, queued)


def _new_turn(store: Store, sources, cited) -> bool:
    """red37 (test36b T17): whether ``sources`` name a turn ``cited`` does not, a turn named by its object id or
    by its capture's source id (``Turn.source``, ``cc:p:…``: the prompt hook's two writes of one statement)."""
    def names(ids) -> set[str]:   # (a turn by its capture source when it has one: either write may come first)
        return {getattr(_turn(store, i), "source", "") or i if is_full_id(i) else i for i in ids}
    return bool(sources) and not names(sources) <= names(cited)


def _turn(store: Store, oid: str):
    """The object ``oid`` of ``store``, or None when it is absent or damaged."""
    try:
        return store.get(oid)
    except (MemError, OSError):
        return None


def check_text(text: str, what: str = "the value") -> str:
    """Refuse text that is empty, not valid Unicode or longer than
    MAX_BODY_CHARS (InvalidInput, exit 2, naming it ``what``: "the value",
    as the help calls TEXT, never "body": fresh41 F11); return it unchanged."""
    if not text.strip():
        raise InvalidInput(f"{what} is empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(f"{what} is not valid UTF-8 text") from None
    if len(text) > MAX_BODY_CHARS:
        raise InvalidInput(f"{what} is longer than {MAX_BODY_CHARS} characters")
    return text


def file_value(raw: str) -> str:
    """The value a file holds, as ``mem remember KEY -`` reads standard
    input and ``mem sealed import`` an age file's plaintext: every CRLF read
    as LF (a file saved on Windows: test25 T20, test26b W6), less one final
    line end (``echo 4471 > pin.txt``), less a leading byte order mark
    (U+FEFF: Notepad saves UTF-8 with one; a sealed value kept it, and its
    seal rule then never matched the value in a later text, test39b B4).
    A lone CR stays.  ``str`` in, ``str`` out; raises nothing."""
    text = raw.replace("\r\n", "\n") if "\r" in raw else raw
    text = text[1:] if text.startswith("\ufeff") else text
    return text[:-1] if text.endswith("\n") else text


def head(store: Store, key: str) -> str | None:
    """Id of the last written version of ``key`` (validated), or None."""
    return store.refs.read(fact_ref(validate_key(key)))


def versions(store: Store, key: str) -> list[Version]:
    """Every version of ``key``, newest (head) first, walking parent links.

    Raises NotFound when the key has no ref, InvalidInput for a bad key.
    """
    key = validate_key(key, existing=True)
    oid = store.refs.read(fact_ref(key))
    if oid is None:
        refuse_if_credential(key, "key")   # (echoed below: never a key holding a secret)
        raise NotFound(f"no key {key}", hint=_other_case(store, key) or "list keys with: mem keys")
    return own_chain(key, list(walk(store, oid)))


def _other_case(store: Store, key: str) -> str | None:
    """"did you mean user/K?" for a missing ``key`` that exists spelled
    in another case (keys are case-sensitive: fresh39 F12), else None."""
    low = fact_ref(key).lower()
    alike = [n[6:] for n in store.refs.names("facts") if n.lower() == low]
    return f"keys are case-sensitive: did you mean {' or '.join(alike[:3])}?" if alike else None


def own_chain(key: str, chain: list[Version]) -> list[Version]:
    """``chain`` (newest first) when each version is one of ``key``.
    Raises IntegrityError when ``refs/facts/<key>`` names another key's
    version or a history reaching one (test31b V1; fsck names it)."""
    other = next((v.fact.key for v in chain if v.fact.key != key), None)
    if other is not None:
        raise IntegrityError(f"refs/facts/{key} names a version of another key ({other})",
                             hint="run: mem fsck --repair")
    return chain


def walk(store: Store, oid: str | None) -> Iterator[Version]:
    """Versions from ``oid`` back along ``parent`` links.

    A damaged or missing *older* version ends the walk there
    (``Store.walk_chain``: noted in ``store.damaged``; ``mem fsck --repair``
    mends the chain).  Raises IntegrityError when the first version
    (``oid`` itself) is missing or damaged."""
    for vid, f in store.walk_chain(oid, Fact, "fact version"):
        yield Version(vid, f)


def listed_chain(store: Store, ref: str, head: str, walker: Callable[[Store, str], Iterable] = walk) -> list | None:
    """For a reader that lists or searches many refs: the chain of ``ref``
    (``facts/<key>``, ``sessions/<id>``) from its ``head``, newest first
    (``walker``: :func:`walk` for a key, ``sessions.walk_turns`` for a
    session), or None when the head itself is missing or damaged.  The ref
    is then skipped, noted in ``store.damaged`` as a damaged ref (front ends
    warn "damaged ref (<ref>) skipped", as for a ref file holding garbage;
    ``mem fsck`` reports it, ``--repair`` mends it), and the listing goes on.
    Readers of one key (``mem get KEY``) use :func:`versions`, which raises.
    None too, not noted, for a key being sealed (``served.sealed_plain``)."""
    if sealed_plain(store, ref):
        return None
    known = head in store.damaged
    try:
        chain = list(walker(store, head))
        return own_chain(ref[6:], chain) if ref.startswith("facts/") else chain
    except IntegrityError as e:
        why = store.damaged.get(head, str(e)) if known else store.damaged.pop(head, str(e))
        store.damaged.setdefault(f"ref {ref}", f"names {head}, which is missing or damaged: {why}")
        return None


def key_chains(store: Store, prefix: str = "") -> Iterator[tuple[str, list[Version]]]:
    """``(key, versions newest first)`` of every key whose ref can be read
    (:func:`list_keys`, :func:`listed_chain`: one whose ref file or head
    object is damaged is skipped and noted in ``store.damaged``, and so is
    one whose current value was lost, noted as ``lost facts/<key>``:
    ``lost.lost_current``), sorted by key; optionally under ``prefix`` as
    :func:`list_keys` takes it."""
    for key, head in list_keys(store, prefix):
        chain = listed_chain(store, f"facts/{key}", head)
        if chain is None:
            continue
        if current_noting_lost(store, key, chain) is None and f"lost facts/{key}" in store.damaged:
            continue
        yield key, chain


def current_noting_lost(store: Store, key: str, chain: list[Version], as_of: int | None = None,
                        reader: str | None = None) -> Version | None:
    """:func:`current_of` of ``key``'s ``chain``; when it is None because
    the current value was lost to damage (``lost.lost_current``), that is
    noted in ``store.damaged`` as ``lost facts/<key>`` (the CLI warns once
    on stderr: ``keys``, ``search``, ``recall`` skip the key and never serve
    an older version as current).  Raises nothing."""
    cur = current_of(chain, as_of, reader)
    if cur is None:
        lost = lost_current(chain, None, as_of)
        if lost is not None:
            store.damaged.setdefault(f"lost facts/{key}", lost_current_message(key, chain, lost))
    return cur


def visible(f: Fact, include_directives: bool = False) -> bool:
    """Whether a fact version may be shown by recall, context or injection:
    not secret (sealed values are never shown), not forgotten, and not of a
    kind in ``HELD_OUT_KINDS`` (a ``directive``) unless
    ``include_directives`` (recall and search on request; never context
    or injection)."""
    return (f.sensitivity != "secret" and not getattr(f, "forgotten", 0) and bool(f.body.strip())
            and (include_directives or f.kind not in HELD_OUT_KINDS))


def current_version(store: Store, key: str, reader: str | None = None) -> tuple[str, Fact] | None:
    """``(id, Fact)`` of ``key``'s current version by the supersession rule
    as namespace ``reader`` sees it (``facts.current_of``; None: the
    person's view), or None (no such key, nothing current).  Raises
    IntegrityError for a broken history.  A key whose current value was
    lost to damage answers None and is noted in ``store.damaged``
    (:func:`current_noting_lost`), so the caller can say so."""
    head = store.refs.read("facts/" + key)
    if head is None:
        return None
    cur = current_noting_lost(store, key, own_chain(key, list(walk(store, head))), reader=reader)
    return None if cur is None else (cur.id, cur.fact)


def current(store: Store, key: str, as_of: int | None = None, when: str = "", reader: str | None = None) -> Version:
    """The current version of ``key`` (with ``as_of``, ms: the one current
    then; ``reader``: as namespace ``reader`` reads it, None the person's
    view: :func:`current_of`, as recall chooses a key's value).

    Raises:
        NotFound: no such key (also, for a ``reader``, a key whose every live
            version is in a namespace it may not read: ``no key``, as for a
            key that does not exist), or none of it is current (all
            forgotten; none valid by ``as_of``, which the message writes as
            ``when``).
        IntegrityError: the current value was lost (``lost.lost_current``).
    """
    chain = versions(store, key)
    cur = current_of(chain, as_of, reader)
    if cur is not None:
        return cur
    if reader and chain and not weighed(chain, reader) and weighed(chain, None):
        # a key only a sibling sub-agent wrote reads as no key at all (test29 P3)
        raise NotFound(f"no key {key}", hint="list keys with: mem keys")
    lost = lost_current(chain, None, as_of)
    if lost is None:
        raise NotFound(f"{key} had no current value at {when or as_of}" if as_of is not None
                       else f"{key} has no current value ({why_no_current([v.fact for v in chain], now_ms())})",
                       hint=f"see its versions with: mem log {key}")
    raise IntegrityError(lost_current_message(key, chain, lost),
                         hint=f"'mem log {key}' shows what is readable; 'mem revert {key}' makes the older value "
                              f"current again, 'mem remember {key} VALUE' sets a new one")


def lost_current_message(key: str, chain: list[Version], lost: Version) -> str:
    """What a reader says of a key whose current value was lost
    (``lost.lost_current``): the lost version and the newest readable one."""
    older = current_of([v for v in chain if v.fact.version < lost.fact.version])
    return lost_message(key, lost.fact.version, older.fact.version if older is not None else None)


#: the index kinds that hold fact versions (current ones, and the others in history)
FACT_KINDS = ("fact", "history")
#: Seconds a fact's index commit made after the answer (``commit_version(later=...)``)
#: waits for the facts sub-index when another writer holds it (a gc, a rebuild, an
#: import's facts) before it leaves its journal entry to the next replay
LATER_BUSY_WAIT_S = 120.0


def fact_doc(oid: str, f: Fact):
    """The search-index document of a current fact version."""
    from objstore.index.schema import IndexDoc  # deferred: the index schema imports tantivy
    scope = key_scope(f.key)
    project = scope.split("/", 1)[1] if scope.startswith("project/") else ""
    words = f.key.replace("/", " ")
    return IndexDoc(id=oid, kind="fact", ref=f.key, time=f.valid_from, project=project,
                    role=f.kind, text=f"{words}\n{f.body}")


def history_doc(oid: str, f: Fact):
    """The search-index document of a version that is not (or no longer)
    current: kind ``history``; recall resolves its hits to the key's current
    version (``objstore.retrieval.recall``)."""
    return fact_doc(oid, f).replace(kind="history")


def commit_version(store: Store, key: str, old: str | None, new: str | None, *, old_chain: list[Version],
                   new_chain: list[Version], command: str, time_ms: int | None = None,
                   rewrite: bool = False, index: bool = True,
                   index_batch: "indexbatch.IndexBatch | None" = None, later: list | None = None,
                   objects_ready: Callable[[], None] | None = None,
                   idmap: dict[str, str | None] | None = None) -> str | None:
    """The one commit of a fact version, used by every writer of a fact
    (``remember``, ``decay``, ``queue``, ``vault.sealed``, ``forget``).

    The objects of ``new_chain`` (the key's versions after the write, newest
    first; ``old_chain`` before it) are already stored.  In the store's
    order: a journal note (so recovery can redo the index), the ref moves
    from ``old`` to ``new`` by compare-and-swap with its reflog entry
    (``Store.update_ref``; ``rewrite``: a history rewrite, the reflog is
    replaced, or kept with its ids mapped by ``idmap``), then the search index, in one commit of ``facts/``: the new
    current version in, the one it displaces out and into the history (a
    backfill that does not become current goes to the history only).
    ``index=False`` leaves the index to the caller (``forget`` rebuilds it
    physically).
    ``index_batch``: the index write is kept in it (the journal note is
    written now) for one write of many versions (:class:`~objstore.memory.indexbatch.IndexBatch`).

    ``later``: a list: the index commit is not made here but appended to it
    as a callable (no arguments; returns the index error message or None),
    a :class:`LaterCommit` (which :func:`commit_later` also commits with
    others in one commit), for a caller that answers first (the resident
    helper, a new process's ``remember``).  The journal note is then an owned entry
    (``IndexJournal.own_facts``: durable and ``flock``ed by this process
    before the ref moves), so the callable may run after the store lock is
    released: the next writer does not wait for this commit.  It commits
    under the facts sub-index's own lock, from the key's refs as they are
    then (:meth:`SearchIndex.add` ``facts_of``: writes committed in any
    order, or a forget between, leave the index as a replay would), waiting
    up to :data:`LATER_BUSY_WAIT_S` for a busy sub-index; then the entry
    goes.  A crash before loses nothing (the entry's ``flock`` drops and
    the next holder of the store lock replays it); a reader waits for the
    commit on that ``flock`` (``Store.try_recover``); an index error leaves
    the entry to the replay.  Where ``flock`` does not exist the index is
    committed here, under the lock, and nothing is appended.

    ``objects_ready``: for objects still being written
    (``Store.put_started``): called once the journal note is durable and
    before the ref moves (it raises what their write raised: nothing moves).

    Returns an index error message (the write stands; the journal lets the
    next writer catch up) or None.  Raises RefConflict (nothing moved).
    Caller holds the store lock.
    """
    old_cur, new_cur = current_of(old_chain), current_of(new_chain)
    reindex = index and new_cur is not None and (old_cur is None or new_cur.id != old_cur.id)
    old_ids = {v.id for v in old_chain}
    # the version that stops being current (or a backfill, never current) goes to the history
    past = ([old_cur] if old_cur else []) if reindex else [v for v in new_chain if v.id not in old_ids]
    batch_error = index_batch.before(key) if index_batch is not None and index else None
    noted = reindex or (index and later is not None and index_batch is None and bool(past))
    owned = None
    if index_batch is not None and index_batch.defer_refs and not rewrite:
        index_batch.move(key, fact_ref(key), old, new, command, noted)  # made by its flush, in this order
    else:
        if noted and later is not None and index_batch is None:
            owned = store.journal.own_facts([key])  # the commit may run after the store lock is released
        if noted and owned is None:
            store.journal.fact(key)  # before the ref moves: recovery can redo the index
        try:
            if objects_ready is not None:
                objects_ready()  # the object durable before a ref names it
            store.update_ref(fact_ref(key), old, new, command, time_ms=time_ms, rewrite=rewrite, idmap=idmap)
        except WrittenUnlogged:
            if owned is not None:
                owned.abandon()  # the ref moved: the next holder of the store lock indexes it (test30 R12)
            raise
        except BaseException:
            if owned is not None:
                owned.done()     # nothing moved: nothing to index
            raise
    if not (index and (reindex or past)):
        if owned is not None:
            owned.done()
        return None
    def documents() -> list:
        # built when committed: the index schema imports tantivy, which a
        # writer that commits later (in a forked child, cmds.lean) must not load
        return ([fact_doc(new_cur.id, new_cur.fact)] if reindex else []) + [history_doc(v.id, v.fact) for v in past]  # type: ignore[union-attr]
    dels = [old_cur.id] if (reindex and old_cur) else []
    if index_batch is not None:
        index_batch.keep(key, documents(), dels, reindex)
        return batch_error

    def index_now() -> str | None:
        """The index commit of this write (see above)."""
        from objstore.index.errors import SearchIndexError   # deferred: a write's
        try:
            store.index.add(documents(), delete_ids=dels, delete_kinds=FACT_KINDS)
            if noted:
                store.journal.clear()
        except SearchIndexError as e:  # the write stands; the journal lets the index catch up
            return str(e)
        return None

    if later is not None and owned is not None:
        touched = list(dict.fromkeys([*(v.id for v in past), *([new_cur.id] if reindex else []), *dels]))  # type: ignore[union-attr]
        later.append(LaterCommit(store, key, touched, new, new_chain, owned))
        return None
    return index_now()   # with ``later`` too where no owned entry can be made (no flock): under the lock, now


class LaterCommit:
    """One fact write's index commit made after its answer
    (:func:`commit_version` ``later=``): the write's ``store``, ``key``, the
    version ids it ``touched`` (the one it displaced, the one it wrote),
    the head it wrote (``new``, whose chain ``new_chain`` is) and its owned
    journal entry (``owned``, ``IndexJournal.own_facts``).  Calling it
    commits it alone (no arguments; returns the index error message or
    None); :func:`commit_later` commits several in one commit."""

    __slots__ = ("store", "key", "touched", "new", "new_chain", "owned")

    def __init__(self, store: Store, key: str, touched: list[str], new: str | None, new_chain: list[Version],
                 owned) -> None:
        self.store, self.key, self.touched, self.new, self.new_chain, self.owned = \
            store, key, touched, new, new_chain, owned

    def __call__(self) -> str | None:
        return commit_later([self])


def _facts_now(group: list[LaterCommit]) -> tuple[list, list[str]]:
    """Under the facts sub-index's lock: the documents of the writes of one
    key (``group``, oldest first) as the key's ref has it now (a later
    write, or a forget, may have moved it since; what a journal replay of
    ``F`` does, for the versions these writes touched): ``(docs, ids to
    delete)``.  The ref is read once, so writes committed together never
    index two heads of one key."""
    last = group[-1]
    head = last.store.refs.read(fact_ref(last.key))
    match = next((c for c in reversed(group) if c.new == head), None)
    chain = match.new_chain if match is not None else (list(walk(last.store, head)) if head else [])
    cur = current_of(chain)
    by_id = {v.id: v for v in chain}
    touched = list(dict.fromkeys(i for c in group for i in c.touched))
    gone = [i for i in touched if cur is None or i != cur.id]
    docs = [fact_doc(cur.id, cur.fact)] if cur is not None else []
    docs += [history_doc(i, by_id[i].fact) for i in gone
             if i in by_id and not by_id[i].fact.forgotten and by_id[i].fact.body]
    return docs, gone


def commit_later(commits: list[LaterCommit]) -> str | None:
    """The index commit of fact writes that have answered
    (:class:`LaterCommit`, all of one store), with or without the store
    lock: one commit of ``facts/`` for all of them (a group commit: the
    resident helper's commit thread passes every write that queued while the
    previous commit ran), under the facts sub-index's own lock, from each
    key's ref as it is then (``SearchIndex.add(facts_of=...)``); waits up to
    :data:`LATER_BUSY_WAIT_S` for a busy sub-index.  Once made, each write's
    owned journal entry goes; on an error they all stay for the next replay
    (``docs/format.md``, "Owned entries").  Returns the index error message
    or None; raises what the index raises other than SearchIndexError (the
    entries stay)."""
    if not commits:
        return None
    by_key: dict[str, list[LaterCommit]] = {}
    for c in commits:
        by_key.setdefault(c.key, []).append(c)

    def facts_of() -> tuple[list, list[str]]:
        docs: list = []
        gone: list[str] = []
        for group in by_key.values():
            d, g = _facts_now(group)
            docs += d
            gone += g
        return docs, gone

    import time  # deferred: the write's path stays lean
    from objstore.index.errors import IndexBusyError, SearchIndexError   # deferred: a write's
    deadline = time.monotonic() + LATER_BUSY_WAIT_S
    try:
        while True:
            try:
                commits[0].store.index.add((), delete_kinds=FACT_KINDS, facts_of=facts_of)
                break
            except IndexBusyError:  # a gc, rebuild or import holds the facts sub-index
                if time.monotonic() >= deadline:
                    raise
    except SearchIndexError as e:  # the writes stand; the owned entries let the index catch up
        for c in commits:
            c.owned.abandon()
        return str(e)
    except BaseException:
        for c in commits:
            c.owned.abandon()
        raise
    for c in commits:
        c.owned.done()
    return None


def resolve_edge_target(store: Store, key: str, target: str) -> str:
    """An edge target as a person or a caller names it -> as a fact stores it.

    ``KEY`` (an existing key, not ``key`` itself) stays the key (an edge to a
    key follows its current version); ``KEY@vN`` becomes that version's id;
    an object id or a prefix of >= 4 hex digits becomes the full id of a
    turn or a fact version.

    Raises InvalidInput (bad key, an edge to itself, an object that is not a
    fact version or a turn), NotFound, AmbiguousId.
    """
    if "/" in target.partition("@")[0]:
        if "@" in target:
            return resolve_version(store, target).id
        target = validate_key(target, existing=True)
        if target == key:
            raise InvalidInput(f"{key} cannot have an edge to itself")
        if store.refs.read(fact_ref(target)) is None:
            refuse_if_credential(target, "key")
            raise NotFound(f"no key {target} to link to", hint="list keys with: mem keys")
        return target
    oid = store.resolve(check_prefix(target))
    obj = store.get(oid)
    if not isinstance(obj, (Fact, Turn)):
        raise InvalidInput(f"{oid[:12]} is a {obj.TYPE_NAME}; an edge points at a fact or a turn")
    if isinstance(obj, Fact) and obj.key == key:
        raise InvalidInput(f"{key} cannot have an edge to one of its own versions")
    return oid


def resolve_edges(store: Store, key: str, edges, known_turns: Collection[str] = ()) -> tuple[tuple[str, str], ...]:
    """``(relation, target)`` pairs -> sorted, unique, resolved pairs
    (:func:`resolve_edge_target`); raises as it does, and InvalidInput for a
    relation not in ``EDGE_KINDS``.  ``known_turns``: full ids of turns the
    caller has just read from this store (a rollup's sub-agent chain); an
    edge to one of them is taken as it is, not looked up again."""
    out = []
    for rel, target in edges:
        if rel not in EDGE_KINDS:
            raise InvalidInput(f"edge relation must be one of {', '.join(EDGE_KINDS)}, not {rel!r}")
        out.append((rel, target if target in known_turns else resolve_edge_target(store, key, target)))
    return normalize_edges(out)


def remember(store: Store, key: str, body: str, *, kind: str | None = None,
             trust: str = "user_stated", valid_from: int | None = None,
             expect: str | None = None, sensitivity: str = "private",
             owner: str = "user", sources: tuple[str, ...] = (), pinned: bool | None = None,
             command: str = "remember", reviewed: bool = False,
             edges=(), replace_edges: bool = False, namespace: str = "",
             index_batch: "indexbatch.IndexBatch | None" = None, later: list | None = None,
             known_turns: Collection[str] = (), named_by_mem: bool = False) -> RememberResult:
    """Write a new version of ``key`` (supersession) and move its ref.

    ``namespace``: the namespace the version is written in (a session id,
    ``<session>.agent-<name>`` for a sub-agent; ``objstore.memory.scope``);
    "" for none.  Readers of other namespaces see it by the visibility rule
    (:func:`current_of`).

    ``later``: a list to receive the index commit as a callable instead of
    making it here (:func:`commit_version`; the resident helper and a new
    process's ``remember`` answer first); the caller may run it after it
    has released the store lock.

    ``named_by_mem``: mem named the key itself (a sub-agent's summary,
    ``capture.rollup.summary_key``), not the writer: ``proposals.park``
    skips the look-alike key check (one listing of every key per write).
    ``reviewed``: a person reviewed this value (queue accept): the
    instruction-shape check, which otherwise parks a write of any trust, is
    skipped.

    Edges (``docs/format.md``, "Edges"): ``edges`` is an iterable of
    ``(relation, target)`` pairs, relation one of ``EDGE_KINDS``
    (``relates_to``, ``contradicts``, ``derived_from``, ``rollup_of``),
    target a key, ``KEY@vN``, or a (prefix of a) turn or fact-version id
    (:func:`resolve_edge_target`).  The new version holds the head's edges
    plus these (``replace_edges``: only these).  A write whose body, kind and
    edges equal the head's writes nothing, so repeating a write is safe.  A
    writer that takes ``contradicts`` edges from a person or an agent then
    calls ``objstore.memory.edges.flag_contradictions`` (the review queue
    sits above this module).

    Args:
        key: ``<scope>/<name>``; NFC-normalized.
        body: the value (non-empty Unicode text).
        kind: one of KINDS; default from the scope (user->user,
            project->project, global->reference) or the head's kind.
        trust: one of TRUST_LEVELS.
        valid_from: ms since epoch; default now, or later: after the
            versions it supersedes (``objstore.memory.validity``).
        expect: compare-and-set: the head's id (full or >= 4 hex prefix),
            or ``"none"`` for "the key must not exist yet".
        pinned: default keeps the head's pin.
        edges: see above.
        index_batch: keep the index write there (:class:`~objstore.memory.indexbatch.IndexBatch`).
        known_turns: full ids of turns the caller has just read from this
            store: edges to them are not looked up again (:func:`resolve_edges`).
    Returns:
        :class:`RememberResult`.
    Raises:
        InvalidInput: bad key (also one holding a credential, as the
            redaction rules find it), kind, trust or body.
        RefConflict: ``expect`` does not match the head (nothing written).
        NotFound: an edge target does not exist.
        Refused: the key is sealed (``objstore.vault.sealed``: a plain write would
            put it in the clear), a memory file's key written below ``user_stated``
            (:func:`check_memory_file_write`), or, for a trust other than ``user_stated``, the
            value was forgotten (under this key or another), rejected for this key, or holds
            a forgotten text (``objstore.memory.tombstones.forgotten_in``).
        StoreLocked: the store lock was not obtained in time.
    """
    key = validate_key(key)
    check_key_lookalike(key)
    check_text(body)
    check_memory_file_write(key, trust)
    if namespace:
        namespace = validate_session_id(namespace)
    redacted = 0
    if sensitivity != "secret":  # credentials never reach disk in the clear (objstore/core/redact/)
        from objstore.core.redact import redact_named  # deferred: the redaction rules compile at import
        red = redact_named(body, key)   # under a key named for a credential, the whole value
        body, redacted = red.text, len(red.hits)
        check_key_credentials(key)
        if namespace:
            check_key_credentials(namespace, "namespace")
    if sensitivity == "secret":  # never stored in the clear: objstore.vault.sealed seals it
        raise InvalidInput("a secret value is sealed, not written as a plain fact",
                           hint="use objstore.vault.sealed.remember_sealed (mem remember --sensitivity secret)")
    if kind is not None and kind not in KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    ref = fact_ref(key)
    with store.lock(command):
        early_error = index_batch.before(key) if index_batch is not None else None  # its head is read next
        if store.refs.read(sealed_ref(key)) is not None:
            raise Refused(f"{key} is sealed: a plain write would store a value of it in the clear",
                          hint=f"write it sealed with --sensitivity secret, or first run: mem unseal {key}")
        old = store.refs.read(ref)
        if old is not None:   # a set-back head: no "unchanged" (test40 T8), no object written (test41 T7)
            store.refuse_set_back(ref, old)
        if expect is not None:
            want = None if expect.lower() in ("none", "0") else check_prefix(expect)
            if (want is None) != (old is None) or (want is not None and not old.startswith(want)):
                raise RefConflict(ref, expect, old)
        chain = own_chain(key, list(walk(store, old))) if old else []   # (never on another key's chain: test31b V1)
        prev = chain[0].fact if chain else None
        kind = kind or (prev.kind if prev else DEFAULT_KIND[key.split("/", 1)[0]])
        given = resolve_edges(store, key, edges, known_turns)
        new_edges = given if (replace_edges or prev is None) else normalize_edges((*prev.edges, *given))
        if prev is not None and prev.body == body and prev.kind == kind and prev.edges == new_edges \
                and prev.namespace == namespace and not (redacted and _new_turn(store, sources, prev.sources)):
            # (red37, test36b T17: a redacted value said again from a new turn, 'we set the db password to
            # <another>', reads the same but is a new change: the next version, not "remembered" and unwritten)
            cur = current_of(chain)   # (redacted counted: 'user/pin 8812' after 4471 reads the same, withheld)
            return RememberResult(key, False, chain[0], old, cur.id if cur else old, redacted=redacted)
        from objstore.memory.sealrulefile import FORGOTTEN_LABEL, rule_labels_in   # defer: a write's
        labels = rule_labels_in(store, body) if sensitivity != "secret" else set()
        sealed = sorted(x for x in labels if not x.startswith(FORGOTTEN_LABEL) and x != key)
        if sealed:   # a sealed value is never written in the clear, by anyone (test37 T13)
            raise Refused(f"{key}: this value holds the sealed value of {sealed[0]}; a sealed value is never "
                          "written in the clear", hint=f"write it sealed: mem remember {key} - --sensitivity secret",
                          agent_hint=PERSON_ONLY_HINT)
        from objstore.memory.tombstones import all_tombstones, forgotten_in   # deferred: a write's
        tombs = all_tombstones(store, guard=True) if trust != "user_stated" else []   # (test42 T18)
        check_names_hold_no_secret(store, key, (namespace, owner), trust, tombs)   # (test41 T26)
        if trust != "user_stated":
            why = forgotten_in(tombs, key, body)
            if why is None and any(x.startswith(FORGOTTEN_LABEL) for x in labels):
                why = "text"
            if why is not None:
                what = {"key": "this value was forgotten or rejected",
                        "value": "this value was forgotten (under another key)",
                        "text": "this value holds a text that was forgotten"}[why]
                raise Refused(f"{key}: {what}; only a user_stated write may bring it back",
                              hint="use --trust user_stated if you mean it",
                              agent_hint=PERSON_ONLY_HINT)
        # a lower-trust write never overrules the person, and an instruction-shaped
        # value of any trust is reviewed before it can be injected: the review queue
        from objstore.memory.proposals import park  # deferred: readers (get, recall) never park
        parked = park(store, key, body, current=current_of(chain), kind=kind, trust=trust,
                      sensitivity=sensitivity, owner=owner, sources=tuple(sources), reviewed=reviewed,
                      named_by_mem=named_by_mem)
        if parked is not None:
            cur = current_of(chain)
            return RememberResult(key, False, chain[0] if chain else None, old,  # type: ignore[arg-type]
                                  cur.id if cur else None, queued=parked.item)  # type: ignore[arg-type]
        now = now_ms()
        fact = Fact(key=key, kind=kind, body=body, version=(prev.version + 1) if prev else 1,
                    parent=old, valid_from=valid_from if valid_from is not None else  # skew-proof (validity)
                    plain_valid_from(((v.fact.valid_from, v.fact.recorded_at) for v in chain), now),
                    recorded_at=now, trust=trust, sensitivity=sensitivity, owner=owner,
                    sources=tuple(sources), pinned=prev.pinned if (pinned is None and prev) else bool(pinned),
                    curated=prev.curated if prev else 0,  # a new value of a curated fact stays curated
                    edges=new_edges, namespace=namespace)
        ready = None
        if index_batch is not None and index_batch.defer_refs:  # durable by the batch's flush
            oid = index_batch.put(encode(fact))
        elif later is not None and index_batch is None:  # answers first: the object's fsyncs overlap the entry's
            oid, ready = store.put_started(fact)
        else:
            oid = store.put(fact)
        new_chain = [Version(oid, fact), *chain]
        try:
            index_error = commit_version(store, key, old, oid, old_chain=chain, new_chain=new_chain,
                                         command=command, time_ms=now, index_batch=index_batch,
                                         later=later, objects_ready=ready) or early_error
        finally:
            if ready is not None:
                try:
                    ready()     # (called already unless commit_version failed before the ref)
                except Exception:  # noqa: BLE001 - commit_version raised its own error
                    pass
        new_cur = current_of(new_chain)
        return RememberResult(key, True, Version(oid, fact), old, new_cur and new_cur.id, index_error,
                              redacted=redacted)


def list_keys(store: Store, prefix: str = "") -> list[tuple[str, str]]:
    """``(key, head id)`` of every key, sorted; optionally under ``prefix``
    (a key, or a key prefix ending in '/'; ``project/api`` matches
    ``project/api/port``, not ``project/apiv2/port``)."""
    out = []
    want = prefix if (not prefix or prefix.endswith("/")) else prefix + "/"
    damaged: list[str] = []
    for name, oid in store.refs.iter("facts", damaged=damaged):
        key = name[len("facts/"):]
        if not prefix or key == prefix or key.startswith(want):
            out.append((key, oid))
    store.note_damaged_refs("facts", damaged)  # the healthy keys are listed; the damage is noted (fsck --repair mends it)
    return out


def resolve_version(store: Store, spec: str) -> Version:
    """``KEY@vN`` (or ``KEY@N``) -> that version.

    Raises:
        InvalidInput: a bad selector or key.
        AmbiguousId: ``spec`` is also the literal name of a key an old store
            holds (keys with ``@`` are refused now; name its versions by id).
        NotFound: no such key or version.
    """
    key, v = parse_version_spec(spec)
    if v is None:
        raise InvalidInput(f"bad version in {spec!r}: want KEY@vN")
    key = validate_key(key)
    legacy = unicodedata.normalize("NFC", spec)
    if store.refs.read(fact_ref(legacy)) is not None:
        raise AmbiguousId(f"{spec!r} names version {v} of {key} and also a key with '@' that an older mem wrote",
                          hint="name the version by its object id (mem keys --json, mem log)")
    for ver in versions(store, key):
        if ver.fact.version == v:
            return ver
    raise no_version(store, key, v, f"list its versions with: mem log {key}")
