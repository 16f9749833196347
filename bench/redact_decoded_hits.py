"""Every redaction hit over the decoded JSON strings (8 characters or more)
of every ``.jsonl`` line under the given folders (default: the shared
transcripts and the 300-session bench corpus): what an import redacts, where
``bench/redact_hits.py`` reads the raw lines.  Writes the hit list (file,
line, rule, matched text) to OUT and prints the count of strings and hits and
a digest, so two trees' lists can be ``diff``ed (false positives of a rule
change)::

    PYTHONPATH=<tree> python bench/redact_decoded_hits.py OUT [FOLDER ...]
"""

from __future__ import annotations

import hashlib
import json
import os
import sys

from objstore.core.redact import redact

DEFAULT_ROOTS = ("/work/shared/data/transcripts", "/tmp/bench-corpus")


def _strings(o):
    if isinstance(o, str):
        if len(o) >= 8:
            yield o
    elif isinstance(o, dict):
        for v in o.values():
            yield from _strings(v)
    elif isinstance(o, list):
        for v in o:
            yield from _strings(v)


def jsonl_records(roots):
    """``(file name, line number, decoded record)`` of every JSON line of
    every ``.jsonl`` file under ``roots``, in order (a line that does not
    parse is left out); also ``bench/turn_texts.py``'s."""
    for root in roots:
        for d, _dirs, names in os.walk(root):
            for name in sorted(names):
                if not name.endswith(".jsonl"):
                    continue
                with open(os.path.join(d, name), encoding="utf-8", errors="replace") as f:
                    for i, line in enumerate(f):
                        try:
                            yield name, i, json.loads(line)
                        except ValueError:
                            continue


def main(out: str, roots) -> None:
    hits: list[str] = []
    n = 0
    for name, i, obj in jsonl_records(roots):
        for s in _strings(obj):
            n += 1
            hits += [f"{name}:{i}:{h.rule}:{s[h.start:h.end]}" for h in redact(s).hits]
    text = "\n".join(hits)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    print(f"{n} strings, {len(hits)} hits, digest {hashlib.blake2b(text.encode(), digest_size=8).hexdigest()}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] or DEFAULT_ROOTS)
