"""mem context."""

import click

from ._common import exit_with, json_option, with_store


@click.command("context")
@click.option("--project", metavar="NAME", help="Project, replacing the working directory's (default: $MEM_PROJECT, else from the working directory).")
@click.option("--budget", type=click.IntRange(1, 100_000), metavar="TOKENS",
              help="Most estimated tokens of the session-start block (default: context.session_budget "
                   "in the store's config.toml, else 1500 plus the memory files, at most 2400).")
@click.option("--prompt-budget", type=click.IntRange(1, 100_000), metavar="TOKENS",
              help="With --prompt: most estimated tokens of the injection (default: context.prompt_budget, "
                   "else 600).")
@click.option("--session", "session_id", metavar="ID",
              help="Use and keep this session's state (stable bytes, nothing injected twice).")
@click.option("--source", type=click.Choice(["startup", "resume", "clear", "compact", "fork"]), default="startup",
              show_default=True, help="With --session: how the session started.")
@click.option("--prompt", metavar="TEXT", help="Show what this prompt would get injected instead of the start block.")
@click.option("--previous-assistant", metavar="TEXT", help="With --prompt: the previous assistant message.")
@click.option("--tool-output", metavar="TEXT", help="With --prompt: the last tool output.")
@click.option("--agent", metavar="NAME", help="As sub-agent NAME of --session sees it (what SubagentStart injects).")
@json_option
@with_store()
def command(project, budget, prompt_budget, session_id, source, prompt, previous_assistant, tool_output, agent,
            as_json, store):
    """Print the memory block for a session start, or what a prompt would get.

    Without --prompt: the session-start block, which holds pinned facts, user
    and feedback facts, then the current project's facts, current values
    only, most useful first within --budget tokens.  With --session the
    block is kept in that session's state and the same bytes come back
    while its facts stay current.

    With --prompt: the cue-triggered injection for that prompt (the
    precision-first gate of UserPromptSubmit).  $MEM_TRACE=FILE appends a
    JSON line per prompt (and per session start) explaining every
    injection and rejection, with the tokens it cost.

    Every fact carries the date it was recorded; a value that moves on its
    own (a version, a count or measurement, a status) says so, and one
    older than context.moving_max_age_days (default 30) stays out of the
    session-start block.  Budgets and that age are set in the store's
    config.toml:

    \b
      [context]
      session_budget = 1500
      prompt_budget = 600
      moving_max_age_days = 30

    The text is a <mem-context> element labelled as data, not instructions;
    nothing is printed when nothing applies.

    \b
    Examples:
      mem context
      mem context --project acme-api --budget 800
      mem context --prompt "which postgres do we run?" --prompt-budget 300
      mem context --prompt "why does the db connection fail?" --json
      MEM_TRACE=/tmp/trace.jsonl mem context --session S1 --prompt "deploy it"
      mem context --session S1 --agent explorer

    With --session S --agent NAME: the block sub-agent NAME of S gets at its
    start (its own and its ancestors' facts, never a sibling's).

    Exit status: 0 ok (also when nothing applies); 2 --project or
    $MEM_PROJECT holding a credential (never echoed), bad option or agent
    name, --agent without --session; 10 no store.
    """
    from . import lean
    exit_with(lean.context(store, project, budget, session_id, source, prompt, previous_assistant,
                           tool_output, as_json, prompt_budget, agent=agent))
