"""The resident helper process (``mem helper serve``): imports what the
forwarded commands use once, keeps the index generations open, and runs
each request with the same code a new process runs (:mod:`cmds.lean`,
:func:`cmds._hookrun.run_claude_code`), so the output is the same bytes.

Per request, the process-global state is applied and restored afterwards:
``os.environ`` (the forwarded variables only), the working directory, the
umask, ``sys.stdin``/``stdout``/``stderr`` (in-memory streams with the
client's encodings and terminal flags), ``SIGALRM`` and its timer (the
hook's watchdog), ``cmds._out.PLAIN``.  One request at a time
(``objstore.resident.server``).  The hook's capture, which a new process
forks off, runs here after the answer is sent (:data:`cmds._hookrun.DEFERRED`):
no fork in the helper.  A ``remember``'s index commit, made after its answer,
runs in the helper's commit thread (:class:`Committer`), so that the next
request does not wait for it; writes that queue while a commit runs are
committed together (``objstore.commit_later``).
"""

from __future__ import annotations

import io
import os
import signal
import sys
import time

from objstore import Reply, Request


class _Bytes(io.BytesIO):
    """The buffer behind a forwarded stream; says whether the client's was a terminal."""

    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def _text(buf: io.BytesIO, enc: tuple[str, str]) -> io.TextIOWrapper:
    try:
        return io.TextIOWrapper(buf, encoding=enc[0], errors=enc[1], write_through=True)
    except LookupError:
        return io.TextIOWrapper(buf, encoding="utf-8", errors="strict", write_through=True)


class Committer:
    """The helper's commit thread: runs the index commits of ``remember``
    requests that have answered (``objstore.remember(later=...)``'s jobs,
    handed over by :func:`cmds.lean._remember_then_index` through
    :data:`cmds.lean.COMMIT_LATER`), one batch at a time: every write that
    queued while the previous commit ran goes into one commit of the facts
    sub-index (``objstore.commit_later``, a group commit).  Each write was
    durable before its answer (object, owned journal entry, ref, reflog);
    until its commit is made a reader waits on the entry's ``flock``
    (``Store.try_recover``), and an error or a crash leaves the entry to the
    next holder of the store lock to replay.  The thread opens index
    handles of its own (``kept_generations`` is the request thread's)."""

    def __init__(self) -> None:
        import queue
        import threading
        self._q: queue.SimpleQueue = queue.SimpleQueue()
        self._empty = queue.Empty
        self._thread = threading.Thread(target=self._loop, name="mem-commit", daemon=True)
        self._thread.start()

    def submit(self, jobs: list, done) -> bool:
        """Queue ``jobs`` (callables of no argument; ``LaterCommit``s are
        committed together) and ``done()`` (called after them, whatever
        happened: the write's store is closed).  False when the thread is
        not running (the caller then runs them itself)."""
        if not self._thread.is_alive():
            return False
        self._q.put((jobs, done))
        return True

    def _loop(self) -> None:
        from objstore import LaterCommit, commit_later
        stop = False
        while not stop:
            first = self._q.get()
            if first is None:
                return
            batch = [first]
            while True:           # what queued meanwhile: one commit for all
                try:
                    item = self._q.get_nowait()
                except self._empty:
                    break
                if item is None:
                    stop = True
                    break
                batch.append(item)
            jobs = [j for item_jobs, _done in batch for j in item_jobs]
            groups: dict = {}
            others = []
            for j in jobs:
                if isinstance(j, LaterCommit):   # one commit per store (the helper serves one)
                    groups.setdefault(os.fspath(j.store.root), []).append(j)
                else:
                    others.append(j)
            try:
                for group in groups.values():
                    try:
                        commit_later(group)   # done or abandoned, each: an error leaves the entries to the replay
                    except Exception:  # noqa: BLE001 - the helper goes on
                        pass
                for job in others:
                    try:
                        job()
                    except Exception:  # noqa: BLE001
                        pass
            finally:
                for _jobs, done in batch:
                    try:
                        done()
                    except Exception:  # noqa: BLE001
                        pass

    def close(self, timeout: float) -> None:
        """Let the queued commits finish (up to ``timeout`` seconds), then
        stop; what is left stays in the owned journal entries, which the
        next holder of the store lock replays once this process is gone."""
        self._q.put(None)
        self._thread.join(timeout)


def warm(root: str) -> None:
    """Import what the forwarded commands use and open the store's index
    generations once (a search), so the first request pays neither."""
    import objstore
    from . import _hookrun, lean  # noqa: F401 - imported to stay imported
    for name in ("recall", "search", "inject_for_prompt", "session_start_block", "render_context", "remember",
                 "current", "capture_prompt", "prompt_snapshot", "load_capture_config", "write_statement",
                 "statement_of", "has_marker", "project_aliases", "agent_of", "ensure_index", "MemError"):
        getattr(objstore, name, None)
    try:
        store = objstore.open_store(root)
    except Exception:  # noqa: BLE001 - warming is best effort
        return
    try:
        objstore.search(store, "mem", limit=1)
    except Exception:  # noqa: BLE001
        pass
    finally:
        store.close()


def run(req: Request) -> Reply | None:
    """Run one forwarded command line in this process; None when the lean
    path does not handle it (the client then runs it itself)."""
    from . import _hookrun, _out, lean
    from cmds._helperclient import command_of
    name, home = command_of(req.argv)
    if name is None:
        return None
    event = None
    if name == "hook":   # the client sends what may be a UserPromptSubmit (cmds.entry): only that runs here
        try:
            event = _hookrun.parse_event(req.stdin)
        except _hookrun.HookInputError:
            return None
        if event.get("hook_event_name") != "UserPromptSubmit":
            return None
    saved_env = dict(os.environ)
    saved_tz = os.environ.get("TZ")
    saved_cwd = os.getcwd()
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_alarm = signal.getsignal(signal.SIGALRM)
    saved_umask = os.umask(req.umask | 0o077)  # owner-only, as cmds.entry.private_umask
    out, err = _Bytes(req.stdout_tty), _Bytes(req.stderr_tty)
    deferred: list = []

    def restore() -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, saved_alarm)
        _hookrun.DEFERRED = None
        _out.PLAIN = False
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.environ.clear()
        os.environ.update(saved_env)
        if os.environ.get("TZ") != req.env.get("TZ"):
            time.tzset()
        os.umask(saved_umask)
        try:
            os.chdir(saved_cwd)
        except OSError:
            os.chdir("/")

    try:
        os.chdir(req.cwd)
    except OSError:
        os.umask(saved_umask)
        return None   # a working directory the helper cannot enter: the client runs it
    try:
        os.environ.clear()
        os.environ.update(req.env)
        if req.env.get("TZ") != saved_tz:
            time.tzset()
        sys.stdin = _text(io.BytesIO(req.stdin), req.encodings[0])
        sys.stdout = _text(out, req.encodings[1])
        sys.stderr = _text(err, req.encodings[2])
        _out.PLAIN = False
        _hookrun.DEFERRED = deferred
        if name == "hook":
            env = dict(os.environ)
            if home:
                env["MEM_HOME"] = home

            def read():
                return event
            status = _hookrun.run_claude_code(env=env, out=sys.stdout, read=read)
        else:
            status = lean.main(list(req.argv))
            if status is None:      # click must run it: in the client's own process
                restore()
                return None
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except (OSError, ValueError, AttributeError):
                pass
    except BaseException:
        restore()
        raise

    def after() -> None:
        try:
            for job in deferred:
                job()
        finally:
            restore()
    return Reply(int(status), out.getvalue(), err.getvalue(), after=after)


def serve(root: str, idle_s: float, ready=None) -> str:
    """Run the helper of the store at ``root`` until it stops; returns why
    (``objstore.resident.server.serve``)."""
    import objstore
    from cmds._helperclient import source_stamp
    stamp = source_stamp()   # of the code on disk now, before it is imported
    os.umask(0o077)
    cache = objstore.keep_generations_open()
    packs = objstore.keep_packs_open()   # with their block caches: a request reads again what the last one read
    warm(root)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, lambda *_a: sys.exit(0))  # unwinds: the socket is removed
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    from . import lean
    committer = Committer()
    lean.COMMIT_LATER = committer.submit
    try:
        return objstore.serve_helper(root, stamp, run, idle_s=idle_s, ready=ready,
                                     between=lambda: (cache.refresh(), packs.refresh()))
    finally:
        lean.COMMIT_LATER = None
        committer.close(CLOSE_WAIT_S)


#: Seconds a stopping helper waits for its queued index commits
CLOSE_WAIT_S = 30.0
