"""Precision of the facts derive admits, on a labelled set.

``eval/derive_precision.json`` holds proposals as a model would make them
from the shared Claude Code transcripts (session ids, keys, values, cited
turns by their capture source ids; no transcript text), each labelled right
or wrong by a person.  This script imports the transcripts into a fresh
store, plans a derive run over the labelled sessions, serves each excerpt's
proposals from a loopback OpenAI-compatible server (the scripted provider:
derive's real HTTP path), runs derive without ``--apply`` and counts, per
rule, the right and wrong proposals it decided.

Reports: the precision of the proposals themselves (what a store that
wrote every valid proposal would hold), the precision of the admitted
facts (rule ``write``), and what each rule, above all the evidence check
(``no-evidence``), turned away.

    python bench/derive_precision.py [--transcripts ../shared/data/transcripts] [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LABELS = REPO / "eval" / "derive_precision.json"
TRANSCRIPTS = REPO.parent / "shared" / "data" / "transcripts"


def _block(prompt: str) -> str:
    a, b = prompt.find("<transcript>"), prompt.rfind("</transcript>")
    return hashlib.sha256(prompt[a:b].encode("utf-8", "surrogatepass")).hexdigest()


def _serve(answers: dict[str, dict]) -> tuple[ThreadingHTTPServer, str, list]:
    seen: list[str] = []

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            h = _block(body["messages"][0]["content"])
            seen.append(h)
            out = json.dumps({"choices": [{"message": {"role": "assistant",
                                                       "content": json.dumps(answers.get(h, {"facts": []}))}}]})
            raw = out.encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}/v1", seen


def measure(transcripts: Path = TRANSCRIPTS, labels: Path = LABELS, work: Path | None = None) -> dict:
    """Run the labelled set through derive's rules; returns the counts
    (module doc).  Raises FileNotFoundError when ``transcripts`` is absent."""
    import objstore
    from objstore.derive.providers import Provider
    from objstore.derive.run import build_prompt, plan, run
    from objstore.memory.sessions import walk_turns
    from objstore.capture.promptscan import keyed_alias
    from objstore.core.hashkey import store_key

    spec = json.loads(Path(labels).read_text("utf-8"))
    if not Path(transcripts).is_dir():
        raise FileNotFoundError(transcripts)
    tmp = tempfile.TemporaryDirectory() if work is None else None
    root = Path(tmp.name if tmp else work) / "store"
    try:
        store = objstore.open_store(root, create=True)
        try:
            objstore.import_transcripts(store, "claude-code", [Path(transcripts) / d for d in spec["import"]])
            props = spec["proposals"]
            sessions = sorted({p["session"] for p in props})
            p = plan(store, Provider("openai", "scripted", "http://127.0.0.1:9/v1"), sessions=sessions)
            # the labels cite a prompt by its plain alias; the store holds it keyed with its hash key (pid38)
            key = store_key(store.root)
            props = [{**x, "turns": [keyed_alias(t, key) for t in x["turns"]]} for x in props]
            source_of: dict[str, str] = {}
            for name, head in store.refs.iter("sessions"):
                if name[len("sessions/"):] in sessions:
                    source_of.update((tv.id, tv.turn.source) for tv in walk_turns(store, head))
            # each proposal goes to the excerpt that holds its first cited turn, citing
            # the numbers that excerpt gives its turns (a model sees only its excerpt)
            answers: dict[str, dict] = {}
            placed = 0
            for ex in p.excerpts:
                numbers = {source_of[oid]: n for n, oid, _r, _t in ex.turns}
                facts = []
                for prop in props:
                    if prop["session"] == ex.session and prop["turns"] and prop["turns"][0] in numbers:
                        facts.append({"key": prop["key"], "kind": prop["kind"], "value": prop["value"],
                                      "turns": [numbers[s] for s in prop["turns"] if s in numbers],
                                      "replaces": prop.get("replaces")})
                if facts:
                    answers[_block(build_prompt(ex, []))] = {"facts": facts}
                    placed += len(facts)
            srv, url, seen = _serve(answers)
            try:
                p.provider = Provider("openai", "scripted", url, "", 30.0)
                res = run(store, p, {})
            finally:
                srv.shutdown()
        finally:
            store.close()
    finally:
        if tmp:
            tmp.cleanup()
    label = {(x["key"], x["value"]): x["label"] for x in props}
    by_rule: dict[str, dict[str, int]] = {}
    decided = []
    for d in res.decisions:
        lab = label.get((d.key, d.value), "unlabelled")
        by_rule.setdefault(d.rule, {"right": 0, "wrong": 0})
        by_rule[d.rule][lab] = by_rule[d.rule].get(lab, 0) + 1
        decided.append({"key": d.key, "rule": d.rule, "label": lab, "detail": d.detail})
    right = sum(1 for x in props if x["label"] == "right")
    adm = by_rule.get("write", {"right": 0, "wrong": 0})
    ev = by_rule.get("no-evidence", {"right": 0, "wrong": 0})
    n_adm = adm["right"] + adm["wrong"]
    return {
        "proposals": len(props), "right": right, "wrong": len(props) - right, "placed": placed,
        "decided": len(res.decisions), "calls": res.calls, "failed": res.failed,
        "sessions": len(sessions), "excerpts": len(p.excerpts),
        "proposal_precision": round(right / len(props), 3),
        "admitted": n_adm, "admitted_right": adm["right"],
        "admitted_precision": round(adm["right"] / n_adm, 3) if n_adm else None,
        "admitted_recall": round(adm["right"] / right, 3) if right else None,
        "evidence_rejected": ev["right"] + ev["wrong"], "evidence_rejected_right": ev["right"],
        "evidence_rejected_wrong": ev["wrong"],
        "by_rule": by_rule, "decisions": decided,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--transcripts", type=Path, default=TRANSCRIPTS)
    ap.add_argument("--labels", type=Path, default=LABELS)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    r = measure(a.transcripts, a.labels)
    if a.json:
        print(json.dumps(r, indent=1))
        return 0
    print(f"{r['proposals']} labelled proposals ({r['right']} right, {r['wrong']} wrong) from {r['sessions']} "
          f"sessions, {r['calls']} calls")
    print("| rule | right | wrong |\n|---|---|---|")
    for rule, c in sorted(r["by_rule"].items()):
        print(f"| {rule} | {c.get('right', 0)} | {c.get('wrong', 0)} |")
    print(f"precision of the proposals: {r['proposal_precision']:.3f}; of the admitted facts: "
          f"{r['admitted_precision']} ({r['admitted_right']}/{r['admitted']}); right facts admitted: "
          f"{r['admitted_recall']}")
    print(f"the evidence check rejected {r['evidence_rejected']}: {r['evidence_rejected_wrong']} wrong, "
          f"{r['evidence_rejected_right']} right")
    for d in r["decisions"]:
        if d["rule"] != "write":
            print(f"  {d['rule']:<14} {d['label']:<6} {d['key']}  {d['detail']}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
