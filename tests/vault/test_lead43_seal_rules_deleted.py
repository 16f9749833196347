"""test43 T11: with ``seal-rules`` DELETED while a key is sealed, an agent's write and the prompt hook stored the
exact sealed value in the clear, and fsck said "ok" under a warning that said so.  A seal always writes the file
(rules or none), so its absence beside a sealed key is damage: writes and captured turns are refused (exit 13;
the hook fails open, storing nothing), fsck exits 13 and doctor calls it an error, until ``mem sealed
rebuild-rules`` writes it again.  Real ``mem`` processes."""

from __future__ import annotations

import json

from objstore.memory.forget import scan_store

PERSON = {"MEM_AGENT": "0"}
VALUE = "kestrel-5517-harbor"


def test_a_deleted_seal_rules_file_beside_a_sealed_key_fails_closed(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem(*h, "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    mem(*h, "remember", "user/door/code", VALUE, "--sensitivity", "secret", env=PERSON)
    (home / "seal-rules").unlink()
    r = mem(*h, "remember", "project/t/d", f"the door code is {VALUE}", env={"MEM_AGENT": "claude"}, exit_code=13)
    assert "seal-rules is missing while a key is sealed" in r.stderr and "rebuild-rules" in r.stderr, r.stderr
    event = {"session_id": "s-t11", "hook_event_name": "UserPromptSubmit", "transcript_path": "/nonexist",
             "cwd": str(tmp_path), "prompt": f"the door code is {VALUE}, keep it handy"}
    assert mem(*h, "hook", "claude-code", input=json.dumps(event), env={**PERSON, "MEM_NO_HELPER": "1"}).exit_code == 0
    assert scan_store(home, [VALUE.encode()]) == []
    out = mem(*h, "fsck", exit_code=13).stdout
    assert "error: seal-rules is missing while 1 key is sealed" in out and "rebuild-rules" in out, out
    doc = json.loads(mem(*h, "doctor", "--json", exit_code=1).stdout)
    (seal,) = [f for f in doc["findings"] if f["check"] == "seal"]
    assert seal["severity"] == "error", seal
    mem(*h, "sealed", "rebuild-rules", "--passphrase-file", str(pp), env=PERSON)
    assert "seal-rules" not in mem(*h, "fsck").stdout
    mem(*h, "remember", "project/t/d", f"the door code is {VALUE}", env={"MEM_AGENT": "claude"}, exit_code=6)
    mem(*h, "remember", "project/t/d", "an ordinary value", env={"MEM_AGENT": "claude"})
