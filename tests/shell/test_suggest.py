"""Pure pieces of the shell: suggest(), the toolbar tokens, side_by_side."""

from __future__ import annotations

from cmds.shell.commands import side_by_side
from cmds.shell.meta import arg_specs, commands, lookup
from cmds.shell.suggest import Catalog, Counts, split_line, suggest
from cmds.shell.toolbar import display_path, toolbar_text, toolbar_tokens

CAT = Catalog(
    commands=arg_specs(), summaries={c.name: c.summary for c in commands()},
    keys=("project/acme/cache", "project/acme/db", "user/editor"),
    versions={"project/acme/cache": 1, "project/acme/db": 3, "user/editor": 2},
    items=(("5f56b6b2f9802045d3e9128ebc3045c7", "challenge project/acme/db"),
           ("e88912b80a618314fe78309a346e7b42", "injection user/editor")),
    counts=Counts(2, 1, 3, 4))


def texts(line):
    return [s.text for s in suggest(line, CAT)]


def test_split_line():
    assert split_line("show proj") == (["show"], "proj", 1)
    assert split_line("diff user/a ") == (["diff", "user/a"], "", 2)
    assert split_line("") == ([], "", 0)


def test_commands_complete_first():
    assert texts("") [:3] == sorted(arg_specs())[:3]
    assert texts("re") == ["reinforce", "reject"]
    assert texts("acc") == ["accept"]
    s = suggest("acc", CAT)[0]
    assert (s.start, s.kind, s.meta) == (-3, "command", lookup("accept").summary)
    assert texts("xyz") == []


def test_keys_and_ids_complete_by_argument_kind():
    assert texts("show proj") == ["project/acme/cache", "project/acme/db"]
    assert texts("log acme/d") == ["project/acme/db"]  # substring after prefix matches
    assert texts("pin USER") == ["user/editor"]
    assert texts("accept ") == ["5f56b6b2f980", "e88912b80a61"]
    assert texts("accept e8") == ["e88912b80a61"]
    assert texts("show 5f") == ["5f56b6b2f980"]  # show takes a key or an id
    s = suggest("reject 5f", CAT)[0]
    assert (s.start, s.kind, s.meta) == (-2, "id", "challenge project/acme/db")
    assert texts("accept 5f56b6b2f980 ") == []  # one argument only
    assert texts("search pro") == []  # free text
    assert texts("edit 5f56b6b2f980 new va") == []


def test_versions_and_help():
    assert texts("diff project/acme/db ") == ["v3", "v2", "v1"]
    assert texts("diff project/acme/db v3 2") == ["v2"]
    assert texts("diff nope/x ") == []
    assert texts("help fo") == ["forget", "reinforce"]  # prefix first, then substring


def test_toolbar_tokens(monkeypatch, tmp_path):
    toks = toolbar_tokens(Counts(2, 1, 14, 3), "/srv/mem")
    text = toolbar_text(toks)
    assert text.startswith(" queue 2 │ dormant 1 │ facts 14 │ sessions 3 │ /srv/mem │ Alt-a accept")
    assert ("class:bottom-toolbar.alert", "2") in toks
    assert ("class:bottom-toolbar.alert", "0") not in toolbar_tokens(Counts(), "/x")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert display_path(tmp_path / ".mem") == "~/.mem"
    assert display_path("/elsewhere") == "/elsewhere"


def test_side_by_side():
    rows = side_by_side("old", "a\nb\nc", "new", "a\nB\nc\nd", width=23)
    assert rows[0].startswith("old") and "new" in rows[0]
    body = rows[2:]
    col = (23 - 3) // 2
    assert body == [f"{'a':<{col}}   a", f"{'b':<{col}} | B", f"{'c':<{col}}   c", f"{'':<{col}} > d"]
    wide = side_by_side("l", "日本語のテキスト", "r", "x", width=23)  # wide characters wrap by columns
    assert all(len(r) <= 30 for r in wide)
    assert side_by_side("l", "\x1b[31mred", "r", "", width=40)[2].startswith("\\x1b[31mred")
