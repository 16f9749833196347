"""red28 (tester finding test27b X9): a key name holding a labelled
passphrase (``project/x/password: correct horse battery staple``, any case of
its words, the German and French labels) is refused on every path that takes
a key, by the one name rule (``name_hits``, which reads a name as the value
rules read a value): ``mem remember``, the MCP ``remember`` tool, ``mem import
jsonl`` (a ref line), and a prompt the hook remembers; nothing of the words
lands in a ref file name, the audit log or any other file.  Real ``mem``
processes on real stores."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from tests.capture.test_fresh6_capture import _files_holding, _keys, _prompt

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


def test_a_prompt_the_hook_remembers_keeps_no_word(mem, tmp_path):
    """The prompt hook's statement: its key is named from the words before
    the label, the value and the prompt's turn are redacted."""
    store = tmp_path / "store"
    _prompt(store, tmp_path, "remember that the wifi Password: Correct Horse Battery Staple")
    remembered = [k for k in _keys(mem, store) if "/remembered/" in k]
    assert remembered == ["project/p5/remembered/wifi-password"], remembered
    assert "Battery Staple" not in mem("get", remembered[0], env={"MEM_HOME": str(store)}).stdout
    assert _files_holding(store, "Battery Staple") == []
