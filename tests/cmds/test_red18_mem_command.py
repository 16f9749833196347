"""Every way to run mem, and every argument of it that carries a secret, is
redacted from a captured command line (the ``mem-command`` rule, red18; the
rule of test17 T10 took only ``mem remember|forget|scan`` typed as ``mem``):

* mem run through a variable (``$M``, ``"$MEM"``, ``${MEM_BIN}``), as
  ``python -m cmds``, after ``env VAR=x``;
* what feeds standard input to ``mem remember KEY -`` (a secret), ``mem
  sealed import KEY -`` and ``--passphrase-file -``: ``echo`` / ``printf``
  before it in the pipeline, a here-string, a here-document, ``<(echo X)``;
* a VALUE starting with ``-`` (remember takes it as the value);
* the ``echo X > f`` before ``--passphrase-file f`` or ``< f`` (test18 U1,
  U9), and what ``age`` encrypts from the same line (rule ``age-input``).

A value that only expands a variable or reads a file, a ``cat FILE |`` feed
and a non-mem ``$DOCKER scan image`` are kept as typed.  Through
``redact``, a real interactive bash with the shell capture on, ``mem hook
shell`` and the import of a Bash tool call.  Every value here is fake."""

from __future__ import annotations

import json
import time

import pytest

from objstore.core.redact import redact
from tests.cmds._credentials import store_commands
from tests.hooks._util import hook_log, turns

# (command line, the secret it carries)
CASES = [
    ("M=mem; $M remember user/bank/pin 4471-9902x --sensitivity secret", "4471-9902x"),
    ('"$MEM" remember project/api/github-token abc123def456ghi789', "abc123def456ghi789"),
    ("${MEM_BIN} forget --match walrus-orchid-77 --yes", "walrus-orchid-77"),
    ('python -m cmds remember user/wifi "Kestrel Lantern 2291" --sensitivity secret', "Kestrel Lantern 2291"),
    ("env MEM_HOME=/tmp/s mem scan lynx-copper-8", "lynx-copper-8"),
    ("echo heron-slate-9 | mem remember user/bank/pin - --sensitivity secret", "heron-slate-9"),
    ("$ echo kite-moss-31 | mem remember user/bank/pin - --sensitivity secret", "kite-moss-31"),
    ("printf '%s\\n' 'owl-pass-7733' | age -a -r \"$(mem vault recipient)\" | mem sealed import user/bank/pin -",
     "owl-pass-7733"),
    ("echo tapir-violet-93-long | mem vault init --passphrase-file -", "tapir-violet-93-long"),
    ("mem seal user/k --passphrase-file <(printf ibis-amber-4100)", "ibis-amber-4100"),
    ("mem remember project/x/db-password - <<< quail-ember-55", "quail-ember-55"),
    ("mem remember user/k -Kx9-dash-value --sensitivity secret", "-Kx9-dash-value"),
    # test18 U1 / U9 (1): the vault passphrase or a sealed value given on the same line
    ("printf 'Velvet-Otter-Harbor-42' | mem sealed show user/bank/pin --passphrase-file -", "Velvet-Otter-Harbor-42"),
    ("echo 'Amber-Finch-Lodge-77' > pp.txt && mem vault init --passphrase-file pp.txt", "Amber-Finch-Lodge-77"),
    ("mem unseal user/bank/pin --passphrase-file <(printf %s Coral-Heron-Gate-19)", "Coral-Heron-Gate-19"),
    ("echo 5151-2727 > v.txt; mem remember user/bank/pin6 - --sensitivity secret < v.txt", "5151-2727"),
]
#: test18 U1 addendum: what age(1) encrypts (the value a person seals), the rule age-input
AGE_CASES = [
    ("echo 'Velvet 42 otter' | age -r age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p -o f.age",
     "Velvet 42 otter"),
    ("age -p -o f.age <<< kite-moss-3131", "kite-moss-3131"),
    ("echo lynx-amber-6262 > pin.txt && age -r age1xyz -o pin.age pin.txt", "lynx-amber-6262"),
]
#: a here-document: not typed into the interactive shell (its lines are no command line of their own)
HEREDOC = ("mem remember user/k - --sensitivity secret <<'EOF'\nfalcon-rust-12\nEOF", "falcon-rust-12")
KEPT = [
    "$DOCKER scan myimage",
    "echo hello-kept > notes.txt; mem remember project/x/note - < notes.txt",
    "echo ciphertext-kept | age -d -i key.txt",
    "cat pin.txt | age -r age1xyz > pin.age",
    'mem remember project/x/github-token "$GITHUB_TOKEN"',
    'mem remember project/x/github-token "$(cat ~/.tok)"',
    "cat pw.txt | mem vault init --passphrase-file -",
    "echo hello-kept | mem remember project/x/note -",
    "mem recall walrus-kept",
]


def _bash_tool_call(command: str) -> str:
    """An agent's Bash tool call as the importer stores it (``[tool_use NAME] <input as JSON>``)."""
    return "[tool_use Bash] " + json.dumps({"command": command, "description": "run it"}, sort_keys=True)


@pytest.mark.parametrize("command, secret", CASES + [HEREDOC] + AGE_CASES)
def test_the_secret_of_a_mem_command_line_is_redacted(command, secret):
    rule = "age-input" if (command, secret) in AGE_CASES else "mem-command"
    for text in (command, _bash_tool_call(command)):
        r = redact(text)
        assert secret.lower() not in r.text.lower() and f"[REDACTED:{rule}]" in r.text, r.text
        assert redact(r.text).text == r.text                          # a second pass takes nothing
        assert r.text.count("[REDACTED:") == 1, r.text                # only the secret: the rest as typed


def test_only_the_secret_goes():
    # the words around it stay: the format of printf, the subshell's ')', the delimiter of a here-document
    assert redact("printf '%s\\n' 'owl-pass-7733' | mem sealed import user/bank/pin -").text == \
        "printf '%s\\n' [REDACTED:mem-command] | mem sealed import user/bank/pin -"
    assert redact("mem seal user/k --passphrase-file <(printf ibis-amber-4100)").text == \
        "mem seal user/k --passphrase-file <(printf [REDACTED:mem-command])"
    assert redact(HEREDOC[0] + "\nls").text == \
        "mem remember user/k - --sensitivity secret <<'EOF'\n[REDACTED:mem-command]\nEOF\nls"
    assert redact(_bash_tool_call(HEREDOC[0])).text == \
        _bash_tool_call(HEREDOC[0].replace(HEREDOC[1], "[REDACTED:mem-command]"))


@pytest.mark.parametrize("command", KEPT)
def test_a_mem_command_line_without_a_secret_is_kept(command):
    for text in (command, _bash_tool_call(command)):
        assert redact(text).text == text


def test_mem_hook_shell_and_an_imported_bash_call_store_no_secret(tmp_path):
    cases = CASES + [HEREDOC]
    texts = store_commands(tmp_path, cases + AGE_CASES, KEPT, "2026-01-19")
    # each command three times (shell hook, the prompt, the Bash call); the look-alikes as typed
    assert texts.count("[REDACTED:mem-command]") >= 3 * len(cases) and texts.count("[REDACTED:age-input]") >= 9
    assert KEPT[0] in texts and "hello-kept" in texts and "ciphertext-kept" in texts


def test_a_real_bash_with_the_capture_on_stores_no_secret(tmp_path):
    from tests.hooks.test_hook_shell import MEM_BIN, _need, _pty_session, interactive_shell
    exe = _need("bash")
    if not MEM_BIN.exists():
        pytest.skip("the mem script is not installed next to this Python")
    store, home = tmp_path / "store", tmp_path / "shellhome"
    home.mkdir()
    env, argv = interactive_shell("bash", exe, home, store)
    # the commands run for real (most fail: no vault, no age, MEM unset): the capture records them all
    work = tmp_path / "work"                 # the files the commands write (pp.txt, v.txt) stay in it
    work.mkdir()
    typed = [f"cd '{work}'"] + [c for c, _s in CASES] + ["echo done-r18"]
    _pty_session(argv, env, typed)
    end = time.monotonic() + 120
    while time.monotonic() < end:
        texts = [t[3] for t in turns(store)] if (store / "config").exists() else []
        if any("done-r18" in t for t in texts) and len(texts) >= len(typed):
            break
        time.sleep(0.3)
    texts = [t[3] for t in turns(store)]
    why = (texts, hook_log(store))
    assert any(t.startswith("$ echo done-r18") for t in texts), why
    joined = "\n".join(texts)
    for _command, secret in CASES:
        assert secret not in joined, (secret, why)
    assert joined.count("[REDACTED:mem-command]") >= len(CASES) - 1, why   # (M=mem; … is one line)
