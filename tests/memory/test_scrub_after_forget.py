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


def test_scrub_derived_finds_the_text_in_every_encoding_of_a_file(store):
    """The ASCII fast path of scrub_derived (a file of ASCII bytes without ESC is
    tested on its lower-cased bytes) misses nothing the full matcher finds."""
    from objstore.memory.forget import scrub_derived
    cache = store.root / "cache" / "scrubtest"
    cache.mkdir(parents=True)
    files = {
        "upper.log": b"keep this\nthe GUDALUQ   Rubifuz port\nkeep that\n",
        "escape.log": b"keep\nthe gud\x1b[31maluq\x1b[0m rubifuz line\n",       # an escape inside the word
        "unicode.log": "keep é\nthe Gudaluq\u00a0rubifuz line\n".encode(),    # non-ASCII: the full matcher
        "long-s.log": "keep\nthe gudaluq rubifuz \u017f\n".encode(),
        "clean.log": b"nothing to see: gudaluq alone, rubifuz alone\n",
    }
    for name, data in files.items():
        (cache / name).write_bytes(data)
    changed = scrub_derived(store, ["gudaluq rubifuz"])
    assert sorted(Path(c).name for c in changed) == ["escape.log", "long-s.log", "unicode.log", "upper.log"]
    for name in ("upper.log", "escape.log", "unicode.log", "long-s.log"):
        text = (cache / name).read_text()
        assert "rubifuz" not in text.lower() and "keep" in text
    assert (cache / "clean.log").read_bytes() == files["clean.log"]


def test_scrub_derived_with_needles_holding_each_other_misses_none(store):
    """A forget's needles repeat and hold one another (a --match word, the turn
    holding it, the word again as a rare word): scrub_derived tests each file's
    bytes for the fewest probes that can decide (a file without "bebigok" has
    no "xbebigoks" either), and still removes every line any needle is in, in
    either case and as it reads."""
    from objstore.memory.forget import scrub_derived
    cache = store.root / "cache" / "probes"
    cache.mkdir(parents=True)
    files = {
        "longer.log": b"keep\nthe XBEBIGOKS flag\nkeep too\n",               # only the needle holding the word
        "turn.log": b"keep\nnote: the bebigok vilabiz rollout is late\n",     # the turn's text, whitespace as stored
        "fullwidth.log": "keep\nthe \uff56\uff49\uff4c\uff41\uff42\uff49\uff5a line\n".encode(),   # vilabiz as it reads
        "word.log": b"keep\nsay Bebigok twice\n",                             # the shortest needle alone
        "apart.log": b"bebi gok, vila biz, xbebigo\n",                        # no needle in it
    }
    for name, data in files.items():
        (cache / name).write_bytes(data)
    turn = "Note: the bebigok   vilabiz rollout is late"
    changed = scrub_derived(store, [turn, "bebigok", "xbebigoks", "bebigok", "vilabiz", "vilabiz"])
    assert sorted(Path(c).name for c in changed) == ["fullwidth.log", "longer.log", "turn.log", "word.log"]
    assert (cache / "longer.log").read_bytes() == b"keep\nkeep too\n"
    assert (cache / "turn.log").read_bytes() == b"keep\n"
    assert (cache / "fullwidth.log").read_bytes() == (cache / "word.log").read_bytes() == b"keep\n"
    assert (cache / "apart.log").read_bytes() == files["apart.log"]
