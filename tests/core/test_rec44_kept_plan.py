"""The redaction prefilter's plan kept across processes (objstore.core.rxcache's kept
values): a new process that redacts loads the plan an earlier one worked out, the same
plan, and works it out again when the rules' anchors, the deriving code or the kept
bytes differ; ``names._glued_hits`` skips a run of anchors whose start is absent and
finds what the walk over every anchor found (real processes, a real cache file)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from objstore.core import rxcache
from objstore.core.redact import RULES, prefilter
from objstore.core.redact.names import _glued_hits
from objstore.core.redact.engine import redact
from objstore.core.redact.engine import Hit

REPO = Path(__file__).resolve().parents[2]

# a process that redacts a name (names.name_hits, the hook's and remember's check): whether its
# plan was worked out (prefilter._gates ran) and whether it is the one worked out from scratch
CHILD = r"""
import json, sys
from objstore.core.redact import prefilter, RULES
ran = []
watched = prefilter._gates.__code__
def watch(frame, event, arg):   # (a profile hook: the functions themselves stay as they are)
    if event == "call" and frame.f_code is watched:
        ran.append(1)
{setup}
from objstore.core.redact import name_hits
sys.setprofile(watch)
hits = [h.rule for h in name_hits("project/x/xghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8")]
pl = prefilter.plan(RULES)
sys.setprofile(None)
from objstore.core import rxcache
rxcache.kept_value = lambda *a: None   # a plan worked out from scratch
fresh = prefilter.Plan(RULES)
print(json.dumps({"derived": bool(ran), "hits": hits,
                  "same": all(getattr(pl, f, 0) == getattr(fresh, f, 1)
                              for f in ("slow_sets", "tests", "ascii_tests", "fast_gates", "gate_runs"))
                          if hasattr(fresh, "gate_runs") else
                          all(getattr(pl, f) == getattr(fresh, f)
                              for f in ("slow_sets", "tests", "ascii_tests", "fast_gates"))}))
"""


def _run(prefix: Path, setup: str = "") -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(REPO), PYTHONPYCACHEPREFIX=str(prefix))
    p = subprocess.run([sys.executable, "-c", CHILD.replace("{setup}", setup)], env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def _cache_file(prefix: Path) -> Path:
    here = Path(rxcache.__file__).resolve().parent
    return prefix / str(here).lstrip(os.sep) / Path(rxcache.cache_path()).name


def test_a_new_process_loads_the_plan_an_earlier_one_worked_out(tmp_path):
    first = _run(tmp_path)
    assert first["derived"] and first["same"] and first["hits"], first
    assert _cache_file(tmp_path).is_file()
    second = _run(tmp_path)
    assert not second["derived"], second          # batch: every process works the plan out again
    assert second["same"] and second["hits"] == first["hits"], second


def test_other_anchors_or_damaged_bytes_work_the_plan_out_again(tmp_path):
    _run(tmp_path)
    # a rule's anchors changed (an edited rule table): not the kept plan
    edited = _run(tmp_path, "object.__setattr__(RULES[0], 'anchors', (*(RULES[0].anchors or ()), 'zq-new-anchor'))")
    assert edited["derived"] and edited["same"], edited
    # its plan is the one kept now; the stock table's is worked out again, then kept again
    assert _run(tmp_path)["derived"]
    assert not _run(tmp_path)["derived"]
    # every byte of the kept values flipped: a CRC or the load fails, the plan is worked out again
    f = _cache_file(tmp_path)
    raw = bytearray(f.read_bytes())
    index_len = int.from_bytes(raw[6:10], "big")
    for i in range(14 + index_len, len(raw)):
        raw[i] ^= 0xFF
    f.write_bytes(bytes(raw))
    again = _run(tmp_path)
    assert again["derived"] and again["same"], again


def test_a_kept_value_comes_back_only_for_an_equal_key(tmp_path):
    code = ("import json; from objstore.core import rxcache as rx\n"
            "got = rx.kept_value('t', ('k', 1)); rx.keep_value('t', ('k', 1), [frozenset({1, 2}), None, 'v'])\n"
            "rx.keep_value('odd', 1, object())\n"
            "print(json.dumps([repr(got), repr(rx.kept_value('t', ('k', 2))), repr(rx.kept_value('odd', 1))]))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(REPO), PYTHONPYCACHEPREFIX=str(tmp_path))
    runs = [json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                      timeout=60, check=True).stdout) for _ in range(2)]
    assert runs[0] == ["None", "None", "None"]
    assert runs[1] == ["[frozenset({1, 2}), None, 'v']", "None", "None"]


def _glued_walk(plain: str) -> tuple[Hit, ...]:
    """``_glued_hits`` as batch wrote it: every anchor in order, each found from index 1."""
    low = prefilter.lower(plain)
    for a in prefilter.plan(RULES).fast_gates:
        at = low.find(a, 1)
        while at > 0:
            if plain[at - 1].isalnum() or plain[at - 1] == "_":
                hits = redact(plain[at:]).hits
                if hits:
                    return tuple(Hit(h.rule, h.start + at, h.end + at) for h in hits)
            at = low.find(a, at + 1)
    return ()


def test_glued_hits_find_what_the_walk_over_every_anchor_found():
    anchors = prefilter.plan(RULES).fast_gates
    rnd = random.Random(44)
    tails = ["A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", "api03-" + "Zx9" * 30, "1234567890abcdef" * 3, "x", ""]
    names = ["xghp_" + tails[0], "asdsk-ant-" + tails[1], "user/x/vAKIA" + "IOSFODNN7EXAMPLE",
             "/home/dev/project-1/3f2a1b7c-aaaa-bbbb-cccc-1234567890ab"]
    for _ in range(3000):
        parts = [rnd.choice(["a", "Q", "_", "-", " ", "9", "home dev", "/x."]) for _ in range(rnd.randrange(0, 4))]
        parts.append(rnd.choice(anchors).upper() if rnd.random() < 0.3 else rnd.choice(anchors))
        parts.append(rnd.choice(tails))
        names.append("".join(parts))
    hit = 0
    for n in names:
        got = _glued_hits(n)
        assert got == _glued_walk(n), n
        hit += bool(got)
    assert hit > 30   # the fuzz reaches the rules, not only their absence
