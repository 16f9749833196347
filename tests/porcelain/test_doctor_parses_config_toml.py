"""``mem doctor`` parses config.toml whatever ``cache/config.ok`` says
(test31c W14): a config.toml damaged with the same size, mtime and inode
as the one last found usable (an edit within one mtime tick, a tool that
restores times) was reported by nobody, doctor included, while ``mem
config`` said it was not valid TOML.  Every other command keeps trusting
the stamp (one ``stat``: lat31's start-up saving).  Real files, real
``mem`` processes."""

from __future__ import annotations

import os
from pathlib import Path


def test_doctor_names_a_damaged_config_toml_the_stamp_calls_usable(mem):
    mem("remember", "user/x", "a value")   # makes the store
    mem("config", "capture.ignore_marker", "#p")
    mem("get", "user/x", exit_code=None)   # the stamp of the usable file is recorded
    home = Path(os.environ["MEM_HOME"])
    cfg = home / "config.toml"
    assert (home / "cache" / "config.ok").exists()
    st = os.stat(cfg)
    bad = b"[capture\n" + b"x" * (st.st_size - len(b"[capture\n"))
    with open(cfg, "r+b") as f:   # in place: the same inode
        f.write(bad)
    os.utime(cfg, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(cfg).st_size == st.st_size and os.stat(cfg).st_ino == st.st_ino
    r = mem("doctor", exit_code=None)
    assert "config.toml" in r.stdout and "capture is stopped" in r.stdout, r.stdout
