"""han41b (test41 T1, T10, T2): a sealed or forgotten value whose parts were split by a punctuation mark or
symbol outside han41's list (``: * ( ) & 【】 《》 "" 。``) was stored in the clear by remember (person and
agent) and the prompt hook, and ``mem scan`` said "found nowhere"; and ``、`` refused the ordinary prose
``，`` lets through.  A separator of the folded form is now any character whose Unicode general category is
punctuation, symbol or space (``textwindows.is_separator``), and ``、`` (with ``。：！？``) is a prose mark as
``，`` is.  Real ``mem`` and hook processes on real stores; ordinary text beside the values stays unrefused."""

from __future__ import annotations

from objstore import scan_store
from tests.hooks.test_seal_later_turns import _mem
from tests.hooks.test_seal_two_word_values import sealed_session

HAN, LATIN = "青龙白虎七号门", "okapi-quetzal-5521"
SPLIT = ["wifi okapi:quetzal:5521", "wifi okapi*quetzal*5521", "wifi (okapi)(quetzal)(5521)", "wifi okapi&quetzal&5521",
         "wifi okapi=quetzal=5521", "wifi okapi@quetzal#5521", "wifi okapi→quetzal→5521", "门：【青龙】【白虎】【七号门】",
         "门：《青龙》《白虎》《七号门》", '门："青龙""白虎""七号门"', "门：青龙。白虎。七号门", "门：（青龙）（白虎）（七号门）",
         "门：青龙：白虎：七号门", "门：〔青龙〕〔白虎〕〔七号门〕", "门：青龙★白虎★七号门"]
#: ordinary English and Chinese prose with colons, brackets, quotes and the like: never refused
ORDINARY = ["Note: the okapi (a forest giraffe) & the quetzal are \"rare\"; see page 5521.",
            "Q: is 5521 the room? A: yes (okapi wing) & the quetzal hall's next door!",
            "我读了《三体》和【新闻】。青龙山很高，白虎队赢了。七号门在左边。",
            "会议：【青龙组】负责《白虎计划》。七号门维修中。", "我去过北京、上海和广州", "我去过北京。上海也很好！",
            "北京：上海的同事明天到。"]


def test_a_sealed_value_split_by_any_punctuation_or_symbol_is_refused_everywhere(tmp_path):
    s, env = sealed_session(tmp_path, [HAN, LATIN, "北京上海"], "h41b")
    agent = {**env, "MEM_AGENT": "claude"}
    for i, said in enumerate(SPLIT):
        r = _mem(env, "remember", f"project/x/n{i}", said, ok=(6,))
        assert "sealed value" in r.stderr, r.stderr
    for i, said in enumerate(SPLIT[::3]):
        _mem(agent, "remember", f"project/x/a{i}", said, ok=(6,))
    for i, said in enumerate(ORDINARY):
        _mem(env, "remember", f"project/ok/n{i}", said)
        _mem(agent, "remember", f"project/ok/a{i}", said)
    s.prompt("门禁是【青龙】【白虎】【七号门】，wifi okapi:quetzal:5521 别忘了")
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, ["【青龙】【白虎】".encode(), b"okapi:quetzal"]) == []
    out = _mem(env, "show", s.sid[:8]).stdout
    assert out.count("[REDACTED:sealed-value]") == 2, out


def test_a_forgotten_value_split_by_any_punctuation_is_refused_and_scan_finds_it(tmp_path):
    s, env = sealed_session(tmp_path, [], "f41b")
    agent = {**env, "MEM_AGENT": "claude"}
    _mem(env, "remember", "project/app/staging-host", "kestrel-harbor-204.internal")
    _mem(env, "forget", "project/app/staging-host", "--yes")
    _mem(env, "forget", "--match", "青龙山数据中心", "--yes")
    for i, said in enumerate(["kestrel:harbor:204.internal", "(kestrel)(harbor)(204).internal", "【青龙山】【数据中心】",
                              "《青龙山》《数据中心》", "机房：青龙山。数据中心"]):
        _mem(agent, "remember", f"project/z/a{i}", said, ok=(6,))
    _mem(agent, "remember", "project/z/ok", "机房：《青龙山》很远。数据在中心")   # not the forgotten text
    _mem(env, "remember", "project/p/b", "门：【青龙】【白虎】【七号门】")
    r = _mem(env, "scan", HAN, "--no-remotes", ok=(1,))
    assert "fact project/p/b v1" in r.stdout, r.stdout
    _mem(env, "remember", "project/p/c", "wifi okapi*quetzal*5521")
    r = _mem(env, "scan", LATIN, "--no-remotes", ok=(1,))
    assert "fact project/p/c v1" in r.stdout, r.stdout


def test_the_ideographic_comma_lists_words_as_the_fullwidth_comma_does(tmp_path):
    """test41 T2: a sealed 4-character Han value listed in prose across 、 (or 。：！？) is not refused, as
    across ，; split by a space, / or a bracket it still is (a joined form across a prose mark must weigh 12)."""
    s, env = sealed_session(tmp_path, ["北京上海"], "t2")
    agent = {**env, "MEM_AGENT": "claude"}
    for i, said in enumerate(["我去过北京、上海和广州", "我去过北京，上海和广州", "我住在北京。上海太远了", "城市：北京！上海？广州"]):
        _mem(env, "remember", f"project/ok/p{i}", said)
        _mem(agent, "remember", f"project/ok/a{i}", said)
    for i, said in enumerate(["北京/上海两地的同事", "密码【北京】【上海】"]):
        _mem(env, "remember", f"project/no/p{i}", said, ok=(6,))
    s.prompt("我去过北京、上海和广州")
    assert "北京、上海和广州" in _mem(env, "show", s.sid[:8]).stdout
