"""fresh39 F15: a store file this user may not write gave "internal error:
PermissionError(1, 'Operation not permitted')" with no path; it is the
machine's state, said so with the path (exit 1), as a full disk is."""

from __future__ import annotations

import errno

from cmds._out import unexpected_error


def test_a_permission_error_names_its_path_and_is_no_internal_error():
    msg, hint = unexpected_error(PermissionError(errno.EPERM, "Operation not permitted", "/s/refs/facts/user/k.lock"))
    assert msg.startswith("permission denied /s/refs/facts/user/k.lock") and "internal error" not in msg
    assert "nothing already stored was lost" in hint
    msg, _h = unexpected_error(PermissionError(errno.EACCES, "Permission denied"))
    assert msg.startswith("permission denied (permission denied)")
