"""Two holes in the ``mem-command`` rule (test18b V3, V5; red18c):

* V3: bash's ANSI-C quoting ``$'…'`` (and ``$"…"``) is one word, as bash
  reads it (bash(1) "QUOTING"): the rule took only the ``$`` and stored the
  quoted secret (``[REDACTED:mem-command]'8181-0004'``);
* V5: Codex's ``shell`` tool (``{"command": [argv…]}``) and
  ``local_shell_call`` (``action.command``) give the command as a list; the
  rule, written for a command line, saw none of it;
* V4: other ways of feeding the value on the same line: ``< <(echo X)``, a
  file written by ``cat > f <<< X`` then read with ``< f``, ``yes X |``, and
  ``NAME=X`` / ``export NAME=X`` before a mem command that reads ``$NAME``;
* V7, V8: a backslash-newline line continuation (raw, or JSON-escaped in a
  Bash call) inside the command: bash joins it before it splits words.

Through ``redact``, real ``mem hook shell`` and ``mem import claude-code``
processes (:func:`tests.cmds._credentials.store_commands`) and a real
``mem import codex`` of a rollout, then ``mem search`` of each secret.
Every value here is fake."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from objstore.core.redact import redact
from tests.cmds._credentials import store_commands
from tests.hooks._util import CWD, REPO, turns

# (command line, the secret it carries)
ANSI_C = [
    ("mem remember user/k/d $'8181-0004' --sensitivity secret", "8181-0004"),
    ("mem sealed show user/k/b --passphrase-file - <<< $'Velvet-Otter-Harbor-42'", "Velvet-Otter-Harbor-42"),
    ('mem remember user/k/e $"8181-0005" --sensitivity=secret', "8181-0005"),
    ("printf $'Tern-Basalt-63\\n' | mem vault init --passphrase-file -", "Tern-Basalt-63"),
    ("mem forget --match $'walrus 8181-0008' --yes", "walrus 8181-0008"),
]


@pytest.mark.parametrize("command, secret", ANSI_C)
def test_ansi_c_quoting_is_one_word(command, secret):
    bash_call = "[tool_use Bash] " + json.dumps({"command": command, "description": "run it"})
    for text in (command, bash_call):
        r = redact(text)
        assert secret not in r.text and r.text.count("[REDACTED:mem-command]") == 1, r.text
        assert "[REDACTED:mem-command]'" not in r.text and "[REDACTED:mem-command]\\\"" not in r.text, r.text
        assert redact(r.text).text == r.text


def test_a_dollar_quoted_word_without_a_secret_is_kept():
    for text in ("mem remember project/x/note $'two\\nlines'", "echo $'a\\tb' | grep a"):
        assert redact(text).text == text


def test_the_shell_hook_and_a_claude_import_store_no_ansi_c_secret(tmp_path):
    texts = store_commands(tmp_path, ANSI_C, ["mem recall walrus-kept"], "2026-01-21")
    assert texts.count("[REDACTED:mem-command]") >= 3 * len(ANSI_C)


STDIN_AND_VARS = [
    ("mem sealed import user/k/b - < <(echo 8181-0002)", "8181-0002"),
    ("PIN=8181-0015; echo $PIN | mem remember user/k/o - --sensitivity secret", "8181-0015"),
    ('pin=8181-0025; mem remember user/k/o "$pin" --sensitivity secret', "8181-0025"),
    ("export PIN=8181-0016 && echo $PIN | mem remember user/k/p - --sensitivity secret", "8181-0016"),
    ("PIN='8181 0017'; mem remember user/k/q \"${PIN}\" --sensitivity secret", "8181 0017"),
    ("cat > /tmp/v <<< 8181-0019; mem remember user/k/s - --sensitivity secret < /tmp/v", "8181-0019"),
    ("yes 8181-0013 | head -1 | mem remember user/k/m - --sensitivity secret", "8181-0013"),
]
#: test18b V8: 'xargs -I{}' hands the mem command what feeds xargs
XARGS = [
    ('echo "Quentin Sparrowhawk-6" | xargs -I{} mem forget --match {} --yes', "Quentin Sparrowhawk-6"),
    ("echo 8181-0003 | xargs -I{} mem remember user/k/c {} --sensitivity secret", "8181-0003"),
]


@pytest.mark.parametrize("command, secret", XARGS)
def test_what_feeds_xargs_is_redacted(command, secret):
    bash_call = "[tool_use Bash] " + json.dumps({"command": command, "description": "run it"})
    for text in (command, bash_call):
        r = redact(text)
        assert secret not in r.text and "| xargs -I{} mem " in r.text, r.text
        assert redact(r.text).text == r.text


KEPT_V4 = [
    "echo kept-x | xargs -I{} mem remember project/x/note {}",
    'X=1; mem remember project/x/note "$X"',
    'TOKEN=keepme; mem remember project/x/github-token "$GITHUB_TOKEN"',
    "mem remember project/x/note - < <(echo kept-note)",
    "yes kept-yes | head -1 | mem remember project/x/note -",
]


@pytest.mark.parametrize("command, secret", STDIN_AND_VARS)
def test_a_value_fed_or_assigned_on_the_line_is_redacted(command, secret):
    bash_call = "[tool_use Bash] " + json.dumps({"command": command, "description": "run it"})
    for text in (command, bash_call):
        r = redact(text)
        assert secret not in r.text and r.text.count("[REDACTED:mem-command]") == 1, r.text
        assert redact(r.text).text == r.text


@pytest.mark.parametrize("command", KEPT_V4)
def test_a_line_whose_mem_command_holds_no_secret_is_kept(command):
    assert redact(command).text == command


def test_the_shell_hook_and_a_claude_import_store_no_fed_or_assigned_secret(tmp_path):
    texts = store_commands(tmp_path, STDIN_AND_VARS, KEPT_V4, "2026-01-22")
    assert texts.count("[REDACTED:mem-command]") >= 3 * len(STDIN_AND_VARS)
    assert "kept-note" in texts and "kept-yes" in texts


CONTINUED = [
    ("mem remember user/bank/pin 8181-5004 \\\n  --sensitivity secret", "8181-5004"),
    ("mem remember \\\n user/bank/pin 8181-5005 --sensitivity secret", "8181-5005"),
    ("mem remember user/bank/pin 8181-6005 --sensitivity \\\nsecret", "8181-6005"),
    ('mem forget --yes \\\n  --match "Quentin Sparrowhawk-2"', "Quentin Sparrowhawk-2"),
    ("printf 'Velvet-Otter-9' \\\n  | mem sealed show user/k --passphrase-file -", "Velvet-Otter-9"),
]


@pytest.mark.parametrize("command, secret", CONTINUED)
def test_a_continued_line_is_read_as_one(command, secret):
    bash_call = "[tool_use Bash] " + json.dumps({"command": command, "description": "run it"})
    for text in (command, bash_call):
        r = redact(text)
        assert secret not in r.text and r.text.count("[REDACTED:mem-command]") == 1, r.text
        assert ("\\\\\\n" if text is bash_call else "\\\n") in r.text    # the continuation itself is kept
        assert redact(r.text).text == r.text


def test_a_continued_line_without_a_secret_is_kept():
    for text in ("echo kept \\\n && mem recall x", "mem remember project/x/note \\\n  kept-value"):
        assert redact(text).text == text


def test_the_shell_hook_and_a_claude_import_store_no_continued_secret(tmp_path):
    texts = store_commands(tmp_path, CONTINUED, ["mem recall walrus-kept"], "2026-01-23")
    assert texts.count("[REDACTED:mem-command]") >= 2 * len(CONTINUED)


# Codex argv calls: (how the call is given, the secret)
SHELL_ARGV = [
    (["mem", "remember", "user/bank/pin", "8181-7004", "--sensitivity", "secret"], "8181-7004"),
    (["bash", "-lc", "printf 'Velvet-Otter-7002' | mem sealed show user/bank/pin --passphrase-file -"],
     "Velvet-Otter-7002"),
    (["mem", "remember", "user/k/w", "Kestrel Lantern 2291", "--sensitivity", "secret"], "Kestrel Lantern 2291"),
    (["sshpass", "-p", "Heron-Quartz-5521", "ssh", "host"], "Heron-Quartz-5521"),
]
LOCAL_SHELL = (["mem", "forget", "--match", "lynx-copper-8181", "--yes"], "lynx-copper-8181")
KEPT_ARGV = ["mem", "recall", "walrus-kept-9"]


def _rollout(path: Path) -> Path:
    def rec(p):
        return json.dumps({"timestamp": "2026-03-02T10:00:00Z", "type": "response_item", "payload": p}) + "\n"
    lines = [json.dumps({"timestamp": "2026-03-02T10:00:00Z", "type": "session_meta",
                         "payload": {"id": "T-argv", "cwd": CWD, "source": "cli"}}) + "\n",
             rec({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "store my pin"}]})]
    for i, (argv, _s) in enumerate(SHELL_ARGV + [(KEPT_ARGV, "")]):
        lines.append(rec({"type": "function_call", "name": "shell", "call_id": f"c{i}",
                          "arguments": json.dumps({"command": argv, "timeout_ms": 10000})}))
        lines.append(rec({"type": "function_call_output", "call_id": f"c{i}", "output": "ok"}))
    lines.append(rec({"type": "local_shell_call", "call_id": "ls1", "status": "completed",
                      "action": {"type": "exec", "command": LOCAL_SHELL[0], "timeout_ms": 1000}}))
    lines.append(rec({"type": "function_call_output", "call_id": "ls1", "output": "forgot"}))
    path.write_text("".join(lines))
    return path


def _mem(store: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", "--home", str(store), *args], capture_output=True,
                          text=True, cwd=REPO, timeout=120)


def test_import_codex_redacts_a_shell_argv(tmp_path):
    store = tmp_path / "store"
    p = _mem(store, "import", "codex", str(_rollout(tmp_path / "rollout-2026-03-02T10-00-00-T-argv.jsonl")))
    assert p.returncode == 0, p.stdout + p.stderr
    calls = [t[3] for t in turns(store) if t[3].startswith("[tool_use ")]
    joined = "\n".join(calls)
    for _argv, secret in SHELL_ARGV + [LOCAL_SHELL]:
        assert secret not in joined, joined
        s = _mem(store, "search", secret.split()[0])
        assert secret not in s.stdout, s.stdout
    # the argv keeps its shape: only the secret's element (or its part in a 'bash -lc' string) is replaced
    assert '["mem", "remember", "user/bank/pin", "[REDACTED:mem-command]", "--sensitivity", "secret"]' in joined
    assert "printf [REDACTED:mem-command] | mem sealed show" in joined
    assert '"sshpass", "-p", "[REDACTED:cli-password]"' in joined
    assert '[tool_use local_shell] {"command": ["mem", "forget", "--match", "[REDACTED:mem-command]"' in joined
    assert json.dumps(KEPT_ARGV) in joined          # a call with no secret as Codex wrote it
