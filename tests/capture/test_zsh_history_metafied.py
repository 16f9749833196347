"""zsh writes its history "metafied" (test25 T19): each byte 0x83-0xa2 as
0x83 + byte ^ 0x20, and UTF-8 continuation bytes of Cyrillic, CJK, Greek …
fall there.  `mem scan` found nothing and `mem forget --scrub-sources` left
such a text in ~/.zsh_history.  A real zsh writes the file here, and reads
it back after the scrub."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from objstore.capture.scrub import REDACTED, metafy, scrub, unmetafy

pytestmark = pytest.mark.skipif(shutil.which("zsh") is None, reason="needs zsh")
SECRET = "сервер секрет-пароль-у77"


def _zsh(home: Path, lines: list[str]) -> subprocess.CompletedProcess:
    script = (f"HISTFILE={home}/.zsh_history; SAVEHIST=100; HISTSIZE=100; setopt INC_APPEND_HISTORY\n"
              + "".join(line + "\n" for line in lines) + "exit\n")
    return subprocess.run(["zsh", "-f", "-i"], input=script.encode(), capture_output=True, timeout=60,
                          env={"HOME": str(home), "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})


def test_a_metafied_history_is_scanned_and_scrubbed_as_zsh_reads_it(tmp_path, mem):
    home = tmp_path / "zhome"
    home.mkdir()
    _zsh(home, ["echo one", f'echo "{SECRET}"', "echo 密码 ok"])
    hist = home / ".zsh_history"
    raw = hist.read_bytes()
    assert SECRET.encode() not in raw and SECRET.encode() in unmetafy(raw)   # zsh did metafy it
    assert metafy(unmetafy(raw)) == raw
    r = mem("--home", str(tmp_path / "s"), "init")
    r = mem("--home", str(tmp_path / "s"), "scan", SECRET, exit_code=1, env={"HOME": str(home)})
    assert str(hist) in r.stdout, r.stdout
    assert scrub(hist, SECRET, plain=True) == 1
    after = hist.read_bytes()
    assert SECRET.encode() not in unmetafy(after) and REDACTED.encode() in after
    out = _zsh(home, ["fc -R", "fc -l 1"]).stdout.decode()   # zsh reads the scrubbed file back
    assert "echo one" in out and "echo 密码 ok" in out and REDACTED in out and "секрет" not in out, out
    mem("--home", str(tmp_path / "s"), "scan", SECRET, exit_code=0, env={"HOME": str(home)})
