"""A long turn is ranked, matched and shown by its whole text, whatever the
format of the index generation holding it (session 24, snb24; tester
finding test24b U4).  Recall's coverage factor and the hook's matched terms
read the index's postings (``SearchIndex.held_words``: the whole indexed
text); where a generation cannot say (one that does not stem, or has no
``seq``: before session 7) they read the turn, and read all of it too, so a
store's ranking does not depend on its generations' format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from recall_helpers import turn

from objstore.index import schema as schema_mod
from objstore.retrieval.inject import inject_for_prompt
from objstore.retrieval.recall import recall

#: distinct filler words (none a query word of these tests)
FILLER = " ".join(f"lorem{i:05d}" for i in range(4_000))   # 40,000 characters


@pytest.fixture
def old_format(store, monkeypatch):
    """Generations written while it is active are of the ``words`` format
    (no stemming: ``held_words`` cannot answer for their turns); call the
    returned function to end it (later writes and reads as usual)."""
    monkeypatch.setitem(schema_mod.FORMATS, "stem", schema_mod.FORMATS["words"])
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})

    def end() -> None:
        monkeypatch.undo()
        schema_mod._SCHEMAS.clear()
    return end


def test_recall_on_an_old_generation_counts_words_past_4000_characters(store, add_sessions, old_format):
    """The turn read where the index cannot say was cut at 4,000 characters:
    a long turn holding the question's words past it ranked under a short
    turn holding one of them, as on a new generation it does not."""
    add_sessions({"long": [turn(FILLER[:4_500] + " The zeppelin hangar moved to the north field.")],
                  "short": [turn("zeppelin zeppelin zeppelin")],
                  **{f"o{i}": [turn(f"unrelated note {i} about lunch")] for i in range(10)}})
    old_format()
    assert store.index.held_words([(h.ref, h.seq, h.id) for h in store.index.search("zeppelin", kinds=("turn",))],
                                  ["zeppelin"]) == {}   # the fallback is what is tested
    res = recall(store, ["where is the zeppelin hangar"], projects=("acme",), what="turns")
    assert [h.session for h in res.hits][:2] == ["long", "short"], [(h.session, h.score) for h in res.hits]
    assert "zeppelin hangar" in res.hits[0].text   # the passage shown holds what ranked it


def test_the_hook_on_an_old_generation_matches_words_past_20000_characters(store, add_sessions, old_format):
    """The hook's fallback matched a candidate's terms in its first 20,000
    characters only."""
    add_sessions({"past": [turn(FILLER + "\nThe flaky test_orders failure came from local time versus UTC in "
                                "the orders fixture; freezing time with time-machine fixed it.", "assistant")],
                  **{f"o{i}": [turn(f"unrelated note {i} about lunch")] for i in range(10)}})
    old_format()
    inj = inject_for_prompt(store, "now", "test_orders flaky failure, orders fixture time-machine?",
                            project="acme")
    assert [c.kind for c in inj.injected] == ["turn"], inj.trace
    assert "time-machine" in inj.text


def _cc_session(path: Path, sid: str, user: str, assistant: str) -> None:
    """A Claude Code transcript of one exchange in ``/src/hw``."""
    rows = [{"type": "user", "sessionId": sid, "cwd": "/src/hw", "uuid": f"{sid}-u", "parentUuid": None,
             "timestamp": "2026-10-01T10:00:00Z", "message": {"role": "user", "content": user}},
            {"type": "assistant", "sessionId": sid, "cwd": "/src/hw", "uuid": f"{sid}-a", "parentUuid": f"{sid}-u",
             "timestamp": "2026-10-01T10:01:00Z",
             "message": {"role": "assistant", "content": [{"type": "text", "text": assistant}]}}]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_mem_recall_shows_a_long_turns_answer_where_it_is(tmp_path):
    """Finding U4's repro through ``mem``: a 30 KB turn whose answer is at
    its end ranks, and its printed passage is the part holding the
    question's words, not the turn's start."""
    cc = tmp_path / "cc" / "-src-hw"
    words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()
    filler = " ".join(words[(i * 7) % len(words)] for i in range(4_500))
    _cc_session(cc / "a1.jsonl", "a0000000-0000-0000-0000-000000000001", "how is the zebrafish flux calibrated",
                filler + " The zebrafish flux calibration uses port 7781 on the quartzhost.")
    _cc_session(cc / "a2.jsonl", "a0000000-0000-0000-0000-000000000002", "zebrafish flux quick note",
                "the zebrafish flux is calibrated by hand, see quartzhost docs")
    env = {**os.environ, "MEM_HOME": str(tmp_path / "home")}
    mem = [sys.executable, str(Path(__file__).resolve().parents[2] / "bin" / "mem")]
    subprocess.run([*mem, "import", "claude-code", str(tmp_path / "cc")], env=env, check=True, capture_output=True,
                   timeout=120)
    out = subprocess.run([*mem, "recall", "how is the zebrafish flux calibrated on quartzhost port 7781",
                          "--project", "hw"], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    at = next(i for i, ln in enumerate(lines) if "a0000000-0000-0000-0000-000000000001#1" in ln)
    assert "port 7781 on the quartzhost" in lines[at + 1], out.stdout
