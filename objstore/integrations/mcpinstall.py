"""Register mem's MCP server with Claude Code and Codex (``docs/mcp.md``).

Both edits are text insertions (``objstore.integrations.install``), so an
uninstall that finds the file as the install left it gives back the exact
bytes from before; a file changed since loses only mem's entry.

* Claude Code: what ``claude mcp add`` writes: ``mcpServers.mem`` in
  ``~/.claude.json`` (``--scope user``) or in ``<project>/.mcp.json``
  (``--scope project``).  stdio: ``{"type": "stdio", "command": MEM,
  "args": ["mcp"], "env": {}}`` (``["--home", STORE, "mcp"]`` for a store
  other than ``~/.mem``: the agent may start without ``MEM_HOME``, as the
  hook installer pins ``--home``); HTTP: ``{"type": "http", "url": URL,
  "headers": {"Authorization": "Bearer ${VAR}"}}`` — Claude Code expands
  ``${VAR}`` when it starts, so the key is never in the file.
* Codex: a ``[mcp_servers.mem]`` table appended to ``~/.codex/config.toml``:
  ``command``/``args`` for stdio, or ``url`` + ``bearer_token_env_var`` for
  HTTP (Codex's own names).

A ``mem`` entry that mem did not write is the user's: an uninstall removes
an entry only when the file is still as the install left it (its undo
record), or the entry is what an install writes (:func:`is_mem_server`), or
``force`` is given; any other is refused untouched, and an install that
finds one says it is not mem's instead of pointing at uninstall.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from objstore.core.errors import InvalidInput
from objstore.integrations.install import (Plan, install_record, plan_json_member, plan_json_member_removal,
                                           read_settings, remove_spans, text_sha256)

SERVER_NAME = "mem"
DEFAULT_KEY_ENV = "MEM_MCP_KEY"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")

__all__ = ["SERVER_NAME", "DEFAULT_KEY_ENV", "claude_code_entry", "codex_table", "is_mem_server", "plan_claude_code",
           "plan_claude_code_removal", "plan_codex", "plan_codex_removal", "install_record"]


def _check_env(var: str) -> str:
    if not _ENV_NAME.fullmatch(var or ""):
        raise InvalidInput(f"{var!r} is not a valid variable name (letters, digits, _)")
    return var


def _check_url(url: str) -> str:
    """Refuse (InvalidInput, exit 2, never echoed) an ``--http`` URL holding
    a credential — a mem key in its query, a password in its userinfo: the
    agent's configuration file keeps the URL in the clear, and the key
    belongs in a variable (``--key-env``).  The one name rule,
    ``objstore.core.redact.check_name(…, url=True)``, as for a remote's URL."""
    from objstore.core.redact import check_name  # deferred: the redaction rules compile at import
    check_name(url, "--http URL", where="the agent's MCP configuration file",
               hint="give the server's address alone; the key goes in the variable --key-env names "
                    f"(default {DEFAULT_KEY_ENV})", url=True)
    return url


def server_args(home: str | None = None) -> list[str]:
    """The stdio server's arguments: ``["mcp"]``, or ``["--home", home, "mcp"]``
    when ``home`` (an absolute store path) is given."""
    return ["--home", home, "mcp"] if home else ["mcp"]


def claude_code_entry(command: str, url: str | None = None, key_env: str = DEFAULT_KEY_ENV,
                      home: str | None = None) -> dict:
    """The ``mcpServers.mem`` value: stdio running ``command [--home HOME] mcp``,
    or HTTP at ``url`` with the bearer key taken from ``$key_env``.  Raises
    InvalidInput for a bad variable name or a URL holding a credential."""
    if url:
        return {"type": "http", "url": _check_url(url),
                "headers": {"Authorization": f"Bearer ${{{_check_env(key_env)}}}"}}
    return {"type": "stdio", "command": command, "args": server_args(home), "env": {}}


def is_mem_server(value, ours=None) -> bool:
    """Whether an existing ``mem`` server entry (a Claude Code
    ``mcpServers.mem`` value or Codex's ``[mcp_servers.mem]`` table, as
    parsed) is one mem's install writes: equal to ``ours`` (what an install
    would write now), or of its shape — stdio running a ``mem`` executable
    (``mem``/``mem.exe``, any directory) with ``["mcp"]`` or ``["--home",
    STORE, "mcp"]``; HTTP at a URL ending in ``/mcp`` with the key from a
    variable (``Bearer ${VAR}``, ``bearer_token_env_var``)."""
    if not isinstance(value, dict):
        return False
    if ours is not None and value == ours:
        return True
    cmd, args, url = value.get("command"), value.get("args"), value.get("url")
    if isinstance(cmd, str):
        base = cmd.replace("\\", "/").rsplit("/", 1)[-1]
        return base in ("mem", "mem.exe") and isinstance(args, list) and (
            args == server_args() or (len(args) == 3 and args[0] == "--home" and args[2] == "mcp"))
    if isinstance(url, str) and url.split("?", 1)[0].rstrip("/").endswith("/mcp"):
        auth = (value.get("headers") or {}).get("Authorization", "") if isinstance(value.get("headers"), dict) else ""
        return isinstance(value.get("bearer_token_env_var"), str) or (
            isinstance(auth, str) and auth.startswith("Bearer ${") and auth.endswith("}"))
    return False


def _not_mem(path: Path, table: str, agent: str, *, installing: bool) -> InvalidInput:
    """The refusal for a ``mem`` entry mem did not write (never echoing it:
    the user's own entry may hold a token)."""
    return InvalidInput(f"{path}: its {table} is not mem's (another server by that name, written by hand or "
                        "by another tool); not touching it",
                        hint=(f"rename or remove it by hand, then: mem mcp install {agent}" if installing else
                              f"edit the file by hand, or remove it anyway: mem mcp uninstall {agent} --force"))


def _claude_member(path: Path, text: str | None):
    """The parsed ``mcpServers.mem`` value of a Claude Code file (None for none)."""
    before = read_settings(path) if text is None else text
    try:
        doc = json.loads(before) if before and before.strip() else {}
    except (ValueError, RecursionError):   # (nested thousands deep: test39b B12)
        return None             # plan_json_member* say what is wrong with the file
    servers = doc.get("mcpServers") if isinstance(doc, dict) else None
    return servers.get(SERVER_NAME) if isinstance(servers, dict) else None


def plan_claude_code(path: Path, entry: dict, *, text: str | None = None) -> Plan:
    """Add ``mcpServers.mem`` = ``entry`` to a Claude Code JSON file (idempotent).

    Raises:
        InvalidInput: not JSON, or a different ``mcpServers.mem`` exists
            (one that is not mem's, :func:`is_mem_server`, says so)."""
    try:
        return plan_json_member(path, ("mcpServers",), SERVER_NAME, entry, text=text)
    except InvalidInput:
        have = _claude_member(Path(path), text)
        if have is not None and not is_mem_server(have, entry):
            raise _not_mem(Path(path), f"mcpServers.{SERVER_NAME}", "claude-code", installing=True) from None
        raise


def plan_claude_code_removal(path: Path, *, record: dict | None = None, text: str | None = None,
                             ours: dict | None = None, force: bool = False) -> Plan:
    """Remove ``mcpServers.mem`` (exact bytes back when ``record`` still fits).

    Raises:
        InvalidInput: not JSON; or, without ``force``, the entry is not mem's
            (:func:`is_mem_server`, ``ours``: what an install writes now) and
            ``record`` does not give the file back."""
    plan = plan_json_member_removal(path, ("mcpServers",), SERVER_NAME, record=record, text=text)
    if plan.changed and not force and not _as_installed(plan.before, record):
        if not is_mem_server(_claude_member(Path(path), plan.before), ours):
            raise _not_mem(Path(path), f"mcpServers.{SERVER_NAME}", "claude-code", installing=False)
    return plan


def _as_installed(text: str | None, record: dict | None) -> bool:
    """Whether ``text`` is byte for byte what mem's install left (its undo
    ``record``, :func:`install_record`): its ``mem`` entry is then mem's."""
    return bool(record) and record.get("after_sha") == text_sha256(text)


def _toml_str(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def _toml_value(v) -> str:
    """A string or a list of strings as a TOML value."""
    return f"[{', '.join(map(_toml_str, v))}]" if isinstance(v, list) else _toml_str(v)


def codex_table(command: str, url: str | None = None, key_env: str = DEFAULT_KEY_ENV,
                home: str | None = None) -> tuple[dict, str]:
    """``(values, TOML text)`` of the ``[mcp_servers.mem]`` table (``home``: as
    :func:`server_args`).  Raises InvalidInput as :func:`claude_code_entry`."""
    if url:
        values = {"url": _check_url(url), "bearer_token_env_var": _check_env(key_env)}
    else:
        values = {"command": command, "args": server_args(home)}
    lines = [f"[mcp_servers.{SERVER_NAME}]"]
    for k, v in values.items():
        lines.append(f"{k} = {_toml_value(v)}")
    return values, "\n".join(lines) + "\n"


def _codex_doc(path: Path, text: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InvalidInput(f"{path} is not valid TOML ({e}); not touching it") from None


def plan_codex(path: Path, command: str, url: str | None = None, key_env: str = DEFAULT_KEY_ENV, *,
               text: str | None = None, home: str | None = None) -> Plan:
    """Append ``[mcp_servers.mem]`` to Codex's ``config.toml`` (idempotent).

    Raises:
        InvalidInput: not TOML, or a different ``mcp_servers.mem`` exists.
    """
    path = Path(path)
    before = read_settings(path, writing=True) if text is None else text
    t = before or ""
    values, table = codex_table(command, url, key_env, home)
    have = _codex_doc(path, t).get("mcp_servers", {}).get(SERVER_NAME)
    if have is not None:
        if have == values:
            return Plan(path, before, before, ())
        if not is_mem_server(have):
            raise _not_mem(path, f"[mcp_servers.{SERVER_NAME}]", "codex", installing=True)
        raise InvalidInput(f"{path} already has a different [mcp_servers.{SERVER_NAME}]; not touching it",
                           hint="remove it first: mem mcp uninstall codex")
    sep = "" if not t or t.endswith("\n\n") else ("\n" if t.endswith("\n") else "\n\n")
    piece = sep + table
    after = t + piece
    try:
        tomllib.loads(after)
    except tomllib.TOMLDecodeError as e:  # the file parses (above): mcp_servers is inline or dotted (test25 T6)
        inline = f"{SERVER_NAME} = {{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in values.items()) + " }"
        raise InvalidInput(f"{path} defines mcp_servers in a form that a [mcp_servers.{SERVER_NAME}] table cannot "
                           f"join (an inline table or dotted keys: with the table appended the file would not "
                           f"parse: {e}); not touching it",
                           hint=f"add {inline} inside its mcp_servers by hand, or write its servers as "
                                f"[mcp_servers.NAME] tables") from None
    return Plan(path, before, after, (f"mcp_servers.{SERVER_NAME}",), ((len(t), len(after)),))


def plan_codex_removal(path: Path, *, record: dict | None = None, text: str | None = None,
                       ours: dict | None = None, force: bool = False) -> Plan:
    """Remove ``[mcp_servers.mem]``: the exact bytes from before when the file
    is as the install left it, else the table's lines (header to the next
    table header) are cut.

    Raises:
        InvalidInput: not TOML; or, without ``force``, the table is not mem's
            (:func:`is_mem_server`, ``ours``: the values an install writes
            now) and ``record`` does not give the file back."""
    path = Path(path)
    before = read_settings(path) if text is None else text
    name = (f"mcp_servers.{SERVER_NAME}",)
    if before is None:
        return Plan(path, None, None, ())
    if _as_installed(before, record):
        old = remove_spans(before, [tuple(x) for x in record.get("inserted", [])])
        if not record.get("existed") and not old.strip():
            return Plan(path, before, None, name)
        if text_sha256(old) == record.get("before_sha"):
            return Plan(path, before, old, name)
    have = _codex_doc(path, before).get("mcp_servers", {}).get(SERVER_NAME)
    if have is None:
        return Plan(path, before, before, ())
    if not force and not _as_installed(before, record) and not is_mem_server(have, ours):
        raise _not_mem(path, f"[mcp_servers.{SERVER_NAME}]", "codex", installing=False)
    lines = before.splitlines(keepends=True)
    head = re.compile(r"\s*\[\s*mcp_servers\s*\.\s*(\"mem\"|'mem'|mem)\s*\]\s*(#.*)?$")
    out, skipping = [], False
    for ln in lines:
        if head.match(ln):
            skipping = True
            continue
        if skipping and re.match(r"\s*\[", ln):
            skipping = False
        if not skipping:
            out.append(ln)
    after = "".join(out)
    _codex_doc(path, after)
    return Plan(path, before, after, name)
