"""test37 T5: ``mem mcp`` logged, for a ``forget_matching`` call, the first
12 hex digits of the plain SHA-256 of its text, which is the value being
forgotten: a six-digit account number came back from the server's stderr in
under a second.  Now the log line holds a keyed digest (``query_mac``)
under a key the server process never writes: the same text in one process
gives the same digest, in another process another, and neither is the
SHA-256.  The official ``mcp`` client on a real ``mem mcp --admin``."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mcp_helpers import REPO, stdio_params  # noqa: E402

TEXT = "771902"


def _logged(store_path) -> list[dict]:
    """One ``mem mcp --admin`` process: forget_matching TEXT twice (a preview each); its stderr's tool lines."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    subprocess.run([sys.executable, "-m", "cmds", "remember", "project/acme/note",
                    f"the vendor account number is {TEXT}"], check=True, capture_output=True, cwd=REPO,
                   env=dict(os.environ), timeout=120)
    with tempfile.TemporaryFile("w+") as err:
        async def main():
            async with stdio_client(stdio_params("--admin"), errlog=err) as (r, w):
                async with ClientSession(r, w) as s:
                    await s.initialize()
                    for _ in range(2):
                        await s.call_tool("forget_matching", {"text": TEXT})
        anyio.run(main)
        err.seek(0)
        lines = [json.loads(ln) for ln in err.read().splitlines() if ln.startswith("{")]
    return [ln for ln in lines if ln.get("tool") == "forget_matching"]


def test_the_log_keeps_no_plain_digest_of_a_forgotten_text(store_path):
    first = _logged(store_path)
    second = _logged(store_path)
    assert len(first) == len(second) == 2, (first, second)
    plain = hashlib.sha256(TEXT.encode()).hexdigest()
    for rec in first + second:
        assert "query_sha256" not in rec and TEXT not in json.dumps(rec), rec
        assert len(rec["query_mac"]) == 12 and rec["query_mac"] not in plain, rec
    assert first[0]["query_mac"] == first[1]["query_mac"]          # one process: a repeated query named alike
    assert first[0]["query_mac"] != second[0]["query_mac"]         # another process: another key
