"""mem context."""

import click

from ._common import exit_with, json_option, with_store


@click.command("context")
@click.option("--project", metavar="NAME", help="Project (default: $MEM_PROJECT, else from the working directory).")
@click.option("--budget", type=click.IntRange(1, 100_000), default=1500, show_default=True, metavar="TOKENS",
              help="Most estimated tokens of the session-start block.")
@click.option("--session", "session_id", metavar="ID",
              help="Use and keep this session's state (stable bytes, nothing injected twice).")
@click.option("--source", type=click.Choice(["startup", "resume", "clear", "compact", "fork"]), default="startup",
              show_default=True, help="With --session: how the session started.")
@click.option("--prompt", metavar="TEXT", help="Show what this prompt would get injected instead of the start block.")
@click.option("--previous-assistant", metavar="TEXT", help="With --prompt: the previous assistant message.")
@click.option("--tool-output", metavar="TEXT", help="With --prompt: the last tool output.")
@json_option
@with_store()
def command(project, budget, session_id, source, prompt, previous_assistant, tool_output, as_json, store):
    """Print the memory block for a session start, or what a prompt would get.

    Without --prompt: the session-start block, which holds pinned facts, user
    and feedback facts, then the current project's facts, current values
    only, most useful first within --budget tokens.  With --session the
    block is kept in that session's state and the same bytes come back
    while its facts stay current.

    With --prompt: the cue-triggered injection for that prompt (the
    precision-first gate of UserPromptSubmit).  $MEM_TRACE=FILE appends a
    JSON line per prompt explaining every injection and rejection.

    The text is a <mem-context> element labelled as data, not instructions;
    nothing is printed when nothing applies.

    \b
    Examples:
      mem context
      mem context --project acme-api --budget 800
      mem context --prompt "why does the db connection fail?" --json
      MEM_TRACE=/tmp/trace.jsonl mem context --session S1 --prompt "deploy it"

    Exit status: 0 ok (also when nothing applies); 2 bad option; 10 no store.
    """
    from . import lean
    exit_with(lean.context(store, project, budget, session_id, source, prompt, previous_assistant,
                           tool_output, as_json))
