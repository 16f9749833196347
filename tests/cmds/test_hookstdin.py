"""The hook's stdin reader (cmds._hookstdin): where the first JSON object
ends, counted without json; and the reader on a real pipe that is never
closed (SessionEnd's) returns as soon as the object is complete."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from cmds._hookrun import parse_event
from cmds._hookstdin import HookInputError, object_end, read_stdin_bytes

TEXTS = ['{"a": 1}', '  \n{"a": {"b": [1, {"c": 2}]}}', '{"p": "a } brace and a { brace"}',
         '{"p": "an escaped quote \\" } still inside"}', '{"p": "a backslash at the end \\\\"}',
         '{"p": "\\\\\\" } three then a quote"}', '{"p": "naïve – ünïcode } ✓"}', '{}',
         json.dumps({"prompt": 'x"}{\\' * 50, "n": [{"k": "}"}] * 5})]


@pytest.mark.parametrize("text", TEXTS)
def test_object_end_is_where_json_ends(text):
    b = text.encode()
    end = object_end(b)
    start = len(text) - len(text.lstrip())
    assert end is not None
    obj, n = json.JSONDecoder().raw_decode(b.decode(), start)
    assert end == len(b[:len(b.decode()[:n].encode())])          # the same offset as json's
    assert object_end(b + b'{"second": 1}\n') == end               # what follows is not read
    for cut in range(start, len(b) - 1):                           # no prefix is complete
        assert object_end(b[:cut]) is None, cut


@pytest.mark.parametrize("text", ["", "   ", "[1, 2]", '"a string"', "nope {}", '{"a": "open string}'])
def test_object_end_none_without_a_complete_object(text):
    assert object_end(text.encode()) is None


def test_reader_returns_at_once_on_an_open_pipe_and_parses_the_same():
    r, w = os.pipe()
    event = {"hook_event_name": "SessionEnd", "session_id": "s", "reason": 'a "quoted" } reason'}
    os.write(w, json.dumps(event).encode() + b"\n")
    try:
        t0 = time.monotonic()
        buf = read_stdin_bytes(r, timeout=60.0)
        assert time.monotonic() - t0 < 30.0     # the pipe was never closed: not its 60 s timeout (a wide
        #                                         margin: a loaded machine may stall this process a while)
        assert parse_event(buf) == event
    finally:
        os.close(r)
        os.close(w)


def test_reader_bounds_and_bad_input():
    r, w = os.pipe()
    t = threading.Thread(target=lambda: (os.write(w, b"{" + b" " * 5000 + b"}"), os.close(w)))
    t.start()
    with pytest.raises(HookInputError, match="stdin-too-large"):
        read_stdin_bytes(r, timeout=5.0, max_bytes=1000)
    t.join()
    os.close(r)
    r, w = os.pipe()
    os.write(w, b'{"a": 1,}')    # braces close, not JSON: returned, and the parse says so
    try:
        buf = read_stdin_bytes(r, timeout=5.0)
        with pytest.raises(HookInputError, match="stdin-not-json"):
            parse_event(buf)
    finally:
        os.close(r)
        os.close(w)
