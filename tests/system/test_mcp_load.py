"""Issue 14's load check, bounded: 8 clients against one ``mem serve`` while a
prompt hook and ``mem gc`` run in loops: no error, no lost write.  The full
8 x 200 run and its latencies are in docs/benchmarks.md (bench/mcp_load.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import mcp_load  # noqa: E402


def test_eight_clients_with_hook_and_gc_lose_no_write(store_path):
    res = mcp_load.run(store_path, clients=8, calls=8)
    assert res["errors"] == [] and res["lost"] == []
    assert res["writes"] == 8 * 2
    assert res["hook_runs"] >= 1 and res["gc_runs"] >= 1
    assert set(res["latency_ms"]) == {"get", "recall", "remember"}
