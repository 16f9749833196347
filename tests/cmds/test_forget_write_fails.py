"""test34 T8: a forget stopped by a file size limit says what state it left,
with real ``mem`` processes under ``RLIMIT_FSIZE`` (Python ignores SIGXFSZ:
the write fails with EFBIG)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

from tests.hooks._util import REPO, hook_env


def _env(**extra) -> dict:
    return hook_env(Path(extra.pop("MEM_HOME")), PYTHONPATH=str(REPO), MEM_NO_HELPER="1", **extra)


def _mem(*args, cwd, env, limit=None):
    def cap():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120, preexec_fn=cap if limit else None)


def test_a_forget_stopped_by_a_file_size_limit_says_it_is_unfinished_and_the_next_write_finishes_it(tmp_path):
    env = _env(MEM_HOME=str(tmp_path / "s"), PYTHONDONTWRITEBYTECODE="1")
    for i in range(30):   # one pack larger than the limit: deleting a key's object rewrites it
        assert _mem("remember", f"project/k/key{i}", f"value {i} " + os.urandom(200).hex(), cwd=tmp_path,
                    env=env).returncode == 0
    assert _mem("gc", "--prune=now", cwd=tmp_path, env=env).returncode == 0
    r = _mem("forget", "project/k/key5", "--yes", cwd=tmp_path, env=env, limit=4096)
    assert r.returncode == 1, r.stderr
    assert "nothing already stored was lost" not in r.stderr and "internal error" not in r.stderr
    assert "stopped part way" in r.stderr and "after it wrote all its tombstones" in r.stderr, r.stderr
    assert "the next mem command that writes" in r.stderr
    assert _mem("get", "project/k/key5", cwd=tmp_path, env=env).returncode == 4   # its ref went
    # the next write finishes it: the value is in no object of the store
    assert _mem("remember", "project/k/other", "x", cwd=tmp_path, env=env).returncode == 0
    r = _mem("scan", "value 5 ", cwd=tmp_path, env=env)
    assert "object" not in r.stdout, r.stdout
    assert _mem("fsck", cwd=tmp_path, env=env).returncode == 0
