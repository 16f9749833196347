"""trailb21 (tester W4): a sealed value read back another way was stored as a turn.
A script whose text runs ``mem sealed show`` (written by the ``Write`` / ``Edit`` /
``MultiEdit`` tools, Codex ``apply_patch``, a heredoc or ``echo … > f.sh``) and then
run (``sh f``, ``bash f``, ``./f``, ``source f``, ``. f``, ``python f``) printed the
value into a stored result; so did ``mem`` called through a variable (``m=mem; $m
sealed show …``, ``M=$(which mem); $M …``) and a command on a line after the
first (a JSON-escaped newline before ``mem``).  Real transcript files through
``mem import``."""

from __future__ import annotations

import json

from objstore.capture.withhold import SECRET_OUTPUT
from tests.capture.test_sealed_output_capture import VALUE, _mem, _not_found, _texts
from tests.hooks._util import CWD, asst, line, tool_result, tool_use, user

SID = "2b2b2b2b-2222-3333-4444-555555555555"
SHOW = "mem sealed show user/door --passphrase-file /p/pp"


def _import(tmp_path, calls: list) -> list[str]:
    """A Claude Code session of ``calls`` ((tool, input, result) each) imported; the tool turns."""
    recs = [user("u0", "open the door", SID)]
    for n, (name, inp, out) in enumerate(calls):
        recs.append(asst(f"a{n}", f"msg_{n}", [tool_use(f"toolu_{n}", name, **inp)], SID))
        recs.append(user(f"u{n}r", [tool_result(f"toolu_{n}", out)], SID))
    t = tmp_path / f"{SID}.jsonl"
    t.write_bytes(b"".join(line(r) for r in recs))
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "claude-code", str(t))
    _not_found(store)
    return [x for r, x in _texts(store) if r == "tool"]


def test_a_written_script_that_shows_a_sealed_value_is_withheld_when_run(tmp_path):
    """The tester's repro and its kin: the tool writes the script, a later call runs it."""
    calls = [
        ("Write", {"file_path": "/p/s.sh", "content": f"#!/bin/sh\n{SHOW}\n"}, "File created"),
        ("Bash", {"command": "sh /p/s.sh"}, VALUE),
        ("Bash", {"command": "bash /p/s.sh"}, VALUE),
        ("Bash", {"command": "cd /p && ./s.sh"}, VALUE),
        ("Bash", {"command": "source /p/s.sh && echo ok"}, VALUE),
        ("Bash", {"command": ". /p/s.sh"}, VALUE),
        ("Write", {"file_path": "/p/get.py",
                   "content": 'import subprocess\nsubprocess.run(["mem", "sealed", "show", "user/door"])\n'}, "ok"),
        ("Bash", {"command": "python3 /p/get.py"}, VALUE),
        ("Edit", {"file_path": "/p/run.sh", "old_string": "echo todo", "new_string": f"echo start\n{SHOW}"}, "ok"),
        ("Bash", {"command": "bash /p/run.sh"}, VALUE),
        ("MultiEdit", {"file_path": "/p/m.sh", "edits": [{"old_string": "x", "new_string": f"\n{SHOW}"}]}, "ok"),
        ("Bash", {"command": "/p/m.sh"}, VALUE),
        ("Bash", {"command": f"cat > /p/h.sh <<'EOF'\n{SHOW}\nEOF"}, ""),
        ("Bash", {"command": "sh /p/h.sh"}, VALUE),
        ("Bash", {"command": f"echo '{SHOW}' > /p/e.sh && chmod +x /p/e.sh"}, ""),
        ("Bash", {"command": "/p/e.sh"}, VALUE),
        ("Write", {"file_path": "/p/ok.sh", "content": "#!/bin/sh\necho hello\n"}, "File created"),
        ("Bash", {"command": "sh /p/ok.sh"}, "hello"),
    ]
    got = _import(tmp_path, calls)
    assert got == [SECRET_OUTPUT] * 16 + ["File created", "hello"], list(zip(calls, got))


def test_mem_through_a_variable_and_on_a_later_line_is_withheld(tmp_path):
    calls = [
        ("Bash", {"command": f"m=mem; $m {SHOW[4:]}"}, VALUE),
        ("Bash", {"command": f"M=$(which mem); $M {SHOW[4:]}"}, VALUE),
        ("Bash", {"command": f'M="$(command -v mem)"\n"$M" --home /p/store {SHOW[4:]}'}, VALUE),
        ("Bash", {"command": f"MEM=/opt/bin/mem; ${{MEM}} remote key export"}, VALUE),
        ("Bash", {"command": f"cd /p\n{SHOW}"}, VALUE),
        ("Bash", {"command": "$EDITOR notes.md; m=mem; $m log"}, "notes"),
    ]
    got = _import(tmp_path, calls)
    assert got == [SECRET_OUTPUT] * 5 + ["notes"], list(zip(calls, got))


def test_a_codex_apply_patch_script_is_withheld_when_run(tmp_path):
    def env(kind, p):
        return {"timestamp": "2026-03-02T10:00:00Z", "type": kind, "payload": p}
    patch = f"*** Begin Patch\n*** Add File: bin/s.sh\n+#!/bin/sh\n+{SHOW}\n*** End Patch\n"
    items = [("function_call", "apply_patch", json.dumps({"input": patch}), "Success."),
             ("function_call", "exec_command", json.dumps({"cmd": "sh bin/s.sh", "workdir": CWD}), VALUE),
             ("custom_tool_call", "apply_patch", patch.replace("bin/s.sh", f"{CWD}/t.sh"), "Success."),
             ("function_call", "shell", json.dumps({"command": ["bash", "-lc", "./t.sh"], "workdir": CWD}), VALUE),
             ("function_call", "exec_command", json.dumps({"cmd": "sh bin/other.sh", "workdir": CWD}), "kept")]
    recs = [env("session_meta", {"id": "T-trailb21", "cwd": CWD, "source": "cli"})]
    for i, (kind, name, args, output) in enumerate(items):
        key = "input" if kind == "custom_tool_call" else "arguments"
        recs.append(env("response_item", {"type": kind, "name": name, "call_id": f"c{i}", key: args}))
        out_kind = "custom_tool_call_output" if kind == "custom_tool_call" else "function_call_output"
        recs.append(env("response_item", {"type": out_kind, "call_id": f"c{i}", "output": output}))
    t = tmp_path / "rollout-2026-03-02T10-00-00-T-trailb21.jsonl"
    t.write_text("".join(json.dumps(r) + "\n" for r in recs))
    store = tmp_path / "store"
    _mem("--home", str(store), "import", "codex", str(t))
    _not_found(store)
    got = [x for r, x in _texts(store) if r == "tool"]
    assert got == [SECRET_OUTPUT] * 4 + ["kept"], got
