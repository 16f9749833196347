"""Stop hooks against a large transcript the hooks have not captured yet
(test29 P15): one fresh store per tree, ``--stops`` Stop events each,
interleaved base/branch, each a real ``mem hook claude-code`` process with
the default budget.  Prints, per Stop, the saved cursor's offset (MB read
and kept) and whether the hook log says ``HookTimeout``.

    python bench/hook_backlog.py --base /tmp/bk29-base --branch . --records 20000 --stops 3

``--records``: Claude Code records (a third prompts, a third answers, a
third 4 KB tool results; 20,000 is ~35 MB).  The trees are run with this
interpreter (``python -m cmds`` in each tree).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SID = "b29b29b2-0000-4000-8000-0000000000b5"
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()


def _transcript(folder: Path, records: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    t = folder / f"{SID}.jsonl"
    ts = "2026-01-05T10:00:00Z"
    with open(t, "w") as f:
        for i in range(records // 3):
            out = f"result {i}: " + " ".join(WORDS[(i + k) % len(WORDS)] for k in range(700))
            for rec in ({"type": "user", "uuid": f"u{i}", "sessionId": SID, "timestamp": ts, "cwd": "/home/u/proj",
                         "message": {"role": "user", "content": f"prompt number {i} about the build"}},
                        {"type": "assistant", "uuid": f"a{i}", "sessionId": SID, "timestamp": ts,
                         "cwd": "/home/u/proj", "message": {"id": f"msg_{i}", "role": "assistant",
                                                            "content": [{"type": "text", "text": f"answer {i}"}]}},
                        {"type": "user", "uuid": f"r{i}", "sessionId": SID, "timestamp": ts, "cwd": "/home/u/proj",
                         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}",
                                                                  "content": out}]}}):
                f.write(json.dumps(rec) + "\n")
    return t


def _offset(store: Path) -> int:
    for c in (store / "cache" / "cursors").glob("*.json") if (store / "cache" / "cursors").is_dir() else ():
        return json.loads(c.read_text()).get("offset", 0)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--branch", required=True)
    ap.add_argument("--records", type=int, default=20000)
    ap.add_argument("--stops", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hook-backlog-") as tmp:
        t = _transcript(Path(tmp) / "proj", a.records)
        print(f"transcript: {t.stat().st_size / 1e6:.1f} MB, {a.records} records")
        trees = {"base": Path(a.base).resolve(), "branch": Path(a.branch).resolve()}
        ev = json.dumps({"hook_event_name": "Stop", "session_id": SID, "cwd": "/home/u/proj",
                         "transcript_path": str(t)}).encode()
        for i in range(1, max(1, min(a.stops, 50)) + 1):
            for name, tree in trees.items():
                store = Path(tmp) / f"store-{name}"
                env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
                env.update(MEM_HOME=str(store), MEM_NO_HELPER="1")
                t0 = time.monotonic()
                subprocess.run([sys.executable, "-m", "cmds", "hook", "claude-code"], input=ev, cwd=tree, env=env,
                               capture_output=True, timeout=120)
                dt = time.monotonic() - t0
                log = store / "logs" / "hooks.log"
                timeouts = log.read_text().count("HookTimeout") if log.exists() else 0
                print(f"Stop {i} {name:6s}: {dt:5.2f} s, kept {_offset(store) / 1e6:6.2f} MB, "
                      f"HookTimeout lines so far {timeouts}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
