"""``mem eval namespaces``: sub-agent namespaces measured on scenarios.

A scenario file (``eval/namespaces.json``, format below) holds sessions that
ran sub-agents: facts of the session, and per sub-agent its raw exploration
(turns), the facts it recorded and its conclusion (its final message, or
none: a crash).  Each session is stored the way the hooks store it: the
turns under the sub-agent's session id ``<session>.agent-<name>`` (its
namespace), its facts in that namespace, its conclusion rolled up into the
parent's namespace (``objstore.capture.rollup``: a ``summary`` fact with
``rollup_of`` edges to its turns, or "did not complete").

Measured, all through the code the hooks and commands run:

* **Sibling leaks** (must be 0): each sub-agent reads as itself, with
  ``recall`` (every question, probe and sibling's conclusion of its
  session as a query), the session-start block (``SubagentStart``) and the
  prompt gate (``inject_for_prompt``); every item of a sibling's namespace
  (or of a sibling's sub-agents) that any of them shows is a leak.
* **Conclusion first**: each parent question names the sub-agent whose
  conclusion answers it; ``recall`` as the parent must rank that
  sub-agent's summary above every raw turn of the sub-agent.  Reported
  with the same question recalled in the person's view of a flat pool
  (every item at full rank, no summaries) for comparison.
* **Rollups**: every sub-agent has exactly one summary, with a
  ``rollup_of`` edge to each of its turns; a crashed one a "did not
  complete" summary.

Format::

    {"project": "shop",
     "sessions": [{"id": "S1",
                   "facts": [{"key": "project/shop/db", "value": "..."}],
                   "agents": [{"name": "explorer",
                               "turns": [{"role": "user", "text": "..."}, ...],
                               "facts": [{"key": "...", "value": "..."}],
                               "final": "its conclusion" | null}],
                   "questions": [{"question": "...", "agent": "explorer"}],
                   "probes": ["a query a sibling's content answers"]}]}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from objstore.capture.rollup import INCOMPLETE, rollup, rollup_edges, summary_key
from objstore.core.errors import InvalidInput
from objstore.core.objects import Turn
from objstore.memory.facts import current, remember
from objstore.memory.opening import open_store
from objstore.memory.scope import child_namespace, within_namespace
from objstore.memory.sessions import session_turns
from objstore.retrieval.context import render_context
from objstore.retrieval.inject import inject_for_prompt
from objstore.retrieval.evaluate import load_json, write_sessions
from objstore.retrieval.recall import recall

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z: scenario turns are one minute apart from here


@dataclass
class NamespacesReport:
    """What :func:`eval_namespaces` measured (module docstring)."""

    sessions: int = 0
    agents: int = 0
    turns: int = 0
    reads: int = 0                 # reads done as a sub-agent (recall, block, prompt gate)
    sibling_leaks: int = 0
    leaks: list[str] = field(default_factory=list)
    questions: int = 0
    conclusion_first: int = 0      # namespaces: the summary above every raw turn of its sub-agent
    conclusion_found: int = 0      # namespaces: the summary in the top 10
    flat_conclusion_first: int = 0  # flat pool baseline: the sub-agent's final turn above its other turns
    rollups_ok: int = 0
    incomplete: int = 0
    rows: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        q = self.questions or 1
        return {"sessions": self.sessions, "agents": self.agents, "turns": self.turns, "reads": self.reads,
                "sibling_leaks": self.sibling_leaks, "leaks": self.leaks, "questions": self.questions,
                "conclusion_first": round(self.conclusion_first / q, 3),
                "conclusion_found@10": round(self.conclusion_found / q, 3),
                "flat_conclusion_first": round(self.flat_conclusion_first / q, 3),
                "rollups_ok": self.rollups_ok, "did_not_complete": self.incomplete, "rows": self.rows}


def _check(cond: bool, msg: str) -> None:
    if not cond:
        raise InvalidInput(f"not a namespaces scenario file: {msg}")


def eval_namespaces(path: str | Path, workdir: str | Path) -> NamespacesReport:
    """Run the scenario file ``path`` (module docstring) in a new store under
    ``workdir``.  Raises FileNotFoundError, InvalidInput."""
    data = load_json(path)
    _check(isinstance(data, dict) and isinstance(data.get("sessions"), list), 'want {"sessions": [...]}')
    project = str(data.get("project") or "")
    projects = (project,) if project else ()
    rep = NamespacesReport()
    with open_store(Path(workdir) / "store", create=True) as store:
        plan = []
        for si, s in enumerate(data["sessions"]):
            _check(isinstance(s, dict) and isinstance(s.get("id"), str), f"sessions[{si}] needs an id")
            agents = s.get("agents") or []
            _check(isinstance(agents, list) and len(agents) >= 2, f"sessions[{si}] needs two agents or more")
            sid = s["id"]
            for f in s.get("facts") or []:
                remember(store, f["key"], f["value"], namespace=sid, command="eval")
            children = {}
            batch = []
            for a in agents:
                child = child_namespace(sid, str(a.get("name", "")))
                children[a["name"]] = child
                turns = [Turn(session="x", seq=0, role=str(t.get("role") or "assistant"), text=str(t["text"]),
                              timestamp=T0 + (rep.turns + i) * 60_000, harness="eval", cwd="", project=project,
                              source=f"eval:{child}:{i}", parent=None)
                         for i, t in enumerate(a.get("turns") or [])]
                rep.turns += len(turns)
                if a.get("final"):     # the conclusion is its last assistant turn, as in a transcript
                    turns.append(Turn(session="x", seq=0, role="assistant", text=str(a["final"]),
                                      timestamp=T0 + rep.turns * 60_000, harness="eval", cwd="", project=project,
                                      source=f"eval:{child}:final", parent=None))
                    rep.turns += 1
                batch.append((child, turns))
            write_sessions(store, batch)
            for a in agents:
                child = children[a["name"]]
                for f in a.get("facts") or []:
                    remember(store, f["key"], f["value"], namespace=child, trust="user_stated", command="eval")
                rollup(store, child, a.get("final"), project=project, command="eval")
            rep.sessions += 1
            rep.agents += len(agents)
            plan.append((s, sid, children))
        for s, sid, children in plan:
            _rollups(store, rep, children, project)
            queries = [q["question"] for q in s.get("questions") or []] + list(s.get("probes") or [])
            queries += [str(a["final"])[:200] for a in s["agents"] if a.get("final")]
            for name, child in children.items():
                siblings = [c for n, c in children.items() if n != name]
                _leaks(store, rep, child, siblings, queries, projects)
            for q in s.get("questions") or []:
                _question(store, rep, sid, children[q["agent"]], q["question"], projects)
    return rep


def _rollups(store, rep: NamespacesReport, children: dict, project: str) -> None:
    for child in children.values():
        f = current(store, summary_key(child, project)).fact
        turns = {tv.id for tv in session_turns(store, child)}
        ok = set(rollup_edges(f)) == turns and f.kind == "summary"
        rep.rollups_ok += ok
        rep.incomplete += f.body.startswith(INCOMPLETE)


def _sibling_of(ns: str, siblings: list[str]) -> bool:
    return any(within_namespace(ns, s) for s in siblings)


def _leaks(store, rep: NamespacesReport, child: str, siblings: list[str], queries: list[str],
           projects: tuple[str, ...]) -> None:
    sibling_values = {}
    for s in siblings:
        for tv in session_turns(store, s):
            sibling_values[tv.turn.text[:80]] = s
    for q in queries:
        rep.reads += 1
        for h in recall(store, q, projects=projects, namespace=child, limit=20).hits:
            if _sibling_of(h.namespace, siblings):
                rep.sibling_leaks += 1
                rep.leaks.append(f"recall as {child}: {h.key or h.session} ({q[:40]!r})")
        rep.reads += 1
        inj = inject_for_prompt(store, child, q, project=projects[0] if projects else None, namespace=child)
        for c in inj.injected:
            ns = c.ref if c.kind == "turn" else current(store, c.ref).fact.namespace
            if _sibling_of(ns, siblings):
                rep.sibling_leaks += 1
                rep.leaks.append(f"prompt gate as {child}: {c.ref} ({q[:40]!r})")
    rep.reads += 1
    block = render_context(store, projects, namespace=child, budget=100_000)
    for key, _oid in block.facts:
        if _sibling_of(current(store, key).fact.namespace, siblings):
            rep.sibling_leaks += 1
            rep.leaks.append(f"session block of {child}: {key}")


def _question(store, rep: NamespacesReport, sid: str, child: str, question: str, projects) -> None:
    rep.questions += 1
    hits = recall(store, question, projects=projects, namespace=sid, limit=10).hits
    key = summary_key(child, projects[0] if projects else "")
    summary = next((i for i, h in enumerate(hits) if h.kind == "fact" and h.key == key), None)
    raw = next((i for i, h in enumerate(hits) if h.kind == "turn" and h.namespace == child), None)
    first = summary is not None and (raw is None or summary < raw)
    rep.conclusion_found += summary is not None
    rep.conclusion_first += first
    # baseline: a flat pool (no namespaces, no summaries): is the sub-agent's conclusion (its last turn)
    # above its raw exploration?
    flat = recall(store, question, projects=projects, what="turns", limit=10,
                  within=child, namespace=None).hits
    final_id = session_turns(store, child)[-1].id
    flat_first = bool(flat) and flat[0].id == final_id
    rep.flat_conclusion_first += flat_first
    rep.rows.append({"question": question, "agent": child, "summary_rank": summary, "first_raw_rank": raw,
                     "conclusion_first": first, "flat_conclusion_first": flat_first})
