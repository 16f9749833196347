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
