"""A captured turn keeps at most MAX_TURN_CHARS characters (head and tail
around a "[… N characters cut …]" line), whichever path writes it: ``mem
import`` (its parse worker) and the hooks' sync agree, so the same turn is
stored once.  Before, a 20 MB paste was stored whole (remember caps a value
at 100,000)."""

from __future__ import annotations

import re

from objstore.memory.sessions import MAX_TURN_CHARS, cap_turn_text
from tests.hooks._util import asst, line, payload, run_hook, text, turns, user

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
_MARK = re.compile(r"\n\[… (\d+) characters cut …\]\n")


def test_cap_keeps_head_and_tail_and_is_stable():
    assert cap_turn_text("short") == "short"
    exact = "x" * MAX_TURN_CHARS
    assert cap_turn_text(exact) is exact
    words = " ".join(f"w{i}" for i in range(200_000))
    out = cap_turn_text(words)
    assert len(out) <= MAX_TURN_CHARS and cap_turn_text(out) == out
    m = _MARK.search(out)
    head, tail = out[:m.start()], out[m.end():]
    assert words.startswith(head) and words.endswith(tail)
    assert len(head) + int(m.group(1)) + len(tail) == len(words)         # N: exactly what is left out
    assert not head.endswith(" ") and " " not in tail[:1]                # cut on white space: no split word
    assert head.split()[-1] in words.split() and tail.split()[0] in words.split()
    blob = "z" * (3 * MAX_TURN_CHARS)                                    # no white space: cut where it falls
    assert len(cap_turn_text(blob)) <= MAX_TURN_CHARS


def test_import_and_hook_store_the_same_capped_turn_once(tmp_path, invoke, store_path):
    big = "start of the paste " + " ".join(["filler"] * 30_000) + " MIDDLEWORD " + \
          " ".join(["filler"] * 30_000) + f" deploy token {TOKEN} end of the paste"
    t = tmp_path / "S1.jsonl"
    t.write_bytes(line(user("u1", big)) + line(asst("a1", "m1", [text("noted")])))
    invoke("import", "claude-code", str(t))
    got = [x for x in turns(store_path) if x[2] == "user"]
    assert len(got) == 1
    stored = got[0][3]
    assert len(stored) <= MAX_TURN_CHARS and _MARK.search(stored)
    assert stored.startswith("start of the paste") and stored.endswith("end of the paste")
    assert "MIDDLEWORD" not in stored and TOKEN not in stored and "[REDACTED" in stored
    rc, _out, _err, _s = run_hook(store_path, payload("Stop", "S1", t))
    assert rc == 0
    assert [x[3] for x in turns(store_path) if x[2] == "user"] == [stored]    # the hook's sync adds nothing
    r = invoke("import", "claude-code", str(t))
    assert "0 new turns" in r.stdout or "no new" in r.stdout, r.stdout
