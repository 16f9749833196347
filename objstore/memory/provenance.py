"""Provenance labels of turns (issue 16): who wrote a turn's text, and
whether its session had read content from outside by then.

**Author.**  A turn's ``role`` says which side of the conversation it is on;
its *author* says who wrote the text (:func:`turn_author`):

* ``person``: a ``user`` turn of a top-level session (the person typed it);
* ``parent_agent``: a ``user`` turn of a sub-agent's session
  (``<session>.agent-<id>`` or ``<session>.sidechain``): the prompt the
  parent agent gave the sub-agent, not the person's words;
* ``agent``, ``tool``, ``system``: the other roles.

Recall, the prompt injection and MCP show the author, and a parent agent's
prompt counts as ``agent_observed``, never ``user_stated``
(:func:`turn_trust`).

**Untrusted** (boxmaker's session taint): once a session has read tool
output from outside (a web fetch or search, a download with ``curl``, a
file in a dependency or system folder, which the person did not write),
every later turn of it may carry what that content said.  The one turn
writer (``appender.TurnAppender``) marks the turn after an assistant turn
that called such a tool, and every turn after it, with ``Turn.untrusted``
(:func:`reads_outside` decides from the assistant turn's ``[tool_use NAME]
{input}`` lines); recall shows the label.  Turns stored before this rule
carry no label.
"""

from __future__ import annotations

import json

from objstore.core.text import LazyPattern
from objstore.memory.scope import parent_namespace

AUTHORS = ("person", "parent_agent", "agent", "tool", "system")
_ROLE_AUTHOR = {"assistant": "agent", "tool": "tool", "system": "system"}
_AUTHOR_TRUST = {"person": "user_stated", "parent_agent": "agent_observed", "agent": "agent_observed",
                 "tool": "tool_output", "system": "system"}

#: tools whose output comes from outside the machine (lower-cased names)
OUTSIDE_TOOLS = frozenset({"webfetch", "websearch", "web_fetch", "web_search", "fetch", "web.run",
                           "browser", "http_fetch"})
#: words in an MCP tool's name (``mcp__server__tool``) that mean it reads the web
_MCP_OUTSIDE = LazyPattern(r"fetch|brows|web|http|url|scrap|crawl|navigat|download", 2)   # re.I
#: a shell command that downloads
_SHELL_OUTSIDE = LazyPattern(r"\b(?:curl|wget|lynx|w3m|aria2c)\b|\bgh\s+api\b|\bhttps?://", 2)   # re.I
#: path parts of folders whose files the person did not write
_FOREIGN_PARTS = frozenset({"node_modules", "site-packages", "dist-packages", "vendor", ".cargo", ".npm",
                            ".m2", ".gradle", "downloads", "bower_components", ".rustup"})
_FOREIGN_ROOTS = ("/usr/", "/opt/", "/tmp/", "/var/", "/nix/store/")
_READ_TOOLS = frozenset({"read", "notebookread", "view", "read_file", "cat"})
_SHELL_TOOLS = frozenset({"bash", "shell", "local_shell", "exec_command", "container.exec"})
_TOOL_USE = LazyPattern(r"\[tool_use ([^\]\n]{1,200})\] ?([^\n]*)")


def is_subagent_session(session: str) -> bool:
    """True for a sub-agent's session id (``<parent>.agent-<id>``,
    ``<parent>.sidechain``): a namespace with a parent
    (``scope.parent_namespace``)."""
    return parent_namespace(session) is not None


def turn_author(turn) -> str:
    """Who wrote ``turn``'s text, one of :data:`AUTHORS` (module doc)."""
    if turn.role == "user":
        return "parent_agent" if is_subagent_session(turn.session) else "person"
    return _ROLE_AUTHOR.get(turn.role, turn.role)


def turn_trust(turn) -> str:
    """What ``turn``'s text is worth as evidence: ``user_stated`` only for
    the person's own words; a parent agent's prompt and an agent's text
    ``agent_observed``; ``tool_output``; ``system``."""
    return _AUTHOR_TRUST.get(turn_author(turn), turn.role)


def _foreign_path(path: str, cwd: str) -> bool:
    p = path.replace("\\", "/")
    parts = {x.lower() for x in p.split("/")}
    if parts & _FOREIGN_PARTS:
        return True
    inside = bool(cwd) and (p == cwd or p.startswith(cwd.rstrip("/") + "/") or not p.startswith("/"))
    return not inside and p.startswith(_FOREIGN_ROOTS)


def _tool_args(raw: str) -> dict:
    """The JSON object of a ``[tool_use NAME] {json input}`` line's input, or {}."""
    try:
        args = json.loads(raw) if raw.startswith("{") else {}
    except ValueError:
        return {}
    return args if isinstance(args, dict) else {}


def reads_outside(text: str, cwd: str = "") -> bool:
    """Whether an assistant turn's text calls a tool whose output comes from
    outside: a web fetch or search (:data:`OUTSIDE_TOOLS`, MCP tools named
    for the web), a shell command that downloads (``curl``, ``wget``, a
    URL), or a read of a file in a dependency, download or system folder
    (:data:`_FOREIGN_PARTS`, ``/usr/``, ``/tmp/``… outside ``cwd``).  Reads
    the ``[tool_use NAME] {json input}`` lines the capture writes."""
    if "[tool_use " not in text:
        return False
    for m in _TOOL_USE.finditer(text):
        name, raw = m.group(1).strip(), m.group(2)
        low = name.lower()
        if low in OUTSIDE_TOOLS or (low.startswith("mcp__") and _MCP_OUTSIDE.search(low.split("__", 2)[-1])):
            return True
        shell = low in _SHELL_TOOLS
        if not shell and low not in _READ_TOOLS:
            continue        # (Edit, Grep, Task ...): its input is not read, so not decoded
        args = _tool_args(raw)
        if shell:
            cmd = args.get("command", raw)
            cmd = " ".join(map(str, cmd)) if isinstance(cmd, list) else str(cmd)
            if _SHELL_OUTSIDE.search(cmd):
                return True
        else:
            path = args.get("file_path") or args.get("path") or args.get("notebook_path") or ""
            if isinstance(path, str) and path and _foreign_path(path, cwd):
                return True
    return False
