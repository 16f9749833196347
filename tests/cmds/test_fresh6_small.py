"""fresh6-attack 26: small message and input-validation findings."""

from __future__ import annotations

import socket

from cmds._out import plural

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}


def test_reading_a_version_with_get_points_to_show(mem, tmp_path):
    home = ["--home", str(tmp_path / "s")]
    mem(*home, "remember", "user/editor", "vim", env=PERSON)
    r = mem(*home, "get", "user/editor@v1", exit_code=2)
    assert "mem show KEY@vN" in r.stderr
    assert "vim" in mem(*home, "show", "user/editor@v1").stdout


def test_a_nan_lock_timeout_is_refused(mem, tmp_path):
    home = ["--home", str(tmp_path / "s")]
    r = mem(*home, "--lock-timeout", "nan", "remember", "user/t", "x", env=PERSON, exit_code=2)
    assert "nan" in r.stderr
    assert mem(*home, "get", "user/t", exit_code=None).exit_code in (4, 10)


def test_plural_of_entry():
    assert plural(2, "entry") == "2 entries"
    assert plural(1, "entry") == "1 entry"
    assert plural(2, "key") == "2 keys"
    assert plural(3, "day") == "3 days"


def test_proxy_health_says_when_none_answers(mem):
    with socket.socket() as s:      # a port nothing listens on: bound, not listening, until the check is done
        s.bind(("127.0.0.1", 0))    # (closed first, another process could take it meanwhile)
        port = s.getsockname()[1]
        r = mem("proxy", "health", "--url", f"http://127.0.0.1:{port}", "--timeout", "1", exit_code=1)
    assert "no mem proxy answers" in r.stderr
