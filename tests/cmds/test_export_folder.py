"""`mem export --format markdown -o DIR` never writes over the person's own
files, and replaces a previous export whole (test32 X21)."""

from __future__ import annotations


def test_a_folder_of_the_persons_files_is_refused_and_left_as_it_was(mem, store_path, tmp_path):
    mem("remember", "user/editor", "helix")
    notes = tmp_path / "mynotes"
    (notes / "facts" / "user").mkdir(parents=True)
    (notes / "README.md").write_text("MY IMPORTANT NOTES - do not lose\n")
    (notes / "facts" / "user" / "editor.md").write_text("my own file\n")
    r = mem("export", "--format", "markdown", "-o", str(notes), exit_code=6)
    assert "is not a previous mem export" in r.stderr and "nothing written" in r.stderr
    assert (notes / "README.md").read_text() == "MY IMPORTANT NOTES - do not lose\n"
    assert (notes / "facts" / "user" / "editor.md").read_text() == "my own file\n"
    assert sorted(p.name for p in notes.rglob("*")) == ["README.md", "editor.md", "facts", "user"]


def test_a_previous_export_is_replaced_whole(mem, store_path, tmp_path):
    mem("remember", "user/editor", "helix")
    mem("remember", "user/old-token-name", "the staging bucket is called plum-basin")
    out = tmp_path / "export"
    out.mkdir()
    mem("export", "--format", "markdown", "-o", str(out))
    assert (out / "facts" / "user" / "old-token-name.md").is_file() and (out / ".mem-export").is_file()
    mem("forget", "user/old-token-name", "--yes")
    mem("export", "--format", "markdown", "-o", str(out))   # the same folder: a previous export, replaced
    assert not (out / "facts" / "user" / "old-token-name.md").exists()
    assert "plum-basin" not in "".join(p.read_text() for p in out.rglob("*") if p.is_file())
    assert "helix" in (out / "facts" / "user" / "editor.md").read_text()
    assert sorted(p.name for p in out.iterdir()) == [".mem-export", "README.md", "facts"]


def test_an_export_made_before_the_mark_is_recognised(mem, store_path, tmp_path):
    mem("remember", "user/editor", "helix")
    out = tmp_path / "old"
    (out / "facts" / "user").mkdir(parents=True)
    (out / "facts" / "user" / "gone.md").write_text("# user/gone\n\nold value\n")
    (out / "README.md").write_text("# mem export\n\nExported 2026-01-01.\n")
    mem("export", "--format", "markdown", "-o", str(out))
    assert not (out / "facts" / "user" / "gone.md").exists() and (out / "facts" / "user" / "editor.md").is_file()
