"""``jsonspan.STRING`` (possessive since test26b W9: no backtracking state
per character) finds exactly where a JSON string ends, as ``json`` does,
and finds no end for an unterminated one."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from objstore.core.jsonspan import scan, string_end


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text(max_size=20))
def test_string_end_is_where_json_ends_it(s, after):
    token = json.dumps(s, ensure_ascii=bool(len(s) % 2))
    text = token + json.dumps(after)
    assert string_end(text, 0) == len(token)
    assert json.JSONDecoder().raw_decode(text)[1] == len(token)


@pytest.mark.parametrize("text", ['"abc', '"ab\\"', '"ab\\', '"a\\"b\\\\\\"'])
def test_unterminated_string_is_an_error(text):
    with pytest.raises(ValueError):
        string_end(text, 0)


def test_a_long_string_with_escapes_spans_the_whole_value():
    content = 'line of "code"\n\tand a \\ backslash\n' * 50_000        # ~1.8 MB, three escapes a line
    text = json.dumps({"messages": [{"role": "user", "content": content}]})
    node = scan(text).member("messages").items[0].member("content")
    assert json.loads(text[node.start:node.end]) == content
    assert text[node.end:] == "}]}"
