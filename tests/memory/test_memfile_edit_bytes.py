"""Session 20 (lane w20a, W8): ``mem memory edit`` reads what the editor
saved as strict UTF-8.  A file holding a byte that is not UTF-8 is
refused (exit 2, the offset named) and the stored file is unchanged;
a BOM and CRLF line ends are read as click.edit reads them."""

from __future__ import annotations

import json
import stat


def _editor(tmp_path, data: bytes):
    src = tmp_path / "saved.bin"
    src.write_bytes(data)
    ed = tmp_path / "ed.sh"
    ed.write_text(f"#!/bin/sh\ncat '{src}' > \"$1\"\n")
    ed.chmod(ed.stat().st_mode | stat.S_IXUSR)
    return {"EDITOR": str(ed)}


def _body(mem) -> str:
    return json.loads(mem("get", "user/memory/memory.md", "--json").stdout)["body"]


def test_an_edit_that_is_not_utf8_is_refused_and_loses_nothing(mem, tmp_path):
    mem("memory", "add", "memory", "Deploys happen on Fridays only.")
    before = _body(mem)
    r = mem("memory", "edit", "memory", env=_editor(tmp_path, b"Deploys happen on Fridays only.\n\xc2\xa7\nBad \xff "
                                                              b"byte\n"), exit_code=2)
    assert "not UTF-8 text" in r.stderr and "(byte 0xff at offset 39); nothing changed" in r.stderr, r.stderr
    assert "internal error" not in r.stderr and "\ufffd" not in _body(mem)
    assert _body(mem) == before and len(json.loads(mem("log", "user/memory/memory.md", "--json").stdout)) == 1
    # a cut-short character at the end, after a BOM: the offset counts the file's bytes
    r = mem("memory", "edit", "memory", env=_editor(tmp_path, b"\xef\xbb\xbfcaf\xc3"), exit_code=2)
    assert "offset 6" in r.stderr and _body(mem) == before


def test_a_utf8_edit_with_bom_and_crlf_applies(mem, tmp_path):
    mem("memory", "add", "memory", "Deploys happen on Fridays only.")
    mem("memory", "edit", "memory", env=_editor(tmp_path, "\ufeffDeploys happen on Fridays only.\r\n§\r\n"
                                                          "Café opens at nine.\r\n".encode()))
    assert _body(mem) == "Deploys happen on Fridays only.\n§\nCafé opens at nine."
