"""mem hooks: install or remove mem's hooks in an agent's settings."""

import difflib
import json
import os
import shutil
import sys
from pathlib import Path

import click

from ._common import emit_json, home_path, json_option, open_store
from ._out import DEFAULT_HOME

AGENTS = ("claude-code",)


def settings_path(scope: str) -> Path:
    """Claude Code's settings file for a scope: user =
    ``$CLAUDE_CONFIG_DIR/settings.json`` (default ``~/.claude``), project =
    ``./.claude/settings.json``."""
    if scope == "project":
        return Path.cwd() / ".claude" / "settings.json"
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or "~/.claude").expanduser() / "settings.json"


def mem_command() -> str:
    """The ``mem`` executable to write into hooks: ``$MEM_HOOK_COMMAND``, else
    the ``mem`` on PATH, else the running script, else ``mem``; forward slashes."""
    cmd = os.environ.get("MEM_HOOK_COMMAND") or shutil.which("mem")
    if not cmd:
        argv0 = Path(sys.argv[0])
        cmd = str(argv0.resolve()) if argv0.name in ("mem", "mem.exe") and argv0.exists() else "mem"
    return cmd.replace("\\", "/")


def command_exists(cmd: str) -> bool:
    """True when a hook's ``command`` would run: an executable file for a
    path, else a name found on PATH."""
    if "/" in cmd:
        return os.path.isfile(cmd) and os.access(cmd, os.X_OK)
    return shutil.which(cmd) is not None


def store_arg(ctx: click.Context, *, check: bool = True,
              where: str = "the agent's settings, its MCP configuration and your shell's rc file") -> str | None:
    """The store to bake into the hooks, the MCP configuration and the shell
    line: None for the default ``~/.mem``, else the absolute path of
    ``--home`` / ``$MEM_HOME``.  Raises InvalidInput (exit 2, the path not
    shown: ``objstore.core.redact.check_name``) when that path holds a
    credential (test17 T20: ``MEM_HOME=/tmp/x/ghp_…`` was echoed and written
    into ~/.claude/settings.json and ~/.bashrc), unless ``check`` is False:
    an uninstall computing what an install wrote, to match it (nothing is
    written or shown).  ``where`` names the files the path would go into,
    for the message."""
    home = home_path(ctx)
    if os.path.realpath(home) == os.path.realpath(Path(DEFAULT_HOME).expanduser()):
        return None
    path = os.path.abspath(home).replace("\\", "/")
    if check:
        from objstore import check_name
        check_name(path, "store path (--home / $MEM_HOME)",
                   where=where,
                   hint="keep the store in a folder whose path names no secret")
    return path


def _record_path(ctx: click.Context, settings: Path) -> Path:
    from objstore import install_record_path
    return install_record_path(home_path(ctx), settings)


def _show(plan, dry_run: bool, as_json: bool, action: str) -> None:
    if as_json:
        emit_json({"agent": "claude-code", "action": action, "path": str(plan.path), "changed": plan.changed,
                   "events": list(plan.events), "dry_run": dry_run, "repaired": list(plan.repaired)})
        return
    if dry_run:
        if not plan.changed:
            click.echo(f"nothing to change in {plan.path}")
            return
        diff = difflib.unified_diff((plan.before or "").splitlines(True), (plan.after or "").splitlines(True),
                                    fromfile=f"{plan.path} (now)", tofile=f"{plan.path} (after {action})")
        click.echo("".join(diff).rstrip("\n"))
        if plan.after is None:
            click.echo(f"(would delete {plan.path}: {action} created it)")
        return
    if not plan.changed:
        click.echo(f"{'already installed' if action == 'install' else 'not installed'} in {plan.path}; "
                   "nothing changed")
    elif action == "install" and plan.repaired:
        click.echo(f"repaired mem hooks in {plan.path}: {'; '.join(plan.repaired)}")
    elif action == "install":
        click.echo(f"installed mem hooks in {plan.path} ({', '.join(plan.events)})")
    else:
        click.echo(f"removed mem hooks from {plan.path}" + (" (file deleted: the install created it)"
                                                              if plan.after is None else ""))


def install(ctx: click.Context, scope: str, dry_run: bool, as_json: bool, quiet: bool = False):
    """Install into the scope's settings; returns the plan."""
    from objstore import InvalidInput, install_record, plan_install, write_settings
    path = settings_path(scope)
    home = store_arg(ctx)
    portable = scope == "project"
    if portable and home:
        raise InvalidInput(f"the store {home} is not the default one, and project settings ({path}) are shared "
                           "with everyone who clones the project: mem will not write your store path there",
                           hint="install in your own settings instead: --scope user (or use the default ~/.mem)")
    # a shared file gets the bare name (each person's own mem on PATH), never a personal path
    # $MEM_HOOK_COMMAND is the person's explicit choice: taken as it is, never "repaired"
    exists = None if os.environ.get("MEM_HOOK_COMMAND") else command_exists
    plan = plan_install(path, "mem" if portable else mem_command(), home=home, exists=exists,
                        portable=portable)
    if plan.changed and not dry_run:
        # the undo record lives in the store: its lock first, so a read-only store is refused
        # (ReadOnlyStore, exit 16) before the settings change
        with open_store(ctx, create=True).lock("hooks install"):
            rec = _record_path(ctx, path)
            rec.parent.mkdir(parents=True, exist_ok=True)
            write_settings(plan)
            rec.write_text(json.dumps(install_record(plan)), encoding="utf-8")
    if not quiet:
        _show(plan, dry_run, as_json, "install")
        if portable and not as_json:
            click.echo("note: project settings run 'mem' from PATH" + (
                "" if command_exists("mem") else "; it is not on your PATH now, so the hooks will not run "
                "until it is"), err=True)
    return plan


def uninstall(ctx: click.Context, scope: str, dry_run: bool, as_json: bool, quiet: bool = False):
    """Remove from the scope's settings; returns the plan.  Capture off is
    the person's decision: refused for an agent (exit 6) unless ``dry_run``."""
    from objstore import plan_uninstall, require_person, write_settings
    if not dry_run:
        require_person(os.environ, "mem hooks uninstall (turning capture off)",
                       instead="show the user the command: mem hooks uninstall claude-code")
    path = settings_path(scope)
    rec_path = _record_path(ctx, path)
    try:
        record = json.loads(rec_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = None
    plan = plan_uninstall(path, record=record)
    if not dry_run:
        if plan.changed:
            write_settings(plan)
        try:
            rec_path.unlink()
        except FileNotFoundError:
            pass
    if not quiet:
        _show(plan, dry_run, as_json, "uninstall")
    return plan


_scope = click.option("--scope", type=click.Choice(["user", "project"]), default="user", show_default=True,
                      help="user: ~/.claude/settings.json; project: ./.claude/settings.json.")
_dry = click.option("--dry-run", is_flag=True, help="Show the change as a diff; write nothing.")


class _Agent(click.Choice):
    """The agents whose hooks mem installs; Codex gets its memory through MCP (fresh43 F11: click's own "'codex'
    is not 'claude-code'" said nothing of where to go)."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and value.strip().lower() == "codex":
            self.fail("Codex has no hooks mem installs: give it memory with 'mem mcp install codex' "
                      "(and 'mem import codex' for its sessions)", param, ctx)
        return super().convert(value, param, ctx)


_agent = click.argument("agent", type=_Agent(AGENTS))


@click.group("hooks")
def command():
    """Install or remove mem's hooks in an agent's settings.

    'mem hooks install claude-code' adds one handler per event mem uses
    (SessionStart, UserPromptSubmit, Stop, SubagentStart, SubagentStop, PreCompact,
    SessionEnd), each running 'mem hook claude-code' in exec form with a
    timeout in seconds.  The file is edited as text: every other key and
    hook keeps its bytes, and a second install changes nothing.  'mem hooks
    uninstall claude-code' gives back the file exactly as it was before the
    install when nothing else changed it since, else removes only mem's
    handlers.  The Claude Code plugin in hooks/claude-code is the other way
    to install; use one of the two (both work, each event then runs twice
    and is captured once).

    A store other than ~/.mem (--home, MEM_HOME) is written into the
    handlers ('mem --home STORE hook claude-code'), since Claude Code may
    start without MEM_HOME.  Project settings are shared, so there the
    handlers run 'mem' from PATH and a custom store is refused.  Installing
    again repairs mem's handlers when their command no longer exists (a
    recreated virtualenv) or they name another store.

    \b
    Examples:
      mem hooks install claude-code
      mem hooks install claude-code --scope project --dry-run
      mem hooks uninstall claude-code

    Removing the hooks turns capture off, which is the person's decision:
    run by an agent (CLAUDECODE, Codex's variables or MEM_AGENT set)
    'uninstall' (and 'install --uninstall') is refused with exit 6 and
    nothing changes; --dry-run is anyone's.

    Exit status: 0 ok (also when nothing changed); 2 the settings file is
    not a JSON object (it is left untouched) or (install) a symbolic link
    into a folder that does not exist (mem does not create it), a custom
    store with --scope project, or a store path that holds a credential
    (install; not shown, nothing written); 6 uninstall run by an agent; 16 the store is
    read-only (nothing changed).
    """


@command.command("install")
@_agent
@_scope
@_dry
@click.option("--uninstall", "undo", is_flag=True, help="Remove instead (same as 'mem hooks uninstall').")
@json_option
@click.pass_context
def install_cmd(ctx, agent, scope, dry_run, undo, as_json):
    """Add mem's hooks to the agent's settings (idempotent).

    \b
    Examples:
      mem hooks install claude-code --scope user

    Exit status: 0 ok; 2 the settings file is not a JSON object or a
    symbolic link into a folder that does not exist, or the store path
    holds a credential (not shown, nothing written); 6
    --uninstall run by an agent.
    """
    (uninstall if undo else install)(ctx, scope, dry_run, as_json)


@command.command("uninstall")
@_agent
@_scope
@_dry
@json_option
@click.pass_context
def uninstall_cmd(ctx, agent, scope, dry_run, as_json):
    """Remove mem's hooks from the agent's settings.

    \b
    Examples:
      mem hooks uninstall claude-code --dry-run

    Capture off is the person's decision: run by an agent (CLAUDECODE,
    Codex's variables or MEM_AGENT set) it is refused with exit 6 and
    nothing changes (--dry-run is anyone's).

    Exit status: 0 ok; 2 the settings file is not a JSON object; 6 run by
    an agent.
    """
    uninstall(ctx, scope, dry_run, as_json)
