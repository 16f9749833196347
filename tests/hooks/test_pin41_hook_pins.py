"""Session 41 (lane pin41), test40 T5 and T6 through the prompt hook (real hook processes): PINs and passwords in
common spellings and scripts ("PIN-Nummer: 4471", "비밀번호가 4471", "口令是Hunter2abc", "my PIN is 4-4-7-1") are
captured withheld; a board's pin ("GPIO PIN=4471 drives the relay", "引脚PIN是4471") is captured as written."""

from __future__ import annotations

import uuid

from tests.hooks._util import turns, vault_project, wait_store_processes_gone

SECRETS = [("PIN-Nummer: 5519", "5519"), ("\ube44\ubc00\ubc88\ud638\uac00 6620", "6620"),
           ("\u53e3\u4ee4\u662fHunter2abc", "Hunter2abc"), ("my PIN is 4-4-7-1", "4-4-7-1"),
           ("\u94f6\u884c\u5361 PIN \u662f 7731", "7731"), ("PIN \u2192 8842", "8842")]
BOARD = ["GPIO PIN=4471 drives the relay", "\u5f15\u811aPIN\u662f4471", "PIN:2048 on the FPGA header"]


def _users(home, sid: str) -> list[str]:
    wait_store_processes_gone(home)
    return [t[3] for t in sorted(turns(home)) if t[0] == sid and t[2] == "user"]


def prompts_withheld_and_kept(tmp_path, secrets, kept) -> None:
    """Send every line of ``secrets`` (``(line, values)`` pairs) then of ``kept`` (lines) as prompt-hook prompts of one
    session into a new vault store; assert each secret line is captured with a ``[REDACTED:`` marker and none of its
    values, and each kept line is captured exactly as written. Shared by the PIN hook tests of sessions 41 and 42."""
    home, _cwd, prompt = vault_project(tmp_path)
    sid = str(uuid.uuid4())
    for line in [line for line, _v in secrets] + list(kept):
        prompt(line, sid)
    got = _users(home, sid)
    assert len(got) == len(secrets) + len(kept), got
    for (line, values), t in zip(secrets, got):
        assert "[REDACTED:" in t and not any(v in t for v in values), (line, t)
    assert got[len(secrets):] == list(kept)


def test_pins_in_common_spellings_are_withheld_and_board_pins_kept(tmp_path):
    prompts_withheld_and_kept(tmp_path, [(line, (value,)) for line, value in SECRETS], BOARD)
