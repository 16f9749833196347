"""The misses of tests/core/test_redact_labels.py through real ``mem``
processes: ``mem remember`` (the README's own ``project/api/staging-password
"hunter2"``, a value under a key named for a credential, a password in a
note's prose) and ``mem import claude-code`` of a transcript that holds every
case; ``mem scan`` then finds no secret in any file of the store, and the
words around each are kept.  Every value here is fake."""

from __future__ import annotations

import subprocess
import sys

from objstore.memory.facts import current
from objstore.memory.opening import open_store
from tests.cmds._credentials import assert_none_stored, assert_scan_finds_nothing, import_cases
from tests.core.test_redact_labels import CASES, LOOKALIKES
from tests.hooks._util import REPO, hook_env


def _mem(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=120)


def test_the_readme_example_stores_no_password(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    p = _mem(env, "remember", "project/api/staging-password", "hunter2")
    assert p.returncode == 0 and "hunter2" not in p.stdout + p.stderr, p.stdout + p.stderr
    assert "warning: 1 credential(s) in the value were replaced" in p.stderr and "--sensitivity secret" in p.stderr
    g = _mem(env, "get", "project/api/staging-password")
    assert g.returncode == 0 and g.stdout.strip() == "[REDACTED:named-secret]", g.stdout + g.stderr
    assert_scan_finds_nothing(env, "hunter2", "--no-remotes")       # in no file of the store, in any encoding


def test_remember_redacts_a_password_in_a_note_and_keeps_a_note_about_one(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    written = {
        "project/api/staging-notes": "the password for the staging box is Xq7pLm2wZ9; host staging-7",
        "user/wifi-passphrase": "orange zebra quantum lamp",       # a passphrase under a credential name
        "project/db/password": "stored in 1Password under prod-db",  # a note about it, not the password
    }
    for key, value in written.items():
        p = _mem(env, "remember", key, value)
        assert p.returncode == 0, p.stderr
        assert ("warning" in p.stderr) == (key != "project/db/password"), p.stderr
    with open_store(store) as s:
        values = {k: current(s, k).fact.body for k in written}
    assert values == {"project/api/staging-notes": "the password for the staging box is [REDACTED:password-phrase]; "
                                                   "host staging-7",
                      "user/wifi-passphrase": "[REDACTED:named-secret]",
                      "project/db/password": "stored in 1Password under prod-db"}
    assert_scan_finds_nothing(env, "Xq7pLm2wZ9", "--no-remotes")


def test_a_transcript_import_stores_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    transcript = tmp_path / "t.jsonl"
    import_cases(transcript, env, CASES, LOOKALIKES, "2026-01-07")
    assert_none_stored(store, CASES, LOOKALIKES)
    transcript.unlink()      # the agent's own file holds them (scan reads it): what mem wrote must not
    assert_scan_finds_nothing(env, "correcthorsebattery", "--no-remotes")
