"""Session 34 (lane seal34), test33b T9's rest: a take-back sent as the
session's NEXT prompt right after a "remember that …" statement on a sealed
key ("Sorry, I mean zebra-plum-992") is that statement's new value, and was
captured, indexed and served in the clear (the statement's own prompt was
withheld).  Now every capture path withholds it: the prompt hook, the Stop
hook's transcript sync and ``mem import claude-code`` of the same two
prompts as user turns.  The same for a password said in one prompt and
corrected in the next ("Sorry, I mean Hunter3x9": the current password was
stored in the clear).  Real ``mem`` processes."""

from __future__ import annotations

import subprocess
import sys
import uuid

from tests.hooks._util import REPO, asst, hook_env, line, mem_runner, payload, run_hook, text, turns, user, \
    vault_project, wait_store_processes_gone

OLD, NEW = "zebra-plum-991", "zebra-plum-992"
PROMPTS = [f"remember that the vendor code is {OLD}", f"Sorry, I mean {NEW}", "thanks, now run the tests",
           f"Actually, {NEW} is what the build uses"]   # (the 4th: no take-back right after a withheld prompt)
STORED = ["remember that [REDACTED:sealed-value]", "[REDACTED:sealed-value]", PROMPTS[2], PROMPTS[3]]
PW = ["remember that the db password is Hunter2x9", "Sorry, I mean Hunter3x9", "thanks, now run the tests",
      "Actually, Hunter4x9 is the vpn one"]
PW_STORED = ["remember that the db password is [REDACTED:password-phrase]", "Sorry, I mean [REDACTED:password-phrase]",
             PW[2], PW[3]]


def _sealed(tmp_path):
    home, cwd, prompt = vault_project(tmp_path)
    mem_runner(home)("remember", "project/api/remembered/vendor-code", "the vendor code is qq11",
                     "--sensitivity", "secret")
    return home, cwd, prompt


def _served(home, word: str) -> str:
    p = subprocess.run([sys.executable, "-m", "cmds", "search", word], text=True, capture_output=True,
                       env=hook_env(home), cwd=REPO, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    return p.stdout


def _transcript(path, sid: str, cwd: str, prompts=PROMPTS) -> None:
    rows, n = [], sid[:8]     # (record ids of its own: a copy of another session's is a resumed session's)
    for i, words in enumerate(prompts):
        rows.append(line(user(f"u{i}{n}", words, sid, cwd=cwd, ts=f"2026-01-05T10:00:{2 * i:02d}Z")))
        rows.append(line(asst(f"a{i}{n}", f"m{i}{n}", [text(f"Done {i}.")], sid, cwd=cwd,
                              ts=f"2026-01-05T10:00:{2 * i + 1:02d}Z")))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(rows))


def _check(home, sid: str, stored=STORED, new=NEW) -> None:
    wait_store_processes_gone(home)
    mine = [t[3] for t in sorted(turns(home)) if t[0] == sid and t[2] == "user"]
    assert mine == stored, mine   # base: "Sorry, I mean zebra-plum-992" (and Hunter3x9); the 4th kept as typed
    assert "I mean" not in _served(home, new)


def test_the_next_prompts_take_back_of_a_sealed_statement_is_withheld_by_the_prompt_hook(tmp_path):
    home, _cwd, prompt = _sealed(tmp_path)
    sid = str(uuid.uuid4())
    assert "value withheld" in prompt(PROMPTS[0], sid)
    for words in PROMPTS[1:]:
        prompt(words, sid)
    _check(home, sid)


def test_the_stop_hooks_sync_and_mem_import_withhold_the_next_prompts_take_back(tmp_path):
    home, cwd, _prompt = _sealed(tmp_path)
    sid = str(uuid.uuid4())       # the Stop hook's sync of a transcript the prompt hook never saw
    tp = tmp_path / "t" / f"{sid}.jsonl"
    _transcript(tp, sid, str(cwd))
    rc, _out, _err, _s = run_hook(home, payload("Stop", sid, tp, cwd=str(cwd)))
    assert rc == 0
    _check(home, sid)
    sid2 = str(uuid.uuid4())      # mem import claude-code of the same prompts
    _transcript(tmp_path / "cc" / "-dev-api" / f"{sid2}.jsonl", sid2, str(cwd))
    p = subprocess.run([sys.executable, "-m", "cmds", "import", "claude-code", str(tmp_path / "cc")],
                       env=hook_env(home), cwd=REPO, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    _check(home, sid2)


def test_a_password_corrected_in_the_next_prompt_is_redacted_by_every_capture_path(tmp_path):
    home, cwd, prompt = vault_project(tmp_path)   # (no sealed key)
    sid = str(uuid.uuid4())
    for words in PW:
        prompt(words, sid)
    _check(home, sid, PW_STORED, "Hunter3x9")
    pin = str(uuid.uuid4())       # a PIN's new value (no password's shape)
    prompt("my door pin is 4821", pin)
    prompt("Sorry, I mean 4822", pin)
    _check(home, pin, ["my door pin is [REDACTED:password-phrase]", "Sorry, I mean [REDACTED:password-phrase]"], "4822")
    nope = str(uuid.uuid4())      # a take-back core.text's lists now read ("Nope, X", "Whoops, X")
    for words in ("the vpn password is Hunter5x9", "Nope, Hunter6x9", "Whoops, Hunter7x9"):
        prompt(words, nope)
    _check(home, nope, ["the vpn password is [REDACTED:password-phrase]", "Nope, [REDACTED:password-phrase]",
                        "Whoops, [REDACTED:password-phrase]"], "Hunter6x9")
    sid2 = str(uuid.uuid4())      # the Stop hook's sync
    tp = tmp_path / "t" / f"{sid2}.jsonl"
    _transcript(tp, sid2, str(cwd), PW)
    rc, _out, _err, _s = run_hook(home, payload("Stop", sid2, tp, cwd=str(cwd)))
    assert rc == 0
    _check(home, sid2, PW_STORED, "Hunter3x9")
    sid3 = str(uuid.uuid4())
    _transcript(tmp_path / "cc" / "-dev-api" / f"{sid3}.jsonl", sid3, str(cwd), PW)
    p = subprocess.run([sys.executable, "-m", "cmds", "import", "claude-code", str(tmp_path / "cc")],
                       env=hook_env(home), cwd=REPO, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    _check(home, sid3, PW_STORED, "Hunter3x9")


def test_the_shared_take_back_phrases_read_nope_whoops_oh_wait_err():
    """core.text's lists (read by the statement rule, and so by the next prompt's line check above)."""
    from objstore.capture.statements import statement_of
    for back in ("Nope, 81", "Whoops, 81", "Oh wait, 81", "Err, 81"):
        assert statement_of(f"remember that the port is 80. {back}") == "the port is 81", back   # base: 80
    assert statement_of("remember that the port is 80. Nope.") is None       # taken back, no new value
