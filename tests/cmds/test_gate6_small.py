"""gate6: small findings, each reproduced first with real ``mem`` processes."""

from __future__ import annotations

import json


def test_search_and_recall_agree_on_a_query_with_no_searchable_word(mem):
    """'mem search "!!!"' exited 0 (no hits) where 'mem recall "!!!"' exits 2:
    both refuse it with the same message; a query with a word still searches."""
    mem("remember", "user/a", "hello world")
    for q in ("!!!", '"', "..."):
        s = mem("search", q, exit_code=2)
        r = mem("recall", q, exit_code=2)
        assert "no searchable word" in s.stderr and "no searchable word" in r.stderr
        assert s.stderr.splitlines()[0] == r.stderr.splitlines()[0]
    mem("search", "!!!", "--json", exit_code=2)
    hits = mem("search", "!!! hello", "--json").json
    assert [h["key"] for h in hits] == ["user/a"]
    # scan for punctuation alone still scans the objects (the index can hold no such term)
    r = mem("scan", "!!!", "--json", exit_code=None)
    assert r.exit_code in (0, 1) and "not searchable" not in r.stdout


def test_a_bad_trust_or_kind_word_is_shown_with_the_allowed_values(mem):
    """'--trust agentobserved' was reported as '<value hidden>': a mistyped
    choice is a word, shown with the choices; text given to a choice option
    (perhaps a value meant for TEXT) stays hidden."""
    for args, bad, allowed in ((("--trust", "agentobserved"), "agentobserved", "'agent_observed'"),
                               (("--trust=user-stated",), "user-stated", "'user_stated'"),
                               (("--kind", "feedbacks"), "feedbacks", "'feedback'"),
                               (("--sensitivity", "secrets"), "secrets", "'secret'")):
        r = mem("remember", "user/y", "value", *args, exit_code=2)
        assert f"'{bad}' is not one of" in r.stderr and allowed in r.stderr and "hidden" not in r.stderr, r.stderr
    r = mem("remember", "user/y", "--trust", "hunter2 is my password", "v", exit_code=2)
    assert "hunter2" not in r.stderr and "<value hidden>" in r.stderr


def test_fsck_repair_of_a_config_gives_one_summary(mem):
    """'mem fsck --repair' printed 'repaired: config was missing …' and then
    'repair: nothing to repair': one consistent summary now."""
    import os
    from pathlib import Path
    mem("remember", "user/a", "hello world")
    cfg = Path(os.environ["MEM_HOME"]) / "config"
    cfg.unlink()
    r = mem("fsck", "--repair")
    lines = r.stdout.splitlines()
    assert lines[0] == "repair: config was missing: wrote the default one", r.stdout
    assert "nothing to repair" not in r.stdout and lines[-1].startswith("ok: ")
    cfg.write_bytes(b"garbage")
    doc = mem("fsck", "--repair", "--json").json
    assert doc["ok"] and doc["repair"]["config"].startswith("config was damaged")
    r = mem("fsck", "--repair")   # now there is nothing: said once
    assert r.stdout.splitlines()[0] == "repair: nothing to repair" and r.stdout.count("repair:") == 1
    assert mem("get", "user/a").stdout.strip() == "hello world"


def test_a_global_option_after_the_command_says_where_it_goes(mem, tmp_path):
    """'mem clone URL --home DIR' said "No such option '--home'" (did you mean
    --help?): it now says --home is mem's own and goes before the command;
    before the command it works as ever."""
    src = tmp_path / "remote"
    dest = tmp_path / "cloned"
    for args, cmd, shown in ((("clone", str(src), "--home", str(dest)), "clone", "mem --home DIR clone"),
                             (("restore", str(src), f"--home={dest}"), "restore", "mem --home DIR restore"),
                             (("get", "user/x", "--lock-timeout", "3"), "get", "mem --lock-timeout SECONDS get"),
                             (("log", "user/x", "--ascii"), "log", "mem --ascii log")):
        r = mem(*args, exit_code=2)
        assert f"is an option of mem itself, not of '{cmd}': put it before the command" in r.stderr, r.stderr
        assert shown in r.stderr and "Did you mean" not in r.stderr
    assert not dest.exists()
    r = mem("clone", str(src), "--home", str(dest), "--json", exit_code=2)
    assert "put it before the command" in json.loads(r.stderr)["message"]
    assert "No such option '--homer'" in mem("clone", str(src), "--homer", exit_code=2).stderr
    mem("remember", "user/x", "v")
    assert mem("--lock-timeout", "3", "get", "user/x").stdout.strip() == "v"


def test_a_bad_time_is_hidden_whatever_its_length(mem):
    """test39 m6: '--valid-from 99999-01-01' was echoed as '<value hidden>'
    but '--valid-from @-5' as '@-5' (only arguments of 6+ characters were
    hidden): an option's value click quotes is hidden, short or long, in
    both spellings; a mistyped choice word is still shown."""
    for args in (("--valid-from", "99999-01-01"), ("--valid-from", "@-5"), ("--valid-from=@-5",),
                 ("--valid-from", "4821")):
        r = mem("remember", "user/y", "value", *args, exit_code=2)
        assert "'<value hidden>' is not a time" in r.stderr and "@-5" not in r.stderr and "4821" not in r.stderr, r.stderr
    r = mem("remember", "user/y", "value", "--trust", "agentobserved", exit_code=2)
    assert "'agentobserved' is not one of" in r.stderr, r.stderr
