"""Sealed secrets: an age v1 vault that needs no passphrase to seal and a
passphrase to read (``docs/vault.md``).

The vault of a store (its public recipient, and its identity encrypted to
the vault passphrase) is :mod:`objstore.vault.identity`; the walking and
reading of sealed version chains is :mod:`objstore.vault.chains`.

A *sealed version* (``objects.Sealed``, type 5) keeps a fact's metadata in the
clear and its value only as an age file encrypted to the recipient; the
versions of a sealed key chain by ``parent`` under ``refs/sealed/<key>``.
Writing one needs only the recipient (no passphrase, no decryption: the next
version number comes from the head's metadata).  Reading needs the identity,
hence the passphrase.  A key is plain (``refs/facts/<key>``) or sealed, never
both: :func:`seal_key` turns a plain key into a sealed one and removes the
plaintext with ``forget.forget_key``; :func:`unseal_key` does the reverse.

Sealed values never enter the search index: they are not facts, and nothing
that indexes, recalls or injects facts reads ``refs/sealed``.

The age implementation (``objstore.vault.age``, hence ``cryptography``) is imported
only by the functions that encrypt or decrypt, never when this module is
imported, so checking whether a key is sealed costs nothing.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace

from objstore.core.errors import (PERSON_ONLY_HINT, CorruptObject, IntegrityError, InvalidInput, NotFound,
                                  RefConflict, Refused, WrongPassphrase)
from objstore.core.ids import check_prefix
from objstore.core.objects import (KINDS, LOST_SOURCE, Fact, Sealed, Tombstone, forgotten_sealed_age,
                                   forgotten_stub_time, is_lost_stub, lost_sealed_age, value_digest)
from objstore.core.refs import fact_ref, refuse_if_credential, sealed_ref, validate_key
from objstore.core.store import Store, now_ms
from objstore.memory.facts import DEFAULT_KIND, Version, check_text, commit_version, own_chain, walk
from objstore.memory.served import is_sealed, refuse_if_sealed, sealed_head  # noqa: F401 - re-exported
from objstore.memory import forget
from objstore.memory.forgetplan import check_previewed
from objstore.memory.lost import lost_current
from objstore.memory.sealrules import add_rules, drop_rules, forget_rules, load as load_rules, save as save_rules
from objstore.memory.sealrulefile import check_writable
from objstore.memory.sealsources import quoted_forms, withhold_quoting_turns, withhold_source_turns
from objstore.memory.validity import plain_valid_from
from objstore.memory.tombstones import tombstones_for, withdraw_plain
from objstore.memory.withdrawals import UNSEALED_SOURCE
from objstore.memory.writechecks import check_key_credentials, check_key_lookalike, check_memory_file_write
from objstore.vault.chains import SealedVersion, current_sealed, is_empty_place, sealed_versions, walk_sealed
from objstore.vault.identity import DAMAGED_VAULT_HINT, record_pair, sealing_recipient


@dataclass(frozen=True, slots=True)
class SealedWrite:
    """Outcome of :func:`remember_sealed` / :func:`import_sealed`.

    Attributes:
        version: the new sealed version.  previous: the head before, or None.
        current: id of the key's current sealed version after the write
            (None: a lost value still outranks it, :func:`current_sealed`).
        turns_quoting: turns of this store captured before the write that
            quoted the value, rewritten with it withheld
            (``memory.sealsources.withhold_quoting_turns``).
        other_recipients: (:func:`~.imported.import_sealed`) how many
            recipients besides the vault the imported file was encrypted
            to: they can read that file (the store's copy is the vault's alone).
    """

    key: str
    version: SealedVersion
    previous: str | None
    current: str | None
    turns_quoting: int = 0
    other_recipients: int = 0


@dataclass
class SealResult:
    """What :func:`seal_key` did.

    Attributes:
        sealed: ``(sealed id, version number)`` of every sealed version written.
        removed: ``(fact id, version number)`` of every plaintext version removed.
        already: the key was sealed already (nothing to do).
        index_problems: what the index purge check found (empty = clean).
        lost: version numbers of 'lost' placeholders (``mem fsck --repair``'s)
            whose places were kept as sealed lost stubs (among ``sealed``).
        forgotten: the version number of the forgotten newest version kept
            as a sealed forgotten stub (among ``sealed``), or None.
        turns_withheld: turns of this store the plain versions cited as
            their source (the "remember that" prompt) that held the value,
            rewritten in their place with it withheld
            (``memory.sealsources``).
        turns_quoting: other turns of this store quoting the value (an
            agent's reply, a later question), rewritten the same way.
        queue_dropped: ids of the key's review-queue proposals withdrawn
            with the plain versions (a proposal holds its value in the
            clear; each audited as ``seal: proposal dropped``).
    """

    key: str
    sealed: list[tuple[str, int]] = field(default_factory=list)
    lost: list[int] = field(default_factory=list)
    forgotten: int | None = None
    removed: list[tuple[str, int]] = field(default_factory=list)
    already: bool = False
    objects_deleted: int = 0
    index_problems: list[str] = field(default_factory=list)
    turns_withheld: int = 0
    turns_quoting: int = 0
    queue_dropped: list[str] = field(default_factory=list)


@dataclass
class UnsealResult:
    """What :func:`unseal_key` did: ``restored`` ``(fact id, version)`` of
    the plain versions written, ``dropped`` sealed object count;
    ``credentials`` ``{rule name: count}`` over the restored versions that
    held a credential (:func:`credential_versions`) and ``credential_in``
    their version numbers, both empty when none did; ``redacted``: those
    were restored with each credential replaced (``credentials="redact"``)."""

    key: str
    restored: list[tuple[str, int]] = field(default_factory=list)
    dropped: int = 0
    index_error: str | None = None
    credentials: dict[str, int] = field(default_factory=dict)
    credential_in: list[int] = field(default_factory=list)
    redacted: bool = False

    @property
    def rules_said(self) -> str:
        """:func:`rules_said` of ``credentials``."""
        return rules_said(self.credentials)


#: what :func:`unseal_key` does with a version holding a credential
UNSEAL_CREDENTIALS = ("refuse", "keep", "redact")


def credential_versions(key: str, texts: dict[int, str]) -> tuple[dict[int, object], dict[str, int]]:
    """The versions of ``texts`` (``{version: value}`` of ``key``) that hold
    a credential by the rules every plain writer applies
    (``core.redact.redact_named``: the text rules, and the whole value under
    a key named for a credential): ``({version: RedactResult}, {rule name:
    count})``, both empty when none does.  Never holds a value beyond the
    results' redacted texts."""
    from objstore.core.redact import redact_named  # deferred: the redaction rules compile at import
    hits: dict[int, object] = {}
    rules: dict[str, int] = {}
    for n, text in texts.items():
        r = redact_named(text, key)
        if r.hits:
            hits[n] = r
            for rule, c in r.counts.items():
                rules[rule] = rules.get(rule, 0) + c
    return hits, rules


def rules_said(rules: dict[str, int]) -> str:
    """``github-token x2, named-secret`` (rule names, sorted; never a value)."""
    return ", ".join(f"{r} x{n}" if n > 1 else r for r, n in sorted(rules.items()))


# --------------------------------------------------------------------------- the values' age files


def encrypt_value(recipient: str, body: str) -> bytes:
    """The age file (binary) of the UTF-8 of ``body`` for ``recipient``.

    One X25519 (or hybrid) stanza, one STREAM chunk for a value up to 64 KiB:
    well under a millisecond for 1 KB (``docs/benchmarks.md``)."""
    from objstore.vault import age  # deferred: imports cryptography
    try:
        return age.encrypt(body.encode("utf-8"), [recipient])
    except age.AgeKeyError as e:   # a damaged vault/recipient: said as damage, not an internal error (test40 T11)
        raise CorruptObject(f"vault/recipient is damaged: {e}", hint=DAMAGED_VAULT_HINT) from None


def armor(age_file: bytes) -> bytes:
    """The ASCII-armored (PEM, ``-----BEGIN AGE ENCRYPTED FILE-----``) form
    of a binary age file, as ``age -a`` writes it."""
    from objstore.vault import age  # deferred: imports cryptography
    return age.armor_encode(age_file)


def open_value(identities: list[str], sv: SealedVersion) -> bytes:
    """The plaintext bytes of a sealed version.

    Raises:
        WrongPassphrase: the age file is not encrypted to these identities
            (e.g. an imported file made for another key).
        IntegrityError: the age file is damaged or was tampered with.
    """
    if is_lost_stub(sv.sealed):
        raise IntegrityError(f"{sv.sealed.key} v{sv.sealed.version} was lost to damage (a 'lost' placeholder "
                             "kept by mem fsck --repair): it holds no value")
    if forgotten_stub_time(sv.sealed) is not None:
        raise NotFound(f"{sv.sealed.key} v{sv.sealed.version} was forgotten (mem forget): it holds no value")
    from objstore.vault import age  # deferred: imports cryptography
    try:
        return age.decrypt(sv.sealed.age, identities)
    except age.NoIdentityMatched:
        raise WrongPassphrase(f"{sv.sealed.key} v{sv.sealed.version} is not encrypted to this vault's key",
                              hint="it was imported from a file made for another recipient") from None
    except age.AgeError as e:
        raise IntegrityError(f"{sv.sealed.key} v{sv.sealed.version} ({sv.id[:12]}): damaged age file: {e}") from None


def open_text(identities: list[str], sv: SealedVersion) -> str:
    """:func:`open_value` decoded as UTF-8 (InvalidInput when it is not text)."""
    data = open_value(identities, sv)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{sv.sealed.key} v{sv.sealed.version} is not UTF-8 text "
                           f"({len(data)} bytes)", hint="mem sealed show --raw writes its exact bytes") from None


def rebuild_rules(store: Store, identities: list[str]) -> tuple[int, int]:
    """Write the local seal rules (``memory.sealrules.add_rules``) of every
    version of every sealed key again, from its decrypted value, as
    ``mem seal`` wrote them (``sealsources.quoted_forms``): what ``mem
    sealed rebuild-rules`` does after ``seal-rules`` was deleted, cut
    short or damaged, or for a key sealed before session 34 (test34b T23;
    ``sealrules.rules_problem``).  A file whose head is damaged is replaced
    (a new random key); else its lines that parse are kept (the rules of
    forgotten values among them: those cannot be rebuilt) and it is written
    whole again.  A lost or forgotten version holds no value and is skipped.
    Returns ``(sealed keys, rules added)``.  Takes the store lock.
    Raises WrongPassphrase, IntegrityError (a damaged age file), OSError."""
    keys = sorted(name[len("sealed/"):] for name, _h in store.refs.iter("sealed"))
    added = 0
    with store.lock("seal"):
        for key in keys:
            for sv in sealed_versions(store, key):
                if is_empty_place(sv.sealed):
                    continue
                body = open_value(identities, sv).decode("utf-8", "surrogateescape")
                added += add_rules(store, key, quoted_forms(body, said_secret=True))
        record_pair(store)   # every sealed value opened: this vault is the store's own (test41 T20)
        rules = load_rules(store)
        if rules is not None:   # what parses, written whole again: a cut or bad line goes (test35b T3: it stayed,
            save_rules(store, rules)   # and the warning naming this command never cleared)
    return len(keys), added


# --------------------------------------------------------------------------- reading metadata


def _plain_versions(store: Store, key: str, *, lost: bool = False) -> list[Version]:
    """The plain versions of ``key`` that still hold a value (newest first);
    versions emptied by a forget are left out, and so are ``mem fsck
    --repair``'s 'lost' placeholders unless ``lost`` (their places count)."""
    head = store.refs.read(fact_ref(key))
    if head is None:
        return []
    return [v for v in walk(store, head)
            if not getattr(v.fact, "forgotten", 0) or (lost and is_lost_stub(v.fact))]


def _kept(chain: list[SealedVersion]) -> list[SealedVersion]:
    """``chain`` without its forgotten stubs (what a plain chain's
    :func:`_plain_versions` ``lost=True`` matches)."""
    return [s for s in chain if forgotten_stub_time(s.sealed) is None]


def _lost_id(f: Fact) -> str | None:
    """The lost version's id a plain 'lost' placeholder names (``lost:<id>``), or None."""
    for m in f.sources:
        tail = m[len(LOST_SOURCE):] if m.startswith(LOST_SOURCE) else ""
        if len(tail) == 64 and all(c in "0123456789abcdef" for c in tail):
            return tail
    return None


def _plain_lost_stub(m: Sealed, parent: str | None) -> Fact:
    """The plain 'lost' placeholder standing for sealed lost stub ``m``
    (``unseal_key``; the inverse of ``seal_key``'s mapping): emptied,
    ``forgotten`` set, its source ``lost:<id>`` of the lost version when the
    stub names it (``lost_sealed_age``), else ``lost``."""
    tail = m.age[len(lost_sealed_age(None)) - 1:].strip()
    lost = tail.decode("ascii", "replace") if len(tail) == 64 else ""
    return Fact(key=m.key, kind=m.kind, body="", version=m.version, parent=parent, valid_from=m.valid_from,
                recorded_at=m.recorded_at, trust=m.trust, sensitivity="private", owner=m.owner,
                sources=(f"{LOST_SOURCE}{lost}" if lost else "lost",), forgotten=max(m.recorded_at, 1))


def _meta(x) -> tuple:
    return (x.version, x.valid_from, x.recorded_at, x.kind, x.trust, x.owner)


def _same_versions(plain: list[Version], chain: list[SealedVersion]) -> bool:
    """True when the plain versions (:func:`_plain_versions`) are the sealed
    ones (``chain`` less its forgotten stubs), by :func:`_meta`: an unseal
    wrote them all, or a seal copied them all."""
    return [_meta(v.fact) for v in reversed(plain)] == [_meta(s.sealed) for s in reversed(_kept(chain))]


# --------------------------------------------------------------------------- writing


def _write_sealed(store: Store, key: str, age_file: bytes, *, kind: str | None, trust: str,
                  valid_from: int | None, owner: str, expect: str | None, command: str) -> SealedWrite:
    """Append a sealed version (caller holds the lock and checked the vault)."""
    check_memory_file_write(key, trust)      # soul.md & co are the person's, sealed or not
    if _plain_versions(store, key):
        raise Refused(f"{key} holds plain values: a sealed version next to them would leave them in the clear",
                      hint=f"seal the whole key first: mem seal {key}")
    ref = sealed_ref(key)
    old = store.refs.read(ref)
    if expect is not None:
        want = None if expect.lower() in ("none", "0") else check_prefix(expect)
        if (want is None) != (old is None) or (want is not None and not old.startswith(want)):
            raise RefConflict(ref, expect, old)
    prev = walk_sealed(store, old, key)[0].sealed if old else None   # (never on another key's chain: test31b V1, V8)
    if trust != "user_stated" and old is not None:
        before = walk_sealed(store, old)
        cur = current_sealed(before) or lost_current(before)   # a lost value's stub carries its trust
        if cur is not None and cur.sealed.trust == "user_stated":
            # as a plain key's lower-trust write is queued instead of overruling the person; a sealed
            # value is not queued (the queue shows values): refused, nothing written
            raise Refused(f"{key}: a sealed value written {trust} does not replace the user_stated one; nothing written",
                          hint="sealed writes are not queued for review: the user writes it, or writes it "
                               "with --trust user_stated if they mean it",
                          agent_hint=PERSON_ONLY_HINT)
    now = now_ms()
    if valid_from is None:   # after the versions it supersedes, whatever the clocks (objstore.memory.validity)
        valid_from = plain_valid_from(((v.sealed.valid_from, v.sealed.recorded_at)
                                       for v in (walk_sealed(store, old) if old else ())), now)
    s = Sealed(key=key, kind=kind or (prev.kind if prev else DEFAULT_KIND[key.split("/", 1)[0]]),
               version=(prev.version + 1) if prev else 1, parent=old,
               valid_from=valid_from, recorded_at=now,
               trust=trust, owner=owner, age=age_file)
    oid = store.put(s)
    store.update_ref(ref, old, oid, command, time_ms=now)
    chain = [SealedVersion(oid, s), *(walk_sealed(store, old) if old else [])]
    cur = current_sealed(chain)
    return SealedWrite(key, SealedVersion(oid, s), old, cur.id if cur is not None else None)


def _check_kind(kind: str | None) -> None:
    if kind is not None and kind not in KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")


def remember_sealed(store: Store, key: str, body: str, *, kind: str | None = None,
                    trust: str = "user_stated", valid_from: int | None = None, owner: str = "user",
                    expect: str | None = None, command: str = "remember --sensitivity secret") -> SealedWrite:
    """Write a new sealed version of ``key``: ``body`` is encrypted in memory
    to the vault recipient and only the age file is stored.  No passphrase.

    The plaintext reaches no file: not an object, not the search index, not
    the journal (no index document changes), not the reflog (ids only).
    Its local seal rules are written (``memory.sealrules.add_rules``), so
    a turn captured later quoting the value stores it withheld, and each
    turn already stored quoting it is rewritten with it withheld
    (``SealedWrite.turns_quoting``).

    Args:
        key, kind, trust, valid_from, owner: as ``facts.remember``.
        expect: compare-and-set on the sealed head (full id or prefix, or
            ``"none"``).
    Returns:
        :class:`SealedWrite`.
    Raises:
        NotFound: the store has no vault.
        Refused: the key holds plain values (seal it first with
            :func:`seal_key`), a lower-trust write of a forgotten value, or
            a lower-trust write over a ``user_stated`` current sealed value
            (sealed values are not queued for review).
        InvalidInput (also a key that holds a credential or reads as another:
            ``writechecks.check_key_credentials``, ``check_key_lookalike``), RefConflict, StoreLocked.
    """
    key = validate_key(key)
    check_key_credentials(key)   # (test39b B13: a credential as a sealed key's name went to refs/ and the audit log)
    check_key_lookalike(key)
    check_text(body)
    _check_kind(kind)
    with store.lock(command):
        recipient = sealing_recipient(store)
        if trust != "user_stated":
            digest = value_digest(body)
            if any(t.value_sha256 == digest for t in tombstones_for(store, key)):
                raise Refused(f"{key}: this value was forgotten; only a user_stated write may bring it back",
                              hint="use --trust user_stated if you mean it",
                              agent_hint=PERSON_ONLY_HINT)
        age_file = encrypt_value(recipient, body)
        got = _write_sealed(store, key, age_file, kind=kind, trust=trust, valid_from=valid_from,
                            owner=owner, expect=expect, command=command)
        return _withhold_value(store, got, body)


def _withhold_value(store: Store, got: SealedWrite, body: str) -> SealedWrite:
    """After a sealed write of ``body`` (store lock held): its seal rules, so a later turn quoting it withholds it
    (test34 T4), and the turns already stored quoting it rewritten with it withheld (test37b T20)."""
    add_rules(store, got.key, quoted_forms(body, said_secret=True))
    return replace(got, turns_quoting=withhold_quoting_turns(store, body))


def _drop_seal_tombstones(store: Store, key: str) -> None:
    """Remove the tombstones a seal left for ``key``: a SHA-256 of a short
    secret (a PIN) is as good as the secret, and a sealed value is kept, not
    forgotten.  Tombstones of real forgets stay."""
    for name, oid in list(store.refs.iter("tombstones")):
        t = store.get(oid, Tombstone)
        if t.key == key and t.reason == "seal":
            store.update_ref(name, oid, None)
            store.delete_object(oid)


def _forgotten_top(store: Store, key: str, kept: int) -> Version | None:
    """The newest version of ``key``'s plain chain when a forget emptied it
    and it is numbered above ``kept`` (the newest version holding a value or
    a lost stub), else None."""
    head = store.refs.read(fact_ref(key))
    top = next(iter(walk(store, head)), None) if head else None
    if top is None or top.fact.version <= kept or not top.fact.forgotten or is_lost_stub(top.fact):
        return None
    return top


def seal_key(store: Store, key: str, *, previewed: AbstractSet[str] | None = None) -> SealResult:
    """Seal every plain version of ``key``, then remove the plaintext.

    Order (each step safe to crash after; rerunning finishes the job):

    1. encrypt every version (oldest first) to the vault recipient as
       sealed versions keeping version, valid_from, recorded_at, kind, trust
       and owner, and point ``refs/sealed/<key>`` at the newest;
    2. the turns the plain versions cite as their source that hold the
       value (a "remember that" prompt) are rewritten in place with it
       withheld (``memory.sealsources.withhold_source_turns``); then
       ``forget.forget_key`` (reason ``seal``) removes the plain versions:
       ref, reflog, physical index purge, loose and packed objects;
    3. the tombstones step 2 wrote are removed (see
       :func:`_drop_seal_tombstones`).

    Between steps 1 and 2 a withdrawal record of every plain version
    holding a value is written (``tombstones.withdraw_plain``: a hash of
    its metadata, never of the value), which takes the other machines'
    plain copies at their next pull or push (docs/vault.md, "Other
    machines").

    Before step 1 the seal is noted in ``forget-unfinished`` (kind
    ``what``, command ``seal``; ``objstore.core.unfinished``), fsynced; step 2
    deletes the note.  Stopped after step 1 and before step 2 the key is
    both plain and sealed with the same metadata: the next opening of the
    store finishes step 2 (``objstore.memory.sealstop``) before anything
    reads it, and :func:`seal_key` run again resumes at step 2; until
    then fsck and doctor name it and push, backup and export refuse.  No passphrase
    is needed.  Versions emptied by an earlier forget are not sealed: below
    the newest kept version they leave a gap (:func:`unseal_key` fills it);
    above it the newest keeps its place as a forgotten stub
    (``objects.forgotten_sealed_age``), so the numbering survives.

    ``previewed``: the ids of the versions a preview the person approved
    showed (the MCP ``seal`` tool's confirm token); a plain version not
    among them (written since) seals nothing (``check_previewed``).

    Raises:
        NotFound: no vault, or no such key.
        Refused: the key has sealed versions that differ from its plain ones.
        IntegrityError: the vault is not the recorded pair, or no pair is
            recorded while values are sealed (``identity.sealing_recipient``).
        ChangedSincePreview: ``previewed`` lacks a version it would seal.
        InvalidInput, StoreLocked.
    """
    key = validate_key(key)
    with store.lock("seal"):
        recipient = sealing_recipient(store, removes_plain=True)   # (fresh43 F15)
        check_writable(store)   # a folder for seal-rules: refused before any change (fresh44 F14)
        if (head := store.refs.read(fact_ref(key))) is not None:   # the newest value is not sealed alone, or
            store.refuse_set_back(fact_ref(key), head)              # dropped (test40 T7): nothing done
        plain = _plain_versions(store, key, lost=True)
        if previewed is not None:
            check_previewed(previewed, {v.id for v in plain}, verb="seal", done="sealed")
        sref = sealed_ref(key)
        shead = store.refs.read(sref)
        res = SealResult(key)
        if not plain:
            if shead is None:
                refuse_if_credential(key, "key")
                raise NotFound(f"no key {key}", hint="list keys with: mem keys")
            if store.refs.read(fact_ref(key)) is not None:  # only emptied versions remain
                res.queue_dropped = list(forget.forget_key(store, key, reason="seal", tombstones=False).queue_dropped)
            store.unfinished.done("what", key)     # a seal stopped after its plain copy went
            _drop_seal_tombstones(store, key)
            res.already = True
            return res
        oldest_first = list(reversed(plain))
        if shead is not None:
            chain = walk_sealed(store, shead, key)
            if [_meta(s.sealed) for s in reversed(_kept(chain))] != [_meta(v.fact) for v in oldest_first]:
                raise Refused(f"{key} is both plain and sealed, with different versions",
                              hint=f"read both (mem log {key}; mem sealed show {key} --all) and forget one")
            res.sealed = [(s.id, s.sealed.version) for s in reversed(chain)]
            res.forgotten = next((s.sealed.version for s in chain if forgotten_stub_time(s.sealed) is not None), None)
        else:
            # noted durably before the sealed ref moves (test24 T1: killed between that and the forget's
            # own note, the key was both, every reader but get served the plaintext and fsck said ok):
            # the next opening of the store finishes it (objstore.memory.sealstop), fsck and doctor name it
            store.unfinished.mark("what", key, now_ms(), "seal")
            parent = None
            for v in oldest_first:
                f = v.fact
                # a lost placeholder keeps its place as a sealed one: sealing must not make the older value current
                age = lost_sealed_age(_lost_id(f)) if is_lost_stub(f) else encrypt_value(recipient, f.body)
                s = Sealed(key=key, kind=f.kind, version=f.version, parent=parent, valid_from=f.valid_from,
                           recorded_at=f.recorded_at, trust=f.trust, owner=f.owner, age=age)
                parent = store.put(s)
                res.sealed.append((parent, f.version))
            # a forget that emptied the newest versions: the top one keeps its place as a forgotten stub (the
            # gaps below it, as every other emptied version's, are filled again by unseal_key)
            top = _forgotten_top(store, key, plain[0].fact.version)
            if top is not None:
                f = top.fact
                s = Sealed(key=key, kind=f.kind, version=f.version, parent=parent, valid_from=f.valid_from,
                           recorded_at=f.recorded_at, trust=f.trust, owner=f.owner,
                           age=forgotten_sealed_age(f.forgotten))
                parent = store.put(s)
                res.sealed.append((parent, f.version))
                res.forgotten = f.version
            store.update_ref(sref, None, parent, "seal")
        res.lost = [v.fact.version for v in oldest_first if is_lost_stub(v.fact)]
        # the cited "remember that" prompts hold the value (U7): withheld in place first, while the
        # plain versions still name them (a stopped seal's finish does the same); their ids change
        ids = {v.fact.version: v.id for v in plain}
        res.turns_withheld, res.turns_quoting = withhold_source_turns(store, [v.fact for v in plain])
        withdraw_plain(store, key, [v.fact for v in plain])   # before they go (a stopped seal's finish does too)
        fr = forget.forget_key(store, key, reason="seal", tombstones=False)
        res.removed = [(ids.get(n, i), n) for i, n in fr.versions]   # the ids a push may have sent
        res.objects_deleted = fr.objects_deleted
        res.queue_dropped = list(fr.queue_dropped)
        res.index_problems = list(fr.index_problems)
        _drop_seal_tombstones(store, key)
        return res


def _drop_sealed(store: Store, key: str, chain: list[SealedVersion]) -> int:
    store.update_ref(sealed_ref(key), chain[0].id, None, rewrite=True)  # the ref and its whole reflog go
    return store.delete_objects([s.id for s in chain])


def unseal_key(store: Store, key: str, identities: list[str], *, credentials: str = "refuse") -> UnsealResult:
    """Restore every sealed version of ``key`` as a plain ``private`` fact
    (same version numbers, valid_from, recorded_at, kind, trust, owner),
    index the current one, then delete the sealed versions and the key's
    local seal rules (``memory.sealrules.drop_rules``).

    Every version is decrypted before anything is written, so a wrong key
    changes nothing.  A crash after the plain versions are written leaves
    both; rerunning finishes by dropping the sealed ones.

    A version holding a credential (:func:`credential_versions`, the rules
    every plain writer redacts by; test17 T17: unseal wrote one back plain,
    indexed, injected and pushable, with no word): ``credentials`` says
    what to do: ``"refuse"`` (the default) raises Refused, naming how many
    versions and which rules (never a value), before anything is written;
    ``"keep"`` restores them as they are (the person's decision); ``"redact"``
    restores them with each credential replaced by ``[REDACTED:<rule>]``
    (the sealed copy is then deleted: the credential is gone from the store).

    Args:
        identities: from ``identity.open_identity``.
        credentials: one of :data:`UNSEAL_CREDENTIALS`.
    Raises:
        NotFound (not sealed), WrongPassphrase, IntegrityError, InvalidInput
        (a version is not UTF-8 text; an unknown ``credentials``), Refused
        (the key also has different plain versions; a version holds a
        credential and ``credentials`` is ``"refuse"``), StoreLocked.
    """
    key = validate_key(key)
    if credentials not in UNSEAL_CREDENTIALS:
        raise InvalidInput(f"credentials must be one of {', '.join(UNSEAL_CREDENTIALS)}")
    with store.lock("unseal"):
        chain = sealed_versions(store, key)
        if chain:   # a set-back sealed ref: the newest value is not dropped (test40 T7); nothing done
            store.refuse_set_back(sealed_ref(key), chain[0].id)
        # a lost placeholder holds no value: it becomes a plain one in its place (as seal_key maps a
        # plain one to a sealed one), so the older value never becomes current by unsealing
        texts = {s.id: open_text(identities, s) for s in chain if not is_empty_place(s.sealed)}
        for s in chain:
            if s.id in texts:
                check_text(texts[s.id], f"{key} v{s.sealed.version}")
        plain = _plain_versions(store, key)
        res = UnsealResult(key)
        oldest_first = list(reversed(chain))
        if plain:
            if not _same_versions(plain, chain):
                raise Refused(f"{key} is both plain and sealed, with different versions",
                              hint=f"read both (mem log {key}; mem sealed show {key} --all) and forget one")
            res.restored = [(v.id, v.fact.version) for v in reversed(plain)]
            store.unfinished.mark("what", key, now_ms(), "unseal")   # (finding test24b U3) until the sealed ref goes
        else:
            held, rules = credential_versions(key, {s.sealed.version: texts[s.id] for s in chain if s.id in texts})
            if held:
                res.credentials, res.credential_in = rules, sorted(held)
                if credentials == "refuse":
                    n = len(held)
                    raise Refused(f"{n} of {len(texts)} version{'s' if len(texts) != 1 else ''} of {key} "
                                  f"hold{'s' if n == 1 else ''} a credential ({rules_said(rules)}): unsealing "
                                  "would store it in the clear, where search, recall, the agent's context and "
                                  "push carry it; nothing was changed",
                                  hint=f"keep it sealed (mem sealed show {key} reads it); or unseal with "
                                  "--redact-credentials (each becomes [REDACTED:<rule>]; the sealed copy is "
                                  "deleted, so the credential is gone) or --keep-credentials (stored in the clear)")
                if credentials == "redact":
                    res.redacted = True
                    for s in chain:
                        if s.sealed.version in held:
                            texts[s.id] = held[s.sealed.version].text
            store.unfinished.mark("what", key, now_ms(), "unseal")   # a stop from here on is an unseal's, not a seal's
            ref = fact_ref(key)
            old = store.refs.read(ref)  # None, or a chain of emptied versions only (replaced)
            parent = None
            new_chain: list[Version] = []
            old_chain = own_chain(key, list(walk(store, old))) if old else []
            emptied = {v.fact.version: v.fact for v in old_chain if v.fact.forgotten}
            now = now_ms()
            for s in oldest_first:
                m = s.sealed
                # a version a forget emptied was not sealed (a gap in the sealed chain): it keeps its place as
                # a forgotten placeholder, so the numbering is unchanged (the root stays v1, fsck; KEY@vN)
                for n in range((new_chain[0].fact.version if new_chain else 0) + 1, m.version):
                    g = emptied.get(n)
                    g = g.replace(parent=parent) if g is not None else Fact(
                        key=key, kind=m.kind, body="", version=n, parent=parent, valid_from=m.valid_from,
                        recorded_at=m.recorded_at, trust=m.trust, sensitivity="private", owner=m.owner,
                        forgotten=now)
                    parent = store.put(g)
                    new_chain.insert(0, Version(parent, g))
                if s.id in texts:   # marked unsealed now: a withdrawal record of an earlier seal leaves it
                    f = Fact(key=key, kind=m.kind, body=texts[s.id], version=m.version, parent=parent,
                             valid_from=m.valid_from, recorded_at=m.recorded_at, trust=m.trust,
                             sensitivity="private", owner=m.owner, sources=(f"{UNSEALED_SOURCE}{now}",))
                elif (gone := forgotten_stub_time(m)) is not None:   # a forgotten newest version: its place again
                    f = Fact(key=key, kind=m.kind, body="", version=m.version, parent=parent,
                             valid_from=m.valid_from, recorded_at=m.recorded_at, trust=m.trust,
                             sensitivity="private", owner=m.owner, forgotten=max(gone, 1))
                else:
                    f = _plain_lost_stub(m, parent)
                parent = store.put(f)
                new_chain.insert(0, Version(parent, f))
                res.restored.append((parent, m.version))
            res.index_error = commit_version(store, key, old, parent, old_chain=old_chain, new_chain=new_chain,
                                             command="unseal")
        res.dropped = _drop_sealed(store, key, chain)
        drop_rules(store, key)   # its value is plain again: turns captured from now on keep it
        store.unfinished.done("what", key)
        return res


def finish_unseal(store: Store, key: str) -> bool:
    """Finish an unseal of ``key`` that was stopped (its note in
    ``forget-unfinished``, command ``unseal``; tester finding test24b U3):
    delete the sealed versions when the plain chain already holds every one
    of them (the check :func:`unseal_key` makes when run again: same
    version, valid_from, recorded_at, kind, trust, owner), then the note.
    Nothing changes when the plain versions are not all written yet (only
    ``mem unseal KEY``, with the passphrase, can write them).  Caller holds
    the store lock.  Returns True when the unseal is finished.  Raises
    MemError, OSError."""
    if sealed_head(store, key) is not None:
        chain = sealed_versions(store, key)
        plain = _plain_versions(store, key)
        if not plain or not _same_versions(plain, chain):
            return False
        _drop_sealed(store, key, chain)
    store.unfinished.done("what", key)
    return True


def finish_stopped_unseals(store: Store) -> list[str]:
    """``mem fsck --repair``: :func:`finish_unseal` every unseal noted as
    stopped, under the store lock; the keys finished (a key left keeps its
    note: ``mem fsck`` says to run ``mem unseal KEY`` again).  Raises
    StoreLocked, MemError, OSError."""
    with store.lock("fsck --repair (finishing a stopped unseal)"):
        return [s.selector for s in store.unfinished.list()
                if s.command == "unseal" and s.kind == "what" and finish_unseal(store, s.selector)]


def forget_sealed(store: Store, key: str) -> int:
    """Delete every sealed version of ``key`` (ref, reflog, objects) without
    decrypting anything; returns the number of objects deleted.  No
    tombstone is written (the values are unknown); the key's seal rules
    become a forgotten key's (``sealrules.forget_rules``).  Raises NotFound."""
    key = validate_key(key)
    with store.lock("sealed forget"):
        n = _drop_sealed(store, key, sealed_versions(store, key))
        forget_rules(store, key)
        return n
