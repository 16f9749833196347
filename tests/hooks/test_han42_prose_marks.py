"""han42 (test41 T36, T22, T17, han41b's limit) through real ``mem remember`` (person and agent) and the prompt
hook, both sides of one table:

- refused / withheld: a sealed value holding a digit written as the whole text split by a prose mark ("blue
  otter; 42", under the weight floor of a window across one), a prompt spelling one with a zero-width space
  inside (the hook kept it), and a 4-character Han value sealed with ``mem seal KEY`` (T17: it got no rule, as
  ``--sensitivity secret`` of it does);
- stored as written: ordinary prose with a comma, semicolon or sentence end between two words of a sealed phrase
  ("we saw a kestrel, harbor seals too", "I like maple syrup. Seven pancakes please").

Every row answers otherwise on batch but :data:`STILL`'s, which stay refused (han41/han41b's catches, and
``mem remember``'s reading of a text without its zero-width characters)."""

from __future__ import annotations

from objstore import scan_store
from tests.hooks.test_seal_later_turns import _mem
from tests.hooks.test_seal_two_word_values import sealed_session

SEALED = ["kestrel harbor", "maple syrup seven", "blue otter 42", "北京上海", "okapi-quetzal-5521", "青龙白虎七号门"]
REFUSED = ["blue otter; 42", "blue, otter, 42", "Blue otter, 42."]
#: refused on batch too (remember also reads a text with its zero-width characters dropped, and han41 meant these)
STILL = ["code blue\u200botter 42 ok", "code blue o\u200dtter 42 ok", "wifi okapi, quetzal, 5521", "青龙，白虎，七号门"]
STORED = ["we saw a kestrel, harbor seals too", "Birds: a kestrel, harbor seals, an otter",
          "the boat is Kestrel, Harbor Road is closed", "we saw a kestrel; harbor seals too",
          "near the maple, syrup seven dollars", "I like maple syrup. Seven pancakes please",
          "Bring maple syrup! Seven of them"]


def test_prose_marks_refuse_values_and_store_prose_as_written(tmp_path):
    s, env = sealed_session(tmp_path, SEALED, "h42")
    agent = {**env, "MEM_AGENT": "claude"}
    wrong = []   # every row answering otherwise (all of them on batch but han41's two catches)
    for i, said in enumerate(REFUSED + STILL):
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
    prose = "we saw a kestrel, harbor seals too, and maple, syrup seven dollars. I like maple syrup. Seven please"
    s.prompt(prose)
    s.prompt("blue otter; 42")
    s.prompt("code blue\u200botter 42 ok")
    out = _mem(env, "show", s.sid[:8]).stdout
    if prose not in out:
        wrong.append(("hook withheld prose", prose))
    for kept in ("otter; 42", "blue\u200botter"):   # the hook's matcher: a zero-width space ended a run
        if kept in out:
            wrong.append(("hook kept", kept))
    assert not wrong, "\n".join(map(repr, wrong))
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [b"otter; 42", "blue\u200botter".encode()]) == []


def test_a_short_han_value_sealed_with_mem_seal_gets_the_rule_of_a_secret(tmp_path):
    """T17: ``mem seal KEY`` of "东京大阪" wrote no rule (``--sensitivity secret`` of "北京上海" did): the whole value
    and a text holding it were stored in the clear, and a hooked prompt quoting it kept it."""
    s, env = sealed_session(tmp_path, [], "t17")
    _mem(env, "remember", "user/k7", "东京大阪")
    _mem(env, "seal", "user/k7")
    stored = [said for i, said in enumerate(["东京大阪", "密码是东京大阪", "东京 大阪"])
              if _mem(env, "remember", f"project/x/n{i}", said, ok=(0, 6)).returncode == 0]
    _mem(env, "remember", "project/x/ok", "我去过东京，大阪和京都")   # a prose list: weighs 8, not the value
    s.prompt("门禁密码是东京大阪")
    out = _mem(env, "show", s.sid[:8]).stdout
    assert (stored, "东京大阪" in out, "门禁密码是" in out) == ([], False, True), out
