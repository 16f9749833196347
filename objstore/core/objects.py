"""The object model: immutable fact, turn and tombstone objects.

Objects are frozen records (``objstore.core.record``) with no I/O and no knowledge of bytes on disk;
``codec`` turns them into framed canonical CBOR and back.  Each class maps to
and from a *payload*: a ``dict`` with ``str`` keys whose values are only
``int``, ``str``, ``bytes``, ``bool``, ``None`` or lists of those (no floats,
no datetimes), so that the encoding is canonical and the id stable.

Times are integer milliseconds since the Unix epoch, UTC.  Parent links are
ids (64 hex characters) in the object and 32 raw bytes in the payload.
The byte-level format is specified in ``docs/format.md``.
"""

from __future__ import annotations

from objstore.core.cborext import cbor2
from objstore.core.errors import CorruptObject, InvalidInput
from objstore.core.ids import hash_bytes, is_full_id, to_hex, to_raw
from objstore.core.record import Frozen, set_fields
from objstore.core.text import normalize_value, value_digest  # noqa: F401  (re-exported: the one normalization)

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path (docs/benchmarks.md, session 16)
if TYPE_CHECKING:
    from typing import Any, ClassVar

KINDS = ("user", "feedback", "project", "reference", "directive", "summary")
#: kinds stored and searchable on request, but held out of injection and default
#: recall: a ``directive`` is a question, an instruction or a stated goal, which
#: ranks high by resembling the query (issue 16)
HELD_OUT_KINDS = ("directive",)
TRUST_LEVELS = ("user_stated", "agent_observed", "derived")  # highest first
SENSITIVITIES = ("public", "private", "secret")
#: typed edges a fact version may hold to other facts or turns (docs/format.md, "Edges")
EDGE_KINDS = ("relates_to", "contradicts", "derived_from", "rollup_of")
#: the longest edge target: a key (refs.MAX_KEY_BYTES is smaller) or a 64-hex id
MAX_EDGE_TARGET = 1024
ROLES = ("user", "assistant", "tool", "system")
#: entrypoints of runs nobody typed in (Claude Code: ``claude -p`` records
#: ``sdk-cli``, the Agent SDKs ``sdk-ts`` and ``sdk-py``; agent-formats.md §2.2)
HEADLESS_ENTRYPOINT_PREFIX = "sdk-"


#: how the ``source`` (a turn) or a ``sources`` entry (a fact version) of a
#: lost stub starts: ``lost:<id>`` or ``lost:<seq>``; a stub whose lost id is
#: unknown has the bare ``lost`` (docs/format.md, "Lost placeholders")
LOST_SOURCE = "lost:"


#: the header a sealed lost stub's ``age`` starts with (after ``AGE_INTRO``):
#: a stanza of a type no age tool knows and no MAC, so nothing decrypts it
#: (docs/format.md, "Lost placeholders")
LOST_AGE_STANZA = b"-> mem-lost"


def lost_sealed_age(lost: str | None) -> bytes:
    """The ``age`` field of a sealed lost stub: ``age-encryption.org/v1\n``,
    then ``-> mem-lost <id>\n`` (the lost version's 64-hex id) or ``->
    mem-lost\n`` when it is unknown."""
    return b"age-encryption.org/v1\n" + LOST_AGE_STANZA + (b" " + lost.encode("ascii") if lost else b"") + b"\n"


#: the header a sealed *forgotten stub*'s ``age`` starts with (after
#: ``AGE_INTRO``): the place of a forgotten version above a sealed key's newest
#: kept one (docs/format.md, "Lost placeholders")
FORGOTTEN_AGE_STANZA = b"-> mem-forgotten"


def forgotten_sealed_age(forgotten: int) -> bytes:
    """The ``age`` field of a sealed forgotten stub: ``age-encryption.org/v1\n``,
    then ``-> mem-forgotten <ms>\n``, ``<ms>`` the forget's time (decimal ms
    since the epoch, the emptied fact's ``forgotten``).  ``mem seal`` writes
    one where a forget emptied the newest versions, so ``mem unseal`` gives
    that place back (``objstore.vault.sealed``)."""
    return AGE_INTRO + FORGOTTEN_AGE_STANZA + b" " + str(int(forgotten)).encode("ascii") + b"\n"


def forgotten_stub_time(obj: Any) -> int | None:
    """The forget's time (ms) of a sealed forgotten stub
    (:func:`forgotten_sealed_age`), or None for any other object."""
    age = getattr(obj, "age", None)
    head = AGE_INTRO + FORGOTTEN_AGE_STANZA + b" "
    if age is None or not age.startswith(head) or not age.endswith(b"\n"):
        return None
    ms = age[len(head):-1]
    return int(ms) if ms.isdigit() and len(ms) <= 16 else None


def is_lost_stub(obj: Any) -> bool:
    """True for a fact version, turn or sealed version ``mem fsck --repair``
    wrote in the place of one it could not recover
    (``objstore.memory.repair``): a fact or turn emptied, ``forgotten`` set,
    and its source ``lost`` or ``lost:…``; a sealed version whose ``age``
    is :func:`lost_sealed_age`'s.  A forgotten version or turn (``mem
    forget``) is not one."""
    age = getattr(obj, "age", None)
    if age is not None:
        return age.startswith(lost_sealed_age(None)[:-1])
    if not getattr(obj, "forgotten", 0):
        return False
    marks = getattr(obj, "sources", None) or (getattr(obj, "source", "") or "",)
    return any(m == "lost" or m.startswith(LOST_SOURCE) for m in marks)


def interactive_entrypoint(entrypoint: str) -> bool:
    """True for a turn a person was present for: every entrypoint but the
    headless ones (``sdk-*``); "" (not recorded: older transcripts, other
    harnesses) counts as interactive, so nothing unlabelled is dropped."""
    return not entrypoint.startswith(HEADLESS_ENTRYPOINT_PREFIX)


#: Times are ms since the epoch in [0, MAX_TIME_MS] (year 9999 ends there).
MAX_TIME_MS = 253_402_300_799_999


def check_time(value: int, what: str) -> int:
    """Refuse a time outside 1970..9999 (ms since epoch); raises InvalidInput."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TIME_MS:
        raise InvalidInput(f"{what} must be a time between 1970 and 9999 (ms since epoch), not {value!r}")
    return value


def _opt_parent(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, bytes) and len(v) == 32:
        return to_hex(v)
    raise CorruptObject("parent must be 32 bytes or null")


def _raw_parent(parent: str | None) -> bytes | None:
    return None if parent is None else to_raw(parent)


def _need(payload: dict, name: str, typ: type | tuple[type, ...]) -> Any:
    if name not in payload:
        raise CorruptObject(f"field {name!r} missing")
    v = payload[name]
    # bool is an int subclass: keep the two apart
    if (typ is int and isinstance(v, bool)) or not isinstance(v, typ):
        raise CorruptObject(f"field {name!r} has the wrong type ({type(v).__name__})")
    return v


def _check_fields(payload: dict, names: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """Every name in ``names`` is required (checked by _need); names in
    ``optional`` may be absent; anything else is corrupt."""
    extra = set(payload) - set(names) - set(optional)
    if extra:
        raise CorruptObject(f"unknown fields: {', '.join(sorted(map(str, extra)))}")


def _zero_flag(name: str) -> int:
    raise CorruptObject(f"field {name!r} is written only when not 0 or empty")


def _empty_text(name: str) -> str:
    raise CorruptObject(f"field {name!r} is written only when not empty")


def _only_true(payload: dict, name: str) -> bool:
    """An optional boolean flag: absent means False; present it must be
    true (a written ``false`` would give one object two encodings)."""
    if name not in payload:
        return False
    if payload[name] is not True:
        raise CorruptObject(f"field {name!r} is written only when true")
    return True


def _check_version(v) -> None:
    """The checks a fact version and a sealed version share: version >= 1,
    times in range, parent a full id or None.  Raises InvalidInput."""
    if v.version < 1:
        raise InvalidInput("version must be >= 1")
    check_time(v.valid_from, "valid_from")
    check_time(v.recorded_at, "recorded_at")
    if v.parent is not None and not is_full_id(v.parent):
        raise InvalidInput("parent must be a full id")


def edge_target_kind(target: str) -> str:
    """``"id"`` for a 64-hex object id (a turn or one fact version), ``"key"``
    for a fact key (it holds a ``/``, which ids never do).  Raises
    InvalidInput for anything else (the key itself is validated by the
    writer, ``objstore.memory.edges``)."""
    if is_full_id(target):
        return "id"
    if isinstance(target, str) and "/" in target and 0 < len(target) <= MAX_EDGE_TARGET \
            and target.isprintable() and target == target.strip():
        return "key"
    raise InvalidInput(f"an edge points at a fact key or a 64-hex object id, not {target!r}")


def normalize_edges(edges) -> tuple[tuple[str, str], ...]:
    """Edges (an iterable of ``(relation, target)`` pairs) as a fact holds
    them: sorted, without duplicates; raises InvalidInput for an unknown
    relation or a bad target."""
    out = set()
    for rel, target in edges:
        _choice(rel, EDGE_KINDS, "edge relation")
        edge_target_kind(target)
        out.add((rel, target))
    return tuple(sorted(out))


def _edges_payload(edges: tuple[tuple[str, str], ...]) -> dict[str, list[str]]:
    by: dict[str, list[str]] = {}
    for rel, target in edges:  # already sorted: each list comes out sorted
        by.setdefault(rel, []).append(target)
    return by


def _edges_from_payload(p: Any) -> tuple[tuple[str, str], ...]:
    """The ``edges`` map -> pairs; one encoding only: known relations, each a
    non-empty array of text in ascending code-point order without
    duplicates (raises CorruptObject)."""
    if not isinstance(p, dict) or not p:
        raise CorruptObject("field 'edges' must be a non-empty map (absent when there are none)")
    out = []
    for rel, targets in p.items():
        if rel not in EDGE_KINDS:
            raise CorruptObject(f"unknown edge relation {rel!r}")
        if not isinstance(targets, list) or not targets or not all(isinstance(t, str) for t in targets):
            raise CorruptObject(f"edges {rel!r} must be a non-empty array of text")
        if any(a >= b for a, b in zip(targets, targets[1:])):
            raise CorruptObject(f"edges {rel!r} must be sorted and without duplicates")
        out += [(rel, t) for t in targets]
    return tuple(sorted(out))


def _choice(value: str, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise InvalidInput(f"{what} must be one of {', '.join(allowed)}, not {value!r}")
    return value


class Fact(Frozen):
    """One version of a key.

    Attributes:
        key: validated key, e.g. ``project/api/port`` (see ``refs.validate_key``).
        kind: one of :data:`KINDS`.
        body: the value, any Unicode text.
        version: 1 for the first version, parent's version + 1 after.
        parent: id of the previous version, or None for version 1.
        valid_from: ms since epoch from which the value holds.
        recorded_at: ms since epoch when it was written.
        trust: one of :data:`TRUST_LEVELS`.
        sensitivity: one of :data:`SENSITIVITIES`.
        owner: who wrote it (``user``, an agent name, ...).
        sources: ids or URIs of the evidence (turn ids, files).
        pinned: pinned facts are always injected and never decay.
        curated: 0, or 1 when the owner promoted the fact to the curated tier,
            2 when also *standing* (loaded into every session block, ahead of
            other facts; ``mem promote``).  Optional in the payload: written
            only when not 0, so objects without it keep their ids.
        dormant: set by decay (``objstore.memory.decay``): searchable, never
            injected.  Optional in the payload: written only when true, so
            objects without it keep their ids.
        edges: typed links to other facts and turns, ``((relation, target),
            ...)`` sorted without duplicates: relation one of
            :data:`EDGE_KINDS`, target a fact key or a 64-hex object id (a
            turn, or one fact version).  Optional in the payload: written
            only when there are some (``objstore.memory.edges``).
        namespace: the namespace it was written in (``objstore.memory.scope``:
            a session id, ``<session>.agent-<id>`` for a sub-agent), or ""
            for none (shared by every session).  Optional in the payload:
            written only when not "".
    """

    TYPE: ClassVar[int] = 1
    TYPE_NAME: ClassVar[str] = "fact"
    FIELDS: ClassVar[tuple[str, ...]] = (
        "key", "kind", "body", "version", "parent", "valid_from", "recorded_at",
        "trust", "sensitivity", "owner", "sources", "pinned",
    )

    #: fields written only when set (so objects without them keep their ids)
    OPTIONAL: ClassVar[tuple[str, ...]] = ("forgotten", "dormant", "curated", "edges", "namespace")

    __slots__ = ("key", "kind", "body", "version", "parent", "valid_from", "recorded_at", "trust", "sensitivity",
                 "owner", "sources", "pinned", "forgotten", "dormant", "curated", "edges", "namespace")

    def __init__(self, key: str, kind: str, body: str, version: int, parent: str | None, valid_from: int,
                 recorded_at: int, trust: str = "user_stated", sensitivity: str = "private", owner: str = "user",
                 sources: tuple[str, ...] = (), pinned: bool = False, forgotten: int = 0, dormant: bool = False,
                 curated: int = 0, edges: tuple[tuple[str, str], ...] = (), namespace: str = "") -> None:
        set_fields(self, key, kind, body, version, parent, valid_from, recorded_at, trust, sensitivity, owner,
                   sources, pinned, forgotten, dormant, curated, edges, namespace)
        _choice(self.kind, KINDS, "kind")
        _choice(self.trust, TRUST_LEVELS, "trust")
        _choice(self.sensitivity, SENSITIVITIES, "sensitivity")
        _check_version(self)
        if self.curated not in (0, 1, 2):
            raise InvalidInput("curated must be 0, 1 (curated) or 2 (standing)")
        if self.edges:
            object.__setattr__(self, "edges", normalize_edges(self.edges))  # one order, one id

    @property
    def said_at(self) -> int:
        """When this value was said, ms since the epoch, for the rules
        that weigh it against turns ("a later turn says …"): a ``summary``
        (a sub-agent's rollup, ``objstore.capture.rollup``) at its
        ``valid_from``, which the rollup sets to the sub-agent's last turn
        (an import or catch-up writes it long after: test32 X20); any other
        version when it was recorded, or later when scheduled
        (``max(valid_from, recorded_at)``: a backfill is said when written)."""
        if self.kind == "summary" and 0 < self.valid_from:
            return self.valid_from
        return max(self.valid_from, self.recorded_at)

    def edges_of(self, relation: str) -> tuple[str, ...]:
        """The targets of this version's ``relation`` edges, sorted."""
        return tuple(t for r, t in self.edges if r == relation)

    def to_payload(self) -> dict[str, Any]:
        """The CBOR payload (see module doc)."""
        return {
            "key": self.key, "kind": self.kind, "body": self.body,
            "version": self.version, "parent": _raw_parent(self.parent),
            "valid_from": self.valid_from, "recorded_at": self.recorded_at,
            "trust": self.trust, "sensitivity": self.sensitivity,
            "owner": self.owner, "sources": list(self.sources), "pinned": self.pinned,
            **({"forgotten": self.forgotten} if self.forgotten else {}),
            **({"dormant": True} if self.dormant else {}),
            **({"curated": self.curated} if self.curated else {}),
            **({"edges": _edges_payload(self.edges)} if self.edges else {}),
            **({"namespace": self.namespace} if self.namespace else {}),
        }

    @classmethod
    def from_payload(cls, p: dict[str, Any]) -> Fact:
        """Build from a decoded payload; raises :class:`CorruptObject`."""
        _check_fields(p, cls.FIELDS, cls.OPTIONAL)
        sources = _need(p, "sources", list)
        if not all(isinstance(s, str) for s in sources):
            raise CorruptObject("sources must be strings")
        try:
            return cls(
                key=_need(p, "key", str), kind=_need(p, "kind", str),
                body=_need(p, "body", str), version=_need(p, "version", int),
                parent=_opt_parent(p.get("parent", b"")),
                valid_from=_need(p, "valid_from", int),
                recorded_at=_need(p, "recorded_at", int),
                trust=_need(p, "trust", str), sensitivity=_need(p, "sensitivity", str),
                owner=_need(p, "owner", str), sources=tuple(sources),
                pinned=_need(p, "pinned", bool),
                forgotten=_need(p, "forgotten", int) if "forgotten" in p else 0,
                dormant=_only_true(p, "dormant"),
                curated=(_need(p, "curated", int) or _zero_flag("curated")) if "curated" in p else 0,
                edges=_edges_from_payload(p["edges"]) if "edges" in p else (),
                namespace=(_need(p, "namespace", str) or _empty_text("namespace")) if "namespace" in p else "",
            )
        except InvalidInput as e:
            raise CorruptObject(f"invalid fact: {e}") from None


class Turn(Frozen):
    """One turn of a session (a user prompt, an assistant message, a tool result).

    Attributes:
        session: session id (subagents: ``<parent>.agent-<id>``).
        seq: 0-based position in the session chain.
        role: one of :data:`ROLES`.
        text: the captured text (tool output cut, see capture docs).
        timestamp: ms since epoch of the source record (0 if unknown).
        harness: the agent that wrote it, e.g. ``claude-code``.
        cwd: working directory of the agent ("" if unknown).
        project: project name ("" if unknown).
        source: stable id of the source record, for idempotent capture.
        parent: id of the previous turn of the session, or None.
        forgotten: ms when ``mem forget`` emptied it (0: never).
        entrypoint: what started the agent for this turn, as the agent
            records it (Claude Code: ``cli``, ``sdk-cli``, ``sdk-py``,
            ``claude-vscode``, …; "" unknown, read as interactive:
            :func:`interactive_entrypoint`).
        untrusted: written after the session read outside content (a web
            fetch, a file the person did not write): session taint,
            ``objstore.memory.provenance``.  Optional in the payload:
            written only when true.
    """

    TYPE: ClassVar[int] = 2
    TYPE_NAME: ClassVar[str] = "turn"
    FIELDS: ClassVar[tuple[str, ...]] = (
        "session", "seq", "role", "text", "timestamp", "harness", "cwd",
        "project", "source", "parent",
    )

    #: fields written only when set (so objects without them keep their ids)
    OPTIONAL: ClassVar[tuple[str, ...]] = ("forgotten", "entrypoint", "untrusted")

    __slots__ = ("session", "seq", "role", "text", "timestamp", "harness", "cwd", "project", "source", "parent",
                 "forgotten", "entrypoint", "untrusted")

    def __init__(self, session: str, seq: int, role: str, text: str, timestamp: int, harness: str, cwd: str,
                 project: str, source: str, parent: str | None, forgotten: int = 0, entrypoint: str = "",
                 untrusted: bool = False) -> None:
        set_fields(self, session, seq, role, text, timestamp, harness, cwd, project, source, parent, forgotten,
                   entrypoint, untrusted)
        _choice(self.role, ROLES, "role")
        if self.seq < 0:
            raise InvalidInput("seq must be >= 0")
        check_time(self.timestamp, "timestamp")

    #: :meth:`to_payload` gives its keys in canonical order and only int, text,
    #: bytes, bool and null values, so ``objstore.core.codec.encode`` need not sort
    PAYLOAD_IN_ORDER: ClassVar[bool] = True

    def to_payload(self) -> dict[str, Any]:
        """The CBOR payload (see module doc), its keys in the order of RFC 8949
        §4.2.1 (shorter first, then bytewise): the order a canonical encoder
        writes them in (the import encodes one turn per record: no sort)."""
        p = {"cwd": self.cwd, "seq": self.seq, "role": self.role, "text": self.text,
             "parent": None if self.parent is None else to_raw(self.parent), "source": self.source,
             "harness": self.harness, "project": self.project, "session": self.session}
        if self.forgotten:
            p["forgotten"] = self.forgotten
        p["timestamp"] = self.timestamp
        if self.untrusted:
            p["untrusted"] = True
        if self.entrypoint:
            p["entrypoint"] = self.entrypoint
        return p

    @classmethod
    def from_payload(cls, p: dict[str, Any]) -> Turn:
        """Build from a decoded payload; raises :class:`CorruptObject`."""
        _check_fields(p, cls.FIELDS, cls.OPTIONAL)
        try:
            return cls(
                session=_need(p, "session", str), seq=_need(p, "seq", int),
                role=_need(p, "role", str), text=_need(p, "text", str),
                timestamp=_need(p, "timestamp", int), harness=_need(p, "harness", str),
                cwd=_need(p, "cwd", str), project=_need(p, "project", str),
                source=_need(p, "source", str), parent=_opt_parent(p.get("parent", b"")),
                forgotten=_need(p, "forgotten", int) if "forgotten" in p else 0,
                entrypoint=(_need(p, "entrypoint", str) or _zero_flag("entrypoint")) if "entrypoint" in p else "",
                untrusted=_only_true(p, "untrusted"),
            )
        except InvalidInput as e:
            raise CorruptObject(f"invalid turn: {e}") from None


class Tombstone(Frozen):
    """A forgotten value: the key and the SHA-256 of its normalized value.

    It never holds the value itself.  A write whose :func:`value_digest`
    matches a tombstone of its key is refused unless stated by the user.

    Attributes:
        key: the key (for a turn: its source, or ``turn:<session>/<source>``
            for a text-derived one: ``objstore.memory.tombstones``).
        value_sha256: 32 bytes, :func:`value_digest` of the value.
        time: ms since epoch of the forget.
        reason: free text, e.g. ``forget``.
    """

    TYPE: ClassVar[int] = 3
    TYPE_NAME: ClassVar[str] = "tombstone"
    FIELDS: ClassVar[tuple[str, ...]] = ("key", "value_sha256", "time", "reason")

    __slots__ = ("key", "value_sha256", "time", "reason")

    def __init__(self, key: str, value_sha256: bytes, time: int, reason: str = "forget") -> None:
        set_fields(self, key, value_sha256, time, reason)
        if len(self.value_sha256) != 32:
            raise InvalidInput("value_sha256 must be 32 bytes")
        check_time(self.time, "time")

    def to_payload(self) -> dict[str, Any]:
        """The CBOR payload (see module doc)."""
        return {"key": self.key, "value_sha256": self.value_sha256,
                "time": self.time, "reason": self.reason}

    @classmethod
    def from_payload(cls, p: dict[str, Any]) -> Tombstone:
        """Build from a decoded payload; raises :class:`CorruptObject`."""
        _check_fields(p, cls.FIELDS)
        try:
            return cls(key=_need(p, "key", str), value_sha256=_need(p, "value_sha256", bytes),
                       time=_need(p, "time", int), reason=_need(p, "reason", str))
        except InvalidInput as e:
            raise CorruptObject(f"invalid tombstone: {e}") from None


#: every age v1 file (binary form) starts with this line (https://c2sp.org/age)
AGE_INTRO = b"age-encryption.org/v1\n"


class Sealed(Frozen):
    """One sealed version of a key: the metadata of a fact in the clear and
    its value only as an age v1 file (encrypted to the vault's recipient).

    The plaintext is never part of the object; reading it needs the vault
    identity (``objstore.vault.sealed``).  Sealed versions of a key chain by
    ``parent`` like facts, under their own ref ``sealed/<key>``.

    Attributes:
        key: validated key.  kind, trust, owner: as in :class:`Fact`.
        version: 1 for the first version, parent's version + 1 after.
        parent: id of the previous sealed version, or None.
        valid_from, recorded_at: ms since epoch, as in :class:`Fact`.
        age: the whole age v1 file (binary form, starts with
            ``age-encryption.org/v1\\n``) whose plaintext is the UTF-8 value.
    """

    TYPE: ClassVar[int] = 5
    TYPE_NAME: ClassVar[str] = "sealed"
    FIELDS: ClassVar[tuple[str, ...]] = (
        "key", "kind", "version", "parent", "valid_from", "recorded_at", "trust", "owner", "age",
    )

    __slots__ = ("key", "kind", "version", "parent", "valid_from", "recorded_at", "trust", "owner", "age")

    def __init__(self, key: str, kind: str, version: int, parent: str | None, valid_from: int, recorded_at: int,
                 trust: str, owner: str, age: bytes) -> None:
        set_fields(self, key, kind, version, parent, valid_from, recorded_at, trust, owner, age)
        _choice(self.kind, KINDS, "kind")
        _choice(self.trust, TRUST_LEVELS, "trust")
        _check_version(self)
        if not isinstance(self.age, bytes) or not self.age.startswith(AGE_INTRO):
            raise InvalidInput("age must be a binary age v1 file")

    def to_payload(self) -> dict[str, Any]:
        """The CBOR payload (see module doc)."""
        return {
            "key": self.key, "kind": self.kind, "version": self.version,
            "parent": _raw_parent(self.parent), "valid_from": self.valid_from,
            "recorded_at": self.recorded_at, "trust": self.trust, "owner": self.owner,
            "age": self.age,
        }

    @classmethod
    def from_payload(cls, p: dict[str, Any]) -> Sealed:
        """Build from a decoded payload; raises :class:`CorruptObject`."""
        _check_fields(p, cls.FIELDS)
        try:
            return cls(
                key=_need(p, "key", str), kind=_need(p, "kind", str),
                version=_need(p, "version", int), parent=_opt_parent(p.get("parent", b"")),
                valid_from=_need(p, "valid_from", int), recorded_at=_need(p, "recorded_at", int),
                trust=_need(p, "trust", str), owner=_need(p, "owner", str),
                age=_need(p, "age", bytes),
            )
        except InvalidInput as e:
            raise CorruptObject(f"invalid sealed version: {e}") from None


QUEUE_KINDS = ("challenge", "injection", "conflict", "memory-edit", "contradiction")


def queue_item_id(kind: str, key: str, body: str) -> str:
    """The id of a review-queue item: blake3 (64 hex) of the canonical CBOR
    array ``["mem queue item", kind, key, normalize_value(body)]``.

    It depends only on why the item was queued, the key and the normalized
    value, so a repeated proposal maps to the same item (queued once).  It is
    not the id of the :class:`QueueItem` object, which also holds the time
    and provenance of the first proposal.
    """
    return hash_bytes(cbor2.dumps(["mem queue item", kind, key, normalize_value(body)], canonical=True))


class QueueItem(Frozen):
    """A proposal waiting for a person's review (``objstore.memory.queue``): "set
    ``key`` to ``body``", parked instead of written.

    Attributes:
        kind: why it is queued, one of :data:`QUEUE_KINDS`: ``challenge``
            (a lower-trust write against a ``user_stated`` value),
            ``injection`` (the value reads like an instruction to a model),
            ``conflict`` (``other`` holds a value that contradicts ``key``'s),
            ``contradiction`` (``other`` was written with a ``contradicts``
            edge to ``key``; ``body`` is ``other``'s value: accept keeps it,
            reject keeps ``key``'s; ``objstore.memory.queue``),
            ``memory-edit`` (an agent's edit of a memory file; ``body`` is the
            edit plan as JSON, ``objstore.memory.memfiles``).
        key: the key the proposal is for.
        body: the proposed value.
        fact_kind: the fact kind the write would have had (:data:`KINDS`).
        trust: the trust of the proposing write (:data:`TRUST_LEVELS`).
        sensitivity: as in :class:`Fact`.
        owner: who proposed it.
        sources: evidence of the proposing write.
        other: for ``conflict`` and ``contradiction`` the other key, else "".
        note: a human-readable reason (e.g. the instruction pattern matched).
        time: ms since epoch when it was queued.
    """

    TYPE: ClassVar[int] = 4
    TYPE_NAME: ClassVar[str] = "queue item"
    FIELDS: ClassVar[tuple[str, ...]] = (
        "kind", "key", "body", "fact_kind", "trust", "sensitivity", "owner", "sources",
        "other", "note", "time",
    )

    __slots__ = ("kind", "key", "body", "fact_kind", "trust", "sensitivity", "owner", "sources", "other", "note",
                 "time")

    def __init__(self, kind: str, key: str, body: str, fact_kind: str, trust: str, sensitivity: str = "private",
                 owner: str = "", sources: tuple[str, ...] = (), other: str = "", note: str = "",
                 time: int = 0) -> None:
        set_fields(self, kind, key, body, fact_kind, trust, sensitivity, owner, sources, other, note, time)
        _choice(self.kind, QUEUE_KINDS, "queue item kind")
        _choice(self.fact_kind, KINDS, "kind")
        _choice(self.trust, TRUST_LEVELS, "trust")
        _choice(self.sensitivity, SENSITIVITIES, "sensitivity")
        check_time(self.time, "time")

    @property
    def item_id(self) -> str:
        """:func:`queue_item_id` of this item (the name of its ref)."""
        return queue_item_id(self.kind, self.key, self.body)

    def to_payload(self) -> dict[str, Any]:
        """The CBOR payload (see module doc)."""
        return {
            "kind": self.kind, "key": self.key, "body": self.body, "fact_kind": self.fact_kind,
            "trust": self.trust, "sensitivity": self.sensitivity, "owner": self.owner,
            "sources": list(self.sources), "other": self.other, "note": self.note, "time": self.time,
        }

    @classmethod
    def from_payload(cls, p: dict[str, Any]) -> QueueItem:
        """Build from a decoded payload; raises :class:`CorruptObject`."""
        _check_fields(p, cls.FIELDS)
        sources = _need(p, "sources", list)
        if not all(isinstance(s, str) for s in sources):
            raise CorruptObject("sources must be strings")
        try:
            return cls(
                kind=_need(p, "kind", str), key=_need(p, "key", str), body=_need(p, "body", str),
                fact_kind=_need(p, "fact_kind", str), trust=_need(p, "trust", str),
                sensitivity=_need(p, "sensitivity", str), owner=_need(p, "owner", str),
                sources=tuple(sources), other=_need(p, "other", str), note=_need(p, "note", str),
                time=_need(p, "time", int),
            )
        except InvalidInput as e:
            raise CorruptObject(f"invalid queue item: {e}") from None


MemObject = Fact | Turn | Tombstone | QueueItem | Sealed

#: type code -> class; codes 6..15 are reserved (docs/format.md).
TYPES: dict[int, type] = {Fact.TYPE: Fact, Turn.TYPE: Turn, Tombstone.TYPE: Tombstone,
                          QueueItem.TYPE: QueueItem, Sealed.TYPE: Sealed}
TYPE_NAMES: dict[str, type] = {c.TYPE_NAME: c for c in TYPES.values()}
