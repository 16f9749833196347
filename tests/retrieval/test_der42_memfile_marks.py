"""test41 T21 and T14: a memory-file line whose value is not a number stayed
unmarked after the person recorded another value of its subject ("Editor:
vim" after ``remember user/editor helix``; a host, a branch, a version, a
URL), and so did "Prod DB port is 5432" after db-port 6543 (production is
an unqualified key's own, not another environment).  The neighbours keep
der41/T31's rules: a plan, a condition, a question, another machine or
environment's value, a negation or a line naming the fact's own value marks
nothing, either way.  Real ``mem memory add`` / ``mem remember`` / ``mem
context`` processes."""

from __future__ import annotations

import time

import pytest

MARK = "MAY BE OUT OF DATE: a memory-file line written later"

LATER = [  # (key, its later value, an older memory-file line of it)
    ("project/acme/db-host", "pg.internal", "The DB host is db.internal."),
    ("user/editor", "helix", "Editor: vim"),
    ("project/acme/deploy-branch", "release", "The deploy branch is main."),
    ("project/acme/ci-node-version", "Node 20", "CI runs on Node 18."),
    ("project/acme/staging-url", "https://new.example.com", "Staging URL is https://old.example.com"),
    ("project/acme/db-port", "6543", "Prod DB port is 5432"),
    ("project/acme/db-port", "6543", "Production DB port: 5432"),
]


def _line_mark(key: str) -> str:
    return f"(MAY BE OUT OF DATE: {key}, recorded later, holds another value)"


@pytest.mark.parametrize("key,value,line", LATER)
def test_the_persons_later_value_of_any_kind_marks_the_older_line(mem, tmp_path, key, value, line):
    env = {"MEM_HOME": str(tmp_path / "s")}
    mem("memory", "add", "memory", line, "--project", "acme", env=env)
    time.sleep(0.05)
    mem("remember", key, value, env=env)
    block = mem("context", "--project", "acme", env=env).stdout
    assert f"{line} {_line_mark(key)}" in block.splitlines(), block


@pytest.mark.parametrize("key,value,line", [LATER[0], LATER[3], LATER[4]])   # (a word: test38 T3 already)
def test_a_line_written_later_marks_the_persons_older_value(mem, tmp_path, key, value, line):
    env = {"MEM_HOME": str(tmp_path / "s")}
    mem("remember", key, value, env=env)
    time.sleep(0.05)
    mem("memory", "add", "memory", line, "--project", "acme", env=env)
    block = mem("context", "--project", "acme", env=env).stdout
    fact = next(x for x in block.splitlines() if x.startswith(f"- {key} "))
    assert MARK in fact, block


@pytest.mark.parametrize("key,value,line", [
    ("user/editor", "helix", "If the editor is vim, load the vim keymap."),   # a condition
    ("user/editor", "helix", "Maybe the editor is vim?"),                     # a question
    ("user/editor", "helix", "The editor on my laptop is vim."),              # another machine
    ("user/editor", "helix", "Editor: helix"),                                # the fact's own value
    ("user/editor", "helix", "Do not use vim as the editor."),                # a negation
    ("project/acme/deploy-branch", "release", "The deploy branch moves to main next month."),   # a plan
    ("project/acme/db-host", "pg.internal", "The staging DB host is db.internal."),          # another environment
    ("project/acme/db-port", "6543", "Staging DB port: 5432"),
    ("project/acme/db-host", "pg.internal", "The cache host is redis.internal."),           # another thing
    ("project/acme/deploy-branch", "release", "The linter is ruff."),
])
def test_lines_that_state_no_current_value_of_the_key_mark_nothing_either_way(mem, tmp_path, key, value, line):
    env = {"MEM_HOME": str(tmp_path / "a")}
    mem("memory", "add", "memory", line, "--project", "acme", env=env)
    time.sleep(0.05)
    mem("remember", key, value, env=env)
    assert "MAY BE OUT OF DATE" not in mem("context", "--project", "acme", env=env).stdout, line
    env = {"MEM_HOME": str(tmp_path / "b")}
    mem("remember", key, value, env=env)
    time.sleep(0.05)
    mem("memory", "add", "memory", line, "--project", "acme", env=env)
    assert "MAY BE OUT OF DATE" not in mem("context", "--project", "acme", env=env).stdout, line
