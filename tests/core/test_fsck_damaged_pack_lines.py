"""``mem fsck`` names each object of a damaged pack once (lane rob11):
before, the pack's own check listed every damaged entry and the object walk
listed each again (~165 lines for one pack of ~80 objects).  Now: the
pack's damage with a count of its damaged entries, then one line per
damaged object; ``--json`` holds the same lines."""

from __future__ import annotations

import json
import re
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"


def test_each_damaged_object_of_a_pack_is_named_once(mem, tmp_path):
    home = tmp_path / "s"
    mem("--home", str(home), "import", "claude-code", str(SAMPLE))
    mem("--home", str(home), "gc")
    packs = sorted((home / "objects" / "pack").glob("*.pack"), key=lambda p: p.stat().st_size)
    big = packs[-1]
    b = bytearray(big.read_bytes())
    for i in range(100, len(b) - 40, 7):      # garbage through the body: every block fails to inflate
        b[i] ^= 0x55
    big.write_bytes(bytes(b))
    r = mem("--home", str(home), "fsck", exit_code=13)
    errors = [ln for ln in r.stdout.splitlines() if ln.startswith("error: ")]
    named = [m for ln in errors for m in re.findall(r"object ([0-9a-f]{64})", ln)]
    assert len(named) >= 5
    assert len(named) == len(set(named)), "\n".join(errors)          # never twice
    assert all(ln.startswith("error: object ") for ln in errors if re.search(r"object [0-9a-f]{64}", ln))
    count = [ln for ln in errors if re.search(r": \d+ damaged entr(y|ies)$", ln)]
    assert len(count) == 1 and f"{len(named)} damaged entries" in count[0]
    doc = json.loads(mem("--home", str(home), "fsck", "--json", exit_code=13).stdout)
    assert [p for p in doc["problems"]] == [ln[len("error: "):] for ln in errors]
