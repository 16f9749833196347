"""fresh39 F1: the resident helper's socket (``run/helper.sock``) made every
``mem scan`` say "not everything could be read … the text may still be
there" and exit 3: a socket stores nothing, as a FIFO does (exit 0).
fresh40 F1: the helper's own socket was still named as "skipped"; another
socket in the store still is."""

from __future__ import annotations

import socket


def test_a_socket_in_the_store_is_no_unread_file(tmp_path, mem):
    home = tmp_path / "s"
    mem("--home", str(home), "remember", "user/a", "alpha")
    (home / "run").mkdir(exist_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(home / "run" / "helper.sock"))
        sock.listen(1)
        r = mem("--home", str(home), "scan", "nothing-here-xyz", "--no-remotes")
        assert "found nowhere" in r.stdout and "may still be there" not in r.stderr, r.stderr
        assert "helper.sock" not in r.stderr and "skipped" not in r.stderr, r.stderr
        other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            other.bind(str(home / "stray.sock"))
            r = mem("--home", str(home), "scan", "nothing-here-xyz", "--no-remotes")
            assert "skipped " + str(home / "stray.sock") in r.stderr, r.stderr
        finally:
            other.close()
    finally:
        sock.close()
