"""Session 20 (lane w20a): ``mem import markdown DIR`` reads only DIR:
a symlink to a file outside it, or a file below a symlinked folder that
points outside, is skipped unread and named (real ``mem`` processes)."""

from __future__ import annotations

import json


def test_import_markdown_does_not_follow_symlinks_out_of_the_folder(mem, tmp_path):
    notes, out = tmp_path / "notes", tmp_path / "elsewhere"
    (out / "deep").mkdir(parents=True)
    notes.mkdir()
    (out / "secret.md").write_text("outside secret walrus note\n")
    (out / "deep" / "x.md").write_text("deep outside walrus note\n")
    (notes / "a.md").write_text("inside note\n")
    (notes / "alias.md").symlink_to("a.md")                 # inside: read
    (notes / "link.md").symlink_to(out / "secret.md")       # outside: skipped
    (notes / "dirlink").symlink_to(out / "deep")            # a folder outside (rglob may follow it)
    (notes / "via.md").symlink_to(notes / "dirlink" / "x.md")
    r = json.loads(mem("import", "markdown", str(notes), "--json").stdout)
    assert sorted(r["keys"]) == ["user/notes/notes/a", "user/notes/notes/alias"], r
    skipped = {s["path"]: s["reason"] for s in r["skipped"]}
    assert skipped[str(notes / "link.md")] == "a symlink to a file outside the folder: not read"
    assert skipped[str(notes / "via.md")] == "a symlink to a file outside the folder: not read"
    assert "walrus" not in mem("search", "walrus", exit_code=None).stdout
    t = mem("import", "markdown", str(notes))
    assert f"skipped {notes / 'link.md'}: a symlink to a file outside the folder" in t.stderr, t.stderr
    mem("import", "markdown", str(notes / "link.md"))       # a file named itself is read
    assert "outside secret walrus note" in mem("get", "user/notes/notes/link").stdout
