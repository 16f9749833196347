"""``mem import jsonl`` of an export whose values hold a credential (test17
T8: an export by a mem that did not know that token's format yet, or edited
by hand).  The import keeps ids, so it cannot redact in place: a fact whose
imported current value holds one gets a redacted version on top, and the
command warns naming the key and version (never the value); a turn holding
one is counted and its session named.  Real files, a real ``mem``."""

from __future__ import annotations

import json

from objstore.core.codec import object_id
from objstore.core.objects import Turn
from objstore.porcelain.interchange import _fields_json, _object_from

TOKEN = "ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9"
SID = "77777777-2222-3333-4444-555555555555"


def _export(tmp_path, mem):
    """An export of one fact, rewritten to hold TOKEN (its id recomputed),
    plus a turn holding it and its session ref."""
    mem("remember", "project/j/tok", "placeholder value")
    lines = mem("export", "--format", "jsonl").stdout.splitlines()
    rec = json.loads(lines[1])
    rec["fields"]["body"] = f"token {TOKEN} here"
    rec["id"] = object_id(_object_from(rec, 2))
    turn = Turn(session=SID, seq=0, role="user", text=f"use {TOKEN} for the api", timestamp=1796324909239,
                harness="claude-code", cwd="/home/u/proj", project="proj", source="cc:u1", parent=None)
    trec = {"object": "turn", "id": object_id(turn), "fields": _fields_json(turn)}
    out = tmp_path / "cred.jsonl"
    out.write_text("\n".join([lines[0], json.dumps(rec), json.dumps({"ref": "facts/project/j/tok", "id": rec["id"]}),
                              json.dumps(trec), json.dumps({"ref": f"sessions/{SID}", "id": trec["id"]})]) + "\n")
    return out


def test_import_jsonl_redacts_a_credential_on_top_and_warns_by_key(tmp_path, mem, monkeypatch):
    export = _export(tmp_path, mem)
    monkeypatch.setenv("MEM_HOME", str(tmp_path / "other"))
    r = mem("import", "jsonl", str(export))
    assert TOKEN not in r.stdout + r.stderr
    assert "1 imported value held a credential" in r.stderr and "project/j/tok@v1" in r.stderr
    assert "mem forget project/j/tok@v1" in r.stderr
    assert f"1 imported turn hold a credential, in 1 session: {SID}" in r.stderr
    assert mem("get", "project/j/tok").stdout.strip() == "token [REDACTED:github-token] here"
    assert TOKEN not in mem("recall", "token here", "--project", "j").stdout
    # the hint works: the imported version goes, the redacted one stays current
    mem("forget", "project/j/tok@v1", "--yes")
    mem("forget", "--session", SID, "--yes")
    mem("gc", "--prune=now")
    assert mem("scan", TOKEN, exit_code=None).exit_code == 0
    assert mem("get", "project/j/tok").stdout.strip() == "token [REDACTED:github-token] here"
    j = mem("import", "jsonl", str(export), "--keep-existing", "--json").json
    assert j["redacted"] == [] and j["turns_with_credentials"] == 0   # nothing new written: nothing said
