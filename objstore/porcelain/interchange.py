"""Taking data out and bringing it back: ``mem export`` and ``mem import jsonl``.

JSON lines (format ``mem-export/1``, ``docs/format.md``)
--------------------------------------------------------
One JSON object per line, UTF-8, in this order:

1. a header ``{"format": "mem-export/1", "created": MS, "scope": S|null}``;
   with a guard passphrase only, ``{"guard": "<base64>"}``: the exported
   tombstones' forget guard sealed to it (``porcelain.carriedguard``);
2. every object the exported refs reach, each **after** the objects it links
   to (a version after its parent, a turn after the previous turn):
   ``{"object": TYPE, "id": ID, "fields": {...}}`` where TYPE is ``fact``,
   ``turn``, ``tombstone`` or ``queue item`` and ``fields`` are the object's
   fields as in ``docs/format.md`` (ids as lowercase hex, ``value_sha256`` as
   hex, optional fields only when set);
3. the refs: ``{"ref": NAME, "id": ID}``.

Because objects are content-addressed, importing re-encodes each object and
requires the id it gets to equal the exported ``id``: the round trip is exact
(same ids, so the same history and the same current values), and a damaged or
edited line is refused by its line number.  Sealed values are never exported
(they stay in the vault, ``docs/vault.md``); the export says how many it left
out.

Markdown: a tree a person reads (``facts/<key>.md`` with the current value
and the history table, ``sessions/<project>/<session>.md`` with the turns).
It is for reading, not for importing back.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from objstore.core.atomic import atomic_write
from objstore.core.codec import encode, object_id
from objstore.core.redact import redact, redact_named
from objstore.core.errors import PERSON_ONLY_HINT, InvalidInput, MemError, Refused, UnsupportedVersion
from objstore.core.objects import Fact, QueueItem, Sealed, TYPE_NAMES, Tombstone, Turn
from objstore.core.record import fields
from objstore.core.refs import key_scope
from objstore.core.store import Store, now_ms
from objstore.core.sealstate import refuse_while_stopped
from objstore.core.lookalike import lookalike_mix
from objstore.memory.caller import person_only
from objstore.memory.facts import current_of, own_chain, remember, walk
from objstore.memory.scope import is_memory_file_key
from objstore.memory.proposals import looks_like_instruction
from objstore.memory.served import hider
from objstore.memory.sessions import session_project, walk_turns
from objstore.memory.tombstones import (TEXT_KEY, all_tombstones, fact_value_digests, forgotten_check, forgotten_in,
                                        holds_text, match_spans, match_text_rule, match_texts)
from objstore.memory.validity import why_no_current
from objstore.memory.writechecks import check_key_credentials
from objstore.porcelain.carriedguard import apply_guard, build_guard, note_guarded, open_guard, seal_guard
from objstore.retrieval.search import reindex

FORMAT = "mem-export/1"
_BYTES_FIELDS = {"value_sha256"}


@dataclass
class ExportResult:
    """Counts of an export: ``objects`` by type, ``refs``, ``sealed_skipped``."""

    objects: dict[str, int] = field(default_factory=dict)
    refs: int = 0
    sealed_skipped: int = 0
    #: the forget guard of the exported tombstones (``carriedguard``): its pairs and
    #: ``forgotten:`` rules, and whether the export carries it (sealed to a passphrase)
    guard_pairs: int = 0
    guard_rules: int = 0
    guard_carried: bool = False


@dataclass
class ImportResult:
    """Counts of an import: ``objects`` written (new) and ``present`` (already
    in the store), ``refs`` set, ``refs_kept`` (the store's ref already
    pointed elsewhere: left as it was and listed in ``conflicts``),
    ``forgotten``: refs of the export not set because their history holds
    a value, turn or session a tombstone of this store forgets."""

    objects: int = 0
    present: int = 0
    refs: int = 0
    refs_kept: int = 0
    conflicts: list[str] = field(default_factory=list)
    forgotten: list[str] = field(default_factory=list)
    #: keys whose imported current value held a credential: ``(key, version number of the
    #: imported value)``; a redacted version was written on top (:func:`_redact_on_top`)
    redacted: list[tuple[str, int]] = field(default_factory=list)
    #: turns the import wrote whose text holds a credential, and their sessions (ids kept:
    #: a turn cannot be rewritten; ``mem forget --session`` or ``--match`` removes them)
    turns_with_credentials: int = 0
    sessions_with_credentials: list[str] = field(default_factory=list)
    #: the export's forget guard (``carriedguard``): ``guard`` "sealed" (carried, no passphrase
    #: given: not applied), "applied", "none" (a passphrase given, the export carries none) or
    #: None; pairs noted, ``forgotten:`` rules added and rules not applied (``guard_rules_left``)
    guard: str | None = None
    #: keys among ``forgotten`` (without ``facts/``) left out for a version holding a ``forget --match``
    #: text of this store recorded before that forget (:func:`_text_times`; a pull forgets it alike)
    forgotten_text: list[str] = field(default_factory=list)
    guard_pairs: int = 0
    guard_rules: int = 0
    guard_rules_left: int = 0


def _fields_json(obj) -> dict[str, Any]:
    out = {}
    optional = getattr(obj, "OPTIONAL", ())
    for name in fields(obj):
        v = getattr(obj, name)
        if name in optional and not v:
            continue
        if isinstance(v, bytes):
            v = v.hex()
        elif isinstance(v, tuple):
            v = list(v)
        out[name] = v
    return out


def _in_scope(key: str, scope: str | None) -> bool:
    return scope is None or key == scope or key.startswith(scope.rstrip("/") + "/") or key_scope(key) == scope


def _chain_oldest_first(items: Iterable) -> list:
    return list(reversed(list(items)))


def iter_export(store: Store, *, scope: str | None = None, sessions: bool = True,
                result: ExportResult | None = None, guard_passphrase: str | None = None
                ) -> Iterator[dict[str, Any]]:
    """The records of a ``mem-export/1`` JSON-lines export (see module doc).

    Args:
        scope: only keys in this scope or under this key prefix
            (``user``, ``project/acme``, ``project/acme/api``); sessions of
            that project when the scope is ``project/<name>``, none for other
            scopes.  None: everything.
        sessions: include sessions and their turns.
        result: filled with counts as records are produced (the guard's
            counts whether it is carried or not).
        guard_passphrase: carry the exported tombstones' forget guard
            sealed to it, in a ``guard`` record after the header
            (``porcelain.carriedguard``); None: no guard record.
    """
    res = result if result is not None else ExportResult()
    yield {"format": FORMAT, "created": now_ms(), "scope": scope}
    refs: list[tuple[str, str]] = []
    keys = {n[len("facts/"):] for n, _ in store.refs.iter("facts") if _in_scope(n[len("facts/"):], scope)}
    tombs = []   # (first: the guard record, which needs them, comes before every object)
    for name, oid in store.refs.iter("tombstones"):
        t = store.get(oid, Tombstone)
        # a forgotten text's tombstone names no key: every scoped export carries it (it holds a
        # digest, never the text; test41 T12: a 'forget --match' that emptied a key in scope stayed behind)
        if scope is None or t.key in keys or _in_scope(t.key, scope) or t.key == TEXT_KEY or t.key.startswith("match:"):
            tombs.append((name, oid, t))
    guard = build_guard(store, [t for _n, _o, t in tombs], lambda k: _in_scope(k, scope))
    res.guard_pairs, res.guard_rules = len(guard.pairs), guard.count()
    if guard_passphrase is not None:
        res.guard_carried = True
        yield {"guard": seal_guard(guard, guard_passphrase)}

    def emit(kind: str, oid: str, obj) -> dict[str, Any]:
        res.objects[kind] = res.objects.get(kind, 0) + 1
        return {"object": kind, "id": oid, "fields": _fields_json(obj)}

    for name, oid in store.refs.iter("facts"):
        key = name[len("facts/"):]
        if not _in_scope(key, scope):
            continue
        for v in _chain_oldest_first(own_chain(key, list(walk(store, oid)))):   # (never another key's: test31b V1)
            yield emit("fact", v.id, v.fact)
        refs.append((name, oid))
    for name, oid, t in tombs:
        yield emit("tombstone", oid, t)
        refs.append((name, oid))
    res.sealed_skipped = sum(1 for n, _ in store.refs.iter("sealed") if _in_scope(n[len("sealed/"):], scope))
    project = scope.split("/")[1] if scope and scope.startswith("project/") and scope.count("/") == 1 else None
    if sessions and (scope is None or project):
        for name, oid in store.refs.iter("sessions"):
            chain = _chain_oldest_first(walk_turns(store, oid))
            if project and not any(tv.turn.project == project for tv in chain):
                continue
            for tv in chain:
                yield emit("turn", tv.id, tv.turn)
            refs.append((name, oid))
    if scope is None:
        for name, oid in store.refs.iter("queue"):
            yield emit("queue item", oid, store.get(oid, QueueItem))
            refs.append((name, oid))
    for name, oid in refs:
        res.refs += 1
        yield {"ref": name, "id": oid}


def export_jsonl(store: Store, out: IO[str], *, scope: str | None = None,
                 guard_passphrase: str | None = None) -> ExportResult:
    """Write a ``mem-export/1`` export of ``store`` to the text stream ``out``
    (``guard_passphrase``: with the forget guard sealed to it, :func:`iter_export`).

    Raises ForgetUnfinished (exit 6, nothing written) while a forget is
    unfinished (``objstore.core.unfinished``)."""
    refuse_while_stopped(store, "export")
    res = ExportResult()
    for rec in iter_export(store, scope=scope, result=res, guard_passphrase=guard_passphrase):
        out.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
    return res


def _object_from(rec: dict[str, Any], lineno: int):
    cls = TYPE_NAMES.get(rec.get("object"))
    f = rec.get("fields")
    if cls is None or not isinstance(f, dict) or not isinstance(rec.get("id"), str):
        raise InvalidInput(f"line {lineno}: not an object record of {FORMAT}")
    kw = {}
    for name, v in f.items():
        if name in _BYTES_FIELDS and isinstance(v, str):
            try:
                v = bytes.fromhex(v)
            except ValueError:
                raise InvalidInput(f"line {lineno}: {name} is not hex") from None
        elif isinstance(v, list):
            v = tuple(v)
        kw[name] = v
    what = f"line {lineno}: invalid {rec['object']}"
    params = inspect.signature(cls).parameters
    missing = [n for n, p in params.items() if p.default is p.empty and n not in kw]
    unknown = sorted(n for n in kw if n not in params)
    if missing or unknown:   # named, not Python's message (test31 U13)
        raise InvalidInput(f"{what}: " + "; ".join(
            ([f"missing field{'s' * (len(missing) > 1)} {', '.join(missing)}"] if missing else [])
            + ([f"unknown field{'s' * (len(unknown) > 1)} {', '.join(unknown)}"] if unknown else [])))
    for n, v in kw.items():   # the scalar fields by their declared type (bool is no int here)
        want = _SCALARS.get(str(params[n].annotation))
        if want is not None and (type(v) is not want) and not (want is str and v is None and "None" in
                                                                str(params[n].annotation)):
            raise InvalidInput(f"{what}: {n} must be {_SCALAR_WORDS[want]}, not {type(v).__name__}")
    try:
        return cls(**kw)
    except (TypeError, MemError) as e:
        raise InvalidInput(f"{what}: {e}") from None


#: a constructor annotation of a scalar field -> its type (``_object_from``)
_SCALARS = {"str": str, "int": int, "bool": bool, "str | None": str, "bytes": bytes}
_SCALAR_WORDS = {str: "a string", int: "an integer", bool: "true or false", bytes: "hex"}


def person_only_content(obj) -> str | None:
    """What in ``obj`` (an object of an export) only a person may bring into
    a store, or None: a fact version stated ``user_stated``, pinned,
    curated or standing, a memory file (``soul.md``, ``memory.md``,
    ``user.md``, …), a key that mixes scripts so that it reads as another
    (``writechecks.check_key_lookalike``: a person's import keeps it, as a
    pull does, and every listing shows it escaped), a value that reads like
    an instruction to a model or holds a credential (``remember`` would queue or redact it, and an
    import keeps ids, so it can do neither), or a tombstone (it forgets).
    ``person_only_content(Fact(..., pinned=True)) == "a pinned fact"``."""
    if isinstance(obj, Tombstone):
        return "a tombstone (forgetting is the person's)"
    if not isinstance(obj, Fact):
        return None
    from objstore.core.redact import redact_named  # deferred: the redaction rules compile at import
    if is_memory_file_key(obj.key):
        return "a memory file"
    if not obj.key.isascii():
        if any(lookalike_mix(seg) for seg in obj.key.split("/")):
            return "a fact under a key that reads as another (its letters mix scripts)"
    if obj.trust == "user_stated":
        return "a user_stated fact"
    if obj.pinned:
        return "a pinned fact"
    if obj.curated:
        return "a standing fact" if obj.curated == 2 else "a curated fact"
    if obj.body and looks_like_instruction(obj.body):
        return "a value that reads like an instruction to a model"
    if obj.body and redact_named(obj.body, obj.key).hits:
        return "a value holding a credential"
    return None


def ref_name_of(obj, oid: str) -> str | None:
    """The name of the ref that may name ``obj`` (object id ``oid``):
    ``facts/<key>``, ``sealed/<key>``, ``sessions/<session>``,
    ``queue/<item id>``, ``tombstones/<oid>``; None for another object."""
    if isinstance(obj, Fact):
        return f"facts/{obj.key}"
    if isinstance(obj, Sealed):
        return f"sealed/{obj.key}"
    if isinstance(obj, Turn):
        return f"sessions/{obj.session}"
    if isinstance(obj, QueueItem):
        return f"queue/{obj.item_id}"
    return f"tombstones/{oid}" if isinstance(obj, Tombstone) else None


def _check_names(obj, lineno: int) -> None:
    """Raise InvalidInput (exit 2) when a name ``obj`` (an object of an
    export, on line ``lineno``) carries holds a credential, by the one name
    rule (:func:`objstore.memory.writechecks.check_key_credentials`): a fact's
    key, namespace (session and sub-agent names) and owner (the agent
    that wrote it), a turn's session id, a queue item's key and owner.
    Names are stored in the clear (ref files, the audit log, the index) and
    an import keeps ids, so it cannot mask them: the line is refused, the
    field named, the name never shown."""
    if isinstance(obj, Fact):
        names = (("key", obj.key), ("namespace", obj.namespace), ("agent", obj.owner))
    elif isinstance(obj, Turn):
        names = (("namespace", obj.session),)
    elif isinstance(obj, QueueItem):
        names = (("key", obj.key), ("agent", obj.owner))
    else:
        return
    for what, name in names:
        if name:
            try:
                check_key_credentials(name, what)
            except InvalidInput as e:
                raise InvalidInput(f"line {lineno}: {e.message}") from None


def import_jsonl(store: Store, lines: Iterable[str], *, command: str = "import jsonl",
                 progress=None, keep_existing: bool = False, agent: str | None = None,
                 guard_passphrase: str | None = None) -> ImportResult:
    """Bring a ``mem-export/1`` export into ``store`` (see module doc).

    Objects are written into one new pack, installed (durable) only once
    every line was read and checked, and refs after it: a refused import
    (a bad line, a missing object, a clash) leaves nothing behind, neither
    a ref nor an object (test27 V23).  A ref the store already has at
    another id makes the import refuse before any ref moves (Refused), or
    with ``keep_existing`` is left alone and reported
    (``refs_kept``/``conflicts``).
    The search index is brought up to date at the end (``mem reindex``).

    Stopped in its ref phase (SIGTERM, kill -9: test27b X3), it leaves a
    consistent store: the refs to set for the first time are noted in the
    index journal (``N`` lines, with their sessions and keys to index)
    before the pack can be read, so ``mem fsck`` warns and the next holder
    of the store lock sets and indexes them (``objstore.memory.recovery``);
    the refs are set one namespace at a time, tombstones first.  A fact
    whose imported value holds a credential gets its redacted version on
    top from this import or, when it was stopped first, from running the
    same import again (an imported head not redacted yet is redacted then).

    Tombstones: an export made before a forget must not bring the forgotten
    back.  An object is *forgotten* when this store's tombstones forget it
    as gc and capture see it (``tombstones.forgotten_check``: a turn of a
    forgotten session, a turn whose source or text a tombstone names, a
    fact version whose key + value a tombstone names) or, for a fact
    version below ``user_stated``, when ``remember`` would refuse it
    (``tombstones.forgotten_in``: a value forgotten under another key, or
    holding a forgotten text).  Such an object is not written, nor is one
    whose history (``parent``) holds one, and a ref pointing at one is not
    set (listed in ``ImportResult.forgotten``).  ``agent`` (the agent
    caller's name, ``caller.agent_of``): any such object refuses the whole
    import before a ref moves, and so does any object only a person may
    bring in (:func:`person_only_content`: an agent imports at most what
    it could write itself, ``agent_observed``, unpinned, reviewed; the
    refusal is ``caller.person_only``'s, exit 6).

    Forget guard (``porcelain.carriedguard``): with ``guard_passphrase``
    the export's ``guard`` record is opened as it is read (before anything
    is written) and kept as this store's own once every line is checked,
    before the pack is installed and any ref moves
    (``carriedguard.apply_guard``; a refused import keeps none of it); its
    tombstones then recognize their values here as where they were
    written.  Without it the record is skipped (``ImportResult.guard``
    "sealed").

    Raises:
        InvalidInput: not a ``mem-export/1`` stream, a malformed line, an
            object whose id is not the one recorded, or a name that holds a
            credential (:func:`_check_names`; a ref's name too) (nothing is
            written).
        Refused: refs of the export exist here at other versions (and not
            ``keep_existing``); or ``agent`` and the export holds forgotten
            or person-only content (no ref is changed).
        WrongPassphrase: ``guard_passphrase`` does not open the guard
            (exit 12, nothing is written).
        StoreLocked: the store lock was not obtained in time.
        LostTombstone: a tombstone ref names an object that cannot be read
            (what it forgot is unknown: nothing is imported).
    """
    res = ImportResult()
    refs: list[tuple[str, str]] = []
    header_seen = False
    tainted: set[str] = set()   # forgotten objects and those whose history holds one
    text_keys: set[str] = set()   # keys with a version left out for holding a --match text (test42 T2)
    guard = None
    tomb_ids: dict[bytes, list[str]] = {}   # the export's tombstones by stored digest (the guard's pairs)
    with store.lock(command):
        tombs = all_tombstones(store, strict=True)   # a lost tombstone: nothing is imported
        gone = forgotten_check(store)
        texts = match_texts(tombs)   # a turn holding a --match text: its id keeps it, so it stays out (txt42)
        text_times = _text_times(tombs)

        def forgotten(obj) -> bool:
            if getattr(obj, "parent", None) in tainted or gone(obj):
                return True
            if texts and isinstance(obj, Turn) and not obj.forgotten and \
                    any(match_spans(v, texts, word_starts=True) for v in (obj.text, obj.cwd, obj.project) if v):
                return True
            if not isinstance(obj, Fact) or not obj.body or obj.forgotten:
                return False
            if obj.trust != "user_stated" and forgotten_in(tombs, obj.key, obj.body, obj.recorded_at) is not None:
                return True
            # any trust: a value holding a --match text, recorded before that text's forget here, is left out as a
            # pull forgets it ("forgotten as it would have been", test42 T2); one stated after it is the person's
            early = [r for r, when in text_times.items() if obj.recorded_at < when]
            if early and holds_text(obj.body, early):
                text_keys.add(obj.key)
                return True
            return False
        # the objects go into one new pack, installed only once every line was read and checked: a refused
        # import (a bad line, a clash) leaves nothing behind (test27 V23: its objects, stored without refs,
        # made fsck call a good store damaged, and the advised repair made half the refused file live)
        pw = store.pack_writer()
        written: set[str] = set()
        heads: dict[str, str | None] = {}   # object id -> the ref that may name it (ref_name_of)
        try:
            for lineno, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except ValueError:
                    raise InvalidInput(f"line {lineno}: not JSON") from None
                except RecursionError:   # (test31 U13: an internal error)
                    raise InvalidInput(f"line {lineno}: not JSON (nested too deeply)") from None
                if not isinstance(rec, dict):
                    raise InvalidInput(f"line {lineno}: not a JSON object")
                if not header_seen:
                    fmt = rec.get("format")
                    if isinstance(fmt, str) and fmt.startswith("mem-export/") and fmt[11:].isdigit() \
                            and int(fmt[11:]) > int(FORMAT[11:]):   # (mem-export/0, /x: not newer, test44 T5)
                        # a newer mem's export (fresh43 F11): exit 14, as for a remote written by a newer mem
                        raise UnsupportedVersion(f"{fmt} is an export format newer than this mem reads ({FORMAT})",
                                                 hint="upgrade mem on this machine, then import it again")
                    if fmt != FORMAT:
                        raise InvalidInput(f"not a {FORMAT} export (line {lineno} has format {rec.get('format')!r})",
                                           hint="make one with: mem export --format jsonl")
                    header_seen = True
                    continue
                if "guard" in rec:   # (session 41: the forget guard, sealed to a passphrase)
                    if res.guard is not None:
                        raise InvalidInput(f"line {lineno}: a second forget guard")
                    res.guard = "sealed" if guard_passphrase is None else "applied"
                    if guard_passphrase is not None:
                        guard = open_guard(rec["guard"], guard_passphrase, lineno)
                    continue
                if "ref" in rec:
                    if not isinstance(rec.get("ref"), str) or not isinstance(rec.get("id"), str):
                        raise InvalidInput(f"line {lineno}: bad ref record")
                    store.refs.path(rec["ref"])  # validates the name
                    try:
                        check_key_credentials(rec["ref"], "ref")
                    except InvalidInput as e:
                        raise InvalidInput(f"line {lineno}: {e.message}") from None
                    refs.append((rec["ref"], rec["id"]))
                    continue
                obj = _object_from(rec, lineno)
                oid = object_id(obj)
                if oid != rec["id"]:
                    raise InvalidInput(f"line {lineno}: the {rec['object']} does not hash to its recorded id "
                                       f"{rec['id'][:12]} (the line was changed or damaged)")
                _check_names(obj, lineno)
                if isinstance(obj, Tombstone):
                    tomb_ids.setdefault(obj.value_sha256, []).append(oid)
                heads[oid] = ref_name_of(obj, oid)   # what a ref naming it must be called (a chain's older
                heads.pop(getattr(obj, "parent", None) or "", None)   # versions come first: only heads stay)
                if agent is not None:
                    what = person_only_content(obj)
                    if what is not None:
                        key = getattr(obj, "key", "")
                        raise person_only(f"mem import jsonl of {what} (line {lineno}" + (f", {key})" if key else ")"),
                                          agent, instead="write what it observed with mem remember (agent_observed, "
                                                         "reviewed where it would replace what the user stated)")
                if forgotten(obj):
                    tainted.add(oid)
                    if agent is not None:
                        raise Refused(f"line {lineno}: the export holds a {rec['object']} a forget of this store "
                                      f"removed; an agent ({agent}) may not bring it back: no ref was changed",
                                      hint=PERSON_ONLY_HINT)
                    continue
                if oid in written or store.has(oid):
                    res.present += 1
                else:
                    pw.add(encode(obj))
                    written.add(oid)
                    res.objects += 1
                    if isinstance(obj, Turn) and obj.text and redact(obj.text).hits:
                        res.turns_with_credentials += 1
                        if obj.session not in res.sessions_with_credentials:
                            res.sessions_with_credentials.append(obj.session)
                if progress is not None and lineno % 1000 == 0:
                    progress(lineno, None)
            if not header_seen:
                raise InvalidInput(f"empty input: not a {FORMAT} export")
            res.forgotten = [n for n, o in refs if o in tainted]
            res.forgotten_text = sorted(k for k in text_keys if f"facts/{k}" in res.forgotten)
            refs = [(n, o) for n, o in refs if o not in tainted]
            missing = [(n, o) for n, o in refs if o not in written and not store.has(o)]
            if missing:
                raise InvalidInput(f"ref {missing[0][0]} points at {missing[0][1][:12]}, which the export does not "
                                   f"hold ({len(missing)} such ref(s)); nothing was imported")
            for name, oid in refs:   # a ref names an object of its own key, session or id (test31c W8)
                want = heads[oid] if oid in heads else ref_name_of(store.get(oid), oid) if store.has(oid) else None
                if want != name:
                    raise InvalidInput(f"ref {name} points at {oid[:12]}, which is "
                                       + (f"of {want}" if want else "no head of this export") + "; nothing was imported")
            clash = [name for name, oid in refs if store.refs.read(name) not in (None, oid)]
            if clash and not keep_existing:
                raise Refused(f"{len(clash)} ref(s) of the export already exist here at other versions "
                              f"(first: {clash[0]}); nothing was imported",
                              hint="import into an empty store, or keep this store's refs with --keep-existing "
                                   "(the export's versions of those refs are then not kept)")
            if guard is not None:   # before the journal's notes and the pack: no tombstone of this import is
                done = apply_guard(store, guard, set(tomb_ids))   # ever live here without what recognizes its value
                res.guard_pairs, res.guard_rules, res.guard_rules_left = done.pairs, done.rules, done.rules_left
            elif guard_passphrase is not None:
                res.guard = "none"
            firsts = {name: oid for name, oid in reversed(refs) if store.refs.read(name) is None}
            new = [(name, firsts.pop(name)) for name, _oid in refs if name in firsts]   # the first of each name
            # before any of their objects can be read: an import stopped in its ref phase (SIGTERM, kill -9)
            # leaves these for the next holder of the store lock to set and index (recovery), not a store
            # fsck calls CORRUPT (test27b X3)
            if new:
                store.journal.sessions([(n[len("sessions/"):], None) for n, _o in new if n.startswith("sessions/")],
                                       new_refs=new)
                store.journal.fact(*[n[len("facts/"):] for n, _o in new if n.startswith("facts/")])
            pw.finish()   # durable (fsynced) and readable before any ref names what it holds
        except BaseException:
            pw.abort()    # the temp pack goes: nothing of the refused import stays
            raise
        will = {**{n: store.refs.read(n) for n, _o in refs}, **dict(new)}   # each ref's id once this import is done
        res.conflicts = [n for n, o in refs if will[n] != o]
        res.refs_kept = len(res.conflicts)
        now = now_ms()
        # one step per namespace (a packed namespace is one file), tombstones first: no imported
        # value is live before the tombstones that forget it
        order = ("tombstones", "facts", "sessions", "queue")
        for ns in sorted({n.partition("/")[0] for n, _o in new},
                         key=lambda x: (order.index(x) if x in order else len(order), x)):
            moves = [(n, None, o) for n, o in new if n.partition("/")[0] == ns]
            store.update_refs(moves, command, time_ms=now)
            res.refs += len(moves)
        if guard is not None:   # what mem fsck counts (carriedguard.carried_guard_state)
            paired = {k for k, _d in guard.pairs}
            try:
                note_guarded(store, sorted(o for k, ids in tomb_ids.items() if k in paired for o in ids
                                           if store.refs.read(f"tombstones/{o}") == o), now)
            except OSError:
                pass   # (the audit log unwritable: fsck then counts nothing of it, the guard itself is kept)
        for name, oid in refs:   # the imported head of a fact (also set before, by an import stopped
            if name.startswith("facts/") and store.refs.read(name) == oid:   # after its refs): redact on top
                _redact_on_top(store, name[len("facts/"):], res, command)
        if res.refs:   # under the import's lock: the journal's notes of its refs are not replayed first
            reindex(store)
    return res


def _text_times(tombs: list[Tombstone]) -> dict[tuple[bytes, int], int]:
    """``{(sha256, length): ms}``: each ``forget --match`` text of ``tombs``
    (``tombstones.match_text_rule``) and its earliest forget here.  An
    imported fact version of any trust recorded before it that holds the
    text was written where that forget had not arrived: left out, as a pull
    forgets it (``merge.ForgetIndex.unseen_time``).  Reads nothing."""
    values = fact_value_digests(tombs)
    out: dict[tuple[bytes, int], int] = {}
    for t in tombs:
        if (r := match_text_rule(t, values)) is not None:
            out[r] = min(out.get(r, t.time), t.time)
    return out


def _redact_on_top(store: Store, key: str, res: ImportResult, command: str) -> None:
    """After ``import jsonl`` set fact ref ``key``: when its current value
    holds a credential (the one value rule, ``redact.redact_named``: an
    export written by a mem that did not know that token's format yet, or
    edited by hand), write the redacted value as a new version on top (same
    kind, trust and owner: ``facts.remember``, which redacts) and record
    ``(key, version number)`` in ``res.redacted``.  The import keeps ids, so
    the imported version itself stays in the key's history; ``mem forget
    KEY@vN`` removes it.  Caller holds the store lock."""
    chain = list(walk(store, store.refs.read(f"facts/{key}")))
    cur = current_of(chain)
    if cur is None or not cur.fact.body or cur.fact.sensitivity == "secret":
        return
    red = redact_named(cur.fact.body, key)
    if not red.hits:
        return
    f = cur.fact
    remember(store, key, red.text, kind=f.kind, trust=f.trust, sensitivity=f.sensitivity, owner=f.owner,
             sources=tuple(f.sources), command=f"{command} redact", reviewed=True)
    res.redacted.append((key, f.version))


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _fmt(ms: int) -> str:
    import datetime as dt
    if not ms:
        return "-"
    return dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def export_markdown(store: Store, out_dir: Path, *, scope: str | None = None) -> ExportResult:
    """Write a readable Markdown tree of ``store`` under ``out_dir``: one file
    per key (``facts/<key>.md``: current value, then every version) and per
    session (``sessions/<project>/<id>.md``).  Forgotten versions show as
    forgotten, and a forgotten ``--match`` text in a turn as ``[forgotten]``
    (``tombstones.hider``, as ``mem show``: the tree is for reading; the
    jsonl export keeps objects exact); sealed keys are listed, never their
    values.  The tree is written aside and then replaces a previous
    export's ``facts/``, ``sessions/`` and ``README.md`` whole, with a
    :data:`EXPORT_MARK` file (test32 X21: files of keys forgotten since
    stayed).  Raises Refused (exit 6, nothing written) for a folder that
    holds anything and is not a previous export (the person's own notes),
    and ForgetUnfinished (exit 6,
    nothing written) while a forget is unfinished."""
    refuse_while_stopped(store, "export")
    res = ExportResult()
    final = Path(out_dir)
    final.mkdir(parents=True, exist_ok=True)   # a new folder, as before (a file there: NotADirectoryError)
    _check_export_dir(final)
    out_dir = Path(tempfile.mkdtemp(prefix=".mem-export-new-", dir=final))   # replaces the old tree whole, at the end
    try:
        _write_markdown(store, out_dir, scope, res)
        _swap_export(out_dir, final)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    return res


#: the file that marks a folder as a markdown export of mem's (the next export replaces it whole)
EXPORT_MARK = ".mem-export"
_EXPORT_PARTS = ("facts", "sessions", "README.md")


def _check_export_dir(out_dir: Path) -> None:
    """Refuse (Refused, exit 6) a folder that holds anything and is not a
    previous markdown export: its :data:`EXPORT_MARK`, or (an export made
    before the mark existed) only ``facts/``, ``sessions/`` and a README.md
    that starts ``# mem export``."""
    names = {p.name for p in out_dir.iterdir() if not p.name.startswith(".mem-export-new-")}  # (an export cut short)
    if not names or EXPORT_MARK in names:
        return
    try:
        legacy = names <= set(_EXPORT_PARTS) and (out_dir / "README.md").read_text("utf-8").startswith("# mem export")
    except (OSError, UnicodeDecodeError):
        legacy = False
    if not legacy:
        raise Refused(f"{out_dir} holds files and is not a previous mem export: nothing written",
                      hint="export into a new or empty folder (a previous export's folder is replaced whole)")


def _swap_export(new: Path, final: Path) -> None:
    """Replace the export parts of ``final`` by those written in ``new``
    (a previous export's files of keys since forgotten go with it)."""
    for part in _EXPORT_PARTS:
        old = final / part
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old)
        elif old.exists() or old.is_symlink():
            old.unlink()
        if (new / part).exists():
            os.replace(new / part, old)
    atomic_write(final / EXPORT_MARK, b"mem markdown export: the next 'mem export --format markdown' here "
                 b"replaces facts/, sessions/ and README.md whole\n")


def _write_markdown(store: Store, out_dir: Path, scope: str | None, res: ExportResult) -> None:
    """The files of :func:`export_markdown`, written under ``out_dir``."""
    for name, oid in store.refs.iter("facts"):
        key = name[len("facts/"):]
        if not _in_scope(key, scope):
            continue
        chain = list(walk(store, oid))
        cur = current_of(chain)
        lines = [f"# {key}", ""]
        why = "" if cur else why_no_current([v.fact for v in chain], now_ms())
        lines += [cur.fact.body if cur else f"*(no current value: {why})*", ""]
        lines += ["## History", "", "| version | recorded | valid from | trust | kind | value |",
                  "|---|---|---|---|---|---|"]
        for v in chain:
            f = v.fact
            body = f"*(forgotten {_fmt(f.forgotten)})*" if f.forgotten else _md_escape(f.body)
            mark = " (current)" if cur is not None and v.id == cur.id else ""
            lines.append(f"| v{f.version}{mark} | {_fmt(f.recorded_at)} | {_fmt(f.valid_from)} | {f.trust} "
                         f"| {f.kind} | {body} |")
        atomic_write(out_dir / "facts" / f"{key}.md", ("\n".join(lines) + "\n").encode())
        res.objects["fact"] = res.objects.get("fact", 0) + len(chain)
        res.refs += 1
    sealed = [n[len("sealed/"):] for n, _ in store.refs.iter("sealed") if _in_scope(n[len("sealed/"):], scope)]
    res.sealed_skipped = len(sealed)
    project = scope.split("/")[1] if scope and scope.startswith("project/") and scope.count("/") == 1 else None
    hide = hider(store)   # a forgotten --match text in a session captured later: [forgotten], as mem show
    if scope is None or project:
        for name, oid in store.refs.iter("sessions"):
            sid = name[len("sessions/"):]
            chain = _chain_oldest_first(walk_turns(store, oid))
            proj = session_project(reversed(chain)) or "_"
            if project and proj != project:
                continue
            lines = [f"# Session {sid}", "", f"project: {proj}", ""]
            for tv in chain:
                t = tv.turn
                text = f"*(forgotten {_fmt(t.forgotten)})*" if t.forgotten else hide.text(t.text) if hide else t.text
                lines += [f"## {t.seq}. {t.role} · {_fmt(t.timestamp)}", "", text, ""]
            atomic_write(out_dir / "sessions" / proj / f"{sid}.md", ("\n".join(lines) + "\n").encode())
            res.objects["turn"] = res.objects.get("turn", 0) + len(chain)
            res.refs += 1
    readme = ["# mem export", "", f"Exported {_fmt(now_ms())}.", "",
              "* `facts/`: one file per key, the current value first, then every version.",
              "* `sessions/`: one file per session, by project.", ""]
    if sealed:
        readme += [f"{len(sealed)} sealed key(s) are not exported (their values stay in the vault):", ""]
        readme += [f"* {k}" for k in sealed] + [""]
    atomic_write(out_dir / "README.md", "\n".join(readme).encode())

