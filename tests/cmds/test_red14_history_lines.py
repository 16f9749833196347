"""Lane red14: a secret typed over two lines of a shell history — a command
continued with a backslash (``export PASS=\\`` then ``hunter2x9``) or a
heredoc — is found by ``mem scan`` and scrubbed by ``mem forget --match
--scrub-sources``, one reading for both (``capture.scrub.plain_spans``); the
file keeps its lines and every other byte.  Real files, real ``mem``
processes; the secrets are fake."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("history, match, scrubbed", [
    (b"ls\nexport PASS=\\\nhunter2x9\nmake\n", "PASS=hunter2x9", b"ls\nexport [REDACTED]\n\nmake\n"),
    (b"cat <<EOF > creds\nuser admin\npassword hunter2x9\nEOF\n", "admin password hunter2x9",
     b"cat <<EOF > creds\nuser [REDACTED]\n\nEOF\n"),
])
def test_a_secret_over_two_history_lines_is_found_and_scrubbed(tmp_path, mem, store_path, history, match, scrubbed):
    hist = tmp_path / "home" / ".bash_history"
    hist.write_bytes(history)
    mem("remember", "project/x/host", "db1")
    r = mem("scan", match, "--no-remotes", "--json", exit_code=1)
    assert [h["place"] for h in r.json] == ["file"], r.json
    r = mem("forget", "--match", match, "--scrub-sources", "--dry-run")
    assert "1 shell history file" in r.stdout, r.stdout
    mem("forget", "--match", match, "--scrub-sources", "--yes")
    assert hist.read_bytes() == scrubbed
    r = mem("scan", match, "--no-remotes", exit_code=0)
    assert "found nowhere" in r.stdout, r.stdout
