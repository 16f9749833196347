"""Helpers of the recall/context tests."""

from __future__ import annotations

import itertools

from objstore.core.objects import Turn

_n = itertools.count()


def turn(text: str, role: str = "user", project: str = "acme", ts: int = 1_700_000_000_000) -> Turn:
    """A turn to store with ``objstore.retrieval.evaluate.write_sessions`` (session,
    seq and parent are set there)."""
    return Turn(session="x", seq=0, role=role, text=text, timestamp=ts, harness="test", cwd=f"/w/{project}",
                project=project, source=f"t:{next(_n)}", parent=None)
