"""Transcript records decoded by msgspec (``transcript.enable_fast_json``, the
``fast`` extra) are the records the standard library decodes: every type
(integers of any size stay ints), every replaced character, every refused
line; the readers give the same turns either way."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import gen_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from objstore.capture import claude_code, codex, transcript

pytest.importorskip("msgspec")

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"

# lines where a fast parser could differ from json.loads: each must decode (or be refused) the same way
TRICKY = [
    b'{"a": 18446744073709551615}', b'{"a": 18446744073709551616}', b'{"a": -9223372036854775809}',
    b'{"a": 123456789012345678901234567890}', b'{"a": -' + b"9" * 4301 + b'}', b'{"a": ' + b"9" * 4300 + b'}',
    b'{"a": 1e400}', b'{"a": -1e400}', b'{"a": 1.7976931348623159e308}', b'{"a": 1.5e-400}', b'{"a": -0}',
    b'{"a": -0.0}', b'{"a": 0.30000000000000004}', b'{"a": 2.4703282292062328e-324}', b'{"a": 1E+2}',
    b'{"a": NaN}', b'{"a": Infinity}', b'{"a": -Infinity}', b'{"a": 1, "b": 2, "a": 3}',
    b'{"a": "\\ud83d"}', b'{"a": "\\udc00"}', b'{"a": "\\ud83d\\u0041"}', b'{"a": "\\ud83dx"}',
    b'{"a": "\\ud83d\\ude00"}', b'{"\\ud800k": 1}', b'{"a": "\\u0000"}', b'{"a\\u0000": "x"}',
    b'{"a": "raw \x00 nul"}', b'{"a": 1}\x00', b'{"a": "\xff"}', b'{"a": "\xed\xa0\x80"}', b'{"a": "\xc0\x80"}',
    b'{"a": "\xf4\x90\x80\x80"}', b'\xef\xbb\xbf{"a": 1}', b'{"a": "\x01"}', b'{"a": "\x7f"}', b' {"a": 1} \r\n',
    b'{"a": 1}\x0c', b'[1, 2]', b'"text"', b'7', b'null', b'{}', b'{"a": [' * 50 + b']' * 50 + b'}',
    b'[' * 5000 + b']' * 5000, b'{"a": "\\/ \\b \\f \\n \\r \\t \\" \\\\"}', b'{"a": true, "b": false, "c": null}',
    b'{"a": "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"}', b'{"a": 1} {"b": 2}', b'{"a": 01}', b'{"a": .5}',
    b"{'a': 1}", b'{"a": 1,}', b'{"a" 1}',
]
NASTY = [b"\\ud83d", b"\\udc00", b"\\u0000", b"\x00", b"\xff", b"\xed\xa0\x80", b"NaN", b"1e400",
         b"18446744073709551616", b"-9223372036854775809", b"0.1", b"\xef\xbb\xbf", b"\x1f", b"\\", b'"']


def _both(raw: bytes) -> tuple[str, str]:
    """repr of decode_record(raw) with the stdlib, then with msgspec (repr tells 1 from 1.0 and keeps key order)."""
    transcript.enable_fast_json(False)
    try:
        slow = repr(transcript.decode_record(raw))
        assert transcript.enable_fast_json()
        fast = repr(transcript.decode_record(raw))
    finally:
        transcript.enable_fast_json(False)
    return slow, fast


@pytest.mark.parametrize("raw", TRICKY)
def test_tricky_lines_decode_alike(raw):
    slow, fast = _both(raw)
    assert fast == slow


def test_big_integers_stay_exact_ints():
    _slow, fast = _both(b'{"a": 18446744073709551616, "b": -9223372036854775809, "c": 1e2}')
    assert fast == "{'a': 18446744073709551616, 'b': -9223372036854775809, 'c': 100.0}"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(json_values, st.booleans(), st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(NASTY)), max_size=3))
def test_fuzzed_lines_decode_alike(value, ascii_only, splices):
    raw = json.dumps({"v": value}, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    for at, junk in splices:
        at %= len(raw) + 1
        raw = raw[:at] + junk + raw[at:]
    slow, fast = _both(raw)
    assert fast == slow


def _turns(reader, paths) -> list:
    out = []
    for p in paths:
        out.extend(reader.parse_file(p, reader.ParseStats()))
    return out


@pytest.mark.parametrize("reader,roots", [
    (claude_code, [REPO / "tests" / "data", REPO / "cmds" / "data" / "sample-projects", SHARED / "data" / "transcripts"]),
    (codex, [REPO / "tests" / "data" / "codex", SHARED / "data" / "transcripts",
             SHARED / "data" / "transcripts" / "agent-sessions" / "codex-0.146-sanitized.jsonl"]),
])
def test_the_readers_give_the_same_turns(reader, roots):
    """The test data and ../shared's transcripts (where present), read both ways."""
    paths = list(reader.discover([r for r in roots if r.exists()]))
    transcript.enable_fast_json(False)
    try:
        slow = _turns(reader, paths)
        assert transcript.enable_fast_json()
        fast = _turns(reader, paths)
    finally:
        transcript.enable_fast_json(False)
    assert fast == slow and slow


def test_hooks_and_small_imports_never_import_msgspec(tmp_path):
    """The hooks' transcript sync and an import of under FAST_JSON_MIN_BYTES
    decode with the standard library (importing msgspec would cost them
    more than it saves); a larger import uses msgspec."""
    import subprocess
    import sys
    small = REPO / "cmds" / "data" / "sample-projects"
    big = tmp_path / "big"
    gen_corpus(big, "--sessions", "3", "--turns", "300", "--seed", "1")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from objstore import open_store\n"
        "from objstore.capture.sync import sync_files\n"
        "from objstore.capture.importer import import_transcripts\n"
        "st = open_store(sys.argv[1], create=True)\n"
        "sync_files(st, sorted(Path(sys.argv[2]).rglob('*.jsonl')), final=True)\n"
        "print('msgspec' in sys.modules)\n"
        "import_transcripts(st, 'claude-code', [sys.argv[2]], workers=0)\n"
        "print('msgspec' in sys.modules)\n"
        "import_transcripts(st, 'claude-code', [sys.argv[3]], workers=0)\n"
        "print('msgspec' in sys.modules)\n")
    assert sum(p.stat().st_size for p in big.rglob("*.jsonl")) > 1 << 20
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "store"), str(small), str(big)],
                         capture_output=True, text=True, timeout=300, cwd=REPO)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False", "True"]


# --------------------------------------------------------------------------- RecordFields (session 17)

FIELDS = ("type", "a", "sessionId")


def _fields_both(raw: bytes) -> tuple[tuple | None, tuple | None, tuple | None]:
    """RecordFields(*FIELDS).decode(raw) with the stdlib, with msgspec's struct, and
    ``of`` the whole record the stdlib decodes (None where it refuses the line)."""
    transcript.enable_fast_json(False)
    try:
        rec = transcript.decode_record(raw)
        whole = None if rec is None else transcript.RecordFields(*FIELDS).of(rec)
        slow = transcript.RecordFields(*FIELDS).decode(raw)
        assert transcript.enable_fast_json()
        fast = transcript.RecordFields(*FIELDS).decode(raw)
    finally:
        transcript.enable_fast_json(False)
    return slow, fast, whole


def _skipped_beside(raw: bytes) -> bytes:
    """``raw`` (a line of TRICKY) as the value of a key RecordFields skips, beside kept ones."""
    return b'{"type": "user", "skipped": ' + raw.strip() + b', "a": [1, "x"]}'


@pytest.mark.parametrize("raw", TRICKY + [_skipped_beside(r) for r in TRICKY] + [
    b'{"typ\\u0065": "user", "a": 1}', b'{"type": "user", "type": "assistant"}', b'{"a": null}', b'{"b": 1}',
    b'{"type": "user", "toolUseResult": {"stdout": "' + b"x" * 5000 + b'"}, "sessionId": "s"}'])
def test_record_fields_are_the_records_values(raw):
    """A key's value, ABSENT for a missing key, None for null, the line refused alike,
    whatever a skipped value holds (a NaN, invalid UTF-8, a lone surrogate, a number
    out of range, nesting too deep), with msgspec's struct and without it."""
    slow, fast, whole = _fields_both(raw)
    assert slow == whole
    if raw.startswith(b'{"type": "user", "skipped": ') and re.search(rb"[0-9]{4301}", raw):
        # an integer of over 4,300 digits (sys.get_int_max_str_digits), skipped unread by msgspec's
        # struct, costs the stdlib only its value (q20: it refused the line)
        assert whole == ("user", [1, "x"], transcript.ABSENT)
    assert repr(fast) == repr(whole)


@settings(max_examples=300, deadline=None)
@given(json_values, json_values, st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(NASTY)), max_size=3))
def test_fuzzed_record_fields_decode_alike(kept, skipped, splices):
    raw = json.dumps({"a": kept, "v": skipped, "type": "user"}).encode("utf-8", "surrogatepass")
    for at, junk in splices:
        at %= len(raw) + 1
        raw = raw[:at] + junk + raw[at:]
    slow, fast, whole = _fields_both(raw)
    assert slow == whole or repr(slow) == repr(whole)  # NaN != NaN
    assert repr(fast) == repr(whole)


def test_claude_code_counts_the_same_records_both_ways(tmp_path):
    """parse_file's counters (lines, skipped, ignored, foreign) and turns with the
    struct decoder and with the stdlib, over records of every kind and bad lines."""
    lines = [
        {"type": "user", "sessionId": "s1", "uuid": "u1", "message": {"content": "hello"}, "toolUseResult": "x" * 99},
        {"type": "assistant", "sessionId": "s1", "uuid": "u2", "message": {"id": "m1", "content": "hi"}},
        {"type": "progress", "sessionId": None}, {"type": "mystery"}, {"type": "mystery", "uuid": None},
        {"type": "user", "isMeta": True, "sessionId": "s1"}, {"type": 7}, {"sessionId": "s1"},
        {"type": "user", "sessionId": "s1", "uuid": "u3", "message": {"content": [
            {"type": "tool_result", "content": "out"}]}, "toolUseResult": {"stdout": float("nan")}},
        {"type": "user", "sessionId": "s1", "message": {"content": "no uuid"}, "isSidechain": True, "agentId": "a"},
    ]
    raw = b"".join(json.dumps(r).encode() + b"\n" for r in lines)
    raw += b'{"type": "user", "sessionId": "s1", "uuid": "u4", "message": {"content": "bad \xff"}, "x": 1e999}\n'
    raw += b'{"type": "user", "sessionId": "s1", "uuid": "u5", "message": {"content": "ok"}, "x": "\xff"}\n'
    raw += b'not json\n[1]\n\n{"type": "user", "sessionId": "s1", "uuid": "u6", "message": {"content": "\\ud83d"}}\n'
    p = tmp_path / "s1.jsonl"
    p.write_bytes(raw)
    got = []
    for fast in (False, True):
        transcript.enable_fast_json(False)
        try:
            assert not fast or transcript.enable_fast_json()
            stats = claude_code.ParseStats()
            turns = list(claude_code.parse_file(p, stats))
        finally:
            transcript.enable_fast_json(False)
        got.append((turns, (stats.lines, stats.lines_skipped, stats.records_ignored, stats.records_foreign)))
    assert got[0] == got[1]
    # 7 turns (u5: invalid UTF-8 in a skipped value; u4: in the text too, replaced); skipped: not json, [1], the
    # blank line; ignored: 6, of which foreign: the mystery type without sessionId or uuid (a null uuid is one), 7, no type
    assert len(got[0][0]) == 7 and got[0][1] == (16, 3, 6, 3)
