"""Shared fixtures: an isolated environment, a store, the CLI in-process and
as a real subprocess, and the path of ../shared when it exists."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

try:   # property tests: no per-example wall-clock deadline, no "too slow" health check (CI's
    # 2 cores run the suite's workers; a slow example there is load, not a failure), and the same
    # examples on every run (derandomize): a run does not pass or fail by which examples it drew
    from hypothesis import HealthCheck, settings
    settings.register_profile("memvcs", deadline=None, suppress_health_check=[HealthCheck.too_slow],
                              derandomize=True)
    settings.load_profile("memvcs")
except ImportError:  # pragma: no cover - hypothesis comes with the test extra
    pass


def fact_chain(store_path, key: str) -> list[tuple[int, bool, str]]:
    """``(version, forgotten?, body)`` of every version of ``key``'s plain
    chain in the store at ``store_path``, newest first (read from its ref)."""
    from objstore.core.objects import Fact
    from objstore.memory.opening import open_store
    with open_store(store_path) as s:
        out, oid = [], s.refs.read(f"facts/{key}")
        while oid:
            f = s.get(oid, Fact)
            out.append((f.version, bool(f.forgotten), f.body))
            oid = f.parent
        return out


def gen_corpus(out: Path, *args: str) -> Path:
    """Write a synthetic Claude Code corpus to ``out`` with
    ``bench/gen_corpus.py`` (``args``: its options, e.g. ``"--sessions",
    "4"``); returns ``out``."""
    import subprocess
    import sys
    subprocess.run([sys.executable, str(REPO / "bench" / "gen_corpus.py"), str(out), *args, "-q"],
                   check=True, timeout=120, cwd=REPO)
    return out


def shared_hash_key(root) -> None:
    """Give the store at ``root`` a fixed hash key (``core.hashkey``): a prompt's stored
    alias is keyed with it (test34b T10), so two stores compared object by object for
    one import must hold the same key, as one store read twice does."""
    Path(root, "hash-key").write_text(f"mem-hash-key 1 {'5a' * 32}\n", encoding="ascii")


def word_in(word: str, text: str) -> bool:
    """``word`` stands in ``text`` as a whole word: no letter, digit or ``_``
    right before or after it.  For a needle of digits or hex letters (a
    port, a PIN, ``db1``) looked for in output that also holds object ids
    (hex), millisecond times or tmp paths, where the same characters occur
    inside another word by chance: ``"5432" in text`` failed CI once when a
    random object id held ``5432``.  ``"port 5432."`` and ``"1111-kw"``
    hold their needle; ``"8054b36954321f"`` does not."""
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test where it is absent (a user's clone)."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{p} not present (../shared is only beside the developers' checkout)")
    return p


@pytest.fixture(autouse=True)
def isolated_env(tmp_path, monkeypatch):
    """HOME, XDG dirs and MEM_HOME point into tmp_path; other MEM_* cleared,
    and the markers of an agent's tool environment (a suite run by an agent
    must see a person's defaults: objstore.memory.caller)."""
    from objstore.memory.caller import AGENT_MARKERS
    agent_vars = {var for var, _name, _values in AGENT_MARKERS}
    for k in list(os.environ):
        if k.startswith("MEM_") or k in agent_vars:
            monkeypatch.delenv(k)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local/share"))
    monkeypatch.setenv("MEM_HOME", str(tmp_path / "store"))
    monkeypatch.setenv("MEM_NO_HELPER", "1")  # no resident helper unless a test starts one (tests/cmds/test_helper.py)
    return tmp_path


@pytest.fixture
def store_path(tmp_path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def store(store_path):
    from objstore.memory.opening import open_store
    s = open_store(store_path, create=True)
    yield s
    s.close()


class Result:
    def __init__(self, code: int, stdout: str, stderr: str) -> None:
        self.exit_code, self.stdout, self.stderr = code, stdout, stderr

    @property
    def json(self):
        import json
        return json.loads(self.stdout)


@pytest.fixture
def invoke():
    """Run the CLI in-process: ``invoke(*args, exit_code=0, input=None)``."""
    from cmds.main import cli

    def run(*args: str, exit_code: int | None = 0, input: str | None = None) -> Result:
        r = CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)
        res = Result(r.exit_code, r.stdout, r.stderr)
        if exit_code is not None:
            assert r.exit_code == exit_code, f"exit {r.exit_code}\nstdout: {r.stdout}\nstderr: {r.stderr}"
        return res
    return run


def wait_remember_done(home, timeout: float = 120) -> None:
    """Wait until no ``mem remember`` holds the lock of the store at
    ``home`` and none is still committing its index: a new process's
    ``remember`` answers once its write is durable and commits the search
    index in a detached child, after the store lock, holding an owned
    journal entry (``index-journal.d/``) until it is done (cmds/lean.py,
    ``_index_after_answer``).  A test that looks at the store's files right
    after, or damages them, waits for that child first.  Bounded: raises
    after ``timeout`` s."""
    import time
    from objstore.core.journal import IndexJournal
    from objstore.core.lock import lock_held, lock_holder
    path = Path(home) / "locks" / "store.lock"
    journal = IndexJournal(Path(home) / "index-journal")
    deadline = time.monotonic() + timeout
    while (lock_held(path) and lock_holder(path).get("command") == "remember") \
            or not all(map(journal.settled, _owned_files(journal))):
        if time.monotonic() > deadline:
            raise AssertionError(f"a remember still holds {path} or commits its index after {timeout} s")
        time.sleep(0.005)


def _owned_files(journal) -> list[Path]:
    """The owned journal files of fact writers (``F`` lines) in ``journal``'s directory."""
    out = []
    try:
        names = os.listdir(journal.owned_dir)
    except OSError:   # no store there (a missing folder, a link loop)
        return out
    for n in names:
        try:
            if not n.startswith(".tmp-") and b"F\t" in (journal.owned_dir / n).read_bytes():
                out.append(journal.owned_dir / n)
        except FileNotFoundError:
            pass
    return out


def journal_deletes(home) -> bool:
    """The index journal of the store at ``home`` names objects a forget
    will delete (``D`` lines: every tombstone of that forget is written)."""
    try:
        return b"D\t" in (Path(home) / "index-journal").read_bytes()
    except FileNotFoundError:
        return False


def journal_settled(home) -> bool:
    """The index journal of the store at ``home`` holds a forget's ``U``
    line, the last of the one write that carries its ``D`` lines: that
    write is whole.  (Seeing ``D`` lines alone is not enough: a reader can
    see a long append half done, and a kill then lands inside the write,
    which the kernel cuts short, leaving ``D`` lines without their ``U``.)"""
    try:
        return b"U\t" in (Path(home) / "index-journal").read_bytes()
    except FileNotFoundError:
        return False


def signal_forget_midway(home, args, sig: int, env: dict | None = None, ready=journal_settled) -> tuple[int, str]:
    """Start ``mem forget ARGS --yes`` (a real process, ``env`` added to the
    environment) and send it ``sig`` once ``ready(home)`` holds for the
    store at ``home``; by default once the index journal names, in one whole
    write, the objects it will delete (:func:`journal_settled`; its history
    rewrite, index purge and deletes follow):
    ``(returncode, stderr)``.  Bounded: 120 s."""
    import time
    p = subprocess.Popen([sys.executable, "-m", "cmds", "forget", *args, "--yes"], cwd=REPO,
                         env={**os.environ, **(env or {})}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    end = time.monotonic() + 120
    while time.monotonic() < end and p.poll() is None:
        if ready(home):
            break
        time.sleep(0.002)
    assert p.poll() is None, "the forget ended before the signal could be sent"
    p.send_signal(sig)
    _out, err = p.communicate(timeout=120)
    return p.returncode, err.decode()


def live_appender(path, session: str, cwd: str, content: str = "live line %d", n: int = 30) -> subprocess.Popen:
    """Start an agent stand-in that holds the transcript ``path`` open for
    appending (as Codex's rollout recorder does) and writes ``n`` Claude
    Code user records of ``session`` (``uuid`` ``live-<i>``, text
    ``content % i``), 0.1 s apart; the caller waits for it."""
    return subprocess.Popen([sys.executable, "-c", (
        "import json, sys, time\n"
        "f = open(sys.argv[1], 'a')\n"
        "for i in range(int(sys.argv[5])):\n"
        "    f.write(json.dumps({'type': 'user', 'sessionId': sys.argv[2], 'uuid': 'live-%d' % i,\n"
        "        'cwd': sys.argv[3], 'timestamp': '2026-12-03T16:01:00.000Z',\n"
        "        'message': {'role': 'user', 'content': sys.argv[4] % i}}) + '\\n')\n"
        "    f.flush(); time.sleep(0.1)\n"), str(path), session, cwd, content, str(n)])


@pytest.fixture
def mem():
    """Run ``mem`` as a real subprocess (``python -m cmds``); after a
    ``remember``, until its index commit is done (:func:`wait_remember_done`)."""

    def run(*args: str, exit_code: int | None = 0, input: str | None = None, env: dict | None = None,
            timeout: float = 120) -> Result:
        e = dict(os.environ)
        e.update(env or {})
        p = subprocess.run([sys.executable, "-m", "cmds", *args], input=input, capture_output=True,
                           text=True, env=e, timeout=timeout, cwd=REPO)
        if "remember" in args:
            home = args[args.index("--home") + 1] if "--home" in args[:-1] else e.get("MEM_HOME")
            if home:
                wait_remember_done(home)
        if exit_code is not None:
            assert p.returncode == exit_code, f"exit {p.returncode}\nstdout: {p.stdout}\nstderr: {p.stderr}"
        return Result(p.returncode, p.stdout, p.stderr)
    return run
