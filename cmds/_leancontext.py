"""``mem context`` on the lean path (moved out of :mod:`cmds.lean`, which
was at the size limit): the session-start block, what ``--prompt`` would
get, or the project's block, as text or ``--json``."""

from __future__ import annotations

import os

from ._out import echo, emit_json, project_override, safe, warn_set_back, working_dir
from .lean import namespace_of


def context(store, project, budget: int | None, session_id, source: str, prompt, previous_assistant, tool_output,
            as_json: bool, prompt_budget: int | None = None, agent: str | None = None) -> int:
    """``mem context``: the session-start block, or what ``--prompt`` would
    get (budgets: the options, else the store's ``[context]`` settings);
    with ``agent`` as sub-agent ``agent`` of ``session_id`` sees it."""
    from objstore import project_aliases, render_context, session_start_block
    override = project_override(project)
    namespace = namespace_of(session_id, agent) if agent is not None else None
    if namespace:
        session_id = namespace  # a sub-agent's state is its own
    cwd = None if override else working_dir()
    if prompt is not None:
        from objstore import GateConfig, inject_for_prompt  # only here: the start block needs no gate (start-up)
        inj = inject_for_prompt(store, session_id or "", prompt, previous_assistant=previous_assistant,
                                tool_output=tool_output, cwd=cwd, project=override,
                                config=GateConfig(budget_tokens=prompt_budget) if prompt_budget else None,
                                trace_path=os.environ.get("MEM_TRACE") or None, namespace=namespace)
        if as_json:
            emit_json({"text": inj.text, **{k: inj.trace[k] for k in ("project", "cues", "injected", "rejected",
                                                                       "decision", "tokens", "budget")}})
        elif inj.text:
            echo(inj.text, nl=False)
        return 0
    if session_id:
        text = session_start_block(store, session_id, source, cwd, project=override, budget=budget,
                                   trace_path=os.environ.get("MEM_TRACE") or None, namespace=namespace)
        if as_json:
            emit_json({"text": text, "session": session_id})
        elif text:
            echo(text, nl=False)
        return 0
    block = render_context(store, project_aliases(cwd, override=override, store_root=store.root), budget=budget)
    back = warn_set_back(store, [k for k, _i in block.facts])   # (test39b B6)
    if as_json:   # (each fact's set_back field: test41 T6)
        emit_json({"text": block.text, "project": block.project, "tokens": block.tokens, "budget": block.budget,
                   "omitted": block.omitted, "stale_moving": block.stale_moving,
                   "facts": [{"key": k, "id": i, **({"set_back": back[k]} if k in back else {})}
                             for k, i in block.facts]})
    elif block.text:
        echo(block.text, nl=False)
    else:   # say where it looked, as recall does (test25 T13: the README's tour printed nothing at all)
        where = f" for project {safe(block.project)} (from {'--project' if override else 'the working directory'})" \
            if block.project else ""
        echo(f"nothing to show{where}; --project NAME shows another project's", err=True)
    return 0
