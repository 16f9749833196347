"""The fresh tester's session-9 findings (lane rob9): input limits, the
vault without a terminal, and a missing store for readers and writers."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO

PERSON = {"MEM_AGENT": "0"}


def _mem_with_stdin(home, args, stdin_file):
    """Run mem with ``stdin_file`` (an open file) as standard input; returns
    (the process, how far it read the file: the shared offset)."""
    p = subprocess.run([sys.executable, "-m", "cmds", "--home", str(home), *args], stdin=stdin_file,
                       capture_output=True, text=True, cwd=REPO, env={**os.environ, **PERSON}, timeout=60)
    return p, os.lseek(stdin_file.fileno(), 0, os.SEEK_CUR)


def test_remember_refuses_an_oversized_standard_input_without_reading_it_all(tmp_path):
    """A 200 MB value on stdin was read whole (~400 MB of memory) before the
    100,000-character limit refused it; now the read stops past the limit."""
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(20 << 20)           # 20 MB of NUL characters (sparse: no disk cost)
    with open(big, "rb") as f:
        p, read = _mem_with_stdin(tmp_path / "s", ["remember", "project/x/big", "-"], f)
    assert p.returncode == 2, p.stderr
    assert "longer than 100000 characters" in p.stderr
    assert read < 1 << 20, f"read {read} bytes of a 20 MB input"
    # at the limit (plus the final newline it drops) the value is written
    ok = tmp_path / "ok.txt"
    ok.write_text("v" * 100_000 + "\n")
    with open(ok, "rb") as f:
        p, _ = _mem_with_stdin(tmp_path / "s", ["remember", "project/x/ok", "-"], f)
    assert p.returncode == 0, p.stderr
    got = subprocess.run([sys.executable, "-m", "cmds", "--home", str(tmp_path / "s"), "get", "project/x/ok"],
                         capture_output=True, text=True, cwd=REPO, timeout=60)
    assert got.stdout.rstrip("\n") == "v" * 100_000


def test_vault_init_without_a_terminal_names_passphrase_file(mem, tmp_path):
    r = mem("--home", str(tmp_path / "s"), "vault", "init", input="", env=PERSON, exit_code=2)
    assert "--passphrase-file is required" in r.stderr
    assert not (tmp_path / "s" / "vault").exists()
    pw = tmp_path / "pw"
    pw.write_text("a long enough passphrase\n")
    mem("--home", str(tmp_path / "s"), "vault", "init", "--passphrase-file", str(pw), env=PERSON)
    assert (tmp_path / "s" / "vault").is_dir()


def test_readers_exit_10_and_create_nothing_writers_create_the_store(mem, tmp_path):
    home = tmp_path / "none"
    for args in (["get", "user/k"], ["log", "user/k"], ["search", "word"], ["recall", "word"], ["fsck"],
                 ["keys"], ["sessions"], ["context"]):
        r = mem("--home", str(home), *args, exit_code=10)
        assert "no mem store" in r.stderr, args
        assert not home.exists(), args
    mem("--home", str(home), "remember", "user/k", "a value", env=PERSON)
    assert mem("--home", str(home), "get", "user/k").stdout.strip() == "a value"


def test_a_pack_whose_index_was_deleted_is_damage_that_repair_reads_back(mem, tmp_path):
    """A deleted pack .idx made search miss silently (exit 0, no warning),
    `fsck --repair` dropped the sessions the pack held and `gc` deleted the
    .pack as a crash leftover: every turn lost, though the pack is
    self-describing.  Now readers warn, fsck names the pack, gc keeps it
    while objects are missing, and repair reads back what the refs need."""
    import time
    samples = REPO / "cmds" / "data" / "sample-projects"
    home = ["--home", str(tmp_path / "s")]
    mem(*home, "import", "claude-code", str(samples), env=PERSON)
    assert "database fixture" in mem(*home, "search", "database").stdout
    [idx] = (tmp_path / "s" / "objects" / "pack").glob("pack-*.idx")
    idx.unlink()
    pack = idx.with_suffix(".pack")
    old = time.time() - 3600                 # not a writer between its two renames
    os.utime(pack, (old, old))
    r = mem(*home, "search", "database")
    assert "database fixture" not in r.stdout and "damaged object" in r.stderr
    r = mem(*home, "fsck", exit_code=13)
    assert f"pack {pack.name}: its index is missing" in r.stdout
    r = mem(*home, "gc", "--prune=now")
    assert pack.exists()                      # not deleted as a crash leftover: refs need its objects
    r = mem(*home, "fsck", "--repair")
    assert "back from a pack whose index was missing" in r.stdout and "removed sessions" not in r.stdout
    assert "database fixture" in mem(*home, "search", "database").stdout
    assert "6 turns" in mem(*home, "sessions").stdout
    assert mem(*home, "fsck").stdout.splitlines()[-1].startswith("ok:")
    assert not pack.exists()                 # set aside in the quarantine, not deleted
    assert list((tmp_path / "s" / "quarantine").rglob(pack.name))


def test_a_crash_leftover_pack_without_index_is_a_warning_and_gc_removes_it(mem, tmp_path):
    """A .pack without .idx that no ref needs (a writer killed between its
    two renames) is not damage: fsck warns, gc removes it as before."""
    import time
    home = ["--home", str(tmp_path / "s")]
    mem(*home, "remember", "user/k", "a value", env=PERSON)
    pack_dir = tmp_path / "s" / "objects" / "pack"
    pack_dir.mkdir(parents=True, exist_ok=True)
    stray = pack_dir / ("pack-" + "ab" * 32 + ".pack")
    stray.write_bytes(b"MPAK" + bytes(8) + bytes(32))
    old = time.time() - 3600
    os.utime(stray, (old, old))
    r = mem(*home, "fsck")
    assert "crash leftover" in r.stdout
    mem(*home, "gc", "--prune=now")
    assert not stray.exists()


def _flip_crc_digit(path) -> None:
    """Change one digit of the CRC in a tantivy file's footer: the body is
    untouched, so tantivy opens and reads it; only a CRC check sees it."""
    b = path.read_bytes()
    j = b.rfind(b'"crc":') + 6
    b = b[:j] + (b"1" if b[j:j + 1] != b"1" else b"2") + b[j + 1:]
    path.write_bytes(b)


def test_a_segment_file_whose_checksum_fails_makes_search_and_recall_exit_13(mem, tmp_path):
    """fsck exited 13 for a .store file whose CRC did not match, while search
    and recall answered from it with exit 0; docs/exit-codes.md says 13."""
    home = ["--home", str(tmp_path / "s")]
    for i in range(3):
        mem(*home, "remember", f"project/x/k{i}", f"value {i} about zebras", env=PERSON)
    assert "zebras" in mem(*home, "search", "zebras").stdout      # checked once, then remembered as checked
    gen = next((tmp_path / "s" / "index" / "facts").glob("gen-*"))
    assert (gen / ".verified").is_file()
    _flip_crc_digit(sorted(gen.glob("*.store"))[0])
    for args in (["search", "zebras"], ["recall", "zebras", "--project", "x"]):
        r = mem(*home, *args, exit_code=13)
        assert "checksum mismatch" in r.stderr and "mem reindex" in r.stderr, args
    assert "checksum mismatch" in mem(*home, "fsck", exit_code=13).stdout
    # the hook fails open: it exits 0 and the session goes on
    from tests.hooks._util import hook_env, run_hook
    rc, _o, _e, _t = run_hook(tmp_path / "s", {"hook_event_name": "UserPromptSubmit", "session_id":
                                               "65545678-aaaa-bbbb-cccc-1234567890ad", "cwd": str(tmp_path),
                                               "prompt": "what about zebras"},
                              env=hook_env(tmp_path / "s", MEM_HOOK_FORK="0"))
    assert rc == 0
    mem(*home, "reindex")
    assert "zebras" in mem(*home, "search", "zebras").stdout
