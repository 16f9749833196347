"""syn44 (test42 T23): the person's "remember that …" holding a ``forget
--match`` text is not stored (its turn is kept with the text withheld) and
the prompt hook says so, as its other refusals do, instead of dropping it
without a word.  Real ``mem`` and ``mem hook claude-code`` processes."""

import subprocess
import sys

from tests.hooks._util import REPO, hook_env
from tests.hooks.test_remember_asked import _Session


def test_remember_that_holding_a_forgotten_text_is_refused_in_words(tmp_path):
    s = _Session(tmp_path)
    p = subprocess.run([sys.executable, "-m", "cmds", "forget", "--match", "Zephyrine Quillborough", "--yes"],
                       env=hook_env(s.store), cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    said = s.prompt("remember that Zephyrine Quillborough owns the billing service on port 8080")
    assert "Not stored, though asked: it holds a text you forgot (mem forget --match)" in said
    assert "mem remember KEY VALUE" in said
    assert "Quillborough" not in said and "Zephyrine" not in said
    keys = subprocess.run([sys.executable, "-m", "cmds", "keys"], env=hook_env(s.store), cwd=REPO,
                          capture_output=True, text=True, timeout=120).stdout
    assert "Quillborough" not in keys
    assert "Remembered as you asked" in s.prompt("remember that the cache host is redis-9")
