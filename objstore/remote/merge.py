"""Merging one ref's history from two machines, and applying tombstones that
arrived from elsewhere.  Pure functions of the two chains and the tombstone
set, so every machine that merges the same inputs writes the same objects
(the same ids) and the machines converge (``docs/design.md`` "Remotes").

**The rule for a fact key** (local head L, remote head R):

1. Both chains are read oldest first.  Their common prefix (same ids) stays.
2. If one tail is empty, the other chain is taken as it is (a fast-forward).
   Otherwise the two tails are united: versions with the same *identity*
   (key, kind, valid_from, recorded_at, trust, owner, sensitivity, pinned,
   dormant: everything but body, sources, parent and version number) are one
   version, and the copy kept is the forgotten one if either is (earliest
   ``forgotten`` first), else (a turn) the one with more spans withheld,
   else the smaller id.  The united versions are
   ordered by (valid_from, recorded_at, owner, identity), which also makes
   the supersession rule pick the same current value everywhere.  In that
   order a version whose body and kind equal the one before is dropped (an
   unchanged write writes nothing), and a version that is not
   ``user_stated`` and would overrule a ``user_stated`` value before it
   with a different value is parked in the review queue instead (as it
   would have been had both writes happened on one machine).
3. Every version whose value a *forget* tombstone names (key + SHA-256 of
   the normalized value) is emptied: ``body`` "" and ``forgotten`` = the
   tombstone's time (the earliest, if several) - exactly what ``mem forget``
   wrote on the machine that forgot it - except a ``user_stated`` version
   recorded after every such forget, which stays as ``mem remember`` lets
   it (its time: the earliest forget at or after it;
   ``tombstones.named_forget_time``, test27 V14).  A version below ``user_stated``
   that ``mem remember`` would refuse here (its value was forgotten under
   another key, or holds a forgotten text: ``tombstones.forgotten_in``) is
   emptied the same way, ``forgotten`` = the latest forget's time.  A
   version of any trust that holds a forgotten text which the side it came
   from did not hold yet (``ForgetIndex.unseen_time``: written on a machine
   the ``forget --match`` had not reached) is emptied too, ``forgotten`` =
   that text's earliest forget (a ``user_stated`` write of a key's
   forgotten value back to it, recorded after its forgets, excepted).
   A turn holding such a text has it replaced by ``[forgotten]``
   (``ForgetIndex.unseen_text``, test36 T14).  A version of a key forgotten whole
   (``key_forget``) written on top of the forgotten value before that forget
   (recorded before it, or from a side that did not hold that forget, whatever
   its clock said, but for a ``user_stated`` write of that value whole, test27
   V14) and quoting that value is emptied too, ``forgotten`` = that
   forget's time (``ForgetIndex.quoted_forgotten``, test37b T16); one that
   does not quote it stays.
4. The chain is rebuilt on the prefix: each version re-linked to the one
   before and numbered one more; a version that did not change keeps its id.
   A chain with no live version left is removed (the key goes).

**Sessions** follow the same steps with turns: identity (session, role,
timestamp, harness, source, cwd, project); the order is the chains' own,
never the clock (a transcript's timestamps may step back: a clock step, a
resumed session): a turn that follows another in either tail follows it in
the result, and among the turns free to go next the smallest (seq,
timestamp, source, identity) goes first (``_turn_order``), so a tail that
only rewrote turns in place (``mem forget`` of one turn) keeps its order
and ids; ``seq`` renumbered; a turn that a turn tombstone forgets (its
source and the SHA-256 of its text, and its session when the tombstone is
scoped to one: ``tombstones.TurnForgets``) is emptied; a session named by a
``session:<id>`` tombstone is removed.  Before step 1, a run of ``mem fsck
--repair``'s lost placeholders on either side is filled with the other
side's turns when they fit it (``objstore.memory.refill.refill_from``, the
rule of ``mem import --reread``), each side from the other as it was given,
so the merge stays symmetric.  A fact key's run of lost placeholders is
filled likewise, by the id its top placeholder names, with the other
side's versions it stands for (:func:`_refill_versions`).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import blake3

from objstore.core.cborext import cbor2
from objstore.core.codec import encode
from objstore.core.objects import (LOST_SOURCE, Fact, QueueItem, Tombstone, Turn, is_lost_stub, normalize_value,
                                   value_digest)
from objstore.memory.refill import refill_from
from objstore.core.text import replace_spans
from objstore.memory.tombstones import (HIDDEN_MARK, MIN_TEXT_CHARS, REDACTED, TEXT_KEY, TurnForgets, forgotten_in,
                                        hidden_key, holds_text, match_spans, named_forget_time, turn_target,
                                        version_exact)
from objstore.memory.withdrawals import VERSION_RECORDS, Withdrawals


@dataclass
class ForgetIndex:
    """What the tombstones of a store say must be empty.

    Attributes:
        facts: ``(key, sha256)`` -> earliest forget time (ms).
        turns: the turn tombstones (``tombstones.TurnForgets``: the rule
            local forget and capture use too).
        sessions: session id -> earliest forget time.
    """

    facts: dict[tuple[str, bytes], int] = field(default_factory=dict)
    turns: TurnForgets = field(default_factory=TurnForgets)
    sessions: dict[str, int] = field(default_factory=dict)
    forgets: list[Tombstone] = field(default_factory=list)
    latest: int = 0
    #: a fact tombstone names its key by hash (``tombstones.hidden_key``): facts are looked up that way too
    hidden: bool = False
    #: forgotten texts (``tombstones.text_rule``: a ``forget --match`` text or a long forgotten value)
    #: that one side of this merge held and the other did not: side (``"local"`` / ``"remote"``) ->
    #: ``[((sha256, length), earliest forget time)]`` of the rules *that side lacked*
    #: (``fetch.unseen_rules``); see :meth:`unseen_time`
    unseen: dict[str, list[tuple[tuple[bytes, int], int]]] = field(default_factory=dict)
    #: the plain versions a seal withdrew (``tombstones.Withdrawals``: a seal on any machine)
    sealed: Withdrawals = field(default_factory=Withdrawals)
    #: ``(key, sha256)`` -> ``(time, exact)`` of every forget of that value, by time
    #: (``tombstones.named_forget_time``: a ``user_stated`` version recorded after the last of them
    #: stays, as it does locally; ``exact``: a forget of the version recorded then only)
    fact_times: dict[tuple[str, bytes], list[tuple[int, int | None]]] = field(default_factory=dict)
    #: the plain digests this store reads its tombstones' keyed ones as (``tombdigests.read_digests``'
    #: values); None: every digest counts as read
    readable: set[bytes] | None = None
    #: ``(session, source)`` -> earliest time of a scoped turn tombstone whose digest this store
    #: cannot read (keyed under another store's key, from an unencrypted remote; :meth:`blind_turn_time`)
    blind_turns: dict[tuple[str, str], int] = field(default_factory=dict)
    #: fact key, as a tombstone names it (by name or ``tombstones.hidden_key``) -> the times of the
    #: forgets of the whole key (not of one version, not a rejection): :meth:`quoted_forgotten`
    key_forgets: dict[str, list[int]] = field(default_factory=dict)
    #: the same key -> ``(value digest as read, time)`` of each of those forgets
    key_values: dict[str, list[tuple[bytes, int]]] = field(default_factory=dict)
    #: value digest -> normalized length, of each forgotten value's text tombstone (``value:<n>``)
    #: this store reads
    value_lengths: dict[bytes, int] = field(default_factory=dict)
    #: side (``"local"`` / ``"remote"``) -> ``(key, time)`` of the whole-key forgets (:func:`key_forget`,
    #: the key as :attr:`key_forgets` names it) whose tombstones only the other side held
    #: (``fetch.unseen_keys``; ``fetch._back_after_forget`` reads it)
    keys_unseen: dict[str, set[tuple[str, int]]] = field(default_factory=dict)

    def add(self, t: Tombstone) -> None:
        """Record a tombstone (rejections are not forgets and are ignored;
        ``match:`` rules and text tombstones only serve
        ``tombstones.forgotten_in`` for lower-trust versions)."""
        if t.reason == "rejected":
            return
        if self.sealed.add(t):   # not a forget of a value: never in forgets (forgotten_in) nor facts
            return
        self.forgets.append(t)
        self.latest = max(self.latest, t.time)
        if self.turns.add(t):
            target = turn_target(t)
            if target[0] is not None and self.readable is not None and t.value_sha256 not in self.readable:
                k = (target[0], target[1])
                self.blind_turns[k] = min(self.blind_turns.get(k, t.time), t.time)
            return
        if t.key == TEXT_KEY and t.reason.startswith("value:") and t.reason[len("value:"):].isdigit():
            self.value_lengths[t.value_sha256] = int(t.reason[len("value:"):])
        if t.key.startswith("match:") or t.key == TEXT_KEY:
            return
        if t.key.startswith("session:"):
            d, k = self.sessions, t.key[len("session:"):]
        elif t.key.startswith(("user/", "global/", "project/")):
            d, k = self.facts, (t.key, t.value_sha256)
            self.hidden = self.hidden or HIDDEN_MARK in t.key
        else:
            return
        d[k] = min(d.get(k, t.time), t.time)
        if d is self.facts:
            self.fact_times.setdefault(k, []).append((t.time, version_exact(t)))
            self.fact_times[k].sort(key=lambda e: e[0])
            if key_forget(t):
                self.key_forgets.setdefault(t.key, []).append(t.time)
                self.key_values.setdefault(t.key, []).append((t.value_sha256, t.time))

    def _named_time(self, f: Fact, k: tuple[str, bytes]) -> int | None:
        """``tombstones.named_forget_time`` of live version ``f`` by the
        forgets of ``k`` (its key, or hidden key, and value digest)."""
        return named_forget_time(self.fact_times.get(k, []), f)

    def _stated_back(self, f: Fact) -> bool:
        """True when a forget of ``f``'s key named exactly its value and
        every such forget came before ``f`` was recorded (the person wrote
        the forgotten value back to the key: :meth:`_named_time` keeps it)."""
        digest = value_digest(f.body)
        keys = [(f.key, digest)] + ([(hidden_key(f.key), digest)] if self.hidden else [])
        return any(k in self.fact_times and self._named_time(f, k) is None for k in keys)

    def fact_time(self, f: Fact) -> int | None:
        """Forget time for a live version whose value a tombstone names
        (a ``user_stated`` one recorded after every such forget excepted:
        :meth:`_named_time`), or, below ``user_stated``, which ``facts.remember`` would refuse here
        (``tombstones.forgotten_in``: a value forgotten under another key or
        holding a forgotten text; time: the latest forget, the same on every
        machine with the same tombstones), or a plain copy a seal withdrew
        (``tombstones.Withdrawals``: time, the seal's)."""
        if self.sealed and (when := self.sealed.when(f)) is not None:
            return when
        if not self.forgets or f.forgotten or not f.body:
            return None
        digest = value_digest(f.body)
        when = self._named_time(f, (f.key, digest))
        if when is None and self.hidden:   # a key forgotten by hash (tombstones.hidden_key)
            when = self._named_time(f, (hidden_key(f.key), digest))
        if when is None and f.trust != "user_stated" and \
                forgotten_in(self.forgets, f.key, f.body, f.recorded_at) is not None:
            when = self.latest
        return when

    def unseen_time(self, f: Fact, sides: tuple[str, ...]) -> int | None:
        """Forget time for a live version, of any trust, that holds a
        forgotten text (``tombstones.holds_text``) which every side it comes
        from (``sides``: ``"local"``, ``"remote"``, or both for a version
        the two chains share) did not know: it was written where that
        ``forget --match`` had not arrived yet, so it is forgotten as that
        forget would have forgotten it there (time: the earliest forget of
        the text, the same on every machine).  A version a side that knew
        the text kept live (a person stated it again after the forget) is
        left alone, and so is a ``user_stated`` version that writes a key's
        forgotten value back to that key after every forget of it
        (:meth:`_stated_back`, test27 V14); any other value holding the
        text is forgotten whatever its trust (test16 F7).  Cost: nothing without such texts; else one SHA-256 per
        word start of the body and rule length."""
        if not self.unseen or f.forgotten or not f.body or not sides:
            return None
        lacked = set.intersection(*({r for r, _w in self.unseen.get(s, ())} for s in sides))
        if not lacked:
            return None
        stated_back = f.trust == "user_stated" and self._stated_back(f)
        for rule, when in sorted(self.unseen[sides[0]], key=lambda rw: (rw[1], rw[0])):
            if stated_back and when < f.recorded_at:
                continue   # the person wrote a key's forgotten value back after the forget (test27 V14)
            if rule in lacked and holds_text(f.body, [rule]):
                return when
        return None

    def unseen_text(self, t: Turn, sides: tuple[str, ...]) -> str | None:
        """``t``'s text with each forgotten text that every side it comes
        from (``sides``, as :meth:`unseen_time`'s) did not know replaced by
        ``[forgotten]`` where a word starts (``tombstones.match_spans``: the
        spans ``mem forget --match`` replaces in a turn), or None when it
        holds none.  A turn written on a machine the ``forget --match`` had
        not reached went back to the remote on that machine's push, and into
        the store that forgot it on its pull (test36 T14).  The same text on
        every machine with the same tombstones (the merge stays symmetric)."""
        if not self.unseen or t.forgotten or not t.text or not sides:
            return None
        lacked = set.intersection(*({r for r, _w in self.unseen.get(s, ())} for s in sides))
        spans = match_spans(t.text, sorted(lacked), word_starts=True) if lacked else []
        return replace_spans(t.text, spans, REDACTED) if spans else None

    def turn_time(self, t: Turn) -> int | None:
        """Forget time for a live turn a turn tombstone forgets
        (``tombstones.TurnForgets.when``)."""
        if t.forgotten:
            return None
        return self.turns.when(t.session, t.source, t.text)

    def blind_turn_time(self, t: Turn) -> int | None:
        """Forget time for a live turn that a scoped turn tombstone names
        (its session and source) whose digest this store cannot read, when
        the turn holds nothing withheld (a copy a forget rewrote with a
        value withheld keeps its source, and its tombstone names the text
        before): what the merge applies to a session only one side holds
        (test36b T4: over an unencrypted remote the clone kept, and pushed
        back, the turn whose session the forget removed there)."""
        if t.forgotten or not t.text or not self.blind_turns or _withheld(t):
            return None
        return self.blind_turns.get((t.session, t.source))

    def quoted_forgotten(self, chain: list[tuple[str, Fact]], sides: list[tuple[str, ...]] | None = None
                         ) -> dict[int, int]:
        """The live versions of one fact key's merged ``chain`` (``[(id,
        Fact)]`` oldest first) that a forget of the whole key must empty
        although it never named them: versions written on top of the
        forgotten one before that forget (``recorded_at`` before its time:
        so the forget had not arrived where they were written) whose value is a
        forgotten value of the key or holds it where a word starts
        (``tombstones.holds_text``; a value shorter than
        ``tombstones.MIN_TEXT_CHARS`` only as the whole value, the rule of
        ``tombstones.forgotten_in``).  The forgotten values are read from
        the versions of ``chain`` this merge empties by that forget (so a
        store that cannot read the tombstones' keyed digests, over a
        ``--no-encrypt`` remote, reads them from its own copy) and from the
        key's tombstones whose digests this store reads (their length from
        the ``value:<n>`` text tombstone).  A version that does not quote a
        forgotten value is left alone (a forget of a value is no veto on a
        new one), and so is one recorded after the forget (the person
        stated it again: the rule of test27 V14, by each machine's clock)
        unless every side it comes from (``sides[i]``: ``"local"``,
        ``"remote"``, as :meth:`unseen_time`'s; None: the clock alone) did
        not hold that forget (:attr:`keys_unseen`): then it was written
        where the forget had not arrived, whatever that machine's clock said
        (sync38's limit: a clock ahead kept it), unless it is a
        ``user_stated`` write of the forgotten value itself, whole (the
        person wrote it back: test27 V14 keeps it by the clock).  A pure function of the
        chain, the tombstones and which side held them: every machine
        empties the same versions.

        Returns:
            index in ``chain`` -> forget time (ms) to empty it with
            (test37b T16).  Cost: nothing unless the key was forgotten
            whole; then one SHA-256 per word start of each live body and
            rule."""
        key = chain[0][1].key if chain else ""
        names = (key, hidden_key(key)) if self.hidden else (key,)
        times = {w for n in names for w in self.key_forgets.get(n, ())}
        if not times:
            return {}
        rules: set[tuple[bytes, int, int]] = set()   # (value digest, normalized length, forget time)
        for _oid, f in chain:
            when = self.fact_time(f)
            if when in times and f.body:
                rules.add((value_digest(f.body), len(normalize_value(f.body)), when))
        rules |= {(digest, self.value_lengths[digest], w) for n in names for digest, w in self.key_values.get(n, ())
                  if digest in self.value_lengths}
        out: dict[int, int] = {}
        for i, (_oid, f) in enumerate(chain):
            if f.forgotten or not f.body or self.fact_time(f) is not None:
                continue
            digest = value_digest(f.body)
            for d, length, when in sorted(rules, key=lambda r: (r[2], r[0])):
                unseen = bool(sides and sides[i]) and all(
                    any((n, when) in self.keys_unseen.get(s, ()) for n in names) for s in sides[i]) \
                    and not (f.trust == "user_stated" and d == digest)   # written back whole: test27 V14
                if (f.recorded_at < when or unseen) and (d == digest or (
                        length >= MIN_TEXT_CHARS and holds_text(f.body, [(d, length)]))):
                    out[i] = when
                    break
        return out

    def __bool__(self) -> bool:
        return bool(self.facts or self.turns or self.sessions or self.forgets or self.sealed)

    def queue_item_forgotten(self, q: QueueItem) -> bool:
        """True when a proposal's value was forgotten for its key."""
        digest = value_digest(q.body)
        return (q.key, digest) in self.facts or (self.hidden and (hidden_key(q.key), digest) in self.facts)


def key_forget(t: Tombstone) -> bool:
    """True when ``t`` is a tombstone of a forget of a whole fact key (of
    a ``user/``, ``global/`` or ``project/`` key, by name or by hash; not a
    rejection, a seal's, a version forget's ``version:<ms>`` nor a version
    record): what :meth:`ForgetIndex.quoted_forgotten` reads.  Its key and
    reason are in the clear, so a store that cannot read its digest tells
    it too."""
    return (t.key.startswith(("user/", "global/", "project/")) and t.reason not in ("rejected", "seal")
            and t.reason not in VERSION_RECORDS and version_exact(t) is None)


def fact_identity(f: Fact) -> bytes:
    """The identity of a fact version across machines (see the module doc)."""
    return blake3.blake3(cbor2.dumps([f.key, f.kind, f.valid_from, f.recorded_at, f.trust, f.owner,
                                      f.sensitivity, f.pinned, bool(getattr(f, "dormant", False))],
                                     canonical=True)).digest()


def turn_identity(t: Turn) -> bytes:
    """The identity of a turn across machines (see the module doc)."""
    return blake3.blake3(cbor2.dumps([t.session, t.role, t.timestamp, t.harness, t.source, t.cwd, t.project],
                                     canonical=True)).digest()


@dataclass
class Outcome:
    """Result of merging one ref.

    Attributes:
        head: the new head id, or None (the ref goes).
        new_objects: objects written for it (id -> object), oldest first.
        final_ids: the ids of the resulting chain.
        emptied: texts emptied by tombstones (to scrub derived files).
        parked: queue items (challenges) parked by the merge.
        dropped_ids: ids of the input chains that the result does not reach.
        refilled: lost placeholders (``mem fsck --repair``) whose places
            the other side's turns took; ``gaps_refilled`` the runs of them.
        gaps_verified: runs of them rebuilt byte for byte (the result holds
            the id the run's top placeholder names).
    """

    head: str | None
    new_objects: list[tuple[str, object]] = field(default_factory=list)
    final_ids: set[str] = field(default_factory=set)
    emptied: list[str] = field(default_factory=list)
    parked: list[QueueItem] = field(default_factory=list)
    dropped_ids: set[str] = field(default_factory=set)
    refilled: int = 0
    gaps_refilled: int = 0
    gaps_verified: int = 0
    #: the input ids the tombstones emptied (``memmerge.merge_entries``: a memory file's head emptied for a text)
    emptied_ids: set[str] = field(default_factory=set)
    #: versions of the other side put back in the places of a fact key's lost placeholders (:func:`_refill_versions`)
    versions_refilled: int = 0
    #: versions emptied by :meth:`ForgetIndex.unseen_time` (also counted in ``emptied``), and turns whose
    #: text :meth:`ForgetIndex.unseen_text` rewrote
    unseen: int = 0
    #: versions emptied by :meth:`ForgetIndex.quoted_forgotten` (also counted in ``emptied``)
    quoted: int = 0


def _common_prefix(a: list, b: list) -> int:
    n = 0
    for x, y in zip(a, b):
        if x[0] != y[0]:
            break
        n += 1
    return n


def merge_chain(local: list[tuple[str, object]], remote: list[tuple[str, object]], fidx: ForgetIndex,
                kind: str) -> Outcome:
    """Merge two chains of one ref (each ``[(id, obj)]`` oldest first; either
    may be empty) under the module's rule.  ``kind`` is ``fact`` or
    ``turn``.  Writes nothing: the caller stores ``Outcome.new_objects``.
    """
    gaps: list = []
    versions_refilled = 0
    if kind == "turn":   # fsck --repair's lost placeholders, filled from the other side's turns
        local, remote, gaps = _refill(local, remote)
    else:                # ... and from the other side's versions, by the ids they name
        (local, a), (remote, b) = _refill_versions(local, remote), _refill_versions(remote, local)
        versions_refilled = a + b
    p = _common_prefix(local, remote)
    ff = len(local) == p or len(remote) == p
    if len(local) == p:
        items = list(remote)
    elif len(remote) == p:
        items = list(local)
    else:
        ident = fact_identity if kind == "fact" else turn_identity
        best: dict[bytes, tuple[str, object]] = {}
        for oid, obj in local[p:] + remote[p:]:
            k = ident(obj)
            cur = best.get(k)
            if cur is None or _prefer(oid, obj, *cur):
                best[k] = (oid, obj)
        if kind == "fact":
            tail = [v for _k, v in sorted(best.items(), key=lambda kv: (kv[1][1].valid_from, kv[1][1].recorded_at,
                                                                         kv[1][1].owner, kv[0]))]
        else:
            tail = _turn_order(best, [[ident(o) for _i, o in local[p:]], [ident(o) for _i, o in remote[p:]]])
        items = list(local[:p]) + tail
    out = Outcome(head=None)
    parked: list[QueueItem] = []
    if kind == "fact" and not ff:
        items = _drop_unchanged_and_park(items, p, parked)
    out.parked = parked
    # tombstones, then re-link from the first change
    new: list[tuple[str, object]] = []
    final: list[tuple[str, object]] = []   # the result chain (a re-linked copy may get an input's id back)
    parent: str | None = None
    changed = False
    number = 0
    lids, rids = ({o for o, _ in local}, {o for o, _ in remote}) if fidx.unseen or fidx.keys_unseen else (set(), set())
    lone = not local or not remote   # one side holds no such session (a forget removed it there: test36b T4)
    quoted = fidx.quoted_forgotten(items, [tuple(s for s, ids in (("local", lids), ("remote", rids)) if o in ids)
                                           for o, _ in items] if fidx.keys_unseen else None) \
        if kind == "fact" and fidx.key_forgets else {}
    for i, (oid, obj) in enumerate(items):
        when = fidx.fact_time(obj) if kind == "fact" else fidx.turn_time(obj)
        if when is None and kind == "turn" and lone:
            when = fidx.blind_turn_time(obj)
        repl: dict = {}
        if when is None and fidx.unseen:
            sides = tuple(s for s, ids in (("local", lids), ("remote", rids)) if oid in ids)
            if kind == "fact":
                when = fidx.unseen_time(obj, sides)
            elif (text := fidx.unseen_text(obj, sides)) is not None:
                repl["text"] = text
            out.unseen += when is not None or "text" in repl
        if when is None and i in quoted:   # a version of a key forgotten elsewhere quoting its value (test37b T16)
            when = quoted[i]
            out.quoted += 1
        if when is not None:
            out.emptied_ids.add(oid)
            if kind == "fact":
                out.emptied.append(obj.body)
                repl.update(body="", forgotten=when)
            else:
                out.emptied.append(obj.text)
                repl.update(text="", forgotten=when)
        if kind == "fact":
            want = (items[0][1].version if i == 0 else number + 1)
            if obj.parent != parent:
                repl["parent"] = parent
            if obj.version != want:
                repl["version"] = want
            number = want
        else:
            want = (items[0][1].seq if i == 0 else number + 1)
            if obj.parent != parent:
                repl["parent"] = parent
            if obj.seq != want:
                repl["seq"] = want
            number = want
        if repl:
            changed = True
            obj = obj.replace(**repl)
            oid = _oid(encode(obj))
            new.append((oid, obj))
        final.append((oid, obj))
        parent = oid
    live = any(not o.forgotten for _i, o in final)
    out.head = parent if (final and live) else None
    out.new_objects = new if out.head is not None else []
    out.final_ids = {oid for oid, _ in final} if out.head is not None else set()
    out.dropped_ids = ({oid for oid, _ in local} | {oid for oid, _ in remote}) - out.final_ids
    out.refilled = sum(len(g.kept) for g in gaps) if out.head is not None else 0   # (a lost head's run: more)
    out.gaps_refilled = len(gaps) if out.head is not None else 0
    out.gaps_verified = sum(g.lost in out.final_ids for g in gaps)
    out.versions_refilled = versions_refilled if out.head is not None else 0
    return out


def _refill_versions(chain: list, other: list) -> tuple[list, int]:
    """``chain`` (a fact key's, ``[(id, Fact)]`` oldest first) with each
    run of ``mem fsck --repair``'s lost placeholders (``objects.is_lost_stub``)
    replaced by the versions of ``other`` it stands for, and how many
    versions took their places.  A run stands for the versions after the one below
    it (its base: the run's first parent, or the start) up to the id its
    top placeholder names (``lost:<id>``, ``memory.repair``: the head or
    the version the break was found at); it is replaced when ``other``
    holds that id above the base, so a pull from a remote that holds the
    real versions puts them back in their places, numbers and ids as they
    were, and a push never rewrites the remote's intact history (tester
    finding U3: they were stacked after the placeholder, renumbered).  A
    run whose ids ``other`` lacks is kept as it is."""
    at = {oid: i for i, (oid, _o) in enumerate(other)}
    out: list = []
    filled = 0
    i = 0
    while i < len(chain):
        if not is_lost_stub(chain[i][1]):
            out.append(chain[i])
            i += 1
            continue
        j = i
        while j + 1 < len(chain) and is_lost_stub(chain[j + 1][1]):
            j += 1
        top = next((m[len(LOST_SOURCE):] for m in chain[j][1].sources if m.startswith(LOST_SOURCE)), "")
        base = at.get(out[-1][0], -2) if out else -1     # -2: the base is not in ``other``
        if top in at and base >= -1 and at[top] > base:
            out.extend(other[base + 1:at[top] + 1])
            filled += at[top] - base
        else:
            out.extend(chain[i:j + 1])
        i = j + 1
    return out, filled


def _turn_order(best: dict[bytes, tuple[str, Turn]], chains: list[list[bytes]]) -> list[tuple[str, Turn]]:
    """The united turns of a session's two tails in chain order: a turn that
    follows another in either tail follows it in the result (a session's
    order is its parent chain, never its clock: a transcript's timestamps
    may step back); among the turns free to go next, the one with the
    smallest ``(seq, timestamp, source, identity)`` goes first.  When the
    tails order the same turns both ways (a cycle), the smallest of the
    turns left goes next.  Symmetric in the tails (their edges are
    united), so the result does not depend on which side is local.

    Args:
        best: identity -> the ``(id, Turn)`` kept for it (every identity of
            ``chains``).
        chains: each tail's identities, oldest first.
    Returns:
        ``[(id, Turn)]`` in the merged order.  Cost: O(n log n) in the
        number of turns of the tails.
    """
    succ: dict[bytes, set[bytes]] = {k: set() for k in best}
    for chain in chains:
        for a, b in zip(chain, chain[1:]):
            if a != b:
                succ[a].add(b)
    npred = dict.fromkeys(best, 0)
    for nxt in succ.values():
        for b in nxt:
            npred[b] += 1

    def rank(k: bytes) -> tuple:
        t = best[k][1]
        return (t.seq, t.timestamp, t.source, k)

    ready = [rank(k) for k, n in npred.items() if n == 0]
    heapq.heapify(ready)
    left = set(best)
    out: list[tuple[str, Turn]] = []
    while left:
        if not ready:   # a cycle: the smallest turn left goes next
            heapq.heappush(ready, min(rank(k) for k in left))
        k = heapq.heappop(ready)[-1]
        if k not in left:
            continue
        left.discard(k)
        out.append(best[k])
        for b in succ[k]:
            npred[b] -= 1
            if npred[b] == 0 and b in left:
                heapq.heappush(ready, rank(b))
    return out


def _refill(local: list, remote: list) -> tuple[list, list, list]:
    """Each side's runs of lost placeholders filled from the other side's
    turns (``objstore.memory.refill.refill_from``: the rule ``mem import
    --reread`` applies to a transcript), each from the *unfilled* other
    side, so the result does not depend on which side is local; returns
    both chains and the gaps filled."""
    lf, lg = refill_from(local, remote)
    rf, rg = refill_from(remote, local)
    return lf, rf, lg + rg


def _oid(frame: bytes) -> str:
    return blake3.blake3(frame).hexdigest()


def _withheld(obj) -> int:
    """How many spans a turn's text holds withheld (``[REDACTED:…]``, ``[forgotten]``); 0 for a fact."""
    text = obj.text if isinstance(obj, Turn) else ""
    return text.count("[REDACTED:") + text.count(REDACTED) if text else 0


def _prefer(oid: str, obj, cur_oid: str, cur_obj) -> bool:
    """True when (oid, obj) is the better copy of one identity: forgotten
    first, then the turn with more withheld (a machine that could not match
    a forget's keyed digest kept the text the other side withheld: test36b
    T4, T18), then the smaller id."""
    a = (0 if obj.forgotten else 1, obj.forgotten or 0, -_withheld(obj), oid)
    b = (0 if cur_obj.forgotten else 1, cur_obj.forgotten or 0, -_withheld(cur_obj), cur_oid)
    return a < b


def _drop_unchanged_and_park(items: list, start: int, parked: list) -> list:
    """The merged tail's rules: drop a version equal (body, kind) to the one
    before; park a lower-trust version that overrules a user_stated one."""
    out = list(items[:start])
    for oid, f in items[start:]:
        prev = out[-1][1] if out else None
        if prev is not None and not f.forgotten and not prev.forgotten:
            if prev.body == f.body and prev.kind == f.kind:
                continue
            live = [o for _i, o in out if not o.forgotten]
            cur = max(live, key=lambda o: (o.valid_from, o.version)) if live else None
            if (f.trust != "user_stated" and cur is not None and cur.trust == "user_stated"
                    and f.valid_from >= cur.valid_from
                    and normalize_value(cur.body) != normalize_value(f.body)):
                parked.append(QueueItem(kind="challenge", key=f.key, body=f.body, fact_kind=f.kind,
                                        trust=f.trust, sensitivity=f.sensitivity, owner=f.owner,
                                        sources=tuple(f.sources), other="",
                                        note=f"{f.trust} write from another machine against the "
                                             f"user_stated v{cur.version}",
                                        time=f.recorded_at))
                continue
        out.append((oid, f))
    return out
