"""test40 T10: a folder in place of ``tombstone-digests`` made ``mem forget``
die with "internal error: IsADirectoryError" after its first change, leaving
a stopped forget no command could finish.  The forget now refuses before
any change (exit 13, naming the file); once it is moved away the forget
runs and the value is gone."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_a_folder_for_the_digests_file_stops_the_forget_before_it_starts(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    mem(*h, "remember", "project/p/t2", "yak-violet-7733-harbor", env=PERSON)
    (home / "tombstone-digests").mkdir()
    r = mem(*h, "forget", "project/p/t2", "--yes", exit_code=13, env=PERSON)
    assert "tombstone-digests: not a regular file" in r.stderr and "internal error" not in r.stderr, r.stderr
    assert not any((home / "forget-unfinished").glob("*")) if (home / "forget-unfinished").exists() else True
    assert mem(*h, "get", "project/p/t2", env=PERSON).stdout.strip() == "yak-violet-7733-harbor"
    (home / "tombstone-digests").rmdir()
    mem(*h, "forget", "project/p/t2", "--yes", env=PERSON)
    assert mem(*h, "scan", "yak-violet-7733-harbor", "--no-remotes", env=PERSON).stdout.startswith("found nowhere")
