"""test42 T15: after ``mem forget KEY@v2`` the audit called v3's old id "forgotten" (its write read
``forgotten -> forgotten``, though 7777 was never forgotten, only written again with a new id) and the rewrite's line
``(none) -> id`` (as if the key were deleted and made anew).  Now the re-hashed id reads ``rewritten`` and the
rewrite's old side ``(rewritten)``, as ``mem reflog`` says; the forgotten version's id still reads ``forgotten``.
Real ``mem`` processes."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_a_later_version_rewritten_by_a_forget_is_not_called_forgotten(mem):
    mem("init")
    for v in ("5432", "6543", "7777"):
        mem("remember", "project/api/port", v, env=PERSON)
    ids = [e["new"] for e in mem("audit", "--json").json if e["command"] == "remember"]
    assert len(ids) == 3
    mem("forget", "project/api/port@v2", "--yes", env=PERSON)
    entries = [e for e in mem("audit", "--json").json if e["ref"] == "facts/project/api/port"]
    writes = [e for e in entries if e["command"] == "remember"]
    assert [(e["old"], e["new"]) for e in writes] == [(None, ids[0]), (ids[0], "forgotten"),
                                                      ("forgotten", "rewritten")], writes
    out = mem("audit").stdout
    (rewrite,) = [ln for ln in out.splitlines() if "history rewritten" in ln]
    assert "(rewritten) -> " in rewrite and "(none)" not in rewrite, out
    assert "forgotten -> rewritten" in out and "forgotten -> forgotten" not in out, out
    assert mem("get", "project/api/port").stdout.strip() == "7777"
