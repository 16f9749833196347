"""Lane red28b (test28 Y5, Y11).

Y5: a tool call's input is stored as its JSON text, where the lines of a
multi-line Bash command or Write content are joined by the ``\\n`` escape
(``cd /srv\\nmysql -uroot -pX``): the ``n`` stood before the 2nd line's
command, so every command-line and label rule missed it there.  The
redaction now also reads the text with its JSON escapes decoded
(``core.jsonspan.json_reading``) and maps each hit back over whole
escapes: the JSON stays valid.  Real ``mem import`` of Claude Code and
Codex transcripts, and ``mem forget --credentials`` on a store an older mem
wrote (its turn writer did not read the escapes) finds and rewrites them.

Y11: a no-break space before a label's colon (French ``mot de passe\\u202f:``)
and a fullwidth ``＝``/``：`` after a Latin label are read as their ASCII
forms (``core.text.ascii_reading``)."""

from __future__ import annotations

import json
import re

import pytest

from objstore import scan_store
from objstore.core.jsonspan import json_reading, json_unescaped
from objstore.core.redact import redact
from objstore.core.text import reading_span
from objstore.memory.opening import open_store

from tests.hooks._util import asst, codex_rollout, files_holding, line, tool_use, turns, user
from tests.memory.test_forget_credentials import write_turns

PW = "Zq7mm2x!"
#: the second line of a command, as an agent writes it (test28 Y5's list)
SECOND_LINES = [
    f"sshpass -p '{PW}' ssh root@db",
    f"docker login -u bob -p {PW} registry.io",
    f"mysql -uroot -p{PW} shop",
    f"redis-cli -a {PW} ping",
    f"curl -u admin:{PW} https://x.io",
    f"htpasswd -b .htpasswd bob {PW}",
    f"az login -u bob -p {PW}",
    f"pw: {PW}rT",
    f"Kennwort: {PW}rT",
]
HEREDOC = 'cat > .env <<X\nPassword: Zq7"mm2x!\nX'
#: the secret's pieces that must not be left: none is a digit or hex run an object id could hold
PIECES = re.compile(r"Zq7|mm2x")


def _tool_text(name: str, **inp) -> str:
    return f"[tool_use {name}] " + json.dumps(inp, ensure_ascii=False)


@pytest.mark.parametrize("second", SECOND_LINES)
def test_a_command_on_the_second_line_of_a_tool_call_is_redacted_as_on_the_first(second):
    first = redact(_tool_text("Bash", command=second)).text
    assert not PIECES.search(first)                       # the line alone: redacted before too
    for cmd in (f"cd /srv\n{second}", f"cd /srv\n\t{second}", f"cd /srv\r\n{second}\necho done"):
        t = _tool_text("Bash", command=cmd)
        r = redact(t)
        assert not PIECES.search(r.text), r.text
        inp = json.loads(r.text[len("[tool_use Bash] "):])   # every escape kept whole: the JSON is valid
        assert inp["command"].startswith("cd /srv") and "[REDACTED:" in inp["command"]
        # the same rule names it as on the first line
        assert {h.rule for h in r.hits} == {h.rule for h in redact(_tool_text("Bash", command=second)).hits}


def test_a_heredoc_password_and_write_content_are_redacted_whole():
    r = redact(_tool_text("Bash", command=HEREDOC))
    assert not PIECES.search(r.text), r.text
    assert json.loads(r.text[len("[tool_use Bash] "):])["command"].endswith("\nPassword: [REDACTED:generic-secret]\nX")
    for body in (f"# env\nsshpass -p '{PW}' ssh db", f"# env\ndocker login -u bob -p {PW} r.io",
                 '# env\nPassword: Zq7"mm2x!'):
        r = redact(_tool_text("Write", file_path=".env", content=body))
        assert not PIECES.search(r.text), r.text
        assert json.loads(r.text[len("[tool_use Write] "):])["content"].startswith("# env\n")


def test_escapes_that_hold_no_credential_change_nothing():
    for t in (_tool_text("Bash", command="cd /srv\nmake test\necho \"done\""),
              '{"command": "printf \'a\\\\nb\'\\nls -la"}', "a lone \\ backslash and \\d+ regex",
              _tool_text("Write", content="def f():\n\treturn password_for(user)\n")):
        assert redact(t).text == t


def test_json_reading_maps_each_escape_back_whole():
    text = 'a\\nb \\\\n \\"c\\u00e9'
    decoded, moves = json_reading(text)
    assert decoded == json_unescaped(text)[0] == 'a\nb \\n "cé'
    assert moves == [(1, 2, 1, 3), (4, 5, 5, 7), (7, 8, 9, 11), (9, 10, 12, 18)]
    assert reading_span(moves, 1, 3) == (1, 4)            # the newline and b: the escape whole
    assert reading_span(moves, 7, 10) == (9, 18)          # '"cé': both escapes whole
    assert reading_span(moves, 3, 5) == (4, 7)            # ' \\': the blank and the escape
    assert reading_span(moves, 5, 7) == (7, 9)            # 'n ': no escape
    assert json_reading("no escape \\d here") is None


@pytest.mark.parametrize("label", ["mot de passe\u202f: ", "Mot de passe\u00a0:\u00a0", "mot de passe\u00a0: ",
                                   "Password\u00a0: ", "Password\u00a0= ", "password\uff1d", "Password\uff1a ",
                                   "Password\u2009: ", "cd /x\\nPassword\u00a0: "])
def test_a_unicode_space_or_fullwidth_sign_by_a_label_does_not_defeat_it(label):
    t = f"{label}{PW}rT"
    r = redact(t)
    assert not PIECES.search(r.text), r.text
    assert r.text.startswith(label) and r.text.endswith("]")   # the label and its signs are kept as typed


def test_cjk_and_french_prose_without_a_secret_stay():
    for t in ("密码：见文档", "Remarque\u00a0: le mot de passe est dans le coffre.", "Note\uff1aok", "prix\u00a0: 10\u00a0€"):
        assert redact(t).text == t


def test_import_of_claude_code_and_codex_stores_the_second_line_redacted(tmp_path, mem, store_path):
    sid = "5d1e6f0a-0000-4000-8000-00000000f281"
    t = tmp_path / "cc" / "-home-u-app" / f"{sid}.jsonl"
    t.parent.mkdir(parents=True)
    blocks = [tool_use(f"toolu_{i}", "Bash", command=f"cd /srv\n{s}") for i, s in enumerate(SECOND_LINES)]
    blocks += [tool_use("toolu_h", "Bash", command=HEREDOC),
               tool_use("toolu_w", "Write", file_path=".env", content=f"# env\nsshpass -p '{PW}' ssh db")]
    t.write_bytes(line(user("u1", "set up the db", sid))
                  + b"".join(line(asst(f"a{i}", f"m{i}", [b], sid)) for i, b in enumerate(blocks)))
    mem("import", "claude-code", str(tmp_path / "cc"))
    folder = tmp_path / "codex"
    folder.mkdir()
    codex_rollout(folder, "0199aaaa-0000-7000-8000-00000000f282",
                  [("exec_command", {"cmd": f"cd /srv\nmysql -uroot -p{PW} shop"}, "ok")])
    mem("import", "codex", str(folder))
    shown = mem("show", sid).stdout
    assert shown.count("[REDACTED:") >= len(blocks) and not PIECES.search(shown), shown
    texts = [x[3] for x in turns(store_path)]
    assert any("cd /srv\\nmysql -uroot -p[REDACTED:" in x for x in texts)       # Claude Code and Codex
    assert not any(PIECES.search(x) for x in texts)
    mem("gc", "--prune=now")
    assert files_holding(store_path, "mm2x") == []
    assert "no stored value or turn holds a credential" in mem("forget", "--credentials", "--dry-run").stdout


def test_forget_credentials_finds_what_an_older_mem_stored(monkeypatch, mem, store_path):
    import objstore.core.jsonspan as jsonspan
    sid = "14141414-2222-3333-4444-55555555f283"
    texts = [("user", "set up the db"), ("tool", _tool_text("Bash", command=f"cd /srv\nmysql -uroot -p{PW} shop")),
             ("tool", _tool_text("Bash", command=HEREDOC)), ("assistant", "done")]
    with monkeypatch.context() as m:
        m.setattr(jsonspan, "json_decoded", lambda text: None)   # the turn writer before this lane
        with open_store(store_path, create=True) as s:
            write_turns(s, sid, texts)
    assert scan_store(store_path, [b"mm2x"])                  # the old store holds it (the test can fail)
    r = mem("forget", "--credentials", "--dry-run")
    assert "would redact" in r.stdout and "2 turns" in r.stdout, r.stdout
    mem("forget", "--credentials", "--yes")
    mem("gc", "--prune=now")
    assert scan_store(store_path, [b"mm2x"]) == [] and files_holding(store_path, "mm2x") == []
    after = [x[3] for x in turns(store_path)]
    assert any(x.endswith('{"command": "cd /srv\\nmysql -uroot -p[REDACTED:mysql-password] shop"}') for x in after)
    assert "nothing changed" in mem("forget", "--credentials", "--yes").stdout
