"""syn44 (test42 T24): over an unencrypted remote a ``forget --match`` text
forgotten on A reaches B as a rule B cannot read (no digest travels).  B
cannot recognize the text, so it cannot fail closed for it; what it can do
is say so truly: the pull says later capture is NOT guarded until the same
forget runs here, counted once per forget, and ``mem doctor`` and ``mem
status`` keep saying it until then.  Real ``mem`` processes, a folder
remote."""


import pytest


@pytest.mark.parametrize("keyed", [False, True])
def test_unread_text_rule_is_said_until_forgotten_here(mem, tmp_path, keyed):
    """``keyed``: B forgot something of its own first, so it holds a hash key (fresh44 F3: status was then an
    internal error and doctor's guards check "could not run")."""
    rem = tmp_path / "rem"
    rem.mkdir()
    a, b = {"MEM_HOME": str(tmp_path / "a")}, {"MEM_HOME": str(tmp_path / "b")}
    mem("init", env=a)
    mem("remember", "project/x/port", "the api port is 8080", env=a)
    mem("remote", "add", "origin", str(rem), "--no-encrypt", env=a)
    mem("push", env=a)
    mem("clone", str(rem), env=b)
    if keyed:
        mem("remember", "project/u/z", "temp value here", env=b)
        mem("forget", "project/u/z", "--yes", env=b)
        assert (tmp_path / "b" / "hash-key").exists()
    mem("forget", "--match", "Ottoline Vandersnatch", "--yes", env=a)
    mem("push", env=a)
    out = mem("pull", env=b).stdout
    assert "1 'forget --match' text forgotten elsewhere that this store cannot read" in out, out
    assert "from now on that holds it is NOT guarded" in out and "'mem forget --match TEXT' here" in out
    doc = mem("doctor", env=b, exit_code=None).stdout
    assert "[tombstones] 1 'forget --match' text forgotten on another machine that this store cannot read" in doc
    assert "stored in the clear until you run the same 'mem forget --match TEXT' here" in doc
    assert "forgotten on another machine" in mem("status", env=b).stderr
    assert "forgotten on another machine" in mem("status", env=b).stderr   # (said again: not once)
    mem("forget", "--match", "Ottoline Vandersnatch", "--yes", env=b)
    assert "forgotten on another machine" not in mem("doctor", env=b, exit_code=None).stdout
    assert "forgotten on another machine" not in mem("status", env=b).stderr
    assert "forgotten on another machine" not in mem("doctor", env=a, exit_code=None).stdout
