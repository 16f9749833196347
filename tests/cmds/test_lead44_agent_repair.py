"""test44 T13: an agent could run ``mem fsck --repair --drop-lost-tombstones`` (dropping the person's ``forget
--match`` text rules whose digest line was lost, then write the forgotten name itself) and ``mem fsck --repair``
making a new hash key (every hidden session id changes).  Both are the person's now: the first is refused (exit
6), the second leaves the lost key named for the person (exit 13).  Real ``mem`` processes."""

from __future__ import annotations

AGENT = {"MEM_AGENT": "claude"}
NAME = "Zephyrine Quillborough"


def test_an_agent_cannot_drop_lost_text_rules(mem, tmp_path):
    home = str(tmp_path / "s")
    mem("--home", home, "init")
    mem("--home", home, "forget", "--match", NAME, "--yes")
    (tmp_path / "s" / "tombstone-digests").unlink()
    mem("--home", home, "remember", "project/t/z", f"{NAME} leads billing", env=AGENT, exit_code=13)
    r = mem("--home", home, "fsck", "--repair", "--drop-lost-tombstones", env=AGENT, exit_code=6)
    assert "drop-lost-tombstones" in r.stderr, r.stderr
    mem("--home", home, "remember", "project/t/z", f"{NAME} leads billing", env=AGENT, exit_code=13)
    r = mem("--home", home, "fsck", "--repair", "--drop-lost-tombstones")   # the person may
    assert "a text rule whose digest line is lost" in r.stdout, r.stdout


def test_an_agent_repair_leaves_a_lost_hash_key_to_the_person(mem, tmp_path):
    home = tmp_path / "s"
    mem("--home", str(home), "init")
    mem("--home", str(home), "forget", "--match", NAME, "--yes")
    (home / "hash-key").unlink()
    r = mem("--home", str(home), "fsck", "--repair", env=AGENT, exit_code=13)
    assert "hash key is missing" in r.stdout, r.stdout
    assert not (home / "hash-key").exists()
    r = mem("--home", str(home), "fsck", "--repair")
    assert "a new one was made" in r.stdout and (home / "hash-key").exists(), r.stdout
