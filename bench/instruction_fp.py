"""Which texts the instruction-shape check (``proposals.looks_like_instruction``)
queues, over the messages of real and generated transcripts and the test data:
every user prompt, assistant text and sub-agent final message is taken as a value
an agent could write.  Run once per tree and compare:

    PYTHONPATH=<tree> python bench/instruction_fp.py [--show N]

Prints the texts scanned, how many are flagged per pattern, the CPU a text, and
(``--show``) the first N flagged texts, cut to 160 characters."""
import json
import os
import sys
import time
from collections import Counter

from objstore.memory.proposals import looks_like_instruction

ROOTS = ("/tmp/bench-corpus", "/work/shared/data/transcripts", os.path.join(os.path.dirname(__file__), "..", "tests", "data"))


def texts_of(rec):
    msg = rec.get("message") if isinstance(rec, dict) else None
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for b in content:
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
                yield b["text"]
    for k in ("last_assistant_message", "prompt"):
        if isinstance(rec, dict) and isinstance(rec.get(k), str):
            yield rec[k]


def main():
    show = int(sys.argv[sys.argv.index("--show") + 1]) if "--show" in sys.argv else 0
    texts = []
    for root in ROOTS:
        for d, _dirs, files in os.walk(root):
            for f in sorted(files):
                if not f.endswith((".jsonl", ".json")):
                    continue
                with open(os.path.join(d, f), "rb") as fh:
                    for line in fh:
                        try:
                            rec = json.loads(line)
                        except ValueError:
                            continue
                        texts.extend(t for t in texts_of(rec) if t.strip())
    texts = sorted(set(texts))
    t0 = time.process_time()
    hits = [(looks_like_instruction(t), t) for t in texts]
    cpu = time.process_time() - t0
    flagged = [(w, t) for w, t in hits if w]
    print(f"{len(texts)} texts, {len(flagged)} flagged, {cpu / len(texts) * 1e6:.1f} us CPU a text")
    for name, n in Counter(w for w, _ in flagged).most_common():
        print(f"  {n:5d} {name}")
    for w, t in flagged[:show]:
        print(f"  [{w}] {' '.join(t.split())[:160]}")


if __name__ == "__main__":
    main()
