"""fresh39 F9: a clone, restore or ``backup --list URL`` given ``--key FILE``
of another store said the remote "is encrypted to another sync key than
this store's" and hinted to "clone with --key FILE" — what the user had
just done.  The message now names the file given."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def _key_of_a_store(mem, tmp_path, name):
    home, remote = tmp_path / name, tmp_path / f"{name}-remote"
    remote.mkdir()
    mem("--home", str(home), "remember", "user/x", name, env=PERSON)
    mem("--home", str(home), "remote", "add", "origin", str(remote), env=PERSON)
    mem("--home", str(home), "backup", "origin", env=PERSON)
    key = tmp_path / f"{name}.key"
    mem("--home", str(home), "remote", "key", "export", "-o", str(key), env=PERSON)
    return remote, key


def test_another_stores_key_file_is_named_in_the_refusal(mem, tmp_path):
    remote, _ = _key_of_a_store(mem, tmp_path, "a")
    _, other = _key_of_a_store(mem, tmp_path, "b")
    runs = [("--home", str(tmp_path / "new1"), "clone", str(remote), "--key", str(other)),
            ("--home", str(tmp_path / "new2"), "restore", str(remote), "--latest", "--key", str(other)),
            ("backup", "--list", str(remote), "--key", str(other))]
    for args in runs:
        r = mem(*args, exit_code=12, env=PERSON)
        assert f"another sync key than the one in {other}" in r.stderr, (args, r.stderr)
        assert "this store's" not in r.stderr and "clone with --key" not in r.stderr, r.stderr
    assert not (tmp_path / "new1").exists() and not (tmp_path / "new2" / "config").exists()
