"""How many facts a later turn of the person marks out of date on a real
store (``objstore.retrieval.laterturns.later_turns``, timeline rule 8): the
false-alarm count of the check the session block and the prompt hook make.

Two sets of facts are checked against the store's turns, as the session
block checks them (no prompt):

* the store's own current facts, with their own times;
* with ``--as-facts N``: the first N user turns of each project that state
  a value (``timeline.values_of``), each read as if the person had recorded
  it as a fact at the turn's time (key ``project/<p>/t<i>``, its text the
  body): the commonest fact is a person's statement, and whether a later
  turn of the person changes its value is what rule 8 decides;
* with ``--as-user-facts N``: the first N user turns of each project, each
  stated as a ``user/`` fact at the turn's time, checked against the
  person's later turns of that project (``later_turns(..., project=p)``,
  session 30): a ``user/`` fact marked by their own word that one of its
  words was replaced;
* with ``--as-passages N``: the first N turns of each project, of any
  role, that state a value, checked as the prompt hook checks the
  passages it injects (``later_turns(..., turns=…)``: rule 8, and rule 10,
  the same quantity restated, session 27).

With ``--ku FILE`` (``eval/knowledge_update.json``) the store is built
from that scenario in a temporary folder (as ``mem eval knowledge-update``
builds it), and each question's first statement (the turn of its first
evidence session holding an old value) is checked as a fact too: the
later sessions change that value, so a mark there is the rule working.

Prints the counts, each marked pair (the fact, the turn) for a person to
judge, and the CPU of the checks (``--json FILE``: the numbers).  Run it on
a copy of a store: opening a store may finish its recovery.

    python bench/later_turn_marks.py --store /tmp/tl26/bstore --as-facts 40
    python bench/later_turn_marks.py --ku eval/knowledge_update.json --as-facts 40
    python bench/later_turn_marks.py --store /tmp/tl27/bstore --as-passages 40
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, help="a store (a copy: opening may recover it)")
    ap.add_argument("--ku", type=Path, help="build the store from this knowledge-update scenario instead")
    ap.add_argument("--as-facts", type=int, default=0, metavar="N",
                    help="also check the first N value-stating user turns of each project as facts")
    ap.add_argument("--as-passages", type=int, default=0, metavar="N",
                    help="also check the first N value-stating turns of each project as the prompt hook's passages")
    ap.add_argument("--as-user-facts", type=int, default=0, metavar="N",
                    help="also check the first N user turns of each project as user/ facts, against the person's "
                         "later turns of that project (session 30, test29 P13)")
    ap.add_argument("--json", type=Path, help="write the counts here")
    args = ap.parse_args(argv)
    from objstore import open_store
    from objstore.core.objects import Fact
    from objstore.memory.facts import current_version, list_keys
    from objstore.retrieval import laterturns
    from objstore.retrieval.timeline import values_of
    laterturns.FACTS_CHECKED = laterturns.FACTS_SEARCHED = 10 ** 9   # every fact given, not a block's first few
    out: dict = {}
    firsts: list = []
    if args.ku:
        import tempfile
        args.store = Path(tempfile.mkdtemp(prefix="later-marks-")) / "store"
        firsts = _ku_store(args.ku, args.store)
    elif args.store is None:
        ap.error("--store or --ku is required")
    with open_store(args.store) as store:
        facts = []
        for key, _head in list_keys(store):
            cur = current_version(store, key)
            if cur is not None and cur[1].body:
                facts.append(cur[1])
        t0 = time.process_time()
        marked = laterturns.later_turns(store, facts)
        cpu = time.process_time() - t0
        checked = sum(1 for f in facts if f.key.startswith("project/") and values_of(f.body))
        out["store_facts"] = {"facts": len(facts), "checked": checked, "marked": len(marked),
                              "cpu_ms_per_checked": round(1000 * cpu / max(1, checked), 2)}
        _show("store facts", facts, marked)
        if args.as_facts:
            per = _first_turns(store, args.as_facts, lambda t: t.role == "user" and len(t.text) <= 600
                               and bool(values_of(t.text[:600])))
            turns = [Fact(f"project/{p}/t{i}", "project", tv.turn.text, 1, None, tv.turn.timestamp, tv.turn.timestamp)
                     for p, tvs in per.items() for i, tv in enumerate(tvs)]
            t0 = time.process_time()
            marked = laterturns.later_turns(store, turns)
            cpu = time.process_time() - t0
            out["turns_as_facts"] = {"projects": len(per), "facts": len(turns), "marked": len(marked),
                                     "cpu_ms_per_checked": round(1000 * cpu / max(1, len(turns)), 2)}
            _show("user turns as facts", turns, marked)
        if args.as_passages:
            per = _first_turns(store, args.as_passages, lambda t: t.role in ("user", "assistant") and t.text.strip()
                               and not getattr(t, "forgotten", 0) and bool(values_of(t.text)))
            passages = [(tv.id, tv.turn) for tvs in per.values() for tv in tvs]
            t0 = time.process_time()
            marked = laterturns.later_turns(store, [], turns=passages)
            cpu = time.process_time() - t0
            out["passages"] = {"projects": len(per), "passages": len(passages), "marked": len(marked),
                               "cpu_ms_per_checked": round(1000 * cpu / max(1, len(passages)), 2)}
            _show("turns as the prompt hook's passages", [_as_fact(oid, t) for oid, t in passages], marked)
        if args.as_user_facts:
            per = _first_turns(store, args.as_user_facts, lambda t: t.role == "user" and 0 < len(t.text.strip()) <= 600
                               and not getattr(t, "forgotten", 0))
            t0 = time.process_time()
            marked, users = {}, []
            for p, tvs in per.items():   # (a user/ fact is checked against the turns of the project served)
                mine = [Fact(f"user/{p}-t{i}", "user", tv.turn.text, 1, None, tv.turn.timestamp, tv.turn.timestamp)
                        for i, tv in enumerate(tvs)]
                users += mine
                marked.update(laterturns.later_turns(store, mine, project=p))
            cpu = time.process_time() - t0
            out["turns_as_user_facts"] = {"projects": len(per), "facts": len(users), "marked": len(marked),
                                          "cpu_ms_per_checked": round(1000 * cpu / max(1, len(users)), 2)}
            _show("user turns as user/ facts", users, marked)
        if firsts:
            t0 = time.process_time()
            marked = laterturns.later_turns(store, firsts)
            cpu = time.process_time() - t0
            out["ku_first_statements"] = {"facts": len(firsts), "marked": len(marked),
                                          "cpu_ms_per_checked": round(1000 * cpu / max(1, len(firsts)), 2)}
            _show("knowledge-update first statements as facts", firsts, marked)
    print(json.dumps(out, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


def _ku_store(path: Path, root: Path) -> list:
    """Build the store of a knowledge-update scenario at ``root`` (as
    ``evaluate.eval_knowledge_update`` does); return each question's first
    statement as a fact: the first turn of its first evidence session that
    holds one of its old values, at that turn's time."""
    from objstore import open_store
    from objstore.core.objects import Fact, Turn
    from objstore.retrieval.evaluate import _ku_scenario, load_json, parse_when, value_pattern, write_sessions
    sessions, questions = _ku_scenario(load_json(path))
    by_id = {s["id"]: s for s in sessions}
    built = []
    for s in sessions:
        t0 = parse_when(s.get("time", 0), s["id"])
        built.append((s["id"], [Turn(session="x", seq=0, role=str(t.get("role") or "user"), text=t["text"],
                                     timestamp=t0 + i * 60_000, harness="eval", cwd="",
                                     project=str(s.get("project") or ""), source=f"{s['id']}:{i}", parent=None)
                                for i, t in enumerate(s["turns"])]))
    with open_store(root, create=True) as store:
        write_sessions(store, built)
    out = []
    for qi, q in enumerate(questions):
        s = by_id[q["evidence"][0]]
        t0 = parse_when(s.get("time", 0), s["id"])
        for i, t in enumerate(s["turns"]):
            if any(value_pattern(o).search(t["text"]) for o in q["old"]):
                when = t0 + i * 60_000
                out.append(Fact(f"project/{q.get('project') or 'none'}/q{qi}", "project", t["text"], 1, None,
                                when, when))
                break
    return out


def _first_turns(store, n: int, keep) -> dict[str, list]:
    """The first ``n`` turns of each project (sessions in start order)
    for which ``keep(turn)`` is true: ``{project: [TurnVersion]}``."""
    from objstore.memory.sessions import list_sessions, session_turns
    per: dict[str, list] = {}
    for s in list_sessions(store):
        if not s.project or len(per.get(s.project, ())) >= n:
            continue
        got = per.setdefault(s.project, [])
        for tv in session_turns(store, s.id):
            if len(got) < n and keep(tv.turn):
                got.append(tv)
    return per


def _as_fact(oid: str, t):
    """A passage ``(id, Turn)`` shown as ``_show`` shows a fact (key: its id)."""
    from objstore.core.objects import Fact
    return Fact(oid, "project", t.text, 1, None, t.timestamp, t.timestamp)


def _show(title: str, facts, marked) -> None:
    print(f"## {title}: {len(marked)} of {len(facts)} marked")
    by_key = {f.key: f for f in facts}
    for key, lt in marked.items():
        print(f"- {key}: {' '.join(by_key[key].body.split())[:200]}")
        print(f"  later turn {lt.session}#{lt.seq}: {' '.join(lt.text.split())[:200]}")


if __name__ == "__main__":
    raise SystemExit(main())
