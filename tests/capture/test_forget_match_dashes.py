"""test39 T5: a text forgotten with ``forget --match`` is withheld from a
later captured turn that spells it with other dashes (U+2010 hyphen, U+2011,
en dash, minus), a fullwidth form or an invisible character, as the fact
write path refuses it and ``mem scan`` finds it: one tombstone, one reading."""

from __future__ import annotations

import json

import pytest

S = "1e7b2a10-0000-4000-8000-000000000051"
BASE = {"isSidechain": False, "userType": "external", "cwd": "/tmp/proj", "sessionId": S,
        "version": "2.0.65", "gitBranch": "main"}


def _line(uuid, parent, role, content, ts):
    return json.dumps(dict(BASE, parentUuid=parent, type=role, uuid=uuid, timestamp=ts,
                           message={"role": role, "content": content}))


@pytest.mark.parametrize("spelled", ["alpha\u2010gorilla\u20109", "alpha\u2011gorilla\u20119",
                                     "alpha\u2013gorilla\u22129", "ａｌｐｈａ-gorilla-9",
                                     "alpha-go\u200brilla-9"])
def test_a_later_turn_spelling_the_forgotten_text_otherwise_is_withheld(tmp_path, mem, spelled):
    d = tmp_path / "cc" / "-tmp-proj"
    d.mkdir(parents=True)
    f = d / f"{S}.jsonl"
    lines = [_line("u0", None, "user", "the db host is alpha-gorilla-9.internal", "2026-12-07T01:00:00.000Z"),
             _line("a0", "u0", "assistant", [{"type": "text", "text": "noted"}], "2026-12-07T01:00:01.000Z")]
    f.write_text("\n".join(lines) + "\n")
    home = str(tmp_path / "store")
    mem("--home", home, "import", "claude-code", str(tmp_path / "cc"))
    mem("--home", home, "forget", "--match", "alpha-gorilla-9", "--yes")
    lines += [_line("u1", "a0", "user", f"I think it was {spelled}.internal after all",
                    "2026-12-07T01:05:00.000Z"),
              _line("a1", "u1", "assistant", [{"type": "text", "text": "ok"}], "2026-12-07T01:05:01.000Z")]
    f.write_text("\n".join(lines) + "\n")
    mem("--home", home, "import", "claude-code", str(tmp_path / "cc"))
    shown = mem("--home", home, "show", S).stdout
    assert "after all" in shown                       # the later turn is stored ...
    assert spelled not in shown and "gorilla" not in shown   # ... without the forgotten text
    assert json.loads(mem("--home", home, "search", "alpha-gorilla-9", "--json").stdout) == []
    found = json.loads(mem("--home", home, "scan", "alpha-gorilla-9", "--json", exit_code=None).stdout)
    assert {x["place"] for x in found} == {"transcript"}   # the source transcript only, nothing mem wrote
