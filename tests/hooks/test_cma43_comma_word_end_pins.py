"""cma43 (test42 T7, T10, T4) through real ``mem`` processes (remember as a person and as an agent, the prompt
hook, forget --match, gc) and the store's bytes, both sides of each table:

- T7: a sealed 8-digit code or a 5-character Han value split by ONE comma inside a sentence ("Wi-Fi is 7391,
  8842", "密码：北京，天安门"), or the Han value alone split by one prose mark ("北京。天安门"), was stored in the clear;
  prose stays as written ("we saw a kestrel, harbor seals too", "我去过北京，上海和广州", "城市：北京！上海？广州").
- T10 is left open: a match ending at a word end let "Quillboroughs" and "MarcoRossi2024" back (test43 T9), so a
  ``forget --match`` text run into letters or digits is withheld still ("Marco Rossini" -> "[forgotten]ni").
- T4: "PIN 4471 (door lock)", "PIN 4471 - door lock", "PIN 44 71" and a Spanish or French keypad's code
  ("el código de la puerta es 4471", "le code de la porte est 4471") were kept in the clear by redaction;
  "PIN 2024 (release notes)", "código de error 4471" and "GPIO pin 17 - door lock" stay as written.

Every table answers otherwise on batch 8174a171."""

from __future__ import annotations

from objstore import scan_store
from tests.hooks._util import wait_store_processes_gone
from tests.hooks.test_seal_later_turns import _mem
from tests.hooks.test_seal_two_word_values import sealed_session

SEALED = ["7391-8842", "北京天安门", "kestrel harbor", "北京上海"]
REFUSED = ["Wi-Fi is 7391, 8842", "remember that the guest wifi code is 7391, 8842", "北京，天安门", "北京、天安门",
           "北京。天安门", "密码：北京，天安门", "门禁密码是 北京，天安门 别忘了",
           # test43 T10: the part before the comma glued to the sentence (one end may cut a part beside CJK)
           "密码是北京，天安门", "他说密码是北京，天安门。", "网络是7391，8842"]
STORED = ["we saw a kestrel, harbor seals too", "orange, kettle", "Ran 7391 tests. 8842 skipped.",
          "我去过北京，上海和广州", "城市：北京！上海？广州", "我去过北京、上海和广州"]


def test_a_sealed_value_split_by_one_comma_in_a_sentence_is_refused_and_withheld(tmp_path):
    s, env = sealed_session(tmp_path, SEALED, "c43")
    agent = {**env, "MEM_AGENT": "claude"}
    wrong = []
    for i, said in enumerate(REFUSED):
        for who, e in (("person", env), ("agent", agent)):
            r = _mem(e, "remember", f"project/no/{who}{i}", said, ok=(0, 6))
            if r.returncode != 6 or "sealed value" not in r.stderr:
                wrong.append(("stored", who, said))
    for i, said in enumerate(STORED):
        for who, e in (("person", env), ("agent", agent)):
            if _mem(e, "remember", f"project/ok/{who}{i}", said, ok=(0, 6)).returncode:
                wrong.append(("refused", who, said))
            elif (got := _mem(env, "get", f"project/ok/{who}{i}").stdout.strip()) != said:
                wrong.append(("not as written", got, said))
    s.prompt("the guest wifi code is 7391, 8842 for now")
    s.prompt("门禁密码：北京，天安门。我去过北京，上海和广州")
    s.stop("noted")   # (the Stop hook captures the transcript's turns too)
    wait_store_processes_gone(s.store)
    out = _mem(env, "show", s.sid[:8]).stdout
    if "我去过北京，上海和广州" not in out:
        wrong.append(("hook withheld prose", out))
    assert not wrong, "\n".join(map(repr, wrong))
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [b"7391, 8842", "北京，天安门".encode(), "北京、天安门".encode()]) == []


def test_a_forgotten_text_run_into_letters_or_digits_is_still_withheld(tmp_path):
    """test43 T9: cma43 made a match end at a word end (test42 T10, "Marco Rossini"), which let "Quillboroughs",
    "MarcoRossi2024" and a code run into letters back in the clear; taken back: a plural, a handle with digits or
    a code glued to letters is the forgotten text still (so "Marco Rossini" is withheld as "[forgotten]ni")."""
    s, env = sealed_session(tmp_path, [], "w43")
    agent = {**env, "MEM_AGENT": "claude"}
    for text in ("Zephyrine Quillborough", "Marco Rossi", "AB12-CD34-EF56"):
        _mem(env, "forget", "--match", text, "--yes")
    s.prompt("ping Zephyrine Quillboroughs team, the handle is MarcoRossi2024 and token AB12-CD34-EF56xyz")
    s.prompt("write to marco.rossi@example.com about it")
    s.stop("noted")
    wait_store_processes_gone(s.store)
    out = _mem(env, "show", s.sid[:8]).stdout
    assert "write to [forgotten]@example.com" in out, out
    for said in ("met Zephyrine Quillboroughs team", "MarcoRossi2024 is his handle", "token AB12-CD34-EF56xyz",
                 "Marco Rossis", "mail marco.rossi@example.com", "ping MarcoRossi", "MARCO ROSSI!", "marco_rossi"):
        _mem(agent, "remember", "project/q/x", said, ok=(6,))
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [b"uillborough", b"marco.rossi@", b"MarcoRossi", b"Rossi2024", b"AB12-CD34"]) == []


PINS = ["PIN 4471 (door lock)", "PIN 4471 - door lock", "door PIN 4471 - garage", "PIN 44 71",
        "el código de la puerta es 4471", "código de acceso 4471", "le code de la porte est 4471"]
NOT_PINS = ["PIN 2024 (release notes)", "código de error 4471", "GPIO pin 17 - door lock", "código postal 28013",
            "pin 4471 (GPIO header)"]


def test_a_pin_before_a_note_or_in_groups_and_a_keypad_code_abroad_are_withheld(tmp_path):
    s, env = sealed_session(tmp_path, [], "p43")
    wrong = []
    for i, said in enumerate(PINS):
        _mem(env, "remember", f"project/pin/n{i}", said)
        if "4471" in (got := _mem(env, "get", f"project/pin/n{i}").stdout) or "44 71" in got:
            wrong.append(("kept", said, got))
    for i, said in enumerate(NOT_PINS):
        _mem(env, "remember", f"project/not/n{i}", said)
        if (got := _mem(env, "get", f"project/not/n{i}").stdout.strip()) != said:
            wrong.append(("withheld", said, got))
    s.prompt("the garage PIN 4471 (door lock) and le code de la porte est 5520")
    s.stop("noted")
    wait_store_processes_gone(s.store)
    if "the garage PIN [REDACTED:" not in (out := _mem(env, "show", s.sid[:8]).stdout):
        wrong.append(("hook", out))
    assert not wrong, "\n".join(map(repr, wrong))
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [b"4471 (door", b"4471 - door", b"PIN 44 71", b"est 5520", b"es 4471"]) == []
