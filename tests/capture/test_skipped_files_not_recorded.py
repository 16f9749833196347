"""A refused import of /dev/urandom or a FIFO (or a binary file) wrote the
path into cache/imported-files; afterwards ``mem scan`` read /dev/urandom
for ever and ``forget --match --scrub-sources --dry-run`` blocked opening
the FIFO (tester test15 (A)).  A skipped file is never recorded; scan and
scrub open only regular files, also for a store that already lists such
paths."""

from __future__ import annotations

import os


def _listed(store_path) -> list[str]:
    p = store_path / "cache" / "imported-files"
    return p.read_text().split() if p.exists() else []


def test_a_skipped_file_is_never_listed_and_listed_ones_are_not_opened(mem, tmp_path, store_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(os.urandom(3000) + b"\n\xff\x00")
    for path in ("/dev/urandom", str(fifo), str(binary)):
        mem("import", "claude-code", path, exit_code=2, timeout=60)
    assert _listed(store_path) == []
    # a store an older mem left listing them: scan and the scrub's dry run answer, naming what they skip
    mem("remember", "project/a/f", "nothing to see")
    (store_path / "cache").mkdir(exist_ok=True)
    (store_path / "cache" / "imported-files").write_text(f"/dev/urandom\n{fifo}\n{binary}\n")
    r = mem("scan", "zebrafinch-91", "--no-remotes", timeout=60)
    assert r.stdout.startswith("found nowhere"), r.stdout
    assert f"skipped {fifo}: not a regular file" in r.stderr and "skipped /dev/urandom" in r.stderr
    r = mem("forget", "--match", "zebrafinch-91", "--scrub-sources", "--dry-run", timeout=60)
    assert r.exit_code == 0
