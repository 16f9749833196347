"""red26b (tester findings test26 V1 and V2): a bare Google OAuth refresh
token (``1//0`` + ~100 base64url characters, as ``gcloud auth
print-refresh-token`` prints it) was stored in the clear when no
``refresh_token`` label stood before it; and a password after a label in
Chinese, Japanese, Korean, Russian, Portuguese or Dutch (``密码: X``,
``DB 密码：X``, ``数据库密码是 X``, ``パスワード: X``, ``비밀번호: X``,
``пароль: X``, ``senha: X``, ``wachtwoord: X``) was kept where the German,
French and Spanish words were taken.  The look-alikes stay: paths and URLs
holding ``1//0``, prose about passwords in those languages.  Every value is
fake."""

from __future__ import annotations

import json

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_kept, assert_redacted, check_remembered_and_imported

RT = "1//0gLmNoPqRsTuVwXyZ0123456789-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW_x7Kq2ZpRt9"
RT_BODY = RT[4:]

#: (case, text, the secret, what must stay, the rule named)
_ROWS = [
    ("refresh-bare", RT, RT_BODY, "", "google-oauth-refresh-token"),
    ("refresh-prose", f"gcloud printed {RT} for the account", RT_BODY, "gcloud printed ", "google-oauth-refresh-token"),
    ("refresh-line", f"$ gcloud auth print-refresh-token\n{RT}\n", RT_BODY, "print-refresh-token",
     "google-oauth-refresh-token"),
    ("refresh-slash-escaped", "{\"rt\": \"" + RT.replace("/", "\\/") + "\"}", RT_BODY, '{"rt": "',
     "google-oauth-refresh-token"),
    ("refresh-query", f"POST /token?grant_type=refresh_token&rt={RT}", RT_BODY, "grant_type=refresh_token",
     "google-oauth-refresh-token"),
    ("zh-colon", "密码: Mima2025xyz", "Mima2025xyz", "密码: ", "markdown-secret"),
    ("zh-fullwidth", "DB 密码：Mima2025xyz", "Mima2025xyz", "DB 密码：", "markdown-secret"),
    ("zh-copula", "数据库密码是 Mima2025xyz", "Mima2025xyz", "数据库密码是 ", "markdown-secret"),
    ("zh-punctuation", "密码：Mima2025xyz，请保管", "Mima2025xyz", "，请保管", "markdown-secret"),
    ("zh-traditional", "密碼：Mima2025xyz", "Mima2025xyz", "密碼：", "markdown-secret"),
    ("ja-colon", "パスワード: Pasuwado99x", "Pasuwado99x", "パスワード: ", "markdown-secret"),
    ("ja-topic", "パスワードは Pasuwado99x", "Pasuwado99x", "パスワードは ", "markdown-secret"),
    ("ko-colon", "비밀번호: Bimil2025xyz", "Bimil2025xyz", "비밀번호: ", "markdown-secret"),
    ("ko-topic", "비밀번호는 Bimil2025xyz", "Bimil2025xyz", "비밀번호는 ", "markdown-secret"),
    ("ru-colon", "пароль: Parol2025xyz", "Parol2025xyz", "пароль: ", "markdown-secret"),
    ("ru-capital", "Пароль: Parol2025xyz", "Parol2025xyz", "Пароль: ", "markdown-secret"),
    ("pt-colon", "senha: Senha2025xyz", "Senha2025xyz", "senha: ", "markdown-secret"),
    ("pt-symbols", "Senha: Tr0ub4dor&3", "Tr0ub4dor&3", "Senha: ", "markdown-secret"),
    ("nl-colon", "wachtwoord: Wacht2025xyz", "Wacht2025xyz", "wachtwoord: ", "markdown-secret"),
    ("pl-colon", "hasło: Haslo2025xyz", "Haslo2025xyz", "hasło: ", "markdown-secret"),
    ("zh-bold", "**密码**: `Mima2025xyz`", "Mima2025xyz", "**密码**: `", "markdown-secret"),
]
CASES = {row[0]: row[1:] for row in _ROWS}


@pytest.mark.parametrize("case", sorted(CASES))
def test_shape_is_redacted_raw_and_json_escaped(case):
    """Raw, and JSON-escaped as the product writes a tool call's input
    (``ensure_ascii=False``: the letters of a CJK or Cyrillic label stay)
    and as ``json.dumps`` does by default (ASCII labels only)."""
    text, secret, kept, rule = CASES[case]
    assert_redacted(case, text, [secret], kept=[kept], rule=rule, escaped=text.isascii())
    esc = json.dumps({"command": text}, ensure_ascii=False)
    assert secret not in redact(esc).text, esc


KEPT = [
    "/srv/data/1//0/archive and x = 1//0",
    "see https://example.com/a/1//0abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
    "https://api.example.com/v1//0Ab3dEf4gH5iJ6kL7mN8oP9qR0sT1uV2wX3yZ4aB5cD6eF7gH8",
    "ratio 1//0123456789012345678901234567890123456789012345",
    "密码：请输入您的密码",
    "密码是什么",
    "忘记密码：点击这里",
    "パスワードは忘れました",
    "パスワード: 必須",
    "비밀번호: 필수 항목",
    "пароль: не задан",
    "Пароль: обязательное поле",
    "senha: obrigatória",
    "senha: string",
    "wachtwoord: vergeten",
    "Wachtwoord: verplicht",
    "| 用户 | 密码 |",
]


@pytest.mark.parametrize("text", KEPT)
def test_look_alike_stays(text):
    """A path, a URL or an integer division holding ``1//0``; prose and UI
    texts about passwords in the new languages: unchanged, raw and
    JSON-escaped."""
    assert_kept(text)
    esc = json.dumps({"command": text}, ensure_ascii=False)
    assert redact(esc).text == esc


def test_stored_by_remember_and_import(tmp_path, mem):
    """``mem remember``/``mem get`` and an imported transcript's Bash
    result, real processes: neither stores the refresh token or a
    password after a CJK, Cyrillic or Dutch label."""
    check_remembered_and_imported(mem, tmp_path, "red26b", "26b26b26-aaaa-4bbb-8ccc-262626262626", CASES,
                                  ("refresh-prose", "refresh-line", "zh-fullwidth", "zh-copula", "ja-colon",
                                   "ko-colon", "ru-colon", "pt-colon", "nl-colon"),
                                  "密码：请输入您的密码")
