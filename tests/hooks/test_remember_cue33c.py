"""Session 33 (lane cue33c): a correction in one prompt, as the person meant
it (test33b).

T8: a corrected password after "Sorry, I mean X", "Wait, it's X", "Er, X",
"(sorry, X)", "Actually, make that X", "Actually, the new one is X",
"Korrektur: X" was captured in the clear, and "… it's X, not <old>" repeated
the taken-back one in the clear.
T9: a sealed key's correction after a blank line was captured in the clear
right after the hook said the prompt was kept with the value withheld.
Real ``mem hook claude-code`` processes, read back from the store's turns,
``mem log`` and ``mem search``."""

from __future__ import annotations

import subprocess
import sys

from tests.hooks._util import REPO, hook_env, turns

OLD, NEW = "Hunter2x9", "Hunter3x9"

CORRECTED = [  # (prompt, the key the statement names)
    (f"remember that the db password is {OLD}. Sorry, I mean {NEW}", "db-password"),
    (f"remember that the api password is {OLD}. Wait, it's {NEW}", "api-password"),
    (f"remember that the vpn password is {OLD}. Er, {NEW}", "vpn-password"),
    (f"remember that the ftp password is {OLD} (sorry, {NEW})", "ftp-password"),
    (f"remember that the smtp password is {OLD}. Actually, make that {NEW}", "smtp-password"),
    (f"remember that the ssh password is {OLD}. Actually, the new one is {NEW}", "ssh-password"),
    (f"remember that the git password is {OLD}. Actually it's {NEW}, not {OLD}", "git-password"),
    (f"remember that the staging db password is {OLD}. Sorry, I mean {NEW} \u2014 can you update the .env?", None),
    (f"das Passwort ist {OLD}. Korrektur: {NEW}", None),
]


def _search(store, word: str) -> str:
    p = subprocess.run([sys.executable, "-m", "cmds", "search", word], text=True, capture_output=True,
                       env=hook_env(store), cwd=REPO, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    return p.stdout


def test_a_password_corrected_in_other_words_is_redacted_in_the_turn_the_fact_and_the_index(tmp_path):
    from tests.hooks._util import wait_store_processes_gone
    from tests.hooks.test_remember_cue33 import _Hooked
    s = _Hooked(tmp_path)
    for words, _key in CORRECTED:
        s.prompt(words)
    wait_store_processes_gone(s.store)
    texts = [t[3] for t in turns(s.store) if "Hunter" in t[3] or "REDACTED" in t[3]]
    assert len(texts) >= len(CORRECTED), texts
    assert not any(v in t for t in texts for v in (OLD, NEW)), texts   # base: Hunter3x9 (and the "not" Hunter2x9)
    for _words, key in CORRECTED:
        if key:
            for body in s.log(key):
                assert OLD not in body and NEW not in body, (key, body)
    assert NEW not in _search(s.store, NEW) and OLD not in _search(s.store, OLD)


def test_a_sealed_keys_correction_after_a_blank_line_is_withheld(tmp_path):
    """T9: the correction opens a later line after a blank one: withheld as
    the take-back on the very next line is; the lines that are no take-back stay."""
    from tests.hooks._util import wait_store_processes_gone
    from tests.hooks.test_remember_sealed_key import _sealed_store, _texts
    home, _cwd, prompt = _sealed_store(tmp_path)
    said = prompt("remember that the db host is pg-zqx-881\n\nCorrection: the db host is pg-zqx-882\n\nthe tests are slow")
    assert "value withheld" in said, said
    wait_store_processes_gone(home)
    texts = _texts(home)
    assert not any("pg-zqx-88" in t for t in texts), texts   # base: "Correction: the db host is pg-zqx-882"
    assert any("the tests are slow" in t for t in texts), texts
