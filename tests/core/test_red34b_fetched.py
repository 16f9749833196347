"""red34b (test34 T5): a secret fetched by a command is a secret in its output.

A tool call that fetches a credential (``printenv DB_PASSWORD``, ``vault kv
get -field=password …``, ``pass show …``) prints it bare: its short result is
stored as ``[REDACTED:fetched-secret]`` by the Claude Code and Codex readers
(``objstore.core.redact.fetched``, one table); look-alikes (``printenv PATH``,
``aws configure get region``, ``pass ls``, ``terraform output -raw vpc_id``)
are kept.  The command-line forms the shell hook stored in the clear (``aws
configure set … --profile``, ``influx -password X``, ``<(echo X)``) are
redacted by the command-line rules."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from objstore.core.redact import redact
from objstore.core.redact.fetched import FETCHED_OUTPUT, fetches_secret, redact_fetched
from tests.conftest import REPO
from tests.core._redaction_util import assert_redacted
from tests.hooks._util import asst, hook_env, line, tool_result, tool_use, user

#: (command, its bare output: the secret)
FETCHES = [
    ("aws configure get aws_secret_access_key", "aEhWzjRci8hIoTWijVcQdioIUCHAnLfhbX84zv!3"),
    ("vault kv get -field=password secret/db", "vzxM9pnUnALQJd!2"),
    ("pass show db/prod", "winj1YybfVH3CP!3"),
    ("op read op://Private/db/password", "YBUxmvP0oEcqvs#9"),
    ("security find-generic-password -s db -w", "zEPP1u9nVgYXt5!8"),
    ("kubectl get secret db -o jsonpath='{.data.password}' | base64 -d", "N7I1Rsflmb6YMx%1"),
    ("printenv DB_PASSWORD", "YwVm8sSyLXkc2Q!6"),
    ("heroku auth:token", "EjtZE1aaryrWst46pLtz5XopMj2OIXu2gQc3"),
    ("openssl rand -base64 24 > .secret && cat .secret", "bx6IF8tREH82qtYyzRnJ4oXAd0Kp9T!0"),
    ("cat /run/secrets/db_password", "29AR6urgYJdupU#6"),
    ("terraform output -raw db_password", "bFZECrEWEQRa5R%5"),
    ("gh auth token", "gho_notAvendorShapeJust7x"),
    ("doppler secrets get DB_PASS --plain", "dopplerVal9Qx"),
    ("echo $STRIPE_WEBHOOK_SECRET", "whsecLike4Kq9z"),
    ("az account get-access-token --query accessToken -o tsv", "eyJ0eXAi.FWYEwpagyLsClcihK3Nd7N4nYm80"),
]
#: (command, its output): kept as written
LOOK_ALIKES = [
    ("printenv PATH", "/usr/local/bin:/usr/bin:/bin"),
    ("aws configure get region", "eu-west-1"),
    ("pass ls", "Password Store\n└── db"),
    ("terraform output -raw vpc_id", "vpc-0a1b2c3d4e5f6a7b8"),
    ("printenv PWD", "/home/dev/ops"),
    ("cat README.md", "hello ops"),
    ("cat /etc/passwd", "root:x:0:0:root:/root:/bin/bash"),
]
SID = "34b34b34-1111-2222-3333-444444444444"


def test_the_table_reads_the_shapes_and_not_the_look_alikes():
    for cmd, _out in FETCHES:
        for call in (cmd, json.dumps({"command": cmd}), json.dumps({"command": ["bash", "-lc", cmd]})):
            assert fetches_secret(call), call
    for cmd, _out in LOOK_ALIKES:
        assert not fetches_secret(json.dumps({"command": cmd})), cmd


def test_a_long_or_error_result_goes_to_the_normal_rules():
    assert redact_fetched("Zq7mmXq2\n") == FETCHED_OUTPUT
    listing = "\n".join(f"key{i}: value{i}" for i in range(8))
    assert redact_fetched(listing) == listing
    err = "cat: /run/secrets/db: No such file or directory"
    assert redact_fetched(err) == err
    assert redact_fetched("") == ""
    codex = "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nZq7mmXq2\n"
    assert redact_fetched(codex) == "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n" + FETCHED_OUTPUT


def _transcript(path, pairs):
    rows = [line(user("u1", "fetch the credentials", SID))]
    for i, (cmd, out) in enumerate(pairs):
        rows.append(line(asst(f"a{i}", f"m{i}", [tool_use(f"toolu_{i}", "Bash", command=cmd)], SID)))
        rows.append(line(user(f"r{i}", [tool_result(f"toolu_{i}", out)], SID)))
    path.write_bytes(b"".join(rows))
    return path


def _rollout(path, pairs):
    def rec(kind, p):
        return json.dumps({"timestamp": "2026-03-02T10:00:00Z", "type": kind, "payload": p}) + "\n"
    lines = [rec("session_meta", {"id": "T-red34b", "cwd": "/home/dev/ops", "source": "cli"}),
             rec("response_item", {"type": "message", "role": "user",
                                   "content": [{"type": "input_text", "text": "fetch the credentials"}]})]
    for i, (cmd, out) in enumerate(pairs):
        lines.append(rec("response_item", {"type": "function_call", "name": "shell", "call_id": f"c{i}",
                                           "arguments": json.dumps({"command": ["bash", "-lc", cmd]})}))
        lines.append(rec("response_item", {"type": "function_call_output", "call_id": f"c{i}", "output": out}))
    path.write_text("".join(lines))
    return path


def test_claude_code_and_codex_imports_store_no_fetched_secret(tmp_path, mem, store_path):
    """Real ``mem import claude-code`` and ``mem import codex``: no fetched
    value in ``mem show``, ``mem search`` or ``mem export``; look-alikes kept."""
    env = hook_env(store_path)
    mem("init", env=env)
    pairs = FETCHES + LOOK_ALIKES
    mem("import", "claude-code", str(_transcript(tmp_path / f"{SID}.jsonl", pairs)), env=env)
    mem("import", "codex", str(_rollout(tmp_path / "rollout-2026-03-02T10-00-00-T-red34b.jsonl", pairs)), env=env)
    shown = mem("show", SID[:8], env=env).stdout + mem("show", "T-red34b", env=env).stdout
    exported = mem("export", env=env).stdout
    assert shown.count(FETCHED_OUTPUT) == 2 * len(FETCHES), shown
    for _cmd, secret in FETCHES:
        assert secret not in shown and secret not in exported, secret
    assert mem("search", "YwVm8sSyLXkc2Q", env=env, exit_code=None).stdout.count("YwVm8sSyLXkc2Q") == 0
    for _cmd, out in LOOK_ALIKES:
        assert shown.count(out.splitlines()[0]) >= 2, out


#: (command line, the secret in it)
SHELL_LINES = [
    ("aws configure set aws_secret_access_key Tqmul78Q --profile prod", "Tqmul78Q"),
    ("aws configure set profile.prod.aws_session_token FQoGZ9Kq7mmXw2 ", "FQoGZ9Kq7mmXw2"),
    ("influx -username admin -password Pxddm24Q", "Pxddm24Q"),
    ("ansible-vault view secrets.yml --vault-password-file <(echo Yb2mFinch58)", "Yb2mFinch58"),
    ("restic backup . --password-file=<(printf '%s' Rz8kPlum41)", "Rz8kPlum41"),
]
SHELL_KEPT = ["aws configure set region eu-west-1 --profile prod", "influx -password $INFLUX_PW",
              "ansible-vault view x --vault-password-file ~/.vault_pass"]


@pytest.mark.parametrize("text,secret", SHELL_LINES)
def test_the_command_line_rules_read_the_shell_forms(text, secret):
    assert_redacted(text, text, [secret], rule="cli-password")


@pytest.mark.parametrize("text", SHELL_KEPT)
def test_the_command_line_look_alikes_are_kept(text):
    assert redact(text).text == text


def test_the_shell_hook_stores_none_of_them(mem, store_path):
    env = hook_env(store_path, MEM_SHELL_CAPTURE="1")
    mem("init", env=env)
    for i, (cmd, _s) in enumerate(SHELL_LINES + [(k, "") for k in SHELL_KEPT]):
        p = subprocess.run([sys.executable, "-m", "cmds", "hook", "shell", "--session", f"shell-34b{i}", "--cwd",
                            "/tmp", "--status", "0", "--start", str(1796540000000 + i * 1000), "--duration", "5"],
                           input=cmd, capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
        assert p.returncode == 0, p
    shown = "".join(mem("show", f"shell-34b{i}", env=env).stdout for i in range(len(SHELL_LINES) + len(SHELL_KEPT)))
    for cmd, secret in SHELL_LINES:
        assert secret not in shown, cmd
    for cmd in SHELL_KEPT:
        assert cmd in shown, cmd


def test_bash_mode_output_of_a_fetch_is_redacted(tmp_path, mem, store_path):
    """Claude Code's ``!`` bash mode: ``printenv DB_PASSWORD`` as a prompt, its
    output as the next prompt (a later record): the value is not stored;
    ``printenv PATH``'s output is."""
    env = hook_env(store_path)
    mem("init", env=env)
    sid = "34b34b34-5555-2222-3333-444444444444"
    t = tmp_path / f"{sid}.jsonl"
    t.write_bytes(b"".join(line(r) for r in [
        user("u1", "<bash-input>printenv DB_PASSWORD</bash-input>", sid),
        user("u2", "<bash-stdout>Kq7vBashPw!91</bash-stdout><bash-stderr></bash-stderr>", sid),
        user("u3", "<bash-input>printenv PATH</bash-input>", sid),
        user("u4", "<bash-stdout>/usr/bin:/bin</bash-stdout><bash-stderr></bash-stderr>", sid),
        asst("a1", "m1", [{"type": "text", "text": "Done."}], sid)]))
    mem("import", "claude-code", str(t), env=env)
    shown = mem("show", sid[:8], env=env).stdout
    assert "Kq7vBashPw!91" not in shown and FETCHED_OUTPUT in shown, shown
    assert "/usr/bin:/bin" in shown, shown
