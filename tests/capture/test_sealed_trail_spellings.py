"""trl22 (tester test22 X3-X7): a sealed value's trail lost by the way a command
was spelt.  A line continuation inside the command (``mem \\⏎ sealed show``) hid
the show itself (X5); a single-quoted or oddly spelt path (``> '/tmp/x/pin.txt'``,
``pi''n.txt``, ``/tmp//x``, ``p{i}n``) was not the file written (X3, X7); a file
written to ``~/pin.txt`` and read as ``/home/u/pin.txt`` was another file (X4);
a sub-agent reading the file its parent's show wrote started with no trail (X6);
a backquoted ``mem``, ``nohup.out``, a folder ``rsync`` copied and ``git diff`` /
``show`` / ``stash show`` of a file written in the repository were not followed
(X7).  Real transcript files through ``mem import``, a real hook process."""

from __future__ import annotations

import json

from objstore.capture import claude_code
from objstore.capture.transcript import ParseStats
from objstore.capture.withhold import SECRET_OUTPUT, prints_secret, withholds
from tests.capture.test_sealed_output_capture import VALUE, _mem, _not_found, _texts
from tests.hooks._util import (asst, hook_env, line, payload, run_hook_done, text, tool_result, tool_use, user,
                               wait_store_processes_gone)

SID = "22222222-3333-4444-5555-666666666666"
SHOW = "mem sealed show user/bank/pin"
KEPT = "notes"


def _session(calls: list) -> list[dict]:
    """Records of a session of ``calls`` ((tool, input, result) each), a minute apart."""
    recs = [user("u0", "look after my pin", SID, ts="2026-01-05T10:00:00Z")]
    for n, (name, inp, out) in enumerate(calls):
        recs.append(asst(f"a{n}", f"msg_{n}", [tool_use(f"toolu_{n}", name, **inp)], SID,
                         ts=f"2026-01-05T10:{n + 1:02d}:00Z"))
        recs.append(user(f"u{n}r", [tool_result(f"toolu_{n}", out)], SID, ts=f"2026-01-05T10:{n + 1:02d}:30Z"))
    return recs


def _import(tmp_path, calls: list) -> list[str]:
    """The session imported into a fresh store: its tool turns, in order (the value in none)."""
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(line(r) for r in _session(calls)))
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "claude-code", str(t))
    _not_found(store)
    return [x for r, x in _texts(store) if r == "tool"]


def _after(write: str, reads: list, kept: list) -> list:
    """Calls: ``write`` (Bash; withheld, its empty result stored as the mark), then each of ``reads`` printing the value, then each of ``kept``
    printing :data:`KEPT`."""
    return ([("Bash", {"command": write}, "")] + [(n, i, VALUE) for n, i in reads]
            + [(n, i, KEPT) for n, i in kept])


def test_a_line_continuation_does_not_hide_the_show(tmp_path):
    """X5: bash joins the lines, so does the check: the show's own result, a file it wrote,
    and a written script holding a continued show are withheld."""
    calls = [
        ("Bash", {"command": "mem \\\n  sealed show user/bank/pin"}, VALUE),
        ("Bash", {"command": "mem sealed \\\n show user/bank/pin"}, VALUE),
        ("Bash", {"command": "mem --home /p/store \\\n  sealed show user/bank/pin"}, VALUE),
        ("Bash", {"command": "mem sealed \\\r\n show user/bank/pin"}, VALUE),
        ("Bash", {"command": "mem sealed show \\\n  user/bank/pin > /tmp/y"}, ""),
        ("Bash", {"command": "cat /tmp/y"}, VALUE),
        ("Write", {"file_path": "/p/s.sh", "content": "#!/bin/sh\nmem sealed \\\n  show user/bank/pin\n"}, "ok"),
        ("Bash", {"command": "sh /p/s.sh"}, VALUE),
        ("Bash", {"command": "ls \\\n  -la /p"}, KEPT),
    ]
    got = _import(tmp_path, calls)
    assert got == [SECRET_OUTPUT] * 8 + [KEPT], list(zip(calls, got))
    assert prints_secret("mem \\\n sealed show k") and not prints_secret("mem \\\n sealed list")


def test_quoted_and_oddly_spelt_paths_are_the_file_written(tmp_path):
    """X3, X7: the shell passes ``'/tmp/x/pin.txt'``, ``pi''n.txt``, ``p{i}n.txt`` and
    ``/tmp//x`` as the bare path."""
    calls = (_after(f"{SHOW} > '/tmp/x/pin.txt'", [("Bash", {"command": "cat /tmp/x/pin.txt"})], [])
             + _after(f"{SHOW} | tee '/tmp/t/tee.txt'", [("Read", {"file_path": "/tmp/t/tee.txt"})], [])
             + _after("cp /tmp/x/pin.txt '/tmp/c/a.txt'", [("Bash", {"command": "cat /tmp/c/a.txt"})], [])
             + _after(f"{SHOW} > /tmp/o/pin.txt", [("Bash", {"command": "cat /tmp//o/pin.txt"}),
                                                   ("Bash", {"command": "cat /tmp/o/p{i}n.txt"}),
                                                   ("Bash", {"command": "cat /tmp/o/pi''n.txt"}),
                                                   ("Bash", {"command": 'cat /tmp/o/pi""n.txt'})],
                      [("Bash", {"command": "cat '/tmp/o/other.txt' /tmp/o//other.txt"}),
                       ("Bash", {"command": "echo 'a b' > '/tmp/o/new.txt'"})]))
    got = _import(tmp_path, calls)
    assert got == [SECRET_OUTPUT] * 11 + [KEPT] * 2, list(zip(calls, got))


def test_a_file_written_to_the_home_folder_is_any_home_s_file(tmp_path):
    """X4: a transcript does not say whose home ``~`` is: ``~/REST`` is read as
    ``/home/NAME/REST``, ``/Users/NAME/REST``, ``/root/REST``, and a search of a home."""
    calls = _after(f"{SHOW} > ~/pin.txt",
                   [("Read", {"file_path": "/home/u/pin.txt"}),
                    ("Bash", {"command": "cat /home/ana/pin.txt"}),
                    ("Bash", {"command": "cat /Users/sam/pin.txt"}),
                    ("Bash", {"command": "cat /root/pin.txt"}),
                    ("Bash", {"command": "grep -r 4471 /home/u"})],
                   [("Read", {"file_path": "/home/u/other.txt"}),
                    ("Bash", {"command": "grep -r 4471 /home/u/proj/src"}),
                    ("Bash", {"command": "cat /srv/home/u/pin.txt.bak"})])
    got = _import(tmp_path, calls)
    assert got == [SECRET_OUTPUT] * 6 + [KEPT] * 3, list(zip(calls, got))


def test_a_sub_agent_inherits_its_parent_s_trail(tmp_path):
    """X6: the parent writes the value to a file, then starts a sub-agent (``Task``) that
    reads it: the sub-agent's result (and so its roll-up) does not hold the value; a file
    the parent writes after the sub-agent started is not its trail."""
    proj = tmp_path / "-home-u-proj"
    (proj / SID / "subagents").mkdir(parents=True)
    recs = _session([("Bash", {"command": f"{SHOW} > /tmp/x/pin.txt"}, ""),
                     ("Task", {"description": "check", "prompt": "read the pin file",
                               "subagent_type": "general-purpose"}, "It is a number."),
                     ("Bash", {"command": f"{SHOW} > /tmp/late/pin.txt"}, "")])
    (proj / f"{SID}.jsonl").write_bytes(b"".join(line(r) for r in recs))
    side = {"isSidechain": True, "agentId": "a1b2c3"}
    sub = [user("s0", "read the pin file", SID, ts="2026-01-05T10:02:05Z", **side),
           asst("s1", "msg_s1", [tool_use("st1", command="cat /tmp/x/pin.txt")], SID,
                ts="2026-01-05T10:02:10Z", **side),
           user("s2", [tool_result("st1", VALUE)], SID, ts="2026-01-05T10:02:11Z", **side),
           asst("s3", "msg_s3", [tool_use("st2", command="cat /tmp/late/pin.txt")], SID,
                ts="2026-01-05T10:02:20Z", **side),
           user("s4", [tool_result("st2", KEPT)], SID, ts="2026-01-05T10:02:21Z", **side),
           asst("s5", "msg_s5", [text("The file holds a number.")], SID, ts="2026-01-05T10:02:30Z", **side)]
    (proj / SID / "subagents" / "agent-a1b2c3.jsonl").write_bytes(b"".join(line(r) for r in sub))
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "claude-code", str(tmp_path))
    _not_found(store)
    tools = [x for r, x in _texts(store) if r == "tool"]
    assert tools.count(SECRET_OUTPUT) == 3 and KEPT in tools, tools     # the two writes, the read
    # read alone (as a SubagentStop hook reads it, with a cursor's state): the parent is read for it
    alone = [ct.text for ct in claude_code.parse_file(proj / SID / "subagents" / "agent-a1b2c3.jsonl",
                                                      ParseStats(), state=claude_code.ReaderState())]
    assert alone.count(SECRET_OUTPUT) == 1 and KEPT in alone and VALUE not in "".join(alone), alone


def test_backquotes_nohup_rsync_and_git_are_followed(tmp_path):
    """X7: ``` `which mem` ```; ``nohup … &`` then ``nohup.out``; a folder ``rsync`` /
    ``cp -r`` copied; ``git diff`` / ``show`` / ``stash show`` / ``log -p`` after the file was
    written in the repository (the working folder); ``python -m`` of a written module."""
    calls = ([("Bash", {"command": "`which mem` sealed show user/bank/pin"}, VALUE)]
             + _after(f"nohup {SHOW} &", [("Bash", {"command": "cat nohup.out"})], [])
             + _after(f"{SHOW} > /tmp/r/pin.txt && rsync -a /tmp/r/ /tmp/s/ && cp -r /tmp/r /tmp/q",
                      [("Bash", {"command": "cat /tmp/s/pin.txt"}), ("Bash", {"command": "cat /tmp/q/r/pin.txt"})],
                      [])
             + _after(f"{SHOW} > pin.txt && git add -A",
                      [("Bash", {"command": "git diff --cached"}), ("Bash", {"command": "git show HEAD"}),
                       ("Bash", {"command": "git stash -u && git stash show -p --include-untracked"}),
                       ("Bash", {"command": "git log -p -1"})],
                      [("Bash", {"command": "git log --oneline -3"}), ("Bash", {"command": "git status"})])
             + [("Write", {"file_path": "/home/u/proj/pinshow.py",
                           "content": "import subprocess\nsubprocess.run(['mem', 'sealed', 'show', 'user/bank/pin'])\n"},
                 "ok"),
                ("Bash", {"command": "python -m pinshow"}, VALUE),
                ("Bash", {"command": "python -c 'import pinshow'"}, VALUE)])
    got = _import(tmp_path, calls)
    want = [SECRET_OUTPUT] * 11 + [KEPT] * 2 + [SECRET_OUTPUT] * 3
    assert got == want, list(zip(calls, got))


def test_git_elsewhere_is_kept():
    """The git rule at the function: a repository that cannot hold the file is read as usual."""
    trail: list = []
    assert withholds(json.dumps({"command": f"{SHOW} > /tmp/x/pin.txt"}), trail, "/home/u/proj")
    assert not withholds(json.dumps({"command": "git diff"}), trail, "/home/u/proj")
    assert withholds(json.dumps({"command": "cd /tmp/x && git diff"}), trail, "/home/u/proj")


def test_hook_withholds_a_continued_show(tmp_path):
    """A real Stop hook reads a session whose show is split over two lines."""
    store = tmp_path / "store"
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(line(r) for r in _session([
        ("Bash", {"command": "mem \\\n  sealed show user/bank/pin > '/tmp/h/pin.txt'"}, ""),
        ("Read", {"file_path": "/tmp/h/pin.txt"}, VALUE),
        ("Bash", {"command": "mem sealed \\\n show user/bank/pin"}, VALUE),
        ("Bash", {"command": "git status"}, KEPT)])) + line(asst("az", "msg_z", [text("Done.")], SID)))
    rc, _out, err, _dt = run_hook_done(store, payload("Stop", SID, t, stop_hook_active=False), env=hook_env(store))
    assert rc == 0, err
    wait_store_processes_gone(store)
    got = _texts(store)
    assert [x for r, x in got if r == "tool"] == [SECRET_OUTPUT] * 3 + [KEPT]
    _not_found(store)
