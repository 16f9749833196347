"""Every redaction hit over every line of every file under the given folders
(default: the shared transcripts and the 300-session bench corpus): the
count of files and hits and a digest of the hit list (file, line, rule,
matched text), written to OUT, so two trees' lists can be ``diff``ed.
Used for the false-positive count of a redaction rule change::

    PYTHONPATH=<tree> python bench/redact_hits.py [--whole] OUT [FOLDER ...]

``--whole`` (red21): each file redacted whole, not line by line, for the rules
that read across lines (a label's value on the next line or after a blank
line, a .netrc entry over several lines); a hit is named by the line it
starts on.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time

from objstore.core.redact import redact

DEFAULT_ROOTS = ("/work/shared/data/transcripts", "/tmp/bench-corpus")


def main(out: str, roots: list[str], whole: bool = False) -> None:
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
                if whole:
                    text = "\n".join(lines)
                    hits += [f"{path}:{text.count(chr(10), 0, h.start)}:{h.rule}:{text[h.start:h.end]}"
                             for h in redact(text).hits]
                    continue
                for i, line in enumerate(lines):
                    hits += [f"{path}:{i}:{h.rule}:{line[h.start:h.end]}" for h in redact(line).hits]
    text = "\n".join(hits)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    print(f"{files} files, {len(hits)} hits, digest {hashlib.sha256(text.encode()).hexdigest()[:16]}, "
          f"{time.process_time() - t0:.1f} s CPU")


if __name__ == "__main__":
    args = sys.argv[1:]
    whole = "--whole" in args
    args = [a for a in args if a != "--whole"]
    if not args:
        sys.exit(__doc__)
    main(args[0], args[1:] or list(DEFAULT_ROOTS), whole)
