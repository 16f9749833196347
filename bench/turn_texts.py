"""Every turn text as the Claude Code import stores it, pickled for
``bench/bench_redact.py --texts`` (red28b): a text block as it is, a tool
call as ``[tool_use NAME] `` + its input's JSON text (where a multi-line
command's lines are joined by the ``\\n`` escape), a tool result's text;
from the shared transcripts and the 300-session bench corpus.  Prints the
count of texts, their characters, how many are tool calls and how many
hold a backslash (the texts the redaction also reads with their JSON
escapes decoded)::

    PYTHONPATH=<tree> python bench/turn_texts.py OUT.pkl [FOLDER ...]
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from redact_decoded_hits import jsonl_records  # noqa: E402  (the one walk over the .jsonl files)

DEFAULT_ROOTS = ("/work/shared/data/transcripts", "/tmp/bench-corpus")


def _texts(rec) -> list[str]:
    msg = rec.get("message") if isinstance(rec, dict) else None
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, str):
        return [content]
    out = []
    for b in content if isinstance(content, list) else ():
        if not isinstance(b, dict):
            continue
        if b.get("type") == "text":
            out.append(b.get("text", ""))
        elif b.get("type") == "tool_use":
            out.append(f"[tool_use {b.get('name')}] " + json.dumps(b.get("input"), ensure_ascii=False))
        elif b.get("type") == "tool_result":
            x = b.get("content")
            out.append(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False))
    return out


def main(out: str, roots: list[str]) -> None:
    texts: list[str] = []
    for _name, _i, rec in jsonl_records(roots):
        texts += _texts(rec)
    texts = [t for t in texts if t]
    with open(out, "wb") as f:
        pickle.dump(texts, f)
    calls = sum(t.startswith("[tool_use ") for t in texts)
    escaped = sum(chr(92) in t for t in texts)
    print(f"{len(texts)} texts, {sum(map(len, texts))} chars, {calls} tool calls, {escaped} with a backslash")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:] or list(DEFAULT_ROOTS))
