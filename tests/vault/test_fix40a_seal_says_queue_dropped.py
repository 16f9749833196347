"""fresh40 F14: ``mem seal KEY`` dropped the key's pending review-queue
proposals without a word and without an audit line (their reflog went
too).  Now the seal says how many it withdrew (stderr, --json
``queue_dropped``) and ``mem audit`` records each removal, with no object
id of the proposal left in the audit log (a fingerprint of its value)."""

from __future__ import annotations

import json

PERSON = {"MEM_AGENT": "0"}


def _store(mem, tmp_path):
    env = {**PERSON, "MEM_HOME": str(tmp_path / "store")}
    (tmp_path / "pp").write_text("correct horse battery staple\n")
    mem("vault", "init", "--passphrase-file", str(tmp_path / "pp"), env=env)
    mem("remember", "project/x/k", "value one", env=env)
    r = mem("remember", "project/x/k", "agent value two", "--trust", "agent_observed", env=env)
    assert "queued for review" in r.stdout + r.stderr
    return env


def test_seal_says_and_audits_the_proposal_it_withdraws(mem, tmp_path):
    env = _store(mem, tmp_path)
    before = (tmp_path / "store" / "logs" / "audit").read_text()
    ref, qobj = next(ln.split("\t")[2::2] for ln in before.splitlines() if "\tqueue/" in ln)
    r = mem("seal", "project/x/k", env=env)
    assert "withdrew 1 pending review-queue proposal for project/x/k" in r.stderr, r.stderr
    assert "review queue is empty" in mem("queue", env=env).stdout
    audit = mem("audit", env=env).stdout
    line = [ln for ln in audit.splitlines() if "seal: proposal dropped" in ln]
    assert len(line) == 1 and ref in line[0] and "forgotten -> (none)" in line[0], audit
    assert qobj not in (tmp_path / "store" / "logs" / "audit").read_text()


def test_seal_json_names_the_withdrawn_proposals(mem, tmp_path):
    env = _store(mem, tmp_path)
    r = json.loads(mem("seal", "project/x/k", "--json", env=env).stdout)
    assert len(r["queue_dropped"]) == 1
