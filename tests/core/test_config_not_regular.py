"""A FIFO or a device in place of ``config`` or ``config.toml`` (test17 T11)
is a damaged store file like any other: no command waits on it or reads it
forever.  ``config.toml``: the config-problem warning, the command goes on;
``config``: exit 13 naming the file, and ``mem fsck --repair`` sets it aside.
Real files, real ``mem`` processes (each bounded: a hang fails the test)."""

from __future__ import annotations

import os


def test_a_fifo_or_device_config_is_reported_not_waited_on(mem, tmp_path):
    store = tmp_path / "store"
    mem("remember", "project/f/k", "fifo test")
    toml = store / "config.toml"
    toml.unlink(missing_ok=True)
    os.mkfifo(toml)
    r = mem("get", "project/f/k", timeout=30)
    assert r.stdout.strip() == "fifo test" and "config.toml: cannot be read (not a regular file)" in r.stderr
    mem("remember", "project/f/k2", "v", timeout=30)
    toml.unlink()
    toml.symlink_to("/dev/urandom")
    assert mem("get", "project/f/k", timeout=30).stdout.strip() == "fifo test"
    toml.unlink()

    cfg = store / "config"
    cfg.unlink()
    os.mkfifo(cfg)
    r = mem("get", "project/f/k", exit_code=13, timeout=30)
    assert "config cannot be read: not a regular file" in r.stderr and "mem fsck --repair" in r.stderr
    cfg.unlink()
    cfg.symlink_to("/dev/zero")
    r = mem("get", "project/f/k", exit_code=13, timeout=30)
    assert "config cannot be read: not a regular file" in r.stderr
    assert "config was damaged" in mem("fsck", "--repair", timeout=60).stdout
    assert mem("get", "project/f/k", timeout=30).stdout.strip() == "fifo test"
    # a regular file too large to be a config is damage as well, not read whole
    cfg.unlink()
    cfg.write_bytes(b"\0" * ((1 << 20) + 1))
    r = mem("get", "project/f/k", exit_code=13, timeout=30)
    assert "larger than 1,048,576 bytes" in r.stderr
