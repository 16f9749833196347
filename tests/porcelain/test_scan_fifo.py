"""Session 23 Y10: ``mem scan`` hung on a FIFO in ``quarantine/`` (which
``mem fsck --repair`` itself puts there when a ref was a FIFO): the store
walk read every file whole.  Every walk of a store folder or a folder
remote now skips what is not a regular file: scan names it as skipped;
the index journal's folder of writers' files (``index-journal.d``) and a
folder remote's listing (``packs/``) never wait on one.  Real ``mem``
processes, real FIFOs; each run bounded by a timeout (a hang fails)."""

from __future__ import annotations

import os

import pytest

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}


@pytest.fixture
def stored(mem, store_path, tmp_path):
    remote = tmp_path / "remote"
    remote.mkdir()
    mem("remember", "project/x/a", "heron velvet seven")
    mem("remote", "add", "origin", str(remote), "--no-encrypt", env=PERSON)
    mem("push")
    return remote


@pytest.mark.parametrize("folder", ["quarantine", "index-journal.d", "cache", "objects", "."])
def test_scan_skips_and_names_a_fifo_in_the_store(mem, store_path, stored, folder):
    d = store_path / folder
    d.mkdir(exist_ok=True)
    os.mkfifo(d / "zz-fifo")
    r = mem("scan", "heron velvet", "--no-remotes", exit_code=1, timeout=60)
    assert "fact project/x/a" in r.stdout
    assert f"skipped {d / 'zz-fifo'}".replace("/./", "/") in r.stderr and "not a regular file" in r.stderr, r.stderr
    mem("scan", "nowhere at all", "--no-remotes", exit_code=0, timeout=60)


@pytest.mark.parametrize("folder", [".", "packs"])
def test_scan_push_and_backup_pass_a_fifo_in_a_folder_remote(mem, store_path, stored, folder):
    d = stored / folder
    d.mkdir(exist_ok=True)
    os.mkfifo(d / "zz-fifo")
    out = mem("scan", "heron velvet", exit_code=1, timeout=60).stdout
    assert "remote origin" in out and "fact project/x/a" in out, out
    mem("remember", "project/x/b", "a second value")
    mem("push", timeout=60)
    mem("backup", timeout=60)
    mem("fsck", timeout=60)


@pytest.mark.parametrize("fifo", [True, False])
def test_a_file_beside_the_fact_scopes_is_no_ref(mem, store_path, stored, fifo):
    """A FIFO (or any file) directly under ``refs/facts/``, where only scope
    folders go: every walk of the refs (fsck, gc, keys, export, push) failed
    with an internal error (NotADirectoryError); it is no ref and is passed."""
    p = store_path / "refs" / "facts" / "zz-junk"
    os.mkfifo(p) if fifo else p.write_text("not a ref\n")
    for args in (("fsck",), ("gc",), ("push",), ("export", "-o", str(store_path.parent / "out.jsonl"))):
        mem(*args, timeout=60)
    assert "project/x/a" in mem("keys").stdout
