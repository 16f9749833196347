"""Owner-approved memory files: ``soul.md``, ``memory.md`` and ``user.md``
(boxmaker's M5a design), with an archive and a journal.

Storage: each file is a key whose versions are the file's successive texts,
so ``mem log`` is its history and ``mem forget`` works on it:
``<scope>/memory/soul.md``, ``…/memory.md``, ``…/user.md``,
``…/archive.md`` and ``…/journal``, where ``<scope>`` is ``user`` or
``project/<name>`` (a project's files sit next to the user's).

Format: a file is a list of entries separated by a line holding only ``§``.
An entry is trimmed, not empty, holds no such line, and appears once per file.
Limits count characters (``len`` of the text), not bytes: :data:`LIMITS`.

Edits name entries by their **full text**, never by number, so an approval
reads alone and a stale edit fails: when an edit is applied, every OLD must
be an entry of the file as it is now, or nothing changes.  Actions:
``add TEXT``, ``replace OLD NEW``, ``remove OLD`` and ``consolidate`` (every
current entry named exactly once with ``keep``, ``rewrite`` (+ ``new``),
``move`` (to the archive) or ``drop``; ``add`` lists new entries).

The owner's own edits apply at once; an agent's edit is a proposal in the
review queue (kind ``memory-edit``, the plan as JSON in its body) that applies
only when the owner accepts it (:func:`accept_item`).  ``soul.md`` is the
owner's alone: no proposal may touch it.  Moved entries go to ``archive.md``
under a ``§ moved <time> from <file> in session <id>`` header; the archive
is an ordinary indexed key, so recall finds moved entries.  Every applied
edit appends one JSON line to the journal (time, session, approval id,
action, file, entries before and after); its current value keeps the newest
records up to :data:`JOURNAL_MAX_CHARS`, the older ones stay in the journal
key's earlier versions.
"""

from __future__ import annotations

import json
import re

from objstore.core.atomic import atomic_write
from objstore.core.errors import InvalidInput, MemError, NotFound, Refused
from objstore.core.record import Record, set_fields
from objstore.core.refs import validate_key
from objstore.core.store import Store, now_ms
from objstore.core.text import LazyPattern
from objstore.memory import queue
from objstore.memory.decay import restate
from objstore.memory.facts import current, remember
from objstore.memory.proposals import looks_like_instruction
from objstore.memory.scope import is_memory_file_key
from objstore.memory.served import refuse_if_sealed
from objstore.memory.writechecks import check_key_credentials

FILES = ("soul", "memory", "user")
LIMITS = {"soul": 4000, "memory": 2200, "user": 1375}
SEP = "§"
EDIT_KIND = "memory-edit"
ACTIONS = ("add", "replace", "remove", "consolidate")
OPS = ("keep", "rewrite", "move", "drop")


def file_key(scope: str, name: str) -> str:
    """The key of a memory file (``name``: soul, memory, user, archive, journal)."""
    if name not in (*FILES, "archive", "journal"):
        raise InvalidInput(f"no memory file {name!r}: use one of {', '.join(FILES)}")
    leaf = "journal" if name == "journal" else f"{name}.md"
    return validate_key(f"{scope}/memory/{leaf}")


def split_entries(text: str) -> list[str]:
    """The entries of a file's text (trimmed, empty ones dropped)."""
    entries, cur = [], []
    for line in text.split("\n"):
        if line.strip() == SEP:
            entries.append("\n".join(cur).strip())
            cur = []
        else:
            cur.append(line)
    entries.append("\n".join(cur).strip())
    return [e for e in entries if e]


def join_entries(entries: list[str]) -> str:
    """A file's text from its entries."""
    return f"\n{SEP}\n".join(entries)


def file_units(key: str, text: str) -> list[str]:
    """The units memory-file ``key``'s ``text`` is edited by, in order:
    entries of ``soul.md`` / ``memory.md`` / ``user.md``, lines of the
    ``journal``, moved blocks (``§ moved …`` header and entry) of
    ``archive.md``.  :func:`join_units` gives the text back."""
    leaf = key.rsplit("/", 1)[-1]
    if leaf == "journal":
        return [ln for ln in text.split("\n") if ln.strip()]
    if leaf == "archive.md":
        blocks: list[list[str]] = [[]]
        for ln in text.split("\n"):
            if ln.startswith(SEP) and blocks[-1]:
                blocks.append([])
            blocks[-1].append(ln)
        return [u for b in blocks if (u := "\n".join(b).strip())]
    return split_entries(text)


def join_units(key: str, units: list[str]) -> str:
    """Memory-file ``key``'s text from its :func:`file_units`."""
    return "\n".join(units) if key.rsplit("/", 1)[-1] in ("journal", "archive.md") else join_entries(units)


def remove_matching(key: str, text: str, hits) -> str:
    """``text`` of memory-file ``key`` without the :func:`file_units` ``hits(part)``
    is true for.  "" when nothing is left."""
    return join_units(key, [u for u in file_units(key, text) if not hits(u)]).strip()


#: a line that would read as a section heading of the session block (``# memory.md …``, :func:`render_files`):
#: ``#`` (any number, leading blanks) and a memory file's name (test24 T6: a proposal faked a ``# soul.md`` section)
_HEADING = LazyPattern(r"^([ \t]*)(#+[ \t]*(?:soul|memory|user|archive)\.md\b)", re.I | re.M)


def check_new_entry(text: str) -> str:
    """:func:`check_entry`, and InvalidInput when a line starts with ``#``
    and a memory file's name (``# soul.md``): in the session block it would
    read as a section of its own (test24 T6).  For every text an edit
    writes (not the ``old`` text it names: an entry stored before may hold
    one; :func:`render_files` escapes it)."""
    t = check_entry(text)
    m = _HEADING.search(t)
    if m:
        raise InvalidInput(f"an entry cannot have a line starting {m.group(2).strip()!r}: in the session block "
                           "it would read as a memory file's heading",
                           hint="write it another way (e.g. without the '#')")
    return t


def escape_headings(text: str) -> str:
    """``text`` with each line that starts with ``#`` and a memory file's
    name written ``\\# …``, so that in the session block only
    :func:`render_files`' own labels read as headings (test24 T6)."""
    return _HEADING.sub(lambda m: m.group(1) + "\\" + m.group(2), text) if "#" in text else text


def check_entry(text: str) -> str:
    """An entry trimmed; InvalidInput when empty or holding a ``§`` line."""
    t = (text or "").strip()
    if not t:
        raise InvalidInput("an entry cannot be empty")
    if any(line.strip() == SEP for line in t.split("\n")):
        raise InvalidInput(f"an entry cannot contain a line holding only {SEP}")
    return t


def _fmt(n: int) -> str:
    return f"{n:,}"


class MemFile(Record):
    """A memory file as it is now: ``name``, ``key``, ``text``, ``entries``,
    ``limit`` (characters; 0 for the archive), ``version`` id or None."""

    __slots__ = ("name", "key", "text", "entries", "limit", "version")

    def __init__(self, name: str, key: str, text: str, entries: list[str], limit: int, version: str | None) -> None:
        set_fields(self, name, key, text, entries, limit, version)

    @property
    def chars(self) -> int:
        """Its length in characters."""
        return len(self.text)


def read_file(store: Store, scope: str, name: str) -> MemFile:
    """A memory file now (empty when never written or forgotten)."""
    key = file_key(scope, name)
    try:
        v = current(store, key)
        text, oid = v.fact.body, v.id
    except NotFound:
        text, oid = "", None
    if text is None or text.strip() == SEP:  # SEP alone: a file emptied by its edits
        text = ""
    return MemFile(name, key, text, split_entries(text) if name != "journal" else [], LIMITS.get(name, 0), oid)


class EditResult(Record):
    """An applied edit: ``file``, ``chars`` and ``limit`` after, ``message``
    (``memory.md updated (1,510 of 2,200 characters)``), ``moved`` entries,
    ``redacted``: credentials the new text lost to ``[REDACTED:<rule>]``."""

    __slots__ = ("file", "chars", "limit", "message", "moved", "version", "queued", "redacted")

    def __init__(self, file: str, chars: int, limit: int, message: str, moved: list[str] | None = None,
                 version: str | None = None, queued: str | None = None, redacted: int = 0) -> None:
        set_fields(self, file, chars, limit, message, [] if moved is None else moved, version, queued, redacted)


def _instruction_entry(plan: dict) -> tuple[str, str] | None:
    """(entry, pattern name) of the first entry a plan writes that reads like
    an instruction to a model (``proposals.looks_like_instruction``), or None."""
    a = plan["action"]
    if a == "add":
        texts = [plan["text"]]
    elif a == "replace":
        texts = [plan["new"]]
    elif a == "remove":
        texts = []
    else:
        texts = [e["new"] for e in plan["entries"] if e["op"] == "rewrite"] + list(plan["add"])
    for t in texts:
        why = looks_like_instruction(t)
        if why is not None:
            return t, why
    return None


def normalize_plan(plan: dict) -> dict:
    """Validate an edit plan (module doc) and return it in canonical form.
    Raises InvalidInput."""
    if not isinstance(plan, dict):
        raise InvalidInput("an edit plan is a JSON object")
    action, name = plan.get("action"), plan.get("file")
    if action not in ACTIONS:
        raise InvalidInput(f"action must be one of {', '.join(ACTIONS)}")
    if name not in FILES:
        raise InvalidInput(f"file must be one of {', '.join(FILES)}")
    out: dict = {"action": action, "file": name}
    if action == "add":
        out["text"] = check_new_entry(plan.get("text", ""))
    elif action == "replace":
        out["old"], out["new"] = check_entry(plan.get("old", "")), check_new_entry(plan.get("new", ""))
    elif action == "remove":
        out["old"] = check_entry(plan.get("old", ""))
    else:
        ents = plan.get("entries")
        if not isinstance(ents, list):
            raise InvalidInput("consolidate needs \"entries\": every current entry with an op")
        norm = []
        for e in ents:
            if not isinstance(e, dict) or e.get("op") not in OPS:
                raise InvalidInput(f"each consolidate entry needs \"old\" and an \"op\" of {', '.join(OPS)}")
            item = {"old": check_entry(e.get("old", "")), "op": e["op"]}
            if e["op"] == "rewrite":
                item["new"] = check_new_entry(e.get("new", ""))
            norm.append(item)
        out["entries"] = norm
        out["add"] = [check_new_entry(x) for x in plan.get("add") or []]
    return out


def redact_plan(plan: dict) -> tuple[dict, int]:
    """A normalized plan with each entry text it names (``text``, ``old``,
    ``new``, a consolidate's ``entries`` and ``add``) through the one
    redaction (``objstore.core.redact.redact``), and the number of
    credentials replaced by ``[REDACTED:<rule>]``.  Applied before a plan
    is queued (its JSON is a queue item's body) or applied (a stored file
    holds entries redacted, so an ``old`` typed with the credential still
    names its entry, and no message echoes one).  Idempotent."""
    from objstore.core.redact import redact  # deferred: the redaction rules compile at import
    n = 0

    def red(t: str) -> str:
        nonlocal n
        r = redact(t)
        n += len(r.hits)
        return r.text

    out = dict(plan)
    for f in ("text", "old", "new"):
        if f in out:
            out[f] = red(out[f])
    if "entries" in out:
        out["entries"] = [{**e, **{f: red(e[f]) for f in ("old", "new") if f in e}} for e in out["entries"]]
    if "add" in out:
        out["add"] = [red(x) for x in out["add"]]
    return out, n


def _apply_plan(entries: list[str], plan: dict) -> tuple[list[str], list[str]]:
    """(new entries, moved entries); Refused when an OLD is not an entry now."""
    name = f"{plan['file']}.md"

    def need(old: str) -> int:
        try:
            return entries.index(old)
        except ValueError:
            near = [e for e in entries if old.strip() and old.strip().casefold() in e.casefold()]
            raise Refused(f"{name} has no entry that is exactly {old[:60]!r}; nothing changed",   # (fresh40 F15:
                          hint=f"give the entry's whole text, e.g. {near[0][:80]!r}" if near else  # "it changed
                          f"see the entries with: mem memory show {plan['file']}") from None      # since")

    new, moved = list(entries), []
    a = plan["action"]
    if a == "add":
        new.append(plan["text"])
    elif a == "replace":
        new[need(plan["old"])] = plan["new"]
    elif a == "remove":
        del new[need(plan["old"])]
    else:
        named = [e["old"] for e in plan["entries"]]
        dup = {x for x in named if named.count(x) > 1}
        if dup:
            raise Refused(f"consolidate names {next(iter(dup))[:60]!r} twice; nothing changed")
        for e in named:
            need(e)
        missing = [e for e in entries if e not in named]
        if missing:
            raise Refused(f"consolidate must name every entry of {name}; it leaves out {missing[0][:60]!r}; "
                          "nothing changed")
        new = []
        for e in plan["entries"]:
            if e["op"] == "keep":
                new.append(e["old"])
            elif e["op"] == "rewrite":
                new.append(e["new"])
            elif e["op"] == "move":
                moved.append(e["old"])
        new += plan["add"]
    seen = set()
    for e in new:
        if e in seen:
            raise Refused(f"{name} would hold the entry {e[:60]!r} twice; nothing changed")
        seen.add(e)
    return new, moved


def _iso(ms: int) -> str:
    import datetime as _dt  # deferred: only a file's header needs it (start-up)
    return _dt.datetime.fromtimestamp(ms / 1000, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def apply_edit(store: Store, scope: str, plan: dict, *, session: str = "-", approval: str = "-",
               command: str = "memory", reviewed: bool = False) -> EditResult:
    """Apply an edit plan to a memory file now (the owner's edit, or an
    accepted proposal).  Raises InvalidInput (a bad plan), Refused (a stale
    OLD, a duplicate, or the limit: ``memory.md would be 2,350 of 2,200
    characters; use consolidate to move entries to the archive.``).

    An entry that reads like an instruction to a model (the check every
    write gets, ``proposals.park``) is not written: the plan itself is
    queued (kind ``memory-edit``) and the result's ``queued`` names the item;
    accepting it applies the plan to the file as it is then (:func:`accept_item`),
    so later edits are kept.  ``reviewed``: a person accepted this plan
    (queue accept), which skips that check."""
    plan, plan_red = redact_plan(normalize_plan(plan))
    with store.lock(command):
        f = read_file(store, scope, plan["file"])
        new, moved = _apply_plan(f.entries, plan)
        text = join_entries(new)
        if len(text) > f.limit:
            raise Refused(f"{f.name}.md would be {_fmt(len(text))} of {_fmt(f.limit)} characters; "
                          "use consolidate to move entries to the archive.")
        shaped = None if reviewed else _instruction_entry(plan)
        if shaped is not None:
            p = _queue_plan(store, scope, plan, owner="user", trust="user_stated", session=session,
                            note=f"{describe(plan)} (reads like an instruction to a model: {shaped[1]})")
            return EditResult(f"{f.name}.md", f.chars, f.limit,
                              f"queued for review: {p.item[:12]} ({f.name}.md is unchanged: the entry reads like "
                              f"an instruction to a model; accept it with: mem queue accept {p.item[:12]})",
                              [], f.version, p.item, redacted=plan_red)
        t = now_ms()
        version, redacted = f.version, plan_red
        if text != f.text:
            # an emptied file is stored as the separator alone (a value cannot be empty)
            wrote = remember(store, f.key, text or SEP, kind="user", trust="user_stated", owner="user",
                             command=f"{command} {plan['action']}", reviewed=True)
            version, redacted = wrote.version.id, plan_red + wrote.redacted
        if moved:
            arch = read_file(store, scope, "archive")
            block = "\n".join(f"{SEP} moved {_iso(t)} from {f.name}.md in session {session}\n{e}" for e in moved)
            # the archive and the journal only hold entries of the file, already checked
            remember(store, arch.key, (arch.text + "\n" + block).strip(), kind="user", trust="user_stated",
                     owner="user", command=f"{command} move", reviewed=True)
        _journal(store, scope, session, approval, plan["action"], f"{f.name}.md", f.entries, new)
    return EditResult(f"{f.name}.md", len(text), f.limit,
                      f"{f.name}.md updated ({_fmt(len(text))} of {_fmt(f.limit)} characters)", moved, version,
                      redacted=redacted)


def utf8_text(raw: bytes, what: str) -> str:
    """The text of a file's bytes ``raw`` (an edited memory file, a note
    to import): strict UTF-8, a leading BOM dropped, CRLF read as LF (as
    ``click.edit`` reads).  Raises InvalidInput ``<what> is not UTF-8 text
    (byte 0xNN at offset N)``, the offset counted in ``raw`` from 0: a
    replacement character in the bad byte's place would be stored as if
    the owner had typed it."""
    bom = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    try:
        text = raw[bom:].decode("utf-8")
    except UnicodeDecodeError as e:
        at = bom + e.start
        raise InvalidInput(f"{what} is not UTF-8 text (byte 0x{raw[at]:02x} at offset {at:,})") from None
    return text.replace("\r\n", "\n")


def set_file(store: Store, scope: str, name: str, text: str | bytes, *, session: str = "-") -> EditResult:
    """The owner's whole-file edit (``mem memory edit``): the new text's
    entries must be valid and distinct and fit the limit.  Journalled as
    action ``edit``.  ``text`` as bytes (what the editor saved) is read by
    :func:`utf8_text`.  Raises InvalidInput (bytes that are not UTF-8:
    nothing changed) and Refused as :func:`apply_edit`."""
    if name not in FILES:
        raise InvalidInput(f"no memory file {name!r}: use one of {', '.join(FILES)}")
    if isinstance(text, bytes):
        try:
            text = utf8_text(text, f"the edited {name}.md")
        except InvalidInput as e:
            raise InvalidInput(f"{e.message}; nothing changed", hint="save the file as UTF-8 and edit again") from None
    entries = [check_entry(e) for e in split_entries(text)]
    dup = {e for e in entries if entries.count(e) > 1}
    if dup:
        raise Refused(f"{name}.md would hold the entry {next(iter(dup))[:60]!r} twice; nothing changed")
    new = join_entries(entries)
    limit = LIMITS[name]
    if len(new) > limit:
        raise Refused(f"{name}.md would be {_fmt(len(new))} of {_fmt(limit)} characters; "
                      "use consolidate to move entries to the archive.")
    with store.lock("memory edit"):
        f = read_file(store, scope, name)
        for e in entries:
            why = None if e in f.entries else looks_like_instruction(e)
            if why is not None:  # it would be injected unreviewed: review it as an edit of its own
                raise Refused(f"the entry {e[:60]!r} reads like an instruction to a model ({why}); nothing changed",
                              hint=f"add it with: mem memory add {name} TEXT (it goes to the review queue)")
        version = f.version
        if new != f.text:
            version = remember(store, f.key, new or SEP, kind="user", trust="user_stated", owner="user",
                               command="memory edit", reviewed=True).version.id
            _journal(store, scope, session, "-", "edit", f"{name}.md", f.entries, entries)
    return EditResult(f"{name}.md", len(new), limit,
                      f"{name}.md updated ({_fmt(len(new))} of {_fmt(limit)} characters)", [], version)


def _journal(store: Store, scope: str, session: str, approval: str, action: str, file: str,
             before: list[str], after: list[str]) -> None:
    jr = read_file(store, scope, "journal")
    line = json.dumps({"time": now_ms(), "session": session, "approval": approval, "action": action,
                       "file": file, "before": before, "after": after}, ensure_ascii=False)
    lines = [*jr.text.splitlines(), line]
    while len(lines) > 1 and sum(map(len, lines)) + len(lines) > JOURNAL_MAX_CHARS:
        del lines[0]   # the oldest record: kept in the journal key's earlier versions (mem log)
    remember(store, jr.key, "\n".join(lines).strip(), kind="user", trust="user_stated", owner="user",
             command="memory journal", reviewed=True)


#: the most characters the journal's current value holds: its oldest records leave it (they stay in the
#: key's earlier versions); one growing value reached remember's 100,000 after ~20 edits of a full
#: memory.md and every later edit failed, "body is longer than 100000 characters" (mf32's finding)
JOURNAL_MAX_CHARS = 60_000


def propose_edit(store: Store, scope: str, plan: dict, *, owner: str = "agent", session: str = "-"):
    """Queue an agent's edit for the owner's approval; returns the queue's
    ``Parked(item id, new, redacted)`` (``new`` False: the same edit was
    queued already; ``redacted``: credentials its texts lost to
    ``[REDACTED:<rule>]``, :func:`redact_plan`, before it was queued).
    Raises InvalidInput (a bad plan; an ``owner`` or ``session`` holding a
    credential, :func:`_queue_plan`) and Refused (``soul.md``, or an edit that
    would fail now: it is checked against the file as it is)."""
    plan, n = redact_plan(normalize_plan(plan))
    if plan["file"] == "soul":
        raise Refused("soul.md is the owner's alone: an agent cannot propose edits to it")
    f = read_file(store, scope, plan["file"])
    new, _moved = _apply_plan(f.entries, plan)
    if len(join_entries(new)) > f.limit:
        raise Refused(f"{f.name}.md would be {_fmt(len(join_entries(new)))} of {_fmt(f.limit)} characters; "
                      "use consolidate to move entries to the archive.")
    p = _queue_plan(store, scope, plan, owner=owner, trust="agent_observed", session=session,
                    note=describe(plan))
    return queue.Parked(p.item, p.new, p.redacted + n)


def _queue_plan(store: Store, scope: str, plan: dict, *, owner: str, trust: str, session: str, note: str):
    """Queue a (normalized) plan as a ``memory-edit`` item; ``Parked``.
    ``owner`` and ``session`` are stored in the clear (the item and its
    body): a credential in either raises InvalidInput, the one name rule
    (:func:`objstore.memory.writechecks.check_key_credentials`)."""
    check_key_credentials(owner, "agent")
    if session != "-":
        check_key_credentials(session, "namespace")
    body = json.dumps({**plan, "scope": scope, "session": session}, ensure_ascii=False, sort_keys=True)
    return queue.propose(store, EDIT_KIND, file_key(scope, plan["file"]), body, fact_kind="user",
                         trust=trust, owner=owner, note=note)


def describe(plan: dict) -> str:
    """A one-paragraph reading of a plan, entries by text (for the queue)."""
    name = f"{plan['file']}.md"
    a = plan["action"]
    if a == "add":
        return f"add to {name}: {plan['text']}"
    if a == "replace":
        return f"in {name} replace: {plan['old']}  →  {plan['new']}"
    if a == "remove":
        return f"remove from {name}: {plan['old']}"
    parts = [f"{e['op']}: {e['old']}" + (f" → {e['new']}" if e.get("new") else "") for e in plan["entries"]]
    parts += [f"add: {x}" for x in plan.get("add") or []]
    return f"consolidate {name}: " + "; ".join(parts)


def accept_item(store: Store, prefix: str, *, body: str | None = None, replace_newer: bool = False):
    """Accept a queued item: a ``memory-edit`` is applied as the owner's edit
    (:func:`apply_edit`, then closed); any other kind is
    ``objstore.memory.queue.accept`` (``replace_newer`` passed on).  Returns
    that function's Decision (for a memory edit: decision ``accepted``,
    value the result message)."""
    with store.lock("queue accept"):
        it = queue.resolve(store, prefix)
        if it.item.kind != EDIT_KIND:
            if is_memory_file_key(it.item.key) and body is None:
                _check_whole_file(store, it)
            return queue.accept(store, prefix, body=body, replace_newer=replace_newer)
        plan = json.loads(it.item.body)
        res = apply_edit(store, plan.pop("scope", "user"), plan, session=plan.pop("session", "-"),
                         approval=it.id, command="queue accept", reviewed=True)
        queue.close(store, it, "queue accept")
        return queue.Decision(it, "accepted", res.message, res.version, 0, True)


def _check_whole_file(store: Store, it) -> None:
    """Refused when accepting ``it`` (a whole memory file's text, queued by an
    older mem) would drop an entry the file holds now: the file changed
    since it was queued."""
    try:
        now = current(store, it.item.key).fact.body or ""
    except NotFound:
        return
    proposed = set(split_entries(it.item.body))
    lost = [e for e in split_entries(now) if e.strip() != SEP and e not in proposed]
    if lost:
        raise Refused(f"{it.item.key} changed since this proposal was queued: accepting it would drop the entry "
                      f"{lost[0][:60]!r}; nothing changed",
                      hint=f"reject it (mem queue reject {it.id[:12]}) and add the entry again with mem memory add")


def journal(store: Store, scope: str) -> list[dict]:
    """The journal's records, oldest first."""
    out = []
    for line in read_file(store, scope, "journal").text.splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def render_files(store: Store, scopes: list[str], *, sees=None, room: int | None = None) -> str:
    """The memory files' part of the session block: for each scope, ``#
    soul.md``, ``# memory.md (1,474 of 2,200 characters)``, ``# user.md (0
    of 1,375 characters)`` with ``(empty)`` under an empty file; a file over
    its limit (edited by hand) or unreadable says so instead of vanishing.
    ``sees``: a confined reader's key filter (``str -> bool``, as
    ``retrieval.context.render_context`` takes it): a file whose key
    (:func:`file_key`) it refuses is left out, neither read nor named.
    ``room``: most characters of the result (None: no cap).  When the
    files do not fit, each file keeps the same share of its text (cut at
    the last entry that fits its share, else mid-entry), so every file,
    user.md and the project's too, is loaded in part rather than the last
    ones not at all, and its label says ``cut to fit the session budget:
    N of M characters shown`` (test32 X13)."""
    parts = []
    files = {(s, n): None for s in scopes for n in FILES if sees is None or sees(f"{s}/memory/{n}.md")}
    for s, n in files:
        try:
            files[(s, n)] = read_file(store, s, n)
        except Exception:  # noqa: BLE001 - reported below
            pass
    if not any(f is None or f.version for f in files.values()):
        return ""  # no memory file was ever written: the block stays as it was
    shown = []   # (label, text, whole length)
    for scope in scopes:
        for name in FILES:
            if (scope, name) not in files:
                continue    # outside the reader's namespaces
            f = files[(scope, name)]
            if f is None:  # an unreadable file is named, never silently dropped
                shown.append((f"# {name}.md ({scope}): unreadable; see: mem memory show {name}", None, 0))
                continue
            if scope != "user" and not f.text:
                continue
            label = f"# {name}.md" + ("" if scope == "user" else f" ({scope})")
            text = f.text
            if name != "soul":
                label += f" ({_fmt(len(text))} of {_fmt(f.limit)} characters)"
            if len(text) > f.limit:
                label += f" OVER ITS LIMIT: shown cut; run: mem memory edit {name}"
                text = text[: f.limit]
            shown.append((label, escape_headings(text), len(text)))
    whole = sum(len(lb) + 2 + len(t or "") for lb, t, _n in shown)
    if room is not None and whole > room:
        texts = sum(len(t or "") for _lb, t, _n in shown)
        share = max(0.0, (room - (whole - texts) - 90 * len(shown)) / max(1, texts))
        shown = [(lb, t, n) if not t else _cut_entry(lb, t, int(len(t) * share)) for lb, t, n in shown]
    for label, text, _n in shown:
        parts.append(label if text is None else label + "\n" + (text or "(empty)"))
    return "\n\n".join(parts)


def _cut_entry(label: str, text: str, keep: int) -> tuple[str, str, int]:
    """``text`` cut to ``keep`` characters, at the last entry boundary that
    fits when one does, with the count said in ``label``."""
    if keep >= len(text):
        return label, text, len(text)
    cut = text[:keep]
    at = cut.rfind("\n" + SEP + "\n")
    cut = (cut[:at] if at > 0 else cut).rstrip()
    return (f"{label} (cut to fit the session budget: {_fmt(len(cut))} of {_fmt(len(text))} characters shown; "
            "the whole file: mem memory show)", cut + ("\n…" if cut else "…"), len(text))


# -- the curated tier ------------------------------------------------------------

def untrusted_origin(fact) -> str | None:
    """Why a fact's origin is not trusted enough to curate (None when it is):
    text derived by a model, or text someone else wrote that the store
    imported or an agent observed (its owner is not the person)."""
    if fact.trust == "derived":
        return "it was derived by a model"
    if fact.trust != "user_stated":
        return f"it is {fact.owner if fact.owner != 'user' else 'an agent'}'s text ({fact.trust}), not yours"
    return None


def promote(store: Store, key: str, *, standing: bool = False, demote: bool = False):
    """Mark ``key``'s current fact curated (``standing``: also loaded into
    every session block ahead of other facts), or take that back
    (``demote``).  A new version records it (``objstore.memory.decay.restate``).

    Raises NotFound (no such key), Refused (an untrusted origin, a sealed
    key, or a memory file, which is curated by its own rules)."""
    if is_memory_file_key(key):
        raise Refused(f"{key} is a memory file: it is always loaded, no promotion needed")
    refuse_if_sealed(store, key, "demote" if demote else "promote")   # not "no key" (fresh38 F20)
    cur = current(store, key)
    why = untrusted_origin(cur.fact)
    if why and not demote:
        raise Refused(f"{key} cannot be promoted: {why}",
                      hint=f"state it yourself first: mem remember {key} \"...\"")
    level = 0 if demote else (2 if standing else 1)
    r = restate(store, key, curated=level, command="demote" if demote else "promote")
    keys = set(_standing_keys(store))
    keys = keys | {cur.fact.key} if level == 2 else keys - {cur.fact.key}
    atomic_write(store.root / STANDING, "".join(k + "\n" for k in sorted(keys)).encode("utf-8"))
    return r


#: keys promoted --standing (a derived list; each is checked against its current version when read)
STANDING = "cache/standing-keys"


def _standing_keys(store: Store) -> list[str]:
    try:
        return [k for k in (store.root / STANDING).read_text("utf-8").splitlines() if k]
    except FileNotFoundError:
        return []


def standing_facts(store: Store) -> list:
    """``(id, Fact)`` of the current versions that are curated and standing,
    whatever their project (read from the list ``promote`` keeps, each
    checked: a key whose current version is no longer standing is skipped)."""
    out = []
    for key in _standing_keys(store):
        try:
            v = current(store, key)
        except MemError:
            continue
        if v is not None and v.fact.curated == 2 and not v.fact.forgotten:
            out.append((v.id, v.fact))
    return out
