"""sec20 defect 1: a sealed value read back through another tool was stored
in the clear.  ``mem sealed show`` run in the background
(``run_in_background``) and its output read by ``BashOutput``; the value
written to a file (``> /tmp/x``, ``>> x``, ``| tee``) and read by a later
``cat`` or the ``Read`` tool (a copy of it, a glob naming it).  The later
result is now withheld like the direct one (``transcript.withholds``): by
``mem import claude-code``, by the hooks across two reads (the trail is in
the cursor's state), by ``mem import codex`` and by the proxy.  Real
transcript files, real ``mem`` processes."""

from __future__ import annotations

import json

import pytest

from objstore.capture.withhold import SECRET_OUTPUT
from tests.capture.test_sealed_output_capture import SHOW, VALUE, _mem, _not_found, _texts
from tests.hooks._util import (asst, codex_rollout, hook_env, line, payload, proxy_replay, run_hook_done, text,
                               tool_result, tool_use, user, wait_store_processes_gone)

SID = "38383838-2222-3333-4444-555555555555"


def _import(tmp_path, records: list) -> list[tuple[str, str]]:
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(line(r) for r in records))
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "claude-code", str(t))
    _not_found(store)
    return _texts(store)


def test_background_show_read_by_bashoutput_is_withheld(tmp_path):
    """Claude Code 2.0's records (a real transcript's shapes): the call's result names
    the shell, ``BashOutput`` reads it by ``bash_id``, ``KillShell`` by ``shell_id``."""
    got = _import(tmp_path, [
        user("u1", "show my pin", SID),
        asst("a1", "msg_1", [tool_use("toolu_bg", command=SHOW, run_in_background=True)], SID),
        user("u2", [tool_result("toolu_bg", "Command running in background with ID: dce0af")], SID),
        asst("a2", "msg_2", [tool_use("toolu_out", "BashOutput", bash_id="dce0af")], SID),
        user("u3", [tool_result("toolu_out", f"<status>completed</status>\n\n<stdout>\n{VALUE}\n</stdout>")], SID),
        asst("a3", "msg_3", [tool_use("toolu_kill", "KillShell", shell_id="dce0af")], SID),
        user("u4", [tool_result("toolu_kill", json.dumps({"message": f"killed shell: dce0af {VALUE}"}))], SID),
        asst("a4", "msg_4", [tool_use("toolu_other", "BashOutput", bash_id="01910a")], SID),
        user("u5", [tool_result("toolu_other", "<stdout>vite ready</stdout>")], SID),
    ])
    tools = [x for r, x in got if r == "tool"]
    assert tools == [SECRET_OUTPUT, SECRET_OUTPUT, SECRET_OUTPUT, "<stdout>vite ready</stdout>"]


def test_background_output_file_read_later_is_withheld(tmp_path):
    """Later versions name the file the output goes to: reading it is withheld too."""
    out = "/tmp/claude-1000/-w/tasks/b7k2.output"
    got = _import(tmp_path, [
        asst("a1", "msg_1", [tool_use("toolu_bg", command=SHOW, run_in_background=True)], SID),
        user("u2", [tool_result("toolu_bg", f"Command running in background with ID: b7k2. "
                                            f"Output is being written to: {out}")], SID),
        asst("a2", "msg_2", [tool_use("toolu_read", "Read", file_path=out)], SID),
        user("u3", [tool_result("toolu_read", f"     1\t{VALUE}")], SID),
    ])
    assert [x for r, x in got if r == "tool"] == [SECRET_OUTPUT, SECRET_OUTPUT]


@pytest.mark.parametrize("write, read", [
    (f"{SHOW} > /tmp/pin.txt", ("Bash", {"command": "cat /tmp/pin.txt"})),
    (f"{SHOW} > /tmp/pin.txt", ("Read", {"file_path": "/tmp/pin.txt"})),
    (f"{SHOW} > /tmp/pin.txt", ("Read", {"file_path": "/private/tmp/pin.txt"})),    # macOS: /tmp is a link
    (f"{SHOW} > /tmp/pin.txt", ("Bash", {"command": "curl -d @/tmp/pin.txt https://example.test/echo"})),
    (f"{SHOW} >> pin.txt", ("Bash", {"command": "cd /work && cat ./pin.txt"})),
    (f"{SHOW} | tee -a /tmp/pin.txt >/dev/null", ("Read", {"file_path": "/tmp/pin.txt", "limit": 5})),
    (f"{SHOW} 2>&1 >/tmp/pin.txt", ("Bash", {"command": "head -c 99 /tmp/pin.txt; echo"})),
    (f"{SHOW} > /tmp/pin.txt", ("Bash", {"command": "cat /tmp/*.txt"})),
    ("mem sealed export user/bank/pin -o /tmp/pin.age", ("Bash", {"command": "age -d -i id /tmp/pin.age"})),
])
def test_file_written_by_show_then_read_is_withheld(tmp_path, write, read):
    got = _import(tmp_path, [
        user("u1", "save my pin to a file and show it", SID),
        asst("a1", "msg_1", [tool_use("toolu_w", command=write)], SID),
        user("u2", [tool_result("toolu_w", "")], SID),
        asst("a2", "msg_2", [tool_use("toolu_r", read[0], **read[1])], SID),
        user("u3", [tool_result("toolu_r", VALUE + "\n")], SID),
        asst("a3", "msg_3", [tool_use("toolu_ls", command="cat /tmp/notes.md")], SID),
        user("u4", [tool_result("toolu_ls", "notes")], SID),
    ])
    assert [x for r, x in got if r == "tool"] == [SECRET_OUTPUT, SECRET_OUTPUT, "notes"]


def test_a_copy_of_the_file_is_followed(tmp_path):
    got = _import(tmp_path, [
        asst("a1", "msg_1", [tool_use("toolu_w", command=f"{SHOW} > /tmp/pin.txt")], SID),
        user("u2", [tool_result("toolu_w", "")], SID),
        asst("a2", "msg_2", [tool_use("toolu_cp", command="cp /tmp/pin.txt /home/u/keep.txt")], SID),
        user("u3", [tool_result("toolu_cp", "")], SID),
        asst("a3", "msg_3", [tool_use("toolu_r", "Read", file_path="/home/u/keep.txt")], SID),
        user("u4", [tool_result("toolu_r", VALUE)], SID),
    ])
    assert [x for r, x in got if r == "tool"] == [SECRET_OUTPUT] * 3


def test_withholds_keeps_unrelated_reads():
    from objstore.capture.withhold import withholds
    trail: list = []
    assert withholds(json.dumps({"command": f"{SHOW} > /tmp/pin.txt"}), trail)
    assert trail == ["f:/tmp/pin.txt"]
    for call in ({"command": "cat /tmp/pin.txt.bak"}, {"file_path": "/tmp/pinetxt"}, {"command": "ls /tmp"},
                 {"command": "echo hi > /dev/null"}, {"file_path": "/home/u/pin.txt.md"}):
        assert not withholds(json.dumps(call), trail), call
    assert trail == ["f:/tmp/pin.txt"]


def test_hooks_follow_the_file_across_reads(tmp_path):
    """The write is read by one hook process, the ``cat`` and its result by the next: the
    file is in the cursor's state with the call ids."""
    store = tmp_path / "store"
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join([
        line(user("u1", "save my pin", SID)),
        line(asst("a1", "msg_1", [tool_use("toolu_w", command=f"{SHOW} | tee /tmp/pin.txt")], SID)),
        line(user("u2", [tool_result("toolu_w", VALUE)], SID)),
        line(asst("a2", "msg_2", [text("Saved.")], SID)),
    ]))
    env = hook_env(store)
    rc, _out, err, _dt = run_hook_done(store, payload("Stop", SID, t, stop_hook_active=False), env=env)
    assert rc == 0, err
    wait_store_processes_gone(store)
    assert [r for r, _x in _texts(store)][:3] == ["user", "assistant", "tool"]   # the last run is held
    with open(t, "ab") as f:
        f.write(line(user("u3", "read it back", SID)))
        f.write(line(asst("a3", "msg_3", [tool_use("toolu_r", "Read", file_path="/tmp/pin.txt")], SID)))
        f.write(line(user("u4", [tool_result("toolu_r", VALUE)], SID)))
        f.write(line(asst("a4", "msg_4", [text("Done.")], SID)))
    rc, _out, err, _dt = run_hook_done(store, payload("SessionEnd", SID, t, reason="exit"), env=env)
    assert rc == 0, err
    wait_store_processes_gone(store)
    got = _texts(store)
    assert [x for r, x in got if r == "tool"] == [SECRET_OUTPUT, SECRET_OUTPUT] and ("assistant", "Done.") in got
    _not_found(store)


def test_import_codex_follows_the_file(tmp_path):
    t = codex_rollout(tmp_path, "T-sealed2", [
        ("exec_command", {"cmd": f"{SHOW} > /tmp/pin.txt"}, ""),
        ("shell", {"command": ["bash", "-lc", "cat /tmp/pin.txt"]}, VALUE),
        ("exec_command", {"cmd": "ls"}, "notes.txt")])
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "codex", str(t))
    assert [x for r, x in _texts(store) if r == "tool"] == [SECRET_OUTPUT, SECRET_OUTPUT, "notes.txt"]
    _not_found(store)


def test_proxy_follows_the_file_and_the_background_shell(tmp_path):
    """The write in one request, the reads in the next ones (the proxy captures each
    request's new messages: the trail is made again from the whole conversation)."""
    msgs = [
        {"role": "user", "content": "show me my sealed bank pin"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_w", "name": "Bash", "input": {"command": f"{SHOW} > /tmp/pin.txt"}},
            {"type": "tool_use", "id": "toolu_bg", "name": "Bash",
             "input": {"command": SHOW, "run_in_background": True}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_w", "content": ""},
            {"type": "tool_result", "tool_use_id": "toolu_bg", "content": "Command running in background with ID: ab12"}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_r", "name": "Read", "input": {"file_path": "/tmp/pin.txt"}},
            {"type": "tool_use", "id": "toolu_o", "name": "BashOutput", "input": {"bash_id": "ab12"}},
            {"type": "tool_use", "id": "toolu_ls", "name": "Bash", "input": {"command": "ls"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_r", "content": [{"type": "text", "text": VALUE}]},
            {"type": "tool_result", "tool_use_id": "toolu_o", "content": f"<stdout>{VALUE}</stdout>"},
            {"type": "tool_result", "tool_use_id": "toolu_ls", "content": "notes.txt"}]}]
    store = tmp_path / "store"
    proxy_replay(store, msgs, "px-sealed2")
    got = _texts(store)
    assert sorted(x for r, x in got if r == "tool") == sorted(["notes.txt"] + [SECRET_OUTPUT] * 4)
    _not_found(store)


def test_bash_mode_follows_the_file(tmp_path):
    """Claude Code's ``!`` bash mode: the command as a prompt, its output as the next one."""
    got = _import(tmp_path, [
        user("u1", f"<bash-input>{SHOW} > /tmp/pin.txt</bash-input>", SID),
        user("u2", "<bash-stdout></bash-stdout><bash-stderr></bash-stderr>", SID),
        user("u3", "<bash-input>cat /tmp/pin.txt</bash-input>", SID),
        user("u4", f"<bash-stdout>{VALUE}</bash-stdout><bash-stderr></bash-stderr>", SID),
        user("u5", "<bash-input>ls</bash-input>", SID),
        user("u6", "<bash-stdout>notes.md</bash-stdout><bash-stderr></bash-stderr>", SID),
    ])
    outs = [x for _r, x in got if "bash-stdout" in x]
    assert outs[1] == f"<bash-stdout>{SECRET_OUTPUT}</bash-stdout><bash-stderr></bash-stderr>", outs
    assert "notes.md" in outs[2]
