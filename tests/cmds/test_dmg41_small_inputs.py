"""fresh40 F10's small things, through real ``mem`` processes on a real
store: ``$MEM_LOCK_TIMEOUT`` follows ``--lock-timeout``'s rule (exit 2 for
a value that is not 0..3600 seconds, where ``banana``, ``-5`` and ``99999``
were taken as 10 silently); garbage lines in ``logs/audit`` are named with
their line numbers by ``mem audit``, ``mem fsck`` and ``mem doctor`` (they
were skipped silently)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("value", ["banana", "-5", "99999", "nan"])
def test_a_bad_lock_timeout_variable_is_a_usage_error(mem, value):
    r = mem("remember", "project/a/b", "c", env={"MEM_LOCK_TIMEOUT": value}, exit_code=2)
    assert "$MEM_LOCK_TIMEOUT" in r.stderr and "0 to 3600" in r.stderr, r.stderr
    mem("remember", "project/a/b", "c", env={"MEM_LOCK_TIMEOUT": "30"})


def test_garbage_in_the_audit_log_is_named_by_line(mem, store_path):
    mem("remember", "project/a/b", "c")
    with open(store_path / "logs" / "audit", "ab") as f:
        f.write(b"garbage line here\n\x01\x02\xff\n")
    r = mem("audit")
    assert "facts/project/a/b" in r.stdout
    assert "logs/audit lines 2, 3: not" in r.stderr and "damaged audit lines" in r.stderr, r.stderr
    r = mem("fsck")
    assert "warning: logs/audit lines 2, 3" in r.stdout and r.stdout.splitlines()[-1].startswith("ok:"), r.stdout
    assert "[audit] logs/audit lines 2, 3" in mem("doctor", exit_code=None).stdout
    with open(store_path / "logs" / "audit", "ab") as f:
        f.write(b"123\tcut sho")   # a last line torn by a crash: not damage
    assert "lines 2, 3:" in mem("audit").stderr


def test_an_emoji_query_is_refused_in_the_readmes_words(mem):
    mem("remember", "project/a/launch", "ship it 🚀 friday")
    r = mem("search", "🚀", exit_code=2)
    assert "emoji and punctuation are not indexed" in r.stderr, r.stderr
    assert "project/a/launch" in mem("search", "ship").stdout
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "any text as the\n  query" not in readme and "mem search 🚀` alone is\n  refused" in readme


def test_a_value_that_is_a_redaction_marker_alone_is_left_out_of_the_context(mem):
    mem("remember", "project/api/staging-password", "hunter2")   # the README's tour: stored as the marker alone
    mem("remember", "project/api/url", "https://api.example.com")
    assert mem("get", "project/api/staging-password").stdout == "[REDACTED:named-secret]\n"
    out = mem("context", "--project", "api").stdout
    assert "project/api/url" in out and "staging-password" not in out, out
