"""fgt26 (test25b U6): a forget's scrub of derived files
(``forgetfiles.scrub_derived``) no longer takes a forgotten number for a
quote of it where it is part of a longer number or hash, and tests a read
ledger by its paths alone, hiding a path that holds a forgotten text
instead of deleting the ledger (a million-turn store's 2.4 MB ledger was
deleted by each forget whose texts held a 6-digit number found inside one
of its times in ns, and the next import read every transcript again)."""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path

from objstore.capture.importer import import_claude_code
from objstore.core.fileid import ledger_path, load_ledger
from objstore.memory.forgetfiles import derived_matcher, scrub_derived
from objstore.memory.opening import open_store
from tests.hooks._util import asst, line, text, user

A = "5d1e6f0a-0000-4000-8000-0000000000a1"


def _store(tmp_path: Path, folder: str = "-home-dev-app"):
    path = tmp_path / "proj" / folder / f"{A}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(line(user("a-u1", "hello there", A)) + line(asst("a-a1", "msg_a1", [text("ok")], A)))
    s = open_store(tmp_path / "s", create=True)
    import_claude_code(s, [path])
    return s, path


def _derived(s) -> dict[str, bytes]:
    files = [p for p in (s.root / "cache").rglob("*") if p.is_file()] + \
        [p for p in (s.root / "logs").iterdir() if p.is_file()]
    return {str(p.relative_to(s.root)): p.read_bytes() for p in files}


def test_a_hex_needle_hits_only_as_a_word_of_its_own():
    for needle in ("114494", "8080", "facade"):
        hit = derived_matcher(needle)
        for inside in (f"1768901{needle}3000078", f"a3f{needle}bc", f"id {needle}0", f"x{needle}"):
            assert not hit(inside), (needle, inside)
        for alone in (f"port {needle}.", f"x={needle}", f"[{needle}]", f"{needle}", f"a_{needle}_b",
                      f"PORT {needle.upper()}", f"ｐｏｒｔ {needle}"):
            assert hit(alone), (needle, alone)
    # a needle that is not hex digits alone matches as any text: inside a word too
    assert derived_matcher("zebrafinch")("/home/dev/zebrafinch-orchard") and derived_matcher("8080x")("a8080xb")


def test_a_number_inside_the_ledger_times_and_the_ids_deletes_and_drops_nothing(tmp_path):
    s, _path = _store(tmp_path)
    with s:
        before = _derived(s)
        ledger = ledger_path(s.root / "cache", "claude-code")
        raw = json.dumps(load_ledger(ledger))
        mtime = str(next(v[3] for v in load_ledger(ledger)["files"].values()))
        logs = before["logs/packed-sessions"].decode() if "logs/packed-sessions" in before else \
            "".join(v.decode("utf-8", "replace") for k, v in before.items() if k.startswith("logs/"))
        meta = zlib.decompress(before["cache/turn-meta.z"]).decode()     # compressed since session 27
        head = re.search(r"[0-9a-f]{64}", meta).group(0)
        needles = [mtime[5:11], head[20:26], head[30:36]]
        assert all(n in raw or n in logs or n in meta for n in needles)
        assert scrub_derived(s, needles) == []
        assert _derived(s) == before


def test_a_path_holding_a_forgotten_text_is_hidden_in_the_ledger_not_deleted(tmp_path):
    s, path = _store(tmp_path, "-home-dev-quokkaplum-grove")
    with s:
        ledger = ledger_path(s.root / "cache", "claude-code")
        files = load_ledger(ledger)["files"]
        assert any("quokkaplum" in k for k in files)
        changed = scrub_derived(s, ["quokkaplum"])
        assert "cache/read-ledger-claude-code.json.z" in changed and "cache/imported-files" in changed
        after = load_ledger(ledger)
        assert len(after["files"]) == len(files) and all(k.startswith("sha256:") for k in after["files"])
        assert all(k.startswith("sha256:") for k in after["sessions"])
        assert "quokkaplum" not in json.dumps(after)
        # the next import knows the file as read, under its hidden key (imported-files hid it too)
        r = import_claude_code(s, [path])
        assert r.files_unchanged == 1 and r.lines == 0 and r.turns_added == 0, r
        assert "quokkaplum" not in json.dumps(load_ledger(ledger))


def test_a_damaged_ledger_is_still_deleted(tmp_path):
    s, _path = _store(tmp_path)
    with s:
        ledger = Path(ledger_path(s.root / "cache", "claude-code"))
        ledger.write_bytes(ledger.read_bytes()[:20])
        assert "cache/read-ledger-claude-code.json.z" in scrub_derived(s, ["hello there"])
        assert not ledger.exists()
