"""fresh43 F2: ``refs/queue`` replaced by a file (or one proposal's ref file deleted): ``mem fsck --repair`` set
every key, session and sealed ref again from its reflog but dropped every review-queue proposal without a word
(fsck "0 problems"), and gc then deleted the only copy.  Now fsck names each proposal whose ref is gone while its
reflog names its head, and the repair sets it again; a proposal closed by the person (accepted, rejected) stays
closed.  Real ``mem`` processes."""

from __future__ import annotations

import shutil

PERSON = {"MEM_AGENT": "0"}
AGENT = {"MEM_AGENT": "bot"}


def _queued(mem, h) -> str:
    return mem(*h, "queue").stdout


def test_a_lost_proposal_is_named_and_set_again_and_a_closed_one_stays_closed(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    mem(*h, "init")
    mem(*h, "remember", "project/api/db", "Postgres 15", env=PERSON)
    mem(*h, "remember", "project/api/db", "Oracle 19", env=AGENT)
    mem(*h, "remember", "project/api/cache", "redis 7", env=PERSON)
    mem(*h, "remember", "project/api/cache", "memcached", env=AGENT)
    closed = next(ln.split()[0] for ln in _queued(mem, h).splitlines() if "project/api/cache" in ln)
    mem(*h, "queue", "reject", closed, env=PERSON)
    assert "Oracle 19" in _queued(mem, h) and "memcached" not in _queued(mem, h)
    shutil.rmtree(home / "refs" / "queue")
    (home / "refs" / "queue").write_text("junk\n")
    out = mem(*h, "fsck", "--repair", env=PERSON).stdout
    assert "restored queue/" in out, out
    assert "Oracle 19" in _queued(mem, h) and "memcached" not in _queued(mem, h)
    mem(*h, "gc", "--prune=now", env=PERSON)
    (item,) = (home / "refs" / "queue").iterdir()
    item.unlink()   # one proposal's ref file deleted
    out = mem(*h, "fsck", exit_code=13).stdout
    assert f"ref queue/{item.name} is missing while its reflog names" in out and "not in mem queue" in out, out
    mem(*h, "fsck", "--repair", env=PERSON)
    assert "Oracle 19" in _queued(mem, h) and "ok:" in mem(*h, "fsck").stdout
