"""What the review shell's commands do: plain functions, no terminal.

Every command is ``handler(state, arg) -> Reply`` registered with
``@meta_command``; :func:`dispatch` parses a line and runs one.  A command
that needs an answer (``forget``'s confirmation, ``edit``'s new value)
returns a :class:`Reply` carrying an :class:`Ask`; the front end (the
prompt-toolkit session in ``app.py``, or :func:`run_lines` for scripts)
asks and calls ``ask.on_answer(text)``.  Nothing here prints or imports
prompt_toolkit, so tests call these functions directly.

All text that comes from the store goes through ``safe()`` (control
characters shown as ``\\xNN``) before it reaches a terminal.
"""

from __future__ import annotations

import difflib
import os
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import zip_longest

from objstore import MemError, NotFound
from objstore import Store, count_sessions

from .._out import hint_of
from .._common import fmt_time, plural, safe, short
from .meta import arg_specs, commands, lookup, meta_command
from .suggest import Catalog, Counts


@dataclass
class Ask:
    """A question a command needs answered before it acts.

    Attributes:
        prompt: the question.  default: text to pre-fill (``edit``).
        on_answer: called with the answer, or None when the person
            cancelled (Ctrl-C, Ctrl-D, end of input); returns the next Reply.
    """

    prompt: str
    on_answer: Callable[[str | None], Reply]
    default: str = ""


@dataclass
class Reply:
    """What a command returns.

    Attributes:
        lines: text to show, one line each, already made safe.
        ask: a question to ask next, or None.
        exit: leave the shell.
        changed: the store changed (refresh the toolbar and completions).
        purged: the history file was purged (the session reloads it).
        code: the exit status the command failed with (a
            :class:`MemError`'s ``exit_code``; 2 for an unknown command), 0
            when it did not fail (:func:`run_lines` returns the first).
    """

    lines: list[str] = field(default_factory=list)
    ask: Ask | None = None
    exit: bool = False
    changed: bool = False
    purged: bool = False
    code: int = 0


@dataclass
class ShellState:
    """The session's state.

    Attributes:
        store: the open store.
        current: id of the queue item the shell is on (``accept``, ``reject``
            and ``edit`` act on it when no id is given).
        width: terminal columns (side-by-side views).
    """

    store: Store
    current: str | None = None
    width: int = 100


# -- helpers -----------------------------------------------------------------

def _cw(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _width(text: str) -> int:
    return sum(_cw(c) for c in text)


def _wrap(text: str, width: int) -> list[str]:
    """Cut ``text`` (one line) into pieces of at most ``width`` columns."""
    out, cur, w = [], "", 0
    for ch in text:
        c = _cw(ch)
        if w + c > width and cur:
            out.append(cur)
            cur, w = "", 0
        cur += ch
        w += c
    out.append(cur)
    return out


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))


def side_by_side(left_title: str, left: str, right_title: str, right: str, width: int = 100) -> list[str]:
    """Two texts in two columns, aligned line by line with ``difflib`` (like
    ``sdiff``): the gutter shows ``|`` changed, ``<`` only left, ``>`` only
    right, blank equal.  ``width`` is the total width in columns (>= 20)."""
    col = max(8, (max(width, 20) - 3) // 2)
    a = safe(left).split("\n")
    b = safe(right).split("\n")
    rows = [(_pad(left_title[:col], col), " ", right_title[:col])]
    rows.append(("─" * col, " ", "─" * col))
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        mark = {"equal": " ", "replace": "|", "delete": "<", "insert": ">"}[tag]
        for la, lb in zip_longest(a[i1:i2], b[j1:j2]):
            pa = _wrap(la, col) if la is not None else []
            pb = _wrap(lb, col) if lb is not None else []
            for k, (x, y) in enumerate(zip_longest(pa, pb, fillvalue="")):
                rows.append((_pad(x, col), mark if k == 0 else " ", y))
    return [f"{x} {m} {y}".rstrip() for x, m, y in rows]


def _items(state: ShellState):
    from objstore import queue_items as items
    its = items(state.store)
    ids = [i.id for i in its]
    if state.current not in ids:
        state.current = ids[0] if ids else None
    return its


def _target(state: ShellState, arg: str):
    """The item named by ``arg`` (an id prefix), else the current one."""
    from objstore import queue_resolve as resolve
    arg = arg.strip()
    if arg:
        it = resolve(state.store, arg.split()[0])
        state.current = it.id
        return it
    its = _items(state)
    if not its:
        raise NotFound("the review queue is empty")
    return next(i for i in its if i.id == state.current)


def render_item(state: ShellState, it, *, position: str = "") -> list[str]:
    """An item: header, note, and the key's current value beside the proposal."""
    from objstore import queue_current_version as current_version
    q = it.item
    if q.kind == "contradiction":  # one question about two keys: keep which?
        lines = [safe(f"{position}contradiction  ({it.id[:12]})"), safe(f"  {q.note}"),
                 safe(f"  flagged by {q.owner or '-'} at {fmt_time(q.time)}")]
        sides = []
        for key in (q.other, q.key):
            cur = current_version(state.store, key)
            sides.append((f"{key} v{cur.fact.version}" if cur else f"{key} (no value)",
                          cur.fact.body if cur else (q.body if key == q.other else "")))
        lines += side_by_side(sides[0][0], sides[0][1], sides[1][0], sides[1][1], state.width)
        lines.append(safe(f"  accept keeps {q.other} · reject keeps {q.key} · edit writes one value to both"
                          "   (Alt-a, Alt-r, Alt-e, Alt-n)"))
        return lines
    head = f"{position}{q.kind}  {q.key}  ({it.id[:12]})"
    lines = [safe(head), safe(f"  {q.note}") if q.note else None,
             safe(f"  proposed by {q.owner or '-'} ({q.trust}) at {fmt_time(q.time)}")]
    if q.other:
        lines.append(safe(f"  conflicts with {q.other}"))
    cur = current_version(state.store, q.key)
    left_title = f"current v{cur.fact.version} ({cur.fact.trust})" if cur else "current: (no value)"
    if q.kind == "memory-edit":  # an edit of a memory file reads by its entries' text (the note), never as JSON
        lines[1] = None
        now = (cur.fact.body if cur and cur.fact.body.strip() != "§" else "") or "(empty)"
        lines += ["  the file now:", *("    " + ln for ln in safe(now).split("\n")),
                  "  the edit:", "    " + safe(q.note)]
    else:
        lines += side_by_side(left_title, cur.fact.body if cur else "", "proposed", q.body, state.width)
    lines.append("  accept · reject · edit · next   (Alt-a, Alt-r, Alt-e, Alt-n)")
    return [x for x in lines if x is not None]


def _position(state: ShellState, it) -> str:
    its = _items(state)
    ids = [i.id for i in its]
    return f"[{ids.index(it.id) + 1}/{len(ids)}] " if it.id in ids else ""


def _after_decision(state: ShellState, decided_id: str, before: list[str]) -> list[str]:
    """Move to the item after the decided one and show it (or say the queue is empty)."""
    its = _items(state)
    if not its:
        state.current = None
        return ["the review queue is empty now"]
    ids = [i.id for i in its]
    nxt = None
    if decided_id in before:
        for cand in before[before.index(decided_id) + 1:]:
            if cand in ids:
                nxt = cand
                break
    state.current = nxt or ids[0]
    it = next(i for i in its if i.id == state.current)
    return ["", *render_item(state, it, position=_position(state, it))]


def _do_accept(state: ShellState, it, body: str | None) -> Reply:
    import os

    from objstore import queue_accept as accept, queue_items as items, require_person
    require_person(os.environ, "queue accept")
    before = [i.id for i in items(state.store)]
    d = accept(state.store, it.id, body=body)
    what = f"wrote {d.item.item.key} v{d.version_number}" if d.written else \
        f"{d.item.item.key} already held this value (v{d.version_number})"
    if d.item.item.kind == "contradiction":
        from ..queue import settled
        what = settled(d)
    if d.item.item.kind == "memory-edit":
        what = d.body  # "memory.md updated (1,510 of 2,200 characters)"
    edited = " (edited)" if body is not None else ""
    from objstore import queue_replaced_note
    note = queue_replaced_note(state.store, d)
    from .._out import redacted_lines   # the words of 'mem remember' (test39 m4: an edit said nothing)
    return Reply([safe(f"accepted {it.id[:12]}{edited}: {what}"), *redacted_lines(d.redacted),
                  *([safe(f"note: {note}")] if note else []), *_after_decision(state, it.id, before)], changed=True)


# -- the commands -----------------------------------------------------------

@meta_command("queue", usage="queue", aliases=("q", "ls", "list"), binding="Alt-q")
def cmd_queue(state: ShellState, arg: str) -> Reply:
    """List the review queue (> marks the current item)."""
    its = _items(state)
    if not its:
        return Reply(["the review queue is empty"])
    lines = [f"{plural(len(its), 'item')} to review:"]
    for i in its:
        q = i.item
        mark = ">" if i.id == state.current else " "
        shown = q.note if q.kind in ("memory-edit", "contradiction") else q.body
        lines.append(safe(f"{mark} {i.id[:12]}  {q.kind:<9}  {q.key}  {short(shown, 40)}"))
    return Reply(lines)


@meta_command("next", usage="next", aliases=("n",), binding="Alt-n")
def cmd_next(state: ShellState, arg: str) -> Reply:
    """Move to the next queued item and show it."""
    its = _items(state)
    if not its:
        return Reply(["the review queue is empty"])
    ids = [i.id for i in its]
    state.current = ids[(ids.index(state.current) + 1) % len(ids)]
    it = its[ids.index(state.current)]
    return Reply(render_item(state, it, position=_position(state, it)))


@meta_command("accept", args=("id",), usage="accept [ID]", aliases=("a",), binding="Alt-a")
def cmd_accept(state: ShellState, arg: str) -> Reply:
    """Write the item's value as user_stated; it leaves the queue."""
    return _do_accept(state, _target(state, arg), None)


@meta_command("reject", args=("id",), usage="reject [ID]", aliases=("r",), binding="Alt-r")
def cmd_reject(state: ShellState, arg: str) -> Reply:
    """Keep the current value; the proposal is never queued again."""
    from objstore import queue_items as items, queue_reject as reject, require_person
    require_person(os.environ, "queue reject")   # the person's decision (as mem queue reject)
    it = _target(state, arg)
    before = [i.id for i in items(state.store)]
    d = reject(state.store, it.id)
    what = f"{it.item.key} keeps its value"
    if it.item.kind == "contradiction":
        from ..queue import settled
        what = settled(d)
    return Reply([safe(f"rejected {it.id[:12]}: {what}"),
                  *_after_decision(state, it.id, before)], changed=True)


@meta_command("edit", args=("id", "text"), usage="edit [ID] [VALUE]", aliases=("e",), binding="Alt-e")
def cmd_edit(state: ShellState, arg: str) -> Reply:
    """Change the proposed value, then accept it (asks when no VALUE)."""
    from objstore import InvalidInput
    from objstore import queue_resolve as resolve
    words = arg.strip().split(maxsplit=1)
    it, value = None, arg.strip()
    if words:
        try:
            it = resolve(state.store, words[0])
            state.current = it.id
            value = words[1] if len(words) > 1 else ""
        except (NotFound, InvalidInput):
            it = None  # not an id: the whole argument is the new value
    if it is None:
        it = _target(state, "")
    if value:
        return _do_accept(state, it, value)

    def answer(text: str | None) -> Reply:
        if text is None or not text.strip():
            return Reply(["nothing accepted"])
        return _do_accept(state, it, text)
    return Reply([safe(f"editing {it.id[:12]} for {it.item.key}")], ask=Ask("new value: ", answer, it.item.body))


def _sealed_reply(state: ShellState, key: str) -> Reply | None:
    """A sealed key is shown masked: its versions' metadata, never a value
    (reading one needs the passphrase: ``mem sealed show``)."""
    from objstore import fact_ref, validate_key
    from objstore import is_sealed, sealed_versions
    try:
        k = validate_key(key)
        if not is_sealed(state.store, k) or state.store.refs.read(fact_ref(k)) is not None:
            return None
        vs = sealed_versions(state.store, k)
    except Exception:  # noqa: BLE001 - fall back to the plain path and its messages
        return None
    return Reply([safe(f"{k}  sealed: {plural(len(vs), 'version')}, value •••••• "
                       f"(read it with: mem sealed show {k})")])


@meta_command("show", args=("key_or_id",), usage="show [KEY|ID]", aliases=("s",))
def cmd_show(state: ShellState, arg: str) -> Reply:
    """Show a key's current version, a queued item, or the current item."""
    from objstore import current
    arg = arg.strip()
    if not arg or "/" not in arg:
        it = _target(state, arg)
        return Reply(render_item(state, it, position=_position(state, it)))
    masked = _sealed_reply(state, arg)
    if masked is not None:
        return masked
    v = current(state.store, arg)
    f = v.fact
    flags = ", ".join(x for x, on in (("pinned", f.pinned), ("dormant", f.dormant)) if on)
    lines = [safe(f"{f.key}  v{f.version}  {v.id[:12]}" + (f"  [{flags}]" if flags else "")),
             f"  {f.kind}  {f.trust}  {f.sensitivity}  owner {safe(f.owner)}",
             f"  valid from {fmt_time(f.valid_from)}  recorded {fmt_time(f.recorded_at)}"]
    if f.sources:
        lines.append(safe(f"  sources: {', '.join(f.sources)}"))
    lines += ["", *safe(f.body).split("\n")]
    return Reply(lines)


@meta_command("log", args=("key",), usage="log KEY", aliases=("l",))
def cmd_log(state: ShellState, arg: str) -> Reply:
    """Every version of KEY, newest first."""
    from objstore import current_of, versions
    key = arg.strip()
    if not key:
        return Reply(["usage: log KEY"])
    masked = _sealed_reply(state, key)
    if masked is not None:
        return masked
    chain = versions(state.store, key)
    cur = current_of(chain)
    lines = []
    for v in chain:
        f = v.fact
        marks = [m for m, on in (("current", cur is not None and v.id == cur.id), ("pinned", f.pinned),
                                 ("dormant", f.dormant), ("forgotten", bool(f.forgotten))) if on]
        lines.append(f"v{f.version}  {v.id[:12]}  {fmt_time(f.valid_from)}  {f.trust}"
                     + (f"  ({', '.join(marks)})" if marks else ""))
        lines.append(safe(f"    {short(f.body, max(20, state.width - 6))}") if not f.forgotten else "    (forgotten)")
    return Reply(lines)


def _pick(chain, spec: str):
    from objstore import clip_spec, version_number
    n = version_number(spec)
    if n is None:
        raise NotFound(f"bad version {clip_spec(spec)}: want vN")
    for v in chain:
        if v.fact.version == n:
            return v
    raise NotFound(f"no version {spec}")


@meta_command("diff", args=("key", "version", "version"), usage="diff KEY [vA vB]", aliases=("d",))
def cmd_diff(state: ShellState, arg: str) -> Reply:
    """Two versions of KEY side by side (default: the two newest)."""
    from objstore import fact_ref, refuse_if_sealed, validate_key, versions
    words = arg.split()
    if len(words) not in (1, 3):
        return Reply(["usage: diff KEY [vA vB]"])
    if state.store.refs.read(fact_ref(validate_key(words[0]))) is None:
        refuse_if_sealed(state.store, words[0], "diff")   # as mem diff, not "no key" (fresh38 F20)
    chain = versions(state.store, words[0])
    if len(words) == 3:
        a, b = _pick(chain, words[1]), _pick(chain, words[2])
    else:
        live = [v for v in chain if not v.fact.forgotten]
        if len(live) < 2:
            return Reply([safe(f"{words[0]} has only one version")])
        b, a = live[0], live[1]

    def title(v):
        return f"v{v.fact.version} {fmt_time(v.fact.valid_from)[:10]} {v.fact.trust}"
    return Reply([safe(chain[0].fact.key),
                  *side_by_side(title(a), a.fact.body, title(b), b.fact.body, state.width)])


@meta_command("search", args=("text",), usage="search QUERY", aliases=("/",))
def cmd_search(state: ShellState, arg: str) -> Reply:
    """BM25 search over facts (dormant ones too) and turns."""
    from objstore import search
    q = arg.strip()
    if not q:
        return Reply(["usage: search QUERY"])
    hits = search(state.store, q, limit=10)
    if not hits:
        return Reply(["no match"])
    from objstore import queue_current_version as current_version
    lines = []
    for h in hits:
        if h.kind == "fact":
            cur = current_version(state.store, h.ref)
            tag = "  [dormant]" if cur is not None and cur.fact.dormant else ""
            lines.append(safe(f"fact  {h.ref}{tag}"))
        else:
            lines.append(safe(f"turn/{h.role}  {h.ref}  {fmt_time(h.time)}"))
        lines.append(safe(f"    {short(h.snippet, max(20, state.width - 6))}"))
    return Reply(lines)


def _state_reply(r, verb: str) -> Reply:
    if r.changed:
        return Reply([safe(f"{verb} {r.key}: v{r.version.fact.version} (same value)")], changed=True)
    if r.touched:
        return Reply([safe(f"{verb} {r.key}")], changed=True)
    return Reply([safe(f"{r.key} is already {verb}")])


@meta_command("pin", args=("key",), usage="pin KEY")
def cmd_pin(state: ShellState, arg: str) -> Reply:
    """Pin KEY: always injected, never dormant."""
    from objstore import pin, require_person
    require_person(os.environ, "pin")   # the person's choice (as mem pin)
    return _state_reply(pin(state.store, arg.strip()), "pinned")


@meta_command("unpin", args=("key",), usage="unpin KEY")
def cmd_unpin(state: ShellState, arg: str) -> Reply:
    """Unpin KEY: it may go dormant again."""
    from objstore import unpin, require_person
    require_person(os.environ, "unpin")   # the person's choice (as mem unpin)
    return _state_reply(unpin(state.store, arg.strip()), "unpinned")


@meta_command("reinforce", args=("key",), usage="reinforce KEY")
def cmd_reinforce(state: ShellState, arg: str) -> Reply:
    """Restart KEY's decay clock; wake it if dormant."""
    from objstore import reinforce
    r = reinforce(state.store, arg.strip())
    return _state_reply(r, "woke" if r.changed else "reinforced")


@meta_command("dormant", usage="dormant")
def cmd_dormant(state: ShellState, arg: str) -> Reply:
    """List dormant facts (searchable, never injected)."""
    from objstore import dormant
    vs = dormant(state.store)
    if not vs:
        return Reply(["no dormant facts"])
    return Reply([f"{plural(len(vs), 'dormant fact')}:"]
                 + [safe(f"  {v.fact.key}  v{v.fact.version}  {short(v.fact.body, 50)}") for v in vs])


@meta_command("forget", args=("key",), usage="forget KEY")
def cmd_forget(state: ShellState, arg: str) -> Reply:
    """Forget KEY for good: shows what goes, then asks you to type yes."""
    import os

    from objstore import preview, require_person
    require_person(os.environ, "forget")   # the person's decision (as mem forget)
    from objstore import validate_key
    key = arg.strip()
    if not key:
        return Reply(["usage: forget KEY"])
    key = validate_key(key)
    if (sealed := _sealed_only(state, key)) is not None:
        return sealed
    chain = preview(state.store, key)
    lines = [safe(f"will forget {key}: {plural(len(chain), 'version')}")]
    lines += [safe(f"  v{v.fact.version}  {v.id[:12]}  {fmt_time(v.fact.valid_from)}  {short(v.fact.body, 50)}")
              for v in chain if not v.fact.forgotten]

    def answer(text: str | None) -> Reply:
        if text is None or text.strip().lower() != "yes":
            return Reply(["nothing forgotten"])
        return do_forget(state, key)
    return Reply(lines, ask=Ask(f"forget {key} for good? type yes to confirm: ", answer))


def _sealed_only(state: ShellState, key: str) -> Reply | None:
    """``forget KEY`` of a sealed key (no plain versions): as ``mem forget
    KEY``, every sealed version goes, nothing decrypted (fresh38 F20: "no
    key"); the preview shows versions and ids, never a value.  None for a
    key with plain versions."""
    from objstore import fact_ref, is_sealed, sealed_versions
    if state.store.refs.read(fact_ref(key)) is not None or not is_sealed(state.store, key):
        return None
    chain = sealed_versions(state.store, key)
    lines = [safe(f"will forget the sealed key {key}: {plural(len(chain), 'sealed version')} (nothing is decrypted)")]
    lines += [safe(f"  v{v.sealed.version}  {v.id[:12]}  {fmt_time(v.sealed.valid_from)}  ••••••") for v in chain]

    def answer(text: str | None) -> Reply:
        if text is None or text.strip().lower() != "yes":
            return Reply(["nothing forgotten"])
        from objstore import forget_sealed, purge_history, queue_drop
        n = forget_sealed(state.store, key)
        dropped = queue_drop(state.store, key=key)
        scrubbed = purge_history(state.store, [v.id for v in chain])
        out = [safe(f"forgot the sealed key {key}: {plural(n, 'object')} deleted")]
        if dropped:
            out.append(f"dropped {plural(len(dropped), 'queued proposal')} for it")
        if scrubbed:
            out.append(f"removed {plural(scrubbed, 'line')} from the shell history")
        _items(state)
        return Reply(out, changed=True, purged=True)
    return Reply(lines, ask=Ask(f"forget the sealed key {key} for good? type yes to confirm: ", answer))


def do_forget(state: ShellState, key: str) -> Reply:
    """Forget ``key`` (objstore.memory.forget.forget_key), drop its queue items and
    purge the shell history of its values and ids."""
    from objstore import queue_drop, queue_items
    from objstore import forget_key, preview
    from objstore import purge_history
    chain = preview(state.store, key)
    needles = [v.fact.body for v in chain if v.fact.body] + [v.id for v in chain]
    r = forget_key(state.store, key)
    dropped = list(r.queue_dropped) + queue_drop(state.store, key=key)
    scrubbed = purge_history(state.store, needles)
    from .._forgetsay import tombstones_written   # (counted as `mem forget` counts them)
    lines = [safe(f"forgot {key}: {plural(len(r.versions), 'version')}, {tombstones_written(r)}, "
                  f"{plural(r.objects_deleted, 'object')} deleted")]
    if dropped:
        lines.append(f"dropped {plural(len(dropped), 'queued proposal')} for it")
    if scrubbed:
        lines.append(f"removed {plural(scrubbed, 'line')} from the shell history")
    lines += [f"warning: index: {p}" for p in r.index_problems]
    _items(state)
    return Reply(lines, changed=True, purged=True)


@meta_command("help", args=("command",), usage="help [COMMAND]", aliases=("?", "h"))
def cmd_help(state: ShellState, arg: str) -> Reply:
    """List the commands, or explain one."""
    word = arg.strip()
    if word:
        c = lookup(word)
        if c is None:
            return Reply([f"no command {safe(word)!r}"])
        extra = [f"  aliases: {', '.join(c.aliases)}"] if c.aliases else []
        extra += [f"  key: {c.binding}"] if c.binding else []
        return Reply([f"{c.usage}", f"  {c.summary}", *extra])
    cs = commands()
    w = max(len(c.usage) for c in cs)
    lines = [f"  {c.usage:<{w}}  {c.summary}" + (f"  [{c.binding}]" if c.binding else "") for c in cs]
    return Reply(["commands:", *lines, "",
                  "keys: Tab completes commands, keys and ids; Ctrl-C cancels the line; Ctrl-D quits."])


@meta_command("quit", usage="quit", aliases=("exit", ":q"))
def cmd_quit(state: ShellState, arg: str) -> Reply:
    """Leave the shell (Ctrl-D too)."""
    return Reply(exit=True)


# -- running lines ------------------------------------------------------------

def dispatch(state: ShellState, line: str) -> Reply:
    """Run one command line.  Errors become lines (``error: …`` and
    ``hint: …``), never exceptions; an empty line does nothing."""
    text = line.strip()
    if not text:
        return Reply()
    word, _, arg = text.partition(" ")
    cmd = lookup(word)
    if cmd is None:
        return Reply([f"unknown command {safe(word)!r}; type help"], code=2)
    return guarded(lambda: cmd.handler(state, arg))


def guarded(fn: Callable[[], Reply]) -> Reply:
    """Run ``fn``; a :class:`MemError` becomes an ``error:`` reply."""
    try:
        return fn()
    except MemError as e:
        lines = [safe(f"error: {e.message}")]
        hint = hint_of(e)
        if hint:
            lines.append(safe(f"hint: {hint}"))
        return Reply(lines, code=e.exit_code)


def answer(ask: Ask, text: str | None) -> Reply:
    """Answer a question (errors become lines, as in :func:`dispatch`)."""
    return guarded(lambda: ask.on_answer(text))


def welcome(state: ShellState, piped: bool = False) -> Reply:
    """What the shell shows when it opens: the queue and its first item,
    then how to go on: on a terminal, its keys; ``piped`` (commands read
    from standard input, :func:`run_lines`), that, since neither Tab nor
    Ctrl-D means anything there (ux36)."""
    r = guarded(lambda: cmd_queue(state, ""))
    if state.current is not None:
        r.lines += ["", *guarded(lambda: cmd_show(state, "")).lines]
    r.lines.append("commands are read one per line from standard input (not a terminal); help lists them"
                   if piped else "type help for commands; Tab completes; Ctrl-D quits")
    return r


def run_lines(state: ShellState, lines: Iterable[str], echo: Callable[[str], None]) -> int:
    """Run commands from ``lines`` (a script, or standard input that is not
    a terminal); a question takes the next line as its answer (end of input
    cancels it).  Every line is run; returns the exit status of the first
    command that failed (its :attr:`Reply.code`: 6 refused, 4 not found, 2
    an unknown command, …), or 0 when none did, so that a script sees a
    refusal (test37 T9.5: an agent's refused ``accept`` exited 0)."""
    src = iter(lines)
    first = 0
    for ln in welcome(state, piped=True).lines:
        echo(ln)
    for line in src:
        reply = dispatch(state, line.rstrip("\n"))
        while True:
            for ln in reply.lines:
                echo(ln)
            if reply.ask is None:
                break
            echo(reply.ask.prompt)
            nxt = next(src, None)
            first = first or reply.code
            reply = answer(reply.ask, None if nxt is None else nxt.rstrip("\n"))
        first = first or reply.code
        if reply.exit:
            break
    return first


# -- the catalog (completion and toolbar) ------------------------------------

def counts(store: Store) -> Counts:
    """The toolbar's counts (reads every key's chain for the dormant count)."""
    return build_catalog(store).counts


def build_catalog(store: Store) -> Catalog:
    """A :class:`Catalog` snapshot of ``store`` (for completion and the toolbar)."""
    from objstore import queue_drop, queue_items
    from objstore import current_of, key_chains
    keys, versions, dormant = [], {}, 0
    for key, chain in key_chains(store):
        cur = current_of(chain)
        keys.append(key)
        versions[key] = chain[0].fact.version if chain else 0
        dormant += bool(cur is not None and cur.fact.dormant)
    its = queue_items(store)
    sessions = count_sessions(store)
    return Catalog(commands=arg_specs(), summaries={c.name: c.summary for c in commands()},
                   keys=tuple(keys), versions=versions,
                   items=tuple((i.id, f"{i.item.kind} {i.item.key}") for i in its),
                   counts=Counts(queue=len(its), dormant=dormant, facts=len(keys), sessions=sessions))
