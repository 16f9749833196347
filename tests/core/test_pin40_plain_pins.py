"""Session 40 (lane pin40): a PIN or password stated in a plain value was kept in the clear when its label was
joined to it by '=' or a full-width '：', or by the copula of a script written without spaces (test39b B9:
"PIN=4471", "银行卡密码是4471", "暗証番号は4471です", "パスワードはHunter2abcです", "비밀번호는 4471"), when typed
digit by digit ("my door code is 4 4 7 1"), or in another script's digits after the label (the B3 follow-up:
"PIN: ٤٤٧١", "密码是٤٤٧١"); red39's left-out: "passphrase for root = X", "Passphrase for root:X", "wifi: Tulip, X".
A GPIO pin, a port, a length or a year stays as written."""

from __future__ import annotations

import subprocess
import sys

import pytest

from objstore.core.redact import redact

#: test39b B9's lines, each with the value that must not be kept
B9 = [("PIN=4471", "4471"), ("PIN\uff1a4471", "4471"), ("\u94f6\u884c\u5361\u5bc6\u7801\u662f4471", "4471"),
      ("\u94f6\u884c\u5361PIN\u662f4471", "4471"), ("\u6697\u8a3c\u756a\u53f7\u306f4471\u3067\u3059", "4471"),
      ("\u30d1\u30b9\u30ef\u30fc\u30c9\u306fHunter2abc\u3067\u3059", "Hunter2abc"),
      ("\ube44\ubc00\ubc88\ud638\ub294 4471", "4471"), ("my door code is 4 4 7 1", "4 4 7 1")]

WITHHELD = B9 + [
    ("PIN:4471", "4471"), ("\u95e8\u7981PIN\u662f5519", "5519"),
    ("PIN\u7801\u662f4471", "4471"), ("my PIN is 4 4 7 1", "4 4 7 1"),
    ("\ube44\ubc00\ubc88\ud638\ub294 4471\uc785\ub2c8\ub2e4", "4471"),
    ("\u5bc6\u7801\u662fHunter2abc\u8bf7\u8bb0\u4f4f", "Hunter2abc"),
    ("\u6697\u8a3c\u756a\u53f7\uff1a4471", "4471"),
    # the B3 follow-up: other scripts' digits after 密码 / PIN / 暗証番号
    ("PIN: \u0664\u0664\u0667\u0661", "\u0664\u0664\u0667\u0661"), ("PIN=\u0664\u0664\u0667\u0661", "\u0664\u0664\u0667\u0661"),
    ("PIN: \uff14\uff14\uff17\uff11", "\uff14\uff14\uff17\uff11"),
    ("\u5bc6\u7801\u662f\u0664\u0664\u0667\u0661", "\u0664\u0664\u0667\u0661"),
    ("\u5bc6\u7801\u662f\uff14\uff14\uff17\uff11", "\uff14\uff14\uff17\uff11"),
    ("\u6697\u8a3c\u756a\u53f7\u306f\u0664\u0664\u0667\u0661\u3067\u3059", "\u0664\u0664\u0667\u0661"),
    ("\u6697\u8a3c\u756a\u53f7\u306f\uff14\uff14\uff17\uff11\u3067\u3059", "\uff14\uff14\uff17\uff11"),
    # red39's left-out
    ("passphrase for root = Xq7hunter", "Xq7hunter"), ("Passphrase for root:Xq7hunter", "Xq7hunter"),
    ("password for root = Xq7hunter", "Xq7hunter"), ("password for root:Xq7hunter", "Xq7hunter"),
    ("wifi: Tulip, Xq7hunter", "Xq7hunter"), ("wifi = Tulip, Kx9#mmQ2", "Kx9#mmQ2"),
]

KEPT = ["pin = 13", "pin = 448812", "PIN 13 of the header", "pin 2 of 4", "port=4471", "\u5bc6\u7801\u5b66",
        "PIN\u7801\u957f\u5ea6\u662f4\u4f4d", "\u5bc6\u7801\u662f2024\u5e74\u6539\u7684", "\u5bc6\u7801\u957f\u5ea6\u662f8\u4f4d",
        "\u30d1\u30b9\u30ef\u30fc\u30c9\u306f8\u6587\u5b57\u4ee5\u4e0a", "\u6697\u8a3c\u756a\u53f7\u306f4\u6841\u3067\u3059",
        "pin 1 2 3 4 of the connector", "the pin count is 2048 here", "version=1.4.7", "led_pin = 4471",
        "wifi Tulip / Xq7hunter",       # no sign after 'wifi': could be hardware ('wifi adapter / Intel9260')
        "wifi: on, bluetooth: off", "the password for postgres://db is stored in vault",
        "password for host:8080 is in the doc", "see \u5bc6\u7801\u662fadmin"]


@pytest.mark.parametrize("line,value", WITHHELD)
def test_a_plain_pin_or_password_is_withheld(line, value):
    r = redact(line)
    assert value not in r.text and "[REDACTED:" in r.text, r.text
    assert "[REDACTED:[REDACTED" not in redact(r.text).text      # a second pass leaves the marker whole


@pytest.mark.parametrize("line", KEPT)
def test_a_number_that_is_no_pin_stays_as_written(line):
    assert redact(line).text == line


def test_mem_remember_keeps_none_of_b9s_values(tmp_path):
    """Each B9 line through ``mem remember`` of a plain key (a real process), then ``mem get``."""
    from tests.hooks._util import hook_env, mem_runner
    from tests.conftest import REPO
    home = tmp_path / "store"
    mem = mem_runner(home)
    mem("init")
    for i, (line, _value) in enumerate(B9):
        mem("remember", f"project/pp/k{i}", line)
    for i, (line, value) in enumerate(B9):
        r = subprocess.run([sys.executable, "-m", "cmds", "get", f"project/pp/k{i}"], env=hook_env(home), cwd=REPO,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert value not in r.stdout and "[REDACTED:" in r.stdout, (line, r.stdout)
    from objstore import scan_store
    assert scan_store(home, [b"Hunter2abc"]) == []
