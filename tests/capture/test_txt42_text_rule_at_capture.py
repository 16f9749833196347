"""txt42: ``mem forget --match TEXT`` when nothing stored holds TEXT writes
only its text rule (``forget.text_rule_ahead``: ``text:<n>``, a hash).
A turn captured later holding TEXT (the prompt hook, ``mem import`` of a
transcript) was stored in the clear, in its object and in the search
index, and withheld only when served.  The one turn writer now withholds
a text rule's matches at capture, in every session, as serving does
(``served_rules``): as written, separator-folded ("marco.rossi@…",
"MarcoRossi": test41 T35), and the cwd/project holding it stored empty."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from objstore import scan_store
from tests.hooks._util import asst, hook_env, line, text, user, wait_store_processes_gone
from tests.hooks.test_remember_asked import _Session

REPO = Path(__file__).resolve().parents[2]
NAME = "Zephyrine Quillborough"
FORMS = [b"Quillborough", b"quillborough", b"QUILLBOROUGH"]


def _mem(env, *args, ok=(0,)):
    r = subprocess.run([sys.executable, "-m", "cmds", *args], env=env, cwd=REPO, capture_output=True, text=True,
                       timeout=180)
    assert r.returncode in ok, (args, r.stdout + r.stderr)
    return r


def _raw_hits(root: Path, needles: list[bytes]) -> list[str]:
    """Every file under ``root`` whose raw bytes hold a needle (``grep -a``), plus scan_store's
    decompressed objects and packs."""
    hits = []
    for d, _dirs, files in os.walk(root):
        for f in files:
            p = Path(d) / f
            try:
                data = p.read_bytes()
            except OSError:
                continue
            if any(n in data for n in needles):
                hits.append(str(p.relative_to(root)))
    return sorted(set(hits) | set(scan_store(root, needles)))


def test_a_text_forgotten_ahead_is_withheld_at_capture_hook_and_import(tmp_path):
    s = _Session(tmp_path)
    env = {k: v for k, v in hook_env(s.store).items() if k != "MEM_AGENT"}
    wait_store_processes_gone(s.store)
    out = json.loads(_mem(env, "forget", "--match", NAME, "--yes", "--json").stdout)
    assert out["text_rule_written"] is True, out
    # the prompt hook (and its Stop): as written, joined by a dot, run together
    s.prompt(f"please write to {NAME} today, or to zephyrine.quillborough@example.com")
    s.stop("Sent it to ZephyrineQuillborough and zephyrine_quillborough.")
    wait_store_processes_gone(s.store)
    # mem import of a transcript holding it (a cwd naming it too)
    sid = "eeeeeeee-0000-4000-8000-000000000042"
    tr = tmp_path / "imp" / f"{sid}.jsonl"
    tr.parent.mkdir()
    cwd = "/home/zephyrine-quillborough/proj"
    tr.write_bytes(line(user("i1", f"call {NAME.upper()} back", sid, cwd=cwd))
                   + line(asst("i2", "msg_i2", [text(f"{NAME} was called.")], sid, cwd=cwd)))
    _mem(env, "import", "claude-code", str(tr))
    _mem(env, "gc", "--prune=now")
    assert _raw_hits(s.store, FORMS) == []
    shown = _mem(env, "show", s.sid[:8]).stdout
    assert "please write to [forgotten] today, or to [forgotten]@example.com" in shown, shown
    shown = _mem(env, "show", sid[:8]).stdout
    assert "call [forgotten] back" in shown and "[forgotten] was called." in shown, shown
    assert _mem(env, "fsck").returncode == 0


def test_an_agent_cannot_put_a_text_forgotten_ahead_in_a_name(tmp_path):
    """T26 for a ``forget --match`` text: a key, session or agent name an agent writes holding it (as typed or
    folded) is refused, nothing stored; the person's own write is kept, as for a value."""
    store = tmp_path / "store"
    env = {k: v for k, v in hook_env(store).items() if k != "MEM_AGENT"}
    _mem(env, "init")
    _mem(env, "forget", "--match", "quetzal-okapi-88", "--yes")
    agent = {**env, "MEM_AGENT": "claude"}
    for args in (("user/quetzal-okapi-88", "v"), ("project/acme/quetzal_okapi_88", "v"),
                 ("project/quetzalokapi88/k", "v"), ("user/x", "v", "--session", "Quetzal-Okapi-88")):
        r = _mem(agent, "remember", *args, ok=(6,))
        assert "holds a forgotten value" in r.stderr and "quetzal" not in r.stderr.lower(), r.stderr
    _mem({**env, "MEM_AGENT": "quetzal-okapi-88"}, "remember", "user/y", "v", ok=(6,))
    assert _raw_hits(store, [b"quetzal", b"okapi"]) == []
    _mem(agent, "remember", "user/quetzal-okapi", "v")     # not the forgotten text
    _mem(env, "remember", "user/quetzal-okapi-88", "v")    # the person's own
    assert "v" in _mem(env, "get", "user/quetzal-okapi-88").stdout


def test_import_jsonl_brings_no_turn_holding_a_text_forgotten_ahead(tmp_path):
    """An export made elsewhere holds a session saying the text: ``mem import jsonl`` into a store that forgot it
    ahead skips that session's ref (a turn keeps its id, so it cannot be rewritten), as for a forgotten turn."""
    src, dst = tmp_path / "src", tmp_path / "dst"
    env_src = {k: v for k, v in hook_env(src).items() if k != "MEM_AGENT"}
    env_dst = {**env_src, "MEM_HOME": str(dst)}
    _mem(env_src, "init")
    sids = ["eeeeeeee-0000-4000-8000-000000000043", "eeeeeeee-0000-4000-8000-000000000044"]
    for sid, said in zip(sids, ("ask zephyrine.quillborough@example.com", "nothing to hide here")):
        tr = tmp_path / f"{sid}.jsonl"
        tr.write_bytes(line(user("i1", said, sid)))
        _mem(env_src, "import", "claude-code", str(tr))
    exported = tmp_path / "exp.jsonl"
    exported.write_text(_mem(env_src, "export").stdout)
    _mem(env_dst, "init")
    _mem(env_dst, "forget", "--match", NAME, "--yes")
    r = _mem(env_dst, "import", "jsonl", str(exported))
    assert sids[0] in r.stderr + r.stdout, r.stderr + r.stdout
    _mem(env_dst, "gc", "--prune=now")
    assert _raw_hits(dst, FORMS) == []
    assert "nothing to hide here" in _mem(env_dst, "show", sids[1][:8]).stdout
