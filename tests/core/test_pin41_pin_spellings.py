"""Session 41 (lane pin41): test40 T5 and T6.  T5: a PIN or a password stored in the clear in common spellings and
scripts: a CJK copula between blanks ("银行卡 PIN 是 4471"), 'PIN' with another language's word for its number
("PIN番号は4471です", "PIN-Nummer: 4471", "PIN-код: 4471"), a label with blanks and no sign ("暗証番号 4471"), the Korean
subject particle ("비밀번호가 4471"), Chinese 口令 and Thai รหัสผ่าน, a PIN's word of another language ("Geheimzahl ist
4471", "ПИН-код 4471"), the other signs ("PIN → 4471", "PIN #4471", "PIN='4471'", "my pin's 4471") and digits one '-' or
'.' apart ("4-4-7-1"); the other common languages by table (pinlabels.PIN_COPULAS, PIN_WORDS_ABROAD,
passphrases.ABROAD_NAMES).  T6: a board's pin read as a PIN ("GPIO PIN=4471 drives the relay", "引脚PIN是4471"): a
board's word in the PIN's clause keeps it (pinlabels.on_board)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from objstore.core.redact import redact

#: test40 T5's lines, each with the value that must not be kept
T5 = [("\u94f6\u884c\u5361 PIN \u662f 4471", "4471"), ("PIN\u756a\u53f7\u306f4471\u3067\u3059", "4471"),
      ("\u6697\u8a3c\u756a\u53f7 4471", "4471"), ("\ube44\ubc00\ubc88\ud638\uac00 4471", "4471"),
      ("PIN \ubc88\ud638\ub294 4471", "4471"), ("\u53e3\u4ee4\u662fHunter2abc", "Hunter2abc"),
      ("\u0e23\u0e2b\u0e31\u0e2a PIN \u0e04\u0e37\u0e2d 4471", "4471"),
      ("\u0e23\u0e2b\u0e31\u0e2a\u0e1c\u0e48\u0e32\u0e19\u0e04\u0e37\u0e2d Hunter2abc", "Hunter2abc"),
      ("PIN-\u043a\u043e\u0434: 4471", "4471"), ("\u041f\u0418\u041d-\u043a\u043e\u0434 4471", "4471"),
      ("PIN-Nummer: 4471", "4471"), ("Geheimzahl ist 4471", "4471"),
      ("PIN \u2192 4471", "4471"), ("PIN => 4471", "4471"), ("PIN - 4471", "4471"), ("PIN #4471", "4471"),
      ('PIN "4471"', "4471"), ("PIN='4471'", "4471"), ("my pin's 4471", "4471"),
      ("my PIN is 4-4-7-1", "4-4-7-1"), ("my PIN is 4.4.7.1", "4.4.7.1")]

#: the other common languages, by the tables
ABROAD = [("mi PIN es 4471", "4471"), ("le code PIN est 4471", "4471"), ("mon code secret est 4471", "4471"),
          ("il PIN \u00e8 4471", "4471"), ("o PIN \u00e9 4471", "4471"), ("m\u00f3j PIN to 4471", "4471"),
          ("kod PIN: 4471", "4471"), ("m\u00e3 PIN l\u00e0 4471", "4471"), ("PIN saya adalah 4471", "4471"),
          ("PIN kodu: 4471", "4471"), ("\u015fifrem 4471", "4471"), ("\u0627\u0644\u0631\u0642\u0645 \u0627\u0644\u0633\u0631\u064a 4471", "4471"),
          ("\u092e\u0947\u0930\u093e \u092a\u093f\u0928 4471 \u0939\u0948", "4471"), ("\u041f\u0418\u041d \u2014 4471", "4471"),
          ("das PIN lautet 4471", "4471"), ("la clave es 4471", "4471"), ("codice segreto: 4471", "4471"),
          ("PIN\u30b3\u30fc\u30c9\u306f4471", "4471"), ("PIN\uc774 4471", "4471"),
          ("m\u1eadt kh\u1ea9u l\u00e0 Hunter2abc", "Hunter2abc"), ("kata sandi adalah Hunter2abc", "Hunter2abc"),
          ("Kata sandi: Hunter2abc", "Hunter2abc"), ("\u0643\u0644\u0645\u0629 \u0627\u0644\u0645\u0631\u0648\u0631: Hunter2abc", "Hunter2abc"),
          ("\u0643\u0644\u0645\u0629 \u0627\u0644\u0645\u0631\u0648\u0631 \u0647\u064a Hunter2abc", "Hunter2abc"),
          ("\u092a\u093e\u0938\u0935\u0930\u094d\u0921: Hunter2abc", "Hunter2abc"), ("\u015fifre: Hunter2abc", "Hunter2abc"),
          # a PIN's clause with a word of both kinds, or an owner: still a PIN (the rule's ambiguous side)
          ("reset my PIN to 4471", "4471"), ("my PIN is 4471 and the LED blinks", "4471"),
          ("SIM PIN=1234 for the GSM module", "1234"), ("card pin: 4471 (the chip card)", "4471"),
          ("send it in the header PIN: 4471", "4471"),      # an HTTP header's as well as a board's: a PIN
          ("set PIN=1024 in the config", "1024")]       # no board's word: withheld (pin40's limit, kept so)

#: test40 T6's lines (a board's pin), and its kept lines
T6 = ["GPIO PIN=4471 drives the relay", "PIN:2048 on the FPGA header", "PIN=1234 is the reset line",
      "\u5f15\u811aPIN\u662f4471", "pin\uff1a4471\u53f7\u5f15\u811a"]
KEPT = T6 + ["LED_PIN=13", "PIN 4471 of the BGA", "port:4471", "PIN\u7801\u957f\u5ea6\u662f6\u4f4d", "timeout=4471",
             "\u7aef\u53e3\u662f4471", "\u5bc6\u7801\u662f2024\u5e74\u6539\u7684",
             "pin - 2 of the header", "PIN #2", "pin => 13", "pin -> GPIO17", "ping 1234", "spinning 4471",
             "pinned to 4471", "clave para la API", "\u015fifreleme 4471", "la clave es usar cach\u00e9",
             "\u5f15\u811a4471", "PIN ist erforderlich", "PIN-Nummer: siehe Brief", "pin #1234 on the mcu",
             "Geheimzahl ist geheim", "version 4-4-7-1 of the spec", "led pin is 4.4.7.1", "\u015fifre: gizli",
             "m\u1eadt kh\u1ea9u l\u00e0 g\u00ec", "GPIO17 PIN: 4471 on the header", "pin=1234 on the pin header"]


@pytest.mark.parametrize("line,value", T5 + ABROAD)
def test_a_pin_in_a_common_spelling_or_script_is_withheld(line, value):
    r = redact(line)
    assert value not in r.text and "[REDACTED:" in r.text, r.text
    assert redact(r.text).text == r.text      # a second pass leaves the marker whole


@pytest.mark.parametrize("line", KEPT)
def test_a_boards_pin_or_no_pin_stays_as_written(line):
    assert redact(line).text == line


def _mem_get_all(tmp_path, lines):
    from tests.conftest import REPO
    from tests.hooks._util import hook_env, mem_runner
    home = tmp_path / "store"
    mem = mem_runner(home)
    mem("init")
    for i, line in enumerate(lines):
        mem("remember", f"project/pp/k{i}", line)
    out = []
    for i in range(len(lines)):
        r = subprocess.run([sys.executable, "-m", "cmds", "get", f"project/pp/k{i}"], env=hook_env(home), cwd=REPO,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        out.append(r.stdout)
    return home, out


def test_mem_remember_keeps_none_of_t5s_values(tmp_path):
    """Each T5 line through ``mem remember`` of a plain key (a real process), then ``mem get``."""
    home, got = _mem_get_all(tmp_path, [line for line, _v in T5])
    for (line, value), out in zip(T5, got):
        assert value not in out and "[REDACTED:" in out, (line, out)
    from objstore import scan_store
    assert scan_store(home, [b"Hunter2abc", b"4471"]) == []


def test_mem_remember_keeps_t6s_board_pins(tmp_path):
    """T6's lines through ``mem remember`` and ``mem get``: stored and served as written."""
    _home, got = _mem_get_all(tmp_path, T6)
    for line, out in zip(T6, got):
        assert line in out and "[REDACTED:" not in out, (line, out)
