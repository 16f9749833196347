"""A key whose current value was lost to damage (``mem fsck --repair`` kept
its place): ``mem recall`` warned on stderr, but the prompt hook's injected
context and the MCP ``recall`` tool said nothing, so an agent asking about
it got silence (fix14).  All three now carry the one text of
``objstore.memory.lost.lost_keys_warning``; a prompt that does not name the
key is not warned about it."""

from __future__ import annotations

from objstore.integrations.access import Caller
from objstore.integrations.mcptools import MemoryTools
from objstore.memory.facts import remember
from objstore.memory.lost import lost_keys_warning
from objstore.memory.opening import open_store
from objstore.retrieval.inject import inject_for_prompt
from tests.conftest import word_in

KEY = "project/demo/db-host"


def test_recall_hook_and_mcp_carry_the_same_lost_key_warning(store, store_path, invoke):
    remember(store, KEY, "db1.internal port 5432")
    remember(store, KEY, "db2.internal port 5433")
    remember(store, "project/demo/editor", "helix with the default keymap")
    head = store.refs.read(f"facts/{KEY}")
    store.close()
    (store_path / "objects" / head[:2] / head[2:]).write_bytes(b"garbage")
    invoke("fsck", "--repair", exit_code=13)
    text = lost_keys_warning([KEY])
    assert text and KEY in text
    r = invoke("recall", "which db host do we use", "--project", "demo")
    assert f"warning: {text}" in r.stderr and not word_in("db1", r.stdout)   # ids are hex: a word
    st = open_store(store_path)
    try:
        inj = inject_for_prompt(st, "s-lost", "which db host do we use", project="demo")
        assert text in inj.text and not word_in("db1", inj.text) and inj.trace["lost_keys"] == [KEY]
        assert text not in inject_for_prompt(st, "s-other", "which editor keymap do we use", project="demo").text
        tools, caller = MemoryTools(st), Caller(name="t", role="read")
        got = tools.tool_recall(caller, ["which db host do we use"], project="demo")
        assert got["warning"] == text and not any(word_in("db1", str(i)) for i in got["items"])
        other = tools.tool_recall(caller, ["which editor keymap"], project="demo")   # the same server, later
        assert "warning" not in other
    finally:
        st.close()
