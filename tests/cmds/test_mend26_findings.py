"""The session-25 tester's findings fixed in lane mend26 (test25 T14, T20,
T21): a value's CRLF line end on standard input, and a store path whose
``.mem`` is not a folder or whose parent folder does not exist."""

from __future__ import annotations

from tests.conftest import fact_chain

PERSON = {"MEM_AGENT": "0"}


def test_remember_from_stdin_drops_one_final_crlf_as_it_drops_one_lf(mem, tmp_path):
    """T20: ``printf 'value one\\r\\n' | mem remember KEY -`` wrote a second
    version ``value one\\r``; one final line end is dropped whether it is
    LF or CRLF, and only one."""
    home = str(tmp_path / "s")
    mem("--home", home, "remember", "user/s", "-", input="value one\n", env=PERSON)
    r = mem("--home", home, "remember", "user/s", "-", input="value one\r\n", env=PERSON)
    assert "unchanged" in r.stdout + r.stderr, r.stdout + r.stderr
    assert [b for _v, _f, b in fact_chain(home, "user/s")] == ["value one"]
    # every CRLF is a line end (test26b W6: a multi-line Windows file is its LF twin); only the final one goes,
    # and a lone CR stays
    mem("--home", home, "remember", "user/t", "-", input="a\r\nb\r\n\r\n", env=PERSON)
    assert fact_chain(home, "user/t")[0][2] == "a\nb\n"
    mem("--home", home, "remember", "user/g", "-", input="host: db1\nport: 5432\n", env=PERSON)
    r = mem("--home", home, "remember", "user/g", "-", input="host: db1\r\nport: 5432\r\n", env=PERSON)
    assert "unchanged" in r.stdout + r.stderr, r.stdout + r.stderr
    mem("--home", home, "remember", "user/c", "-", input="only\r", env=PERSON)
    assert fact_chain(home, "user/c")[0][2] == "only\r"
    # a value of CRLF lines at the limit is taken whole (its raw input is longer than the limit)
    mem("--home", home, "remember", "user/lines", "-", input="v\r\n" * 50_000, env=PERSON)
    assert fact_chain(home, "user/lines")[0][2] == "v\n" * 49_999 + "v"
    # at the limit (plus the CRLF it drops) the value is written; one character more is refused
    mem("--home", home, "remember", "user/big", "-", input="v" * 100_000 + "\r\n", env=PERSON)
    assert fact_chain(home, "user/big")[0][2] == "v" * 100_000
    r = mem("--home", home, "remember", "user/big2", "-", input="v" * 100_001 + "\r\n", env=PERSON, exit_code=2)
    assert "longer than 100000 characters" in r.stderr


def _tree(path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


def test_a_dot_mem_that_is_a_link_to_nothing_or_a_file_is_named_as_such(mem, tmp_path):
    """T14: a dangling ``~/.mem`` link gave "cannot use …: File exists"; a
    plain-file ``~/.mem`` sent readers to 'mem init', which then failed.
    Readers exit 10 and writers 2, each naming what the path is; nothing is
    created, not the link's target either."""
    home = tmp_path / "h"
    home.mkdir()
    env = {**PERSON, "HOME": str(home)}
    del_env = {"MEM_HOME": ""}
    (home / ".mem").symlink_to(home / "nonexistent")
    r = mem("get", "user/a", env={**env, **del_env}, exit_code=10)
    assert "is a symbolic link to" in r.stderr and "which does not exist" in r.stderr, r.stderr
    assert "remove the link" in r.stderr
    for args in (["remember", "user/a", "b"], ["init"]):
        r = mem(*args, env={**env, **del_env}, exit_code=2)
        assert "is a symbolic link to" in r.stderr and "does not create a link's target" in r.stderr, r.stderr
    assert _tree(home) == [".mem"] and not (home / "nonexistent").exists()
    (home / ".mem").unlink()
    (home / ".mem").write_text("x\n")
    r = mem("get", "user/a", env={**env, **del_env}, exit_code=10)
    assert "is a file, not a folder" in r.stderr and "mem init" not in r.stderr, r.stderr
    for args in (["remember", "user/a", "b"], ["init"]):
        r = mem(*args, env={**env, **del_env}, exit_code=2)
        assert "is a file, not a folder" in r.stderr, r.stderr
    assert _tree(home) == [".mem"] and (home / ".mem").read_text() == "x\n"


def test_a_folder_of_other_files_is_refused_without_an_init_lock_left_in_it(mem, tmp_path):
    """T14 (also): the refusal of a non-empty folder left an empty
    ``.mem-init.lock`` in the user's folder."""
    d = tmp_path / "mine"
    d.mkdir()
    (d / "notes.txt").write_text("mine\n")
    r = mem("--home", str(d), "remember", "user/a", "b", env=PERSON, exit_code=2)
    assert "not empty and is not a mem store" in r.stderr
    assert _tree(d) == ["notes.txt"]


def test_a_missing_home_folder_is_never_created(mem, tmp_path):
    """T21: ``HOME=/nonexistent/dir mem remember …`` created the whole path.
    The store's own folder is created, never a folder above it: with HOME
    or MEM_HOME under a missing folder a write exits 2 naming it and a
    hook stores nothing (exit 0); a MEM_HOME whose parent exists is made."""
    gone = tmp_path / "nonexistent" / "dir"
    r = mem("remember", "user/x", "y", env={**PERSON, "HOME": str(gone), "MEM_HOME": ""}, exit_code=2)
    assert f"{gone} does not exist" in r.stderr, r.stderr
    r = mem("remember", "user/x", "y", env={**PERSON, "MEM_HOME": str(gone / "store")}, exit_code=2)
    assert f"{gone} does not exist" in r.stderr, r.stderr
    r = mem("get", "user/x", env={"HOME": str(gone), "MEM_HOME": ""}, exit_code=10)
    assert "no mem store" in r.stderr
    hook = mem("hook", "claude-code", input='{"hook_event_name":"UserPromptSubmit","session_id":"s1",'
               '"prompt":"hello there","cwd":"/tmp"}', env={"HOME": str(gone), "MEM_HOME": ""})
    assert hook.exit_code == 0
    assert not (tmp_path / "nonexistent").exists()
    # the store's own folder is still made when its parent is there
    mem("remember", "user/x", "y", env={**PERSON, "MEM_HOME": str(tmp_path / "new")})
    assert fact_chain(tmp_path / "new", "user/x")[0][2] == "y"


def test_a_store_path_that_is_a_link_loop_is_named_as_such_not_as_damage(mem, tmp_path):
    """test26b W4: ``MEM_HOME`` a link to itself read as store damage (exit
    13, "run mem fsck --repair"), which no repair could mend.  Readers exit
    10 and writers 2, naming the loop; nothing is created; a path under a
    loop of two links is named too; a hook stores nothing and exits 0."""
    w = tmp_path / "w"
    w.mkdir()
    loop = w / "loop"
    loop.symlink_to(loop)
    for args in (["get", "user/a"], ["fsck", "--repair"], ["recall", "x"]):
        r = mem("--home", str(loop), *args, env=PERSON, exit_code=10)
        assert "is a symbolic link that loops" in r.stderr and "fsck" not in r.stderr, r.stderr
    for args in (["remember", "user/a", "b"], ["init"]):
        r = mem("--home", str(loop), *args, env=PERSON, exit_code=2)
        assert "is a symbolic link that loops" in r.stderr, r.stderr
    a = w / "a"
    a.mkdir()
    (a / "x").symlink_to(a / "y")
    (a / "y").symlink_to(a / "x")
    r = mem("--home", str(a / "x" / "s"), "get", "user/a", env=PERSON, exit_code=10)
    assert "is under a symbolic link that loops" in r.stderr, r.stderr
    mem("--home", str(loop), "hook", "claude-code", input="{}", env=PERSON)
    assert _tree(w) == ["a", "a/x", "a/y", "loop"]
