"""Session 40 (lane pin40), test39b B9 through the prompt hook: "用5519开门" then "门禁PIN是5519" in one session
were both captured in the clear (the statement was not read as naming a PIN), while the English pair ("use 8812
for the side door", "btw my door PIN is 8812") was withheld in both turns.  Now the CJK statement names the PIN,
and the earlier turn is rewritten as the English one is (``sessionearlier.withhold_earlier_after``).  Real hook
processes."""

from __future__ import annotations

import uuid

from tests.hooks._util import turns, vault_project, wait_store_processes_gone


def _users(home, sid: str) -> list[str]:
    wait_store_processes_gone(home)
    return [t[3] for t in sorted(turns(home)) if t[0] == sid and t[2] == "user"]


def test_a_pin_named_in_chinese_is_withheld_in_both_turns(tmp_path):
    home, _cwd, prompt = vault_project(tmp_path)
    sid = str(uuid.uuid4())
    prompt("\u75285519\u5f00\u95e8", sid)              # 'use 5519 to open the door'
    prompt("\u95e8\u7981PIN\u662f5519", sid)           # 'the door's PIN is 5519'
    got = _users(home, sid)
    assert len(got) == 2 and all("5519" not in t and "[REDACTED:" in t for t in got), got
