"""A damaged ``remotes.json`` or ``sync-key`` (lane rob11): every command
that reads it exits 13 (a damaged store file, docs/exit-codes.md) naming the
file and what to do; ``mem fsck`` reports it; ``--repair`` says what the
user must do and never rewrites nor deletes either file."""

from __future__ import annotations

import json

import pytest

from objstore import IntegrityError
from objstore.remote.config import add_remote, damage, ensure_key, list_remotes, read_key

PERSON = {"MEM_AGENT": "0"}

REMOTES = [b"garbage\xff\x00", b'{"origin": {"url"', b"[1, 2]", b"", b" \n", b'{"origin": 5}', b'{"origin": {}}',
           b'{"origin": {"url": "/x", "encrypt": "yes"}}', b'{"origin": {"url": "/x", "endpoint": 3}}']
KEYS = [b"garbage\xff\x00", b"AGE-SECRET-KEY-1QQQ", b"", b"# created: 2026-01-01T00:00:00Z\n", "cut"]


def test_every_damaged_shape_is_an_integrity_error_and_damage_names_it(store, tmp_path):
    """On the real files of a store: each damaged remotes.json or sync-key
    is IntegrityError (exit 13) for its readers and one line of damage()."""
    (tmp_path / "remote").mkdir()   # (beside the store: one holding it is refused, fresh43 F14)
    add_remote(store, "origin", str(tmp_path / "remote"))
    good_remotes = (store.root / "remotes.json").read_bytes()
    good_key = (store.root / "sync-key").read_bytes() if ensure_key(store) else b""
    assert damage(store) == []
    for data in REMOTES:
        (store.root / "remotes.json").write_bytes(data)
        with pytest.raises(IntegrityError, match="remotes.json is damaged"):
            list_remotes(store)
        [(problem, todo)] = damage(store)
        assert problem.startswith("remotes.json is damaged") and "mem remote add" in todo
        assert (store.root / "remotes.json").read_bytes() == data
    (store.root / "remotes.json").write_bytes(good_remotes)
    for data in KEYS:
        data = good_key[:-30] if data == "cut" else data
        (store.root / "sync-key").write_bytes(data)
        with pytest.raises(IntegrityError, match="sync-key is damaged"):
            read_key(store)
        with pytest.raises(IntegrityError):
            ensure_key(store)                 # never replaced by a new key
        [(problem, todo)] = damage(store)
        assert problem.startswith("sync-key is damaged") and "cannot be read" in todo
        assert (store.root / "sync-key").read_bytes() == data
    (store.root / "sync-key").unlink()
    (store.root / "remotes.json").unlink()
    assert damage(store) == [] and read_key(store) is None and list_remotes(store) == []


@pytest.fixture
def pushed(mem, tmp_path):
    """A store that pushed once to an encrypted folder remote: (home, remote)."""
    home, remote = tmp_path / "s", tmp_path / "remote"
    remote.mkdir()
    mem("--home", str(home), "remember", "user/editor", "vim", env=PERSON)
    mem("--home", str(home), "remote", "add", "origin", str(remote), env=PERSON)
    mem("--home", str(home), "push")
    assert (home / "sync-key").is_file()
    return home, remote


def test_damaged_remotes_json_exits_13_and_fsck_reports_it(mem, pushed):
    home, _ = pushed
    for data, args in ((b"[1, 2]", ["remote", "list"]), (b'{"origin": {}}', ["push"]), (b"", ["pull"])):
        (home / "remotes.json").write_bytes(data)
        r = mem("--home", str(home), *args, exit_code=13)
        assert "remotes.json is damaged" in r.stderr, (args, r.stderr)
        assert "mem remote add" in r.stderr and "internal error" not in r.stderr
    r = mem("--home", str(home), "fsck", exit_code=13)
    assert "error: remotes.json is damaged: empty" in r.stdout
    assert "hint: remotes.json: it holds no secret" in r.stderr and "--repair" not in r.stderr
    r = mem("--home", str(home), "fsck", "--repair", exit_code=13)
    assert "repair: left remotes.json as it is" in r.stdout
    assert "nothing to repair" not in r.stdout, r.stdout   # (it said both: fresh43 F3)
    r = mem("--home", str(home), "doctor", exit_code=1)          # a finding, not the end of doctor
    assert "[remotes] remotes.json is damaged: empty" in r.stdout and "mem remote add" in r.stdout
    assert (home / "remotes.json").read_bytes() == b""        # never rewritten


def test_damaged_sync_key_exits_13_repair_keeps_it_and_import_mends_it(mem, pushed):
    home, _ = pushed
    good = (home / "sync-key").read_bytes()
    data = good[:-30]
    (home / "sync-key").write_bytes(data)
    for args in (["push"], ["remote", "key", "export", "-o", str(home.parent / "k.txt")]):
        r = mem("--home", str(home), *args, env=PERSON, exit_code=13)
        assert "sync-key is damaged" in r.stderr, (args, r.stderr)
        assert "internal error" not in r.stderr
    r = mem("--home", str(home), "fsck", "--repair", "--json", exit_code=13)
    doc = json.loads(r.stdout)
    assert any(p.startswith("sync-key is damaged") for p in doc["problems"])
    assert any(x.startswith("left sync-key as it is") for x in doc["repair"]["left_for_you"])
    assert (home / "sync-key").read_bytes() == data            # never deleted, never rewritten
    # the way out the message names: move it away, import the good key
    (home / "sync-key").rename(home / "sync-key.damaged")
    (home.parent / "good.key").write_bytes(good)
    mem("--home", str(home), "remote", "key", "import", str(home.parent / "good.key"), env=PERSON)
    mem("--home", str(home), "pull")
    mem("--home", str(home), "fsck")


def test_hand_edited_remotes_json_holding_a_credential_is_damage_never_shown(mem, pushed):
    """fresh37 F3: a URL, endpoint or name holding a credential written into
    remotes.json by hand was printed by ``mem status`` (every format) and
    ``mem remote list``; ``mem remote add`` refuses it, so the file holding
    one is damage (exit 13), named by field, the credential never shown."""
    home, remote = pushed
    secrets = ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "hunter2pass-77")
    cases = ({"origin": {"url": f"s3://AKIAIOSFODNN7EXAMPLE:{secrets[0]}@bucket/mem", "encrypt": True}},
             {"origin": {"url": str(remote), "endpoint": f"https://user:{secrets[1]}@host.example"}},
             {"ok": {"url": str(remote)}, "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB": {"url": str(remote)}})
    for d, said in zip(cases, ("the URL of remote 'origin'", "the endpoint of remote 'origin'",
                               "the name of remote #2")):
        (home / "remotes.json").write_text(json.dumps(d))
        for args in (["status"], ["status", "--json"], ["status", "--plain"], ["remote", "list"], ["push"]):
            r = mem("--home", str(home), *args, exit_code=13)
            out = r.stdout + r.stderr
            assert f"{said} holds a credential (not shown)" in out, (args, out)
            assert "take the credential out of remotes.json" in out
            assert not any(s in out for s in (*secrets, "AKIAIOSFODNN7EXAMPLE", "ghp_1234567890"))
        r = mem("--home", str(home), "fsck", exit_code=13)
        assert f"{said} holds a credential" in r.stdout and secrets[0] not in r.stdout + r.stderr


def test_a_forget_goes_on_when_remotes_json_holds_a_credential(mem, pushed):
    """test38 T7: with a credential written into remotes.json (damage, exit 13
    for the commands that read remotes), ``mem forget KEY``, ``forget --match``
    and ``mem scan`` refused too; a forget is local: it is done, and a
    warning says which remotes hold the value is not known."""
    home, _ = pushed
    mem("--home", str(home), "remember", "project/shop/z2", "plum-vortex-3381", env=PERSON)
    mem("--home", str(home), "remember", "project/shop/z3", "plum-vortex-3382", env=PERSON)
    (home / "remotes.json").write_text('{"origin": {"url": "https://u:hunter2xyz@example.com/m"}}')
    r = mem("--home", str(home), "forget", "project/shop/z2", "--yes", env=PERSON)
    assert "which remotes hold the value is not known" in r.stderr and "hunter2xyz" not in r.stdout + r.stderr
    mem("--home", str(home), "forget", "--match", "plum-vortex-3382", "--yes", env=PERSON)
    mem("--home", str(home), "get", "project/shop/z2", exit_code=4)
    mem("--home", str(home), "get", "project/shop/z3", exit_code=4)
    r = mem("--home", str(home), "scan", "plum-vortex-3381", env=PERSON, exit_code=3)   # not all read (F10)
    assert r.stdout.startswith("found nowhere it could read") and "could not read the remotes" in r.stderr, r
    mem("--home", str(home), "push", exit_code=13)       # what reads the remotes still stops, naming the damage
