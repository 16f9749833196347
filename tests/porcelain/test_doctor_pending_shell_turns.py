"""``mem doctor`` after ordinary shell capture (test17 T12): ``mem hook
shell`` leaves its turns' indexing to the next writer by design, so the
journal holding only new turns is a warning that says so, not "an
interrupted write" error; the next search indexes them and the finding goes.
Real ``mem`` processes."""

from __future__ import annotations


def _index_findings(mem):
    out = mem("doctor", "--json", exit_code=None).json
    return [f for f in out["findings"] if f["check"] == "index"]


def test_doctor_tells_pending_shell_turns_from_an_interrupted_write(mem):
    mem("init")
    env = {"MEM_SHELL_CAPTURE": "1"}
    for i in range(3):
        mem("hook", "shell", "--session", "shell-x-1", "--cwd", "/tmp", "--status", "0",
            "--start", f"179632300000{i}", "--duration", "5", input=f"ls -la {i}", env=env)
    found = _index_findings(mem)
    assert [f["severity"] for f in found] == ["warning"], found
    assert "wait in the index journal" in found[0]["message"] and "interrupted" not in found[0]["message"]
    assert "ls -la 2" in mem("search", "--", "ls -la").stdout
    assert _index_findings(mem) == []
