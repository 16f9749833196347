"""mem eval: retrieval and delivery evaluations in a temporary store."""

import click

from ._common import emit_json, json_option, progress_bar


@click.group("eval")
def command():
    """Measure recall and injection quality on scenario files.

    Every evaluation builds its own temporary store and never touches yours.

    \b
    supersession FILE  Hit@1 / Stale@1 of the supersession rule versus
                       similarity-only search over every version.
    locomo FILE        Recall@5/@10 and MRR@10 on LoCoMo, step by step.
    injection FILE     Recall, precision and false-injection share of the
                       prompt gate on labelled prompts.
    knowledge-update FILE
                       Whether recall ranks the newest statement of a
                       changed value first (evidence@5/@10, newest-first,
                       Stale@1 of turn passages).
    namespaces FILE    Sibling leaks between sub-agents (must be 0) and
                       whether a parent's question is answered by a
                       sub-agent's conclusion before its raw exploration.

    \b
    Examples:
      mem eval supersession eval/supersession.json
      mem eval locomo ../shared/data/locomo/locomo10.json
      mem eval injection eval/injection.json --json
      mem eval knowledge-update eval/knowledge_update.json
      mem eval namespaces eval/namespaces.json

    Exit status: 0 ok; 1 the supersession rule served a stale value, or a
    sub-agent read a sibling's memory; 2 not a scenario file; 4 no such file.
    """


def _tmp():
    import tempfile
    return tempfile.TemporaryDirectory(prefix="mem-eval-")


@command.command("supersession")
@click.argument("file", type=click.Path(dir_okay=False))
@json_option
def supersession(file, as_json):
    """Hit@1 and Stale@1 of the supersession rule and of similarity-only search.

    FILE lists keys with their writes (values with valid_from times, some
    of them backfills) and questions whose answer is the current value.
    "rule" answers through mem recall (current versions, resolved by the
    key's ref); "similarity" runs BM25 over every version, as a plain
    retriever would.

    \b
    Examples:
      mem eval supersession eval/supersession.json
      mem eval supersession eval/supersession.json --json

    Exit status: 0 ok; 1 the rule served a stale value (Stale@1 > 0);
    2 not a scenario file; 4 no such file.
    """
    from objstore import eval_supersession
    with _tmp() as d:
        r = eval_supersession(file, d)
    if as_json:
        emit_json(r.to_json())
    else:
        click.echo(f"{r.keys} keys, {r.writes} writes ({r.backfills} backfills), {r.questions} questions")
        click.echo(f"{'retriever':<12} {'Hit@1':>6} {'Stale@1':>8}")
        for name, m in (("rule", r.rule), ("similarity", r.similarity)):
            j = m.to_json()
            click.echo(f"{name:<12} {j['hit@1']:>6.3f} {j['stale@1']:>8.3f}")
        for q, k in r.stale_cases:
            click.echo(f"STALE: {k}: {q}", err=True)
    if r.rule.stale:
        raise click.exceptions.Exit(1)


@command.command("locomo")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--steps/--default-only", default=True, show_default=True,
              help="Build the pipeline up step by step, or run only the default.")
@click.option("--conversations", type=click.IntRange(1, 1000), metavar="N", help="Use only the first N conversations.")
@json_option
def locomo(file, steps, conversations, as_json):
    """Recall@5, Recall@10 and MRR@10 of mem recall on LoCoMo.

    FILE is locomo10.json (Maharana et al., ACL 2024; evaluation only, never
    shipped).  Every dialogue turn is stored as a turn, one project per
    conversation; each question is recalled in its conversation's project
    and its evidence turns are the gold.  Each row adds one step to the
    one above it; the last row is mem recall's default.  No model is
    called.  The full run takes a minute or two.

    \b
    Examples:
      mem eval locomo ../shared/data/locomo/locomo10.json
      mem eval locomo locomo10.json --default-only --json

    Exit status: 0 ok; 2 not a LoCoMo file; 4 no such file.
    """
    from objstore import LOCOMO_CATEGORIES, eval_locomo
    with _tmp() as d, progress_bar("questions") as update:
        r = eval_locomo(file, d, steps=steps, limit_conversations=conversations, progress=update)
    if as_json:
        emit_json(r.to_json())
        return
    click.echo(f"{r.conversations} conversations, {r.turns} turns, {r.questions} questions")
    click.echo(f"{'step':<68} {'R@5':>6} {'R@10':>6} {'MRR@10':>7}")
    for row in r.rows:
        j = row.overall.to_json()
        click.echo(f"{row.name:<68} {j['recall@5']:>6.3f} {j['recall@10']:>6.3f} {j['mrr@10']:>7.3f}")
    last = r.rows[-1]
    click.echo("\nby category (default pipeline):")
    for cat, sc in sorted(last.by_category.items()):
        j = sc.to_json()
        name = LOCOMO_CATEGORIES.get(cat, str(cat))
        click.echo(f"  {cat} {name:<12} n={j['n']:<4} R@5 {j['recall@5']:.3f}  R@10 {j['recall@10']:.3f}  "
                   f"MRR@10 {j['mrr@10']:.3f}")


@command.command("injection")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--show", is_flag=True, help="List every prompt with what was injected.")
@json_option
def injection(file, show, as_json):
    """Recall, precision and false-injection share of the prompt gate.

    FILE holds facts and past turns to store and prompts labelled with the
    fact keys that should be injected (most prompts need none).  Each prompt
    runs through the default gate in a fresh session.

    \b
    Examples:
      mem eval injection eval/injection.json
      mem eval injection eval/injection.json --show

    Exit status: 0 ok; 2 not a scenario file; 4 no such file.
    """
    from objstore import eval_injection
    with _tmp() as d:
        r = eval_injection(file, d)
    if as_json:
        emit_json(r.to_json())
        return
    j = r.to_json()
    click.echo(f"{j['prompts']} prompts ({j['needing']} need a fact), {j['facts']} facts, {j['turns']} past turns")
    click.echo(f"recall {j['recall']:.3f}  precision {j['precision']:.3f}  "
               f"prompts with a false injection {j['false_injection_share']:.3f}  "
               f"turn passages injected {j['turn_injections']}")
    tk = j["tokens"]
    click.echo(f"tokens: session start {tk['session_start']}, per prompt {tk['per_prompt_mean']:.1f} "
               f"(with an injection {tk['per_injecting_prompt_mean']:.1f}, largest {tk['per_prompt_max']})")
    if show:
        for p in r.rows:
            mark = "ok " if not p["false"] and not p["missed"] else "BAD"
            click.echo(f"{mark} {p['prompt'][:70]!r}: injected {p['injected'] or '-'}; "
                       f"expected {p['expect'] or '-'}")


@command.command("knowledge-update")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--show", is_flag=True, help="List every question with the sessions recalled.")
@json_option
def knowledge_update(file, show, as_json):
    """Newest-first and Stale@1 of mem recall when values changed over time.

    FILE holds sessions (project, time, turns) in which a value is stated
    and changed later, and questions with their evidence sessions, the
    current value and the old ones (eval/knowledge_update.json, written by
    eval/gen_knowledge_update.py).  Each question runs through mem recall
    in its project.  Reported: evidence sessions among the first 5 and 10
    passages, the share of questions whose newest evidence session ranks
    above the older ones, and Stale@1: the first passage states an old
    value and not the current one.

    \b
    Examples:
      mem eval knowledge-update eval/knowledge_update.json
      mem eval knowledge-update eval/knowledge_update.json --show
      mem eval knowledge-update eval/knowledge_update.json --json

    Exit status: 0 ok; 2 not a scenario file; 4 no such file.
    """
    from objstore import eval_knowledge_update
    with _tmp() as d, progress_bar("questions") as update:
        r = eval_knowledge_update(file, d, progress=update)
    j = r.to_json()
    if as_json:
        emit_json(j)
        return
    click.echo(f"{j['sessions']} sessions, {j['turns']} turns, {j['questions']} questions")
    click.echo(f"evidence@5 {j['evidence@5']:.3f}  evidence@10 {j['evidence@10']:.3f}  "
               f"newest-first {j['newest_first']:.3f}  Stale@1 {j['stale@1']:.3f}  "
               f"current@1 {j['current@1']:.3f}  ({j['seconds']:.1f} s)")
    if show:
        for row in r.rows:
            mark = "STALE" if row["stale@1"] else ("ok   " if row["newest_first"] else "OLDER")
            click.echo(f"{mark} {row['question'][:60]!r}: evidence {row['evidence']}; "
                       f"ranked {row['ranked'][:5]}")


@command.command("namespaces")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--show", is_flag=True, help="List every parent question with where the conclusion ranked.")
@json_option
def namespaces(file, show, as_json):
    """Sibling leaks and conclusion-first answers of sub-agent namespaces.

    FILE holds sessions that ran sub-agents: their raw turns, their facts
    and their conclusions (eval/namespaces.json).  Each is stored as the
    hooks store it (a namespace per sub-agent, its conclusion rolled up
    into the parent as a summary).  Every sub-agent then reads as itself
    (recall, its SubagentStart block, the prompt gate): any item of a
    sibling's namespace it sees is a leak, and there must be none.  Each
    parent question is recalled as the parent: reported is the share whose
    answering sub-agent's summary ranks above all of its raw turns, next to
    a flat pool (the same turns, no namespaces, no summaries).

    \b
    Examples:
      mem eval namespaces eval/namespaces.json
      mem eval namespaces eval/namespaces.json --show --json

    Exit status: 0 ok; 1 a sibling leak; 2 not a scenario file; 4 no such file.
    """
    from objstore import eval_namespaces
    with _tmp() as d:
        r = eval_namespaces(file, d)
    j = r.to_json()
    if as_json:
        emit_json(j)
    else:
        click.echo(f"{j['sessions']} sessions, {j['agents']} sub-agents, {j['turns']} turns, "
                   f"{j['reads']} reads as a sub-agent, {j['questions']} parent questions")
        click.echo(f"sibling leaks {j['sibling_leaks']}  conclusion first {j['conclusion_first']:.3f} "
                   f"(flat pool {j['flat_conclusion_first']:.3f})  conclusion@10 {j['conclusion_found@10']:.3f}  "
                   f"rollups {j['rollups_ok']}/{j['agents']} ({j['did_not_complete']} did not complete)")
        for leak in j["leaks"]:
            click.echo(f"LEAK: {leak}", err=True)
        if show:
            for row in j["rows"]:
                mark = "ok " if row["conclusion_first"] else "BAD"
                click.echo(f"{mark} {row['question'][:60]!r}: summary #{row['summary_rank']}, "
                           f"first raw turn #{row['first_raw_rank']}")
    if r.sibling_leaks:
        raise click.exceptions.Exit(1)
