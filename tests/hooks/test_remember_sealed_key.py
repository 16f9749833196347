"""test30b S17: a "remember that …" prompt whose key is sealed is not
stored (a plain write of a sealed key is refused), and the prompt hook now
says so in its injected context instead of saying nothing (the person
believed it stored).  Real ``mem hook claude-code`` processes."""

from __future__ import annotations

import json
import uuid

from tests.hooks._util import mem_runner, payload, run_hook


def test_a_statement_on_a_sealed_key_says_it_was_not_stored(tmp_path):
    home = tmp_path / "store"
    cwd = tmp_path / "dev" / "api"
    cwd.mkdir(parents=True)
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple x\n")
    mem = mem_runner(home)

    def prompt(text):
        rc, out, _err, _s = run_hook(home, payload("UserPromptSubmit", str(uuid.uuid4()), None, cwd=str(cwd),
                                                   prompt=text))
        assert rc == 0
        return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else ""
    mem("init")
    mem("vault", "init", "--passphrase-file", str(pp))
    assert "Remembered as you asked" in prompt("remember that the db host is pg-1")
    mem("seal", "project/api/remembered/db-host")
    said = prompt("remember that the db host is pg-2")
    assert "Not stored, though asked: project/api/remembered/db-host is sealed" in said
    assert "pg-2" not in said.split("Not stored")[0]
