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
