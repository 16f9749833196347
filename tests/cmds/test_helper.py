"""The resident helper (``mem helper``): the commands it runs print the same
bytes as without it; every failure of it falls back to the command's own
process; it never serves what another process changed or forgot since;
it refuses strangers and oversized requests, exits when idle or when its
store goes, and two starters make one helper.  Real processes, real sockets."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from importlib import resources
from pathlib import Path

import pytest

from cmds import _helperclient as hc
from tests.hooks._util import lock_held

REPO = Path(__file__).resolve().parents[2]
SAMPLE = Path(str(resources.files("cmds") / "data" / "sample-projects"))
SECRET = "quokkazebra-4417"


def _env(store: Path, helper: bool = True, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env["MEM_HOME"] = str(store)
    # the client imports this checkout's code from any working directory, as the helper does: from a
    # temporary cwd `python -m cmds` would import a non-editable install (CI's), whose code stamp differs
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    if not helper:
        env["MEM_NO_HELPER"] = "1"
    else:   # a loaded test machine may not schedule the helper within the default 0.5 s (10: the most it takes)
        env["MEM_HELPER_WAIT"] = "10"
    env.update(extra)
    return env


def run(store: Path, *args: str, helper: bool = True, input: bytes | None = None, env: dict | None = None,
        cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cmds", *args], input=input, capture_output=True,
                          env={**_env(store, helper), **(env or {})}, cwd=cwd or REPO, timeout=timeout)


def served(store: Path, *args: str, input: bytes | None = None, cwd: Path | None = None):
    """Run through the helper and check it was the helper that ran it: no
    store module was imported in the client (``-X importtime``)."""
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "cmds", *args], input=input, capture_output=True,
                       env=_env(store), cwd=cwd or REPO, timeout=60)
    lines = p.stderr.split(b"\n")
    imported = [ln for ln in lines if ln.startswith(b"import time:")]
    assert not any(b"objstore.core" in ln for ln in imported), "ran in the client, not in the helper"
    assert not any(b" click" in ln for ln in imported)
    err = b"\n".join(ln for ln in lines if not ln.startswith(b"import time:"))
    return p.returncode, p.stdout, err


@pytest.fixture(scope="module")
def base_store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("helper") / "store"
    env = _env(root, helper=False)
    for args in (["import", "claude-code", str(SAMPLE)],
                 ["remember", "project/p/port", "the api listens on port 5433"],
                 ["remember", "project/p/secret", f"the code is {SECRET} alpha"],
                 ["remember", "user/editor", "emacs with evil mode"]):
        subprocess.run([sys.executable, "-m", "cmds", *args], env=env, cwd=REPO, check=True, capture_output=True)
    return root


@pytest.fixture
def store(base_store, tmp_path) -> Path:
    dst = tmp_path / "hstore"
    shutil.copytree(base_store, dst, ignore=shutil.ignore_patterns("run"))
    return dst


class Helper:
    def __init__(self, store: Path, idle: float = 60, flags: tuple[str, ...] = (), env: dict | None = None) -> None:
        self.store = store
        self.proc = subprocess.Popen([sys.executable, *flags, "-m", "cmds", "helper", "serve", "--idle", str(idle)],
                                     env=env or _env(store), cwd=REPO, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            got = hc.connect(str(store), timeout=1.0)
            if got is not None:
                got[0].sock.close()
                return
            assert self.proc.poll() is None, self.proc.stderr.read()
            time.sleep(0.05)
        raise AssertionError("helper did not start")

    def stop(self) -> None:
        if self.proc.poll() is None:
            got = hc.connect(str(self.store), timeout=2.0)
            if got is not None:
                hc.send_op(got[0], b"S")
                got[0].frame(5.0)
                got[0].sock.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stderr.close()


@pytest.fixture
def helper(store):
    h = Helper(store)
    yield h
    h.stop()


FORWARDED = [
    ["get", "project/p/port"],
    ["get", "project/p/port", "--json"],
    ["get", "project/nope/x"],
    ["get", "bad-key"],
    ["--home", "{store}", "get", "user/editor"],
    ["recall", "--all-projects", "api", "port"],
    ["recall", "--all-projects", "--json", "-n", "5", "flaky", "fixture"],
    ["recall", "flaky"],
    ["recall", "--plain", "--all-projects", "emacs"],
    ["search", "flaky", "fixture"],
    ["search", "--json", "port"],
    ["search", "--exit-code", "nothingmatcheshere"],
    ["context"],
    ["context", "--json", "--project", "p"],
    ["context", "--prompt", "which port does the api listen on", "--project", "p"],
    ["recall", "--limit", "0", "x"],           # a usage error: click's text, through the fallback
    ["get", "--help"],                         # not forwarded at all
]


def test_same_output_with_and_without_helper(helper, store):
    for args in FORWARDED:
        args = [a.replace("{store}", str(store)) for a in args]
        plain = run(store, *args, helper=False)
        if "--help" in args or "0" in args:
            got = run(store, *args)
            assert (got.returncode, got.stdout, got.stderr) == (plain.returncode, plain.stdout, plain.stderr), args
            continue
        got = served(store, *args)
        assert got == (plain.returncode, plain.stdout, plain.stderr), args


def test_remember_same_output_and_stdin(helper, store):
    first = served(store, "remember", "project/p/new", "value one")
    assert first[0] == 0 and re.fullmatch(rb"wrote project/p/new v1 [0-9a-f]{12}\n", first[1])
    again_plain = run(store, "remember", "project/p/new", "value one", helper=False)
    again = served(store, "remember", "project/p/new", "value one")
    assert again == (again_plain.returncode, again_plain.stdout, again_plain.stderr)
    assert b"unchanged" in again[1]
    got = served(store, "remember", "project/p/piped", "-", input=b"from stdin\n")
    assert got[0] == 0
    assert run(store, "get", "project/p/piped", helper=False).stdout == b"from stdin\n"
    # a credential is redacted the same way, and the warning comes on stderr
    tok = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    got = served(store, "remember", "project/p/tok", f"token {tok}")
    assert b"warning:" in got[2] and tok.encode() not in run(store, "get", "project/p/tok", helper=False).stdout


def test_env_and_cwd_are_the_clients(helper, store, tmp_path):
    proj = tmp_path / "work" / "p"
    proj.mkdir(parents=True)
    run(store, "remember", "project/p/where", "in the p project", helper=False)
    plain = run(store, "context", "--json", helper=False, cwd=proj)
    got = served(store, "context", "--json", cwd=proj)
    assert got == (plain.returncode, plain.stdout, plain.stderr)
    assert json.loads(got[1])["project"] == "p"
    # an agent's write (CLAUDECODE in the client's environment) is agent_observed, not the helper's
    p = subprocess.run([sys.executable, "-m", "cmds", "remember", "user/shell", "zsh", "--json"], capture_output=True,
                       env=_env(store, CLAUDECODE="1"), cwd=REPO)
    assert p.returncode == 0
    log = run(store, "log", "user/shell", "--json", helper=False)
    assert json.loads(log.stdout)[0]["trust"] == "agent_observed"
    # and the helper's own environment did not keep it
    q = subprocess.run([sys.executable, "-m", "cmds", "remember", "user/pager", "less", "--json"], capture_output=True,
                       env=_env(store), cwd=REPO)
    assert q.returncode == 0
    assert json.loads(run(store, "log", "user/pager", "--json", helper=False).stdout)[0]["trust"] == "user_stated"


def _stored_session(store: Path, sid: str, seconds: float) -> bool:
    """Whether ``mem sessions`` lists ``sid`` within ``seconds`` (a capture the
    helper runs after its answer)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if sid.encode() in run(store, "sessions", "--json", helper=False).stdout:
            return True
        time.sleep(0.2)
    return False


def _hook_event(store: Path, sid: str, prompt: str, transcript: Path) -> bytes:
    return json.dumps({"session_id": sid, "transcript_path": str(transcript), "cwd": str(store.parent),
                       "hook_event_name": "UserPromptSubmit", "prompt": prompt}).encode()


def test_prompt_hook_same_output_and_captures(helper, store, tmp_path):
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("")
    prompt = "which port does the api listen on, project p"
    plain = run(store, "hook", "claude-code", helper=False, input=_hook_event(store, "s-plain", prompt, transcript),
                env={"MEM_HOOK_FORK": "0"})
    got = served(store, "hook", "claude-code", input=_hook_event(store, "s-helper", prompt, transcript))
    assert got[0] == plain.returncode == 0
    assert got[1] == plain.stdout
    # the capture ran in the helper after the answer (no fork there): the prompt is stored
    assert _stored_session(store, "s-helper", 60)
    # the other events run in the client's own process (SessionStart starts no second helper)
    start = json.dumps({"session_id": "s2", "cwd": str(store.parent), "hook_event_name": "SessionStart",
                        "source": "startup"}).encode()
    p = run(store, "hook", "claude-code", input=start)
    assert p.returncode == 0
    assert helper.proc.poll() is None


def test_an_event_naming_the_prompt_event_runs_in_the_client(helper, store):
    """The client parses no JSON: it sends the helper an event whose bytes
    hold "UserPromptSubmit", and the helper, which parses it, answers that
    event only.  A SessionStart whose text names it is sent back ("run it
    yourself") and runs in the client, printing what it prints without the
    helper."""
    start = json.dumps({"session_id": "s-named", "cwd": str(store.parent), "hook_event_name": "SessionStart",
                        "source": "startup", "note": "not a UserPromptSubmit"}).encode()
    plain = run(store, "hook", "claude-code", helper=False, input=start)
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "cmds", "hook", "claude-code"], input=start,
                       capture_output=True, env=_env(store), cwd=REPO, timeout=60)
    assert p.returncode == plain.returncode == 0
    assert p.stdout == plain.stdout
    assert b"| objstore.core" in p.stderr    # ran here, not in the helper
    assert helper.proc.poll() is None


def test_fallbacks_print_the_same(store, tmp_path):
    args = ("recall", "--all-projects", "--json", "port")
    plain = run(store, *args, helper=False)
    # no helper at all
    assert run(store, *args).stdout == plain.stdout
    # a dead socket (a helper killed without cleaning up)
    run_dir = store / "run"
    run_dir.mkdir(mode=0o700)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(run_dir / "helper.sock"))
    s.close()
    got = run(store, *args)
    assert (got.returncode, got.stdout, got.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    os.unlink(run_dir / "helper.sock")

    # a helper that accepts and never greets: the client runs it itself after HELLO_TIMEOUT_S
    # (the fake helpers hold every connection until the test ends: a client that waited for
    # them would hang; that the client was done while its connection was still held is what
    # is checked, not a time: a loaded machine stretches the client's own run)
    done = threading.Event()

    def fake(greet: bytes | None, seen: list, connected: list):
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(str(run_dir / "helper.sock"))
        srv.listen(4)
        srv.settimeout(60)

        def loop():
            try:
                while True:
                    c, _ = srv.accept()
                    connected.append(c)
                    if greet is not None:
                        c.sendall(greet)
                    try:
                        c.settimeout(30)
                        seen.append(c.recv(1 << 16))
                    except OSError:
                        pass
                    done.wait(600)
                    c.close()
            except OSError:
                return
        t = threading.Thread(target=loop, daemon=True)
        t.start()
        return srv

    def wait_for(cond, seconds: float = 30) -> bool:
        deadline = time.monotonic() + seconds
        while not cond() and time.monotonic() < deadline:
            time.sleep(0.05)
        return cond()

    try:
        seen: list = []
        connected: list = []
        srv = fake(None, seen, connected)
        got = run(store, *args, env={"MEM_HELPER_WAIT": "0.5"})    # (the tests' 10 s wait, back to the default)
        assert (got.returncode, got.stdout) == (plain.returncode, plain.stdout)
        assert connected and connected[0].fileno() != -1      # done while the helper still held it
        srv.close()
        os.unlink(run_dir / "helper.sock")

        # a helper of another code version: told to exit ("X"), the client runs it
        body = b"MEMH\x01H" + struct.pack(">IH", 1, 9) + b"other 1.0" + hc.store_identity(str(store))
        seen, connected = [], []
        srv = fake(struct.pack(">I", len(body)) + body, seen, connected)
        got = run(store, *args)
        assert (got.returncode, got.stdout) == (plain.returncode, plain.stdout)
        assert wait_for(lambda: seen), "the fake helper never heard from the client"
        assert seen[0].endswith(b"MEMH\x01X")
        srv.close()
        os.unlink(run_dir / "helper.sock")

        # a helper of this version that takes the prompt hook and never answers: the hook fails open, fast
        stamp = hc.source_stamp()
        body = b"MEMH\x01H" + struct.pack(">IH", 1, len(stamp)) + stamp + hc.store_identity(str(store))
        seen, connected = [], []
        srv = fake(struct.pack(">I", len(body)) + body, seen, connected)
        transcript = tmp_path / "t.jsonl"
        transcript.write_text("")
        got = run(store, "hook", "claude-code", input=_hook_event(store, "s9", "which port", transcript))
        assert got.returncode == 0 and got.stdout == b""
        assert connected and connected[0].fileno() != -1      # failed open while the helper still held it
        srv.close()
    finally:
        done.set()


def test_real_helper_of_another_version_exits(helper, store):
    got = hc.connect(str(store))
    assert got is not None
    hc.send_op(got[0], b"X")
    got[0].sock.close()
    helper.proc.wait(10)
    assert not (store / "run" / "helper.sock").exists()
    plain = run(store, "get", "project/p/port", helper=False)
    assert run(store, "get", "project/p/port").stdout == plain.stdout


def test_oversized_and_garbage_requests_are_refused(helper, store):
    from objstore import HELPER_MAX_REQUEST
    for payload in (struct.pack(">I", HELPER_MAX_REQUEST + 1), struct.pack(">I", 10) + b"GET / HTTP",
                    struct.pack(">I", 8) + b"MEMH\x01R\x00\x00"):
        got = hc.connect(str(store))
        assert got is not None
        conn = got[0]
        conn.sock.sendall(payload)
        ans = conn.frame(5.0)
        assert ans is not None and ans[0] == b"E", payload
        conn.sock.close()
    # a client that connects and says nothing holds the helper at most IO_TIMEOUT_S; meanwhile
    # commands run in their own process (no greeting within HELLO_TIMEOUT_S), then the helper again
    idle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    idle.connect(str(store / "run" / "helper.sock"))
    t0 = time.monotonic()
    assert run(store, "get", "project/p/port").stdout == b"the api listens on port 5433\n"
    assert time.monotonic() - t0 < 10
    idle.settimeout(60)      # the helper gives up on the silent client (its greeting, then EOF) ...
    while idle.recv(4096):
        pass
    assert served(store, "get", "project/p/port")[1] == b"the api listens on port 5433\n"   # ... and serves again
    idle.close()
    assert hc.MAGIC == __import__("objstore").HELPER_MAGIC


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user")
def test_stranger_is_refused(helper, store):
    os.chmod(store, 0o755)
    os.chmod(store / "run", 0o755)
    os.chmod(store / "run" / "helper.sock", 0o666)
    try:
        r, w = os.pipe()
        dfd = os.open(store / "run", os.O_RDONLY | os.O_DIRECTORY)   # the way in past pytest's 0700 folders
        pid = os.fork()
        if pid == 0:
            try:
                import ctypes
                os.close(r)
                os.setgid(65534)
                os.setuid(65534)
                ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)   # PR_SET_DUMPABLE: /proc/self/fd stays ours
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(5)
                s.connect(f"/proc/self/fd/{dfd}/helper.sock")
                got = s.recv(100)
                os.write(w, b"greeted" if got else b"closed")
            except BaseException as e:  # noqa: BLE001
                os.write(w, f"error {e!r}".encode())
            os._exit(0)
        os.close(w)
        os.close(dfd)
        os.waitpid(pid, 0)
        said = os.read(r, 200)
        os.close(r)
        assert said == b"closed"
    finally:
        os.chmod(store / "run" / "helper.sock", 0o600)
        os.chmod(store / "run", 0o700)
        os.chmod(store, 0o700)
    assert served(store, "get", "project/p/port")[0] == 0
    assert (store / "run").stat().st_mode & 0o777 == 0o700
    assert (store / "run" / "helper.sock").stat().st_mode & 0o777 == 0o600


def _mapped_deleted(pid: int, store: Path) -> list[str]:
    out = []
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        if str(store) in line and line.endswith("(deleted)"):
            out.append(line)
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if str(store) in target and target.endswith("(deleted)"):
            out.append(target)
    return out


def test_forget_in_another_process_never_comes_back(helper, store):
    # warm: the helper has read the value and holds the index generations open
    assert served(store, "get", "project/p/secret")[1] == f"the code is {SECRET} alpha\n".encode()
    assert SECRET.encode() in served(store, "search", "--json", SECRET)[1]
    assert SECRET.encode() in served(store, "recall", "--all-projects", "--json", SECRET)[1]
    turn_word = b"flaky"
    assert turn_word in served(store, "search", "--json", "flaky", "fixture")[1]
    # and has read the turns from their pack blocks, which it keeps across requests (pack.KeptPacks)
    assert turn_word in served(store, "recall", "--all-projects", "--json", "flaky", "fixture")[1]
    # forget + gc by another process
    assert run(store, "forget", "project/p/secret", "--yes", helper=False).returncode == 0
    assert run(store, "forget", "--match", "flaky", "--yes", helper=False).returncode == 0
    assert run(store, "gc", "--prune=now", helper=False).returncode == 0
    code, out, _err = served(store, "get", "project/p/secret")
    assert code == 4 and SECRET.encode() not in out
    for args in (["search", "--json", SECRET], ["recall", "--all-projects", "--json", SECRET],
                 ["search", "--json", "flaky"], ["recall", "--all-projects", "--json", "flaky", "fixture"],
                 ["context", "--prompt", f"what is {SECRET}", "--json"]):
        code, out, err = served(store, *args)
        plain = run(store, *args, helper=False)
        doc = json.loads(out)
        shown = json.dumps(doc["hits"] if "hits" in doc else doc["text"] if "text" in doc else doc)
        assert SECRET not in shown and SECRET.encode() not in err, args
        assert (code, out) == (plain.returncode, plain.stdout), args
    assert b"flaky" not in served(store, "search", "--json", "flaky")[1]
    # within a tick the helper holds no deleted file of the store (mmapped segments, packs)
    deadline = time.monotonic() + 30
    while _mapped_deleted(helper.proc.pid, store) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _mapped_deleted(helper.proc.pid, store) == []


def test_fresh_after_writes_reindex_gc_and_repack(helper, store):
    assert served(store, "get", "project/p/port")[1] == b"the api listens on port 5433\n"
    run(store, "remember", "project/p/port", "the api listens on port 6000", helper=False)
    assert served(store, "get", "project/p/port")[1] == b"the api listens on port 6000\n"
    assert b"6000" in served(store, "search", "--json", "6000")[1]
    assert run(store, "reindex", helper=False).returncode == 0
    assert b"6000" in served(store, "recall", "--all-projects", "--json", "api", "port")[1]
    run(store, "remember", "project/p/port", "the api listens on port 7000", helper=False)
    assert run(store, "gc", "--prune=now", helper=False).returncode == 0
    for args in (["get", "project/p/port"], ["search", "--json", "7000"], ["recall", "--all-projects", "api", "port"]):
        plain = run(store, *args, helper=False)
        assert served(store, *args) == (plain.returncode, plain.stdout, plain.stderr), args
    shutil.rmtree(store / "index")           # the index removed: the helper rebuilds it as a new process would
    plain_after = run(store, "search", "--json", "7000", helper=False)
    assert b"7000" in plain_after.stdout


def test_remember_through_the_helper_then_gc_keeps_it_serving(helper, store):
    """fresh39 F7: a ``remember`` the helper served left its store to the commit thread, whose close
    closed the request thread's kept packs; after a ``gc`` every later request read a closed mmap
    ("internal error: mmap closed or invalid", exit 1, and the prompt hook dropped the prompt)."""
    assert run(store, "gc", helper=False).returncode == 0
    for r in range(4):
        code, out, err = served(store, "get", "project/p/port")
        assert (code, out) == (0, b"the api listens on port 5433\n"), err
        code, _out, err = served(store, "remember", "user/round", f"round {r}")
        assert code == 0, err
        assert run(store, "gc", helper=False).returncode == 0
    code, out, err = served(store, "get", "user/round")
    assert (code, out) == (0, b"round 3\n"), err


def test_sigterm_removes_the_socket(helper, store):
    helper.proc.send_signal(signal.SIGTERM)
    helper.proc.wait(10)
    assert not (store / "run" / "helper.sock").exists()


def test_idle_exit_and_store_removed(store, tmp_path):
    h = Helper(store, idle=1)
    try:
        h.proc.wait(60)
        assert b"helper stopped: idle" in h.proc.stderr.read()
    finally:
        h.stop()
    assert not (store / "run" / "helper.sock").exists()
    h = Helper(store, idle=60)
    try:
        shutil.rmtree(store)
        h.proc.wait(60)
        assert b"helper stopped: store removed" in h.proc.stderr.read()
    finally:
        h.stop()


def test_two_starters_make_one_helper(store):
    procs = [subprocess.Popen([sys.executable, "-m", "cmds", "helper", "serve", "--idle", "30"], env=_env(store),
                              cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(2)]
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and all(p.poll() is None for p in procs):
            time.sleep(0.05)
        done = [p for p in procs if p.poll() is not None]
        assert len(done) == 1 and b"running" in done[0].stderr.read()
        live = [p for p in procs if p.poll() is None][0]
        got = None
        while got is None and time.monotonic() < deadline:
            got = hc.connect(str(store))
            time.sleep(0.05)
        assert got is not None and got[1] == live.pid
        got[0].sock.close()
        # mem helper start / status / stop
        st = run(store, "helper", "status", "--json")
        assert st.returncode == 0 and json.loads(st.stdout)["pid"] == live.pid
        assert run(store, "helper", "start").returncode == 0    # already running: nothing started
        assert run(store, "helper", "stop").returncode == 0
        live.wait(10)
        assert run(store, "helper", "status").returncode == 3
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                p.wait(10)
            p.stderr.close()


def test_session_start_starts_it_and_the_setting_turns_that_off(store):
    start = json.dumps({"session_id": "s1", "cwd": str(store.parent), "hook_event_name": "SessionStart",
                        "source": "startup"}).encode()
    assert run(store, "config", "helper.autostart", "false", helper=False).returncode == 0
    t0 = time.monotonic()
    assert run(store, "hook", "claude-code", input=start).returncode == 0
    time.sleep(0.5)
    assert run(store, "helper", "status").returncode == 3
    assert run(store, "config", "helper.autostart", "true", helper=False).returncode == 0
    t0 = time.monotonic()
    assert run(store, "hook", "claude-code", input=start, env={"ANTHROPIC_API_KEY": "sk-ant-test"}).returncode == 0
    assert time.monotonic() - t0 < 10
    try:
        deadline = time.monotonic() + 30
        while run(store, "helper", "status").returncode != 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        st = run(store, "helper", "status", "--json")
        assert st.returncode == 0
        # the helper keeps only the variables a command may read, not the agent's keys
        environ = Path(f"/proc/{json.loads(st.stdout)['pid']}/environ").read_bytes()
        assert b"MEM_HOME=" in environ and b"ANTHROPIC_API_KEY" not in environ
    finally:
        assert run(store, "helper", "stop").returncode == 0


def test_doctor_with_a_running_helper_keeps_its_lock_and_finds_nothing_loose(helper, store):
    """fresh1 findings 2 and 3: a running helper's old run/helper.lock is not a
    stale lock (doctor --fix keeps it), and what the helper writes for a client
    whose umask is 022 is owner-only all the same."""
    p = subprocess.run([sys.executable, "-m", "cmds", "remember", "project/p/new", "a fresh value"],
                       env=_env(store), cwd=REPO, capture_output=True, timeout=60,
                       preexec_fn=lambda: os.umask(0o022))
    assert p.returncode == 0, p.stderr
    lock = store / "run" / "helper.lock"
    os.utime(lock, (1, 1))
    d = json.loads(run(store, "doctor", "--fix", "--json").stdout)
    assert {f["check"] for f in d["findings"]} <= {"hooks"}, d
    assert lock.exists() and helper.proc.poll() is None
    loose = [str(x) for x in store.rglob("*") if not x.is_symlink() and x.stat().st_mode & 0o077]
    assert loose == []




@pytest.mark.parametrize("prompt", ["rotate the staging keys", "remember that the staging keys rotate on fridays"])
def test_prompt_hook_through_the_helper_waits_for_a_held_lock_after_answering(helper, store, tmp_path, prompt):
    """The helper runs the prompt's capture after its answer with the same
    lock wait as the detached child of a new process: a prompt (and a
    "remember that …" fact) typed while another process holds the store
    lock for seconds is stored once the lock is free, with no Stop."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("")
    with lock_held(store, env=_env(store, helper=False)) as holder:     # held until the block ends
        rc, _out, _err = served(store, "hook", "claude-code", input=_hook_event(store, "s-locked", prompt, transcript))
        assert rc == 0                                     # the agent does not wait for the lock:
        assert holder.poll() is None                       # ... the answer came while it was still held
    assert _stored_session(store, "s-locked", 60), (store / "logs").exists() and list((store / "logs").glob("*"))
    if prompt.startswith("remember that"):   # the fact is written after the turn: wait for it too
        deadline = time.monotonic() + 60
        while b"/remembered/staging-keys-rotate\"" not in (keys := run(store, "keys", "--json", helper=False).stdout) \
                and time.monotonic() < deadline:
            time.sleep(0.2)
        assert b"/remembered/staging-keys-rotate\"" in keys, keys
    assert helper.proc.poll() is None


def test_status_stop_and_commands_talk_only_to_this_stores_helper(helper, store, tmp_path):
    """gate6: a store whose run/helper.sock is a link to another store's
    socket: 'mem helper status' reported that helper as its own and 'mem
    helper stop' stopped it.  The greeting names its store (device, inode of
    the root): status says none runs (exit 3), stop leaves the other helper
    alone, and a command runs in its own process against its own store."""
    other = tmp_path / "other"
    shutil.copytree(store, other, ignore=shutil.ignore_patterns("run"))
    assert run(other, "remember", "user/editor", "vim in the other store", helper=False).returncode == 0
    (other / "run").mkdir(mode=0o700)
    os.symlink(store / "run" / "helper.sock", other / "run" / "helper.sock")
    st = run(other, "helper", "status", "--json")
    assert st.returncode == 3, st.stdout
    doc = json.loads(st.stdout)
    assert doc["answering"] is False and doc["pid"] is None and doc["foreign"] is True
    assert b"another store's helper" in run(other, "helper", "status").stderr
    r = run(other, "helper", "stop")
    assert r.returncode == 0 and b"no helper was running" in r.stdout
    assert helper.proc.poll() is None            # the linked helper still runs
    assert run(other, "get", "user/editor").stdout == b"vim in the other store\n"
    assert run(store, "get", "user/editor").stdout == b"emacs with evil mode\n"
    own = run(store, "helper", "status", "--json")      # the helper's own store still reaches it
    assert own.returncode == 0 and json.loads(own.stdout)["pid"] == helper.proc.pid



#: the modules the installed `mem` may import, beyond the interpreter's own start-up, before it
#: writes the helper's answer: the entry point and the client (socket, CRC of the code stamp)
CLIENT_MODULES = {"cmds", "cmds.entry", "atexit", "cmds._helperclient", "binascii", "_socket", "time",
                  # and os, which `site` imports when it runs (not here: -S)
                  "os", "posixpath", "genericpath", "stat", "_stat", "_collections_abc",
                  "gc"}   # built in (no file read): rec40 sets the collector's threshold first in entry()


def test_installed_script_hands_over_without_importing_re(store):
    """``bin/mem`` (the `mem` pip installs: pyproject's ``script-files``)
    imports nothing but the entry point and the helper client before the
    helper answers; not ``re`` (with ``enum``, ``functools``,
    ``collections``), which pip's generated console script imports first:
    ~5-8 ms of a ~20 ms client (docs/benchmarks.md, "Session 12 (branch
    start12)").  Everything runs with ``-S`` (no ``site``, whose ``.pth``
    files, such as an editable install's finder, may import ``re``
    themselves; the dependencies by ``PYTHONPATH``), the helper too: the
    code stamp holds ``sys.prefix``, which ``site`` sets in a venv."""
    import sysconfig
    env = _env(store, PYTHONPATH=os.pathsep.join([str(REPO), sysconfig.get_paths()["purelib"]]))

    def imported(*argv: str) -> tuple[subprocess.CompletedProcess, set[str]]:
        p = subprocess.run([sys.executable, "-S", "-X", "importtime", *argv], capture_output=True,
                           env=env, cwd=REPO, timeout=60)
        return p, {ln.rsplit(b"|", 1)[1].strip().decode() for ln in p.stderr.splitlines()
                   if ln.startswith(b"import time:") and ln.count(b"|") == 2} - {"imported package"}
    want = run(store, "get", "project/p/port", helper=False).stdout
    h = Helper(store, flags=("-S",), env=env)
    try:
        bare = imported("-c", "pass")[1]
        p, names = imported(str(REPO / "bin" / "mem"), "get", "project/p/port")
        assert p.returncode == 0 and p.stdout == want, p.stderr
        assert not any(n.startswith("objstore") for n in names), "ran in the client, not in the helper"
        assert "re" not in names and "enum" not in names
        assert names - bare <= CLIENT_MODULES, names - bare
        # the prompt hook's client reads the event without json (re) or cmds._hookrun
        transcript = store.parent / "t-script.jsonl"
        transcript.write_text("")
        event = _hook_event(store, "s-script", "which port does the api listen on", transcript)
        p = subprocess.run([sys.executable, "-S", "-X", "importtime", str(REPO / "bin" / "mem"), "hook", "claude-code"],
                           input=event, capture_output=True, env=env, cwd=REPO, timeout=60)
        hook_names = {ln.rsplit(b"|", 1)[1].strip().decode() for ln in p.stderr.splitlines()
                      if ln.startswith(b"import time:") and ln.count(b"|") == 2} - {"imported package"}
        assert p.returncode == 0 and not any(n.startswith("objstore") for n in hook_names), p.stderr
        # (and the hook's clock, whose hard stop is armed first: cmds._hookclock, tester F8)
        assert hook_names - bare <= CLIENT_MODULES | {"cmds._hookstdin", "select", "cmds._hookclock"}, \
            hook_names - bare
        old = store / "pip-console-script"   # the same check sees pip's generated script import re
        old.write_text("import re\nimport sys\nfrom cmds.entry import entry\nsys.exit(entry())\n")
        p, names = imported(str(old), "get", "project/p/port")
        assert p.stdout == want and "re" in names - bare
    finally:
        h.stop()
