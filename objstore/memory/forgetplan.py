"""Planning a forget: what a selector names (:func:`plan_forget`), read
only, as a :class:`ForgetPlan` that ``objstore.memory.forget`` carries out.
Split from ``objstore.memory.forget`` by concern; that module re-exports
these names."""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path

from objstore.core.ids import MIN_PREFIX_LEN
from objstore.core.errors import (AmbiguousId, ChangedSincePreview, CorruptObject, IntegrityError, InvalidInput,
                                  MemError, NotFound)
from objstore.core.objects import Fact, Tombstone, Turn, normalize_value, value_digest
from objstore.core.text import matcher
from objstore.core.refs import fact_ref, session_ref, validate_key
from objstore.core.store import Store
from objstore.core.unfinished import CREDENTIALS
from objstore.index.errors import SearchIndexError
from objstore.memory import queue
from objstore.memory.citations import FactCites
from objstore.memory.forgetderived import plan_session_derived
from objstore.memory.forgetfiles import MIN_MATCH_CHARS
from objstore.memory.facts import Version, current_of, list_keys, resolve_version, versions, walk
from objstore.memory.scope import AGENT_SEP, namespace_root
from objstore.memory.sessions import TurnVersion, episode_leaf, resolve_session, walk_turns
from objstore.memory.tombstones import all_tombstones, key_names, names_key_in_clear, session_scoped
from objstore.memory.turnmeta import meta_hits, source_sessions
from objstore.memory.withdrawals import FORGET_VERSION


@dataclass
class ForgetPlan:
    """What a forget removes.

    Attributes:
        keys: whole keys -> all their versions (newest first).
        versions: key -> the versions to blank (the key survives).
        sessions: whole sessions -> all their turns (oldest first).
        turns: session -> the turns to blank (the session survives).
        meta: session -> the turns whose ``cwd`` or ``project`` holds the
            ``--match`` text (oldest first): rewritten with that field
            emptied, their text kept (``objstore.memory.turnmeta``).
        match: the normalized match text (``--match``), else None.
        redacted: session -> the turns (newest first) rewritten in their
            place with their text redacted (``--credentials``,
            :func:`plan_credentials`): the new text is ``texts[id]``.
        redacted_versions: key -> the versions (newest first) rewritten in
            their place with their value redacted (``texts[id]``).
    """

    keys: dict[str, list[Version]] = field(default_factory=dict)
    versions: dict[str, list[Version]] = field(default_factory=dict)
    sessions: dict[str, list[TurnVersion]] = field(default_factory=dict)
    turns: dict[str, list[TurnVersion]] = field(default_factory=dict)
    meta: dict[str, list[TurnVersion]] = field(default_factory=dict)
    match: str | None = None
    redacted: dict[str, list[TurnVersion]] = field(default_factory=dict)
    redacted_versions: dict[str, list[Version]] = field(default_factory=dict)
    #: a redacted turn's or version's id -> the text it is rewritten with
    texts: dict[str, str] = field(default_factory=dict)
    #: rule name -> credentials (and credential starts a cut kept) the redacted texts held
    rules: dict[str, int] = field(default_factory=dict)
    #: ids of tombstones whose key (a fact key) holds the ``--match`` text: each is
    #: written again naming its key by hash (``tombstones.hidden_key``), and goes
    retomb: list[str] = field(default_factory=list)
    #: how many of ``retomb`` are a forget's version records (``withdrawals.FORGET_VERSION``):
    #: written again too, but not counted as tombstones in what forget says
    retomb_records: int = 0

    queue_items: list[str] = field(default_factory=list)
    #: review-queue items (queued or decided) whose objects still hold a credential (``--credentials``,
    #: ``queue.plan_redactions``): item id -> (its current object id or None, {object id: the item
    #: redacted}); written again redacted, their history with them (``queue.rewrite_redacted``)
    queue_redacted: dict[str, tuple] = field(default_factory=dict)
    #: item id -> the id it takes once rewritten redacted (``queue.redacted_name``), named in
    #: the index journal (``Q`` lines) before anything changes; filled in by the execution, or
    #: by the recovery from those lines (``forgetresume.resume_forget``)
    queue_names: dict[str, str] = field(default_factory=dict)
    #: session -> ids of its damaged turns (a damaged head, the turn a walk
    #: stopped at): deleted unread, found again in the index by id
    unreadable: dict[str, list[str]] = field(default_factory=dict)
    #: damaged objects elsewhere in the store that could not be read, so not
    #: told apart from the forgotten sessions' turns (``mem fsck --repair``
    #: sets them aside; ``mem gc`` then deletes what a tombstone forgets)
    unchecked: list[str] = field(default_factory=list)

    #: fact chains read while planning, by head id (:func:`plan_chain`): the
    #: execution's passes over every key read each chain once, not again per pass
    chains: dict[str, list] = field(default_factory=dict, repr=False)
    #: key -> head id of every key, when planning listed them (``--match``): the
    #: execution's passes over every key start from it instead of listing the refs again
    heads: dict[str, str] | None = field(default=None, repr=False)
    #: what each chain cites, by head id (``citations``: ``cache/fact-cites``), once loaded: the
    #: execution's passes over every key read only the chains that may cite what changes
    cites: FactCites | None = field(default=None, repr=False)
    #: the ids of every fact version and turn :func:`plan_credentials` read from the refs (ids
    #: only): the reflog check after it (``reflog_drops``) walks from there, not every chain again
    walked: set[str] = field(default_factory=set, repr=False)
    #: loose objects holding the ``--match`` text that no ref reaches: object id -> the turn or
    #: fact version (a writer killed between its objects and its ref: test30 R4; :func:`loose_orphans`)
    orphans: dict[str, object] = field(default_factory=dict)
    #: the ids among ``orphans`` taken only because they follow such a turn in its chain: deleted,
    #: never tombstoned (a live writer writes them again as they were: test30b S7)
    orphan_tail: set[str] = field(default_factory=set)
    #: a whole key or session that no longer exists because an earlier forget
    #: removed it (:func:`forgotten_before`), or the version it names is emptied already: ``(the key,
    #: "KEY@vN" or "session:<id>", that forget's time in ms)``; the plan is then empty: nothing is left to forget
    already_forgotten: tuple[str, int] | None = None
    #: ``(kind, selector)`` naming this forget in ``objstore.core.unfinished`` (the
    #: digest of a ``--match`` text, never the text); None for a resumed forget
    selector: tuple[str, str] | None = None

    def is_empty(self) -> bool:
        """True when nothing matched."""
        return not (self.keys or self.versions or self.sessions or self.turns or self.meta or self.queue_items
                    or self.retomb or self.redacted or self.redacted_versions or self.queue_redacted
                    or self.orphans)

    def object_ids(self) -> set[str]:
        """Ids of the fact versions and turns that hold what is forgotten."""
        return ({v.id for vs in (*self.keys.values(), *self.versions.values(), *self.redacted_versions.values())
                 for v in vs}
                | {t.id for ts in (*self.sessions.values(), *self.turns.values(), *self.meta.values(),
                                   *self.redacted.values()) for t in ts})

    def counts(self) -> dict[str, int]:
        """Numbers for the summary: versions, turns, keys, sessions,
        ``meta``: turns that keep their text and lose a ``cwd``/``project``,
        and ``redacted``: turns and versions rewritten with their text
        redacted."""
        return {"keys": len(self.keys), "sessions": len(self.sessions),
                "versions": sum(map(len, self.keys.values())) + sum(map(len, self.versions.values())),
                "turns": sum(map(len, self.sessions.values())) + sum(map(len, self.turns.values())),
                "meta": sum(1 for sid, tvs in self.meta.items() for t in tvs
                            if t.id not in {x.id for x in self.turns.get(sid, ())}),
                "redacted": sum(map(len, self.redacted.values())) + sum(map(len, self.redacted_versions.values())),
                "unreferenced": len(self.orphans)}



def later_turns(store: Store, plan: ForgetPlan) -> int:
    """How many turns the history rewrite of ``plan`` writes again that it
    does not change: in each session it forgets turns of (or empties their
    ``cwd``/``project``), every turn after the oldest such one gets a new id,
    as each names the one before it (``docs/forget.md``, step 2).  Counted
    from the turns' ``seq`` (their place in the chain) and the head's: one
    object read a session.  A session whose head does not read counts 0.
    Reads only."""
    n = 0
    for sid in dict.fromkeys((*plan.turns, *plan.meta)):
        changed = {tv.id: tv.turn.seq for tv in (*plan.turns.get(sid, ()), *plan.meta.get(sid, ()))}
        head = store.refs.read(session_ref(sid))
        if not changed or head is None:
            continue
        try:
            last = store.get(head, Turn).seq
        except (IntegrityError, NotFound, CorruptObject, InvalidInput):
            continue
        n += max(0, last - min(changed.values()) + 1 - len(changed))
    return n


# -- planning ----------------------------------------------------------------

#: what a key holds when mem named it from a stated value (``capture.statements.statement_key``)
DERIVED = "/remembered/"

def plan_forget(store: Store, *, what: str | None = None, match: str | None = None,
                session: str | None = None) -> ForgetPlan:
    """Resolve a selector to a :class:`ForgetPlan` (reads only), with the
    review-queue items the forget drops in ``queue_items`` (test37 T7).

    Args:
        what: ``KEY``, ``KEY@vN`` or an object id (>= 4 hex, a fact version or
            a turn).
        match: text to find in every fact version and turn, ignoring case
            and whitespace runs (>= 3 characters after normalizing).
        session: a session id (exact or a unique prefix): the session, its
            sub-agent sessions and their summary facts (whose text is the
            session's).
    Raises:
        InvalidInput (no selector, several, short match, a KEY or session id
            holding a credential: :func:`check_selector_name`), NotFound.
    """
    p = _plan_selector(store, what, match, session)
    p.queue_items += [i for i in queue.doomed(store, keys=p.keys, needles=[
        v.fact.body for vs in p.versions.values() for v in vs]) if i not in p.queue_items]
    return p


def _plan_selector(store: Store, what: str | None, match: str | None, session: str | None) -> ForgetPlan:
    given = [x is not None for x in (what, match, session)]
    if sum(given) != 1:
        raise InvalidInput("give exactly one of KEY, KEY@vN, ID, --match TEXT, --session ID")
    check_selector_name(what=what, session=session)
    plan = ForgetPlan(selector=forget_selector(what=what, match=match, session=session))
    if session is not None:
        sid = resolve_session(store, session)
        if sid is None:   # forgotten before (e.g. by a forget that was killed and finished since)?
            plan.already_forgotten = forgotten_before(store, session=session)
            if plan.already_forgotten is not None:
                return plan
            sid = _summarised_session(store, session)   # no turns, but its sub-agents' summaries
            if sid is None:   # its turns stored, unpublished (a writer killed before its ref: test30b S6)?
                short = len(session) >= MIN_PREFIX_LEN   # (a prefix names it, as for a published one: test30c T18)
                plan.orphans = loose_orphans(store, plan, lambda _oid, o: isinstance(o, Turn) and (
                    o.session == session or o.session.startswith(session + ".agent-")
                    or (short and o.session.startswith(session))), {})
                roots = {namespace_root(o.session) for o in plan.orphans.values()}
                if len(roots) > 1:
                    raise AmbiguousId(f"{session} matches {len(roots)} sessions: {', '.join(sorted(roots)[:10])}",
                                      hint="give more characters")
                if plan.orphans:
                    plan.sessions[roots.pop()] = []   # its session: tombstone, as for a published one
                    return plan
                resolve_session(store, session, required=True)   # raises NotFound
            plan.sessions[sid] = []   # its session: tombstone: no later summary or turn of it is written
        # the session and the subagent sessions it started (<id>.agent-*, <id>.sidechain)
        for name, head in store.refs.iter("sessions"):
            s = name[len("sessions/"):]
            if s == sid or s.startswith(sid + ".agent-") or s == sid + ".sidechain":
                try:
                    chain = list(reversed(list(walk_turns(store, head))))
                except IntegrityError:      # the head itself is damaged
                    chain = []
                    plan.unreadable.setdefault(s, []).append(head)
                if chain and chain[0].turn.parent is not None:   # the walk stopped at a damaged turn
                    plan.unreadable.setdefault(s, []).append(chain[0].turn.parent)
                plan.sessions[s] = chain
        # its sub-agents' summaries (``capture.rollup``, ``*/summary/<id>.agent-*``) hold its text too
        episode = episode_leaf(sid)   # derive's episode of it: the model's summary of its turns
        for key, _head in list_keys(store):
            scope, sep, leaf = key.rpartition("/summary/")
            if sep and scope and (leaf in plan.sessions or leaf.startswith(sid + ".agent-")):
                plan.keys[key] = versions(store, key)
            elif key.endswith(f"/episodes/{episode}") and key.count("/") <= 3:   # (test30b S14)
                plan.keys[key] = versions(store, key)
        plan_session_derived(store, plan, plan_chain)   # its derived facts and proposals (test32 X17)
        if plan.unreadable:
            _scan_session_turns(store, plan)
        _add_copies(store, plan)
        return plan
    if match is not None:
        return _plan_match(store, match, plan)
    assert what is not None
    if "@" in what:
        v = resolve_version(store, what)
        _add_version(store, plan, v)
        return plan
    if "/" not in what:
        oid = store.resolve(what)  # InvalidInput / NotFound / AmbiguousId
        obj = store.get(oid)
        if isinstance(obj, Fact):
            head = store.refs.read(fact_ref(obj.key))
            if head is None or oid not in {v.id for v in walk(store, head)}:
                raise NotFound(f"fact version {oid} is not in the history of {obj.key}")
            _add_version(store, plan, Version(oid, obj))
        elif isinstance(obj, Turn):
            head = store.refs.read(session_ref(obj.session))
            if head is None or oid not in {t.id for t in walk_turns(store, head)}:
                # stored and unpublished (a writer killed before its ref: test30b S6), with the turns after it
                plan.orphans = loose_orphans(store, plan, lambda o_id, _o: o_id == oid,
                                             {obj.session: head} if head is not None else {})
                if plan.orphans:
                    return plan
                raise NotFound(f"turn {oid} is not in session {obj.session}")
            plan.turns.setdefault(obj.session, []).append(TurnVersion(oid, obj))
            _add_copies(store, plan)
        else:
            raise InvalidInput(f"{oid} is a {obj.TYPE_NAME}; only fact versions and turns can be forgotten")
        return plan
    key = validate_key(what)
    if store.refs.read(fact_ref(key)) is None:
        plan.already_forgotten = forgotten_before(store, key=key)
        if plan.already_forgotten is not None:
            return plan
    plan.keys[key] = versions(store, key)   # NotFound when there is no such key
    return plan


def _summarised_session(store: Store, prefix: str) -> str | None:
    """The session id ``prefix`` names (exactly, or an unambiguous prefix of
    >= ``MIN_PREFIX_LEN`` characters) among the parents of the sub-agent
    summaries (``*/summary/<session>.agent-<id>``, ``capture.rollup``) when
    no turn of it is stored: a ``SubagentStop`` of a session with no turns
    writes one.  None when none matches.  Raises AmbiguousId when several
    sessions do."""
    roots = set()
    for key, _head in list_keys(store):
        scope, sep, leaf = key.rpartition("/summary/")
        if sep and scope and AGENT_SEP in leaf:
            root = namespace_root(leaf)
            if root == prefix or (len(prefix) >= MIN_PREFIX_LEN and root.startswith(prefix)):
                roots.add(root)
    if prefix in roots:
        return prefix
    if len(roots) > 1:
        shown = ", ".join(sorted(roots)[:10])
        raise AmbiguousId(f"{prefix} matches {len(roots)} sessions: {shown}", hint="give more characters")
    return roots.pop() if roots else None


#: the reason of the tombstones a ``mem forget --credentials`` writes (``forget.forget`` gives it to a
#: plan of :func:`plan_credentials`): the recovery of a stopped one finishes what they name redacted
#: (``forgetresume.resume_forget``), never emptied
CREDENTIALS_REASON = "forget --credentials"


def plan_credentials(store: Store) -> ForgetPlan:
    """The plan of ``mem forget --credentials`` (reads only): every live
    fact version and turn whose text still holds a credential by today's
    rules (``core.redact.leftovers.redact_stored``: one a rule added since
    it was stored finds, or the start of one a cut kept before session 18,
    test17 T19; or a credential split across the seam of two parts of a
    Markdown note: :func:`_plan_seams`) is rewritten in its place with its
    text redacted (``redacted_versions``, ``redacted``, ``texts``; ``rules``
    counts them by rule name), and so is every review-queue item, queued or
    decided, whose objects hold one (``queue_redacted``: its reflog history
    with it).  Sealed values are not read (they are encrypted).  Its
    selector is ``objstore.core.unfinished.CREDENTIALS``: a run stopped
    before it wrote all its tombstones leaves a note, so push, backup and
    export refuse until the same command run again (which finds what is
    left by itself) finishes it (test22 X11).  Cost: every stored text is redacted once
    (as an import does), and each cut is tried up to 128 times (a few ms).
    Raises IntegrityError for a damaged head (``mem fsck --repair``)."""
    from objstore.core.redact.leftovers import redact_stored  # deferred: the rules compile at import
    plan = ForgetPlan(selector=CREDENTIALS)
    rules: dict[str, int] = {}

    def seen(counts) -> None:
        for r, n in counts.items():
            rules[r] = rules.get(r, 0) + n
    plan.heads = dict(list_keys(store))
    plan.cites = FactCites.load(store)
    for key, head in plan.heads.items():
        for v in plan_chain(store, plan, head):
            plan.walked.add(v.id)
            if v.fact.forgotten or not v.fact.body:
                continue
            text, counts = redact_stored(v.fact.body, key)
            if counts:
                plan.redacted_versions.setdefault(key, []).append(v)
                plan.texts[v.id] = text
                seen(counts)
    _plan_seams(store, plan, seen)
    plan.queue_redacted = queue.plan_redactions(store)   # proposals, queued or decided (q20)
    for name, head in store.refs.iter("sessions"):
        sid = name[len("sessions/"):]
        for tv in walk_turns(store, head):
            plan.walked.add(tv.id)
            if tv.turn.forgotten or not tv.turn.text:
                continue
            text, counts = redact_stored(tv.turn.text)
            if counts:
                plan.redacted.setdefault(sid, []).append(tv)
                plan.texts[tv.id] = text
                seen(counts)
    plan.rules = rules
    return plan


def _plan_seams(store: Store, plan: ForgetPlan, seen) -> None:
    """:func:`plan_credentials` for the parts of a Markdown note (``<key>/part-N``,
    ``capture.markdown``) a mem before session 18 split hard: the current
    values of each two parts in a row are read across their seam
    (``leftovers.seam_leftovers``), after what the plan already redacts in
    them; a credential found there is redacted in each part it reaches."""
    from objstore.core.redact.leftovers import seam_leftovers  # deferred: the rules compile at import
    parts: dict[str, dict[int, str]] = {}
    for key in plan.heads or {}:
        m = re.fullmatch(r"(.+)/part-([1-9][0-9]*)", key)
        if m:
            parts.setdefault(m.group(1), {})[int(m.group(2))] = key
    for note in parts.values():
        for n in sorted(note):
            if n + 1 not in note:
                continue
            va, vb = (plan_chain(store, plan, plan.heads[note[i]])[0] for i in (n, n + 1))
            if va.fact.forgotten or vb.fact.forgotten:
                continue
            a, b, counts = seam_leftovers(plan.texts.get(va.id, va.fact.body), plan.texts.get(vb.id, vb.fact.body))
            if not counts:
                continue
            for v, text in ((va, a), (vb, b)):
                if text != plan.texts.get(v.id, v.fact.body):
                    if v.id not in plan.texts:
                        plan.redacted_versions.setdefault(v.fact.key, []).append(v)
                    plan.texts[v.id] = text
            seen(counts)


def check_previewed(shown: AbstractSet[str], now: ForgetPlan | AbstractSet[str], *,
                    verb: str = "forget", done: str = "forgotten") -> None:
    """Raise ChangedSincePreview (exit 5, MCP ``conflict``; nothing changed)
    when ``now`` (the selector planned again under the store lock, after
    the person approved a preview) would remove a fact version, turn or
    queue item (test37 T7) whose id is not in ``shown`` (``object_ids()``
    and ``queue_items`` of the plan shown): one written since (test18 U8).  Less is fine (forgotten meanwhile).  One
    check for the CLI's prompt, the MCP ``forget`` tool's confirm token and
    the MCP ``seal`` tool's (``now``: the ids of the versions ``seal_key``
    would seal, ``verb="seal", done="sealed"``; q20: a version written after
    the preview was sealed too).  A ``--match`` plan is not compared: its
    text tombstone takes a value holding the text whenever it is written
    (docs/forget.md)."""
    if isinstance(now, ForgetPlan):
        if now.match is not None:
            return
        now = now.object_ids() | set(now.queue_items)
    extra = set(now) - shown
    if extra:
        n = len(extra)
        raise ChangedSincePreview(f"{n} more fact version{'s' if n != 1 else ''} or turn{'s' if n != 1 else ''} "
                                  f"of what you chose to {verb} were written since the preview you approved; "
                                  f"nothing was {done}",
                                  hint=f"run the {verb} again to see what it would {verb} now")


def check_selector_name(*, what: str | None = None, session: str | None = None) -> None:
    """Refuse a name selector holding a credential with InvalidInput (exit
    2, ``the session holds a credential`` / ``the key holds …``; the
    message never holds it): a forget writes its selector in the clear (a
    ``session:<id>`` tombstone, the unfinished-forget note, the audit log)
    and its errors echo it (``no session …``).  The one name rule
    (:func:`objstore.core.redact.check_name`); ``--match`` text is not a
    name (only its SHA-256 is kept), nor is an object id."""
    from objstore.core.redact import check_name  # deferred: the redaction rules compile at import
    if session is not None:
        check_name(session, "session")
    if what is not None:
        check_name(what.rpartition("@")[0] if "@" in what else what, "key")


def forget_selector(*, what: str | None = None, match: str | None = None,
                    session: str | None = None) -> tuple[str, str]:
    """``(kind, selector)`` naming a forget in ``objstore.core.unfinished``
    (give exactly one): ``("match", SHA-256 hex of the normalized text)``,
    ``("session", id as given)`` or ``("what", KEY, KEY@vN or id as given)``.
    The same forget run again gets the same pair; no value is in it."""
    if match is not None:
        return ("match", value_digest(match).hex())
    if session is not None:
        return ("session", session)
    assert what is not None
    return ("what", what)


def forgotten_before(store: Store, *, key: str | None = None, session: str | None = None) -> tuple[str, int] | None:
    """Whether a whole ``key`` or ``session`` that the store no longer holds
    was removed by an earlier forget: ``(tombstone key, time in ms of the
    newest such forget)``, else None.  A key counts when a tombstone of a
    forget (not of a review-queue rejection) names it; a session when its
    ``session:<id>`` tombstone exists, ``session`` being the id or a prefix
    of at least ``MIN_PREFIX_LEN`` characters that names one forgotten
    session (its sub-agent namespaces aside).  Reads every tombstone: call it
    only when the key or session is not found."""
    if (key is None) == (session is None):
        raise ValueError("give exactly one of key, session")
    if key is not None:
        names = key_names(key)   # (by name, or by hash: a forget --match of a text in its name)
        times = [t.time for t in all_tombstones(store) if t.key in names and t.reason != "rejected"]
        return (key, max(times)) if times else None
    found: dict[str, int] = {}
    for t in all_tombstones(store):
        if not t.key.startswith("session:"):
            continue
        sid = t.key[len("session:"):]
        if sid == session or (len(session) >= MIN_PREFIX_LEN and sid.startswith(session)
                              and namespace_root(sid) == sid):
            found[sid] = max(found.get(sid, 0), t.time)
    if session in found:
        return (f"session:{session}", found[session])
    if len(found) == 1:
        sid, when = found.popitem()
        return (f"session:{sid}", when)
    return None


def _scan_session_turns(store: Store, plan: ForgetPlan) -> None:
    """A session's chain is broken by damage: the turns the walk could not
    reach (older than the damage, or all of them under a damaged head) are
    still readable in the objects.  Read every object of the store once and
    add each turn of a planned session to it (oldest first), so forget
    removes every readable copy at once; objects that cannot be read are
    noted in ``plan.unchecked``.  Costs one read of every object: only when
    a forgotten session is damaged."""
    known = {tv.id for tvs in plan.sessions.values() for tv in tvs}
    known.update(o for ids in plan.unreadable.values() for o in ids)
    ids = set(store.objects)
    store.packs.reload()
    for pack in store.packs.packs:
        ids.update(pack)
    for oid in sorted(ids - known):
        try:
            obj = store.get(oid)
        except (IntegrityError, NotFound):
            plan.unchecked.append(oid)
            continue
        if isinstance(obj, Turn) and obj.session in plan.sessions:
            plan.sessions[obj.session].append(TurnVersion(oid, obj))
    for sid, tvs in plan.sessions.items():
        tvs.sort(key=lambda tv: (tv.turn.seq, tv.turn.timestamp, tv.id))
        # the index may hold turns whose objects are unreadable (in a pack that does not open):
        # they are purged by id with the rest
        have = {tv.id for tv in tvs} | set(plan.unreadable.get(sid, []))
        try:   # (have: ids the index may hold by their first 16 bytes only)
            indexed = store.index.turn_ids_of(sid, have)
        except SearchIndexError:
            indexed = set()     # a broken index is rebuilt from the objects (mem reindex): nothing to purge
        plan.unreadable.setdefault(sid, []).extend(sorted(indexed - have))
    plan.unchecked += [f"pack {Path(idx).name}" for idx, _err in store.packs.broken]


def _add_copies(store: Store, plan: ForgetPlan) -> None:
    """Add to ``plan.turns`` the live copies, in the other sessions, of the
    planned turns whose tombstones are not scoped to their session (a
    record id: ``tombstones.turn_tombstone_key``): a turn of the same
    source and text, e.g. in a resumed session that copied the record.  The
    tombstone forgets the copy too (``tombstones.TurnForgets``), so forget
    takes it now, as capture and push would.  Cost: the turn-meta cache's
    marks of each session's sources are read
    (``turnmeta.source_sessions``: a session without them is read once and
    gets them); only a session that may hold one of the sources is walked."""
    want: set[tuple[str, bytes]] = set()
    for sid, tvs in (*plan.sessions.items(), *plan.turns.items()):
        for tv in tvs:
            if tv.turn.text and tv.turn.source and not session_scoped(tv.turn.source):
                want.add((tv.turn.source, value_digest(tv.turn.text)))
    if not want:
        return
    sources = {src for src, _d in want}
    heads = {name[len("sessions/"):]: head for name, head in store.refs.iter("sessions")}
    for sid in sorted(source_sessions(store, heads, sources) - set(plan.sessions)):
        try:
            chain = list(walk_turns(store, heads[sid]))
        except (IntegrityError, NotFound):
            continue                  # a damaged session: fsck --repair; the tombstone still forgets the copy
        planned = {tv.id for tv in plan.turns.get(sid, [])}
        for tv in reversed(chain):
            if tv.id not in planned and tv.turn.text and tv.turn.source in sources \
                    and (tv.turn.source, value_digest(tv.turn.text)) in want:
                plan.turns.setdefault(sid, []).append(tv)


def _add_version(store: Store, plan: ForgetPlan, v: Version) -> None:
    if v.fact.forgotten:   # emptied already: nothing to forget, and its history is not rewritten again
        plan.already_forgotten = (f"{v.fact.key}@v{v.fact.version}", v.fact.forgotten)
        return
    chain = versions(store, v.fact.key)
    live = [x for x in chain if not x.fact.forgotten]
    if len(live) == 1 and live[0].id == v.id:
        plan.keys[v.fact.key] = chain  # the last remaining value: the key goes
    else:
        plan.versions.setdefault(v.fact.key, []).append(v)


def plan_chain(store: Store, plan: ForgetPlan, head: str) -> list[Version]:
    """The versions from ``head`` (a fact version id; newest first, as
    ``facts.walk`` gives them), read once per forget and kept in
    ``plan.chains``: objects never change, so a chain is known by its head
    id (a key that moves has a new head and is read again); a chain read
    the first time is noted in ``plan.cites`` when loaded.  Raises as
    ``facts.walk`` (IntegrityError for a damaged version)."""
    chain = plan.chains.get(head)
    if chain is None:
        chain = plan.chains[head] = list(walk(store, head))
        if plan.cites is not None:
            plan.cites.note(head, chain)
    return chain


def _plan_match(store: Store, match: str, plan: ForgetPlan) -> ForgetPlan:
    norm = normalize_value(match)
    if len(norm) < MIN_MATCH_CHARS:
        raise InvalidInput(f"--match needs at least {MIN_MATCH_CHARS} characters (ignoring case and spaces)")
    plan.match = norm
    hits = matcher(match)  # the one normalization (objstore.core.text)
    plan.heads = dict(list_keys(store))   # read once (the execution's passes start from it)
    plan.cites = FactCites.load(store)
    maybe = _match_keys(store, match, plan.heads, plan.cites)
    for key, head in plan.heads.items():
        if maybe is not None and key not in maybe:
            continue
        chain = plan_chain(store, plan, head)
        hit = [v for v in chain if not v.fact.forgotten and hits(v.fact.body)]
        if not hit:
            continue
        live = [v for v in chain if not v.fact.forgotten]
        if len(hit) == len(live):
            plan.keys[key] = chain
        else:
            plan.versions[key] = hit
    # a key mem named from a stated value ("<scope>/remembered/<its words>", capture.statements)
    # whose name holds the text goes whole: its name is the value's words, not a name the person chose
    for key, head in plan.heads.items():
        if key not in plan.keys and hits(key.partition(DERIVED)[2]):
            plan.keys[key] = plan_chain(store, plan, head)
    # a tombstone naming such a key (any fact key) by name holds the text: written again by hash
    for name, tid in store.refs.iter("tombstones"):
        try:
            t = store.get(tid, Tombstone)
        except (CorruptObject, NotFound):
            continue   # (capture fails closed on it: docs/forget.md)
        if names_key_in_clear(t) and hits(t.key):
            plan.retomb.append(tid)
            plan.retomb_records += t.reason == FORGET_VERSION
    # [searchindex shards] the index's substring prefilter names the sessions that can match;
    # every session is scanned when it cannot answer or lags behind the session refs
    heads = {name[len("sessions/"):]: head for name, head in store.refs.iter("sessions")}  # read once
    only = match_sessions(store, match, heads)
    for sid, head in heads.items():
        if only is not None and sid not in only:
            continue
        hit = [tv for tv in walk_turns(store, head) if not tv.turn.forgotten and hits(tv.turn.text)]
        if hit:
            plan.turns[sid] = list(reversed(hit))
    # what a turn carries besides its text: its cwd and project (the index holds neither)
    plan.meta = meta_hits(store, heads, hits)
    plan.orphans = loose_orphans(store, plan, lambda _oid, o: hits(o.text if isinstance(o, Turn) else o.body), heads)
    # proposals, waiting for review or decided (a rejected one keeps its object in the item's reflog)
    for iid, _cur, _oids, got in queue.traces(store):
        if any(hits(q.body) for q in got):
            plan.queue_items.append(iid)
    return plan


def revived_values(store: Store, plan: ForgetPlan) -> dict[str, Version]:
    """After a version forget: ``{key: its version current now}`` for each
    key of ``plan.versions`` whose current value the forget took, when an
    older version is current now (the supersession rule brings it back:
    said by the CLI's result, ``--json`` and MCP ``forget``; test30 R10,
    test30b S10).  Reads each such key's chain once."""
    out: dict[str, Version] = {}
    for key, vs in plan.versions.items():
        if not any(v.fact.body for v in vs):
            continue
        try:
            now = current_of(versions(store, key))
        except MemError:
            continue
        if now is not None and now.id not in {v.id for v in vs} and \
                now.fact.recorded_at < max(v.fact.recorded_at for v in vs):
            out[key] = now
    return out


def loose_orphans(store: Store, plan: ForgetPlan, want, sessions: dict[str, str]) -> dict[str, object]:
    """The loose objects ``want(object id, object)`` picks (a turn or fact
    version holding the ``--match`` text, a turn of a session or the turn
    a forget names) that no ref reaches: object id -> its :class:`Turn`
    (not emptied) or :class:`Fact` (with a value).  A writer that makes its objects before it
    takes the store lock (the proxy's capture, the hooks') and is killed
    before its ref moves leaves them (test30 R4): ``mem scan`` finds them,
    ``mem fsck --repair`` would set a ref to them again.  The forget writes
    their tombstones (so gc and repair treat them as garbage:
    ``core.unnamed``) and deletes them; a live writer waiting for the lock
    finds its objects gone or the tombstones changed and writes again
    (``TurnAppender.revalidate``).  ``sessions``: session id -> head.
    Cost: every loose object read and decoded once (gc packs them: few),
    and the chain of a key or session only where a loose object of it
    holds the text.  The unreferenced loose turns after such a turn in its
    chain are taken too (a repair would rebuild the session from them).
    Damaged or unreadable objects are skipped (fsck's)."""
    known = plan.object_ids()
    reach: dict[str, set[str]] = {}
    out: dict[str, object] = {}
    loose_turns: dict[str, dict[str, Turn]] = {}
    for oid in store.objects:
        if oid in known:
            continue
        try:
            obj = store.get(oid)
        except (CorruptObject, NotFound, IntegrityError):
            continue
        if isinstance(obj, Turn):
            loose_turns.setdefault(obj.session, {})[oid] = obj
        if isinstance(obj, Turn) and not obj.forgotten and want(oid, obj):
            name, head = f"sessions/{obj.session}", sessions.get(obj.session)
        elif isinstance(obj, Fact) and obj.body and want(oid, obj):
            name, head = f"facts/{obj.key}", (plan.heads or {}).get(obj.key)
        else:
            continue
        if head is not None:
            if name not in reach:
                try:
                    reach[name] = ({t.id for t in walk_turns(store, head)} if isinstance(obj, Turn)
                                   else {v.id for v in plan_chain(store, plan, head)})
                except IntegrityError:   # a damaged chain: fsck's, the object may be part of it
                    reach[name] = {oid}
            if oid in reach[name]:
                continue
        out[oid] = obj
    # the unpublished turns after such a turn in its chain go with it (the batch is gone: its
    # spool file held the text too), else a repair would rebuild the session from them
    for sid in {o.session for o in out.values() if isinstance(o, Turn)}:
        mine, grew = loose_turns.get(sid, {}), True
        while grew:
            grew = False
            for oid, t in mine.items():
                if oid not in out and t.parent in out and oid not in reach.get(f"sessions/{sid}", ()):
                    out[oid] = t
                    plan.orphan_tail.add(oid)
                    grew = True
    return out


def _match_keys(store: Store, match: str, heads: dict[str, str], cites: FactCites) -> set[str] | None:
    """The keys of ``heads`` (key -> head id) that may hold a version
    containing ``match``: those whose documents (current or ``history``)
    the index's substring prefilter names, and every key whose versions the
    index cannot vouch for, read and matched whole: its head unknown to the
    memo ``cites`` (which names the ids the index should hold), or one of
    those ids absent from the index (``SearchIndex.missing_fact_ids``).
    None when the index cannot answer (scan every key)."""
    try:
        cands = store.index.substring_candidate_refs(match, "fact")
        old = store.index.substring_candidate_refs(match, "history")
        if cands is None or old is None:
            return None
        out = set(cands.values()) | set(old.values())
        expect: dict[str, tuple[str, ...]] = {}
        for key, head in heads.items():
            ids = cites.indexed_ids(head)
            if ids is None:
                out.add(key)
            else:
                expect[key] = ids
        absent = store.index.missing_fact_ids(i for ids in expect.values() for i in ids)
        out.update(key for key, ids in expect.items() if not absent.isdisjoint(ids))
        return out
    except SearchIndexError:
        return None


def match_sessions(store: Store, match: str, heads: dict[str, str] | None = None) -> set[str] | None:
    """[searchindex shards] Sessions holding a turn that may contain ``match``
    (``SearchIndex.substring_candidate_refs``), or None: scan them all.
    ``heads``: session id -> head turn id of every session (default: read)."""
    try:
        cands = store.index.substring_candidate_refs(match, "turn")
        if cands is None:
            return None
        if heads is None:
            heads = {name[len("sessions/"):]: head for name, head in store.refs.iter("sessions")}
        for sid in store.index.missing_turns(heads):  # a head the index lacks: it is behind
            if not store.get(heads[sid], Turn).forgotten:  # (forgotten turns are never indexed)
                return None
    except SearchIndexError:
        return None
    return set(cands.values())
