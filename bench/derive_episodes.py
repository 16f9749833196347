"""Precision of the episodes derive files, on a labelled set, two or more trees.

``eval/derive_episodes.json`` holds sessions (their turns' texts) with the
episode a model proposed for each (``situation``/``action``/``outcome``/
``lesson``), labelled right (a faithful summary; a lesson may generalise in
its own words) or wrong (a value no turn holds, a value the turns say was
dropped restated as current, two values swapped) by a person.  For each
tree (``PYTHONPATH``, a new process) every episode goes through the check
``mem derive --apply`` applies before filing one
(``objstore.derive.evidence.episode_unevidenced``, its body and claims
composed as ``objstore.derive.run`` composes them), no model and no store.

Reports per tree: episodes filed, right ones filed (of the right ones),
wrong ones filed, the precision of what is filed, and the ids whose
decision differs between the trees.

    python bench/derive_episodes.py TREE [TREE ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

LABELS = Path(__file__).resolve().parents[1] / "eval" / "derive_episodes.json"
_CHILD = r"""
import json, sys
from objstore.derive.evidence import episode_unevidenced
from objstore.derive.run import episode_body
out = {}
for it in json.load(open(sys.argv[1])):
    ep = it["episode"]
    claims = "\n".join(str(ep.get(k, "")).strip() for k in ("outcome", "lesson") if str(ep.get(k, "")).strip())
    out[it["id"]] = episode_unevidenced(episode_body(ep), it["turns"], claims)
print(json.dumps(out))
"""


def decide(tree: str) -> dict[str, str]:
    """``{id: reason}`` of each labelled episode in ``tree`` ("" = filed)."""
    env = {**os.environ, "PYTHONPATH": tree}
    r = subprocess.run([sys.executable, "-c", _CHILD, str(LABELS)], env=env, capture_output=True, text=True,
                       timeout=300, check=True, cwd=tree)
    return json.loads(r.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    items = json.loads(LABELS.read_text())
    right = {it["id"] for it in items if it["right"]}
    runs = {t: decide(t) for t in a.trees}
    rows = {}
    for t, d in runs.items():
        filed = {i for i, why in d.items() if not why}
        rows[t] = {"labelled": len(items), "right": len(right), "filed": len(filed),
                   "right_filed": len(filed & right), "wrong_filed": len(filed - right),
                   "precision": round(len(filed & right) / len(filed), 3) if filed else None,
                   "wrong_filed_ids": sorted(filed - right), "right_refused_ids": sorted(right - filed)}
    first = a.trees[0]
    differ = sorted(i for i in runs[first] if any(bool(runs[t][i]) != bool(runs[first][i]) for t in a.trees[1:]))
    if a.json:
        print(json.dumps({"trees": rows, "differ": differ, "reasons": runs}, indent=1))
        return
    for t, r in rows.items():
        print(f"{t}: {r['filed']} filed of {r['labelled']}; right filed {r['right_filed']}/{r['right']}, "
              f"wrong filed {r['wrong_filed']}/{r['labelled'] - r['right']}, precision {r['precision']}")
        print(f"   wrong filed: {', '.join(r['wrong_filed_ids']) or '-'}; right refused: {', '.join(r['right_refused_ids']) or '-'}")
    print("decisions differ:", ", ".join(differ) or "-")


if __name__ == "__main__":
    main()
