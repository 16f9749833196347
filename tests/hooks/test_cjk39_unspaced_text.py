"""cjk39 (test38 T5/T6): a sealed or forgotten value written inside Chinese or Japanese text with no space
around it ("密码是maple-otter-77请记住", "パスワードはmaple-otter-77です"), or a sealed value of Han characters
inside a Chinese sentence ("我家的密码是红色大象九号。"), was stored in the clear: the Han characters beside it
were read as letters of the same word, so no window started or ended at the value.  A character of a script
written without spaces is now a word of its own (``core.wordwindows.UNSPACED``).  Real hook and ``mem``
processes on a real store: the prompt and Stop hooks, the rewrite a secret write makes of the turns before it,
``mem forget --match`` and gc."""

from __future__ import annotations

from objstore import scan_store
from tests.hooks.test_seal_later_turns import _mem
from tests.hooks.test_seal_two_word_values import sealed_session

LATIN = "maple-otter-77"
HAN = "红色大象九号"
SAID = [f"密码是{LATIN}请记住", f"パスワードは{LATIN}です", f"我家的密码是{HAN}。", f"{HAN}就是密码",
        f"비밀번호는{LATIN}입니다", f"ส่ง{LATIN}ครับ"]
# (the Thai one names no password since pin41 made "รหัสผ่าน" a password word: one quote of LATIN must stay for
# the credential rules to miss, so the secret write and forget --match below have a turn in the clear to find)
NEEDLES = [LATIN.encode(), HAN.encode(), b"mapleotter77"]


def test_later_turns_quoting_a_sealed_value_inside_unspaced_text_are_stored_withheld(tmp_path):
    s, env = sealed_session(tmp_path, [LATIN, HAN], "c39")
    s.prompt(" ".join(SAID) + " 也可以写成mapleotter77吗")
    s.stop(f"好的，{LATIN}和{HAN}已记下。")
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, NEEDLES) == []
    out = _mem(env, "show", s.sid[:8]).stdout
    # after a password word the credential rule withholds it first since pin40 (markdown-secret): either way
    withheld = out.count("[REDACTED:sealed-value]") + out.count("[REDACTED:markdown-secret]")
    assert withheld == out.count("[REDACTED:") == len(SAID) + 3, out
    assert "密码是[REDACTED:" in out and "请记住" in out and "我家的密码是[REDACTED:sealed-value]。" in out, out


def test_a_secret_write_withholds_the_value_in_unspaced_turns_before_it(tmp_path):
    s, env = sealed_session(tmp_path, [], "b39")
    s.prompt(" ".join(SAID))
    s.stop("好的。")
    r = _mem(env, "remember", "user/wifi/pass", LATIN, "--sensitivity", "secret")
    assert "withheld in 1 turn quoting it" in r.stdout, r.stdout
    r = _mem(env, "remember", "user/home/door", HAN, "--sensitivity", "secret")
    assert "withheld in 1 turn quoting it" in r.stdout, r.stdout
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, NEEDLES) == []


def test_forget_match_finds_the_value_inside_unspaced_turns_and_later_ones(tmp_path):
    """Found in the turns stored before (whole turns forgotten) and withheld in the session's later ones; a Han
    text forgotten ahead of any turn holding it (6 characters: it got no text rule, "shorter than 8") is never
    served from a later turn either."""
    s, env = sealed_session(tmp_path, [], "f39")
    s.prompt(" ".join(x for x in SAID if LATIN in x))
    s.prompt(" ".join(x for x in SAID if HAN in x))
    s.stop("好的。")
    _mem(env, "forget", "--match", LATIN, "--yes")
    _mem(env, "forget", "--match", HAN, "--yes")
    s.prompt(f"再说一次：密码是{LATIN}请记住，{HAN}。")
    s.stop(f"明白，{LATIN}。")
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, NEEDLES[:2]) == []
    r = _mem(env, "forget", "--match", "蓝色长颈鹿七号", "--yes")
    assert "wrote its text rule" in r.stdout + r.stderr, r.stdout + r.stderr
    s.prompt("新的密码是蓝色长颈鹿七号。")
    out = _mem(env, "show", s.sid[:8]).stdout + _mem(env, "search", "长颈鹿").stdout
    assert "蓝色长颈鹿七号" not in out and "新的密码是[forgotten]。" in out, out


def test_a_sealed_turkish_value_and_its_other_casings_match_each_other(tmp_path):
    """test38 T9.11: ``casefold`` of "İ" is "i" + U+0307, so a sealed "İstanbul42" did not match a later
    "istanbul42", nor a sealed "izmir-4471" a later "İZMİR-4471"; the rest of the text stays as it was."""
    s, env = sealed_session(tmp_path, ["İstanbul42", "izmir-4471"], "t39")
    s.prompt("codes: istanbul42, ISTANBUL42, İSTANBUL42, ıstanbul42; İZMİR-4471 and Izmir-4471. İstanbul is big")
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [b"istanbul42", "İSTANBUL42".encode(), "İZMİR".encode(), b"ISTANBUL42",
                                "ıstanbul42".encode(), b"Izmir"]) == []
    out = _mem(env, "show", s.sid[:8]).stdout
    w = "[REDACTED:sealed-value]"
    assert f"codes: {w}, {w}, {w}, {w}; {w} and {w}. İstanbul is big" in out, out
