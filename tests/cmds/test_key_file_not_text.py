"""A sync key file that is not UTF-8 text (``mem remote key import FILE``,
``remote add --key``, ``clone --key``, ``restore --key``) was an internal
error whose message printed the file's bytes: key material on the terminal
(session 11's fresh tester).  Now: exit 2 naming the file and what is wrong
with it, never its contents, and nothing is created."""

from __future__ import annotations

SECRET = b"SECRETSTUFF-zebra-42"


def _bad_key(tmp_path):
    p = tmp_path / "mem-sync.key"
    p.write_bytes(b"AGE-SECRET-KEY-1QQQ\xff\xfe" + SECRET + b"\n")
    return p


def test_key_import_of_a_non_utf8_file_says_so_without_its_bytes(mem, tmp_path, store_path):
    key = _bad_key(tmp_path)
    for args in (("remote", "key", "import", str(key)),
                 ("remote", "add", "usb", str(tmp_path / "remote"), "--key", str(key))):
        r = mem(*args, exit_code=2)
        assert f"{key}: not a sync key" in r.stderr and "not UTF-8" in r.stderr
        assert "SECRETSTUFF" not in r.stdout + r.stderr and "internal error" not in r.stderr
    assert not (store_path / "sync-key").exists()
    other = tmp_path / "other"
    r = mem("--home", str(other), "clone", str(tmp_path / "remote"), "--key", str(key), exit_code=2)
    assert "SECRETSTUFF" not in r.stdout + r.stderr and "not UTF-8" in r.stderr
    assert not other.exists()


def test_an_internal_decoding_error_never_shows_the_bytes():
    from cmds._out import unexpected_error
    try:
        (b"AGE-SECRET-KEY-1\xff" + SECRET).decode("utf-8")
    except UnicodeDecodeError as e:
        msg, _hint = unexpected_error(e)
    assert "SECRETSTUFF" not in msg and "UnicodeDecodeError" in msg and "byte 16" in msg
