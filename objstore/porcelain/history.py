"""Reading history the way git users expect: the reflog of every ref, a
word-level diff of two versions of a key, and blame for a key's current value.

Nothing here writes; every function returns data (dataclasses) and never
prints.  Values appear only where the caller asked for a key's versions
(diff); the reflog holds ids, times and commands only (``docs/format.md``).
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from objstore.core.errors import AmbiguousId, IntegrityError, InvalidInput, NotFound, Refused
from objstore.core.objects import Fact, QueueItem, Tombstone, Turn, is_lost_stub, value_digest
from objstore.core.reflog import FILE_LINE_SHAPE, is_rewrite, line_numbers, rewritten_at
from objstore.core.refs import fact_ref, parse_version_spec, refuse_if_credential, validate_key, validate_session_id
from objstore.core.store import Store, now_ms
from objstore.memory.decay import restate
from objstore.memory.facts import Version, current_of, remember, versions
from objstore.memory.served import no_version
from objstore.memory.supersede import sibling_disagreement
from objstore.memory.tombdigests import as_read, read_digests
from objstore.memory.tombstones import key_names
from objstore.memory.validity import why_no_current

#: ref namespaces a REF argument may start with; anything else is a fact key
REF_NAMESPACES = ("facts", "sealed", "sessions", "tombstones", "queue")


@dataclass(frozen=True, slots=True)
class RefMove:
    """One move of a ref, from its reflog.

    Attributes:
        ref: the ref name (``facts/<key>``, ``sessions/<id>``, ``queue/<id>`` …).
        old: the id the ref pointed at before (None: the ref was created).
        new: the id it points at after (None: the ref was deleted).
        time: ms since the epoch.
        command: the command that moved it (``remember``, ``queue accept``,
            ``decay``, ``inject`` when only its use was recorded, …).
    """

    ref: str
    old: str | None
    new: str | None
    time: int
    command: str


def ref_of(spec: str) -> str:
    """A REF argument -> ref name: ``facts/…``, ``sessions/…`` etc. are taken
    as they are; anything else is a fact key (``project/api/db`` ->
    ``facts/project/api/db``).  Raises InvalidInput for a bad key."""
    ns, _, rest = spec.partition("/")
    if ns in ("facts", "sealed") and rest:
        return f"{ns}/{validate_key(rest)}"
    if ns in ("sessions", "tombstones", "queue") and rest:
        return f"{ns}/{validate_session_id(rest)}"
    return fact_ref(validate_key(spec))


def reflog(store: Store, ref: str | None = None, *, limit: int | None = None) -> list[RefMove]:
    """Every recorded move of ``ref`` (a ref name or a fact key), or of every
    ref when None, newest first (ties: file order reversed).

    Args:
        ref: see :func:`ref_of`; None for all refs (including refs that were
            since deleted, such as closed queue items).
        limit: at most this many moves.
    Raises:
        InvalidInput: a bad key or ref name.
        NotFound: ``ref`` has no reflog (never moved, or forgotten).
        IntegrityError: ``ref``'s reflog file holds a damaged line
            (``Reflog.file_damage``; all refs: each is warned of and skipped).
    """
    if ref is not None:
        name = ref_of(ref)
        entries = store.reflog.read(name)
        for p, bad in store.reflog.file_damage(name):   # skipped lines would read as "no reflog": damage, said
            raise IntegrityError(f"the reflog of {name} is damaged: {store.reflog.shown(p)} {line_numbers(bad)}: "
                                 f"not '{FILE_LINE_SHAPE}'",
                                 hint="'mem fsck --repair' sets the file aside and keeps its readable lines")
        if not entries and name.startswith("facts/") and store.reflog.read("sealed/" + name[6:]):
            name = "sealed/" + name[6:]   # a sealed key's moves, asked for by its key (test37 T9.2)
            entries = store.reflog.read(name)
        if not entries:
            refuse_if_credential(name, "ref name")
            raise NotFound(f"no reflog for {name}", hint="list refs with: mem keys / mem sessions")
        moves = [RefMove(name, e.old, e.new, e.time, e.command) for e in entries]
    else:
        moves = []
        names = dict.fromkeys(store.reflog.packed_refs())  # refs with lines in logs/packed-sessions, packed-facts
        base = store.reflog.root / "refs"
        for dirpath, _dirs, files in os.walk(base):
            for f in files:
                p = Path(dirpath) / f
                try:
                    names.setdefault(store.refs.name_of(store.refs.root / p.relative_to(base)), None)
                except InvalidInput:
                    continue
        for name in names:
            moves += [RefMove(name, e.old, e.new, e.time, e.command) for e in store.reflog.read(name)]
    for where in store.reflog.packed_damage():  # lines every reader skips: said, not hidden
        store.damaged.setdefault(f"ref {where}", "not a reflog line: skipped")
    if ref is None:
        for p, bad in store.reflog.file_damage():
            store.damaged.setdefault(f"ref {store.reflog.shown(p)} {line_numbers(bad)}", "not a reflog line: skipped")
    order = sorted(range(len(moves)), key=lambda i: (moves[i].time, i), reverse=True)
    out = [moves[i] for i in order]
    return out[:limit] if limit is not None else out


# --- diff ---------------------------------------------------------------------

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)


@dataclass(frozen=True, slots=True)
class DiffOp:
    """One run of a word-level diff: ``op`` is ``equal``, ``insert`` or
    ``delete``; ``text`` the words (with their white space) it covers."""

    op: str
    text: str


@dataclass(frozen=True, slots=True)
class VersionDiff:
    """Two versions of one key and the word-level diff from ``a`` to ``b``."""

    key: str
    a: Version
    b: Version
    ops: list[DiffOp] = field(default_factory=list)
    #: the sibling sub-agents' rival versions ``b`` settled (no value was in force before it), oldest first
    settled: tuple[Version, ...] = ()

    @property
    def changed(self) -> bool:
        """True when the bodies differ."""
        return any(o.op != "equal" for o in self.ops)


def word_diff(a: str, b: str) -> list[DiffOp]:
    """Word-level diff of two texts (``difflib.SequenceMatcher`` over word,
    space and punctuation tokens).  Joining the ``equal`` and ``delete`` runs
    gives ``a``; the ``equal`` and ``insert`` runs give ``b``."""
    ta, tb = _TOKEN.findall(a), _TOKEN.findall(b)
    out: list[DiffOp] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(DiffOp("equal", "".join(ta[i1:i2])))
            continue
        if i2 > i1:
            out.append(DiffOp("delete", "".join(ta[i1:i2])))
        if j2 > j1:
            out.append(DiffOp("insert", "".join(tb[j1:j2])))
    return out


def _pick(chain: list[Version], n: int, key: str, store: Store) -> Version:
    for v in chain:
        if v.fact.version == n:
            return v
    raise no_version(   # (a set-back ref is named: test40 T23)
        store, key, n, f"see its versions with: mem log {key}")


def in_force_before(chain: list[Version], v: Version) -> Version | None:
    """The version of ``chain`` that was current for the person (no
    namespace's view) just before ``v`` was recorded, among the versions
    numbered below it (``supersede.current_of`` as of ``v``'s
    ``recorded_at`` less 1 ms), or None.  Not simply ``v``'s parent: a
    version scheduled for later (``--valid-from`` in the future) or a
    sub-agent's was never the person's value (test37 T11: ``mem revert``
    made a value planned for 2027 current now, as ``user_stated``)."""
    older = [o for o in chain if o.fact.version < v.fact.version]
    return current_of(older, as_of=v.fact.recorded_at - 1) if older else None


def diff_versions(store: Store, key: str, a: int | None = None, b: int | None = None) -> VersionDiff:
    """Word-level diff of versions ``a`` and ``b`` (numbers) of ``key``.

    Defaults: ``b`` is the current version and ``a`` the version in force
    before it (:func:`in_force_before`); when none was because sibling
    sub-agents disagreed (``b`` settled them: ``settled`` lists them), the
    newest rival whose value ``b`` did not take (the newest of them when
    it took none); else the highest version number below ``b``'s.  With
    only ``a`` given, ``b`` is the current version.  A forgotten version diffs as empty text.

    A key with one version below ``b`` and no ``a`` given diffs ``b``
    with itself (``a`` is ``b``, no change): there is nothing to compare,
    which is no error (``mem diff`` says so, exit 0).

    Without ``b``, a key with no current value (every version forgotten,
    scheduled ahead, or sibling sub-agents that disagree: rivals, neither
    replacing the other) is NotFound saying why, as ``blame`` and ``get``
    are (test37 T9.7: the newest rival was diffed as having replaced the
    other); naming both versions diffs them.

    Raises:
        NotFound: no such key or version; no current value and no ``b``.
        InvalidInput: a bad key.
    """
    chain = versions(store, key)
    key = chain[0].fact.key
    cur = current_of(chain)
    if cur is None and b is None:
        raise NotFound(f"{key} has no current value ({why_no_current([v.fact for v in chain], now_ms())})",
                       hint=f"name the two versions to compare: mem diff {key} vA vB (mem log {key} lists them)")
    vb = _pick(chain, b, key, store) if b is not None else cur
    if a is not None:
        va = _pick(chain, a, key, store)
        return VersionDiff(key, va, vb, word_diff(va.fact.body, vb.fact.body))
    older = [v for v in chain if v.fact.version < vb.fact.version]
    va = in_force_before(chain, vb) if older else vb
    settled: list[Version] = []
    if va is None:   # none in force before b: sub-agents that disagreed, b the person's choice (test38 T9.14)
        settled = sorted(sibling_disagreement(older), key=lambda v: v.fact.version)
        # the rival b replaced: the newest whose value b did not take (b took beta's: alpha's was replaced)
        va = max([v for v in settled if v.fact.body != vb.fact.body] or settled or older,
                 key=lambda v: v.fact.version)
    return VersionDiff(key, va, vb, word_diff(va.fact.body, vb.fact.body), tuple(settled))


# --- blame --------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SourceInfo:
    """One source a version cites: a turn of a session when the id names a
    turn in the store (``session``, ``seq``, ``role``, ``harness`` set), else
    the id or URI as it was recorded."""

    source: str
    session: str | None = None
    seq: int | None = None
    role: str | None = None
    harness: str | None = None
    timestamp: int | None = None


@dataclass(frozen=True, slots=True)
class Blame:
    """Who and what produced the current value of a key.

    Attributes:
        key: the key.
        version: the current version.
        command: the command that moved the key's ref to it (from the
            reflog; "" when the reflog no longer has it).
        time: when the ref moved (ms), 0 when unknown.
        review: ``accepted`` / ``accepted (edited)`` when the value came out
            of the review queue, else None.
        sources: what the version cites.
        versions: how many versions the key has.
        rewritten_at: when (ms) the key's history was last rewritten (a
            forget of one of its versions, a seal, a pull of a remote's
            rewrite: ``reflog.rewritten_at``), else None.  The rewrite moved
            the ref, it did not write the value: a version written before it
            has the command and time of its own entry, which a forget keeps
            since session 21 (``rewrite.kept_history``), else ``command`` ""
            and ``time`` 0 (a seal, a pull, an older forget).
    """

    key: str
    version: Version
    command: str
    time: int
    review: str | None
    sources: list[SourceInfo]
    versions: int
    rewritten_at: int | None = None


def _source_info(store: Store, src: str) -> SourceInfo:
    if len(src) == 64 and all(c in "0123456789abcdef" for c in src):
        try:
            t = store.get(src, Turn)
        except Exception:  # noqa: BLE001 - not a turn (or gone): report the id as recorded
            return SourceInfo(src)
        return SourceInfo(src, t.session, t.seq, t.role, t.harness, t.timestamp)
    return SourceInfo(src)


def blame(store: Store, key: str) -> Blame:
    """The current version of ``key`` (or the version ``KEY@vN`` names, as
    ``show``, ``diff`` and ``revert`` take it: test37 T9.3) with its trust,
    author (``owner``), the command that wrote it, the review decision and
    the turns it cites, and when the key's history was last rewritten
    (:attr:`Blame.rewritten_at`).

    Raises NotFound (no such key or version, or no current version: every
    version was forgotten) and InvalidInput (a bad key or spec)."""
    n = None
    if "@" in key:
        key, n = parse_version_spec(key)
    chain = versions(store, key)
    key = chain[0].fact.key
    cur = current_of(chain) if n is None else _pick(chain, n, key, store)
    if cur is None:
        raise NotFound(f"{key} has no current value ({why_no_current([v.fact for v in chain], now_ms())})")
    command, when = "", 0
    entries = store.reflog.read(fact_ref(key))
    for e in reversed(entries):
        # (a rewrite re-stored the value; what wrote it is before the rewrite, kept since session 21)
        if e.new == cur.id and e.old != e.new and not is_rewrite(e):
            command, when = e.command, e.time
            break
    review = None
    if command.startswith("queue accept"):
        review = "accepted (edited)" if "edited" in command else "accepted"
    return Blame(key, cur, command, when, review, [_source_info(store, s) for s in cur.fact.sources], len(chain),
                 rewritten_at(entries))


# --- revert -------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class RevertResult:
    """Outcome of :func:`revert`.

    Attributes:
        key: the key.
        reverted: the version whose change was undone.
        restored: the version whose state was restored (its parent).
        version: the new version written (None when nothing had to change).
        what: ``value``, ``state`` (pin/dormant) or ``value and state``.
    """

    key: str
    reverted: Version
    restored: Version
    version: Version | None
    what: str


def _target(store: Store, spec: str) -> tuple[list[Version], Version]:
    if "@" in spec:
        key, n = parse_version_spec(spec)
        chain = versions(store, key)
        return chain, _pick(chain, n, chain[0].fact.key, store)
    if all(c in "0123456789abcdef" for c in spec) and 4 <= len(spec) <= 64 and "/" not in spec:
        oid = store.resolve(spec)
        try:
            f = store.get(oid, Fact)
        except Exception:  # noqa: BLE001 - another object type
            raise InvalidInput(f"{spec} is not a fact version; revert takes KEY, KEY@vN or a version id") from None
        chain = versions(store, f.key)
        return chain, next(v for v in chain if v.id == oid)
    chain = versions(store, spec)
    return chain, chain[0]


def _short(body: str, n: int = 60) -> str:
    """``body`` quoted for a one-line message, cut to ``n`` characters."""
    return repr(body if len(body) <= n else body[: n - 1] + "…")


def revert(store: Store, spec: str, *, command: str = "revert") -> RevertResult:
    """Undo the change that produced a version by writing a new version
    (history is never rewritten): the value, kind, pin and dormancy of the
    version before it come back.

    Args:
        spec: ``KEY`` (its latest change), ``KEY@vN``, or a version id (or a
            prefix of at least 4 hex digits).
    Returns:
        :class:`RevertResult` (``version`` None when the key already holds
        the restored state).
    Raises:
        NotFound: no such key, version or id.
        Refused: the version before it was forgotten (a forgotten value
            cannot be brought back), the version is the first (nothing
            before it), or the key changed since that version (revert the
            later versions first), or the key has no current value because
            sibling sub-agents disagree (``supersede.sibling_disagreement``:
            the message names each one's value; the person chooses with
            ``mem remember``).
        InvalidInput: a bad key or spec, or an id that is not a fact version.
        StoreLocked: the store lock was not obtained in time.
        IntegrityError: the key's ref is set back (exit 13,
            ``Store.refuse_set_back``).
    """
    with store.lock(command):
        chain, target = _target(store, spec)
        key = target.fact.key
        store.refuse_set_back_keys([key])   # first: a set-back head is not the value to revert (test41 T7)
        tf = target.fact
        # no current value now, or none before the change (sub-agents disagreed): writing one of
        # their values back as the person's would pick a side silently (test35 T12)
        rivals = sibling_disagreement(chain)
        before = sibling_disagreement([v for v in chain if v.fact.version < tf.version]) if not rivals else []
        if rivals or before:
            said = "; ".join(f"{v.fact.namespace} says {_short(v.fact.body)}" for v in rivals or before)
            raise Refused(f"{key} {'has' if rivals else f'had before v{tf.version}'} no current value: "
                          f"sub-agents disagree ({said}); a revert would make one of their values yours",
                          hint=f"choose the value yourself: mem remember {key} VALUE")
        if tf.parent is None:
            raise Refused(f"{key} v{tf.version} created the key: there is no earlier value to go back to",
                          hint=f"to remove the key, forget it: mem forget {key}")
        if tf.forgotten and not is_lost_stub(tf):   # a lost value's place: its older value comes back
            raise Refused(f"{key} v{tf.version} was forgotten; a forget cannot be reverted")
        prev = next((v for v in chain if v.id == tf.parent), None)
        if prev is None:
            raise NotFound(f"{key} v{tf.version}'s parent is missing", hint="run 'mem fsck'")
        if not prev.fact.forgotten:   # the value in force for the person just before the change (test37 T11)
            prev = in_force_before(chain, target) or prev
        pf = prev.fact
        if pf.forgotten:
            raise Refused(f"{key} v{pf.version} was forgotten: a forgotten value cannot be reverted back",
                          hint="write the value again with mem remember if you mean it")
        head = chain[0].fact
        later = [v for v in chain if v.fact.version > tf.version]
        if later and (head.body, head.kind, head.pinned, head.dormant) != (tf.body, tf.kind, tf.pinned, tf.dormant):
            raise Refused(f"{key} changed after v{tf.version} (now v{head.version}); "
                          f"revert the later versions first", hint=f"see them with: mem log {key}")
        value = (pf.body, pf.kind) != (head.body, head.kind)
        state = (pf.pinned, pf.dormant) != (head.pinned, head.dormant)
        new = None
        if value:
            # a change scheduled for later is undone at its date too: the revert takes effect then (until
            # then the value in force stays current), so the schedule never comes into force (test37b T9)
            later_on = tf.valid_from if tf.valid_from > now_ms() else None
            r = remember(store, key, pf.body, kind=pf.kind, trust="user_stated", pinned=pf.pinned,
                         sources=pf.sources, command=f"{command} v{tf.version}", valid_from=later_on)
            new = r.version
        if state or (value and pf.dormant):
            s = restate(store, key, pinned=pf.pinned, dormant=pf.dormant, command=f"{command} v{tf.version}")
            new = s.version if s.changed else new
        what = "value and state" if value and state else "value" if value else "state"
        return RevertResult(key, target, prev, new, what)



@dataclass(frozen=True, slots=True)
class Unrejected:
    """A rejection undone: the queue ``item`` id is queued again for ``key``
    and its ``tombstone`` (reason ``rejected``) no longer refuses the value."""

    item: str
    key: str
    tombstone: str | None


def unreject(store: Store, prefix: str, *, command: str = "revert queue reject") -> Unrejected:
    """Undo a ``queue reject``: queue the item again and drop the rejection's
    tombstone ref (a forget's tombstones are never touched).  The item's
    object is still in the store: its queue ref's reflog keeps it a gc root.

    Raises NotFound (no rejected item with that id prefix), AmbiguousId,
    Refused (the item is queued again already)."""
    hits = {}
    base = store.reflog.root / "refs" / "queue"
    for f in (base.iterdir() if base.is_dir() else []):
        if f.name.startswith(prefix):
            for e in store.reflog.read(f"queue/{f.name}"):
                if e.command == "queue reject" and e.old:
                    hits[f.name] = e.old
    if not hits:
        raise NotFound(f"no rejected queue item {prefix}", hint="see decisions with: mem reflog")
    if len(hits) > 1:
        raise AmbiguousId(f"{prefix} matches {len(hits)} rejected items", hint="give more characters")
    iid, oid = next(iter(hits.items()))
    ref = f"queue/{iid}"
    with store.lock(command):
        if store.refs.read(ref) is not None:
            raise Refused(f"queue item {iid[:12]} is queued already")
        item = store.get(oid, QueueItem)
        digest = value_digest(item.body)
        dropped = None
        names = key_names(item.key)   # (by name, or by hash: tombstones.hidden_key)
        digests = read_digests(store)   # as the rules read them: plain (tombdigests)
        for name, tid in store.refs.iter("tombstones"):
            t = as_read(store.get(tid, Tombstone), digests)
            if t.key in names and t.value_sha256 == digest and t.reason == "rejected":
                store.update_ref(name, tid, None, command, audit_only=True)  # tombstone refs keep no reflog
                dropped = tid
        store.update_ref(ref, None, oid, command)
    return Unrejected(iid, item.key, dropped)
