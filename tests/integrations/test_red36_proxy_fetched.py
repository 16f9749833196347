"""red35's left-out of test34b T15, the proxy path: a value a fetching
call printed (``printenv DB_PASSWORD``) was withheld from its result, but
the agent's later reply quoting it was stored in the clear when ``mem
proxy`` captured it (the hooks and ``mem import`` withheld it).  The proxy
now withholds, in a request's new turns, each value fetched anywhere in the
request's conversation (``objstore.integrations.proxyfetched``); the reply
and its words around the value are kept.  The proxy's own capture
(``prepare``, ``capture_turns``) on a real store."""

from __future__ import annotations

from objstore import scan_store
from tests.hooks._util import proxy_replay, turns

VALUE = "Yt6uR3eWq9Lp"
LATER = "Hn2bV5cXz8Kj"


def _conversation() -> list[dict]:
    return [
        {"role": "user", "content": "check the db connection"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                           "input": {"command": "printenv DB_PASSWORD"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": VALUE + "\n"}]},
        {"role": "assistant", "content": [{"type": "text", "text": f"Got it: `{VALUE}`. Connecting with psql now."}]},
        {"role": "user", "content": f"is {VALUE} the one in the vault too?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "Bash",
                                           "input": {"command": "vault kv get -field=password secret/api"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2",
                                      "content": [{"type": "text", "text": LATER}]}]},
        {"role": "assistant", "content": [{"type": "text", "text": f"The vault holds {LATER} instead."}]},
        {"role": "user", "content": "thanks, carry on"},
    ]


def test_the_proxy_withholds_a_fetched_value_quoted_in_later_turns(tmp_path):
    store = tmp_path / "store"
    # requests as the agent sends them: the quote may come in the same request as the fetch or a later one
    proxy_replay(store, _conversation(), "px-red36", counts=(1, 3, 5, 7, 9))
    got = {t[3] for t in turns(store) if t[0] == "px-red36"}
    assert "Got it: `[REDACTED:sealed-value]`. Connecting with psql now." in got, got
    assert "is [REDACTED:sealed-value] the one in the vault too?" in got, got
    assert "The vault holds [REDACTED:sealed-value] instead." in got, got
    assert "thanks, carry on" in got and "check the db connection" in got
    assert scan_store(store, [VALUE.encode(), LATER.encode()]) == []


def test_a_result_of_a_call_that_fetches_no_secret_is_not_withheld_later(tmp_path):
    """Bounded: only a fetching call's result; ``printenv NODE_ENV``'s value quoted later stays."""
    store = tmp_path / "store"
    msgs = [{"role": "user", "content": "which env?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                               "input": {"command": "printenv NODE_ENV"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                          "content": "production-eu2\n"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "It runs as production-eu2."}]},
            {"role": "user", "content": "ok"}]
    proxy_replay(store, msgs, "px-red36b", counts=(1, 3, 5))
    assert "It runs as production-eu2." in {t[3] for t in turns(store) if t[0] == "px-red36b"}
