"""Session 21 (imk21, tester finding W8): a ``mem import`` killed -9 while it
wrote its sub-agent summaries left a stored first version of a summary key
that no ref named, and ``mem fsck`` reported ``ref facts/…/summary/<sid>:
missing, while 1 of its versions are stored`` (exit 13) until a re-import
and a gc.  The batch now keeps its loose summary objects until its flush and
writes an ``N`` journal line for each new ref before any of them can be read
(``IndexBatch.flush``): killed before that, nothing is readable; killed
between the objects and the refs, ``mem fsck`` warns (exit 0) and the next
write sets those refs (``objstore.memory.recovery``).

A real ``mem import`` (the console entry, in a child process) kills itself
with SIGKILL at a fixed point, so the test does not depend on timing; real
``mem`` processes check what it left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import REPO, gen_corpus

# ``mem import claude-code DIR``, SIGKILLed by itself at one point of its rollups' flush
_KILLED_IMPORT = textwrap.dedent('''
    import os, signal, sys
    where, corpus, pack = sys.argv[1], sys.argv[2], sys.argv[3] == "pack"
    if pack:                 # the summaries written into one pack, as an import of 32 sub-agents or more does
        from objstore.capture import rollup
        rollup.PACK_ROLLUPS_AT = 1
    def die():
        os.kill(os.getpid(), signal.SIGKILL)
    if where == "refs":      # the summaries' objects are stored, their refs not yet set
        from objstore.core.store import Store
        moved = Store.update_refs
        def update_refs(self, moves, *a, **k):
            if any(ref.startswith("facts/") for ref, _old, _new in moves):
                die()
            return moved(self, moves, *a, **k)
        Store.update_refs = update_refs
    else:                    # "flush": the rollups are written, their flush not begun
        from objstore.memory.indexbatch import IndexBatch
        flush = IndexBatch.flush
        def at_flush(self):
            if self._moves:
                die()
            return flush(self)
        IndexBatch.flush = at_flush
    from cmds.entry import entry
    sys.argv = ["mem", "import", "claude-code", corpus]
    entry()
''')


def _summary_keys(mem) -> set[str]:
    return {k["key"] for k in mem("keys", "--json").json if "/summary/" in k["key"]}


@pytest.fixture
def corpus(tmp_path):
    return gen_corpus(tmp_path / "projects", "--sessions", "3", "--turns", "60", "--subagent-share", "0.5",
                      "--seed", "7")


def _killed_import(where: str, corpus, mode: str) -> None:
    r = subprocess.run([sys.executable, "-c", _KILLED_IMPORT, where, str(corpus), mode], cwd=REPO, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True)
    assert r.returncode == -signal.SIGKILL, r.stderr[-2000:]


@pytest.mark.parametrize("mode", ["loose", "pack"])
def test_killed_between_summary_objects_and_refs_is_a_warning_the_next_write_finishes(mem, store_path, corpus,
                                                                                      tmp_path, mode):
    mem("init")
    _killed_import("refs", corpus, mode)
    assert _summary_keys(mem) == set()                      # not visible: their refs never moved
    r = mem("fsck", exit_code=None)
    assert r.exit_code == 0, r.stdout                        # was exit 13: "missing, while 1 of its versions"
    assert "not set yet" in r.stdout and "missing, while" not in r.stdout
    mem("remember", "project/p/db", "postgres 16")          # any write: the replay sets them
    keys = _summary_keys(mem)
    # what a whole import of the same corpus writes
    mem("init", env={"MEM_HOME": str(tmp_path / "whole")})
    mem("import", "claude-code", str(corpus), env={"MEM_HOME": str(tmp_path / "whole")})
    whole = {k["key"] for k in mem("keys", "--json", env={"MEM_HOME": str(tmp_path / "whole")}).json
             if "/summary/" in k["key"]}
    assert whole and keys == whole
    key = sorted(keys)[0]
    assert "recovery: set for a writer stopped" in mem("reflog", key).stdout
    assert mem("get", key).stdout.strip()
    assert mem("fsck").stdout.startswith("ok:")
    # the import run again finds them written: no second version
    mem("import", "claude-code", str(corpus))
    assert {k["key"]: k["versions"] for k in mem("keys", "--json").json if "/summary/" in k["key"]} \
        == dict.fromkeys(whole, 1)
    assert mem("fsck").stdout.startswith("ok:")


def test_killed_before_the_summaries_flush_leaves_nothing_readable(mem, store_path, corpus):
    mem("init")
    _killed_import("flush", corpus, "loose")
    r = mem("fsck", exit_code=None)
    assert r.exit_code == 0 and "missing, while" not in r.stdout and "not set yet" not in r.stdout, r.stdout
    mem("import", "claude-code", str(corpus))
    assert _summary_keys(mem) and mem("fsck").stdout.startswith("ok:")
