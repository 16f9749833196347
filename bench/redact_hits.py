"""Every redaction hit over every line of every file under the given folders
(default: the shared transcripts and the 300-session bench corpus): the
count of files and hits and a digest of the hit list (file, line, rule,
matched text), written to OUT, so two trees' lists can be ``diff``ed.
Used for the false-positive count of a redaction rule change::

    PYTHONPATH=<tree> python bench/redact_hits.py OUT [FOLDER ...]
"""

from __future__ import annotations

import hashlib
import os
import sys
import time

from objstore.core.redact import redact

DEFAULT_ROOTS = ("/work/shared/data/transcripts", "/tmp/bench-corpus")


def main(out: str, roots: list[str]) -> None:
    hits: list[str] = []
    files = 0
    t0 = time.process_time()
    for root in roots:
        for d, _dirs, names in os.walk(root):
            for name in sorted(names):
                path = os.path.join(d, name)
                try:
                    with open(path, encoding="utf-8", errors="replace") as f:
                        lines = f.read().splitlines()
                except OSError:
                    continue
                files += 1
                for i, line in enumerate(lines):
                    hits += [f"{path}:{i}:{h.rule}:{line[h.start:h.end]}" for h in redact(line).hits]
    text = "\n".join(hits)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    print(f"{files} files, {len(hits)} hits, digest {hashlib.sha256(text.encode()).hexdigest()[:16]}, "
          f"{time.process_time() - t0:.1f} s CPU")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:] or list(DEFAULT_ROOTS))
