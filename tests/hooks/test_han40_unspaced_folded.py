"""han40 (test39b B1, B5, B11, B14): a sealed or forgotten value of a script written without spaces (Han,
kana, Hangul) was matched only as written: "红色 大象 九号", "红色-大象-九号", "红色、大象、九号" and
"红 色 大 象 九 号" of a sealed "红色大象九号" were stored in the clear by remember (person and agent), the
prompt hook, ``mem memory add`` and ``mem memory propose``, while a Latin sealed value is folded over its
separators; a forgotten "内部服务器在青龙山数据中心" came back with spaces; ``forget --match`` of a Latin text
let its spaced and underscored forms back in through the hook; ``mem scan`` missed the spellings the checks
match.  The one separator-folded matching (``core.textwindows.folded_runs``) now reads each character of such a
script as a word and 、・· as separators.  Real ``mem`` and hook processes on real stores."""

from __future__ import annotations

from objstore import scan_store
from tests.hooks.test_seal_later_turns import _mem
from tests.hooks.test_seal_two_word_values import sealed_session

HAN = "红色大象九号"
LATIN = "okapi-quetzal-5521"
SPELLED = ["我家的密码是红色 大象 九号。", "密码：红色-大象-九号", "密码：红色、大象、九号", "密码 红 色 大 象 九 号",
           "门禁密码是红色・大象・九号"]
#: ordinary Chinese and Japanese text beside the sealed value's characters: never refused
ORDINARY = ["我喜欢红色的大象，九号线很方便。", "红色 大象 很大", "九号 红色", "赤い象は大きい、九号車です",
            "大象 九号线", "红色大象是动物", "红 色"]


def test_a_sealed_unspaced_value_split_by_separators_is_refused_everywhere(tmp_path):
    s, env = sealed_session(tmp_path, [HAN, LATIN], "h40")
    agent = {**env, "MEM_AGENT": "claude"}
    for i, said in enumerate(SPELLED):
        r = _mem(env, "remember", f"project/x/n{i}", said, ok=(6,))
        assert "sealed value" in r.stderr, r.stderr
        _mem(agent, "remember", f"project/x/a{i}", said, ok=(6,))
    _mem(env, "remember", "project/z/m9", "see okapi、quetzal、5521 there", ok=(6,))
    _mem(env, "remember", "project/z/m8", "see okapi・quetzal・5521 there", ok=(6,))
    for i, said in enumerate(ORDINARY):
        _mem(env, "remember", f"project/ok/n{i}", said)
    # memory files: a person's add and an agent's proposal
    _mem(env, "memory", "add", "memory", "门禁密码：红色 大象 九号", ok=(6,))
    _mem(env, "memory", "add", "memory", "wifi：okapi、quetzal、5521", ok=(6,))
    _mem(agent, "memory", "propose", "add", "memory", "door: 红色-大象-九号", ok=(6,))
    shown = _mem(env, "memory", "show").stdout + _mem(env, "queue", "list").stdout
    assert "大象" not in shown and "quetzal" not in shown, shown
    # the prompt hook withholds them in the turn it stores
    s.prompt("记一下：门禁密码是红色 大象 九号，别忘了；也是红色、大象、九号。wifi 是 okapi、quetzal、5521 吧？")
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, ["红色 大象 九号".encode(), "红色、大象、九号".encode(), "quetzal、5521".encode()]) == []
    out = _mem(env, "show", s.sid[:8]).stdout
    assert out.count("[REDACTED:sealed-value]") == 3, out
    assert "记一下：门禁密码是[REDACTED:sealed-value]，别忘了" in out, out


def test_a_forgotten_unspaced_value_does_not_come_back_with_spaces(tmp_path):
    s, env = sealed_session(tmp_path, [], "f40")
    agent = {**env, "MEM_AGENT": "claude"}
    _mem(env, "remember", "project/p/srv", "内部服务器在青龙山数据中心")
    _mem(env, "forget", "project/p/srv", "--yes")
    _mem(agent, "remember", "project/p/srv2", "内部服务器在 青龙山 数据中心", ok=(6,))
    _mem(agent, "remember", "project/p/srv2", "内部服务器在、青龙山、数据中心", ok=(6,))
    _mem(env, "forget", "--match", "青龙山数据中心", "--yes")
    _mem(agent, "remember", "project/p/srv3", "机房 青龙山 数据中心", ok=(6,))
    _mem(agent, "remember", "project/p/srv4", "机房在青龙山，数据在中心")   # not the forgotten text


def test_forget_match_withholds_the_text_spaced_underscored_or_split_by_an_ideographic_comma(tmp_path):
    """B11: the match text's folded form gets its rule too (``tombstones.match_forms``), as ``mem forget KEY``'s
    value has; a text of the session's later turns and a later agent value are withheld or refused."""
    s, env = sealed_session(tmp_path, [], "k40")
    s.prompt("the staging box is kestrel-harbor-204 for now")
    _mem(env, "forget", "--match", "kestrel-harbor-204", "--yes")
    for said in ("ssh to kestrel harbor 204", "ssh to kestrel_harbor_204", "ssh to kestrel、harbor、204"):
        s.prompt(said)
    s.prompt("ssh to kestrelharbor 2045 is another box")   # (not the text: a longer number)
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [b"kestrel harbor 204", b"kestrel_harbor_204", "kestrel、harbor、204".encode()]) == []
    out = _mem(env, "show", s.sid[:8]).stdout
    assert out.count("ssh to [forgotten]") == 3 and "kestrelharbor 2045" in out, out
    _mem({**env, "MEM_AGENT": "claude"}, "remember", "project/k/box", "box: kestrel harbor 204", ok=(6,))


def test_scan_finds_the_spellings_the_seal_and_forget_checks_match(tmp_path):
    """B14: ``mem scan`` (exit 0: found nowhere) reads a text as the checks do: Turkish dotless ı / İ casing,
    the separator-folded form, a Han value with spaces or 、 between its parts; a text it does not hold is
    still found nowhere."""
    s, env = sealed_session(tmp_path, [], "n40")
    s.prompt("the wifi is ıstanbul42 and the door 红色、大象、九号")
    _mem(env, "remember", "project/u/d", "see ISTANBUL42")
    _mem(env, "remember", "project/u/g", "see okapi、quetzal、5521 there")
    _mem(env, "remember", "project/u/h", "门禁密码是红色 大象 九号")

    def places(text):
        r = _mem(env, "scan", text, "--no-remotes", ok=(0, 1))
        lines = [ln.removesuffix(" (spelled otherwise)") for ln in r.stdout.splitlines() if ln.startswith("object")]
        return {ln.split()[-2] + " " + ln.split()[-1] for ln in lines}
    turn = {p for p in places("ıstanbul42") if not p.startswith("project/")}
    assert turn, places("ıstanbul42")
    for t in ("ıstanbul42", "ISTANBUL42", "istanbul42"):
        assert "project/u/d v1" in places(t) and turn <= places(t), (t, places(t))
    assert "project/u/g v1" in places("okapi-quetzal-5521")
    han = places("红色大象九号")
    assert "project/u/h v1" in han and turn <= han, han
    r = _mem(env, "scan", "okapi-quetzal-5521", "--no-remotes", ok=(1,))   # forget --match of the text misses it
    assert "fact project/u/g v1 (spelled otherwise)" in r.stdout and "'mem forget --match' of that spelling" in r.stderr
    _mem(env, "scan", "紫色大象九号", "--no-remotes", ok=(0,))
    _mem(env, "scan", "okapi-quetzal-5522", "--no-remotes", ok=(0,))
