"""Names a command would echo or store in the clear go through the one name
rule (test17 T6, T7): ``mem import markdown`` skips a note whose path holds
a credential, counted and never shown (checked as written: the key it
would get is lower-cased, past the rule), and a missing path holding one is
not echoed; ``mem exclude --add GLOB`` refuses a glob holding one (exit 2,
not echoed, nothing written) and ``--remove`` takes out one written by
hand without echoing it.  Real files, a real ``mem``."""

from __future__ import annotations

TOKEN = "ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9"
AWS = "AKIAIOSFODNN7EXAMPLE"


def _store_bytes(store) -> bytes:
    return b"".join(p.read_bytes() for p in store.rglob("*") if p.is_file())


def test_import_markdown_skips_a_path_holding_a_credential_without_showing_it(mem, tmp_path):
    notes = tmp_path / "notes"
    (notes / TOKEN).mkdir(parents=True)
    (notes / "sub").mkdir()
    (notes / TOKEN / "n.md").write_text("note one\n")
    (notes / "sub" / f"{AWS}.md").write_text("note two\n")
    (notes / "sub" / "fine.md").write_text("note three\n")
    r = mem("import", "markdown", str(notes), "--scope", "project/notes")
    assert "imported 1 note" in r.stdout
    assert TOKEN not in r.stdout + r.stderr and AWS not in r.stdout + r.stderr
    assert r.stderr.count("(a path holding a credential, not shown)") == 2
    j = mem("import", "markdown", str(notes), "--scope", "project/notes", "--json").json
    assert j["keys"] == ["project/notes/notes/notes/sub/fine"] and len(j["skipped"]) == 2
    assert TOKEN not in str(j) and AWS not in str(j)
    keys = mem("keys").stdout
    assert AWS.lower() not in keys and "fine" in keys
    store = tmp_path / "store"
    assert AWS.lower().encode() not in _store_bytes(store).lower()   # no key, no ledger line, no source
    # a folder whose own path holds one: every note skipped, no ledger entry naming it
    folder = tmp_path / AWS
    folder.mkdir()
    (folder / "a.md").write_text("x\n")
    r = mem("import", "markdown", str(folder))
    assert "0 notes" in r.stdout and AWS not in r.stdout + r.stderr
    r = mem("import", "markdown", str(folder / "missing"), exit_code=4)
    assert AWS not in r.stderr and "(a path holding a credential, not shown)" in r.stderr
    assert AWS.lower().encode() not in _store_bytes(store).lower()


def test_exclude_refuses_a_glob_holding_a_credential_and_removes_one_unseen(mem, tmp_path):
    glob = f"/home/x/{TOKEN}/**"
    mem("init")
    for args in (("--add", glob, "--apply"), ("--add", glob)):
        r = mem("exclude", *args, exit_code=2)
        assert "the glob holds a credential" in r.stderr and TOKEN not in r.stdout + r.stderr
    store = tmp_path / "store"
    assert TOKEN.encode() not in _store_bytes(store)
    # one written by hand (an older mem): listed and removed without being shown
    mem("exclude", "--add", "/tmp/ok", "--apply")
    cfg = store / "config.toml"
    cfg.write_text(cfg.read_text().replace('"/tmp/ok"', f'"{glob}", "/tmp/ok"'))
    r = mem("exclude", "--list")
    assert TOKEN not in r.stdout and "(a glob holding a credential, not shown)" in r.stdout
    r = mem("exclude", "--remove", glob)
    assert TOKEN not in r.stdout + r.stderr and "removed" in r.stdout
    assert TOKEN not in cfg.read_text() and "/tmp/ok" in cfg.read_text()
