"""Issue 21 item 10: --scrub-sources after a plain forget is not a dead end."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

SAMPLE = Path(str(resources.files("cmds") / "data" / "sample-projects"))


def _planted(tmp_path: Path) -> Path:
    src = next(SAMPLE.glob("*/5f0c9a52-*.jsonl"))
    dest = tmp_path / "t" / src.name
    dest.parent.mkdir()
    lines = src.read_text().splitlines()
    for i, line in enumerate(lines):
        rec = json.loads(line)
        if rec.get("type") == "user" and isinstance(rec["message"]["content"], str):
            rec["message"]["content"] += " the wallaby-9931 passphrase"
            lines[i] = json.dumps(rec)
            break
    dest.write_text("\n".join(lines) + "\n")
    return dest


def test_scrub_sources_after_plain_forget(tmp_path, invoke):
    planted = _planted(tmp_path)
    invoke("import", "claude-code", str(planted))
    r = invoke("forget", "--match", "wallaby-9931", "--yes")
    assert "--scrub-sources" in r.stderr and b"wallaby-9931" in planted.read_bytes()
    # the store no longer holds it; the tombstone says when it went, the sources are scrubbed
    r = invoke("forget", "--match", "wallaby-9931", "--scrub-sources", "--dry-run")
    assert "already forgotten" in r.stdout and "would scrub 1 transcript file" in r.stdout
    assert b"wallaby-9931" in planted.read_bytes()
    r = invoke("forget", "--match", "Wallaby-9931", "--scrub-sources", "--yes", "--json")
    assert r.json["sources_scrubbed"] == [str(planted.resolve())] and r.json["forgotten_at"]
    assert b"wallaby-9931" not in planted.read_bytes() and b"[REDACTED]" in planted.read_bytes()
    # and importing the scrubbed file again brings nothing back
    invoke("import", "claude-code", str(planted))
    assert "wallaby" not in invoke("search", "wallaby-9931", "--json").stdout.lower()


def test_scrub_sources_of_text_never_stored_says_so(tmp_path, invoke):
    planted = _planted(tmp_path)
    invoke("import", "claude-code", str(planted))
    r = invoke("forget", "--match", "no-such-text-here", "--scrub-sources", "--yes")
    assert "nothing in the store matches" in r.stdout and "no transcript file holds it" in r.stdout
