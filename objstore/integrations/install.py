"""Install and remove mem's Claude Code hooks in a ``settings.json``.

The file is edited as text, not re-serialised: mem's handlers are inserted
into (or cut out of) the ``hooks`` object and its event arrays, so every other
key, hook, comment-free formatting choice and byte of the file stays as it
was.  The hook shape is Claude Code's (``docs/agent-formats.md`` §1.2): event
-> matcher groups -> handlers; mem's handler is exec-form
(``{"type": "command", "command": "<mem, forward slashes>", "args": ["hook",
"claude-code"], "timeout": <seconds>}``).

* :func:`plan_install` is idempotent: a file that already has mem's handler
  for an event is left alone for that event, so installing twice equals
  installing once.
* :func:`plan_uninstall` restores the exact bytes the file had before
  :func:`plan_install` when the file is still what the install wrote (the
  caller keeps that record, see ``cmds/hooks_install.py``); otherwise it cuts
  every mem handler out (a group that only held mem's handler goes with it,
  an event left empty goes, a ``hooks`` object left empty goes).

A file that is not a JSON object is refused (:class:`InvalidInput`), never
rewritten.  Writing (:func:`write_settings`) replaces the real file behind a
symlink atomically and keeps its permission bits.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from objstore.core.atomic import CACHE_FILE_MAX_BYTES, read_regular
from objstore.core.errors import InvalidInput
from objstore.core.jsonspan import Node, scan, skip_ws

#: events mem handles, with the timeout (seconds) written for each.  Claude
#: Code's SessionEnd budget (1.5 s) is raised to the largest SessionEnd
#: timeout found in settings files, so 5 gives the hook's own 1.2 s room.
EVENT_TIMEOUTS: dict[str, int] = {
    "SessionStart": 15, "SubagentStart": 10, "UserPromptSubmit": 10, "Stop": 30, "SubagentStop": 30,
    "PreCompact": 30, "SessionEnd": 5,
}
HOOK_ARGS = ["hook", "claude-code"]
_SHELL_FORM = re.compile(r"(^|[\s/\\\"'])mem(\.exe)?[\"']?\s+hook\s+claude-code\b")


def hook_args(home: str | None = None) -> list[str]:
    """The handler's ``args``: ``["hook", "claude-code"]``, preceded by
    ``["--home", home]`` for a store that is not the default one (a hook
    runs with the variables Claude Code started with, which need not hold ``MEM_HOME``)."""
    return (["--home", home] if home else []) + list(HOOK_ARGS)


def handler(command: str, event: str, home: str | None = None) -> dict:
    """mem's handler for ``event``: exec-form, ``command`` with forward slashes."""
    return {"type": "command", "command": command.replace("\\", "/"), "args": hook_args(home),
            "timeout": EVENT_TIMEOUTS[event]}


def handler_home(h: dict) -> str | None:
    """The store an exec-form mem handler names with ``--home`` (None: the default)."""
    args = h.get("args")
    if isinstance(args, list) and len(args) >= 4 and args[0] == "--home" and isinstance(args[1], str):
        return args[1]
    return None


def _same_folder(a: str | None, b: str | None) -> bool:
    """Whether two stores' paths (None: ~/.mem) are one folder (a symlink to it: fresh43 F13 "repaired" hooks that
    used the very store, by another path)."""
    try:
        return os.path.samefile(os.path.expanduser(a or "~/.mem"), os.path.expanduser(b or "~/.mem"))
    except (OSError, ValueError):
        return False


def stale_reason(h: dict, home: str | None, exists=None, portable: bool = False) -> str | None:
    """Why an installed exec-form mem handler must be replaced, or None.

    Args:
        home: the store the handler should name (None: the default store).
        exists: ``exists(command) -> bool`` (the caller resolves PATH); None
            skips the check.
        portable: the settings file is shared (project scope): a command
            holding a path is somebody's personal path.
    A shell-form handler is the person's own and is never called stale."""
    if not isinstance(h.get("args"), list):
        return None
    cmd = h.get("command", "")
    if handler_home(h) != home and not _same_folder(handler_home(h), home):
        return f"it uses the store {handler_home(h) or '~/.mem (the default)'}, not {home or '~/.mem (the default)'}"
    if portable and "/" in cmd:
        return f"it runs {cmd}, a personal path, in a shared settings file"
    if exists is not None and not exists(cmd):
        return f"its command {cmd} does not exist"
    return None


def is_mem_handler(h) -> bool:
    """True for a handler that runs ``mem hook claude-code`` (exec or shell form)."""
    if not isinstance(h, dict) or h.get("type", "command") != "command":
        return False
    cmd = h.get("command")
    if not isinstance(cmd, str):
        return False
    args = h.get("args")
    if isinstance(args, list) and (args[:2] == HOOK_ARGS or (args[:1] == ["--home"] and args[2:4] == HOOK_ARGS)):
        base = cmd.replace("\\", "/").rsplit("/", 1)[-1]
        return base in ("mem", "mem.exe") or base.startswith("python")
    return bool(_SHELL_FORM.search(cmd))


# --------------------------------------------------------------------------- spans: objstore.core.jsonspan

def _parse(text: str, what: str) -> tuple[dict, Node]:
    """``(document, span tree)`` of a settings text.  Raises InvalidInput for
    a text that is not one JSON object, or that names a key twice in one
    object: readers keep the last one and the span edit would reach the first,
    so hooks written there would never run (test25 T5)."""
    twice: list[str] = []

    def pairs(items: list) -> dict:
        seen: dict = {}
        for k, v in items:
            if k in seen and not twice:
                twice.append(k)
            seen[k] = v
        return seen

    if text.startswith("\ufeff"):   # (fresh42 F14: Python's "decode using utf-8-sig" said nothing to a user)
        raise InvalidInput(f"{what} starts with a byte order mark (BOM), which JSON does not allow; not touching it",
                           hint="save the file as UTF-8 without a BOM, then run the command again")
    try:
        doc = json.loads(text, object_pairs_hook=pairs) if text.strip() else {}
    except (ValueError, RecursionError) as e:   # (RecursionError: nested thousands deep, test39b B12)
        raise InvalidInput(f"{what} is not valid JSON ({e}); not touching it",
                           hint="fix the file by hand, then run the command again") from None
    if twice:
        raise InvalidInput(f"{what} holds the key {json.dumps(twice[0])} twice in one object (JSON readers keep "
                           "only the last); not touching it",
                           hint="merge the two by hand, then run the command again")
    if not isinstance(doc, dict):
        raise InvalidInput(f"{what} does not hold a JSON object; not touching it")
    if not text.strip():
        return doc, Node(0, 0, "object", members=[])
    return doc, scan(text, 0)


def _member(node: Node, key: str):
    for k, ks, v in node.members or []:
        if k == key:
            return ks, v
    return None


def _line_indent(t: str, pos: int) -> str:
    ls = t.rfind("\n", 0, pos) + 1
    m = re.match(r"[ \t]*", t[ls:])
    return m.group(0) if m else ""


def _unit(t: str, root: Node) -> str:
    """The file's indentation step (from its first member), default 2 spaces."""
    if root.members:
        ind = _line_indent(t, root.members[0][1])
        if ind and t.rfind("\n", 0, root.members[0][1]) > root.start:
            return ind
    return "  "


def _leaf(v) -> bool:
    return not isinstance(v, (dict, list)) or (isinstance(v, list) and all(_leaf(x) and not
                                                                            isinstance(x, list) for x in v))


def _dump(obj, unit: str, base: str, inline: bool = False) -> str:
    """JSON text of ``obj`` continuing at indentation ``base``: nested objects
    and arrays one item a line, an object of scalars (a handler) on one line;
    everything on one line when ``inline`` (a one-line file)."""
    if inline or (isinstance(obj, dict) and all(_leaf(v) for v in obj.values())) or _leaf(obj):
        return json.dumps(obj, ensure_ascii=False)
    ind = base + unit
    if isinstance(obj, dict):
        body = f",\n{ind}".join(f"{json.dumps(k, ensure_ascii=False)}: {_dump(v, unit, ind)}"
                                 for k, v in obj.items())
        return f"{{\n{ind}{body}\n{base}}}"
    body = f",\n{ind}".join(_dump(v, unit, ind) for v in obj)
    return f"[\n{ind}{body}\n{base}]"


def _multiline(t: str, node: Node) -> bool:
    return "\n" in t[node.start:node.end]


def _insert_member(t: str, obj: Node, key: str, value, unit: str, inline: bool = False) -> tuple[int, str]:
    """Where and what to insert to add ``"key": value`` as the last member of ``obj``."""
    k = json.dumps(key, ensure_ascii=False)
    if obj.members:
        last = obj.members[-1][2]
        nl = _multiline(t, obj)
        ind = _line_indent(t, obj.members[-1][1])
        sep = f",\n{ind}" if nl else ", "
        return last.end, f"{sep}{k}: {_dump(value, unit, ind, not nl)}"
    if inline:
        return obj.start + 1, f"{k}: {_dump(value, unit, '', True)}"
    outer = _line_indent(t, obj.start)
    ind = outer + unit
    tail = "" if "\n" in t[obj.start + 1:obj.end - 1] else f"\n{outer}"
    return obj.start + 1, f"\n{ind}{k}: {_dump(value, unit, ind)}{tail}"


def _append_item(t: str, arr: Node, value, unit: str, inline: bool = False) -> tuple[int, str]:
    """Where and what to insert to append ``value`` to array ``arr``."""
    if arr.items:
        last = arr.items[-1]
        nl = _multiline(t, arr)
        ind = _line_indent(t, last.start) if nl else ""
        sep = f",\n{ind}" if nl else ", "
        return last.end, sep + _dump(value, unit, ind, not nl)
    if inline:
        return arr.start + 1, _dump(value, unit, "", True)
    outer = _line_indent(t, arr.start)
    ind = outer + unit
    tail = "" if "\n" in t[arr.start + 1:arr.end - 1] else f"\n{outer}"
    return arr.start + 1, f"\n{ind}{_dump(value, unit, ind)}{tail}"


# --------------------------------------------------------------------------- plans

@dataclass(frozen=True)
class Plan:
    """What an install or uninstall would write: ``before``/``after`` text
    (None = no file), the events it touches and, for an install, the
    ``[start, end)`` spans of ``after`` that it inserted (removing them gives
    ``before`` back: an install only ever inserts)."""

    path: Path
    before: str | None
    after: str | None
    events: tuple[str, ...]
    inserted: tuple[tuple[int, int], ...] = ()
    #: the text ``inserted`` applies to when stale handlers were cut out first (None: ``before``)
    base: str | None = None
    #: why stale mem handlers were replaced (empty: none were)
    repaired: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.before != self.after


def plan_install(path: Path, command: str, *, text: str | None = None, home: str | None = None,
                 exists=None, portable: bool = False) -> Plan:
    """Add mem's handler to every event of :data:`EVENT_TIMEOUTS` that lacks
    one.  ``text``: the file's content (read from ``path`` when None; a
    missing file counts as empty).  ``home``: the store to name in the
    handlers (None: the default store).  A mem handler already there that
    :func:`stale_reason` (with ``exists``, ``portable``) rejects is *repaired*:
    every mem handler is cut out, then fresh ones are inserted (``base`` is
    the cut text, ``repaired`` says why).  Raises InvalidInput for a file
    that is not a JSON object or whose ``hooks`` is not an object of arrays."""
    path = Path(path)
    before = _read(path, writing=True) if text is None else text
    t = before if before is not None else ""
    doc, root = _parse(t, str(path))
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InvalidInput(f"{path}: \"hooks\" is not an object; not touching it")
    reasons: list[str] = []
    for groups in hooks.values():
        for g in groups if isinstance(groups, list) else []:
            for h in (g.get("hooks") if isinstance(g, dict) and isinstance(g.get("hooks"), list) else []):
                if is_mem_handler(h):
                    why = stale_reason(h, home, exists, portable)
                    if why and why not in reasons:
                        reasons.append(why)
    base = None
    if reasons:
        cut = plan_uninstall(path, text=t)
        base = t = cut.after or ""
        doc, root = _parse(t, str(path))
        hooks = doc.get("hooks", {})
    todo = []
    for ev in EVENT_TIMEOUTS:
        groups = hooks.get(ev, [])
        if not isinstance(groups, list):
            raise InvalidInput(f"{path}: hooks.{ev} is not an array; not touching it")
        if any(is_mem_handler(h) for g in groups if isinstance(g, dict)
               for h in (g.get("hooks") if isinstance(g.get("hooks"), list) else [])):
            continue
        todo.append(ev)
    if not todo:
        return Plan(path, before, before, ())
    spans: list[list[int]] = []
    repaired = tuple(reasons)

    def insert(pos: int, piece: str) -> None:
        nonlocal t
        t = t[:pos] + piece + t[pos:]
        n = len(piece)
        for sp in spans:
            if sp[0] >= pos:
                sp[0] += n
                sp[1] += n
            elif sp[1] >= pos:      # inside (or at the end of) an earlier insertion
                sp[1] += n
                return
        spans.append([pos, pos + n])

    if not t.strip():
        insert(len(t), "{}\n")      # an empty file becomes an object
        doc, root = _parse(t, str(path))
    unit = _unit(t, root)
    inline = "\n" not in t.strip()
    for ev in todo:
        group = {"hooks": [handler(command, ev, home)]}
        hk = _member(root, "hooks")
        if hk is None:
            insert(*_insert_member(t, root, "hooks", {ev: [group]}, unit, inline))
        else:
            ek = _member(hk[1], ev)
            if ek is None:
                insert(*_insert_member(t, hk[1], ev, [group], unit, inline))
            else:
                insert(*_append_item(t, ek[1], group, unit, inline))
        doc, root = _parse(t, str(path))
    spans.sort()
    return Plan(path, before, t, tuple(todo), tuple((a, b) for a, b in spans), base, repaired)


def remove_spans(text: str, spans) -> str:
    """``text`` without the ``[start, end)`` spans (an install's ``inserted``)."""
    out, pos = [], 0
    for a, b in sorted(spans):
        out.append(text[pos:a])
        pos = b
    out.append(text[pos:])
    return "".join(out)


def _cut(t: str, parent_items: list, idx: int) -> str:
    """Remove element ``idx`` of a list of spans (array items or object
    members) with the separator that joins it to its neighbour."""
    start, end = parent_items[idx]
    if len(parent_items) == 1:
        return t[:start] + t[end:]
    if idx > 0:
        prev_end = parent_items[idx - 1][1]
        return t[:prev_end] + t[end:]
    nxt = parent_items[1][0]
    return t[:start] + t[nxt:]


def _sha(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def install_record_path(store_root: str | os.PathLike, settings: str | os.PathLike, *,
                        kind: str = "claude-code") -> Path:
    """Where the store at ``store_root`` keeps the :func:`install_record` of
    the settings file ``settings``: ``<store>/installed/<kind>-<h>.json``
    (``kind``: ``claude-code`` for the hooks, ``mcp-<agent>`` for an MCP
    server entry), ``h`` = SHA-256 of the settings file's real path (32 hex)."""
    h = hashlib.sha256(os.path.realpath(settings).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return Path(store_root) / "installed" / f"{kind}-{h}.json"


def curate_paths(store_root: str | os.PathLike) -> tuple[Path, Path]:
    """``(MCP config file, reports folder)`` that ``mem curate`` uses in the
    store at ``store_root``: ``<store>/mcp/curate-mcp.json``, ``<store>/reports``."""
    root = Path(store_root)
    return root / "mcp" / "curate-mcp.json", root / "reports"


def _curate_pass_path(store_root: str | os.PathLike, secret: str) -> Path:
    h = hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return Path(store_root) / "mcp" / f"curate-{h}.pass"


def issue_curate_pass(store_root: str | os.PathLike) -> str:
    """A one-time secret that lets one ``mem mcp --admin`` start as the
    person's curation session (test37 T16): 64 hex characters, returned to
    ``mem curate`` (which puts it in its admin server's ``MEM_CURATE``).
    What is stored is only its proof: an empty file
    ``<store>/mcp/curate-<h>.pass`` (mode 0600, folder 0700), ``h`` = the
    first 32 hex digits of the SHA-256 of the secret, so the store's files
    never hold the secret itself.  Raises OSError when the file cannot be
    written."""
    secret = secrets.token_hex(32)
    path = _curate_pass_path(store_root, secret)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.close(fd)
    return secret


def redeem_curate_pass(store_root: str | os.PathLike, secret: str) -> bool:
    """Use up the pass :func:`issue_curate_pass` returned as ``secret``:
    True when its proof file existed (it is deleted, so a pass opens one
    server only, even to two callers at once), False for any other string
    (``"1"``, a used or unknown pass).  Raises nothing."""
    if not secret or len(secret) != 64:
        return False
    try:
        os.unlink(_curate_pass_path(store_root, secret))
    except OSError:
        return False
    return True


def install_record(plan: Plan) -> dict:
    """What to keep to undo ``plan`` exactly: hashes of the text before and
    after, the inserted spans and whether the file existed (never the
    file's content, which may hold credentials)."""
    base = plan.before if plan.base is None else plan.base
    return {"path": str(plan.path), "existed": plan.before is not None, "before_sha": _sha(base),
            "after_sha": _sha(plan.after), "inserted": [list(x) for x in plan.inserted]}


def plan_uninstall(path: Path, *, text: str | None = None, record: dict | None = None) -> Plan:
    """Remove mem's handlers.  When the file is still exactly what the
    install recorded in ``record`` (:func:`install_record`) wrote, the
    inserted spans are removed, which gives back the bytes from before the
    install (a file the install created is deleted).  Otherwise every mem
    handler is cut out as described in the module doc."""
    path = Path(path)
    before = _read(path) if text is None else text
    if before is None:
        return Plan(path, None, None, ())
    if record and record.get("after_sha") == _sha(before):
        old = remove_spans(before, [tuple(x) for x in record.get("inserted", [])])
        if not record.get("existed") and not old.strip():
            return Plan(path, before, None, tuple(EVENT_TIMEOUTS))
        if _sha(old) == record.get("before_sha"):
            return Plan(path, before, old, tuple(EVENT_TIMEOUTS))
    t = before
    events: list[str] = []
    while True:
        doc, root = _parse(t, str(path))
        hk = _member(root, "hooks")
        if hk is None or hk[1].kind != "object":
            break
        edit = _one_removal(t, hk[1], events)
        if edit is None:
            if not hk[1].members and events:
                i = [m[0] for m in root.members].index("hooks")
                spans = [(ks, v.end) for _k, ks, v in root.members]
                t = _tidy(_cut(t, spans, i))
            break
        t = edit
    return Plan(path, before, t, tuple(dict.fromkeys(events)))


def _tidy(t: str) -> str:
    # an object left empty by a cut collapses to "{}" (plus the file's trailing newline)
    if t.strip().replace(" ", "").replace("\n", "").replace("\t", "") == "{}":
        return "{}" + ("\n" if t.endswith("\n") else "")
    return t


def _one_removal(t: str, hooks: Node, events: list) -> str | None:
    """Cut one mem handler (or an emptied group / event); None when none is left."""
    for ei, (ev, eks, arr) in enumerate(hooks.members):
        if arr.kind != "array":
            continue
        for gi, g in enumerate(arr.items):
            if g.kind != "object":
                continue
            hm = _member(g, "hooks")
            if hm is None or hm[1].kind != "array":
                continue
            hs = hm[1]
            for hi, h in enumerate(hs.items):
                if is_mem_handler(json.loads(t[h.start:h.end])):
                    events.append(ev)
                    if len(hs.items) > 1:
                        return _cut(t, [(x.start, x.end) for x in hs.items], hi)
                    if len(arr.items) > 1:
                        return _cut(t, [(x.start, x.end) for x in arr.items], gi)
                    return _cut(t, [(ks, v.end) for _k, ks, v in hooks.members], ei)
    return None


# --------------------------------------------------------------------------- files

def refuse_dangling_link(path: Path) -> None:
    """Raise InvalidInput (exit 2) when ``path`` is a symbolic link whose
    target's folder does not exist (a dotfiles folder not cloned or mounted
    yet): mem writes through a link to its target, and never creates the
    folders a link points into (fresh40 F12: ``hooks install`` made
    ``/nonexistent``).  A link to a missing file in an existing folder, a
    plain path or a missing one pass."""
    if not os.path.islink(path) or os.path.isdir(os.path.dirname(os.path.realpath(path))):
        return
    raise InvalidInput(f"{path} is a symbolic link to {os.readlink(path)}, whose folder does not exist; "
                       "not touching it (mem does not create the folders a link points into)",
                       hint="clone or mount the folder it points into, or remove the link, then run this again")


def read_config_text(path: Path) -> str | None:
    """A config or rc file's text, None when there is none.  Raises
    InvalidInput (exit 2) for a folder, FIFO or device in its place
    (fresh41 F12: setup's internal error after the hooks were written), a
    symbolic link into a folder that does not exist, an unreadable file or
    text that is not UTF-8, so a caller checks before it writes anything."""
    return _read(path, writing=True)


def _read(path: Path, writing: bool = False) -> str | None:
    try:   # a FIFO, a device or a folder: "not a regular file", never waited on
        raw = read_regular(path, CACHE_FILE_MAX_BYTES)
    except FileNotFoundError:
        if writing:
            refuse_dangling_link(path)
        return None
    except OSError as e:
        if os.path.isdir(path):
            raise InvalidInput(f"{path} is a folder, not a file; not touching it",
                               hint="move the folder aside, then run this again") from None
        raise InvalidInput(f"{path} cannot be read: {e.strerror}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{path} is not UTF-8 text; not touching it") from None


def write_settings(plan: Plan) -> None:
    """Apply a plan: write ``after`` atomically (through a symlink to its
    target, keeping the mode; a new file gets 0644), or delete the file
    when ``after`` is None.  Raises InvalidInput for a link into a folder
    that does not exist (:func:`refuse_dangling_link`)."""
    target = Path(os.path.realpath(plan.path))
    if plan.after is None:
        try:
            target.unlink()
        except FileNotFoundError:
            pass
        return
    refuse_dangling_link(Path(plan.path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o644
    tmp = target.with_name(f".{target.name}.mem-tmp{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(plan.after.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


# --------------------------------------------------------------------------- one JSON member (MCP server entries)

def plan_json_member(path: Path, parents: tuple[str, ...], name: str, value, *,
                     text: str | None = None) -> Plan:
    """Insert ``"name": value`` into the object at ``parents`` (objects made
    on the way when missing), as text: every other byte stays.  Idempotent:
    an equal member changes nothing.  ``Plan.events`` is ``(name,)``.

    Raises:
        InvalidInput: the file is not a JSON object, a parent is not an
            object, or a different member ``name`` exists there.
    """
    path = Path(path)
    before = _read(path, writing=True) if text is None else text
    t = before if before is not None else ""
    if not t.strip():  # a new (or blank) file: the whole document, indented
        nest = {name: value}
        for q in reversed(parents):
            nest = {q: nest}
        piece = json.dumps(nest, indent=2, ensure_ascii=False) + "\n"
        return Plan(path, before, t + piece, (name,), ((len(t), len(t) + len(piece)),))
    doc, root = _parse(t, str(path))
    node, obj = root, doc
    for i, p in enumerate(parents):
        sub = obj.get(p)
        if sub is None:
            nest = {name: value}
            for q in reversed(parents[i + 1:]):
                nest = {q: nest}
            pos, piece = _insert_member(t, node, p, nest, _unit(t, root), "\n" not in t.strip())
            return _inserted(path, before, t, pos, piece, name)
        if not isinstance(sub, dict):
            raise InvalidInput(f"{path}: {'.'.join(parents[:i + 1])} is not an object; not touching it")
        node, obj = _member(node, p)[1], sub  # type: ignore[index]
    if name in obj:
        if obj[name] == value:
            return Plan(path, before, before, ())
        raise InvalidInput(f"{path} already has a different {'.'.join((*parents, name))}; not touching it",
                           hint="remove it first (uninstall), or edit the file by hand")
    pos, piece = _insert_member(t, node, name, value, _unit(t, root), "\n" not in t.strip())
    return _inserted(path, before, t, pos, piece, name)


def _inserted(path: Path, before: str | None, t: str, pos: int, piece: str, name: str) -> Plan:
    return Plan(path, before, t[:pos] + piece + t[pos:], (name,), ((pos, pos + len(piece)),))


def plan_json_member_removal(path: Path, parents: tuple[str, ...], name: str, *, text: str | None = None,
                             record: dict | None = None) -> Plan:
    """Undo :func:`plan_json_member`: the exact bytes from before when the
    file is still what the install wrote (``record``, :func:`install_record`;
    a file it created is deleted), else the member is cut out as text."""
    path = Path(path)
    before = _read(path) if text is None else text
    if before is None:
        return Plan(path, None, None, ())
    if record and record.get("after_sha") == _sha(before):
        old = remove_spans(before, [tuple(x) for x in record.get("inserted", [])])
        if not record.get("existed") and not old.strip():
            return Plan(path, before, None, (name,))
        if _sha(old) == record.get("before_sha"):
            return Plan(path, before, old, (name,))
    doc, root = _parse(before, str(path))
    node = root
    for p in parents:
        m = _member(node, p)
        if m is None or m[1].kind != "object":
            return Plan(path, before, before, ())
        node = m[1]
    keys = [k for k, _ks, _v in node.members or []]
    if name not in keys:
        return Plan(path, before, before, ())
    spans = [(ks, v.end) for _k, ks, v in node.members]  # type: ignore[union-attr]
    return Plan(path, before, _cut(before, spans, keys.index(name)), (name,))


def read_settings(path: Path, writing: bool = False) -> str | None:
    """A settings file's text, None when missing.  Raises InvalidInput when
    it is unreadable or not UTF-8, or (``writing``) a symbolic link into a
    folder that does not exist (:func:`refuse_dangling_link`)."""
    return _read(path, writing)


def text_sha256(text: str | None) -> str | None:
    """Hex SHA-256 of ``text`` as UTF-8 (None for None): what install records keep."""
    return _sha(text)
