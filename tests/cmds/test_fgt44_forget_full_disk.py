"""fresh43 F16: a forget stopped by a full disk could leave tombstones (the
text rules it writes before its own step 1) with no "unfinished" note:
fsck ok, status silent, the hint "nothing already stored was lost", and a
push sending the half-forget on.  The note is now written before the first
of them.  Real ``mem`` processes on a real 1 MiB tmpfs filled to a few
KiB free (skipped where this runner may not mount one)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hooks._util import REPO, hook_env, line, user

SID = "dddddddd-0000-4000-8000-00000000f016"


def _mem(*args, home: Path, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = hook_env(home, PYTHONPATH=str(REPO), MEM_NO_HELPER="1", MEM_HOOK_FORK="0", PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, cwd=cwd, env=env,
                          input=stdin, timeout=120)


@pytest.fixture
def tmpfs(tmp_path):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)],
                                           capture_output=True).returncode != 0:
        pytest.skip("this runner may not mount a tmpfs")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_forget_stopped_by_a_full_disk_among_its_rules_is_noted_unfinished(tmp_path, tmpfs):
    seed = tmp_path / "seed"
    for i in (1, 2, 3):
        assert _mem("remember", "project/df/k", f"the df value is wolverine-77{i}", home=seed,
                    cwd=tmp_path).returncode == 0
    acme = tmp_path / "acme"   # a turn quoting the value (imported: a hook may run out of its budget here)
    acme.mkdir()
    (acme / "t.jsonl").write_bytes(line(user("u0", "please use the df value is wolverine-773 here", SID,
                                             cwd=str(acme))))
    assert _mem("import", "claude-code", str(acme / "t.jsonl"), home=seed, cwd=tmp_path).returncode == 0
    assert "withhold the value in 1 turn" in _mem("forget", "project/df/k", "--dry-run", home=seed,
                                                 cwd=tmp_path).stdout
    home, seen = tmpfs / "s", []
    for free_kib in range(20, 76, 4):   # where the space runs out moves with it
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(seed, home)
        room = shutil.disk_usage(tmpfs).free - free_kib * 1024
        filler = tmpfs / "filler"
        if room > 0:
            with open(filler, "wb") as f:
                f.write(b"\0" * room)
        r = _mem("forget", "project/df/k", "--yes", home=home, cwd=tmp_path)
        filler.unlink(missing_ok=True)
        if r.returncode == 0:
            continue
        tombs = [p for p in (home / "refs" / "tombstones").rglob("*") if p.is_file() and p.suffix != ".lock"]
        notes = list((home / "forget-unfinished").glob("*")) if (home / "forget-unfinished").is_dir() else []
        assert "nothing already stored was lost" not in r.stderr and "internal error" not in r.stderr, r.stderr
        if not tombs:
            continue
        seen.append(free_kib)
        assert notes, (free_kib, len(tombs), r.stderr)   # a tombstone never without its note
        assert "stopped part way" in r.stderr and "mem forget project/df/k --yes" in r.stderr, r.stderr
        f = _mem("fsck", home=home, cwd=tmp_path)
        assert f.returncode != 0 and "UNFINISHED" in f.stdout + f.stderr, (f.stdout, f.stderr)
        assert "mem forget project/df/k --yes" in _mem("status", home=home, cwd=tmp_path).stdout
        # the rerun it names finishes it
        assert _mem("forget", "project/df/k", "--yes", home=home, cwd=tmp_path).returncode == 0
        assert _mem("fsck", home=home, cwd=tmp_path).returncode == 0
        assert _mem("get", "project/df/k", home=home, cwd=tmp_path).returncode == 4
        if len(seen) == 2:
            break
    assert seen, "no free-space level stopped the forget after a tombstone"
