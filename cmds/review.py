"""mem review (and its alias mem shell)."""

import sys

import click

from ._common import finishes_when_stdout_closes, with_store

SUMMARY = "Curate memory in an interactive shell that opens on the review queue."

BODY = """\
Commands inside: queue, next, accept, reject, edit (change the value, then
accept), show KEY, log KEY, diff KEY [vA vB], search QUERY, pin/unpin KEY,
reinforce KEY, dormant, forget KEY (shows what goes, then asks you to type
yes), help, quit.  Tab completes commands, keys and item ids;
Alt-a/Alt-r/Alt-e/Alt-n accept, reject, edit, next; Ctrl-C cancels the
line; Ctrl-D quits.  The toolbar counts queued items, dormant facts, keys
and sessions.

The line history is kept inside the store (cache/shell-history) so that
forget can purge it; --no-history (or MEM_SHELL_HISTORY=0) keeps none.
When standard input or output is not a terminal, commands are read one per
line from standard input (a question takes the next line).

\b
Examples:
  mem review
  mem review --no-history
  printf 'accept\\nquit\\n' | mem review

Exit status: 0 on quit or Ctrl-D; 10 no store; 11 store locked (a write
waited too long); 141 standard output closed early (every line read was
still run).  Commands read from standard input: every line is run, then
the status is the first failed command's (6 refused, e.g. an agent's
accept; 4 not found; 2 unknown command), 0 when none failed.
"""


def make_command(name: str, summary: str) -> click.Command:
    """The click command ``name``: help ``summary`` then :data:`BODY`."""

    @click.command(name, help=f"{summary}\n\n{BODY}")
    @click.option("--history/--no-history", default=True, envvar="MEM_SHELL_HISTORY", show_default=True,
                  help="Keep the line history in the store ($MEM_SHELL_HISTORY=0 turns it off).")
    @with_store()
    def command(history, store):
        if sys.stdin.isatty() and sys.stdout.isatty():
            from .shell.app import run
            run(store, history=history)
            return
        _run_piped(store)

    return command


@finishes_when_stdout_closes
def _run_piped(store) -> None:
    """The shell's commands read one per line from standard input (not a
    terminal): every line is run to the end, a ``forget`` confirmed by a
    ``yes`` line included, when the reader of standard output goes away
    (``printf 'forget KEY\\nyes\\n' | mem review | head -1``: the preview's
    first line closed the pipe and the forget was never run; session 23),
    then the command exits 141 (docs/exit-codes.md).  Otherwise it exits
    with the first failed command's status (:func:`run_lines`)."""
    from .shell.commands import ShellState, run_lines
    code = run_lines(ShellState(store, width=100), sys.stdin, click.echo)
    if code:
        raise SystemExit(code)


command = make_command("review", SUMMARY)
