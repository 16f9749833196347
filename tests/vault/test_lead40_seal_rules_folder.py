"""test40 T18: a folder (or a damaged head) in place of ``seal-rules``: a
plain ``mem remember`` of a sealed key's exact value was stored in the
clear, exit 0, no word.  The write is now refused (exit 13, naming the file
and the way back); once the rules are written again it is refused as a
sealed value (exit 6) and nothing was stored meanwhile; the prompt hook captures nothing (exit 0,
logged) rather than the sealed value in the clear."""

from __future__ import annotations

import json
import shutil

from objstore import scan_store

PERSON = {"MEM_AGENT": "0"}


def test_a_plain_write_fails_closed_while_the_seal_rules_do_not_read(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem(*h, "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    mem(*h, "remember", "user/wifi", "okapi-quetzal-5521", "--sensitivity", "secret", env=PERSON)
    rules = home / "seal-rules"
    kept = rules.read_bytes()
    for damage in ("folder", "head"):
        if damage == "folder":
            rules.unlink()
            rules.mkdir()
        else:
            shutil.rmtree(rules)
            rules.write_bytes(b"\x00garbage\n" + kept.split(b"\n", 1)[1])
        r = mem(*h, "remember", "project/x/w", "okapi-quetzal-5521", exit_code=13, env=PERSON)
        assert "seal-rules is damaged" in r.stderr and "mem sealed rebuild-rules" in r.stderr, r.stderr
        assert mem(*h, "get", "project/x/w", exit_code=4, env=PERSON)
        event = {"session_id": f"s-{damage}", "hook_event_name": "UserPromptSubmit", "transcript_path": "/nonexist",
                 "cwd": str(tmp_path), "prompt": "the door code is okapi-quetzal-5521"}
        r = mem(*h, "hook", "claude-code", input=json.dumps(event), env={**PERSON, "MEM_NO_HELPER": "1"})
        assert r.exit_code == 0                                  # fails open: nothing captured in the clear
        assert scan_store(home, [b"okapi-quetzal-5521"]) == []
    rules.unlink()
    mem(*h, "sealed", "rebuild-rules", "--passphrase-file", str(pp), env=PERSON)
    mem(*h, "remember", "project/x/w", "okapi-quetzal-5521", exit_code=6, env=PERSON)
    mem(*h, "remember", "project/x/w", "an ordinary value", env=PERSON)
