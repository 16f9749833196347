"""key26 (test26 V7): an agent wrote the person's key again under a look-alike
(``project/api/dеploy-day``, a Cyrillic ``е``) and so stood beside the
user_stated value unreviewed; ``mem context`` then listed two keys that read
the same with opposite values.  UTS #39: a key segment mixing scripts
(Latin with Cyrillic or Greek look-alikes) is refused to every writer (exit
2); an agent's key whose confusable skeleton is an existing key's is queued
(a challenge); every listing shows a look-alike key escaped; keys in one
script (Cyrillic, Greek, CJK) keep working; a pull or a person's restore of
such a key from an older store keeps it.  Real ``mem`` processes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest

from objstore.core.objects import Fact
from objstore.core.lookalike import confusable_skeleton, escape_lookalike, is_lookalike, lookalike_mix

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
AGENT = {"MEM_AGENT": "codex"}
LOOKALIKE = "project/api/d\u0435ploy-day"   # Cyrillic е (U+0435)
SHOWN = "project/api/d\\u0435ploy-day"


def test_the_rules_on_segments():
    assert "Cyrillic and Latin" in lookalike_mix("d\u0435ploy-day") and "U+0435" in lookalike_mix("d\u0435ploy-day")
    assert "Greek and Latin" in lookalike_mix("\u0391pi")   # Greek capital alpha
    assert "Armenian and Latin" in lookalike_mix("d\u0585g")   # Armenian օ looks like o
    for one_script in ("проект", "ключ", "κλειδί", "文档", "api文档", "deployの日", "설정", "café", "notes-عربي", "v2.1_x"):
        assert lookalike_mix(one_script) is None, one_script
    assert confusable_skeleton("рор") == confusable_skeleton("pop")      # whole-script Cyrillic
    assert confusable_skeleton("ｄｂ") == confusable_skeleton("db")        # fullwidth
    assert confusable_skeleton("d\u0435ploy") == confusable_skeleton("deploy")
    assert confusable_skeleton("ключ") != confusable_skeleton("knyuch")
    assert is_lookalike("рор") and is_lookalike("ｄｂ") and is_lookalike("d\u0435ploy")
    assert not any(is_lookalike(s) for s in ("проект", "ключ", "文档", "café", "deploy"))
    assert escape_lookalike(LOOKALIKE) == SHOWN
    assert escape_lookalike("project/рор/ключ") == "project/\\u0440\\u043e\\u0440/ключ"
    assert escape_lookalike("project/проект/ключ") == "project/проект/ключ"


@pytest.mark.parametrize("env", [PERSON, AGENT])
def test_a_mixed_script_key_is_refused_to_every_cli_writer(mem, env):
    mem("remember", "project/api/deploy-day", "Deploys happen on Friday", env=PERSON)
    r = mem("remember", LOOKALIKE, "Deploys happen on Monday", env=env, exit_code=2)
    assert f"bad key '{SHOWN}'" in r.stderr and "mixes Cyrillic and Latin" in r.stderr
    assert "U+0435 CYRILLIC SMALL LETTER IE" in r.stderr and "hint:" in r.stderr
    mem("get", LOOKALIKE, exit_code=4)   # nothing was written
    for shadow in ("project/\u0430pi/deploy-day", "project/api/d\u042c"):   # a shadow project, dЬ beside db
        mem("remember", shadow, "x", env=env, exit_code=2)
    keys = mem("keys", "--json").json
    assert [k["key"] for k in keys] == ["project/api/deploy-day"]


def test_a_sealed_write_of_a_mixed_script_key_is_refused(mem):
    r = mem("remember", LOOKALIKE, "hunter2", "--sensitivity", "secret", env=PERSON, exit_code=2)
    assert "mixes Cyrillic and Latin" in r.stderr


@pytest.mark.parametrize("key,value", [
    ("project/проект/ключ", "значение"),
    ("project/api/κλειδί", "τιμή"),
    ("project/api/設定/言語", "日本語"),
    ("user/설정", "값"),
])
def test_keys_in_one_script_still_work(mem, key, value):
    mem("remember", key, value, env=PERSON)
    assert mem("get", key).stdout.strip() == value
    mem("remember", key + "2", value + " 2", env=AGENT)   # an agent's new key too: it looks like no other
    assert mem("get", key + "2").stdout.strip() == value + " 2"
    assert key in mem("keys").stdout   # shown as it is: it reads as itself
    mem("forget", key, "--yes", env=PERSON)
    mem("get", key, exit_code=4)


def test_an_agents_whole_script_look_alike_is_queued_the_persons_is_written(mem):
    mem("remember", "project/api/pop", "the person's value", env=PERSON)
    r = mem("remember", "project/api/рор", "the agent's value", "--json", env=AGENT)   # Cyrillic р о р
    queued = r.json["queued"]
    assert r.json["written"] is False and queued
    mem("get", "project/api/рор", exit_code=4)
    items = mem("queue", "list", "--json").json
    assert [i["id"] for i in items] == [queued] and items[0]["kind"] == "challenge"
    show = mem("queue", "show", queued[:12]).stdout
    assert "looks like the existing key project/api/pop" in show
    assert "key:       project/api/\\u0440\\u043e\\u0440" in show
    # fullwidth letters read as the ASCII key too
    r = mem("remember", "project/api/ｐｏｐ", "fullwidth", "--json", env=AGENT)
    assert r.json["queued"] and not r.json["written"]
    # the person may write it (and sees it escaped in every listing)
    mem("remember", "project/api/рор", "a person's own key", env=PERSON)
    assert "project/api/\\u0440\\u043e\\u0440  v1/1" in mem("keys").stdout


def test_every_listing_shows_a_look_alike_escaped(tmp_path, mem, store_path):
    """A key an older mem wrote (before this check) stays readable and is
    shown escaped: context, keys, recall, queue, and `mem show` of one of
    its versions (a single-key display)."""
    _old_store_key(store_path)
    mem("remember", "project/api/deploy-day", "Deploys happen on Friday", env=PERSON)
    mem("reindex")
    ctx = mem("context", "--project", "api").stdout
    assert f"- {SHOWN} (recorded" in ctx and "- project/api/deploy-day (recorded" in ctx
    assert LOOKALIKE not in ctx
    keys = mem("keys").stdout
    assert SHOWN in keys and LOOKALIKE not in keys
    rec = mem("recall", "when do deploys happen", "--project", "api").stdout
    assert f"fact  {SHOWN}" in rec and LOOKALIKE not in rec
    found = mem("search", "deploys").stdout
    assert f"fact  {SHOWN}" in found and LOOKALIKE not in found
    assert mem("keys", "--json").json[1]["key"] == LOOKALIKE   # --json keeps the key as stored
    shown = mem("show", LOOKALIKE).stdout
    assert f"key:         {SHOWN}  (v1, current)" in shown and LOOKALIKE not in shown, shown
    assert mem("get", LOOKALIKE).stdout.strip() == "Deploys happen on Monday"   # read as before
    mem("remember", LOOKALIKE, "again", env=PERSON, exit_code=2)   # a new version is refused
    mem("forget", LOOKALIKE, "--yes", env=PERSON)                  # forgotten as before
    mem("get", LOOKALIKE, exit_code=4)


def _old_store_key(store_path) -> None:
    from objstore.memory.opening import open_store
    with open_store(store_path, create=True) as s:
        oid = s.put(Fact(key=LOOKALIKE, body="Deploys happen on Monday", version=1, parent=None,
                         valid_from=1_700_000_000_000, recorded_at=1_700_000_000_000, kind="project",
                         trust="agent_observed", sensitivity="private", owner="codex"))
        s.update_ref(f"facts/{LOOKALIKE}", None, oid, "remember")


def test_a_pull_and_a_persons_restore_keep_an_older_stores_look_alike(tmp_path, mem):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    _old_store_key(a)
    (tmp_path / "remote").mkdir()
    mem("--home", str(a), "remote", "add", "origin", str(tmp_path / "remote"), "--no-encrypt")
    mem("--home", str(a), "push", "origin")
    mem("--home", str(b), "init")
    mem("--home", str(b), "remote", "add", "origin", str(tmp_path / "remote"), "--no-encrypt")
    mem("--home", str(b), "pull", "origin")
    assert mem("--home", str(b), "get", LOOKALIKE).stdout.strip() == "Deploys happen on Monday"
    assert SHOWN in mem("--home", str(b), "keys").stdout
    export = mem("--home", str(a), "export", "--format", "jsonl").stdout
    mem("--home", str(c), "init")
    (tmp_path / "export.jsonl").write_text(export)
    r = mem("--home", str(c), "import", "jsonl", str(tmp_path / "export.jsonl"), env=AGENT, exit_code=6)
    assert "reads as another" in r.stderr
    mem("--home", str(c), "get", LOOKALIKE, exit_code=4)
    mem("--home", str(c), "import", "jsonl", str(tmp_path / "export.jsonl"), env=PERSON)
    assert mem("--home", str(c), "get", LOOKALIKE).stdout.strip() == "Deploys happen on Monday"


def test_the_mcp_remember_tool_refuses_a_mixed_key_and_queues_a_look_alike(mem, store_path):
    pytest.importorskip("mcp")
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    mem("remember", "project/api/pop", "the person's value", env=PERSON)
    params = StdioServerParameters(command=sys.executable, args=["-m", "cmds", "mcp", "--project", "api"],
                                   env={**os.environ, "CLAUDECODE": "1"}, cwd=str(Path(__file__).parents[2]))

    async def main():
        async with stdio_client(params) as (r, w):
            async with ClientSession(r, w) as s:
                await s.initialize()
                bad = await s.call_tool("remember", {"key": LOOKALIKE, "value": "Monday"})
                assert bad.is_error and "mixes Cyrillic and Latin" in bad.content[0].text
                alike = await s.call_tool("remember", {"key": "project/api/рор", "value": "agent"})
                assert not alike.is_error and alike.structured_content["written"] is False
                assert alike.structured_content["queued"]
                assert alike.structured_content["note"] == ("this key looks like the existing key project/api/pop: "
                                                            "the proposal waits in the review queue")
                mem("remember", "project/api/рор", "a person's own key", env=PERSON)
                found = await s.call_tool("recall", {"queries": "a person's own key"})
                item = next(i for i in found.structured_content["items"] if i.get("key") == "project/api/рор")
                assert item["key_lookalike"] == "project/api/\\u0440\\u043e\\u0440"
                assert all("key_lookalike" not in i for i in found.structured_content["items"] if i is not item)
    anyio.run(main)
    mem("get", LOOKALIKE, exit_code=4)
    assert [i["kind"] for i in mem("queue", "list", "--json").json] == ["challenge"]


def test_the_prototype_read_per_character_is_the_whole_tables():
    """``_prototype`` decodes one entry of the package's confusables.json at a
    time; it must give what the whole table gives by the same rule."""
    import json
    from importlib.resources import files

    from objstore.core.lookalike import _prototype
    data = json.loads((files("confusable_homoglyphs") / "confusables.json").read_text())
    checked = 0
    for ch, partners in list(data.items())[::5]:
        if len(ch) != 1:
            continue
        want = ch
        if len(partners) == 1:
            other = partners[0]["c"]
            if len(other) > 1 or len(data.get(other, ())) > 1 or other < ch:
                want = other
        assert _prototype(ch) == want, (ch, want)
        checked += 1
    assert checked > 1000
    assert _prototype("\u0435") == "e" and _prototype("m") == "rn" and _prototype("\U0001d41d") == "d"


def test_without_the_confusables_package_the_script_is_read_from_the_name(mem, tmp_path):
    """The data package is an optional extra (the core dependencies are
    fixed): without it a character's script comes from its Unicode name, so
    a key mixing Latin with Cyrillic or Greek is refused all the same."""
    from objstore.core.lookalike import script_by_name, script_of
    sample = "aZé\u0435\u0416\u03b1\u03a9\u0585\u6587\u306e\u30ab\ud55c\u3105\u0627\u05d0\uff44\u0301-_.7"
    assert [script_by_name(c) for c in sample] == [script_of(c) for c in sample]
    # an empty package of that name first on the path: its data files are not there, as without the extra
    (tmp_path / "shadow" / "confusable_homoglyphs").mkdir(parents=True)
    (tmp_path / "shadow" / "confusable_homoglyphs" / "__init__.py").write_text("")
    without = {**PERSON, "PYTHONPATH": f"{tmp_path / 'shadow'}{os.pathsep}{Path(__file__).resolve().parents[2]}"}
    r = mem("remember", LOOKALIKE, "Deploys happen on Monday", env=without, exit_code=2)
    assert "Cyrillic and Latin" in r.stderr
    mem("remember", "project/проект/ключ", "значение", env=without)
