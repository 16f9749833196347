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


SAID = [  # (prompt, key name, the statement stored): the value the person meant, without what follows it
    ("remember that the web port is 8080. Actually, it's 8081, not 8080", "web-port", "the web port is 8081"),    # T1
    ("remember that the queue is q1. Actually, it's q2 now", "queue", "the queue is q2"),
    ("remember that the editor is vim. Actually, it's emacs, sorry", "editor", "the editor is emacs"),
    ("remember that the host is a1. Actually, it's a2. Can you update the docs?", "host", "the host is a2"),
    ("remember that the env is prod. Actually, it's staging \u2014 not prod", "env", "the env is staging"),
    ("remember that the queue size is 100. Actually, it's 200. Actually, it's 300", "queue-size", "the queue size is 300"),
    ("remember that the linter is ruff. Actually, it's not ruff, it's flake8", "linter", "the linter is flake8"),
    ("remember that the api port is 8080 and update the config", "api-port", "the api port is 8080"),       # T7
    ("remember that the ftp port is 21, then run the tests", "ftp-port", "the ftp port is 21"),
    ("remember that the db port is 5432 \u2014 please fix the tests", "db-port", "the db port is 5432"),
    ("remember that the amqp port is 5672; please restart the worker", "amqp-port", "the amqp port is 5672"),
    ("remember that the smtp port is 587 so use that in the mailer", "smtp-port", "the smtp port is 587"),
    ("remember that the redis host is cache-1 if that's ok", "redis-host", "the redis host is cache-1"),
    ("remember that the proxy port is 3128, can you update the config? Actually, it's 3129", "proxy-port",
     "the proxy port is 3129"),
    ("remember that the rack is r1. Wait, it's r2", "rack", "the rack is r2"),                              # T15
    ("remember that the tier is t1 (sorry, t2)", "tier", "the tier is t2"),
    ("remember that the vlan is 10. Hmm, no, 20", "vlan", "the vlan is 20"),
    ("remember that the node is n1. Typo: n2", "node", "the node is n2"),
    ("remember that the cell is c1. Let me correct that: c2", "cell", "the cell is c2"),
    ("remember that the mq host is mq1. Correction: mq2 is the host", "mq-host", "the mq host is mq2"),    # T17
    ("remember that the lb ip is 10.0.0.1. Correction: 10.0.0.2 for the lb ip", "lb-ip", "the lb ip is 10.0.0.2"),
]


def test_a_correction_or_a_request_after_the_value_stores_the_value_meant(tmp_path):
    """T1, T7, T15, T17: the key holds the value the person meant, once; no key named after the new value."""
    from tests.hooks._util import wait_store_processes_gone
    from tests.hooks.test_remember_cue33 import _Hooked
    s = _Hooked(tmp_path)
    for words, _name, _want in SAID:
        assert "Remembered as you asked" in s.prompt(words), words
    wait_store_processes_gone(s.store)
    got = {name: s.log(name) for _w, name, _want in SAID}
    assert got == {name: [want] for _w, name, want in SAID}    # base: 8080, q1, …, the requests kept, mq2 absent
    assert not [k for k in s.remembered() if k.rsplit("/", 1)[1] == "mq2"]


def test_a_verb_statement_naming_its_old_value_is_the_next_version(tmp_path):
    """T14: "… postgres 16, not 15" after "… postgres 15" is v2 of the same key (base: a hashed third key)."""
    from tests.hooks.test_remember_cue33 import _Hooked
    s = _Hooked(tmp_path)
    s.prompt("remember that the db runs postgres 15")
    s.prompt("remember that the db now runs postgres 16, not 15")
    keys = [k.rsplit("/", 1)[1] for k in s.remembered()]
    assert [k for k in keys if k.startswith("db-runs")] == ["db-runs"], keys   # (session 34: keyed by subject and verb)
    assert s.log("db-runs") == ["the db now runs postgres 16, not 15", "the db runs postgres 15"]
