"""Fixtures of the recall/context tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def add_sessions(store):
    """``add_sessions({"sid": [turn(...), ...]})`` writes and indexes sessions."""
    from objstore.retrieval.evaluate import write_sessions

    def add(sessions: dict) -> None:
        write_sessions(store, sessions.items())
    return add
