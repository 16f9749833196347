"""test29 P9: with a damaged search index the prompt hook still fails open
(exit 0, nothing injected) but now says so in ``logs/hooks.log``, one
``IndexCorruptError:context`` line, as for an error it raises; and
``mem search`` names the file and ``mem reindex`` without quoting the
damaged ``meta.json`` (~6 KB before).  Real processes, real files."""

from __future__ import annotations

import subprocess
import sys

from tests.hooks._util import REPO, hook_env, hook_log, payload, run_hook


def test_a_damaged_index_is_logged_by_the_prompt_hook_and_not_quoted_by_search(tmp_path):
    store = tmp_path / "s"
    env = hook_env(store, MEM_NO_HELPER="1")

    def mem(*args, rc=0):
        p = subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, env=env,
                           cwd=REPO, timeout=120)
        assert p.returncode == rc, p.stderr
        return p

    mem("remember", "project/shop/db", "The shop database is on port 5432")
    mem("search", "shop")
    metas = list((store / "index").rglob("meta.json"))
    assert metas
    for m in metas:
        b = bytearray(m.read_bytes())
        b[20:34] = b"GARBAGEGARBAGE"
        m.write_bytes(bytes(b))
    rc, out, err, _s = run_hook(store, payload("UserPromptSubmit", "a4444444-0000-0000-0000-000000000001", None,
                                               prompt="which port does the shop database use?",
                                               cwd="/home/dev/shop"), env=env)
    assert rc == 0 and "5432" not in out, (out, err)
    assert "UserPromptSubmit a4444444-0000-0000-0000-000000000001 IndexCorruptError:context" in hook_log(store)
    r = mem("search", "shop", rc=13)
    assert "cannot open index" in r.stderr and "mem reindex" in r.stderr
    assert "index_settings" not in r.stderr and len(r.stderr) < 1000, r.stderr
