"""Holes in the ``mem-command`` rule and two password files (red20):

* 1: after a process had redacted 1 MiB, the one-pass matcher (``prefilter._FAST``) ran the rule only
  where an exact anchor (``mem remember`` …) occurs, while the stdlib prefilter tests the merged
  gate ``mem ``: ``mem  remember``, ``mem \\<LF>remember`` were redacted in a fresh process and stored
  in clear by a long import (and ``mem<TAB>remember`` by both);
* 2: what feeds mem was kept after a quoted ``"echo"``, in a subshell, group or substitution, after a
  reserved word, through ``xargs mem …`` (no ``-I{}``), with the ``memvcs`` launcher, with
  ``--sensitivity $'secret'``, and the same value elsewhere on the line (``mem search "X" && mem
  forget --match "X"``);
* 3: a ``.pgpass`` line's password and a ``.netrc`` password had no rule of their own.

Through ``redact`` with each prefilter, and real ``mem hook shell`` / ``mem import claude-code``
processes.  Every value here is fake."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from objstore.core.redact import prefilter, redact
from tests.cmds._credentials import run_shell_hook, stored_texts, store_commands
from tests.core.test_redact import _prefilter
from tests.hooks._util import REPO, asst, hook_env, line, tool_use, user
from tests.hooks._util import text as text_block

# (command line, the secret it carries): the blanks and continuations between mem and its command
BLANKS = [
    ("mem \\\nremember user/k/a 8181-2101 --sensitivity secret", "8181-2101"),
    ("mem  remember user/k/a 8181-2102 --sensitivity secret", "8181-2102"),
    ("mem\tremember user/k/a 8181-2103 --sensitivity secret", "8181-2103"),
    ("mem \\\n  forget --match walrus-2104 --yes", "walrus-2104"),
    ("mem\\\n remember user/k/a 8181-2105 --sensitivity secret", "8181-2105"),
    ("$M\tremember user/k/a 8181-2106 --sensitivity secret", "8181-2106"),
    ("python -m  cmds remember user/k/a 8181-2107 --sensitivity secret", "8181-2107"),
    ("mem --home /tmp/x  scan 8181-2108", "8181-2108"),
]

FEEDERS = [
    ('"echo" 8181-2201 | mem remember user/k/a - --sensitivity secret', "8181-2201"),
    ("(echo 8181-2202 | mem remember user/k/a - --sensitivity secret)", "8181-2202"),
    ("{ echo 8181-2203; } | mem remember user/k/a - --sensitivity secret", "8181-2203"),
    ("(echo 8181-2204; echo x) | mem sealed import user/k/b -", "8181-2204"),
    ("if true; then echo 8181-2205 | mem remember user/k/a - --sensitivity secret; fi", "8181-2205"),
    ("while true; do echo 8181-2206 | mem remember user/k/a - --sensitivity secret; break; done", "8181-2206"),
    ("! echo 8181-2207 | mem remember user/k/a - --sensitivity secret", "8181-2207"),
    ("x=`echo 8181-2208 | mem remember user/k/a - --sensitivity secret`", "8181-2208"),
    ("x=$(echo 8181-2209 | mem remember user/k/a - --sensitivity secret)", "8181-2209"),
    ("echo 8181-2210 | xargs mem remember user/k/a --sensitivity secret", "8181-2210"),
    ("echo walrus-2211 | xargs -n1 mem forget --yes --match", "walrus-2211"),
    ("echo 8181-2212 | xargs mem scan", "8181-2212"),
    ("uvx memvcs remember user/k/a 8181-2213 --sensitivity secret", "8181-2213"),
    ("pipx run memvcs remember user/k/a 8181-2214 --sensitivity secret", "8181-2214"),
    ("mem remember user/k/a 8181-2215 --sensitivity $'secret'", "8181-2215"),
    ('mem search "walrus-2216" && mem forget --match "walrus-2216" --yes', "walrus-2216"),
    ("mem remember user/k/a 8181-2217 --sensitivity secret; mem remember project/x/n 8181-2217", "8181-2217"),
    ("mem forget --match walrus-2218 --yes; mem recall walrus-2218", "walrus-2218"),
]
#: look-alikes: kept as typed
KEPT = [
    "echo `date` | mem remember project/x/when -",
    "(cd /tmp && mem remember project/x/note hello-there)",
    "ls | xargs mem recall",
    "the machine learning password manager is open",
    "mem search walrus && echo walrus",
]


def _both(text: str) -> tuple[str, str]:
    return text, "[tool_use Bash] " + json.dumps({"command": text, "description": "run it"})


@pytest.mark.parametrize("kind", ["stdlib", "fast"])
def test_both_prefilters_redact_mem_command_lines_alike(monkeypatch, kind):
    # the one-pass matcher runs the rule wherever the stdlib prefilter does (every match holds an anchor)
    _prefilter(monkeypatch, kind)
    for command, secret in BLANKS + FEEDERS:
        for text in _both(command):
            r = redact(text)
            assert secret not in r.text and "[REDACTED:mem-command]" in r.text, (kind, r.text)
            assert redact(r.text).text == r.text
    for text in KEPT:
        assert redact(text).text == text, kind
    assert bool(prefilter._FAST[0]) == (kind == "fast")


def test_the_fast_matcher_gives_the_stdlib_output_on_a_table(monkeypatch):
    pytest.importorskip("ahocorasick_rs")
    texts = [t for c, _s in BLANKS + FEEDERS for t in _both(c)] + KEPT
    _prefilter(monkeypatch, "stdlib")
    slow = [redact(t) for t in texts]
    _prefilter(monkeypatch, "fast")
    assert [redact(t) for t in texts] == slow


def test_a_process_that_redacted_a_mebibyte_still_redacts_the_odd_blanks():
    # the order that hid it: the same process, first >1 MiB of text, then the lines
    code = ("import sys, json\n"
            "from objstore.core.redact import redact, prefilter\n"
            "for _ in range(20): redact('the deploy log said nothing new ' * 2000)\n"
            "print(json.dumps([bool(prefilter._FAST[0])] + [redact(c).text for c in json.load(sys.stdin)]))")
    p = subprocess.run([sys.executable, "-c", code], input=json.dumps([c for c, _s in BLANKS]), capture_output=True,
                       text=True, cwd=REPO, check=True, timeout=120)
    fast, *out = json.loads(p.stdout)
    for (_c, secret), text in zip(BLANKS, out):
        assert secret not in text, (fast, text)


def test_a_long_import_stores_no_mem_command_secret(tmp_path):
    # a real 'mem import claude-code' of a transcript whose first 1.2 MiB of turns come before the commands
    store = tmp_path / "store"
    env = hook_env(store)
    transcript = tmp_path / "t.jsonl"
    filler = "the deploy log said nothing new today " * 800      # ~30 KB a turn
    with open(transcript, "wb") as f:
        for i in range(40):
            f.write(line(user(f"f{i}", filler + str(i), ts=f"2026-02-01T09:{i:02d}:00Z")))
        for i, (command, _secret) in enumerate(BLANKS + FEEDERS):
            ts = f"2026-02-01T10:{i // 60:02d}:{i % 60:02d}Z"
            f.write(line(asst(f"a{i}", f"m{i}", [text_block("running it"), tool_use(f"tu{i}", command=command)],
                              ts=ts)))
    p = subprocess.run([sys.executable, "-m", "cmds", "import", "claude-code", str(transcript)], capture_output=True,
                       text=True, env=env, cwd=REPO, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    texts = stored_texts(store)
    assert texts.count("[REDACTED:mem-command]") >= len(BLANKS + FEEDERS)
    for _command, secret in BLANKS + FEEDERS:
        assert secret not in texts, secret


def test_the_shell_hook_and_a_claude_import_store_no_fed_secret(tmp_path):
    texts = store_commands(tmp_path, FEEDERS, KEPT, "2026-02-02")
    assert KEPT[0] in texts


# ---- .pgpass and .netrc (PostgreSQL libpq "The Password File"; GNU inetutils "The .netrc file") ----
FILES = [
    ("cat ~/.pgpass\ndb.example.com:5432:app:alice:Xq7pLm29vRt\n*:*:*:bob:Tr0ub4dor-88", "Xq7pLm29vRt",
     "pgpass-password"),
    ("cat ~/.pgpass\ndb.example.com:5432:app:alice:Xq7pLm29vRt\n*:*:*:bob:Tr0ub4dor-88", "Tr0ub4dor-88",
     "pgpass-password"),
    ('echo "db.internal:5432:*:bob:Vole-Harbor-2301" >> ~/.pgpass', "Vole-Harbor-2301", "pgpass-password"),
    ("printf 'localhost:*:*:postgres:s3cr\\:et2302' > ~/.pgpass && chmod 600 ~/.pgpass", "et2302",
     "pgpass-password"),
    ("machine api.example.com login alice password Zk93mQpw2303", "Zk93mQpw2303", "netrc-password"),
    ("cat ~/.netrc\nmachine h.example.com\n  login bob\n  password plainword", "plainword", "netrc-password"),
    ("machine h.example.com account ops login bob password Heron-2305", "Heron-2305", "netrc-password"),
]
FILES_KEPT = [
    # no .pgpass near it, not a PostgreSQL port (red21; since mend24 a lone line on 5432-5439, 6432, 6543 or
    # 25060 is a pgpass line: tests/core/test_mend24_redaction.py)
    "db.example.com:8080:app:alice:notnear",
    "echo '*:*:*:*:$PGPASSWORD' >> ~/.pgpass",             # a variable, not a password
    "machine h login u password $NETRC_PW",
    "ls -l ~/.pgpass\n-rw------- 1 u u 45 Dec  4 10:33 /home/u/.pgpass",
]


@pytest.mark.parametrize("text, secret, rule", FILES)
def test_a_password_file_line_is_redacted_under_its_own_rule(text, secret, rule):
    for t in _both(text):
        r = redact(t)
        assert secret not in r.text and f"[REDACTED:{rule}]" in r.text, r.text
        assert {h.rule for h in r.hits} == {rule}
        assert redact(r.text).text == r.text
    if rule == "pgpass-password":
        assert "db.example.com:5432:app:alice:" in redact(FILES[0][0]).text   # the other fields kept


def test_password_file_look_alikes_are_kept():
    for t in FILES_KEPT:
        assert redact(t).text == t


def test_the_shell_hook_stores_no_password_file_secret(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store, MEM_SHELL_CAPTURE="1")
    for i, (command, _secret, _rule) in enumerate(FILES):
        run_shell_hook(env, "shell-2026-02-03", i, command)
    texts = stored_texts(store)
    for _command, secret, rule in FILES:
        assert secret not in texts and f"[REDACTED:{rule}]" in texts, secret
