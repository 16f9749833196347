"""mem setup: first-time set-up (store, Claude Code hooks, shell line)."""

import os
from pathlib import Path

import click

from ._common import emit_json, home_path, json_option
from .shell_init import RC_LINES, rc_line

MARK = "# mem: shell integration (remove with: mem setup --undo)"
#: the mark in an rc file that setup created: undo deletes the file when
#: nothing else is left in it (tester finding W11), and only then
MARK_NEW = "# mem: shell integration; mem setup made this file (remove with: mem setup --undo)"


def rc_file(shell: str) -> Path:
    """The rc file ``mem setup`` edits for a shell."""
    home = Path.home()
    if shell == "zsh":
        return Path(os.environ.get("ZDOTDIR") or home) / ".zshrc"
    if shell == "fish":
        return Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "fish" / "config.fish"
    return home / ".bashrc"


def detect_shell() -> str:
    """bash, zsh or fish from ``$SHELL``; ``none`` for anything else."""
    name = Path(os.environ.get("SHELL", "")).name
    return name if name in RC_LINES else "none"


def _read(p: Path) -> str:
    """The rc file's text ('' when there is none).  Raises InvalidInput
    (exit 2) for a folder, FIFO or device in its place, a link into a
    folder that does not exist, or text that is not UTF-8."""
    from objstore import read_config_text
    return read_config_text(p) or ""


def _strip_ours(shell: str, text: str) -> tuple[str, bool, list[str]]:
    """``text`` without the lines :func:`add_rc_line` wrote (for any store)
    and their marks; (new text, whether a mark said setup made the file,
    the shell lines taken out)."""
    out, lines, made, gone = [], text.splitlines(keepends=True), False, []
    for i, ln in enumerate(lines):
        ours = ln.rstrip("\n") == RC_LINES[shell] or (i > 0 and lines[i - 1].rstrip("\n") in (MARK, MARK_NEW)
                                                     and f"shell-init {shell}" in ln)
        if ours and out and out[-1].rstrip("\n") in (MARK, MARK_NEW):
            # pop first: `made or out.pop()` skipped the pop once made was set (fresh41 F17)
            made = out.pop().rstrip("\n") == MARK_NEW or made
        if ours:
            gone.append(ln.rstrip("\n"))
        else:
            out.append(ln)
    return "".join(out), made, gone


def add_rc_line(shell: str, dry_run: bool, home: str | None = None) -> tuple[Path, bool]:
    """Make the rc file hold the shell line for store ``home`` (None: the
    default one) once: a line setup wrote for another store is replaced,
    never kept beside it (fresh41 F17: two stores' shell capture at once);
    (file, changed).  Raises InvalidInput (exit 2) for an rc path that is
    no file (:func:`_read`), before anything is written."""
    p = rc_file(shell)
    text = _read(p)
    line = rc_line(shell, home)
    rest, made, gone = _strip_ours(shell, text)
    if gone == [line] or (not gone and line in text.splitlines()):
        return p, False   # already there, and the only one
    if not dry_run:
        p.parent.mkdir(parents=True, exist_ok=True)
        sep = "" if not rest or rest.endswith("\n") else "\n"
        # an empty file the person had is theirs; a file setup made stays setup's
        mark = MARK_NEW if made or not os.path.lexists(p) else MARK
        new = f"{rest}{sep}{mark}\n{line}\n"
        if rest == text:
            with open(p, "a", encoding="utf-8") as f:
                f.write(new[len(rest):])
        else:
            p.write_text(new, encoding="utf-8")
    return p, True


def remove_rc_line(shell: str, dry_run: bool) -> tuple[Path, bool]:
    """Remove the lines :func:`add_rc_line` wrote (for any store); (file,
    changed).  A file that setup created (its mark says so) and that holds
    nothing else is deleted.  Raises InvalidInput as :func:`_read` does."""
    p = rc_file(shell)
    text = _read(p)
    new, made, _gone = _strip_ours(shell, text)
    if new == text:
        return p, False
    if not dry_run:
        if made and not new:
            p.unlink()
        else:
            p.write_text(new, encoding="utf-8")
    return p, True


def _mcp(ctx, agent: str, scope: str, dry_run: bool, undo: bool = False):
    from . import mcp
    if undo:
        return mcp.uninstall_mcp(ctx, agent, scope, dry_run, False, quiet=True)
    return mcp.install_mcp(ctx, agent, scope, None, "MEM_MCP_KEY", dry_run, False, quiet=True)


def _codex_unconnected() -> bool:
    """True when ~/.codex exists and its config.toml has no [mcp_servers.mem]."""
    from .mcp import config_path
    cfg = config_path("codex", "user")
    if not cfg.parent.is_dir():
        return False
    try:
        return "[mcp_servers.mem]" not in cfg.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return True


@click.command("setup")
@click.option("--shell", type=click.Choice(["bash", "zsh", "fish", "none"]), default=None,
              help="Shell whose rc file gets the integration line (default: from $SHELL; none = skip).")
@click.option("--scope", type=click.Choice(["user", "project"]), default="user", show_default=True,
              help="Where the Claude Code hooks go.")
@click.option("--no-hooks", is_flag=True, help="Do not install the Claude Code hooks.")
@click.option("--mcp", "mcp_agents", multiple=True, type=click.Choice(["claude-code", "codex"]),
              help="Also register mem's MCP server (stdio) with this agent (repeatable; mem mcp install).")
@click.option("--undo", is_flag=True, help="Remove what setup installed (hooks and shell line; the store stays).")
@click.option("--dry-run", is_flag=True, help="Say what would change; change nothing.")
@json_option
@click.pass_context
def command(ctx, shell, scope, no_hooks, mcp_agents, undo, dry_run, as_json):
    """Set mem up: the store, the Claude Code hooks and the shell line.

    Creates the store (MEM_HOME, default ~/.mem), installs the Claude Code
    hooks in your settings ('mem hooks install claude-code') and adds one
    line to your shell's rc file that loads 'mem shell-init'.  Running it
    again changes nothing, except that it repairs hooks whose command no
    longer exists (a recreated virtualenv) or that name another store.  A
    store other than ~/.mem is written into the hooks; with --scope project
    the hooks run 'mem' from PATH (the file is shared) and a custom store is
    refused.  '--undo' removes the hooks and the rc line (from every shell's
    rc file, unless --shell names one; an rc file setup created and that
    holds nothing else goes too) and keeps the store (delete the folder
    yourself to drop your memory).
    --mcp codex / --mcp claude-code also registers mem's MCP server with
    that agent ('mem mcp install'); without it, setup says when Codex is
    there and not yet connected.

    \b
    Examples:
      mem setup
      mem setup --shell zsh --dry-run
      mem setup --mcp codex
      mem setup --undo

    --undo turns capture off, which is the person's decision: run by an
    agent (CLAUDECODE, Codex's variables or MEM_AGENT set) it is refused
    with exit 6 and nothing changes (--undo --dry-run is anyone's).

    Exit status: 0 ok; 1 --mcp while the mcp extra is missing (nothing is
    written: pip install 'memvcs[mcp]'); 2 the Claude Code settings file is not a JSON object
    (it is left untouched), a custom store with --scope project, a store
    path that holds a credential (not shown; nothing is written), or a
    file to write is a symbolic link into a folder that does not exist
    (nothing is written; --dry-run says so too);
    6 --undo run by an agent; 16 the store is read-only (nothing changed).
    """
    from . import hooks_install
    if undo and not dry_run:
        from objstore import require_person
        require_person(os.environ, "mem setup --undo (turning capture off)",
                       instead="show the user the command: mem setup --undo")
    from objstore import shown_path
    if not undo:   # a store path holding a credential: refused (exit 2, not shown) before anything is written
        hooks_install.store_arg(ctx)
    chosen = shell
    asked_none = shell == "none"
    shell = shell or detect_shell()
    report: dict = {"store": shown_path(str(home_path(ctx))), "dry_run": dry_run, "undo": undo}
    lines: list[str] = []
    if undo:
        undo_shells = [sh for sh in ([chosen] if chosen else sorted(RC_LINES)) if sh != "none"]
        for sh in undo_shells:   # every rc file readable before anything is removed (fresh41 F12)
            _read(rc_file(sh))
        if not no_hooks:
            plan = hooks_install.uninstall(ctx, scope, dry_run, False, quiet=True)
            report["hooks"] = {"path": str(plan.path), "changed": plan.changed}
            did = _did("removed from", "would remove from", dry_run)
            lines.append(f"hooks: {did if plan.changed else 'not in'} {plan.path}")
        # without --shell: every shell's rc file (setup may have run under another $SHELL before)
        for sh in undo_shells:
            p, changed = remove_rc_line(sh, dry_run)
            if changed or sh == shell or chosen:
                report.setdefault("shells", []).append({"shell": sh, "file": str(p), "changed": changed})
                if sh == shell:
                    report["shell"] = {"file": str(p), "changed": changed}
                did = _did("removed the line from", "would remove the line from", dry_run)
                lines.append(f"shell: {did if changed else 'no mem line in'} {p}")
        for agent in mcp_agents:
            plan = _mcp(ctx, agent, scope, dry_run, undo=True)
            report.setdefault("mcp", {})[agent] = {"path": str(plan.path), "changed": plan.changed}
            did = _did("removed from", "would remove from", dry_run)
            lines.append(f"mcp ({agent}): {did if plan.changed else 'not in'} {plan.path}")
        lines.append(f"store: kept at {shown_path(str(home_path(ctx)))} (delete it yourself to drop your memory)")
    else:
        if mcp_agents:   # before anything is written: an agent wired to a server that cannot start (fresh39 F14)
            from .mcp import require_server
            require_server()
        from objstore import is_store, open_store, read_config_text
        from .mcp import config_path
        # each file setup would write, checked before anything is (fresh40 F13: half done, then exit 4;
        # fresh41 F12: a folder in place of ~/.bashrc)
        for f in ([] if no_hooks else [hooks_install.settings_path(scope)]) + (
                [] if shell == "none" else [rc_file(shell)]) + [config_path(a, scope) for a in mcp_agents]:
            read_config_text(f)
        root = home_path(ctx)
        existed = is_store(root)
        if not dry_run:
            open_store(root, create=True).close()
        report["store_created"] = not existed
        lines.append(f"store: {'exists at' if existed else 'created at' if not dry_run else 'would create'} "
                     f"{shown_path(str(root))}")
        if not no_hooks:
            plan = hooks_install.install(ctx, scope, dry_run, False, quiet=True)
            report["hooks"] = {"path": str(plan.path), "changed": plan.changed, "events": list(plan.events),
                               "repaired": list(plan.repaired)}
            if plan.repaired:
                lines.append(f"hooks: repaired in {plan.path} ({'; '.join(plan.repaired)})")
            else:
                did = _did("installed in", "would install in", dry_run)
                lines.append(f"hooks: {did if plan.changed else 'already in'} {plan.path}")
            if scope == "project":
                lines.append("hooks: project settings are shared, so they run 'mem' from PATH"
                             + ("" if hooks_install.command_exists("mem") else
                                " (not on your PATH now: the hooks will not run until it is)"))
            home = hooks_install.store_arg(ctx)
            if home:
                lines.append(f"hooks: they use the store {home} (--home is written into them)")
        if shell != "none":
            p, changed = add_rc_line(shell, dry_run, hooks_install.store_arg(ctx))
            report["shell"] = {"file": str(p), "changed": changed}
            did = _did("added a line to", "would add a line to", dry_run)
            lines.append(f"shell: {did if changed else 'already in'} {p}"
                         + (" (open a new shell to load it)" if changed and not dry_run else ""))
            if not hooks_install.command_exists("mem"):
                report["shell"]["mem_on_path"] = False
                lines.append("shell: the line loads only where 'mem' is on PATH, and it is not now "
                             f"(this is {hooks_install.mem_command()}): add its folder to PATH, "
                             "or link it into ~/.local/bin")
        elif asked_none:
            lines.append("shell: skipped (--shell none)")
        else:
            lines.append(f"shell: skipped ($SHELL is {os.environ.get('SHELL') or 'not set'}, not bash, zsh or "
                         "fish; see 'mem shell-init --help')")
        for agent in mcp_agents:
            plan = _mcp(ctx, agent, scope, dry_run)
            report.setdefault("mcp", {})[agent] = {"path": str(plan.path), "changed": plan.changed}
            did = _did("added to", "would add to", dry_run)
            lines.append(f"mcp ({agent}): {did if plan.changed else 'already in'} {plan.path}")
        if "codex" not in mcp_agents and _codex_unconnected():
            lines.append("mcp: Codex is installed but not connected to mem: run 'mem setup --mcp codex' "
                         "(or 'mem mcp install codex'; needs pip install 'memvcs[mcp]', from a clone of mem '.[mcp]')")
    if as_json:
        emit_json(report)
        return
    if dry_run:
        lines.insert(0, "dry run: nothing is changed")
    click.echo("\n".join(lines))


def _did(done: str, would: str, dry_run: bool) -> str:
    """The words for a change: what was done, or with --dry-run what would be."""
    return would if dry_run else done
