"""Shell integration ('mem shell-init bash|zsh|fish'): the agent wrappers
start the agent even when mem is absent or broken, and the opt-in command
capture records real interactive shells (run on a pseudo-terminal) into the
store, never a command that starts with a space."""

from __future__ import annotations

import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cmds.shell_init import asset
from tests.hooks._util import REPO, hook_log, turns

SHELLS = ["bash", "zsh", "fish"]
MEM_BIN = Path(sys.executable).with_name("mem")


def _need(shell: str) -> str:
    exe = shutil.which(shell)
    if not exe:
        pytest.skip(f"{shell} is not installed")
    return exe


@pytest.mark.parametrize("shell", SHELLS)
def test_shell_init_prints_the_asset_and_it_parses(invoke, shell, monkeypatch):
    monkeypatch.setenv("MEM_HOME", str(Path.home() / ".mem"))       # the default store
    out = invoke("shell-init", shell).stdout
    assert out == asset(shell).read_text()
    assert "MEM_SHELL_CAPTURE" in out and "claude" in out and "codex" in out
    exe = _need(shell)
    p = subprocess.run([exe, "-n", str(asset(shell))], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def _fake(bin_dir: Path, name: str, body: str) -> None:
    p = bin_dir / name
    p.write_text("#!/bin/sh\n" + body)
    p.chmod(0o755)


def _run_wrapper(shell: str, bin_dir: Path, tmp: Path) -> subprocess.CompletedProcess:
    src = asset(shell)
    script = {"bash": f'eval "$(cat {src})"; claude --flag "two words"; echo "rc=$?"',
              "zsh": f'eval "$(cat {src})"; claude --flag "two words"; echo "rc=$?"',
              "fish": f'cat {src} | source; claude --flag "two words"; echo "rc=$status"'}[shell]
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp)}
    return subprocess.run([_need(shell), "-c", script], capture_output=True, text=True, env=env, timeout=60)


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("mem", ["absent", "broken", "working"])
def test_agent_wrapper_always_starts_the_agent(tmp_path, shell, mem):
    _need(shell)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "mem.log"
    _fake(bin_dir, "claude", 'echo "agent ran with: $*"\nexit 3\n')
    if mem == "broken":
        _fake(bin_dir, "mem", 'echo "Traceback: boom" >&2\nexit 1\n')
    elif mem == "working":
        _fake(bin_dir, "mem", f'echo "$*" >> {log}\n')
    p = _run_wrapper(shell, bin_dir, tmp_path)
    assert "agent ran with: --flag two words" in p.stdout
    assert "rc=3" in p.stdout                      # the agent's exit status comes through
    if mem == "absent":
        assert "mem: not found" in p.stderr
    elif mem == "broken":
        assert "mem: not working" in p.stderr
    else:
        assert p.stderr == ""
        end = time.monotonic() + 60                # the catch-up runs in the background, 2 s later
        while time.monotonic() < end and "hook catch-up" not in (log.read_text() if log.exists() else ""):
            time.sleep(0.2)
        assert "hook catch-up" in log.read_text()


PROMPT = "MEMREADY> "     # the prompt the shells under test show: each command is typed once it is back


def interactive_shell(shell: str, exe: str, home: Path, store: Path) -> tuple[dict, list[str]]:
    """The environment and argv of an interactive ``shell`` (bash, zsh,
    fish; ``exe`` its path) whose rc file in ``home`` evals ``mem
    shell-init`` and shows :data:`PROMPT`, capturing into ``store``."""
    env = {"PATH": f"{MEM_BIN.parent}:/usr/bin:/bin", "HOME": str(home), "TERM": "xterm",
           "MEM_HOME": str(store), "MEM_SHELL_CAPTURE": "1", "PYTHONPATH": str(REPO)}
    if shell == "bash":
        (home / "rc").write_text(f'eval "$(mem shell-init bash)"\nPS1={PROMPT!r}\n')
        argv = [exe, "--rcfile", str(home / "rc"), "-i"]
    elif shell == "zsh":
        (home / ".zshrc").write_text(f'eval "$(mem shell-init zsh)"\nPROMPT={PROMPT!r}\nRPROMPT=\n')
        env["ZDOTDIR"] = str(home)
        argv = [exe, "-i"]
    else:
        (home / ".config" / "fish").mkdir(parents=True)
        (home / ".config" / "fish" / "config.fish").write_text(
            f"mem shell-init fish | source\nset -g fish_greeting\nfunction fish_prompt; printf '%s' {PROMPT!r}; end\n")
        env["XDG_CONFIG_HOME"] = str(home / ".config")
        argv = [exe, "-i"]
    return env, argv


def _pty_session(argv: list[str], env: dict, commands: list[str], typed=None) -> str:
    """Run an interactive shell on a pseudo-terminal; type each of
    ``commands`` once the shell shows its prompt (:data:`PROMPT`) again,
    then call ``typed()`` (when given) and ``exit``.  No fixed pauses: a
    loaded machine may take seconds to start the shell (its rc file runs
    ``mem shell-init``) or to run a command."""
    pid, fd = pty.fork()
    if pid == 0:                                   # pragma: no cover - the child
        os.execve(argv[0], argv, env)
    out = b""

    def read_until_prompts(n: int, t: float = 60, quiet: float = 0.3) -> None:
        """Read until the prompt has been shown ``n`` times in all and the
        shell has then stayed quiet for ``quiet`` s, or ``t`` s at most."""
        nonlocal out
        end = time.monotonic() + t
        last = time.monotonic()
        while time.monotonic() < end:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    return
                last = time.monotonic()
            elif out.count(PROMPT.encode()) >= n and time.monotonic() - last >= quiet:
                return
        raise AssertionError(f"the shell did not show its prompt {n} times within {t} s:\n"
                             + out.decode("utf-8", "replace"))
    read_until_prompts(1)
    for i, c in enumerate(commands):
        os.write(fd, (c + "\r").encode())
        read_until_prompts(i + 2)
    if typed is not None:
        typed()
    os.write(fd, b"exit\r")
    end = time.monotonic() + 60
    while time.monotonic() < end:                  # read to the end, so the shell never blocks on its output
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    os.waitpid(pid, 0)
    os.close(fd)
    return out.decode("utf-8", "replace")


def _capturing_shell(tmp_path: Path, shell: str) -> tuple[Path, dict, list[str]]:
    """(store, environment, argv) of an interactive ``shell`` capturing into
    ``tmp_path/store`` (:func:`interactive_shell`); skips where the shell or
    the mem script is missing."""
    exe = _need(shell)
    if not MEM_BIN.exists():
        pytest.skip("the mem script is not installed next to this Python")
    home = tmp_path / "shellhome"
    home.mkdir()
    return (tmp_path / "store", *interactive_shell(shell, exe, home, tmp_path / "store"))


@pytest.mark.parametrize("shell", SHELLS)
def test_shell_command_capture(tmp_path, shell):
    store, env, argv = _capturing_shell(tmp_path, shell)
    work = tmp_path / "work dir"
    work.mkdir()
    _pty_session(argv, env, [f"cd '{work}'", "echo hello-capture", " echo secret-with-space", "false",
                             "export PASSWORD_URL=postgres://u:hunter2secret@db/x", "sleep 0.3"])
    end = time.monotonic() + 60
    want = 5
    while time.monotonic() < end:
        got = turns(store) if (store / "config").exists() else []
        if len(got) >= want:
            break
        time.sleep(0.3)
    got = turns(store)
    texts = [x[3] for x in got]
    why = (texts, hook_log(store))      # (a record given up shows in the hook log: StoreLocked, HookTimeout)
    assert all(x[0].startswith("shell-") for x in got) and len({x[0] for x in got}) == 1
    assert any(t.startswith("$ echo hello-capture\n[exit 0,") and str(work) in t for t in texts), why
    assert any(t.startswith("$ false\n[exit 1,") for t in texts), why
    assert not any("secret-with-space" in t for t in texts)
    assert not any("hunter2secret" in t for t in texts)       # redacted before the write
    assert all(x[2] == "user" for x in got)


@pytest.mark.parametrize("shell", SHELLS)
def test_a_shells_commands_are_stored_in_the_order_they_were_typed(tmp_path, shell):
    """test25 T4: each command's record is its own background writer, and
    they were stored in the order they got the store lock (bash: 1 2 6 5 4 3,
    zsh reversed).  Here the writers all queue on the lock, held while the
    commands are typed; each is numbered by the shell (--seq) and stored
    after the one before it."""
    from objstore.memory.opening import open_store
    store, env, argv = _capturing_shell(tmp_path, shell)
    words = [f"echo order-{shell}-{i}" for i in range(1, 5)]
    s = open_store(store, create=True)
    held = [s.lock("test: the writers queue")]
    held[0].__enter__()

    def release() -> None:      # once the commands are typed (the writers are queued), before the shell exits
        if held:
            # held past a writer's wait for the lock, as a long import or a loaded machine holds it: the
            # records wait in the spool and are stored in order once it is free (test27b X5, test27 V12)
            from cmds._hookshell import SHELL_LOCK_WAIT_S
            time.sleep(SHELL_LOCK_WAIT_S + 1)
            held.pop().__exit__(None, None, None)
    try:
        _pty_session(argv, env, words, typed=release)
    finally:
        release()
        s.close()
    seq_dir = store / "cache" / "shell-seq"     # written by each writer after its turn, under the lock
    end = time.monotonic() + 90
    while time.monotonic() < end and (len(turns(store)) < len(words) or not any(
            p.read_bytes() in (b"4\n", b"5\n") for p in (seq_dir.iterdir() if seq_dir.exists() else ()))):
        time.sleep(0.2)
    got = [t[3].split("\n")[0] for t in sorted(turns(store), key=lambda t: t[1])]
    # (fish records the final `exit` too: numbered 5, it comes after the 4 when it lands)
    assert got[:4] == [f"$ {w}" for w in words] and got[4:] in ([], ["$ exit"]), (got, hook_log(store))
    sid = {t[0] for t in turns(store)}.pop()
    assert (seq_dir / sid).read_bytes() in (b"4\n", b"5\n")


@pytest.mark.parametrize("shell", SHELLS)
def test_setup_with_a_custom_store_writes_a_line_that_carries_it(tmp_path, shell):
    """Re-attack defect 8: after `MEM_HOME=~/custom-store mem setup` the rc line was the
    default one, so the integration's catch-up and `mem hook shell` wrote to ~/.mem."""
    exe = _need(shell)
    if not MEM_BIN.exists():
        pytest.skip("the mem script is not installed next to this Python")
    home = tmp_path / "h"
    home.mkdir()
    store = home / "custom store"
    env = {"PATH": f"{MEM_BIN.parent}:/usr/bin:/bin", "HOME": str(home), "SHELL": exe, "PYTHONPATH": str(REPO),
           "MEM_HOME": str(store), "CLAUDE_CONFIG_DIR": str(home / ".claude"), "ZDOTDIR": str(home),
           "XDG_CONFIG_HOME": str(home / ".config")}
    p = subprocess.run([str(MEM_BIN), "setup", "--no-hooks", "--shell", shell], env=env, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    rc = {"bash": home / ".bashrc", "zsh": home / ".zshrc", "fish": home / ".config" / "fish" / "config.fish"}[shell]
    assert str(store) in rc.read_text()
    del env["MEM_HOME"]                      # a new shell: only the rc line knows the store
    show = {"bash": "declare -f __mem_agent", "zsh": "functions __mem_agent", "fish": "functions __mem_agent"}[shell]
    src = f"source '{rc}'; {show}"
    out = subprocess.run([exe, "-c", src], env=env, capture_output=True, text=True, timeout=60).stdout
    assert "hook catch-up" in out and str(store) in out, out
    body = subprocess.run([str(MEM_BIN), "--home", str(store), "shell-init", shell], env=env,
                          capture_output=True, text=True, timeout=60).stdout
    assert all(str(store) in ln for ln in body.splitlines()
               if not ln.lstrip().startswith("#") and ("mem hook" in ln or "mem import" in ln)), body
    (tmp_path / "init").write_text(body)
    assert subprocess.run([exe, "-n", str(tmp_path / "init")], capture_output=True).returncode == 0
    p = subprocess.run([str(MEM_BIN), "setup", "--undo", "--no-hooks", "--shell", shell],
                       env=dict(env, MEM_HOME=str(store)), capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and not rc.exists(), p.stderr   # setup made it, nothing else is in it (W11)


def test_a_line_run_twice_in_one_second_is_stored_twice(tmp_path):
    """test26b W3: fish's start times are whole seconds, and a line run twice
    in one second had one source (``sh:<start>:<hash>``): the second was
    dropped.  A numbered record's source holds its number; a repeat call of
    one record (the same number) still stores nothing."""
    store = tmp_path / "s"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(MEM_HOME=str(store), MEM_SHELL_CAPTURE="1", HOME=str(tmp_path))
    for seq in (1, 2, 2):
        p = subprocess.run([sys.executable, "-m", "cmds", "hook", "shell", "--session", "fishy-1", "--cwd",
                            str(tmp_path), "--status", "0", "--start", "1767225600000", "--duration", "5",
                            "--seq", str(seq)], input="make", env=env, cwd=REPO, capture_output=True, text=True,
                           timeout=120)
        assert p.returncode == 0, p.stderr
    got = [t[3].split("\n")[0] for t in turns(store)]
    assert got == ["$ make", "$ make"], got
