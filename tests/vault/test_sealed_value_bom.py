"""test39b B4: a secret read from a file saved with a UTF-8 byte order mark
(Notepad's default) was sealed with the mark, so its seal rule never matched
the value in a later text: a plain write quoting it was stored in the clear.
The mark is dropped as the file's CRLF is (``facts.file_value``)."""

from __future__ import annotations


def test_a_secret_from_a_file_with_a_bom_still_guards_later_writes(vstore, mem):
    mem("remember", "user/np", "-", "--sensitivity", "secret", input="\ufeffnotepad-secret-77\r\n")
    r = mem("remember", "project/q/np2", "deploy note: notepad-secret-77 goes in the env", exit_code=6)
    assert "sealed" in r.stderr
    agent = {"MEM_AGENT": "claude"}
    mem("remember", "project/q/np3", "see notepad-secret-77", env=agent, exit_code=6)
    assert "notepad-secret-77" not in mem("search", "notepad", "--json").stdout
