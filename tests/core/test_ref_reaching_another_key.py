"""A fact ref whose history reaches another key's versions (test31b V1):
``refs/facts/A`` copied from B's, then a write an older mem made on top of
it (A's v3 whose parent is B's v2).  ``mem log A`` showed B's values as
A's history and ``fsck --repair`` said "nothing to repair" while fsck
stayed CORRUPT.  Now every reader and writer of A refuses the history
(exit 13) and ``--repair`` puts A's own newer version back on A's own last
one: no value is lost, B's stay B's.  Real ``mem`` processes."""

from __future__ import annotations

import os

from objstore.core.objects import Fact
from objstore.core.store import Store


def _damaged(mem) -> None:
    for v in (1, 2):
        mem("remember", "project/api/db", f"db pg-{v}")
        mem("remember", "project/api/other", f"other zz-{v}")
    s = Store.open(os.environ["MEM_HOME"])
    try:
        with s.lock("test: an older mem's write on another key's chain"):
            db, other = s.refs.read("facts/project/api/db"), s.refs.read("facts/project/api/other")
            bad = s.put(s.get(db, Fact).replace(body="db pg-3", version=3, parent=other))
            s.update_ref("facts/project/api/db", db, bad, "remember")
    finally:
        s.close()


def test_a_history_reaching_another_key_is_refused_then_put_back_on_its_own(mem):
    _damaged(mem)
    for args in (("log", "project/api/db"), ("remember", "project/api/db", "db pg-4")):
        r = mem(*args, exit_code=13)
        assert "other zz" not in r.stdout and "another key (project/api/other)" in r.stderr, r
    assert "belongs to key 'project/api/other'" in mem("fsck", exit_code=13).stdout
    r = mem("fsck", "--repair")
    assert "facts/project/api/db reached the versions of another key (project/api/other)" in r.stdout, r.stdout
    log = mem("log", "project/api/db").stdout
    assert [ln.strip() for ln in log.splitlines() if ln.startswith("    ")] == ["db pg-3", "db pg-2", "db pg-1"], log
    assert mem("get", "project/api/other").stdout == "other zz-2\n"
    assert mem("fsck").stdout.startswith("ok:")
    mem("remember", "project/api/db", "db pg-4")
    assert mem("get", "project/api/db").stdout == "db pg-4\n"


def test_a_ref_naming_another_keys_version_is_set_to_its_own_last_one(mem):
    for v in (1, 2):
        mem("remember", "project/api/db", f"db pg-{v}")
        mem("remember", "project/api/other", f"other zz-{v}")
    home = os.environ["MEM_HOME"]
    d = os.path.join(home, "refs", "facts", "project", "api")
    with open(os.path.join(d, "other")) as src, open(os.path.join(d, "db"), "w") as dst:
        dst.write(src.read())
    mem("get", "project/api/db", exit_code=13)
    r = mem("fsck", "--repair")
    assert "set to its own last version" in r.stdout, r.stdout
    assert mem("get", "project/api/db").stdout == "db pg-2\n"
