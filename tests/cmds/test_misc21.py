"""Session 21 (lane misc21): tester findings W7, W10, W11.

W7: a ``mem memory edit`` killed while the editor ran left what was typed
(unredacted, 0600) in the system's ``/tmp``; the file now lives under
``<store>/tmp``, is deleted on SIGHUP and SIGTERM, and a SIGKILL leaves
it to ``mem gc``.  W10: ``mem export -o -`` wrote a file named ``-``; it
is stdout now.  W11: ``mem setup`` then ``mem setup --undo`` left an empty
``~/.bashrc`` that was not there before."""

from __future__ import annotations

import json
import os
import stat

import pytest

SECRET = "Hup9pwXYZ"


def _killing_editor(tmp_path, sig: str):
    """An editor that types a password, then kills its parent (mem) with ``sig``."""
    ed = tmp_path / f"ed-{sig}.sh"
    ed.write_text(f"#!/bin/sh\nprintf 'db password: {SECRET}\\n' > \"$1\"\necho \"$1\" > '{tmp_path}/edited'\n"
                  f"kill -{sig} $PPID\nsleep 1\n")
    ed.chmod(ed.stat().st_mode | stat.S_IXUSR)
    return str(ed)


def _holding(folder) -> list[str]:
    """The files under ``folder`` whose bytes hold the secret."""
    out = []
    for dirpath, _dirs, files in os.walk(folder):
        for f in files:
            try:
                with open(os.path.join(dirpath, f), "rb") as fh:
                    if SECRET.encode() in fh.read():
                        out.append(os.path.join(dirpath, f))
            except OSError:
                continue
    return out


@pytest.mark.parametrize("sig,code", [("HUP", 129), ("TERM", 143)])
def test_a_hung_up_or_terminated_edit_leaves_nothing_typed(mem, tmp_path, sig, code):
    mem("memory", "add", "memory", "Deploys happen on Fridays only.")
    systmp = tmp_path / "systmp"
    systmp.mkdir()
    mem("memory", "edit", "memory", env={"EDITOR": _killing_editor(tmp_path, sig), "TMPDIR": str(systmp)},
        exit_code=code)
    store = os.environ["MEM_HOME"]
    edited = (tmp_path / "edited").read_text().strip()
    assert edited.startswith(os.path.join(store, "tmp", "editor-")), edited   # under the store, not /tmp
    assert not os.path.exists(edited) and os.listdir(os.path.join(store, "tmp")) == []
    assert _holding(systmp) == [] and _holding(store) == []
    assert json.loads(mem("get", "user/memory/memory.md", "--json").stdout)["body"] == \
        "Deploys happen on Fridays only."


def test_a_killed_edit_leaves_its_file_to_gc(mem, tmp_path):
    mem("memory", "add", "memory", "Deploys happen on Fridays only.")
    systmp = tmp_path / "systmp"
    systmp.mkdir()
    mem("memory", "edit", "memory", env={"EDITOR": _killing_editor(tmp_path, "KILL"), "TMPDIR": str(systmp)},
        exit_code=-9)
    store = os.environ["MEM_HOME"]
    assert _holding(systmp) == []
    left = _holding(os.path.join(store, "tmp"))
    assert len(left) == 1 and stat.S_IMODE(os.stat(left[0]).st_mode) == 0o600, left
    r = mem("fsck")
    assert "tmp/editor-" in r.stdout + r.stderr   # named as a leftover
    mem("gc")
    assert os.listdir(os.path.join(store, "tmp")) == [] and _holding(store) == []


def test_an_edit_still_applies(mem, tmp_path):
    ed = tmp_path / "ed.sh"
    ed.write_text("#!/bin/sh\nprintf 'Deploys happen on Mondays.\\n' > \"$1\"\n")
    ed.chmod(ed.stat().st_mode | stat.S_IXUSR)
    mem("memory", "edit", "memory", env={"EDITOR": str(ed)})
    assert json.loads(mem("get", "user/memory/memory.md", "--json").stdout)["body"] == "Deploys happen on Mondays."
    assert os.listdir(os.path.join(os.environ["MEM_HOME"], "tmp")) == []


def test_export_dash_is_stdout(mem, tmp_path):
    mem("memory", "add", "memory", "Deploys happen on Fridays only.")
    r = mem("export", "-o", "-")
    assert r.stdout.splitlines()[0].startswith('{"format":"mem-export/1"') and "Fridays" in r.stdout
    assert not os.path.exists(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "-"))
    assert mem("export", "-o", "-").stdout.count("\n") == mem("export").stdout.count("\n")
    r = mem("export", "--format", "markdown", "-o", "-", exit_code=2)
    assert "not stdout" in r.stderr


def _setup(mem, home, *args, exit_code=0):
    return mem("setup", "--no-hooks", "--shell", "bash", *args, env={"HOME": str(home)}, exit_code=exit_code)


def test_setup_undo_removes_the_rc_file_it_made(mem, tmp_path):
    home = tmp_path / "h"
    home.mkdir()
    _setup(mem, home)
    assert "shell-init bash" in (home / ".bashrc").read_text()
    _setup(mem, home, "--undo")
    assert not (home / ".bashrc").exists()


def test_setup_undo_keeps_an_rc_file_it_did_not_make_or_that_holds_more(mem, tmp_path):
    home = tmp_path / "h"
    home.mkdir()
    (home / ".bashrc").write_text("")   # the person's, empty
    _setup(mem, home)
    _setup(mem, home, "--undo")
    assert (home / ".bashrc").read_text() == ""
    (home / ".bashrc").unlink()
    _setup(mem, home)   # made by setup, then the person adds a line
    with open(home / ".bashrc", "a") as f:
        f.write("alias ll='ls -l'\n")
    _setup(mem, home, "--undo")
    assert (home / ".bashrc").read_text() == "alias ll='ls -l'\n"
