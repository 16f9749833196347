"""fresh40 F3: with a garbage ``index/facts/CURRENT`` and a line left in the
index journal, ``mem doctor`` said "the search index is behind the refs (an
interrupted write)" while fsck and search named the damaged file.  Doctor
now says the index is damaged, naming the file, as they do."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_doctor_names_a_damaged_index_file_even_with_a_journal_line(mem, tmp_path):
    home = tmp_path / "s"
    mem("--home", str(home), "remember", "project/a/x", "y", env=PERSON)
    (home / "index" / "facts" / "CURRENT").write_text("garbage\n")
    (home / "index-journal").write_text("F\tproject/a/x\n")
    r = mem("--home", str(home), "doctor", exit_code=None, env={**PERSON, "MEM_NO_HELPER": "1"})
    out = r.stdout + r.stderr
    assert "[index] the search index is damaged" in out and "CURRENT" in out, out
    assert "behind the refs" not in out, out
