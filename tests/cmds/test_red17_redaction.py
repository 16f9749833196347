"""Redaction leftovers of session 16 (test16b B5, B1 addendum, B8 left-outs),
closed in session 17 (lane red17):

* a token glued to the letters or digits before its prefix (``xghp_…``,
  ``tokenAKIA…``), an AWS key id with a letter after it, a token after a
  twice-encoded escape (``%250A``, ``%5Cn``, ``\\U00000022``), and a token
  with an invisible (zero-width space, soft hyphen) or fullwidth character
  inside it: redacted as a value and refused in a name (a KEY
  ``project/x/AKIA…x`` was accepted);
* 'admin / X is the login', '<PIN> is my door pin', 'the door code is 4471',
  'pin 4471': redacted in the prompt's turn too;
* a hardware pin ('GPIO17 is the LED pin') is no PIN, while 'the pin for the
  door is 4471' and 'my PIN: 4471' stay redacted.

Each through ``redact``, the name rule, ``mem remember``, the prompt hook and
``mem import`` (real processes); every look-alike stays as typed.  Every
value here is fake."""

from __future__ import annotations

import subprocess
import sys

import pytest

from objstore.core.errors import InvalidInput
from objstore.core.redact import check_name, name_hits, redact
from tests.cmds._credentials import import_cases, run_prompt_hooks, stored_texts
from tests.hooks._util import REPO, hook_env

GH = "ghp_FAKEw2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJk"
AKID = "AKIAFAKEODNN7EXAMPLE"
MAILGUN = "key-0f9e8d7c6b5a49382716a5b4c3d2e1f0"      # not taken glued ('cache-key-<md5>'): only after an escape


def _wide(s: str) -> str:
    """``s`` in fullwidth forms (U+FF01-FF5E)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)


# (text, visible parts of the secret that must disappear, the rule expected to name it)
B5 = [
    (f"x{GH}", [GH], "github-token"),
    (f"see token{GH} here", [GH], "github-token"),
    (f"foo{GH}", [GH], "github-token"),
    (f"x{AKID}", [AKID], "aws-access-key-id"),
    (f"the key {AKID}x was rotated", [AKID], "aws-access-key-id"),
    (f"url?a=1%250A{GH}", [GH], "github-token"),
    (f"url?a=1%250A{MAILGUN}", [MAILGUN], "mailgun-key"),
    (f"path%5Cn{MAILGUN}", [MAILGUN], "mailgun-key"),
    (f"'\\U00000022{MAILGUN}'", [MAILGUN], "mailgun-key"),
    (f"ghp\u200b{GH[3:]}", [GH[3:]], "github-token"),
    (f"gh\u00adp{GH[3:]}", [GH[3:]], "github-token"),
    (f"token: {GH[:20]}\u2060{GH[20:]}", [GH[:20], GH[20:]], "github-token"),
    (_wide("ghp_") + GH[4:], [GH[4:]], "github-token"),
    (_wide(AKID), [_wide(AKID)], "aws-access-key-id"),
    (f"{AKID[:8]}\u200b{AKID[8:]}", [AKID[:8], AKID[8:]], "aws-access-key-id"),
    ("my password is " + _wide("Hunter2x9"), [_wide("Hunter2x9")], "password-phrase"),
]

B5_LOOKALIKES = [
    "task_test_validationErrors(); risk_live_dashboard1234; desk_test_fixtures()",
    "family \U0001F468\u200d\U0001F469\u200d\U0001F467; heart \u2764\ufe0f; \u65e5\u672c\u8a9e\uff08\u5168\u89d2\uff09\uff1a\uff21\uff22\uff23",
    "AKIAQQQQRRRR7SSSSTTTX; AKIAQQQQRRRR7SSSSTTT2; the-ghp_ prefix; " + _wide("ghp_") + " short",
    "SLOVAKIAN; ATATT3 prefix; mynpm_config_cache; graphql_ghp_ schema",
]


def _check_gone(text: str, parts: list[str], rule: str) -> None:
    r = redact(text)
    assert f"[REDACTED:{rule}]" in r.text, r.text
    for part in parts:
        assert part not in r.text, r.text
    assert redact(r.text).text == r.text            # idempotent


@pytest.mark.parametrize("text, parts, rule", B5)
def test_a_glued_escaped_or_hidden_token_is_redacted(text, parts, rule):
    _check_gone(text, parts, rule)


def test_the_redaction_of_a_hidden_token_takes_exactly_the_characters_it_reads_from():
    # the characters around it are kept byte for byte; the invisible one inside goes with the token
    text = f"a \u00e9 b ghp\u200b{GH[3:]} \u00e9 c"
    assert redact(text).text == "a \u00e9 b [REDACTED:github-token] \u00e9 c"
    text = f"\u4f60\u597d {_wide(AKID)}\uff0c\u518d\u89c1"
    assert redact(text).text == "\u4f60\u597d [REDACTED:aws-access-key-id]\uff0c\u518d\u89c1"


@pytest.mark.parametrize("text", B5_LOOKALIKES)
def test_b5_lookalikes_are_kept(text):
    assert redact(text).text == text


B5_NAMES = [f"project/x/{AKID}x", f"project/x/x{AKID}", f"project/x/ghp\u200b{GH[3:]}",
            "project/x/" + _wide(GH), f"project/x/%250A{GH}", f"sess-token{GH}"]


@pytest.mark.parametrize("name", B5_NAMES)
def test_a_name_holding_a_glued_or_hidden_token_is_refused(name):
    assert name_hits(name)
    with pytest.raises(InvalidInput) as e:
        check_name(name)
    assert GH[8:] not in str(e.value) and AKID[4:] not in str(e.value)


# 'admin / X is the login', a PIN-like token after or before pin/code words (test16b B1 addendum, B8)
PHRASES = [
    ("admin / Lark#5521 is the login", "Lark#5521"),
    ("remember that admin / Lark#5521 is the login", "Lark#5521"),
    ("admin:Lark#5521 are the creds for staging", "Lark#5521"),
    ("root/Lark5521x is my login", "Lark5521x"),
    ("remember that kq77 is my door pin", "kq77"),
    ("4471 is the alarm code", "4471"),
    ("the door code is 4471", "4471"),
    ("my alarm code: 4471", "4471"),
    ("my pin 4471", "4471"),
    ("door code 4471, then the hall", "4471"),
    ("my pin is kq77", "kq77"),
    ("the pin for the door is 4471", "4471"),
    ("my PIN: 4471", "4471"),
]

PHRASE_LOOKALIKES = [
    "GPIO17 is the LED pin; the LED pin is GPIO17; 1234 is the LED pin; PA15 is the reset pin",
    "pin 18 is the data pin; pin 2024 release notes; pin py311 in tox; pin the version to 3.2",
    "the exit code is 1234; status code: 4040; zip code 90210; the country code is 0044; error code 1045",
    "the login page / Dashboard2024 is the login; admin / hunter is the login; user / group is the login",
    "admin / Owl#7733x is the login page; result:\\nLedgerError: is it credential to ledger",
]


@pytest.mark.parametrize("text, secret", PHRASES)
def test_a_login_pair_or_a_pin_is_redacted(text, secret):
    r = redact(text)
    assert secret not in r.text and r.text.replace("[REDACTED:password-phrase]", secret) == text, r.text
    assert redact(r.text).text == r.text


@pytest.mark.parametrize("text", PHRASE_LOOKALIKES)
def test_hardware_pins_status_codes_and_login_nouns_are_kept(text):
    assert redact(text).text == text


def _mem(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=120)


def test_remember_stores_none_and_refuses_the_keys(tmp_path):
    # the tester's reproduction: mem remember project/x/t "<value>"; mem get project/x/t; a KEY holding one
    env = hook_env(tmp_path / "store")
    for i, (text, parts, rule) in enumerate(B5[::2] + [(t, [s], "password-phrase") for t, s in PHRASES[::3]]):
        p = _mem(env, "remember", f"project/x/t{i}", text)
        assert p.returncode == 0, p.stdout + p.stderr
        g = _mem(env, "get", f"project/x/t{i}")
        assert g.returncode == 0 and f"[REDACTED:{rule}]" in g.stdout, g.stdout
        assert not any(part in g.stdout + p.stdout + p.stderr for part in parts), g.stdout
    for name in (f"project/x/{AKID}x", "project/x/" + _wide(GH)):
        p = _mem(env, "remember", name, "v")
        assert p.returncode == 2 and AKID not in p.stderr and _wide(GH)[8:] not in p.stderr, p.stderr
    p = _mem(env, "remember", "project/x/gpio", "GPIO17 is the LED pin")
    assert p.returncode == 0 and _mem(env, "get", "project/x/gpio").stdout.strip() == "GPIO17 is the LED pin"


def _cases():
    return [(t, parts[-1], rule) for t, parts, rule in B5] + [(t, s, "password-phrase") for t, s in PHRASES]


def _assert_none_stored(texts: str) -> None:
    for text, parts, _rule in B5:
        assert not any(part in texts for part in parts), text
    for text, secret in PHRASES:
        assert secret not in texts, text
    assert "GPIO17 is the LED pin" in texts and "task_test_validationErrors" in texts


def test_the_prompt_hook_stores_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    cases = _cases()
    prompts = ["\n".join(t for t, _s, _r in cases[i::3]) + f"\n#{i}" for i in range(3)]
    run_prompt_hooks(store, env, "R17", prompts + ["\n".join(B5_LOOKALIKES + PHRASE_LOOKALIKES)])
    _assert_none_stored(stored_texts(store))


def test_a_transcript_import_stores_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    import_cases(tmp_path / "t.jsonl", env, _cases(), B5_LOOKALIKES + PHRASE_LOOKALIKES, "2026-01-17")
    _assert_none_stored(stored_texts(store))


# test17 T10: mem's own command lines, captured by the shell hook or as an agent's Bash tool call
MEM_CMDS = [
    ("mem remember user/bank/pin 4471-9902 --sensitivity secret", "4471-9902"),
    ("mem remember user/wifi 'Kestrel Lantern 2291' --sensitivity secret", "Kestrel Lantern 2291"),
    ("mem remember project/api/github-token 'abc123def456ghi789'", "abc123def456ghi789"),
    ("mem forget --match walrus-orchid-77 --yes", "walrus-orchid-77"),
    ("cd /tmp && mem scan lynx-copper-8 --no-remotes; ls", "lynx-copper-8"),
    ("mem forget --match='heron slate 9' --yes", "heron slate 9"),
    ('/opt/bin/mem --home /tmp/s remember --sensitivity=secret user/k "Owl pass 7733"', "Owl pass 7733"),
]
MEM_CMD_KEPT = ["mem remember project/x/host 'the deploy host is ok'", "mem remember user/notes - < f.txt",
                "mem scan --file notes.txt", "remember to run mem forget later; mem recall walrus"]


@pytest.mark.parametrize("command, secret", MEM_CMDS)
def test_a_value_on_mems_own_command_line_is_redacted(command, secret):
    import json
    for text in (command, "[tool_use Bash] " + json.dumps({"command": command, "description": "run it"})):
        r = redact(text)
        assert secret not in r.text and "[REDACTED:mem-command]" in r.text, r.text
        assert redact(r.text).text == r.text


@pytest.mark.parametrize("command", MEM_CMD_KEPT)
def test_mems_other_command_lines_are_kept(command):
    assert redact(command).text == command


def test_the_shell_hook_and_an_import_store_no_value_of_a_mem_command(tmp_path):
    from tests.cmds._credentials import store_commands
    texts = store_commands(tmp_path, MEM_CMDS, MEM_CMD_KEPT, "2026-01-18")
    assert texts.count("[REDACTED:mem-command]") >= 3 * len(MEM_CMDS) and MEM_CMD_KEPT[0] in texts
