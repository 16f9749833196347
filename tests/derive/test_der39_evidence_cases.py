"""test38 T2: derive's evidence check admitted 44 of 77 values its cited
turns do not assert: a line the person says to ignore, the old value of a
change ("the port changed from 5432 to 6543"), a request to confirm a value,
hearsay, a negation in another language, an instruction's quoted payload,
a hedge ("I think X", "probably X").  ``data/der39_evidence_cases.json``
labels 75 proposals (value, the one turn it cites), 36 to admit, 39 not;
every one is decided as labelled.  Real ``mem`` processes against a
loopback OpenAI-compatible server with scripted answers."""

from __future__ import annotations

import json
from pathlib import Path

from tests.derive._util import Model, derive_decisions, transcript

CASES = json.loads((Path(__file__).parent / "data" / "der39_evidence_cases.json").read_text())["cases"]
PER_SESSION = 38   # an answer's proposals past 40 are not read (run.MAX_FACTS_PER_ANSWER)


def test_each_labelled_proposal_is_decided_as_labelled(mem, tmp_path):
    rules = derive_decisions(mem, tmp_path, [(c["turn"], c["value"]) for c in CASES], "DER39", PER_SESSION)
    got = {CASES[i]["id"]: rule for i, rule in rules.items()}
    assert len(got) == len(CASES), sorted(set(c["id"] for c in CASES) - set(got))
    wrong = {c["id"]: got[c["id"]] for c in CASES if (got[c["id"]] == "write") != c["admit"]}
    assert not wrong, wrong
    # the rejections are the evidence check's (not a key or scope rule)
    assert {got[c["id"]] for c in CASES if not c["admit"]} <= {"no-evidence", "negated", "suspicious"}, got


def test_a_derived_fact_a_later_memory_file_line_contradicts_is_marked(mem, tmp_path):
    """test38 T3: a fact ``mem derive --apply`` filed ("the linter is flake8"), then the person's memory.md line
    "The linter is ruff.": the session block served the derived fact unmarked beside the newer line."""
    import time
    turns = [("user", "DER39-LINTER: The linter is flake8. The docs build uses sphinx.")]
    transcript(tmp_path / "claude" / "projects" / "-home-dev-acme-api" / "l.jsonl", "der39-l", turns)
    mem("import", "claude-code", str(tmp_path / "claude" / "projects"))
    model = Model({"DER39-LINTER": {"facts": [
        {"key": "project/acme-api/linter", "kind": "project", "value": "the linter is flake8", "turns": [1]},
        {"key": "project/acme-api/docs-build", "kind": "project", "value": "the docs build uses sphinx", "turns": [1]}]}})
    try:
        r = json.loads(mem("derive", "--apply", "--json", env={"OPENAI_BASE_URL": model.url,
                                                                "OPENAI_API_KEY": "sk-test-derive"}).stdout)
    finally:
        model.close()
    assert [d["rule"] for d in r["decisions"]] == ["write", "write"], r["decisions"]
    time.sleep(0.05)
    mem("memory", "add", "memory", "The linter is ruff.", "--project", "acme-api")
    block = mem("context", "--project", "acme-api").stdout
    lines = {ln.split(" (", 1)[0].lstrip("- "): ln for ln in block.splitlines() if ln.startswith("- ")}
    assert "MAY BE OUT OF DATE: a memory-file line written later" in lines["project/acme-api/linter"], block
    assert "MAY BE OUT OF DATE" not in lines["project/acme-api/docs-build"], block
