"""Credential formats that reached the store in clear until session 18
(tester finding U10): age identities (``AGE-SECRET-KEY-1`` + 58 Bech32
characters: mem's own sync key and vault identity are such keys, and
``AGE-PLUGIN-<NAME>-1…`` plugin identities), PyPI API tokens
(``pypi-AgEIcHlwaS5vcmc…``, a macaroon) and Doppler tokens (``dp.st.``,
``dp.pt.``, …).  Each is redacted by its rule on every capture path, refused
in a name, and the look-alikes (an age *recipient*, the bare prefixes) stay
as typed.  Every value here is fake (random characters of the format)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from objstore.core.errors import InvalidInput
from objstore.core.redact import check_name, name_hits
from tests.cmds._credentials import (assert_none_stored, assert_scan_finds_nothing, check_kept, check_redacted,
                                     import_cases, run_prompt_hooks, run_shell_hook)
from tests.hooks._util import REPO, asst, hook_env, line, tool_result, tool_use, user

AGE_KEY = "AGE-SECRET-KEY-10HYYSQJG0Y3SCTEZNL0K2X9C3Y5MKDTNZTZNYF9RMQC3U0652ZKSG3ALF8"
AGE_PLUGIN = "AGE-PLUGIN-YUBIKEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQS6WGJZF"
PYPI = "pypi-AgEIcHlwaS5vcmcCJGE0ZTBhNzZmLWQ2ZjQtNDkzMS04OWEyLTExYTk2ZDJmYTJlZQACKlszLCJkZjY2"
TESTPYPI = "pypi-AgENdGVzdC5weXBpLm9yZwIkMmRiNDEyYjAtZmFrZS00ZDRmLWE3NjUtMGNkZGY4ZTNhNGQ5AAIqWzMsImZha2Ui"
DOPPLER_ST = "dp.st.dev.a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0"
DOPPLER_PT = "dp.pt.FAKEc3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0uV"

CASES = [
    (f"identity: {AGE_KEY}", AGE_KEY, "age-secret-key"),
    (f"export SOPS_AGE_KEY={AGE_KEY}", AGE_KEY, "age-secret-key"),
    (f"# created: 2026-12-03T22:00:00Z\n# public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p\n"
     f"{AGE_KEY}\n", AGE_KEY, "age-secret-key"),                                    # age-keygen's output
    (f"age-plugin-yubikey --identity\n{AGE_PLUGIN}", AGE_PLUGIN, "age-secret-key"),
    (f"twine upload -u __token__ -p {PYPI} dist/*", PYPI, "pypi-token"),
    (f"[testpypi]\n  username = __token__\n  password = {TESTPYPI}", TESTPYPI, "pypi-token"),
    (f"note: {DOPPLER_ST}", DOPPLER_ST, "doppler-token"),
    (f"doppler run --token {DOPPLER_PT} -- npm start", DOPPLER_PT, "doppler-token"),
]

LOOKALIKES = [
    "the recipient is age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p (a public key)",
    "an identity starts AGE-SECRET-KEY-1 and AGE-PLUGIN-YUBIKEY-1 (see the age spec)",
    "pip install pypi-simple; pypi-AgEIcHlwaS5vcmc is the prefix of a pypi.org token",
    "dp.st is doppler's service token prefix; dp.pt. too; see dp.audit.log",
]


@pytest.mark.parametrize("text,secret,rule", CASES)
def test_the_token_is_redacted_by_its_rule(text, secret, rule):
    check_redacted(text, secret, rule)


@pytest.mark.parametrize("text", LOOKALIKES)
def test_lookalikes_are_kept(text):
    check_kept(text)


@pytest.mark.parametrize("name", [f"project/x/{AGE_KEY}", f"project/x/{PYPI}", f"project/x/{DOPPLER_ST}"])
def test_a_name_holding_the_token_is_refused(name):
    assert name_hits(name)
    with pytest.raises(InvalidInput) as e:
        check_name(name)
    assert name.rsplit("/", 1)[-1] not in str(e.value) + str(e.value.hint or "")


def _mem(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=120)


def test_remember_stores_none_of_them(tmp_path):
    # the tester's reproduction: mem remember project/f/w "identity: AGE-SECRET-KEY-1…"; mem get project/f/w
    env = hook_env(tmp_path / "store")
    for i, (text, secret, rule) in enumerate(CASES):
        p = _mem(env, "remember", f"project/f/w{i}", text)
        assert p.returncode == 0 and secret not in p.stdout + p.stderr, p.stdout + p.stderr
        g = _mem(env, "get", f"project/f/w{i}")
        assert g.returncode == 0 and secret not in g.stdout and f"[REDACTED:{rule}]" in g.stdout, g.stdout
    assert_scan_finds_nothing(env, AGE_KEY, "--no-remotes")


def test_the_prompt_and_shell_hooks_store_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store, MEM_SHELL_CAPTURE="1")
    batches = ["\n".join(t for t, _s, _r in CASES[i::2]) for i in range(2)] + ["\n".join(LOOKALIKES)]
    run_prompt_hooks(store, env, "U10", [f"{text}\n#{i}" for i, text in enumerate(batches)])
    for i, text in enumerate(batches):
        run_shell_hook(env, "shell-u10", i, text)
    assert_none_stored(store, CASES, LOOKALIKES)


def test_a_transcript_import_stores_none_of_them(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    import_cases(tmp_path / "t.jsonl", env, CASES, LOOKALIKES, "2026-01-16")
    assert_none_stored(store, CASES, LOOKALIKES)


def test_mems_own_sync_key_export_is_not_captured(tmp_path):
    """The tester's capture case: an agent prints mem's sync key (the one
    that decrypts every remote) with ``cat`` of the exported file; it came
    back as the Bash tool result of an imported session.  It is stored
    redacted by the age-secret-key rule (a result of ``mem remote key export
    -o -`` itself is withheld whole: tests/capture/test_sealed_output_capture.py)."""
    store = tmp_path / "store"
    env = hook_env(store)
    rem = tmp_path / "rem"
    rem.mkdir()
    for args in (["remember", "project/r/k", "v"], ["remote", "add", "origin", str(rem)], ["push"]):
        assert _mem(env, *args).returncode == 0        # the first push makes the sync key
    p = _mem(env, "remote", "key", "export", "-o", "-")
    assert p.returncode == 0, p.stderr
    key = next(w for w in p.stdout.split() if w.startswith("AGE-SECRET-KEY-1"))
    sid = "39393939-2222-3333-4444-555555555555"
    proj = tmp_path / "projects" / "-tmp-p"
    proj.mkdir(parents=True)
    (proj / f"{sid}.jsonl").write_bytes(
        line(user("u1", "print my sync key", sid=sid))
        + line(asst("a1", "m1", [tool_use("toolu_1", command="cat ~/backup/mem-sync.key")], sid=sid,
                    ts="2026-01-05T10:00:02Z"))
        + line(user("u2", [tool_result("toolu_1", p.stdout)], sid=sid, ts="2026-01-05T10:00:03Z")))
    r = _mem(env, "import", "claude-code", str(proj))
    assert r.returncode == 0, r.stderr
    shown = _mem(env, "show", sid[:8])
    assert "[REDACTED:age-secret-key]" in shown.stdout and key not in shown.stdout, shown.stdout + shown.stderr
    # the key's own file is the one place it belongs; no object, pack, index segment or cache holds it
    holders = [f.relative_to(store).as_posix() for f in store.rglob("*")
               if f.is_file() and key.encode() in f.read_bytes()]
    assert holders == ["sync-key"], holders
