"""test37 T9.2, T9.3: ``mem reflog KEY`` of a sealed key said "no reflog
for facts/…" (exit 4) while ``mem keys`` listed the key; ``mem blame
KEY@vN`` was refused ("'@' is not allowed in keys") while show, diff and
revert take KEY@vN.  Real ``mem`` processes."""

from __future__ import annotations

import json

from tests.vault.test_lead37_sealed_plain_write import sealed_store


def test_reflog_of_a_sealed_key_by_its_key_and_blame_of_a_version(mem, tmp_path):
    home = sealed_store(mem, tmp_path, "project/acme/vendor-pin", "vendor portal pin 8841-2290-5573")
    moves = json.loads(mem("--home", home, "reflog", "project/acme/vendor-pin", "--json").stdout)
    assert moves and moves[0]["ref"] == "sealed/project/acme/vendor-pin", moves
    mem("--home", home, "reflog", "project/acme/nothing-here", exit_code=4)

    mem("--home", home, "remember", "project/api/db", "Postgres 15")
    mem("--home", home, "remember", "project/api/db", "Postgres 16", "--trust", "agent_observed")
    mem("--home", home, "remember", "project/api/db", "Postgres 17")
    b1 = json.loads(mem("--home", home, "blame", "project/api/db@v1", "--json").stdout)
    assert (b1["version"], b1["trust"]) == (1, "user_stated"), b1
    cur = json.loads(mem("--home", home, "blame", "project/api/db", "--json").stdout)
    assert cur["version"] == json.loads(mem("--home", home, "log", "project/api/db", "--json").stdout)[0]["version"]
    mem("--home", home, "blame", "project/api/db@v9", exit_code=4)
