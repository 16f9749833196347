"""Session 34 (lane seal34), test33b T8's rest: a password corrected after a
take-back said in words the redaction did not read kept the NEW (current)
password in the clear: a quoted passphrase ('Actually, it's "open sesame
please now"'), 'Nope, X', 'No, X', 'Oh wait, X', 'Err, X', 'Whoops, X',
'Update: X', 'Rather, X', ', or rather X', 'I meant to say X', a new
sentence 'Make that X' / "It's now X" / 'Should be X' / 'New one is X',
the take-back after a blank line, 'OLD... NEW actually'; and 'NEW not OLD',
'NEW instead of OLD' repeated the taken-back one.  Checked by ``redact``
and through real ``mem remember`` / ``mem get`` and prompt-hook processes
(``mem search`` serves neither value)."""

from __future__ import annotations

import subprocess
import sys
import uuid

import pytest

from tests.core._redaction_util import assert_redacted
from tests.hooks._util import REPO, hook_env, mem_runner, payload, run_hook, turns, wait_store_processes_gone

OLD, NEW = "Hunter2x9", "Hunter3x9"
SAID = "the db password is " + OLD
CORRECTED = [SAID + '. Actually, it\'s "open sesame please now"', SAID + ". Actually, it's \u201copen sesame please now\u201d",
             SAID + '. Sorry, I mean "open sesame please now"', 'the db password is "open sesame". Actually, it\'s '
             '"open sesame please now"', SAID + f". Nope, {NEW}", SAID + f". No, {NEW}", SAID + f". Oh wait, {NEW}",
             SAID + f". Err, {NEW}", SAID + f". Whoops, {NEW}", SAID + f". Update: {NEW}", SAID + f". Rather, {NEW}",
             SAID + f", or rather {NEW}", SAID + f". I meant to say {NEW}", SAID + f". Make that {NEW}",
             SAID + f". It's now {NEW}", SAID + f". Should be {NEW}", SAID + f". New one is {NEW}",
             SAID + f".\n\nSorry, I mean {NEW}", SAID + f".\n\n{NEW} I mean", SAID + f"... {NEW} actually",
             SAID + f". Actually it's {NEW} not {OLD}", SAID + f". Actually, it's {NEW} instead of {OLD}",
             SAID + f". Actually, it's {NEW}, {OLD} was the old one"]
SECRETS = (OLD, NEW, "open sesame")


@pytest.mark.parametrize("text", CORRECTED)
def test_the_corrected_password_and_the_old_one_named_again_are_redacted(text):
    assert_redacted(text[:40], text, SECRETS, rule="password-phrase")   # base: NEW (or OLD again) in the clear


def test_what_follows_a_password_that_is_no_new_value_is_kept():
    for text in (SAID + ". No, that was last year.", SAID + ". Update: the docs are wrong.", SAID + ". Rather long, I know.",
                 SAID + ". Should be fine now.", SAID + ". Actually it's the old one, not the new one."):
        red = assert_redacted(text[:40], text, (OLD,))
        assert red.split("]", 1)[1] == text.split(OLD, 1)[1], red


def test_mem_remember_the_prompt_hook_and_search_store_neither_value(tmp_path):
    store = tmp_path / "store"
    mem = mem_runner(store)
    mem("init")
    for i, text in enumerate(CORRECTED[:6]):
        mem("remember", f"project/t/n{i}", text)
        p = subprocess.run([sys.executable, "-m", "cmds", "get", f"project/t/n{i}"], text=True, capture_output=True,
                           env=hook_env(store), cwd=REPO, timeout=120)
        assert p.returncode == 0 and not any(s in p.stdout for s in SECRETS), p.stdout
    sid = str(uuid.uuid4())
    for text in CORRECTED[6:12]:
        rc, _out, err, _s = run_hook(store, payload("UserPromptSubmit", sid, None, prompt="remember that " + text))
        assert rc == 0, err
    wait_store_processes_gone(store)
    texts = [t[3] for t in turns(store)]
    assert sum("REDACTED" in t for t in texts) == 6, texts
    assert not any(s in t for t in texts for s in SECRETS), texts
    for word in (OLD, NEW):
        p = subprocess.run([sys.executable, "-m", "cmds", "search", word], text=True, capture_output=True,
                           env=hook_env(store), cwd=REPO, timeout=120)
        assert p.returncode in (0, 1) and word not in p.stdout, p.stdout
