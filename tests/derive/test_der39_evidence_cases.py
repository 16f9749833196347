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

from tests.derive._util import Model, transcript

CASES = json.loads((Path(__file__).parent / "data" / "der39_evidence_cases.json").read_text())["cases"]
PER_SESSION = 38   # an answer's proposals past 40 are not read (run.MAX_FACTS_PER_ANSWER)


def test_each_labelled_proposal_is_decided_as_labelled(mem, tmp_path):
    script = {}
    for s, start in enumerate(range(0, len(CASES), PER_SESSION)):
        chunk, marker = CASES[start:start + PER_SESSION], f"DER39-SESSION-{s}"
        turns = [("user", f"{marker}: a few facts about acme-api.")] + [("user", c["turn"]) for c in chunk]
        transcript(tmp_path / "claude" / "projects" / "-home-dev-acme-api" / f"s{s}.jsonl", f"der39-{s}", turns)
        script[marker] = {"facts": [{"key": f"project/acme-api/case/{c['id']}", "kind": "project",
                                     "value": c["value"], "turns": [i + 2]} for i, c in enumerate(chunk)]}
    mem("import", "claude-code", str(tmp_path / "claude" / "projects"))
    model = Model(script)
    try:
        r = json.loads(mem("derive", "--json", env={"OPENAI_BASE_URL": model.url,
                                                     "OPENAI_API_KEY": "sk-test-derive"}).stdout)
    finally:
        model.close()
    got = {d["key"].rsplit("/", 1)[1]: d["rule"] for d in r["decisions"]}
    assert len(got) == len(CASES), sorted(set(c["id"] for c in CASES) - set(got))
    wrong = {c["id"]: got[c["id"]] for c in CASES if (got[c["id"]] == "write") != c["admit"]}
    assert not wrong, wrong
    # the rejections are the evidence check's (not a key or scope rule)
    assert {got[c["id"]] for c in CASES if not c["admit"]} <= {"no-evidence", "negated", "suspicious"}, got
