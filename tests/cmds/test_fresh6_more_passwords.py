"""Credential forms that still reached the store in clear (verified with real
``mem`` processes before the rules were added: the prompt hook, the shell
hook and ``mem import claude-code`` all stored them whole): mongo/mongosh
``-p``, ``my pw is X`` / ``pw: X``, a ``user / password`` pair after a
credential word, ``rabbitmqctl add_user|change_password``, here-strings to a
password prompt (``sudo -S <<<``, ``passwd <<<``, ``chpasswd <<< 'u:pw'``),
``net user u pw /add`` and the rest of the family (``net use``, gpg
``--passphrase``, SQL ``IDENTIFIED BY`` / ``WITH PASSWORD``, ``echo u:pw |
chpasswd``, ``sqlcmd -P``, ``ldapsearch -w``, ``smbclient -U u%pw``, ``zip
-P``, ``7z -p``, ``keytool -storepass``, ``mosquitto_pub -P``). Each is now
redacted on every capture path, ``mem scan`` finds none, redacting twice
changes nothing, and the look-alikes stay as typed."""

from __future__ import annotations

import pytest

from tests.cmds._credentials import (assert_none_stored, assert_scan_finds_nothing, check_kept, check_redacted,
                                     import_cases, run_prompt_hooks, run_shell_hook)
from tests.hooks._util import hook_env

# (text, the secret that must disappear, the rule expected to name it)
CASES = [
    ("mongo -u admin -p FakeMongoPw11 --authenticationDatabase admin", "FakeMongoPw11", "cli-password"),
    ("mongo admin -u admin -pFakeMongoPw12", "FakeMongoPw12", "cli-password"),
    ("mongosh --host db1 -u admin -p 'FakeMongoPw13'", "FakeMongoPw13", "cli-password"),
    ("mongodump -u admin --password=FakeMongoPw14 --out /tmp/d", "FakeMongoPw14", "cli-password"),
    ("mysql -uroot -pFakeMysqlPw15 app", "FakeMysqlPw15", "mysql-password"),
    ("mysqladmin -u root -p password fakenewpw16", "fakenewpw16", "cli-password"),
    ("my pw is FakeChatPw21 for staging", "FakeChatPw21", "password-phrase"),
    ("pw: FakeChatPw22", "FakeChatPw22", "generic-secret"),
    ("the passwd is FakeChatPw23", "FakeChatPw23", "password-phrase"),
    ("login admin / Pw!2024fake31", "Pw!2024fake31", "password-phrase"),
    ("creds: admin / Pw!2024fake32", "Pw!2024fake32", "password-phrase"),
    ("log in as deploy:FakePairPw33 then", "FakePairPw33", "password-phrase"),
    ("rabbitmqctl add_user bob FakeRabbitPw41", "FakeRabbitPw41", "cli-password"),
    ("rabbitmqctl -n rabbit@h change_password bob FakeRabbitPw42", "FakeRabbitPw42", "cli-password"),
    ("sudo -S apt update <<< FakeHerePw51", "FakeHerePw51", "cli-password"),
    ("passwd <<< 'FakeHerePw52'", "FakeHerePw52", "cli-password"),
    ("chpasswd <<< 'bob:FakeHerePw53'", "FakeHerePw53", "cli-password"),
    ("docker login -u ci --password-stdin ghcr.io <<< FakeHerePw54", "FakeHerePw54", "cli-password"),
    ("echo 'bob:FakePipePw55' | sudo chpasswd", "FakePipePw55", "cli-password"),
    ("printf 'FakePipePw56\\n' | passwd --stdin bob", "FakePipePw56", "cli-password"),
    ("net user bob FakeNetPw61 /add", "FakeNetPw61", "cli-password"),
    ("NET USER bob FakeNetPw62", "FakeNetPw62", "cli-password"),
    ("net use \\\\srv\\share /user:bob FakeNetPw63", "FakeNetPw63", "cli-password"),
    ("gpg --batch --passphrase FakeGpgPw71 -d notes.gpg", "FakeGpgPw71", "cli-password"),
    ("wget --http-password FakeWgetPw72 https://x/y", "FakeWgetPw72", "cli-password"),
    ("psql -c \"ALTER ROLE app WITH PASSWORD 'FakeSqlPw81'\"", "FakeSqlPw81", "sql-password"),
    ("mysql -e \"CREATE USER 'bob'@'%' IDENTIFIED BY 'FakeSqlPw82'\"", "FakeSqlPw82", "sql-password"),
    ("CREATE USER scott IDENTIFIED BY FakeSqlPw83;", "FakeSqlPw83", "sql-password"),
    ("SET PASSWORD FOR 'bob'@'%' = 'FakeSqlPw84';", "FakeSqlPw84", "sql-password"),
    ("sqlcmd -S db -U sa -P FakeSqlcmdPw91 -Q \"select 1\"", "FakeSqlcmdPw91", "cli-password"),
    ("ldapsearch -x -D cn=admin,dc=ex -w FakeLdapPw92 -b dc=ex", "FakeLdapPw92", "cli-password"),
    ("smbclient //srv/share -U bob%FakeSmbPw93", "FakeSmbPw93", "cli-password"),
    ("zip -P FakeZipPw94 out.zip a.txt", "FakeZipPw94", "cli-password"),
    ("7z a -pFakeSevenZPw95 out.7z dir", "FakeSevenZPw95", "cli-password"),
    ("keytool -list -keystore k.jks -storepass FakeKeytoolPw96", "FakeKeytoolPw96", "cli-password"),
    ("mosquitto_pub -u bob -P FakeMqttPw97 -t t -m m", "FakeMqttPw97", "cli-password"),
    ("plink -ssh bob@h -pw FakePlinkPw98", "FakePlinkPw98", "cli-password"),
    ("xfreerdp /u:bob /p:FakeRdpPw99 /v:host", "FakeRdpPw99", "cli-password"),
]

LOOKALIKES = [
    "ssh -p 2222 host && scp -P 2222 a host:b && mkdir -p build",
    "cp a / b; mv src / dst; 1 / 2 of the users logged in / out",
    "the user / group split is in users/groups.py; login / logout buttons; login: 3 / 4 tests pass",
    "the login page / Dashboard2024 view; sign in / sign up",
    "net user bob",
    "net user bob /delete && net user bob * /add && net use \\\\srv\\share * /user:bob",
    "sshpass -p $PW ssh h; mongo -u admin -p ${PW} db; rabbitmqctl add_user bob \"$RABBIT_PW\"",
    "sudo -S apt update <<< \"$SUDO_PW\"; passwd bob <<< \"${NEWPW}\"; chpasswd <<< \"$LINE\"",
    "docker login --password-stdin -u me registry.io",
    "echo \"$TOKEN\" | docker login -u me --password-stdin ghcr.io",
    "see --password <password> and -p *** in the manual; --password PASSWORD",
    "mongosh -u admin -p; mongosh --port 27017 -u admin -p --authenticationDatabase admin",
    "mysql -u root -p app -P 3306; mysqladmin -u root -p status",
    "the pw is required; pw: see vault; pw: 1234; my pw is short",
    "rabbitmqctl add_user bob; rabbitmqctl list_users",
    "sudo tee /etc/hosts <<< \"127.0.0.1 myhost2024\"; cat <<< 'Abc123!xyz'",
    "gpg --passphrase-fd 0 --batch -d x.gpg; gpg --passphrase-file pw.txt -d x.gpg",
    "7z x a.7z -o/tmp; 7z a -p out.7z dir; zip -r out.zip dir",
    "keytool -list -storepass:env STOREPW -keystore k.jks; ldapsearch -x -W -D cn=admin",
    "ansible-playbook --ask-pass site.yml; smbclient --no-pass //srv/share",
    "the user is identified by email; CREATE USER bob IDENTIFIED BY RANDOM PASSWORD",
    "ALTER USER bob WITH PASSWORD $1; ALTER USER bob PASSWORD EXPIRE",
]


@pytest.mark.parametrize("text,secret,rule", CASES)
def test_the_password_is_redacted_by_its_rule(text, secret, rule):
    check_redacted(text, secret, rule)


@pytest.mark.parametrize("text", LOOKALIKES)
def test_lookalikes_are_kept(text):
    check_kept(text)


def _batches(n: int = 4) -> list[str]:
    """The cases as a few multi-line texts: a hook process per text, not per case."""
    return ["\n".join(t for t, _s, _r in CASES[i::n]) for i in range(n)]


def test_the_prompt_hook_stores_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    run_prompt_hooks(store, env, "F6", [f"{text}\n#{i}" for i, text in enumerate(_batches() + ["\n".join(LOOKALIKES)])])
    assert_none_stored(store, CASES, LOOKALIKES)
    # and no file of the store holds one, in any encoding `mem scan` knows
    for _text, secret, _rule in CASES[::9]:
        assert_scan_finds_nothing(env, secret, "--no-remotes")


def test_the_shell_hook_stores_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store, MEM_SHELL_CAPTURE="1")
    for i, text in enumerate(_batches() + ["\n".join(LOOKALIKES)]):
        run_shell_hook(env, "shell-f6", i, text)
    assert_none_stored(store, CASES, LOOKALIKES)


def test_a_transcript_import_stores_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    transcript = tmp_path / "t.jsonl"
    import_cases(transcript, env, CASES, LOOKALIKES, "2026-01-05")
    assert_none_stored(store, CASES, LOOKALIKES)
    transcript.unlink()      # the agent's own file holds them (scan reads it): what mem wrote must not
    assert_scan_finds_nothing(env, CASES[-1][1], "--no-remotes")
