"""``mem fsck --repair`` of a ref whose id has one hex digit changed (lane
rob11): the ref is set to the head its reflog names and the report says so
("no object was lost"); before, it said "mended … lost turns are kept as
placeholders" and "1 object lost" though every turn was there.  A head
object really lost is still reported lost."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"


def _flip(hexid: str) -> str:
    return hexid[:10] + ("0" if hexid[10] != "0" else "1") + hexid[11:]


def test_a_changed_digit_in_a_session_ref_is_reported_as_a_reset_not_a_loss(mem, tmp_path):
    home = str(tmp_path / "s")
    mem("--home", home, "import", "claude-code", str(SAMPLE))
    before = {s["id"]: (s["turns"], s["head"]) for s in json.loads(mem("--home", home, "sessions", "--json").stdout)}
    packed = Path(home) / "refs" / "packed-sessions"
    lines = packed.read_text().splitlines(keepends=True)
    i = next(n for n, ln in enumerate(lines) if ln[:1] not in "#^" and ".agent-" not in ln)
    head, sid = lines[i].split()
    lines[i] = f"{_flip(head)} {sid}\n"
    packed.write_text("".join(lines))
    r = mem("--home", home, "fsck", "--repair")
    assert (f"repair: set sessions/{sid} to {head[:12]}, the head its reflog names: it held {_flip(head)[:12]}"
            in r.stdout), r.stdout
    assert "no object was lost" in r.stdout
    assert "lost" not in r.stdout.replace("no object was lost", ""), r.stdout
    after = {s["id"]: (s["turns"], s["head"]) for s in json.loads(mem("--home", home, "sessions", "--json").stdout)}
    assert after == before


def test_a_lost_head_object_is_still_reported_lost(mem, tmp_path):
    home = Path(tmp_path / "s")
    mem("--home", str(home), "remember", "user/editor", "vim", env={"MEM_AGENT": "0"})
    mem("--home", str(home), "remember", "user/editor", "emacs", env={"MEM_AGENT": "0"})
    head = (home / "refs" / "facts" / "user" / "editor").read_text().strip()
    (home / "objects" / head[:2] / head[2:]).unlink()
    # the current value is lost: the older one is not made current (the person's call, exit 13)
    doc = json.loads(mem("--home", str(home), "fsck", "--repair", "--json", exit_code=13).stdout)
    assert doc["repair"]["lost"] == [head] and doc["repair"]["reset_refs"] == []
    assert doc["repair"]["lost_heads"] == {"facts/user/editor": 1}
