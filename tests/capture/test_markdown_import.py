"""mem import markdown / codex-memory: notes as keys, idempotent, superseding, retiring."""

from __future__ import annotations


def _note(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_notes_become_keys_idempotently_and_follow_the_files(invoke, tmp_path):
    notes = tmp_path / "notes"
    _note(notes / "deploy.md", "---\nkey: project/acme/deploy\nkind: reference\nvalid_from: 2026-01-05\n---\n"
                               "Deploy with make ship.\n")
    _note(notes / "sub" / "Editor Setup.md", "# Editor\n\nI use helix.\n")
    r = invoke("import", "markdown", str(notes), "--json").json
    assert (r["files"], r["written"]) == (2, 2)
    assert set(r["keys"]) == {"project/acme/deploy", "user/notes/notes/sub/editor-setup"}
    v = invoke("log", "project/acme/deploy", "--json").json[0]
    assert (v["kind"], v["trust"], v["body"]) == ("reference", "agent_observed", "Deploy with make ship.")
    assert v["valid_from"] == 1767571200000 and v["owner"] == "markdown:notes"
    assert v["sources"][0].startswith("md:") and v["sources"][0].endswith(":deploy.md")
    again = invoke("import", "markdown", str(notes), "--json").json
    assert (again["written"], again["unchanged"]) == (0, 2)
    _note(notes / "deploy.md", "---\nkey: project/acme/deploy\n---\nDeploy with make release.\n")
    (notes / "sub" / "Editor Setup.md").unlink()
    r = invoke("import", "markdown", str(notes), "--json").json
    assert (r["written"], r["retired"]) == (1, 1)
    assert invoke("get", "project/acme/deploy").stdout.strip() == "Deploy with make release."
    gone = invoke("log", "user/notes/notes/sub/editor-setup", "--json").json[0]
    assert gone["dormant"] is True and gone["body"] == "# Editor\n\nI use helix."


def test_imported_notes_never_overrule_the_person(invoke, tmp_path):
    invoke("remember", "user/editor", "vim")
    _note(tmp_path / "n" / "e.md", "---\nkey: user/editor\n---\nemacs\n")
    r = invoke("import", "markdown", str(tmp_path / "n"), "--json").json
    assert r["queued"] == 1 and invoke("get", "user/editor").stdout.strip() == "vim"
    r = invoke("import", "markdown", str(tmp_path / "n"), "--mine", "--json").json
    assert r["written"] == 1 and invoke("get", "user/editor").stdout.strip() == "emacs"


def test_a_long_note_is_split_at_headings_into_ordered_parts(invoke, tmp_path):
    body = "".join(f"## Section {i}\n\n" + ("word " * 4000) + "\n\n" for i in range(8))  # ~160k chars
    _note(tmp_path / "n" / "big.md", body)
    r = invoke("import", "markdown", str(tmp_path / "n"), "--json").json
    assert r["keys"] == ["user/notes/n/big/part-1", "user/notes/n/big/part-2"]
    p1 = invoke("get", "user/notes/n/big/part-1").stdout
    p2 = invoke("get", "user/notes/n/big/part-2").stdout
    assert p1.startswith("## Section 0") and p2.startswith("## Section") and len(p1) <= 100_001
    assert p1.count("## Section") + p2.count("## Section") == 8


def test_codex_memory_reads_codex_home(invoke, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    r = invoke("import", "codex-memory")   # no memories folder yet: nothing to import (test25 T11)
    assert "no Codex memories yet" in r.stderr and "0 written" in r.stdout
    _note(tmp_path / "codex" / "memories" / "style.md", "Prefer small commits.\n")
    r = invoke("import", "codex-memory", "--json").json
    assert r["written"] == 1
    assert invoke("log", r["keys"][0], "--json").json[0]["owner"] == "codex"


def test_bad_inputs(invoke, tmp_path):
    invoke("import", "markdown", exit_code=2)
    (tmp_path / "x.txt").write_text("x")
    invoke("import", "markdown", str(tmp_path / "x.txt"), exit_code=2)
    _note(tmp_path / "n" / "bad.md", "---\nkey: no scope here\n---\nvalue\n")
    _note(tmp_path / "n" / "ok.md", "fine\n")
    r = invoke("import", "markdown", str(tmp_path / "n"), "--json").json
    assert r["written"] == 1 and r["skipped"][0]["path"].endswith("bad.md")


def test_one_file_retires_nothing_else_and_scopes_keep_their_own_ledger(invoke, tmp_path):
    for n in ("a", "b", "c"):
        _note(tmp_path / "n" / f"{n}.md", f"note {n}\n")
    invoke("import", "markdown", str(tmp_path / "n"))
    _note(tmp_path / "n" / "a.md", "note a, changed\n")
    r = invoke("import", "markdown", str(tmp_path / "n" / "a.md"), "--json").json
    assert (r["written"], r["retired"]) == (1, 0)
    assert invoke("log", "user/notes/n/b", "--json").json[0]["dormant"] is False
    r = invoke("import", "markdown", str(tmp_path / "n"), "--scope", "project/p", "--json").json
    assert r["retired"] == 0 and r["written"] == 3
    assert invoke("log", "user/notes/n/c", "--json").json[0]["dormant"] is False
    (tmp_path / "x.md").write_bytes(b"caf\xe9 latin-1\n")
    r = invoke("import", "markdown", str(tmp_path / "x.md"), "--json").json
    assert r["skipped"][0]["reason"] == "not valid UTF-8 text"


def test_one_folder_by_any_spelling_is_one_key_and_a_note_back_is_woken(invoke, tmp_path, monkeypatch):
    """test30 R14: the folder imported as ``.`` or ``..`` names its keys by
    its own name (it named them ``note``, and each import retired the other
    spelling's key, so the note ended dormant under two keys); a note whose
    file vanished (retired: dormant) and came back unchanged is woken."""
    folder = tmp_path / "mdd"
    _note(folder / "notes" / "ops.md", "# Ops notes\n\n- deploy with `make stage`\n")
    key = "user/notes/mdd/notes/ops"
    assert invoke("import", "markdown", str(folder), "--json").json["keys"] == [key]
    monkeypatch.chdir(folder / "notes")
    r = invoke("import", "markdown", "..", "--json").json
    assert r["keys"] == [key] and (r["written"], r["retired"]) == (0, 0)
    monkeypatch.chdir(folder)
    assert invoke("import", "markdown", ".", "--json").json["keys"] == [key]
    assert [k.split()[0] for k in invoke("keys").stdout.splitlines()] == [key]
    saved = (folder / "notes" / "ops.md").read_text()
    (folder / "notes" / "ops.md").unlink()
    assert invoke("import", "markdown", str(folder), "--json").json["retired"] == 1
    assert invoke("log", key, "--json").json[0]["dormant"] is True
    _note(folder / "notes" / "ops.md", saved)
    r = invoke("import", "markdown", str(folder), "--json").json
    assert (r["written"], r["unchanged"]) == (0, 1)
    now = invoke("log", key, "--json").json[0]
    assert now["dormant"] is False and "make stage" in now["body"]


def test_two_folders_of_one_name_keep_their_own_keys(invoke, tmp_path):
    """test30b S9: ``p1/docs`` and ``p2/docs`` shared ``user/notes/docs/…``:
    each import overwrote the other's note and a file deleted in one
    retired the other's.  The folder imported second gets its name and 6
    hex of its id."""
    _note(tmp_path / "p1" / "docs" / "ops.md", "deploy with make a\n")
    _note(tmp_path / "p2" / "docs" / "ops.md", "deploy with make b\n")
    a = invoke("import", "markdown", str(tmp_path / "p1" / "docs"), "--json").json["keys"]
    b = invoke("import", "markdown", str(tmp_path / "p2" / "docs"), "--json").json["keys"]
    assert a == ["user/notes/docs/ops"] and len(b) == 1 and b[0].startswith("user/notes/docs-") and b != a
    assert invoke("import", "markdown", str(tmp_path / "p1" / "docs"), "--json").json["unchanged"] == 1
    (tmp_path / "p2" / "docs" / "ops.md").unlink()
    assert invoke("import", "markdown", str(tmp_path / "p2" / "docs"), "--json").json["retired"] == 1
    assert invoke("get", "user/notes/docs/ops").stdout.strip() == "deploy with make a"
    assert invoke("log", "user/notes/docs/ops", "--json").json[0]["dormant"] is False


def test_a_moved_notes_folder_keeps_its_key(invoke, tmp_path):
    """test30c T8: a notes folder moved (or its parent renamed) is the same
    notes: it keeps its key rather than taking a second one (``docs-<hex>``)
    beside the old, which stayed current."""
    _note(tmp_path / "old" / "docs" / "ops.md", "deploy with make a\n")
    assert invoke("import", "markdown", str(tmp_path / "old" / "docs"), "--json").json["keys"] == ["user/notes/docs/ops"]
    (tmp_path / "old").rename(tmp_path / "new")
    r = invoke("import", "markdown", str(tmp_path / "new" / "docs"), "--json").json
    assert r["keys"] == ["user/notes/docs/ops"] and r["unchanged"] == 1

