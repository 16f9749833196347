"""test30b S17: a "remember that …" prompt whose key is sealed is not
stored (a plain write of a sealed key is refused), and the prompt hook now
says so in its injected context instead of saying nothing (the person
believed it stored).  Real ``mem hook claude-code`` processes."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid

from tests.conftest import REPO
from tests.hooks._util import hook_env, mem_runner, payload, run_hook, vault_project


def test_a_statement_on_a_sealed_key_says_it_was_not_stored(tmp_path):
    home, _cwd, hook = vault_project(tmp_path)
    mem = mem_runner(home)

    def prompt(text):
        out = hook(text)
        return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else ""
    assert "Remembered as you asked" in prompt("remember that the db host is pg-1")
    mem("seal", "project/api/remembered/db-host")
    said = prompt("remember that the db host is pg-2")
    assert "Not stored, though asked: project/api/remembered/db-host is sealed" in said
    assert "pg-2" not in said.split("Not stored")[0]


def _sealed_store(tmp_path):
    """A store with a vault and ``project/api/remembered/db-host`` sealed
    (first written by the prompt hook); ``(home, cwd, prompt(text, sid))``."""
    home, cwd, prompt = vault_project(tmp_path)
    prompt("remember that the db host is pg-zqx-one")
    mem_runner(home)("seal", "project/api/remembered/db-host")
    return home, cwd, prompt


def _texts(home):
    from tests.hooks._util import turns
    return [t[3] for t in turns(home)]


def test_the_refused_prompt_is_captured_with_its_value_withheld(tmp_path):
    # test31 U7: "Not stored … would store a value of it in the clear" while the prompt itself was
    # captured, indexed and recalled in the clear; now every capture path withholds the value
    from tests.hooks._util import asst, files_holding, line, text, user
    home, cwd, prompt = _sealed_store(tmp_path)
    sid = str(uuid.uuid4())
    said = prompt("remember that the db host is pg-zqx-two", sid)
    assert "Not stored, though asked" in said and "this prompt is kept with the value withheld" in said
    assert "remember that [REDACTED:sealed-value]" in _texts(home)          # the prompt hook's capture
    # the Stop hook's transcript sync and `mem import` of a transcript holding such prompts
    tp = tmp_path / "t" / f"{sid}.jsonl"
    tp.parent.mkdir()
    tp.write_bytes(line(user("u1", "remember that the db host is pg-zqx-two", sid, cwd=str(cwd)))
                   + line(asst("a1", "m1", [text("I could not store it.")], sid, cwd=str(cwd)))
                   + line(user("u2", "remember that the db host is pg-zqx-three", sid, cwd=str(cwd),
                               ts="2026-01-05T10:00:02Z")))
    rc, _out, _err, _s = run_hook(home, payload("Stop", sid, tp, cwd=str(cwd)))
    assert rc == 0
    texts = _texts(home)
    assert not any("pg-zqx" in t for t in texts), texts
    assert texts.count("remember that [REDACTED:sealed-value]") == 2         # no second copy of the hook's turn
    mem = mem_runner(home)
    mem("gc", "--prune=now")
    assert files_holding(home, "pg-zqx") == []
    p = subprocess.run([sys.executable, "-m", "cmds", "search", "pg-zqx-two"], env=hook_env(home), cwd=REPO,
                       capture_output=True, text=True, timeout=120)
    assert "pg-zqx-two" not in p.stdout


def test_a_statement_on_a_plain_key_is_captured_as_typed(tmp_path):
    # the other way: only a sealed key's statement is withheld; another name stays plain and in the clear
    home, _cwd, prompt = _sealed_store(tmp_path)
    assert "Remembered as you asked" in prompt("remember that the cache host is redis-zqx-9")
    texts = _texts(home)
    assert "remember that the cache host is redis-zqx-9" in texts
    assert "remember that [REDACTED:sealed-value]" in texts                  # the seal's own source turn


def test_mem_import_of_a_transcript_withholds_the_sealed_value(tmp_path):
    # `mem import` (the parse worker's redactions, packed turns) goes through the same appender
    from tests.hooks._util import question_and_answer
    home, cwd, _prompt = _sealed_store(tmp_path)
    sid = str(uuid.uuid4())
    question_and_answer(tmp_path / "cc" / "-dev-api" / f"{sid}.jsonl", sid, str(cwd),
                        question="remember that the db host is pg-zqx-four", answer="It is sealed, not stored.")
    p = subprocess.run([sys.executable, "-m", "cmds", "import", "claude-code", str(tmp_path / "cc")],
                       env=hook_env(home), cwd=REPO, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    texts = _texts(home)
    assert "It is sealed, not stored." in texts                             # the session was imported
    assert texts.count("remember that [REDACTED:sealed-value]") == 2         # the seal's source and this one
    assert not any("pg-zqx" in t for t in texts), texts
