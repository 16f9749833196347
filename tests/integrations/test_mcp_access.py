"""The MCP access policy without the SDK: keys, namespaces, limits, confirm
tokens and the credential gate (objstore.integrations.access)."""

from __future__ import annotations

import os
import stat

import pytest

from objstore import (AuthError, Caller, ConfirmTokens, InvalidInput, KeyRing, Limits, MemoryTools, NotFound,
                      RateLimited, RateLimiter, Refused, check_arguments, mcp_keys_path, mint_mcp_key,
                      read_mcp_keys, revoke_mcp_key)
from tests.conftest import word_in


def test_keys_are_stored_as_digests_0600_and_reread(tmp_path):
    path = mcp_keys_path(tmp_path)
    key, rec = mint_mcp_key(path, "codex@laptop", "agent", namespaces=["project/api/", "user"])
    assert key.startswith("memk_") and key not in path.read_text() and rec.sha256 in path.read_text()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert rec.namespaces == ("project/api", "user")
    ring = KeyRing(path)
    assert ring.authenticate(f"Bearer {key}").name == "codex@laptop"
    with pytest.raises(InvalidInput):
        mint_mcp_key(path, "codex@laptop", "read")
    revoke_mcp_key(path, "codex@laptop")
    with pytest.raises(AuthError, match="unknown or revoked"):
        ring.authenticate(f"Bearer {key}")
    with pytest.raises(NotFound):
        revoke_mcp_key(path, "codex@laptop")


def test_expired_missing_and_corrupt_keys_fail_closed(tmp_path):
    path = mcp_keys_path(tmp_path)
    key, _ = mint_mcp_key(path, "brief", "read", expires_days=1, now_ms=0)
    ring = KeyRing(path)
    with pytest.raises(AuthError, match="expired"):
        ring.authenticate(f"Bearer {key}")
    with pytest.raises(AuthError, match="missing"):
        ring.authenticate(None)
    good, _ = mint_mcp_key(path, "ok", "read")
    assert ring.authenticate(f"bearer {good}").name == "ok"
    path.write_text("{not json")
    with pytest.raises(AuthError, match="cannot be read"):
        ring.authenticate(f"Bearer {good}")
    with pytest.raises(InvalidInput):
        read_mcp_keys(path)


@pytest.mark.parametrize("bad", ["", "has space", "x" * 65])
def test_bad_names_roles_namespaces(tmp_path, bad):
    with pytest.raises(InvalidInput):
        mint_mcp_key(mcp_keys_path(tmp_path), bad, "read")
    with pytest.raises(InvalidInput):
        mint_mcp_key(mcp_keys_path(tmp_path), "n", "root")
    with pytest.raises(InvalidInput):
        mint_mcp_key(mcp_keys_path(tmp_path), "n", "read", namespaces=["nowhere/x"])


@pytest.mark.parametrize("name", ["user", "rollup", "derive", "mcp", "User", "ROLLUP",
                                  "\uff55\uff53\uff45\uff52", "us\u0435r"])   # test38 T9.5: full-width, Cyrillic e
def test_a_key_may_not_take_an_author_name_mem_writes_under(tmp_path, name):
    """test37 T9.9: a key named ``user`` wrote ``author user`` (``mem blame``,
    the MCP ``origin``), the person's own author; ``rollup`` a rollup's."""
    path = mcp_keys_path(tmp_path)
    with pytest.raises(InvalidInput, match="one mem itself writes under"):
        mint_mcp_key(path, name, "agent")
    assert not path.exists() or read_mcp_keys(path) == []
    assert mint_mcp_key(path, "bot-" + str(len(name)), "agent")[1].name == "bot-" + str(len(name))


def test_namespaces_confine_keys_and_turns():
    c = Caller("bot", "agent", ("project/api", "user"))
    assert c.sees_key("project/api/port") and c.sees_key("user/editor") and c.sees_key("project/api")
    assert not c.sees_key("project/apiv2/port") and not c.sees_key("global/tz")
    assert c.sees_project("api") and not c.sees_project("web") and not c.sees_project("")
    assert Caller("all", "read").sees_key("global/tz")
    assert Caller("r", "read").tools == ("recall", "get", "log", "search", "context")
    assert "remember" in Caller("a", "agent").tools and "forget" not in Caller("a", "agent").tools
    assert Caller("o", "owner").trust == "user_stated" and Caller("a", "agent").trust == "agent_observed"


def test_confirm_tokens_once_for_that_action_and_arguments():
    ct = ConfirmTokens(ttl_s=600)
    t = ct.issue("forget", {"target": "user/x"}, shown=frozenset({"ab12"}), now=1000)
    with pytest.raises(Refused, match="not forget_matching"):
        ct.redeem(t, "forget_matching", {"target": "user/x"}, now=1001)
    with pytest.raises(Refused, match="other arguments"):
        ct.redeem(t, "forget", {"target": "user/y"}, now=1001)
    assert ct.redeem(t, "forget", {"target": "user/x"}, now=1002) == {"ab12"}   # what its preview showed
    with pytest.raises(Refused, match="already used"):
        ct.redeem(t, "forget", {"target": "user/x"}, now=1003)
    t2 = ct.issue("seal", {"key": "user/x"}, now=1000)
    with pytest.raises(Refused, match="expired"):
        ct.redeem(t2, "seal", {"key": "user/x"}, now=1000 + 601)


def test_expired_confirm_token_changes_nothing(store):
    from objstore import current, remember
    remember(store, "user/editor", "neovim")
    tools = MemoryTools(store, confirm=ConfirmTokens(ttl_s=0.0))
    owner = Caller("me", "owner")
    tok = tools.call(owner, "forget", {"target": "user/editor"})["confirm"]
    with pytest.raises(Refused, match="expired"):
        tools.call(owner, "forget", {"target": "user/editor", "confirm": tok})
    assert current(store, "user/editor").fact.body == "neovim"
    with pytest.raises(Refused, match="forget is a person.s decision"):
        tools.call(Caller("a", "agent"), "forget", {"target": "user/editor"})


def test_rate_limiter_fixed_minute_windows():
    rl = RateLimiter(Limits(requests_per_minute=3, writes_per_minute=1))
    for _ in range(3):
        rl.hit("a", "request", now=60.0)
    with pytest.raises(RateLimited) as e:
        rl.hit("a", "request", now=70.0)
    assert e.value.retry_after == 51
    rl.hit("b", "request", now=70.0)  # per key
    rl.hit("a", "request", now=120.0)  # next minute
    rl.hit("a", "write", now=120.0)
    with pytest.raises(RateLimited):
        rl.hit("a", "write", now=121.0)


def test_argument_gate_names_the_rule_never_the_value():
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    with pytest.raises(Refused) as e:
        check_arguments({"key": "user/x", "value": f"my token {token}"}, Limits())
    assert "github-token" in e.value.message and token not in str(e.value)
    with pytest.raises(Refused, match="mem-key"):
        check_arguments({"queries": ["memk_" + "a" * 43]}, Limits())
    with pytest.raises(InvalidInput):
        check_arguments({"queries": ["x"] * 1001}, Limits())
    with pytest.raises(InvalidInput):
        check_arguments({"value": "x" * 300_000}, Limits())
    check_arguments({"key": "user/x", "value": "plain text", "limit": 3}, Limits())


def test_seal_two_calls_and_sealed_values_never_leave(store):
    import json

    from objstore import init_vault, remember
    init_vault(store, "correct horse battery staple", work_factor=10)
    remember(store, "user/bank/pin", "4711 is the pin")
    remember(store, "user/bank/name", "the bank is Example Bank")
    tools = MemoryTools(store)
    admin = Caller("me", "admin")
    p = tools.call(admin, "seal", {"key": "user/bank/pin"})
    assert p["done"] is False and p["preview"]["versions"] == 1
    with pytest.raises(Refused, match="other arguments"):
        tools.call(admin, "seal", {"key": "user/bank/name", "confirm": p["confirm"]})
    done = tools.call(admin, "seal", {"key": "user/bank/pin", "confirm": p["confirm"]})
    assert done["done"] and done["sealed"] == 1
    got = tools.call(admin, "get", {"key": "user/bank/pin"})
    assert got["sealed"] is True and got["value"] is None
    log = tools.call(admin, "log", {"key": "user/bank/pin"})   # "sealed", not "no key" (fresh42 F8)
    assert log["sealed"] is True and log["items"] == [] and "sealed" in log["note"]
    everything = json.dumps([got, log, tools.call(admin, "recall", {"queries": ["bank pin"], "all_projects": True}),
                             tools.call(admin, "search", {"query": "pin"}),
                             tools.call(admin, "list_sealed", {}), tools.call(admin, "context", {})])
    assert not word_in("4711", everything) and "user/bank/pin" in everything
    assert "unseal" not in Caller("me", "admin").tools
