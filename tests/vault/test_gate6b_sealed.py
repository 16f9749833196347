"""fresh6-attack 12, 13, 28 (and 15's seal/unseal): the vault's person-only
actions refuse an agent caller (exit 6, ``caller.require_person``), and an
agent's sealed write never replaces a sealed value the person stated.  Every
command is a real ``mem`` process; the vault is made through the library at
a low work factor (tests/vault/conftest.py)."""

from __future__ import annotations

AGENT = {"CLAUDECODE": "1"}


def _refused(r):
    assert "person's decision" in r.stderr and "(claude-code)" in r.stderr and "nothing changed" in r.stderr, r.stderr


def test_an_agent_cannot_create_the_vault_and_choose_its_passphrase(mem, store_path, tmp_path):
    """13: 'mem vault init' by an agent is refused before anything is created."""
    pp = tmp_path / "agentpp"
    pp.write_text("agent-chosen passphrase\n")
    _refused(mem("vault", "init", "--passphrase-file", str(pp), env=AGENT, exit_code=6))
    assert not (store_path / "vault").exists()
    r = mem("vault", "info", "--json", exit_code=None)
    assert r.exit_code in (4, 10), r.stderr   # no vault (and no store: nothing was created)


def test_an_agent_cannot_forget_seal_or_unseal(mem, vstore, pwfile):
    """12 and 15: sealed forget (even --yes), seal and unseal are the person's."""
    mem("remember", "user/bank/pin", "-", "--sensitivity", "secret", input="4711\n")
    _refused(mem("sealed", "forget", "user/bank/pin", "--yes", env=AGENT, exit_code=6))
    assert [k["key"] for k in mem("sealed", "list", "--json").json] == ["user/bank/pin"]
    _refused(mem("unseal", "user/bank/pin", "--passphrase-file", str(pwfile), env=AGENT, exit_code=6))
    mem("remember", "project/v/dbpw", "velvet-harbor-6613")
    _refused(mem("seal", "project/v/dbpw", env=AGENT, exit_code=6))
    assert mem("get", "project/v/dbpw").stdout.strip() == "velvet-harbor-6613"
    mem("sealed", "forget", "user/bank/pin", "--yes")   # the person's own path
    assert mem("sealed", "list", "--json").json == []


def test_an_agent_sealed_write_never_replaces_what_the_person_sealed(mem, vstore, pwfile, tmp_path):
    """28: the agent's 'remember --sensitivity secret' over the person's
    sealed value is refused (sealed values are not queued), and its
    'sealed import' is agent_observed (refused over the person's value;
    --trust user_stated refused), owner the agent."""
    mem("remember", "user/bank/pin", "-", "--sensitivity", "secret", input="4711\n")
    r = mem("remember", "user/bank/pin", "-", "--sensitivity", "secret", input="0000\n", env=AGENT, exit_code=6)
    assert "does not replace the user_stated one" in r.stderr
    show = ("sealed", "show", "user/bank/pin", "--passphrase-file", str(pwfile))
    assert mem(*show).stdout.strip() == "4711"
    age = tmp_path / "pin.age"
    PP = ("--passphrase-file", str(pwfile))   # (the import opens the file: session 38)
    mem("sealed", "export", "user/bank/pin", "--armor", "-o", str(age))
    r = mem("sealed", "import", "user/bank/pin", str(age), *PP, env=AGENT, exit_code=6)
    assert "does not replace the user_stated one" in r.stderr
    _refused(mem("sealed", "import", "user/bank/pin", str(age), *PP, "--trust", "user_stated", env=AGENT, exit_code=6))
    assert len(mem("log", "user/bank/pin", "--json").json) == 1
    # a key the person has not stated: the agent's import is written agent_observed, as the agent
    mem("sealed", "import", "user/agent/token", str(age), *PP, env=AGENT)
    v = mem("log", "user/agent/token", "--json").json[0]
    assert v["trust"] == "agent_observed" and v["owner"] == "claude-code", v
    # the person's own import and sealed write still replace
    mem("sealed", "import", "user/bank/pin", str(age), *PP)
    mem("remember", "user/bank/pin", "-", "--sensitivity", "secret", input="1234\n")
    assert mem(*show).stdout.strip() == "1234"
