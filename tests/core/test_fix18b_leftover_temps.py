"""Lane fix18b (tester finding U2): a writer killed -9 while it wrote a pack
leaves ``objects/pack/tmp-pack-<pid>-<n>`` holding its turns.  ``mem scan``
reads its objects (place ``temp file``), ``mem fsck`` and ``mem doctor``
name it with its size, and ``mem forget --match`` deletes it (under the
store lock every writer holds) — before, only a gc did, and scan said
"found nowhere".  A real child process writes the pack through the real
``PackWriter`` under the store lock and is killed -9; real ``mem``
processes check.  Also: ``salvage_pack(trailer=False)`` reads such a
file's last block, which the trailer-less end used to cut off."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

from objstore.core.salvage import salvage_pack
from tests.hooks._util import REPO

SECRET = "quillfeather lantern 7731"

_CHILD = textwrap.dedent('''
    import os, signal, sys
    from objstore.core.codec import encode
    from objstore.core.objects import Turn
    from objstore.core.packwriter import PackWriter
    from objstore.memory.opening import open_store
    store = open_store(sys.argv[1])
    with store.lock("import"):
        w = PackWriter(store.root / "objects" / "pack")
        i = 0
        while True:
            text = sys.argv[2] if i == 3 else f"filler turn {i} " + os.urandom(40).hex()
            w.add(encode(Turn(session="5d1e6f0a-0000-4000-8000-00000000aa01", seq=i, role="user", text=text,
                              timestamp=1772000000000 + i, harness="claude-code", cwd="/w", project="p",
                              source=f"cc:{i}", parent=None)))
            i += 1
            tmp = [p for p in os.listdir(store.root / "objects" / "pack") if p.startswith("tmp-pack-")]
            if i > 3 and tmp and os.path.getsize(store.root / "objects" / "pack" / tmp[0]) > 300_000:
                os.kill(os.getpid(), signal.SIGKILL)
''')


def _killed_writer(store_path) -> list:
    r = subprocess.run([sys.executable, "-c", _CHILD, str(store_path), SECRET], cwd=REPO, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(REPO)})
    assert r.returncode == -signal.SIGKILL, r
    temps = sorted((store_path / "objects" / "pack").glob("tmp-pack-*"))
    assert temps, "the killed writer left no temp pack"
    return temps


def test_scan_fsck_doctor_see_a_killed_writers_temp_pack_and_forget_deletes_it(mem, store_path):
    mem("init")
    mem("remember", "project/p/db", "postgres 16")
    temps = _killed_writer(store_path)
    assert any(SECRET in f.decode("utf-8", "replace") for t in temps for _o, f in salvage_pack(t, trailer=False))

    r = mem("scan", SECRET.upper(), "--no-remotes", "--json", exit_code=1)   # matched as forget matches
    hits = json.loads(r.stdout)
    assert [h["place"] for h in hits] == ["temp file"] and hits[0]["where"] == str(temps[0]), hits
    assert "turn 5d1e6f0a-0000-4000-8000-00000000aa01 #3" in hits[0]["detail"]

    r = mem("fsck")
    name = str(temps[0].relative_to(store_path))
    assert "warning: a temp file left by an interrupted write: " + name in r.stdout, r.stdout
    assert f"({temps[0].stat().st_size:,} bytes)" in r.stdout
    r = mem("doctor", "--json", exit_code=None)
    assert any(f["check"] == "temps" and name in f["message"] for f in json.loads(r.stdout)["findings"]), r.stdout

    r = mem("forget", "--match", SECRET, "--yes")
    assert "nothing matches" in r.stdout and "deleted 1 temp file an interrupted write left" in r.stderr, r
    assert not list((store_path / "objects" / "pack").glob("tmp-pack-*"))
    mem("scan", SECRET, "--no-remotes", exit_code=0)
    assert "temp file" not in mem("fsck").stdout
    assert mem("get", "project/p/db").stdout.strip().endswith("postgres 16")   # nothing else touched


def test_a_forget_that_removes_something_deletes_the_temp_files_too(mem, store_path):
    mem("init")
    mem("remember", "project/p/note", f"the word is {SECRET}")
    temps = _killed_writer(store_path)
    r = mem("forget", "--match", SECRET, "--yes", "--json")
    doc = json.loads(r.stdout)
    assert doc["forgotten"] and doc["temps_deleted"] == [str(t.relative_to(store_path)) for t in temps], doc
    mem("scan", SECRET, "--no-remotes", exit_code=0)


def test_a_running_writers_temp_pack_is_not_called_stale(mem, store_path, tmp_path):
    """While a live process holds the store lock, a temp pack whose pid runs is its own: fsck says nothing."""
    mem("init")
    pack = store_path / "objects" / "pack"
    pack.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f'''
        import sys, time
        from objstore.memory.opening import open_store
        s = open_store({str(store_path)!r})
        with s.lock("import"):
            open({str(pack / "tmp-pack-")!r} + str(__import__("os").getpid()) + "-0", "wb").write(b"MPAK")
            print("held", flush=True)
            time.sleep(60)
    ''')], cwd=REPO, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert holder.stdout.readline().strip() == "held"
        (pack / "tmp-pack-999999999-0").write_bytes(b"MPAK dead writer")   # no such pid: stale
        out = mem("fsck").stdout
        assert "tmp-pack-999999999-0" in out and f"tmp-pack-{holder.pid}-0" not in out, out
    finally:
        holder.kill()
        holder.wait(10)
    out = mem("fsck").stdout     # nobody holds the lock now: both are leftovers
    assert "2 temp files left by interrupted writes" in out and f"tmp-pack-{holder.pid}-0" in out, out
