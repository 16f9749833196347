"""mem recall."""

import click

from ._common import TimeType, exit_with, json_option, with_store


@click.command("recall")
@click.argument("queries", nargs=-1, required=True, metavar="QUERY [QUERY]...")
@click.option("--what", type=click.Choice(["all", "facts", "turns"]), default="all", show_default=True,
              help="Recall facts, turn passages or both.")
@click.option("-n", "--limit", type=click.IntRange(1, 200), default=10, show_default=True, help="Most hits to show.")
@click.option("--project", metavar="NAME", help="Project scope, replacing the working directory's (default: $MEM_PROJECT, else from the working directory).")
@click.option("--all-projects", is_flag=True, help="Search every project, not only the current one.")
@click.option("--as-of", type=TimeType(), help="Recall as the store stood at TIME: facts current then, turns recorded by then.")
@click.option("--include-directives", is_flag=True,
              help="Also recall directive facts (questions, instructions, goals), held out by default.")
@click.option("--session", metavar="ID", help="Read as this session's namespace (default: $MEM_SESSION).")
@click.option("--agent", metavar="NAME", help="Read as sub-agent NAME of the session: its own and its ancestors' "
                                             "memory, never a sibling's.")
@click.option("--from-agent", metavar="NAME", help="Only what sub-agent NAME recorded (its turns and facts, past "
                                                  "its summary): a name, an agent id or a prefix of one, or a "
                                                  "namespace <session>.agent-<id>; found in every session unless "
                                                  "--session.")
@json_option
@with_store()
def command(queries, what, limit, project, all_projects, as_of, include_directives, session, agent, from_agent,
            as_json, store):
    """Recall current facts and past turns for one or more phrasings.

    Each QUERY is one phrasing (quote it); several phrasings of the same
    question are fused by reciprocal rank.  A fact always shows its key's
    current value, even when an older version matched; turn passages show
    where they came from (session, time, role, project).  Results are
    scoped to the current project (from --project, $MEM_PROJECT, or the
    working directory's git remote or folder name) plus user and global
    facts; --all-projects widens that.  Secret facts are never shown: a
    sealed key the question names (user/pin for "what is my pin") gets a
    note on stderr pointing to 'mem sealed show KEY' (--json: "sealed").
    A fact whose key the question names (project/api/db for "what is the
    db host", or "what database": a short and a long spelling of a common
    abbreviation name the same key) comes first, ahead of the turns about
    it; a match on an
    older version counts half (facts are ordered as mem search orders
    them).

    Every hit shows its date.  For a question about the present, a passage
    whose value a later statement changed ranks below that statement and
    says "updated later" (a current fact outranks turns holding its older
    values, and turns saying what it says); a later value of another thing
    (the replica's port, asked about the primary's) changes nothing; a
    turn that only asks ("what port does the api use?") ranks below what
    answers it; asked about an identifier by name (t39998, m34.py,
    test_login), a later turn about another one is not its update.  A
    turn holding none of the question's content words (only "use", "fix"
    or a tool call's field names) is not recalled: "nothing recalled"
    rather than unrelated turns.  A fact whose value a later turn of the person says
    changed ("the staging database moved to port 6543") ranks below that
    turn and says "a later turn says"; its value stays until a new version
    (mem remember).  A sealed value is never shown: a question naming a
    sealed key gets a note, and a broader fact of the same name (global/X
    beside a sealed project/P/X) is marked "overridden by" the sealed key,
    and a turn said before the sealed value that states a value of the
    sealed key's subject (its project and name: "the api runs on port
    8080" for project/api/port, not redis's port) "may be replaced" by it.
    Questions about the past ("when did", "what was") keep the search order.  --as-of TIME reads the store as it stood then: each
    key's value current at TIME (as mem log --as-of) and only turns
    recorded by TIME.  Facts of kind directive (a question, an instruction,
    a goal) are held out unless --include-directives.  A turn is labelled
    by who wrote it: a sub-agent's "user" prompt is the parent agent's
    (parent_agent), and a turn after its session read outside content (a
    web page, a file outside the project) is marked untrusted.

    Namespaces: --session S reads as session S, --agent NAME as its
    sub-agent NAME (a sibling sub-agent's facts and turns are never shown;
    a sub-agent's, seen from its parent, rank below the parent's own).
    --from-agent NAME shows only what sub-agent NAME recorded: NAME is its
    name or agent id (4 or more leading characters will do) or its whole
    namespace (<session>.agent-<id>, as mem sessions lists it); the
    sub-agent is looked for in every session, or only in --session's
    (default $MEM_SESSION).  An id that names sub-agents of several
    sessions is refused with their namespaces.

    \b
    Examples:
      mem recall "which port does the database use"
      mem recall "deploy steps" "how do we release" --what facts
      mem recall "flaky auth test" --all-projects --json
      mem recall "which port does the api use" --as-of 2026-03-01
      mem recall "what did the explorer find" --session S1 --from-agent explorer
      mem recall "which files changed" --from-agent a4ca7529

    Exit status: 0 ok (also with no hits); 2 no searchable word, --project
    or $MEM_PROJECT holding a credential (never echoed), a bad session id
    or agent name, --agent without a session; 4 --from-agent names no sub-agent (in
    --session's session, when given) or several; 10 no store; 13 unreadable
    search index (run mem reindex).
    """
    from . import lean
    exit_with(lean.recall(store, queries, what, limit, project, all_projects, as_json, as_of,
                          include_directives=include_directives, session=session, agent=agent,
                          from_agent=from_agent))
