"""Tokens delivered by injection on a real-sized store (issue 20, item 4).

For each project of the store, the session-start block (``render_context``,
the store's session budget); then, for a sample of the store's own user
prompts (every k-th user turn, at most ``--prompts``), the per-prompt gate
(``inject_for_prompt``) in that turn's session and project, as the
UserPromptSubmit hook runs it (the session's own turns are never injected;
the corpus repeats its prompts in sub-agent sessions, which may be).  Tokens are the estimate the trace reports (⌈characters / 4⌉).

Work on a copy: the prompt gate records what it injected in the store's
session state.  Reading the store writes nothing else.

    cp -r /tmp/mem-bench-final/mem-store /tmp/tokens-store     # bench/run.py's store of the 300-session corpus
    python bench/tokens.py /tmp/tokens-store --facts 300 --prompts 300

(``bench/bench_recall.py``'s own store already holds its 300 facts: no
``--facts`` there.)

Prints the figures (one JSON object with ``--json``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from objstore import inject_for_prompt, list_sessions, open_store, render_context, session_turns  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", type=Path, help="the store (a copy: the gate writes session state)")
    ap.add_argument("--prompts", type=int, default=300, help="user prompts sampled (default 300)")
    ap.add_argument("--facts", type=int, default=0,
                    help="first write bench_recall.py's N facts (its default store has 300)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    with open_store(a.store) as store:
        if a.facts:
            from bench_recall import write_bench_facts
            write_bench_facts(store, a.facts)
        sessions = list_sessions(store)
        projects = sorted({s.project for s in sessions})
        blocks = {p: render_context(store, (p,) if p else ()).tokens for p in projects}
        prompts: list[tuple[str, str, str]] = []
        for s in sessions:
            for tv in session_turns(store, s.id):
                t = tv.turn
                if t.role == "user" and t.text.strip() and len(t.text) < 4000:
                    prompts.append((s.id, t.project, t.text))
        step = max(1, len(prompts) // max(1, a.prompts))
        sample = prompts[::step][:a.prompts]
        costs = []
        for sid, project, text in sample:  # in its own session: its own turns are never injected
            inj = inject_for_prompt(store, sid, text, project=project or None)
            costs.append(int(inj.trace.get("tokens") or 0))
    hit = [c for c in costs if c]
    out = {
        "sessions": len(sessions), "projects": len(projects), "user_prompts": len(prompts),
        "session_start_tokens": {"mean": round(statistics.mean(blocks.values()), 1) if blocks else 0,
                                 "max": max(blocks.values(), default=0), "min": min(blocks.values(), default=0)},
        "prompts_sampled": len(costs),
        "per_prompt_tokens": {"mean": round(statistics.mean(costs), 1) if costs else 0,
                              "with_injection_mean": round(statistics.mean(hit), 1) if hit else 0,
                              "max": max(costs, default=0), "share_injected": round(len(hit) / len(costs), 3)
                              if costs else 0},
        "seconds": round(time.perf_counter() - t0, 1),
    }
    if a.json:
        print(json.dumps(out))
    else:
        s, p = out["session_start_tokens"], out["per_prompt_tokens"]
        print(f"{out['sessions']} sessions, {out['projects']} projects, {out['user_prompts']} user prompts")
        print(f"session start: mean {s['mean']} tokens, max {s['max']}, min {s['min']}")
        print(f"per prompt ({out['prompts_sampled']} sampled): mean {p['mean']}, with an injection "
              f"{p['with_injection_mean']}, max {p['max']}, injected on {p['share_injected']:.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
