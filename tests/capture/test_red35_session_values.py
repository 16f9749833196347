"""test34b T15: a secret the capture withheld from a turn (a fetched secret's
output, ``[REDACTED:fetched-secret]``; a password the prompt's password rule
redacted) was stored, indexed and served in the clear when the agent's next
reply quoted it.  The turn writer now keeps a keyed hash of each such value
for the session (``objstore.memory.sessionrules``: never the value) and
withholds it in the session's later turns."""

from __future__ import annotations

import json

from objstore import scan_store
from objstore.memory.sessionrules import SESSION_RULES_FILE
from tests.hooks._util import asst, hook_env, line, text, tool_result, tool_use, user, \
    wait_store_processes_gone
from tests.hooks.test_remember_asked import _Session
from tests.hooks.test_seal_later_turns import _mem

SID = "35353535-1111-4222-8333-444444444444"
#: (a reply form, the value fetched by ``printenv DB_PASSWORD`` that it quotes)
REPLIES = [("printenv gives {} too.", "Qz7vK2pLm9Xa"), ("Got it: `{}`. Connecting with psql now.", "Qz7vK2pLm9Xb"),
           ("Connecting as app with {} ...", "Qz7vK2pLm9Xc"),
           ("```\n{}\n```\nThat is the value set in the environment.", "Qz7vK2pLm9Xd")]
#: the prompt password rule's value, quoted by the reply after it
PASSWORD = "Kd8fJ3mXqA"
#: a ``!`` bash-mode fetch's value, quoted by the reply after it
BASH_VALUE = "Wq2eRt5yUi7o"


def _records(sid: str) -> list[dict]:
    rows = [user("u0", "check the db connection", sid)]
    for i, (form, value) in enumerate(REPLIES):
        rows += [asst(f"a{i}", f"m{i}", [tool_use(f"toolu_{i}", "Bash", command="printenv DB_PASSWORD")], sid),
                 user(f"r{i}", [tool_result(f"toolu_{i}", value + "\n")], sid),
                 asst(f"b{i}", f"n{i}", [text(form.format(value))], sid)]
    rows += [user("p1", f"the db password is {PASSWORD} - please put it in config.yaml", sid),
             asst("c1", "o1", [text(f"Added {PASSWORD} to config.yaml under db.pass.")], sid),
             user("p2", "<bash-input>printenv API_TOKEN</bash-input>", sid),
             user("p3", f"<bash-stdout>{BASH_VALUE}</bash-stdout><bash-stderr></bash-stderr>", sid),
             asst("c2", "o2", [text(f"Your token {BASH_VALUE} works.")], sid)]
    return rows


def _values() -> list[str]:
    return [v for _f, v in REPLIES] + [PASSWORD, BASH_VALUE]


def _assert_withheld(env, store, sid):
    _mem(env, "gc", "--prune=now")
    assert scan_store(store, [v.encode() for v in _values()]) == []
    shown = _mem(env, "show", sid[:8]).stdout
    assert "Got it: `[REDACTED:sealed-value]`. Connecting with psql now." in shown, shown
    assert f"Added [REDACTED:sealed-value] to config.yaml" in shown, shown
    assert "Your token [REDACTED:sealed-value] works." in shown, shown
    assert "Connecting with psql now" in _mem(env, "search", "psql", ok=(0, 1)).stdout
    rules = store / SESSION_RULES_FILE
    assert rules.stat().st_mode & 0o077 == 0
    body = rules.read_text()
    assert body.startswith("mem-session-rules 1 ") and sid in body
    assert not any(v.lower() in body.lower() for v in _values())


def test_an_import_withholds_a_fetched_or_stated_secret_in_the_later_replies(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    _mem(env, "init")
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(line(r) for r in _records(SID)))
    got = _mem(env, "import", "claude-code", str(t))
    # 5 fetched outputs (test34b T6's last note: they were not counted), 1 password, 6 quotes withheld
    assert "redacted 12 credentials" in got.stdout + got.stderr, got.stdout + got.stderr
    _assert_withheld(env, store, SID)


def test_the_hooks_withhold_a_fetched_or_stated_secret_in_the_later_replies(tmp_path):
    s = _Session(tmp_path)
    env = {k: v for k, v in hook_env(s.store).items() if k != "MEM_AGENT"}
    rows = _records(s.sid)
    s.prompt(rows[0]["message"]["content"])
    with open(s.t, "ab") as f:
        f.write(b"".join(line(r) for r in rows[1:1 + 3 * len(REPLIES)]))
    s.stop(REPLIES[-1][0].format(REPLIES[-1][1]), write=False)
    s.prompt(rows[1 + 3 * len(REPLIES)]["message"]["content"])
    s.stop(f"Added {PASSWORD} to config.yaml under db.pass.")
    with open(s.t, "ab") as f:
        f.write(b"".join(line(r) for r in rows[-3:]))
    s.stop(f"Your token {BASH_VALUE} works.", write=False)
    wait_store_processes_gone(s.store)
    _assert_withheld(env, s.store, s.sid)


def test_a_codex_import_withholds_a_fetched_secret_in_the_later_reply(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    _mem(env, "init")

    def rec(kind, p):
        return json.dumps({"timestamp": "2026-03-02T10:00:00Z", "type": kind, "payload": p}) + "\n"
    value = "Zc4rT7yUi0QaCx"
    rows = [rec("session_meta", {"id": "T-red35", "cwd": "/home/dev/ops", "source": "cli"}),
            rec("response_item", {"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": "check the token"}]}),
            rec("response_item", {"type": "function_call", "name": "shell", "call_id": "c1",
                                  "arguments": json.dumps({"command": ["bash", "-lc", "printenv API_TOKEN"]})}),
            rec("response_item", {"type": "function_call_output", "call_id": "c1", "output": value + "\n"}),
            rec("response_item", {"type": "message", "role": "assistant",
                                  "content": [{"type": "output_text", "text": f"Using {value} for the calls now."}]})]
    t = tmp_path / "rollout-2026-03-02T10-00-00-T-red35.jsonl"
    t.write_text("".join(rows))
    _mem(env, "import", "codex", str(t))
    _mem(env, "gc", "--prune=now")
    assert scan_store(store, [value.encode()]) == []
    assert "Using [REDACTED:sealed-value] for the calls now." in _mem(env, "show", "T-red35").stdout


#: test34b T6: (command, its bare output) fetching a secret outside the first table
MORE_FETCHES = [
    ("""python3 -c "import os;print(os.environ['DB_PASSWORD'])\"""", "Ny6tG1hJk8Pw"),
    ("node -e 'console.log(process.env.API_TOKEN)'", "Zc4rT7yUi0Qa"),
    ("heroku config:get DATABASE_PASSWORD -a acme", "Ks3dF6gHj9Lq"),
    ("""sops -d --extract '["db"]["password"]' secrets.enc.yaml""", "Df2gH5jKl8Zx"),
    ("grep DB_PASSWORD .env | cut -d= -f2", "Cv6bN9mQw2Er"),
    ("vault kv get -format=json secret/acme/db | jq -r .data.data.password", "Bn4mQ7wEr0Ty"),
    ("keyring get acme-db admin", "Jk2lZ5xC8vBn"),
    ("dotenv get DB_PASSWORD", "Xc5vB8nM1qWe"),
    ("jq .password secrets.json", '"Hy7uJ8iK9oLc"'),
    ("cat config/master.key", "9f3a7c1e5b2d8f4a6c0e9b3d7f1a5c8f"),
    ("head -c 32 /run/secrets/api_token", "Hy7uJ8iK9oLg"),
    ("ssh prod 'printenv DB_PASSWORD'", "Hy7uJ8iK9oLh"),
]
#: (command, its output) kept: a user name, a host, a public setting
NOT_FETCHES = [
    ("vault kv get -field=username secret/acme/db", "app_user_one"),
    ("printenv NODE_ENV", "production-eu"),
    ("heroku config:get DATABASE_HOST -a acme", "db-host-17.internal"),
    ("""python3 -c "import os;print(os.environ['HOME'])\"""", "/home/dev-box"),
    ("jq -r .data.data.username db.json", "app_reader_two"),
]


def test_more_secret_fetching_commands_are_withheld_and_look_alikes_kept(tmp_path):
    """test34b T6: tool calls and ``!`` bash mode; T7's username field, NODE_ENV, a host stay."""
    store = tmp_path / "store"
    env = hook_env(store)
    _mem(env, "init")
    sid = "35353535-6666-4222-8333-444444444444"
    rows = [user("u0", "fetch the credentials", sid)]
    for i, (cmd, out) in enumerate(MORE_FETCHES + NOT_FETCHES):
        rows += [asst(f"a{i}", f"m{i}", [tool_use(f"toolu_{i}", "Bash", command=cmd)], sid),
                 user(f"r{i}", [tool_result(f"toolu_{i}", out + "\n")], sid)]
    for i, (cmd, out) in enumerate(MORE_FETCHES[:3] + NOT_FETCHES[1:3]):
        rows += [user(f"b{i}", f"<bash-input>{cmd}</bash-input>", sid),
                 user(f"o{i}", f"<bash-stdout>{out[::-1]}</bash-stdout><bash-stderr></bash-stderr>", sid)]
    t = tmp_path / f"{sid}.jsonl"
    t.write_bytes(b"".join(line(r) for r in rows))
    _mem(env, "import", "claude-code", str(t))
    _mem(env, "gc", "--prune=now")
    secrets = [out.strip('"') for _c, out in MORE_FETCHES] + [out[::-1] for _c, out in MORE_FETCHES[:3]]
    assert scan_store(store, [v.encode() for v in secrets]) == []
    shown = _mem(env, "show", sid[:8]).stdout
    assert shown.count("[REDACTED:fetched-secret]") == len(MORE_FETCHES) + 3, shown
    for _c, out in NOT_FETCHES:
        assert out in shown, out
    for _c, out in NOT_FETCHES[1:3]:
        assert out[::-1] in shown, out
