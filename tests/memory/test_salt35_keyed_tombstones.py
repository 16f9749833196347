"""A tombstone gives no forgotten value back (test34 T13): ``mem forget
KEY`` of a PIN kept SHA-256("2580") in the tombstone, ``mem export`` and
every remote carried it, and 10,000 tries gave the PIN back; ``forget
--match TEXT``'s ``match:`` and text tombstones alike.  Now a tombstone
holds the digest keyed with the store's hash key (``tombdigests``), which
never leaves the store, and the store still refuses the forgotten value."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from objstore.core.objects import Tombstone, value_digest
from objstore.memory.opening import open_store

REPO = Path(__file__).resolve().parents[2]


def _mem(home: Path, *args: str) -> subprocess.CompletedProcess:
    import os
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env["MEM_HOME"] = str(home)
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=300)


def _stored_digests(home: Path) -> str:
    """Every tombstone's stored digest (hex), as an object holds it."""
    with open_store(home) as s:
        return " ".join(s.get(oid, Tombstone).value_sha256.hex() for _n, oid in s.refs.iter("tombstones"))


def _pins(blob: str, template: str = "%04d") -> list[str]:
    return [p for p in (template % i for i in range(10000)) if value_digest(p).hex() in blob]


def test_a_forgotten_pin_is_not_in_its_tombstone_nor_the_export(tmp_path):
    home = tmp_path / "s"
    # (a key named for a PIN, user/garage-code, has its value withheld at the write since test38 T1)
    assert _mem(home, "remember", "user/garage", "2580").returncode == 0
    assert _mem(home, "forget", "user/garage", "--yes").returncode == 0
    assert _mem(home, "gc", "--prune=now").returncode == 0
    out = tmp_path / "e.jsonl"
    assert _mem(home, "export", "-o", str(out)).returncode == 0
    assert '"user/garage"' in out.read_text()          # the tombstone travels ...
    assert _pins(out.read_text() + _stored_digests(home)) == []     # ... and gives no PIN back
    # still forgotten here: an agent's write of the value is refused, the person's is not
    r = _mem(home, "remember", "user/garage", "2580", "--trust", "agent_observed")
    assert r.returncode == 6 and "forgotten" in r.stderr
    assert _mem(home, "remember", "user/garage", "2581", "--trust", "agent_observed").returncode == 0
    for name in ("hash-key", "tombstone-digests"):
        assert (home / name).stat().st_mode & 0o777 == 0o600


def test_a_forgotten_match_text_is_not_in_its_tombstones(tmp_path):
    home = tmp_path / "s"
    assert _mem(home, "remember", "project/acme/meet", "we meet in room 7391 on friday").returncode == 0
    r = _mem(home, "forget", "--match", "room 7391", "--yes")
    assert r.returncode == 0 and "nothing forgotten" not in r.stdout, r.stdout
    out = tmp_path / "e.jsonl"
    assert _mem(home, "export", "-o", str(out)).returncode == 0
    assert '"text"' in out.read_text()          # the text tombstone travels ...
    assert _pins(out.read_text() + _stored_digests(home), "room %04d") == []    # ... and gives nothing back
    r = _mem(home, "remember", "project/acme/other", "book room 7391 again", "--trust", "agent_observed")
    assert r.returncode == 6, r.stderr       # the forgotten text still may not come back inside a value
