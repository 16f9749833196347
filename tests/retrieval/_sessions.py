"""A Claude Code transcript for the time-aware recall tests: one line a turn,
a minute apart on 2026-10-<day> (``docs/agent-formats.md``); the day and
the first turn's time of the tests that store turns directly."""

from __future__ import annotations

import json
from pathlib import Path

DAY = 86_400_000  # ms
T0 = 1_790_000_000_000  # 2026-09-21, ms: the time of a test's first turn


def write_session(d: Path, sid: str, day: int, lines: list[tuple[str, str]], cwd: str) -> None:
    """Write ``d/<sid>.jsonl`` with ``lines`` ((role, text), role 'user' or
    'assistant') in the session folder of ``cwd``."""
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{sid}.jsonl").write_text("".join(
        json.dumps({"type": role, "sessionId": sid, "cwd": cwd, "uuid": f"{sid[:4]}{i}",
                    "timestamp": f"2026-10-{day:02d}T10:0{i}:00Z",
                    "message": {"role": role, "content": text if role == "user" else [{"type": "text", "text": text}]}})
        + "\n" for i, (role, text) in enumerate(lines)))


def prompt_hook(store: Path, prompt: str, cwd: str, trace: Path, fresh: bool = False) -> tuple[str, dict]:
    """A real ``mem hook claude-code`` process for a UserPromptSubmit of
    ``prompt`` in ``cwd`` on ``store``: (the injected text, its trace record,
    written to ``trace``).  On a loaded machine the hook stops at its budget
    and fails open: it is run again, as the next prompt would be, in a new
    session (an injection is made once a session), while it took 80 % of
    the budget or more or its run (with its capture child, waited for)
    logged a failure, at most 10 times (``tests.hooks._util.until_within_budget``
    with ``store``; session 28: a run again found the store locked by the
    last run's capture child and served nothing).
    ``fresh``: each run on a copy of ``store`` as it was (``<store>-hook``) (the prompt a
    run stores is a turn of the project: its words' weight changes what
    the next run injects)."""
    import shutil
    import subprocess

    from tests.hooks._util import hook_env, payload, run_hook, until_within_budget, wait_store_processes_gone
    pristine, runs, got = store, iter(range(10)), []

    def copy() -> None:
        shutil.rmtree(store, ignore_errors=True)
        shutil.copytree(pristine, store, symlinks=True)
    if fresh:
        store = pristine.with_name(f"{pristine.name}-hook")
        copy()

    def run() -> subprocess.CompletedProcess:
        i = next(runs)
        rc, out, err, _s = run_hook(store, payload("UserPromptSubmit", f"8{i}8{i}8{i}8{i}-2222-3333-4444-555555555555", None,
                                                   cwd=cwd, prompt=prompt),
                                    env=hook_env(store, MEM_TRACE=str(trace), MEM_NO_HELPER="1"))
        assert rc == 0, err
        got.append(out)
        return subprocess.CompletedProcess([], rc, out, err)
    # its capture child: done, and what it logged is seen (waited for outside the hook's timing)
    until_within_budget("UserPromptSubmit", run, store=store, reset=copy if fresh else None,
                        settle=lambda: wait_store_processes_gone(store))
    out = got[-1]
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
    recs = [json.loads(x) for x in trace.read_text().splitlines() if '"UserPromptSubmit"' in x] if trace.exists() else []
    return text, recs[-1] if recs else {}
