"""syn44 (sid43's left-out): a session pulled from a remote whose id holds
a ``forget --match`` text of this store is kept under that id (a pull
renames no session, as a forget renames none stored before it): the pull
says so and names the way out, instead of nothing.  Real ``mem``
processes, a folder remote."""

from tests.capture.test_sid43_hidden_session_ids import NAME, _transcript
from tests.capture.test_txt42_text_rule_at_capture import _mem
from tests.hooks._util import hook_env


def test_pull_says_a_pulled_session_id_holds_a_forgotten_text(tmp_path):
    rem = tmp_path / "rem"
    rem.mkdir()
    a = {k: v for k, v in hook_env(tmp_path / "a").items() if k != "MEM_AGENT"}
    b = {**a, "MEM_HOME": str(tmp_path / "b")}
    _mem(a, "init")
    folder = tmp_path / "w" / "app"
    t = _transcript(folder, "zephyrine-quillborough-77", str(folder))
    _mem(a, "import", "claude-code", str(t))
    _mem(a, "remote", "add", "origin", str(rem), "--no-encrypt")
    _mem(a, "push")
    _mem(b, "init")
    _mem(b, "forget", "--match", NAME, "--yes")
    _mem(b, "remote", "add", "origin", str(rem), "--no-encrypt")
    r = _mem(b, "pull")
    assert "1 session pulled whose id holds a text 'mem forget --match' forgot here: kept under that id" in r.stderr, \
        r.stdout + r.stderr
    assert "'mem forget --session ID' forgets one whole" in r.stderr
    assert "whose id holds" not in _mem(b, "pull").stderr   # said of what this pull brought
