"""Session 41 lead's small fixes, through real ``mem`` processes."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_a_push_with_nothing_to_send_says_so(mem, tmp_path):
    """test41 T16: a second push said only "received no new object (588 B
    read)", the same line as a pull's."""
    h = ["--home", str(tmp_path / "s")]
    (tmp_path / "r").mkdir()
    mem(*h, "remember", "user/a", "b", env=PERSON)
    mem(*h, "remote", "add", "origin", str(tmp_path / "r"), env=PERSON)
    assert "sent 1 object" in mem(*h, "push", env=PERSON).stdout
    out = mem(*h, "push", env=PERSON).stdout
    assert out.startswith("origin: sent no object: the remote had everything"), out
    assert "sent no object" not in mem(*h, "pull", env=PERSON).stdout


def test_a_remote_url_names_a_folder_on_one_line(mem, tmp_path):
    """test41 T15: ``mem remote add r file://`` recorded the working folder;
    a newline in a folder's path was printed raw by status and ``remote -v``,
    forging a line that read as another remote."""
    import json
    h = ["--home", str(tmp_path / "s")]
    mem(*h, "remember", "user/a", "b", env=PERSON)
    r = mem(*h, "remote", "add", "r10", "file://", exit_code=2, env=PERSON)
    assert "names no folder" in r.stderr, r.stderr
    odd = tmp_path / "x\nremote fake: in sync"
    odd.mkdir()
    r = mem(*h, "remote", "add", "nl", str(odd), exit_code=2, env=PERSON)
    assert "control character" in r.stderr, r.stderr
    assert mem(*h, "remote", "list", "--json", env=PERSON).json == []
    # a hand-edited remotes.json: shown escaped, named unusable
    (tmp_path / "s" / "remotes.json").write_text(json.dumps({"nl": {"url": str(odd), "encrypt": False}}))
    for args in (("status",), ("remote", "-v")):
        out = mem(*h, *args, env=PERSON).stdout
        assert not any(line.startswith("remote fake") for line in out.splitlines()), out
        assert "\\nremote fake: in sync" in out, out


def test_forget_match_keeps_the_audit_line_of_a_live_key_whose_name_holds_it(mem, tmp_path):
    """fresh41 F29: a ``--match`` text found only in a live key's name (which
    --match never empties: the refs and reflogs keep it) removed that key's
    write from the audit log; a value holding it still goes."""
    h = ["--home", str(tmp_path / "s")]
    mem(*h, "remember", "project/api/notes-for-zanzibar-7731", "some note", env=PERSON)
    mem(*h, "forget", "--match", "zanzibar-7731", "--yes", env=PERSON)
    assert "project/api/notes-for-zanzibar-7731" in mem(*h, "audit", env=PERSON).stdout
    mem(*h, "remember", "project/api/other", "zanzibar-7731 is here", env=PERSON)
    mem(*h, "forget", "--match", "zanzibar-7731", "--yes", env=PERSON)
    audit = (tmp_path / "s" / "logs" / "audit").read_text()
    assert "project/api/notes-for-zanzibar-7731" in audit, audit
    assert "zanzibar-7731 is here" not in audit
    assert mem(*h, "get", "project/api/notes-for-zanzibar-7731", env=PERSON).stdout == "some note\n"


def test_a_scoped_guarded_export_carries_the_forget_match_texts(mem, tmp_path):
    """test41 T12: ``export --scope user --guard-passphrase-file`` left out
    the text tombstone of a ``forget --match`` that emptied a user key (it
    names no key), so the importing store let an agent write the text back."""
    a, b = ["--home", str(tmp_path / "a")], ["--home", str(tmp_path / "b")]
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery\n")
    mem(*a, "remember", "user/pin-hint", "my locker code is quetzal-okapi-88", env=PERSON)
    mem(*a, "forget", "--match", "quetzal-okapi-88", "--yes", env=PERSON)
    out = tmp_path / "u.jsonl"
    mem(*a, "export", "--scope", "user", "--guard-passphrase-file", str(pp), "-o", str(out), env=PERSON)
    assert b"quetzal" not in out.read_bytes().lower()
    mem(*b, "import", "jsonl", str(out), "--guard-passphrase-file", str(pp), env=PERSON)
    for v in ("quetzal-okapi-88", "quetzal okapi 88"):
        r = mem(*b, "remember", "project/z/a", v, env={"MEM_AGENT": "claude"}, exit_code=6)
        assert "forgotten" in r.stderr, (v, r.stderr)


def test_a_sealed_or_forgotten_value_as_a_key_session_or_agent_name_is_refused(mem, tmp_path):
    """test41 T26: ``mem remember user/okapi-quetzal-5521 v`` beside the
    sealed ``okapi-quetzal-5521`` wrote the secret into a ref's file name,
    the reflogs, the audit log and every session's block; an agent wrote a
    forgotten value as a key name.  Refused as the value would be (exit 6),
    the name not echoed."""
    h = ["--home", str(tmp_path / "s")]
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem(*h, "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    mem(*h, "remember", "user/h1", "okapi-quetzal-5521", "--sensitivity", "secret", env=PERSON)
    for args, env in ((("user/okapi-quetzal-5521", "v"), PERSON),
                      (("project/okapi-quetzal-5521/note", "v"), PERSON),
                      (("project/x/a", "v", "--session", "okapi-quetzal-5521"), PERSON),
                      (("project/x/b", "v"), {"MEM_AGENT": "okapi-quetzal-5521"})):
        r = mem(*h, "remember", *args, env=env, exit_code=6)
        assert "holds the sealed value of user/h1" in r.stderr and "okapi" not in r.stderr, r.stderr
    assert not list((tmp_path / "s" / "refs" / "facts").rglob("*okapi*"))
    mem(*h, "remember", "project/box/host", "kestrel-harbor-204.internal", env=PERSON)
    mem(*h, "forget", "project/box/host", "--yes", env=PERSON)
    r = mem(*h, "remember", "project/kestrel-harbor-204.internal/x", "v", env={"MEM_AGENT": "claude"}, exit_code=6)
    assert "holds a forgotten value" in r.stderr, r.stderr
    mem(*h, "remember", "project/kestrel-harbor-204.internal/x", "v", env=PERSON)   # the person may
    mem(*h, "remember", "project/x/fine", "v", env={"MEM_AGENT": "claude"})
