"""test31 U7: ``mem seal`` of a "remember that" key removed the plain
versions but left the value in the prompt turn the fact cites as its source,
and said 'mem gc --prune=now' drops "any other copy" (false).  Now the cited
turns that hold the value are rewritten in place with it withheld (the
mechanism of ``mem forget --credentials``), the message says so and names
what it does not touch; a stopped seal is finished the same way by the next
opening of the store.  Real ``mem hook claude-code`` and ``mem`` processes
on real stores."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid

from tests.conftest import REPO
from tests.hooks._util import (files_holding, hook_env, mem_runner, payload, run_hook, turns, vault_project,
                              wait_store_processes_gone)

KEY = "project/api/remembered/db-host"
VALUE = "the db host is pg-zqx-alpha"

#: ``mem seal ARGS`` that SIGKILLs itself when the seal starts withholding the cited turns
#: (its sealed ref has moved): a test-only wrapper, the product has no kill hook
KILL_AT_TURNS = """
import os, signal
from objstore.vault import sealed
sealed.withhold_source_turns = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
from cmds.entry import entry
entry()
"""


def _mem(home, *args, code=None, exit_code=0):
    p = subprocess.run([sys.executable, *(["-c", code] if code else ["-m", "cmds"]), *args], env=hook_env(home),
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    if exit_code is not None:
        assert p.returncode == exit_code, (p.returncode, p.stdout, p.stderr)
    return p


def _remembered(tmp_path, prompt: str):
    """A store with a vault where the prompt hook wrote ``KEY`` from ``prompt``."""
    home, cwd, hook = vault_project(tmp_path)
    assert "Remembered as you asked" in hook(prompt)
    return home, cwd


def _texts(home) -> list[str]:
    return [t[3] for t in turns(home)]


def test_seal_withholds_the_value_in_the_prompt_it_was_remembered_from(tmp_path):
    home, _cwd = _remembered(tmp_path, f"remember that {VALUE}")
    assert any(VALUE in t for t in _texts(home))              # the prompt turn holds it, as captured
    p = _mem(home, "seal", KEY)
    assert "value withheld in 1 captured turn" in p.stdout
    assert "pg-zqx-alpha" not in p.stdout + p.stderr           # the message never prints the value
    assert "any other copy" not in p.stderr and "--scrub-sources" in p.stderr
    texts = _texts(home)
    assert "remember that [REDACTED:sealed-value]" in texts    # the turn keeps its place, without the value
    assert not any("pg-zqx-alpha" in t for t in texts)
    _mem(home, "gc", "--prune=now")
    scan = _mem(home, "scan", VALUE, exit_code=None)
    assert "found nowhere" in scan.stdout, scan.stdout + scan.stderr
    assert files_holding(home, "pg-zqx-alpha") == []
    assert _mem(home, "search", "pg-zqx-alpha", exit_code=None).stdout.count("pg-zqx-alpha") == 0
    j = json.loads(_mem(home, "sealed", "list", "--json").stdout)
    assert KEY in json.dumps(j)


def test_other_turns_quoting_the_value_are_withheld_too(tmp_path):
    """seal31's left-out: a later prompt of another session quoting the
    value, and one quoting only its value word, are no source of the fact
    yet hold the sealed value: found with the index, withheld in place, and
    counted apart; a longer word holding the value word is left."""
    home, cwd = _remembered(tmp_path, f"remember that {VALUE}")
    for said in (f"so is it true that {VALUE}, or not?", "Noted: pg-zqx-alpha.", "is pg-zqx-alpha-2 a replica?"):
        rc, _out, _err, _s = run_hook(home, payload("UserPromptSubmit", str(uuid.uuid4()), None, cwd=str(cwd),
                                                    prompt=said))
        assert rc == 0
    wait_store_processes_gone(home)   # the prompts' turns are stored by the hooks' capture children
    p = _mem(home, "seal", KEY)
    assert "value withheld in 1 captured turn it was remembered from and 2 other turns quoting it" in p.stdout
    assert "pg-zqx-alpha" not in p.stdout + p.stderr
    texts = _texts(home)
    assert "remember that [REDACTED:sealed-value]" in texts
    assert "so is it true that [REDACTED:sealed-value], or not?" in texts
    assert "Noted: [REDACTED:sealed-value]." in texts
    assert "is pg-zqx-alpha-2 a replica?" in texts              # another value, not the sealed one
    _mem(home, "gc", "--prune=now")
    assert files_holding(home, VALUE) == []
    scan = _mem(home, "scan", VALUE, exit_code=None)
    assert "found nowhere" in scan.stdout, scan.stdout


def test_a_key_written_without_a_source_turn_withholds_nothing(tmp_path):
    home = tmp_path / "store"
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple x\n")
    mem = mem_runner(home)
    mem("init")
    mem("vault", "init", "--passphrase-file", str(pp))
    mem("remember", "user/bank/pin", "pin 4821-zq")
    p = _mem(home, "seal", "user/bank/pin")
    assert "captured turn" not in p.stdout
    assert json.loads(_mem(home, "seal", "user/bank/pin", "--json").stdout)["already"] is True


def test_a_seal_stopped_before_its_turns_is_finished_by_the_next_opening(tmp_path):
    home, _cwd = _remembered(tmp_path, f"remember that {VALUE}")
    p = _mem(home, "seal", KEY, code=KILL_AT_TURNS, exit_code=None)
    assert p.returncode == -9                                   # killed where the turns were to be withheld
    assert list((home / "forget-unfinished").iterdir())        # its note (read raw: an opening finishes it)
    _mem(home, "keys")                                          # any opening finishes the seal
    texts = _texts(home)
    assert "remember that [REDACTED:sealed-value]" in texts
    assert not any("pg-zqx-alpha" in t for t in texts)
    _mem(home, "gc", "--prune=now")
    assert "found nowhere" in _mem(home, "scan", VALUE, exit_code=None).stdout
    assert files_holding(home, "pg-zqx-alpha") == []


def test_a_value_of_ordinary_words_is_not_withheld_in_unrelated_turns(tmp_path):
    """test32b Y4 (a regression of the quoting turns' rewrite): sealing a key
    whose value is an ordinary word ("main") withheld that word in every
    captured turn of every project, for good; only a statement of three or
    more words or a value-shaped word is looked for in other turns."""
    home, cwd = _remembered(tmp_path, f"remember that {VALUE}")
    said = "Let me look at the main transcript template and the main loop"
    rc, _out, _err, _s = run_hook(home, payload("UserPromptSubmit", str(uuid.uuid4()), None, cwd=str(cwd),
                                                prompt=said))
    assert rc == 0
    wait_store_processes_gone(home)
    _mem(home, "remember", "project/api/deploy-branch", "main")
    p = _mem(home, "seal", "project/api/deploy-branch")
    assert "quoting it" not in p.stdout, p.stdout
    assert said in _texts(home)                                  # base: "the [REDACTED:sealed-value] transcript …"
    assert json.loads(_mem(home, "sealed", "list", "--json").stdout)


def test_a_value_said_with_a_verb_of_change_is_withheld_where_quoted(tmp_path):
    """test32b Y10: the seal's own copula list did not know the verbs of change, so the agent's
    "Noted, <value>" after "… has been changed to <value>" stayed in the clear."""
    home, cwd = _remembered(tmp_path, "remember that the db host has been changed to pg-zqx-beta")
    rc, _out, _err, _s = run_hook(home, payload("UserPromptSubmit", str(uuid.uuid4()), None, cwd=str(cwd),
                                                prompt="Noted, pg-zqx-beta."))
    assert rc == 0
    wait_store_processes_gone(home)
    p = _mem(home, "seal", KEY)
    assert "1 other turn quoting it" in p.stdout, p.stdout
    assert not any("pg-zqx-beta" in t for t in _texts(home))
