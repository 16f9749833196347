"""Shared checks of the credential tests (``test_fresh5_cli_passwords``,
``test_fresh6_more_passwords``, ``test_fresh7_more_credentials``): each
file lists its cases ``(text, secret, rule)`` and look-alikes; these run
them through ``redact`` and through real ``mem`` processes (the prompt
hook, a transcript import, ``mem scan``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from objstore.core.redact import redact
from tests.hooks._util import REPO, asst, line, payload, run_hook, tool_use, turns, user, wait_store_processes_gone
from tests.hooks._util import text as text_block


def check_redacted(text: str, secret: str, rule: str) -> None:
    """``secret`` leaves ``text`` as ``[REDACTED:rule]``, and redacting again changes nothing."""
    r = redact(text)
    assert secret not in r.text, r.text
    assert f"[REDACTED:{rule}]" in r.text, r.text
    assert redact(r.text).text == r.text            # idempotent


def check_kept(text: str) -> None:
    """A look-alike is stored as typed."""
    assert redact(text).text == text


def stored_texts(store: Path) -> str:
    return "\n".join(t[3] for t in turns(store))


def assert_none_stored(store: Path, cases, lookalikes=()) -> None:
    """The store's turns hold no secret of ``cases`` (each redacted) and the
    first part of each of the first three ``lookalikes`` as typed."""
    texts = stored_texts(store)
    assert texts.count("[REDACTED:") >= len(cases), texts
    for _text, secret, _rule in cases:
        assert secret not in texts, secret
    for look in lookalikes[:3]:
        assert look.split(";")[0] in texts        # the look-alikes reach the store as typed


def run_prompt_hooks(store: Path, env: dict, sid: str, prompts: list[str]) -> None:
    """One UserPromptSubmit hook process per prompt; waits (bounded) for the
    hook's detached child to store each one and end (its own budget, off the
    agent's path: an inline write under the hook's 2 s budget gave up on a
    loaded machine): the child indexes its turn after writing it, so a
    store scan that starts once the turn shows would miss what the index
    holds."""
    for prompt in prompts:
        rc, _out, err, _s = run_hook(store, payload("UserPromptSubmit", sid, None, prompt=prompt), env=env)
        assert rc == 0, err
        wait_store_processes_gone(store, timeout=120)


def import_cases(transcript: Path, env: dict, cases, lookalikes, day: str) -> None:
    """Write a Claude Code transcript in which the user types each case and
    the agent runs it, then the look-alikes; ``mem import`` it."""
    with open(transcript, "wb") as f:
        for i, (text, _secret, _rule) in enumerate(cases):
            ts = f"{day}T10:{i // 60:02d}:{i % 60:02d}Z"
            f.write(line(user(f"u{i}", text, ts=ts)))
            f.write(line(asst(f"a{i}", f"m{i}", [text_block("running it"), tool_use(f"tu{i}", command=text)], ts=ts)))
        f.write(line(user("u-look", "\n".join(lookalikes), ts=f"{day}T11:00:00Z")))
    p = subprocess.run([sys.executable, "-m", "cmds", "import", "claude-code", str(transcript)], capture_output=True,
                       text=True, env=env, cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr


def assert_scan_finds_nothing(env: dict, secret: str, *args: str) -> None:
    """``mem scan SECRET`` finds it in no file of the store."""
    p = subprocess.run([sys.executable, "-m", "cmds", "scan", *args, secret], capture_output=True, text=True,
                       env=env, cwd=REPO, timeout=120)
    assert p.returncode == 0 and "found nowhere" in p.stdout, p.stdout + p.stderr


def run_shell_hook(env: dict, session: str, i: int, command: str) -> None:
    """One ``mem hook shell`` process recording ``command`` as the i-th of ``session``."""
    p = subprocess.run([sys.executable, "-m", "cmds", "hook", "shell", "--session", session, "--cwd", "/tmp",
                        "--status", "0", "--start", str(1767225600000 + i * 1000), "--duration", "5", "--", command],
                       capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stderr


def store_commands(tmp_path: Path, cases, kept, day: str) -> str:
    """Each command line of ``cases`` (``(command, secret)``) recorded by
    ``mem hook shell`` (the shell capture) and typed by the user and run as
    an agent's Bash call in an imported transcript (:func:`import_cases`,
    ``kept`` after them); asserts no secret is stored and returns the
    store's turn texts."""
    from tests.hooks._util import hook_env
    store = tmp_path / "store"
    env = hook_env(store, MEM_SHELL_CAPTURE="1")
    for i, (command, _secret) in enumerate(cases):
        run_shell_hook(env, f"shell-{day}", i, command)
    import_cases(tmp_path / "t.jsonl", env, [(c, s, "mem-command") for c, s in cases], kept, day)
    texts = stored_texts(store)
    for _command, secret in cases:
        assert secret not in texts, secret
    return texts
