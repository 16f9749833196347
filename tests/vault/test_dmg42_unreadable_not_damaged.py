"""fresh41 F7: a store file this user may not read (``chmod 000``
hash-key, seal-rules, vault/identity.age) was called "damaged", exit 13,
with advice to replace it or move it away (for seal-rules, moving it lets
later writes store a sealed value in the clear), and fsck said CORRUPT.
Now a command that needs it gives the documented permission error (exit 1,
``permission denied PATH``), fsck warns that it is unreadable, no damage,
with ``chmod`` as the fix (exit 0), and doctor names it.  As root a mode
never refuses a read, so the commands run without ``CAP_DAC_OVERRIDE``
(``setpriv``).  Real ``mem`` processes on a real store."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NO_DAC = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search",
          "--inh-caps", "-dac_override,-dac_read_search"]


def _prefix() -> list[str]:
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root reads every file and setpriv is missing: an unreadable file cannot be made")
    return NO_DAC


@pytest.mark.parametrize("rel", ["hash-key", "seal-rules", "vault/identity.age"])
def test_an_unreadable_store_file_is_a_permission_not_damage(mem, tmp_path, rel):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    env = {"MEM_AGENT": "0"}
    mem(*h, "vault", "init", "--passphrase-file", str(pp), env=env)
    mem(*h, "remember", "user/pin", "okapi-quetzal-5521", "--sensitivity", "secret", env=env)
    mem(*h, "remember", "project/api/a", "one", env=env)
    mem(*h, "remember", "project/api/b", "two", env=env)
    mem(*h, "forget", "project/api/a", "--yes", env=env)   # (makes the hash key)
    pre = _prefix()
    e = {**os.environ, "PYTHONPATH": REPO, "MEM_AGENT": "0"}

    def run(*args):
        return subprocess.run([*pre, sys.executable, "-m", "cmds", *h, *args], capture_output=True, text=True,
                              env=e, cwd=REPO, timeout=120)

    p = home / rel
    os.chmod(p, 0)
    try:
        need = {"hash-key": ("forget", "project/api/b", "--yes"),
                "seal-rules": ("remember", "project/api/c", "three"),
                "vault/identity.age": ("sealed", "show", "user/pin", "--passphrase-file", str(pp))}[rel]
        r = run(*need)
        assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
        assert f"permission denied {p}" in r.stderr, r.stderr
        assert "damaged" not in r.stderr and " mv " not in r.stderr and "put back" not in r.stderr, r.stderr
        r = run("fsck")
        assert r.returncode == 0, (r.stdout, r.stderr)
        assert f"warning: {rel} cannot be read by this user (permission denied)" in r.stdout, r.stdout
        assert f"chmod u+rw {p}" in r.stdout and "CORRUPT" not in r.stdout and "damaged" not in r.stdout, r.stdout
        r = run("doctor")
        assert f"{rel} cannot be read by this user" in r.stdout, r.stdout
    finally:
        os.chmod(p, 0o600)
    r = run(*need)
    assert r.returncode == 0, r.stderr
    assert mem(*h, "fsck", env=env).stdout.startswith("ok:")
