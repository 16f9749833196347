"""objstore.core.rxcache: a regular expression built from a kept program is the
one ``re.compile`` builds (``re.Pattern.__eq__`` compares flags, pattern and the
SRE program word for word), across real processes and a real cache file."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from objstore.core import rxcache

REPO = Path(__file__).resolve().parents[2]

# every fixed pattern a recall, the prompt hook and the redaction compile: the LazyPatterns of
# the modules they import, the redaction rules (as typed and lowered) and rxcache's module constants
CHILD = r"""
import gc, json, re, sys
import objstore.core.rxcache as rx
import objstore.retrieval.recall, objstore.retrieval.timeline, objstore.retrieval.wordchange
import objstore.index.query, objstore.index.snippets, objstore.capture.transcript
import objstore.core.redact.symbolpasswords, objstore.core.redact.checks
import cmds._hookrun
from objstore.core.redact.rules import RULES
from objstore.core.text import LazyPattern
specs = set()
for o in gc.get_objects():
    if isinstance(o, LazyPattern) and all(isinstance(a, (str, bytes, int)) for a in o.args):
        specs.add((o.args[0], int(o.args[1]) if len(o.args) > 1 else 0))
from objstore.core.redact.rule import FLAGS, IFLAGS
for r in RULES:
    specs.add((r.regex, int(IFLAGS if r.ci else FLAGS)))
    if r.ci:
        specs.add((r.regex, int(FLAGS)))
for name in ("_LETTER", "_CODE", "_CALL"):
    p = getattr(objstore.core.redact.symbolpasswords, name)
    specs.add((p.pattern, p.flags & ~re.UNICODE if isinstance(p.pattern, str) else p.flags))
if rx._entries is None:
    rx._entries, rx._raw[0], rx._raw[1] = rx._read()
kept = sum(1 for s in specs if s in rx._entries and s not in rx._new)
differ = [repr(p)[:60] for p, f in specs if rx.compile_pattern(p, f) != re.compile(p, f)]
print(json.dumps({"patterns": len(specs), "kept": kept, "differ": differ, "new": len(rx._new)}))
"""


# the damage tests: the time rules' patterns alone (a child that loads no redaction rule)
SMALL = r"""
import gc, json, re
import objstore.core.rxcache as rx
import objstore.retrieval.timeline
from objstore.core.text import LazyPattern
specs = {(o.args[0], int(o.args[1]) if len(o.args) > 1 else 0) for o in gc.get_objects()
         if isinstance(o, LazyPattern) and all(isinstance(a, (str, bytes, int)) for a in o.args)}
if rx._entries is None:
    rx._entries, rx._raw[0], rx._raw[1] = rx._read()
kept = sum(1 for s in specs if s in rx._entries and s not in rx._new)
differ = [repr(p)[:60] for p, f in specs if rx.compile_pattern(p, f) != re.compile(p, f)]
print(json.dumps({"patterns": len(specs), "kept": kept, "differ": differ, "new": len(rx._new)}))
"""


def _run(prefix: Path, code: str = CHILD, **env) -> dict:
    e = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    e.update(PYTHONPATH=str(REPO), PYTHONPYCACHEPREFIX=str(prefix), **env)
    p = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def _cache_file(prefix: Path) -> Path:
    here = Path(rxcache.__file__).resolve().parent
    return prefix / str(here).lstrip(os.sep) / Path(rxcache.cache_path()).name


def test_kept_programs_build_the_patterns_re_builds(tmp_path):
    first = _run(tmp_path)
    assert first["patterns"] > 150 and first["differ"] == []
    f = _cache_file(tmp_path)
    assert f.is_file() and f.read_bytes()[:6] == b"MEMRX2"
    second = _run(tmp_path)   # every pattern now built from the file
    assert second["differ"] == []
    assert second["kept"] == second["patterns"] and second["new"] == 0


@pytest.mark.parametrize("damage", ["truncated", "crc", "shape", "program", "words"])
def test_a_damaged_file_is_ignored_and_written_again(tmp_path, damage):
    _run(tmp_path, SMALL)
    f = _cache_file(tmp_path)
    raw = f.read_bytes()
    n = int.from_bytes(raw[6:10], "big")
    if damage == "truncated":
        bad = raw[: 14 + n // 2]
    elif damage == "crc":
        bad = raw[:10] + bytes(4) + raw[14:]
    elif damage == "words":   # a program's bytes changed: its CRC fails, re compiles that one
        bad = raw[:-1] + bytes([raw[-1] ^ 1])
    else:
        import marshal
        import zlib
        if damage == "shape":
            head, blobs = marshal.dumps(["not", "a", "dict"]), b""
        else:   # the right shape, a program _sre refuses, for a pattern the child compiles
            blobs = bytes(range(12))
            head = marshal.dumps({("[a-z](?<![\\w.][a-z])[\\w.+-]*", 0): (32, 0, {}, (None,), 0, 3, zlib.crc32(blobs))})
        bad = b"MEMRX2" + len(head).to_bytes(4, "big") + zlib.crc32(head).to_bytes(4, "big") + head + blobs
    f.write_bytes(bad)
    got = _run(tmp_path, SMALL)
    assert got["differ"] == []
    if damage == "words":   # that one program compiled again, every other one built from the file
        assert got["new"] == 1 and got["kept"] >= got["patterns"] - 1
    else:
        assert got["kept"] == (1 if damage == "program" else 0)
    assert _run(tmp_path, SMALL)["kept"] == got["patterns"]   # written sound again


def test_nothing_written_without_bytecode_writes(tmp_path):
    got = _run(tmp_path, SMALL, PYTHONDONTWRITEBYTECODE="1")
    assert got["differ"] == [] and got["new"] > 0
    assert not _cache_file(tmp_path).exists()


def test_same_errors_and_flags_as_re(tmp_path):
    code = r"""
import json, re
import objstore.core.rxcache as rx
out = {}
for p in ("(unclosed", "a{2,1}", "(?P<x>a)(?P<x>b)"):
    try:
        rx.compile_pattern(p)
    except re.error as e:
        out[p] = str(e)
same = [rx.compile_pattern(p, f) == re.compile(p, f) for p, f in
        (("(?i)Straße", 0), (b"[\x80-\xff]+", 0), ("a.b", re.S | re.M), ("x", re.I | re.ASCII), ("(?x) a b # c", 0))]
print(json.dumps({"errors": out, "same": same, "loc": rx.compile_pattern(b"\\w", re.LOCALE) == re.compile(b"\\w", re.LOCALE)}))
"""
    for _ in range(2):   # a miss, then built from the file
        got = _run(tmp_path, code)
        assert got["same"] == [True] * 5 and got["loc"]
        for p, msg in got["errors"].items():
            with pytest.raises(re.error) as e:
                re.compile(p)
            assert str(e.value) == msg
        assert len(got["errors"]) == 3
