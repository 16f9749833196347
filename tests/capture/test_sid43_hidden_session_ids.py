"""sid43 (test42 T1): after ``mem forget --match "Zephyrine Quillborough"``, a
transcript whose session id, cwd and path hold that text (any spelling the
text rule covers: ``zephyrine-quillborough``, ``zephyrine_quillborough``)
was captured with the id, cwd and path in the clear: the session's ref and
reflog files, the audit log, projects.json, cache/import-roots,
cache/imported-files, the read ledger, the hooks' cursors and session
state, the lineage log and the search index held it, and ``mem sessions``
listed it.  The session is still captured, under a hidden id
(``memory.hiddenids``: ``hidden-`` + a keyed digest), the same one each
time it is captured again; its cwd is stored empty and not registered; the
caches name its path by hash; scan still finds the transcript."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

from tests.capture.test_txt42_text_rule_at_capture import _mem, _raw_hits
from tests.hooks._util import asst, hook_env, line, payload, run_hook_done, text, user, wait_store_processes_gone

NAME = "Zephyrine Quillborough"
FORMS = [b"zephyrine", b"Zephyrine", b"ZEPHYRINE"]


def _all_hits(root: Path) -> list[str]:
    """:func:`_raw_hits`, the zlib-compressed read ledgers inflated too."""
    hits = set(_raw_hits(root, FORMS))
    for p in (root / "cache").glob("read-ledger-*"):
        data = zlib.decompress(p.read_bytes())
        if any(n in data for n in FORMS):
            hits.add(str(p.relative_to(root)))
    return sorted(hits)


def _transcript(folder: Path, sid: str, cwd: str, n: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    t = folder / "zephyrine_quillborough.jsonl"
    with open(t, "ab") as f:
        f.write(line(user(f"u{n}", f"check the build {n}", sid, cwd=cwd))
                + line(asst(f"a{n}", f"msg_{n}", [text(f"build {n} is green")], sid, cwd=cwd)))
    return t


def _sessions(env) -> list[dict]:
    return json.loads(_mem(env, "sessions", "--json").stdout)


def test_import_stores_a_session_named_after_a_forgotten_text_under_a_hidden_id(tmp_path):
    store = tmp_path / "store"
    env = {k: v for k, v in hook_env(store).items() if k != "MEM_AGENT"}
    _mem(env, "init")
    _mem(env, "forget", "--match", NAME, "--yes")
    folder = tmp_path / "w" / "zephyrine-quillborough" / "app"
    cwd = str(folder)
    t = _transcript(folder, "zephyrine-quillborough-77", cwd)
    _mem(env, "import", "claude-code", str(t))
    _mem(env, "gc", "--prune=now")
    assert _all_hits(store) == []
    got = _sessions(env)
    assert len(got) == 1 and got[0]["id"].startswith("hidden-"), got
    assert got[0]["turns"] == 2
    first = got[0]["id"]
    # captured again (grown): the same hidden id, the new turns on its chain
    _transcript(folder, "zephyrine-quillborough-77", cwd, 1)
    _mem(env, "import", "claude-code", str(t))
    got = _sessions(env)
    assert [(s["id"], s["turns"]) for s in got] == [(first, 4)], got
    assert _all_hits(store) == []
    # the transcript is still found by scan (its path by hash, its folder's parent listed)
    r = _mem(env, "scan", NAME, ok=(1,))
    assert str(t) in r.stdout, r.stdout
    assert (store / "cache" / "import-roots").read_text() == str(tmp_path / "w") + "\n"


def test_hooks_store_a_session_named_after_a_forgotten_text_under_a_hidden_id(tmp_path):
    store = tmp_path / "store"
    env = {k: v for k, v in hook_env(store).items() if k != "MEM_AGENT"}
    _mem(env, "init")
    _mem(env, "forget", "--match", NAME, "--yes")
    folder = tmp_path / "w" / "zephyrine_quillborough"
    sid = "zephyrine-quillborough-9"
    cwd = str(folder)
    t = _transcript(folder, sid, cwd)
    for ev, kw in (("SessionStart", {"source": "startup"}), ("UserPromptSubmit", {"prompt": "check the build 0"}),
                   ("Stop", {})):
        rc, *_ = run_hook_done(store, payload(ev, sid, t, cwd=cwd, **kw), env=env)
        assert rc == 0
    wait_store_processes_gone(store)
    with open(t, "ab") as f:
        f.write(line(user("u9", "and the docs", sid, cwd=cwd)))
    rc, *_ = run_hook_done(store, payload("UserPromptSubmit", sid, t, cwd=cwd, prompt="and the docs"), env=env)
    assert rc == 0
    wait_store_processes_gone(store)
    _mem(env, "gc", "--prune=now")
    assert _all_hits(store) == []
    got = _sessions(env)
    assert len(got) == 1 and got[0]["id"].startswith("hidden-"), got   # (turns: a hook past its budget stores fewer)
    assert not os.path.exists(store / "projects.json") or b"zephyrine" not in (store / "projects.json").read_bytes()
    # an import of the same transcript maps it to the same hidden id: one session, every turn
    _mem(env, "import", "claude-code", str(t))
    assert [(x["id"], x["turns"]) for x in _sessions(env)] == [(got[0]["id"], 3)]
    assert _all_hits(store) == []


def test_a_forget_after_the_session_was_stored_says_its_id_holds_the_text(tmp_path):
    """The forget renames no session yet (docs/forget.md): it says so, not "nothing matches" alone."""
    store = tmp_path / "store"
    env = {k: v for k, v in hook_env(store).items() if k != "MEM_AGENT"}
    _mem(env, "init")
    folder = tmp_path / "w" / "zephyrine-quillborough"
    _transcript(folder, "zephyrine-quillborough-5", str(folder))
    _mem(env, "import", "claude-code", str(folder))
    out = _mem(env, "forget", "--match", NAME, "--yes").stdout
    assert "1 session id stored before holds it and is kept" in out, out
    assert "mem forget --session ID" in out
    _transcript(folder, "zephyrine-quillborough-5", str(folder), 1)
    _mem(env, "import", "claude-code", str(folder))
    ids = sorted(x["id"] for x in _sessions(env))
    assert ids[0].startswith("hidden-") and ids[1] == "zephyrine-quillborough-5", ids
