"""Lane rss31 (issue 12, the 1M import's peak RSS): the caches a long import
writes again and again are written in parts, never whole in memory, and
their bytes are what the whole-text writers gave: the read ledger
(``core.fileid.ReadLedger.save``, after every batch) and ``cache/turn-meta``
(``turnmeta.record_written``, given the compact notes an import's appender
keeps: values as a tuple, marks as their bytes).  Real files, real stores."""

from __future__ import annotations

import json
import zlib

from objstore.core import atomic
from objstore.core.fileid import LEDGER_LEVEL, LEDGER_VERSION, ReadLedger, ledger_path
from objstore.memory import turnmeta
from objstore.memory.opening import open_store


def _whole(ledger: ReadLedger) -> bytes:
    """The ledger's file as the whole-text writer made it."""
    obj = {"v": LEDGER_VERSION, "salt": ledger.salt, "files": ledger.files, "sessions": ledger.sessions}
    if ledger.names is not None:
        obj["names"] = ledger.names
    return zlib.compress(json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode(), LEDGER_LEVEL)


def test_a_ledger_of_many_entries_saved_in_parts_is_the_whole_texts_bytes(tmp_path):
    path = ledger_path(tmp_path / "cache", "claude-code")
    led = ReadLedger(path, "salt-1")
    led.save()                                   # nothing marked: nothing written
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())
    # more entries than one part holds (512), with what JSON escapes: quotes, backslashes,
    # non-ASCII, a line separator
    for i in range(1300):
        key = f"/home/zoë/\"proj\\{i}\u2028/s-{i}.jsonl"
        led.mark(key, [i, 4096 + i, f"d{i:04x}"], [f"sess-{i}", f"sub-{i}"] if i % 3 else None)
    led.save()
    assert open(path, "rb").read() == _whole(led)
    back = ReadLedger(path, "salt-1")
    assert back.files == led.files and back.sessions == led.sessions and len(back.files) == 1300
    led.vouch("names-digest", lambda k: not k.endswith("7.jsonl"))    # a fifth table entry, some dropped
    led.save()
    assert open(path, "rb").read() == _whole(led) and len(led.files) == 1300 - 130
    assert ReadLedger(path, "salt-1").names == "names-digest"


def test_turn_meta_from_compact_notes_is_the_same_file_and_not_kept_in_memory(tmp_path):
    heads = {f"5d1e6f0a-0000-4000-8000-{i:012d}": f"{i:064x}" for i in range(700)}
    marks = {sid: "".join(turnmeta.source_mark(f"cc:msg:{sid}:{k}") for k in range(5)) for sid in heads}
    files = {}
    for form in ("sets", "compact"):
        with open_store(tmp_path / form, create=True) as s:
            written = {}
            for n, (sid, head) in enumerate(heads.items()):
                vals = {f"/srv/app-{n % 7}", f"app-{n % 7}"}
                if form == "sets":
                    written[sid] = (None, head, vals, marks[sid])
                else:   # as TurnAppender keeps them until close
                    written[sid] = (None, head, tuple(vals), bytes.fromhex(marks[sid]))
            turnmeta.record_written(s, written)
            z = s.root / "cache" / (turnmeta.META_FILE + atomic.Z_SUFFIX)
            files[form] = z.read_bytes()
            # the content written is not kept as this process's last read of the file
            assert str(z) not in atomic._Z_KNOWN
            # a second publish of a session extends its line from the compact note too
            sid = next(iter(heads))
            turnmeta.record_written(s, {sid: (heads[sid], "f" * 64, ("/srv/later",), bytes.fromhex("abcdef"))})
            line = next(x for x in atomic.read_z(s.root / "cache" / turnmeta.META_FILE).decode().splitlines()
                        if sid in x)
            assert line.split("\t")[0] == "f" * 64 and "/srv/later" in line and line.endswith("\tabcdef")
    assert files["sets"] == files["compact"]
    lines = zlib.decompress(files["sets"]).decode().splitlines()
    assert len(lines) == 700 and lines == sorted(lines, key=lambda x: json.loads(x.split("\t")[1]))
    assert all(x.split("\t")[3] == marks[json.loads(x.split("\t")[1])] for x in lines)
