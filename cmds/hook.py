"""mem hook: the entries agents and shells call (plumbing).

The work is in :mod:`cmds._hookrun` (no click), see ``docs/hooks.md``.
"""

import os
import sys

import click

from ._common import FiniteFloatRange, home_path


def _env(ctx: click.Context) -> dict:
    """The environment with ``MEM_HOME`` set from ``--home`` when given."""
    return {**os.environ, "MEM_HOME": str(home_path(ctx))}


def _create(ctx: click.Context) -> bool:
    """False when ``--home`` names the store (what ``mem setup`` writes into
    the handlers): a hook never creates that store (test33 T6)."""
    root = ctx.find_root()
    return not (root.params or {}).get("home")


@click.group("hook")
def command():
    """Run a capture hook (agents and shells call it, not people).

    'mem hook claude-code' is the one command Claude Code runs for every hook
    event (installed by 'mem hooks install claude-code' or the plugin in
    hooks/claude-code).  It reads the event JSON on stdin and captures the
    prompt (UserPromptSubmit), syncs the transcript from its saved cursor
    (Stop, SubagentStop, PreCompact, SessionEnd), catches up sessions whose
    end was never seen (SessionStart), and prints the memory to add as
    hookSpecificOutput.additionalContext.  'mem hook shell' records one
    command of your own shell (the shell integration calls it when
    MEM_SHELL_CAPTURE=1, and it records nothing without that variable);
    'mem hook catch-up' syncs transcripts that grew
    since their last sync.  MEM_NO_CAPTURE=1 turns capture off for a session.

    \b
    Examples:
      echo '{"hook_event_name":"Stop","session_id":"s1","transcript_path":"t.jsonl"}' | mem hook claude-code
      printf '%s' 'make test' | MEM_SHELL_CAPTURE=1 mem hook shell --session shell-1 --cwd ~/src --status 0 --start 1767225600000 --duration 120

    Exit status: always 0, even on errors (they go to <store>/logs/hooks.log:
    time, event, session id and error type, never text), so a broken store
    can never block the agent.  2 is reserved for a deliberate block.
    """


@command.command("claude-code")
def claude_code():
    """Handle one Claude Code hook event (JSON on stdin).

    \b
    Examples:
      mem hook claude-code < event.json

    Exit status: always 0 (errors go to the hook log).
    """
    from ._hookclock import armed
    from ._hookrun import run_claude_code
    ctx = click.get_current_context()
    ctx.exit(run_claude_code(env=_env(ctx), started=armed(), create=_create(ctx)))


@command.command("shell")
@click.option("--session", required=True, help="Shell session id (the shell integration makes one per shell).")
@click.option("--cwd", default="", help="Working directory of the command.")
@click.option("--status", type=int, default=0, help="Exit status of the command.")
@click.option("--start", "started_ms", type=int, default=0, help="Start time, ms since the epoch.")
@click.option("--duration", "duration_ms", type=int, default=0, help="Duration in ms.")
@click.option("--seq", type=click.IntRange(min=0), default=0,
              help="The command's number in its shell (1, 2, ...): the records of one shell are stored in "
                   "this order, whichever process runs first; a record waits up to 30 s for the one before "
                   "it (0: not numbered).")
@click.argument("command_line", nargs=-1, required=False)
def shell(session, cwd, status, started_ms, duration_ms, seq, command_line):
    """Record one command of your own shell as a turn (opt-in).

    It records nothing unless MEM_SHELL_CAPTURE=1 is set in its environment
    (what 'eval "$(mem shell-init bash)"' does when you set it); without it,
    the hook log says 'skipped:MEM_SHELL_CAPTURE-not-1'.  The command line
    is read from stdin (what the shell integrations do: an argument would be
    readable by every local user in /proc/PID/cmdline
    while the hook runs, and a line such as 'export TOKEN=…' holds a
    secret); arguments after -- are still taken, for older shell files.
    The record is written to the store's spool (cache/shell-spool) before
    anything waits, so a record made while an import or gc holds the store
    lock is kept: stored once the lock is free, or by the next record.

    \b
    Examples:
      printf '%s' make | MEM_SHELL_CAPTURE=1 mem hook shell --session shell-1 --cwd . --status 1 --start 1767225600000 --duration 80

    Exit status: always 0 (errors go to the hook log).
    """
    from ._hookshell import read_command_line, run_shell
    ctx = click.get_current_context()
    line = " ".join(command_line) if command_line else read_command_line(sys.stdin.fileno())
    ctx.exit(run_shell(session=session, cwd=cwd, status=status, started_ms=started_ms, duration_ms=duration_ms,
                       command_line=line, env=_env(ctx), seq=seq))


@command.command("catch-up")
@click.option("--idle", "idle_s", type=FiniteFloatRange(0, 86400), default=2.0, show_default=True,
              help="Seconds without writes after which a transcript is read to its end.")
def catch_up(idle_s):
    """Sync every known transcript that grew since its last sync.

    The shell wrapper runs it after the agent exits, so a session whose
    SessionEnd hook never ran is captured at once.

    \b
    Examples:
      mem hook catch-up
      mem hook catch-up --idle 0

    Exit status: always 0 (errors go to the hook log).
    """
    from ._hookrun import run_catch_up
    ctx = click.get_current_context()
    ctx.exit(run_catch_up(idle_s=idle_s, env=_env(ctx), create=_create(ctx)))
