"""mend22: the withheld trail (``transcript.withholds``) knew mem through a
variable (``$m sealed show K``) but not through an alias: ``alias m=mem``
(a Codex ``exec_command`` session keeps it for the next ``write_stdin``;
zsh, or bash with ``expand_aliases``, expands it in a later line of the
same call), then ``m sealed show K`` or ``eval "m sealed show K"``
printed the decrypted value and it was stored.  The alias now joins the
trail (``a:NAME``, kept in the cursor's state) and its use is withheld like
``mem`` itself: by ``mem import claude-code``, ``mem import codex`` and the
proxy.  Real transcript files, real ``mem`` processes."""

from __future__ import annotations

import json

import pytest

from objstore.capture.withhold import SECRET_OUTPUT, mem_aliases, withholds
from tests.capture.test_sealed_output_capture import VALUE, _mem, _not_found, _texts
from tests.hooks._util import asst, codex_rollout, line, proxy_replay, tool_result, tool_use, user

SID = "39393939-2222-3333-4444-555555555555"


@pytest.mark.parametrize("define, use", [
    ("alias m=mem", "m sealed show user/bank/pin"),
    ("alias m='mem --home ~/.mem'", "eval \"m sealed show user/bank/pin\""),
    ("alias ll='ls -l' m=/usr/local/bin/mem", "m --ascii sealed export user/bank/pin"),
    ("alias m=\"python3 -m cmds\"", "cd /w && m sealed show user/bank/pin | head -1"),
    ("shopt -s expand_aliases\nalias m=mem\nalias s=m", "s sealed show user/bank/pin"),
])
def test_a_sealed_value_shown_through_an_alias_is_not_stored(tmp_path, define, use):
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(line(r) for r in [
        user("u1", "show my pin", SID),
        asst("a1", "msg_1", [tool_use("toolu_a", command=define)], SID),
        user("u2", [tool_result("toolu_a", "")], SID),
        asst("a2", "msg_2", [tool_use("toolu_s", command=use)], SID),
        user("u3", [tool_result("toolu_s", VALUE)], SID),
        asst("a3", "msg_3", [tool_use("toolu_l", command="m sealed list")], SID),
        user("u4", [tool_result("toolu_l", "user/bank/pin")], SID),
    ]))
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "claude-code", str(t))
    assert [x for r, x in _texts(store) if r == "tool"] == [SECRET_OUTPUT, "user/bank/pin"]   # (an empty result is no turn)
    _not_found(store)


def test_one_call_defining_and_using_the_alias_is_withheld():
    assert withholds(json.dumps({"command": "alias m=mem\nm sealed show user/bank/pin"}), trail := [])
    assert trail == ["a:m"]


def test_codex_exec_session_keeps_the_alias(tmp_path):
    """Codex: the alias typed into an interactive exec session, the show in a later write to it."""
    t = codex_rollout(tmp_path, "T-alias1", [
        ("exec_command", {"cmd": "bash -i"}, "Process running with session ID 7"),
        ("write_stdin", {"session_id": 7, "chars": "alias m=mem\n"}, ""),
        ("write_stdin", {"session_id": 7, "chars": "m sealed show user/bank/pin\n"}, VALUE),
        ("exec_command", {"cmd": "ls"}, "notes.txt")])
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "codex", str(t))
    tools = [x for r, x in _texts(store) if r == "tool"]
    assert SECRET_OUTPUT in tools and "notes.txt" in tools
    _not_found(store)


def test_proxy_withholds_the_alias_use(tmp_path):
    msgs = [
        {"role": "user", "content": "show me my sealed bank pin"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_a", "name": "Bash", "input": {"command": "alias m=mem"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": ""}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_s", "name": "Bash", "input": {"command": "m sealed show user/bank/pin"}},
            {"type": "tool_use", "id": "toolu_ls", "name": "Bash", "input": {"command": "ls"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_s", "content": VALUE},
            {"type": "tool_result", "tool_use_id": "toolu_ls", "content": "notes.txt"}]}]
    store = tmp_path / "store"
    proxy_replay(store, msgs, "px-alias1")
    assert sorted(x for r, x in _texts(store) if r == "tool") == sorted(["notes.txt", SECRET_OUTPUT])
    _not_found(store)


def test_look_alikes_define_no_alias_and_withhold_nothing():
    assert mem_aliases("alias g=git ll='ls -l' memo=memo mm='echo mem'") == []
    assert mem_aliases("unalias m; echo alias m is gone") == []
    trail: list = []
    for call in ("alias g=git", "g sealed show x", "echo 'alias m=mem'", "m sealed show x",
                 "grep -r 'sealed show' docs"):
        assert not withholds(json.dumps({"command": call}), trail) or call == "m sealed show x", call
    assert withholds(json.dumps({"command": "m sealed show x"}), trail)   # echo 'alias m=mem': read wide
