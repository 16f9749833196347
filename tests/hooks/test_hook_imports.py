"""A hook imports none of the optional extras (``memvcs[mcp]``, ``[proxy]``,
``[s3]``, ``[fast]``): servers, sync and accelerators stay off the agent's
path, so a hook works the same with or without them and never pays their
import.  Each hook runs as a real ``mem hook claude-code`` process under
``python -X importtime``, which names every module the process imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.hooks._util import (REPO, asst, hook_env, line, payload, text, tool_result, tool_use, until_within_budget,
                               user)

#: top-level modules of the optional extras and of what they pull in
EXTRAS = frozenset({
    "mcp", "aiohttp", "anthropic", "httpx", "obstore", "boto3", "botocore", "moto",
    "msgspec", "ahocorasick_rs", "openai", "brotli", "backports",
})
SID = "7a0c1f3e-0000-4000-8000-00000000a11c"


def imported(tmp_path, data: dict) -> set[str]:
    """Modules (dotted names) a ``mem hook claude-code`` process imported,
    on a new store under ``tmp_path``.  A run that took 80 % of the event's
    budget or more may have stopped before its sync (the hook fails open;
    a SessionEnd has 1.2 s, and on a loaded machine the reader was never
    imported, session 27): run again on another new store
    (``until_within_budget``)."""
    stores = iter(range(100))

    def run():
        env = hook_env(tmp_path / f"store{next(stores)}", MEM_NO_HELPER="1")
        return subprocess.run([sys.executable, "-X", "importtime", "-m", "cmds", "hook", "claude-code"],
                              input=json.dumps(data).encode(), capture_output=True, env=env, timeout=120, cwd=REPO)
    p, _within = until_within_budget(data["hook_event_name"], run)
    assert p.returncode == 0, p.stderr.decode("utf-8", "replace")[-2000:]
    mods = set()
    for ln in p.stderr.decode("utf-8", "replace").splitlines():
        if ln.startswith("import time:") and "|" in ln:
            name = ln.rsplit("|", 1)[1].strip()
            if name and name != "package":
                mods.add(name)
    assert "cmds" in mods, "importtime printed nothing: the check would pass vacuously"
    return mods


@pytest.fixture
def transcript(tmp_path):
    """A session of a few hundred records, big enough for a real sync."""
    t = tmp_path / f"{SID}.jsonl"
    recs = []
    for i in range(150):
        recs.append(line(user(f"u{i}", f"please fix flaky test number {i} in the parser", SID)))
        recs.append(line(asst(f"a{i}", f"msg_{i}", [text(f"running step {i}"),
                                                    tool_use(f"toolu_{i}", command=f"pytest -k t{i}")], SID)))
        recs.append(line(user(f"r{i}", [tool_result(f"toolu_{i}", f"{i} passed " * 40)], SID)))
    t.write_bytes(b"".join(recs))
    return t


@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"])
def test_a_hook_imports_no_optional_extra(tmp_path, transcript, event):
    extra = {"prompt": "how did we fix the flaky parser test?"} if event == "UserPromptSubmit" else {}
    if event == "SessionStart":
        extra["source"] = "startup"
    if event != "SessionStart":  # a store with the session in it: Stop/SessionEnd then sync more of it
        with transcript.open("ab") as f:
            f.write(line(asst("late", "msg_late", [text("all green now")], SID)))
    mods = imported(tmp_path, payload(event, SID, transcript, **extra))
    tops = {m.split(".")[0] for m in mods}
    assert not tops & EXTRAS, f"{event} imported {sorted(tops & EXTRAS)}"
    if event in ("Stop", "SessionEnd"):  # the sync really ran here: the reader and redaction were loaded
        assert {"objstore.capture.claude_code", "objstore.core.redact"} <= mods
