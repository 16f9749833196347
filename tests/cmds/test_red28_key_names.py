"""red28 (tester finding test27b X9): a key name holding a labelled
passphrase (``project/x/password: correct horse battery staple``, any case of
its words, the German and French labels) is refused on every path that takes
a key, by the one name rule (``name_hits``, which reads a name as the value
rules read a value): ``mem remember``, the MCP ``remember`` tool, ``mem import
jsonl`` (a ref line), and a statement a prompt remembers; nothing of the words
lands in a ref file name, the audit log or any other file.  Real ``mem``
processes on real stores."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from tests.capture.test_fresh6_capture import _files_holding

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "system"))
from mcp_helpers import stdio_session  # noqa: E402

#: case -> (the key, words of it no file may hold): a label and its words after ``project/x/``
KEYS = {case: (f"project/x/{label}{words}", words.rsplit(" ", 2)[-2] + " " + words.rsplit(" ", 1)[-1])
        for case, label, words in (("lower", "password: ", "correct horse battery staple"),
                                   ("title", "Password: ", "Correct Horse Battery Staple"),
                                   ("capitals", "PASSWORD: ", "CORRECT HORSE BATTERY STAPLE"),
                                   ("german", "Kennwort: ", "Korrektes Pferd Batterie Heftklammer"),
                                   ("french", "mot de passe : ", "cheval correct batterie agrafe"))}


@pytest.mark.parametrize("case", sorted(KEYS))
def test_remember_refuses_the_key(mem, store_path, case):
    key, words = KEYS[case]
    mem("init")
    r = mem("remember", key, "v", exit_code=2)
    assert "holds a credential" in r.stderr and words not in r.stderr + r.stdout
    assert not mem("keys", "--json").json
    assert _files_holding(store_path, words) == []


def test_mcp_remember_refuses_the_key(mem, store_path):
    pytest.importorskip("mcp")
    mem("init")
    key, words = KEYS["title"]

    async def main():
        async with stdio_session() as s:
            got = await s.call_tool("remember", {"key": key, "value": "v"})
            assert got.is_error
            assert "holds a credential" in str(got.content) and words not in str(got.content)
    anyio.run(main)
    assert not mem("keys", "--json").json
    assert _files_holding(store_path, words) == []


def test_import_jsonl_refuses_the_ref(mem, store_path, tmp_path):
    mem("init")
    key, words = KEYS["title"]
    f = tmp_path / "x.jsonl"
    f.write_text(json.dumps({"format": "mem-export/1", "created": 1, "scope": None}) + "\n"
                 + json.dumps({"ref": f"facts/{key}", "id": "0" * 64}) + "\n")
    r = mem("import", "jsonl", str(f), exit_code=2)
    assert "holds a credential" in r.stderr and words not in r.stderr
    assert _files_holding(store_path, words) == []


def test_a_remembered_statement_keeps_no_word(mem, store_path):
    """A "remember that …" prompt's statement (what the prompt hook, or the
    transcript sync after it, writes: ``write_statement``; called here, as a
    hook under load leaves it to the sync): its key is named from the words
    before the label, and the value is redacted."""
    from objstore.capture.statements import write_statement
    from objstore.memory.opening import open_store
    with open_store(store_path, create=True) as s:
        r = write_statement(s, "remember that the wifi Password: Correct Horse Battery Staple", cwd="/tmp/p5")
        assert r is not None
    remembered = [k for k in mem("keys", "--json").json if "/remembered/" in k["key"]]
    assert [k["key"] for k in remembered] == ["project/p5/remembered/wifi-password"], remembered
    assert "Battery Staple" not in mem("get", remembered[0]["key"]).stdout
    assert _files_holding(store_path, "Battery Staple") == []
