"""mem vault: creation (passphrase file, the terminal asking twice, --pq),
its files and their format, refusals, and what the vault commands import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from objstore.vault import age
from objstore.memory.opening import open_store

REPO = Path(__file__).resolve().parents[2]
PASSPHRASE = "correct horse battery staple"  # as tests/vault/conftest.py writes to pwfile


def test_init_with_passphrase_file_uses_age_default_work_factor(mem, store_path, pwfile):
    r = mem("vault", "init", "--passphrase-file", str(pwfile))
    assert "if it is lost, every sealed value is lost with it" in r.stdout
    assert "age -d -i" in r.stdout
    rcpt = (store_path / "vault" / "recipient").read_text()
    assert rcpt.startswith("age1") and rcpt.endswith("\n") and not rcpt.startswith("age1pq")
    ident = (store_path / "vault" / "identity.age").read_bytes()
    # an scrypt stanza: "-> scrypt <salt> <work factor>", age's default 18
    first = ident.split(b"\n")[1].split()
    assert first[:2] == [b"->", b"scrypt"] and first[3] == b"18"
    text = age.decrypt(ident, passphrase=PASSPHRASE.encode()).decode()
    ids = age.parse_identity_file(text)
    assert age.recipient_of(ids[0]) == rcpt.strip()
    assert f"# public key: {rcpt.strip()}" in text
    assert (store_path / "vault" / "identity.age").stat().st_mode & 0o077 == 0
    assert mem("vault", "recipient").stdout == rcpt
    info = mem("vault", "info", "--json").json
    assert info["recipient"] == rcpt.strip() and info["sealed_keys"] == 0 and not info["postquantum"]
    # a second vault would orphan every sealed value: refused before any prompt
    r = mem("vault", "init", "--passphrase-file", str(pwfile), exit_code=6)
    assert "already has a vault" in r.stderr
    assert (store_path / "vault" / "recipient").read_text() == rcpt


def test_short_passphrase_and_no_terminal(mem, store_path, tmp_path):
    short = tmp_path / "short"
    short.write_text("eleven char\n")
    r = mem("vault", "init", "--passphrase-file", str(short), exit_code=2)
    assert "at least 12 characters" in r.stderr
    assert not (store_path / "vault" / "recipient").exists()
    r = mem("vault", "init", input="", exit_code=2)  # stdin is a pipe: never prompts
    assert "--passphrase-file" in r.stderr and "Traceback" not in r.stderr
    mem("vault", "init", "--passphrase-file", str(tmp_path / "missing"), exit_code=4)
    mem("vault", "recipient", exit_code=10)   # a refused init leaves no store behind (fresh40 F11)
    assert not store_path.exists()
    mem("remember", "user/a", "b")
    mem("vault", "recipient", exit_code=4)    # a store, and no vault


def test_passphrase_from_stdin(mem, store_path):
    mem("vault", "init", "--passphrase-file", "-", input=PASSPHRASE + "\n")
    ident = (store_path / "vault" / "identity.age").read_bytes()
    assert age.decrypt(ident, passphrase=PASSPHRASE.encode())


def _mem_argv(*args):
    return [sys.executable, "-m", "cmds", *args]


def test_init_on_a_terminal_asks_twice(tty, store_path, tmp_path):
    import os
    env = dict(os.environ)
    code, out = tty(_mem_argv("vault", "init"), [PASSPHRASE, PASSPHRASE], env=env, cwd=REPO)
    assert code == 0, out
    assert out.count("assphrase") >= 2 and PASSPHRASE not in out  # hidden input, asked twice
    assert "lost" in out
    ident = (store_path / "vault" / "identity.age").read_bytes()
    assert age.decrypt(ident, passphrase=PASSPHRASE.encode())
    # mismatched confirmation: nothing created
    env["MEM_HOME"] = str(tmp_path / "other")
    code, out = tty(_mem_argv("vault", "init"), [PASSPHRASE, PASSPHRASE + "x"], env=env, cwd=REPO)
    assert code == 2, out
    assert "differ" in out
    assert not (tmp_path / "other" / "vault" / "recipient").exists()


def test_pq_vault_seals_and_reads(store, invoke, pwfile):
    if not age.hybrid_supported():
        pytest.skip("this cryptography build has no ML-KEM-768")
    from objstore.vault import chains, identity, sealed as vault
    info = identity.init_vault(store, PASSPHRASE, pq=True, work_factor=10)
    assert info.postquantum and info.recipient.startswith("age1pq1")
    vault.remember_sealed(store, "user/pq/code", "quantum-safe 123")
    sv = chains.sealed_versions(store, "user/pq/code")[0]
    assert b"-> mlkem768x25519 " in sv.sealed.age
    ids = identity.open_identity(store, PASSPHRASE)
    assert vault.open_text(ids, sv) == "quantum-safe 123"
    assert invoke("sealed", "show", "user/pq/code", "--passphrase-file", str(pwfile)).stdout == "quantum-safe 123\n"
    assert invoke("vault", "info", "--json").json["postquantum"] is True


def test_pq_unsupported_is_a_clear_error(invoke, store_path, pwfile, monkeypatch):
    # the installed cryptography supports ML-KEM; pretend it does not, as an older one would
    monkeypatch.setattr(age, "hybrid_supported", lambda: False)
    r = invoke("vault", "init", "--pq", "--passphrase-file", str(pwfile), exit_code=1)
    assert "ML-KEM-768" in r.stderr and "without --pq" in r.stderr
    assert not (store_path / "vault" / "recipient").exists()


def test_interrupted_init_leaves_no_vault_and_can_be_redone(store, pwfile, invoke):
    from objstore.vault import identity
    rpath, ipath = identity.vault_paths(store)
    ipath.parent.mkdir(parents=True)
    ipath.write_bytes(b"age-encryption.org/v1\n-> scrypt half written")  # a crash before the recipient
    assert not identity.has_vault(store)
    invoke("vault", "info", exit_code=4)
    invoke("vault", "init", "--passphrase-file", str(pwfile))
    assert identity.open_identity(store, PASSPHRASE)


def test_vault_commands_document_themselves():
    import importlib

    import click

    from cmds.main import COMMANDS
    for name in ("vault", "sealed", "seal", "unseal"):
        cmd = importlib.import_module(COMMANDS[name][0]).command
        subs = cmd.commands.values() if isinstance(cmd, click.Group) else [cmd]
        for sc in subs:
            assert "Examples:" in sc.help and "Exit status" in sc.help, (name, sc.name)
    cli_md = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    for title in ("mem vault init", "mem sealed show", "mem sealed import", "mem seal", "mem unseal"):
        assert f"## {title}\n" in cli_md


def test_reading_paths_do_not_import_cryptography(store_path):
    """get/log/show/search/keys and the library's vault module stay free of
    cryptography (≈25 ms); only encrypting or decrypting imports it."""
    with open_store(store_path, create=True) as s:
        from objstore.memory import facts
        facts.remember(s, "user/x", "plain value")
    code = ("import sys, io, contextlib\n"
            "from cmds.main import main\n"
            "import objstore.vault.sealed\n"
            "for argv in (['--help'], ['get', 'user/x'], ['log', 'user/x'], ['show', 'user/x'], "
            "['keys'], ['search', 'plain'], ['sealed', 'list'], ['vault', '--help']):\n"
            "    with contextlib.redirect_stdout(io.StringIO()):\n"
            "        main(argv)\n"
            "print(json.dumps('cryptography' in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", "import json\n" + code], capture_output=True, text=True,
                         check=True, cwd=REPO).stdout
    assert json.loads(out.strip()) is False
