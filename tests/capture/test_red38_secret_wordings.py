"""red38: the password-change wordings of test37b T4 stored as typed through ``mem remember`` and the prompt hook,
and test37b T19.4: after 'my pin is 2024' the session's later 'planned for 2024 Q3' lost its year (a short session
value of a year's shape was carried), while 'the wifi password is python' was stored in the clear.  Real ``mem``
processes and a real ``UserPromptSubmit`` hook."""

from __future__ import annotations

from objstore import scan_store
from tests.hooks._util import asst, hook_env, line, text, user, vault_project, wait_store_processes_gone
from tests.hooks.test_seal_later_turns import _mem

SID = "38383838-1111-4222-8333-444444444444"
X = "Tulip-Rain-9921"
#: (key, text) remembered; the secret of each is X
REMEMBERED = [("k102", f"the staging password got reset, now {X}"), ("k104", f"login for grafana is admin:{X}"),
              ("k105", f"password was rotated \u2192 {X}"), ("k107", f"Changed pw to {X}"),
              ("k112", f"I've switched my password over to {X}"), ("k120", f"the new one is {X} (password for grafana)")]


def test_remember_stores_the_wordings_withheld(tmp_path):
    env = hook_env(tmp_path / "store")
    _mem(env, "init")
    for key, said in REMEMBERED:
        _mem(env, "remember", f"project/r/{key}", said)
        got = _mem(env, "get", f"project/r/{key}").stdout
        assert X not in got and "[REDACTED:password-phrase]" in got, (said, got)
    _mem(env, "remember", "project/r/k116", "my bank PIN, 4471")
    assert "my bank PIN, [REDACTED:password-phrase]" in _mem(env, "get", "project/r/k116").stdout
    _mem(env, "remember", "project/r/k130", "the wifi password is python")
    assert "the wifi password is [REDACTED:password-phrase]" in _mem(env, "get", "project/r/k130").stdout
    _mem(env, "gc", "--prune=now")
    assert scan_store(tmp_path / "store", [X.encode()]) == []


def test_the_prompt_hook_stores_the_wordings_withheld(tmp_path):
    home, _cwd, prompt = vault_project(tmp_path)
    for said in (f"the staging password got reset, now {X} - please update the env file",
                 f"login for grafana is admin:{X}, check the dashboards",
                 f"I've switched my password over to {X}, can you update .env"):
        prompt(said, SID)
    wait_store_processes_gone(home)
    assert scan_store(home, [X.encode()]) == []
    assert scan_store(home, [b"can you update .env"])    # the turn itself was stored


def test_a_year_shaped_pin_is_not_withheld_as_the_year_later(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    _mem(env, "init")
    proj = tmp_path / "proj"
    proj.mkdir()
    rows = [user("p0", "my pin is 2024", SID),
            asst("a0", "m0", [text("Noted. The release is planned for 2024 Q3, fix the 2024 changelog.")], SID),
            user("p1", "my pin is 4471 now", SID), asst("a1", "m1", [text("Stored 4471 as the PIN.")], SID),
            user("p2", "the staging login password is admin and the wifi password is python", SID)]
    for r in rows:
        r["cwd"] = str(proj)
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(line(r) for r in rows))
    _mem(env, "import", "claude-code", str(t))
    shown = _mem(env, "show", SID).stdout
    assert "my pin is [REDACTED:password-phrase]" in shown, shown
    assert "planned for 2024 Q3, fix the 2024 changelog" in shown, shown
    assert "Stored [REDACTED:sealed-value] as the PIN." in shown, shown      # a PIN of another shape still is
    assert ("the staging login password is [REDACTED:password-phrase] and the wifi password is "
            "[REDACTED:password-phrase]") in shown, shown
