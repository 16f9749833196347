"""trail21: the gaps of sec20's withheld trail of sealed values, closed.
A file a ``mem sealed show`` wrote was followed when a later call named it,
but not when a call read a folder holding it (``grep -r X DIR``, ``tar -c
DIR``, the ``Grep`` tool with a ``path`` above it or none in its working
folder), when the path was built at run time (``D=/tmp/x; … > $D/f``,
``cd /tmp/x && … > f``, Codex's ``workdir``), or when a Codex exec session
was typed into (``write_stdin`` with ``mem sealed show``) and read on.
Real transcript files through ``mem import``, a real hook process, the
proxy's capture."""

from __future__ import annotations

import json

from objstore.capture.withhold import SECRET_OUTPUT, withholds
from tests.capture.test_sealed_output_capture import SHOW, VALUE, _mem, _not_found, _texts
from tests.hooks._util import (CWD, asst, hook_env, line, payload, run_hook_done, text, tool_result, tool_use, user,
                               wait_store_processes_gone)

SID = "21212121-2222-3333-4444-555555555555"
KEPT = "notes"

#: folder reads of /tmp/x, which holds the file the first call writes
FOLDER_READS = [
    ("Bash", {"command": "grep -r 4471 /tmp/x"}),
    ("Bash", {"command": "rg -n 4471 /tmp/x/"}),
    ("Bash", {"command": "grep -R 4471 /tmp"}),
    ("Bash", {"command": "find /tmp/x -type f -exec cat {} +"}),
    ("Bash", {"command": "tar -cO /tmp/x | strings"}),
    ("Bash", {"command": "tar -cf - -C /tmp x | tar -xOf -"}),
    ("Bash", {"command": "cd /tmp/x && rg 4471"}),
    ("Bash", {"command": "cd /tmp && grep -rn 4471 ."}),
    ("Bash", {"command": "sudo grep -rl 4471 /tmp/x/.. && echo found"}),
    ("Bash", {"command": "python3 -c 'import pathlib; print([p.read_text() for p in pathlib.Path(\"/tmp/x\").iterdir()])'"}),
    ("Grep", {"pattern": "4471", "path": "/tmp/x", "output_mode": "content"}),
    ("Grep", {"pattern": "44", "path": "/tmp"}),
]
#: reads of other folders, and name listings of this one: kept
OTHER_READS = [
    ("Bash", {"command": "grep -r 4471 /home/u/proj"}),
    ("Bash", {"command": "ls -la /tmp/x"}),
    ("Bash", {"command": "du -sh /tmp/x /tmp"}),
    ("Bash", {"command": "rg TODO src"}),
    ("Grep", {"pattern": "TODO", "path": "/home/u/proj/src"}),
    ("Grep", {"pattern": "TODO"}),                                   # the working folder: /home/u/proj
]


def _calls(write: str, reads: list) -> list[dict]:
    recs = [user("u0", "save my pin to a file", SID),
            asst("a0", "msg_0", [tool_use("toolu_w", command=write)], SID),
            user("u0r", [tool_result("toolu_w", "")], SID)]
    for n, (name, inp) in enumerate(reads):
        recs.append(asst(f"a{n + 1}", f"msg_{n + 1}", [tool_use(f"toolu_{n}", name, **inp)], SID))
        recs.append(user(f"u{n + 1}", [tool_result(f"toolu_{n}", f"{VALUE} {KEPT}{n}")], SID))
    return recs


def _import(tmp_path, records: list) -> list[str]:
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(line(r) for r in records))
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "claude-code", str(t))
    return [x for r, x in _texts(store) if r == "tool"]


def test_folder_reads_are_withheld_and_other_folders_kept(tmp_path):
    got = _import(tmp_path, _calls(f"{SHOW} > /tmp/x/pin.txt", FOLDER_READS + OTHER_READS))
    n = len(FOLDER_READS)
    assert got[:n + 1] == [SECRET_OUTPUT] * (n + 1), list(zip([SECRET_OUTPUT] + FOLDER_READS, got))
    assert got[n + 1:] == [f"{VALUE} {KEPT}{n + i}" for i in range(len(OTHER_READS))]


def test_grep_tool_without_a_path_searches_the_working_folder(tmp_path):
    """The file is written in the session's working folder (the record's ``cwd``), by a
    relative path: a ``Grep`` with no ``path`` searches it; a ``Read`` of the full path reads it."""
    got = _import(tmp_path, _calls(f"{SHOW} > pin.txt", [
        ("Grep", {"pattern": "4471"}),
        ("Grep", {"pattern": "4471", "path": CWD}),
        ("Bash", {"command": f"grep -r 4471 {CWD}/.."}),
        ("Read", {"file_path": f"{CWD}/pin.txt"}),
        ("Grep", {"pattern": "TODO", "path": "/srv/other"}),
    ]))
    assert got == [SECRET_OUTPUT] * 5 + [f"{VALUE} {KEPT}4"]


def test_paths_built_at_run_time_are_followed(tmp_path):
    """A variable set on the command line is put in place; one set elsewhere is any
    folder (``$OUT/f`` is any file named ``f``); ``cd DIR &&`` is the folder what
    follows runs in."""
    got = _import(tmp_path, [
        asst("a1", "msg_1", [tool_use("t1", command=f"D=/tmp/a; {SHOW} > $D/f1; cat $D/f1")], SID),
        user("u1", [tool_result("t1", VALUE)], SID),
        asst("a2", "msg_2", [tool_use("t2", "Read", file_path="/tmp/a/f1")], SID),
        user("u2", [tool_result("t2", VALUE)], SID),
        asst("a3", "msg_3", [tool_use("t3", command=f'export OUT="/tmp/b"; {SHOW} | tee "${{OUT}}/f2"')], SID),
        user("u3", [tool_result("t3", VALUE)], SID),
        asst("a4", "msg_4", [tool_use("t4", command="grep -r 4471 /tmp/b")], SID),
        user("u4", [tool_result("t4", VALUE)], SID),
        asst("a5", "msg_5", [tool_use("t5", command=f"{SHOW} > $TMPDIR/f3")], SID),
        user("u5", [tool_result("t5", "")], SID),
        asst("a6", "msg_6", [tool_use("t6", "Read", file_path="/var/folders/q/T/f3")], SID),
        user("u6", [tool_result("t6", VALUE)], SID),
        asst("a7", "msg_7", [tool_use("t7", command=f"cd /tmp/c && {SHOW} > f4")], SID),
        user("u7", [tool_result("t7", "")], SID),
        asst("a8", "msg_8", [tool_use("t8", command="tar -czf - /tmp/c | base64")], SID),
        user("u8", [tool_result("t8", VALUE)], SID),
        asst("a9", "msg_9", [tool_use("t9", command="cat /tmp/a/other.txt /tmp/c/f5")], SID),
        user("u9", [tool_result("t9", KEPT)], SID),
    ])
    assert got == [SECRET_OUTPUT] * 8 + [KEPT]


def _codex(tmp_path, items: list) -> list[str]:
    def env(kind, p):
        return {"timestamp": "2026-03-02T10:00:00Z", "type": kind, "payload": p}
    recs = [env("session_meta", {"id": "T-trail21", "cwd": CWD, "source": "cli"})]
    for i, (name, args, output) in enumerate(items):
        recs.append(env("response_item", {"type": "function_call", "name": name, "call_id": f"c{i}",
                                          "arguments": json.dumps(args)}))
        recs.append(env("response_item", {"type": "function_call_output", "call_id": f"c{i}", "output": output}))
    t = tmp_path / "rollout-2026-03-02T10-00-00-T-trail21.jsonl"
    t.write_text("".join(json.dumps(r) + "\n" for r in recs))
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "codex", str(t))
    _not_found(store)
    return [x for r, x in _texts(store) if r == "tool"]


def _unified(session: int | None, out: str) -> str:
    """Codex's ``exec_command`` / ``write_stdin`` output (codex-rs unified exec)."""
    head = f"Chunk ID: 3f2a\nWall time: 1.0021 seconds\n"
    head += f"Process running with session ID {session}\n" if session else "Process exited with code 0\n"
    return head + f"Original token count: 4\nOutput:\n{out}"


def test_codex_exec_session_typed_into_is_followed(tmp_path):
    """An interactive shell (``exec_command`` with ``tty``) is typed ``mem sealed show``
    by ``write_stdin``: what later ``write_stdin`` calls to that session read is withheld;
    another session is kept.  A guard: main follows this already, by the ``Process running
    with session ID`` of the withheld call's output; the call's own ``session_id`` (what
    holds when the output does not say it) is checked in :func:`test_withholds_rules`."""
    got = _codex(tmp_path, [
        ("exec_command", {"cmd": "bash -i", "tty": True, "yield_time_ms": 500}, _unified(8042, "$ ")),
        ("exec_command", {"cmd": "npm run dev", "yield_time_ms": 500}, _unified(8043, "vite")),
        ("write_stdin", {"session_id": 8042, "chars": SHOW + "\n", "yield_time_ms": 50}, _unified(8042, "")),
        ("write_stdin", {"session_id": 8042, "chars": "", "yield_time_ms": 2000}, _unified(8042, VALUE)),
        ("write_stdin", {"session_id": 8043, "chars": "", "yield_time_ms": 2000}, _unified(8043, "ready")),
        ("write_stdin", {"session_id": 8042, "chars": "exit\n"}, _unified(None, VALUE)),
    ])
    assert got == [_unified(8042, "$ "), _unified(8043, "vite"), SECRET_OUTPUT, SECRET_OUTPUT,
                   _unified(8043, "ready"), SECRET_OUTPUT]


def test_codex_background_show_and_workdir(tmp_path):
    """``exec_command`` running ``mem sealed show`` past its yield: the session it names is
    read by ``write_stdin``; a file written by a relative path in a ``workdir`` is searched there."""
    got = _codex(tmp_path, [
        ("exec_command", {"cmd": f"sleep 2; {SHOW}", "yield_time_ms": 1000}, _unified(5150, "")),
        ("write_stdin", {"session_id": 5150, "chars": ""}, _unified(None, VALUE)),
        ("exec_command", {"cmd": f"{SHOW} > out/pin.txt", "workdir": "/srv/app"}, _unified(None, "")),
        ("exec_command", {"cmd": "rg -n 4471", "workdir": "/srv/app/out"}, _unified(None, VALUE)),
        ("shell", {"command": ["bash", "-lc", "grep -r 4471 ."], "workdir": "/srv/app"}, _unified(None, VALUE)),
        ("exec_command", {"cmd": "rg -n 4471", "workdir": "/srv/web"}, _unified(None, KEPT)),
    ])
    assert got == [SECRET_OUTPUT] * 5 + [_unified(None, KEPT)]


def test_proxy_follows_a_folder_read_in_the_working_folder(tmp_path):
    """The proxy makes the same check, with the working folder its system prompt names."""
    from objstore.integrations.proxy import capture_turns, prepare
    from objstore.memory.opening import open_store
    msgs = [
        {"role": "user", "content": "keep my pin in a file here"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_w", "name": "Bash", "input": {"command": f"{SHOW} > keep/pin.txt"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_w", "content": ""}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_g", "name": "Grep", "input": {"pattern": "4471"}},
            {"type": "tool_use", "id": "toolu_r", "name": "Bash", "input": {"command": "grep -r 4471 /work/app/keep"}},
            {"type": "tool_use", "id": "toolu_o", "name": "Grep", "input": {"pattern": "4471", "path": "/srv"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_g", "content": f"keep/pin.txt:{VALUE}"},
            {"type": "tool_result", "tool_use_id": "toolu_r", "content": f"/work/app/keep/pin.txt:{VALUE}"},
            {"type": "tool_result", "tool_use_id": "toolu_o", "content": KEPT}]}]
    store = tmp_path / "store"
    with open_store(store, create=True) as s:
        for n in (1, 3, 5):
            req = {"model": "claude", "max_tokens": 10, "system": "Working directory: /work/app\n",
                   "messages": msgs[:n]}
            prep = prepare(s, json.dumps(req).encode(), {"x-mem-session": "px-trail21"})
            capture_turns(s, prep.pending)
    got = _texts(store)
    assert sorted(x for r, x in got if r == "tool") == sorted([KEPT] + [SECRET_OUTPUT] * 3)
    _not_found(store)


def test_hook_follows_a_folder_read_across_reads(tmp_path):
    """A real hook process reads the write; the next one reads a ``grep -r`` of its folder
    and a ``Grep`` of the working folder: the trail is in the cursor's state."""
    store = tmp_path / "store"
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join([
        line(user("u1", "save my pin", SID)),
        line(asst("a1", "msg_1", [tool_use("toolu_w", command=f"P=$HOME/.pins; {SHOW} > $P/bank")], SID)),
        line(user("u2", [tool_result("toolu_w", "")], SID)),
        line(asst("a2", "msg_2", [tool_use("toolu_w2", command=f"cd {CWD} && {SHOW} > secrets/pin.txt")], SID)),
        line(user("u3", [tool_result("toolu_w2", "")], SID)),
        line(asst("a3", "msg_3", [text("Saved.")], SID)),
    ]))
    env = hook_env(store)
    rc, _out, err, _dt = run_hook_done(store, payload("Stop", SID, t, stop_hook_active=False), env=env)
    assert rc == 0, err
    wait_store_processes_gone(store)
    with open(t, "ab") as f:
        f.write(line(user("u4", "find it again", SID)))
        f.write(line(asst("a4", "msg_4", [tool_use("toolu_g", "Grep", pattern="4471")], SID)))
        f.write(line(user("u5", [tool_result("toolu_g", f"secrets/pin.txt:{VALUE}")], SID)))
        f.write(line(asst("a5", "msg_5", [tool_use("toolu_r", command="grep -r 4471 ~/.pins/")], SID)))
        f.write(line(user("u6", [tool_result("toolu_r", f"bank:{VALUE}")], SID)))
        f.write(line(asst("a6", "msg_6", [tool_use("toolu_k", command="git status --short")], SID)))
        f.write(line(user("u7", [tool_result("toolu_k", KEPT)], SID)))
        f.write(line(asst("a7", "msg_7", [text("Done.")], SID)))
    rc, _out, err, _dt = run_hook_done(store, payload("SessionEnd", SID, t, reason="exit"), env=env)
    assert rc == 0, err
    wait_store_processes_gone(store)
    got = _texts(store)
    assert [x for r, x in got if r == "tool"] == [SECRET_OUTPUT] * 4 + [KEPT] and ("assistant", "Done.") in got
    _not_found(store)


def test_withholds_rules():
    """The rule at the function: names-only commands of the folder are kept; a file at a
    path not known is any file of that name, in a search of any folder; ``..`` is taken
    away; a ``write_stdin`` typing ``mem sealed show`` marks its session (whatever its output says)."""
    trail: list = []
    assert withholds(json.dumps({"command": f"{SHOW} > /tmp/x/pin.txt"}), trail)
    for call in ("ls /tmp/x", "find /tmp/x -name a.txt", "wc -l /tmp/y/*.md", "grep TODO /w/a.py",
                 "cat /tmp/xy/pin.txt", "cd /tmp/x && ls", "git status"):
        assert not withholds(json.dumps({"command": call}), trail), call
    for call in ("cat /tmp/x/../x/pin.txt", "grep -r k /tmp/x/sub/..", "cd /tmp && cat x/*", "head -n 5 /tmp/x/*",
                 "find /tmp -exec grep -l k {} +", "tail -n +1 /tmp/x/*.txt", "less /tmp/x/", "git grep k",
                 "find /tmp/x -type f | xargs cat", "cp -r /tmp/x /srv/keep", "cat /srv/keep/pin.txt"):
        assert withholds(json.dumps({"command": call}), trail), call
    trail = []
    assert withholds(f"{SHOW} > $X/pin", trail)
    assert trail == ["f:*/pin"]
    assert withholds("cat /opt/a/pin", trail) and withholds("rg k /opt", trail)
    assert not withholds("cat /opt/a/pine", trail) and not withholds("cat /opt/a", trail)
    assert withholds(f"{SHOW} > /tmp/$N", trail) and "f:/tmp/*" in trail
    assert withholds("cat /tmp/any", trail) and not withholds("cat /opt/any", trail)
    assert not withholds(json.dumps({"todos": [{"content": "read `x` and $HOME"}]}), trail)
    trail = []
    assert withholds(json.dumps({"session_id": 77, "chars": SHOW + "\n"}), trail)
    assert trail == ["s:77"] and withholds(json.dumps({"session_id": 77, "chars": ""}), trail)
    assert not withholds(json.dumps({"session_id": 78, "chars": ""}), trail)
