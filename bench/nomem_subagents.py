"""What the #nomem sub-agent check (objstore.capture.nomem, test17 T9) costs a
Claude Code import: CPU (the process and its children) of ``mem import
claude-code DIR`` into a fresh store, this tree against another (``--base``,
a checkout of an older commit), interleaved, after one untimed run of each
(so both run from their bytecode), medians of ``--runs``; and the check
alone over every sub-agent file under DIR.

    python bench/nomem_subagents.py --base /tmp/cred17-base /tmp/bench-corpus/-home-ana-code-mkcli
    python bench/nomem_subagents.py --check-only /tmp/bench-corpus
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def _import_cpu(tree: Path, src: str) -> float:
    d = tempfile.mkdtemp(prefix="nomem-ab-")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tree), MEM_HOME=f"{d}/s", HOME=f"{d}/h", MEM_NO_HELPER="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "cmds", "import", "claude-code", src], env=env, cwd=tree, check=True,
                   capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(d)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("src", help="a folder of Claude Code transcripts")
    ap.add_argument("--base", help="the other tree (required unless --check-only)")
    ap.add_argument("--check-only", action="store_true", help="time only the check")
    ap.add_argument("--runs", type=int, default=9)
    a = ap.parse_args()
    if not a.check_only:
        if not a.base:
            ap.error("--base is required")
        trees = {"base": Path(a.base), "head": HERE}
        got: dict[str, list[float]] = {k: [] for k in trees}
        for i in range(a.runs + 1):
            for name in (("base", "head") if i % 2 else ("head", "base")):
                t = _import_cpu(trees[name], a.src)
                if i:
                    got[name].append(t)
        m = {k: statistics.median(v) for k, v in got.items()}
        print(f"import CPU: base {m['base']:.2f} s, head {m['head']:.2f} s, head/base {m['head'] / m['base']:.3f}")
    sys.path.insert(0, str(HERE))
    from objstore.capture import nomem
    from objstore.capture.policy import CaptureConfig
    from objstore.memory.opening import open_store
    subs = sorted(Path(a.src).rglob("agent-*.jsonl"))
    store = open_store(Path(tempfile.mkdtemp()) / "s", create=True)
    ts = []
    for _ in range(a.runs):
        nomem._CALLS.clear()
        t = time.process_time()
        for p in subs:
            nomem.subagent_excluded(store, p, CaptureConfig(), set())
        ts.append(time.process_time() - t)
    print(f"the check alone: {len(subs)} sub-agent files, {statistics.median(ts) * 1000:.1f} ms CPU")


if __name__ == "__main__":
    main()
