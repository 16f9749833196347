"""Fresh-user findings 4 and 8 (notes/fresh2-findings.md), through real `mem` processes:
passwords in plain words and on mysql command lines are redacted before they are
stored (and `mem scan` no longer finds them), look-alikes are kept, a value starting
with '-' (a PEM block) is the value, and a usage error never echoes a value."""

from __future__ import annotations

from tests.hooks._util import hook_env, payload, run_hook, turns

PEM = ("-----BEGIN RSA PRIVATE KEY-----\n"
       "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0FAKEyWR7QkrmBL7jTKEn5u+qKh\n"
       "bwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE8Ak=\n"
       "-----END RSA PRIVATE KEY-----")


def test_plain_word_and_mysql_passwords_are_redacted_by_remember(mem):
    mem("remember", "project/sec/k9", "my password is hunterUniq2024 ok")
    mem("remember", "project/sec/k13", "--", "mysql -u root -pMyCliPwUniq88 db")
    mem("remember", "project/sec/k14", "mysqldump -u root -pDumpPwUniq77 app > backup.sql")
    k9 = mem("show", "project/sec/k9").stdout
    assert "my password is [REDACTED:password-phrase] ok" in k9 and "hunterUniq2024" not in k9
    k13 = mem("show", "project/sec/k13").stdout
    assert "mysql -u root -p[REDACTED:mysql-password] db" in k13 and "MyCliPwUniq88" not in k13
    assert "DumpPwUniq77" not in mem("show", "project/sec/k14").stdout
    for secret in ("hunterUniq2024", "MyCliPwUniq88", "DumpPwUniq77"):
        r = mem("scan", secret)          # the same rules: nothing was stored
        assert r.exit_code == 0 and "found nowhere" in r.stdout, r.stdout


def test_lookalikes_are_stored_as_typed(mem):
    values = {"project/ops/a": "the password is stored in vault; password is required",
              "project/ops/b": "mkdir -p build && git log -p -1 && mysql -u root -p app -P 3306",
              "project/ops/c": "the LED pin is GPIO17"}
    for key, value in values.items():
        r = mem("remember", key, value)
        assert "REDACTED" not in r.stderr + r.stdout
        assert value in mem("show", key).stdout


def test_hook_prompt_with_a_plain_word_password_is_redacted(tmp_path):
    store = tmp_path / "store"
    rc, _out, err, _s = run_hook(store, payload("UserPromptSubmit", "S1", None,
                                                prompt="deploy it now, my password is HookNatPw0"),
                                 env=hook_env(store, MEM_HOOK_FORK="0"))   # stored before the hook returns
    assert rc == 0, err
    texts = " ".join(t[3] for t in turns(store))
    assert "my password is [REDACTED:password-phrase]" in texts and "HookNatPw0" not in texts


def test_a_value_starting_with_dashes_is_the_value(mem):
    r = mem("remember", "project/sec/pem", PEM)
    assert "wrote project/sec/pem v1" in r.stdout
    out = mem("show", "project/sec/pem").stdout
    assert "[REDACTED:private-key]" in out and "MIIEowIBAAK" not in out
    mem("remember", "project/ops/flag", "-x is the verbose flag")
    assert "-x is the verbose flag" in mem("show", "project/ops/flag").stdout


def test_a_usage_error_never_echoes_a_value(mem):
    r = mem("remember", "project/sec/pem2", PEM, "extraSecretWord99", exit_code=2)
    assert "unexpected extra argument" in r.stderr
    assert "MIIEowIBAAK" not in r.stderr + r.stdout and "extraSecretWord99" not in r.stderr + r.stdout
    assert "<value hidden>" in r.stderr
    assert mem("show", "project/sec/pem2", exit_code=None).exit_code != 0   # nothing written
