"""The person's fact goes before an agent's fact under another key that
answers the same question (test27b X2, ``timeline`` rule 11), and a later
turn's sentence is read as a statement of a change that happened only when
it is one (``restated.states``: test27b X7, test27 V27).

``mem remember project/shop/db "The shop database is Postgres on port
5432"`` by the person, then an agent's ``project/shop/database-port "shop
database port: 6543"``: BM25 put the agent's terse, key-worded fact first
for "which port does the shop database use".  Real ``mem`` processes."""

from __future__ import annotations

import shutil

import pytest

from objstore.retrieval.restated import states
from tests.retrieval._sessions import prompt_hook

QUESTION = "which port does the shop database use"


def _keys(mem, question: str, project: str) -> list[tuple[str, str]]:
    hits = mem("recall", question, "--project", project, "--json").json["hits"]
    return [(h["key"], h["trust"]) for h in hits if h["kind"] == "fact"]


def test_the_persons_fact_ranks_above_an_agents_under_another_key(mem):
    mem("remember", "project/shop/db", "The shop database is Postgres on port 5432")
    mem("remember", "project/shop/database-port", "shop database port: 6543", env={"MEM_AGENT": "claude"})
    assert _keys(mem, QUESTION, "shop") == [("project/shop/db", "user_stated"),
                                            ("project/shop/database-port", "agent_observed")]
    hits = mem("recall", QUESTION, "--project", "shop", "--json").json["hits"]
    assert all(h["updated_later"] is None for h in hits), hits   # put first, nothing marked
    assert mem("get", "project/shop/database-port").stdout.strip() == "shop database port: 6543"


def test_near_keys_of_an_agent_rank_below_the_persons(mem):
    mem("remember", "project/api/deploy-day", "Deploys happen on Friday")
    for key in ("deploy day", "deploy--day"):
        mem("remember", f"project/api/{key}", "Deploys happen on Monday", env={"MEM_AGENT": "claude"})
    got = _keys(mem, "what day do deploys happen", "api")
    assert got[0] == ("project/api/deploy-day", "user_stated"), got


def test_the_prompt_hook_injects_the_persons_fact_first(mem, tmp_path):
    """The hook's gate (``injecttime.person_first``): the person's fact
    before the agent's; with two facts a prompt, two near keys of an
    agent no longer keep the person's out."""
    mem("remember", "project/shop/db", "The shop database is Postgres on port 5432")
    mem("remember", "project/shop/database-port", "shop database port: 6543", env={"MEM_AGENT": "claude"})
    _text, trace = prompt_hook(tmp_path / "store", QUESTION + "?", "/home/dev/shop", tmp_path / "t1.jsonl", fresh=True)
    assert [c["key"] for c in trace["injected"] if c["kind"] == "fact"][:1] == ["project/shop/db"], trace
    for copy in tmp_path.glob("store-hook*"):   # (the first prompt's copies of the store)
        shutil.rmtree(copy)
    mem("remember", "project/api/deploy-day", "Deploys happen on Friday")
    for key in ("deploy day", "deploy--day"):
        mem("remember", f"project/api/{key}", "Deploys happen on Monday", env={"MEM_AGENT": "claude"})
    _text, trace = prompt_hook(tmp_path / "store", "what day do deploys happen?", "/home/dev/api", tmp_path / "t2.jsonl",
                               fresh=True)
    assert [c["key"] for c in trace["injected"] if c["kind"] == "fact"][:1] == ["project/api/deploy-day"], trace


def test_an_agents_fact_of_another_thing_keeps_its_place(mem):
    """Rule 11 needs the agent's fact's question words in the person's: an
    agent's fact that answers where the person's does not stays first."""
    mem("remember", "project/shop/db", "The shop database is Postgres")
    mem("remember", "project/shop/database-port", "shop database port: 6543", env={"MEM_AGENT": "claude"})
    assert _keys(mem, QUESTION, "shop")[0] == ("project/shop/database-port", "agent_observed")


#: (text, value, whether a sentence states it as a change that happened)
READINGS = [
    ("FYI the shop database moved to port 6543 this morning.", "6543", True),
    ("The shop database has not moved to port 6543.", "6543", False),
    ("The shop database hasn't moved to port 6543.", "6543", False),
    ("Ops says the shop database moved to port 6543. That is wrong.", "6543", False),
    ("Ops says the shop database moved to port 6543, but that is wrong.", "6543", False),
    ("Ops said the db moved to 6543. Not true.", "6543", False),
    ("The shop database moved to port 6543. That is what ops told me.", "6543", True),
    ("The shop database will move to port 6543 next year.", "6543", False),
    ("We're going to move the db to 6543 next week.", "6543", False),
    ("From today keys will get 500 requests per minute.", "500", True),
    ("The db moved to 6543; we'll move it again next year.", "6543", True),
    ("The db moved to 6543 and the app will need a restart.", "6543", True),     # the future word after the value
    ("I want to let you know the db moved to 6543.", "6543", True),
    ("Assume the shop database moved to port 6543 and update the config accordingly.", "6543", False),
    ("If the db moved to 6543, the config breaks.", "6543", False),
    ("Heads up: the staging database moved to port 6543, not 5433 as planned.", "6543", True),
    # test28b Z3: a rejection that then states the real change; a rejection of something else
    ("Ops says the db moved to port 6543. That is wrong, it moved to port 7000.", "7000", True),
    ("Ops says the db moved to port 6543. That is wrong, it moved to port 7000.", "6543", False),
    ("That is wrong that the db moved to 7000.", "7000", False),
    ("Forget what I said earlier, the db moved to port 7000. That is wrong info in the wiki.", "7000", True),
    ("The db moved to port 7000. That is wrong, sorry.", "7000", False),
    # test28b Z3's other wordings: a claim called false, a plan, a hope
    ("The claim that the shop database moved to port 6543 is false.", "6543", False),
    ("We might move the shop database to port 6543 someday.", "6543", False),
    ("The shop database should move to port 6543.", "6543", False),
    ("Next week the shop database moves to port 6543.", "6543", False),
    ("We want to move the shop database to port 6543.", "6543", False),
    ("I hope the shop database moved to port 6543 already.", "6543", False),
    ("The db moved to 6543 so you should update the config.", "6543", True),
    ("The db moved to 6543 and might need a restart.", "6543", True),
    ("Someone said the shop database moved to port 6543 - not true, it's still 5432.", "6543", False),
    ("Someone said it moved to 6543 - not true, it moved to 7000.", "7000", True),
]


@pytest.mark.parametrize("text,value,stated", READINGS, ids=range(len(READINGS)))
def test_what_a_sentence_states(text, value, stated):
    assert states(text, value) is stated


def test_a_person_fact_a_later_turn_changed_does_not_reorder(mem, tmp_path):
    """test28b Z11: the person's fact is marked by their later turn; rule 11
    then moves nothing, and the assistant's empty reply is not lifted first."""
    import json
    import time
    mem("remember", "project/shop/db", "The shop database is Postgres on port 5432")
    time.sleep(0.05)
    sid = "7d1e6f0a-0000-4000-8000-00000000a11e"
    d = tmp_path / "tx" / "-home-dev-shop"
    d.mkdir(parents=True)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() + 2))
    lines = [("user", "FYI the shop database moved to port 6543 this morning, please update your notes."),
             ("assistant", "Noted.")]
    (d / f"{sid}.jsonl").write_text("".join(json.dumps(
        {"type": role, "sessionId": sid, "cwd": "/home/dev/shop", "uuid": f"z11{i}", "timestamp": f"{stamp}.{i}00Z",
         "message": {"role": role, "content": t if role == "user" else [{"type": "text", "text": t}]}}) + "\n"
        for i, (role, t) in enumerate(lines)))
    mem("import", "claude-code", str(tmp_path / "tx"))
    mem("remember", "project/shop/database-port", "shop database port: 6543", env={"MEM_AGENT": "claude"})
    hits = mem("recall", QUESTION, "--project", "shop", "--json").json["hits"]
    assert hits[0]["text"] != "Noted.", hits
    db = next(h for h in hits if h.get("key") == "project/shop/db")
    assert db["updated_later"], hits
