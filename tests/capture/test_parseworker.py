"""``mem import`` with its parse worker (a child process parsing and redacting,
objstore.capture.parseworker) stores exactly what an import parsing in
process stores: the same session refs (so the same objects), the same counts,
credentials redacted; a worker that dies mid-import leaves the import to
finish in process with the same result."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from tests.conftest import gen_corpus, shared_hash_key

from objstore import open_store
from objstore.capture import importer, parseworker
from objstore.capture.parseworker import ParseWorker, ParseWorkers, WorkerFailed
from objstore.memory.forget import scan_store
from objstore.memory.appender import TurnAppender
from objstore.memory.sessions import CapturedTurn

REPO = Path(__file__).resolve().parents[2]
GH = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pw") / "projects"
    gen_corpus(out, "--sessions", "4", "--turns", "120", "--seed", "3")
    # one transcript with a credential in a prompt, and one that is not a file
    proj = next(p for p in sorted(out.iterdir()) if p.is_dir())
    rec = {"type": "user", "uuid": "u-secret", "sessionId": "s-secret", "cwd": "/w/p",
           "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": f"push zanzibarquux with {GH} now"}}
    (proj / "s-secret.jsonl").write_text(json.dumps(rec) + "\n")
    (proj / "dangling.jsonl").symlink_to(proj / "missing-target.jsonl")
    return out


def _import(root: Path, corpus: Path, workers: int | None):
    store = open_store(root, create=True)
    shared_hash_key(root)
    try:
        r = importer.import_transcripts(store, "claude-code", [corpus], workers=workers)
        refs = sorted(store.refs.iter("sessions"))
    finally:
        store.close()
    return r, refs


def _summary(r) -> tuple:
    return (r.files, r.files_skipped, r.turns_added, r.turns_seen, r.turns_skipped, r.lines, r.lines_skipped,
            r.records_ignored, r.secrets_redacted, r.sessions, r.sessions_new, r.session_ids, len(r.errors),
            r.index_error)


@pytest.mark.parametrize("workers", [1, 2])  # 2: two children, a session tree in each
def test_worker_stores_what_an_import_in_process_stores(corpus, tmp_path, workers):
    here, refs_here = _import(tmp_path / "here", corpus, 0)
    child, refs_child = _import(tmp_path / "child", corpus, workers)
    assert refs_child == refs_here and len(refs_here) >= 5
    assert _summary(child) == _summary(here)
    assert child.turns_added > 100 and child.secrets_redacted == 1 and child.files_skipped == 1
    assert any("dangling.jsonl" in e for e in child.errors)
    assert scan_store(tmp_path / "child", [GH.encode()]) == []
    store = open_store(tmp_path / "child")
    try:   # indexed like the rest: the redacted prompt is found by its other words
        hits = store.index.search("zanzibarquux", kinds=("turn",), limit=5)
        assert [h.ref for h in hits] == ["s-secret"]
    finally:
        store.close()
    again, _ = _import(tmp_path / "child", corpus, workers)   # nothing new: nothing read again
    assert again.turns_added == 0 and again.files_unchanged == again.files


@pytest.mark.parametrize("workers", [1, 2])
def test_a_worker_killed_mid_import_leaves_the_rest_to_this_process(corpus, tmp_path, monkeypatch, workers):
    started: list[ParseWorker] = []
    real_init = ParseWorker.__init__

    def init(self, *a, **kw):
        real_init(self, *a, **kw)
        started.append(self)

    monkeypatch.setattr(ParseWorker, "__init__", init)
    real_messages = ParseWorker.messages
    calls = {"n": 0}

    def messages(self):
        calls["n"] += 1
        if calls["n"] == 3:  # the third file: the child dies while it is being read
            os.kill(self._proc.pid, signal.SIGKILL)
            self._proc.wait()
        return real_messages(self)

    monkeypatch.setattr(ParseWorker, "messages", messages)
    here, refs_here = _import(tmp_path / "here", corpus, 0)
    child, refs_child = _import(tmp_path / "child", corpus, workers)
    assert len(started) == workers and all(w._proc.poll() is not None for w in started)
    assert refs_child == refs_here
    assert _summary(child) == _summary(here)


def test_the_default_takes_two_children_from_parallel2_min_bytes(corpus, tmp_path, monkeypatch):
    """``workers`` None: no child below PARALLEL_MIN_BYTES, one below
    PARALLEL2_MIN_BYTES, two from it (both thresholds lowered here to the
    corpus's size, so the real files cross them); the store is the same."""
    from objstore.capture import claude_code
    monkeypatch.setattr(importer.os, "cpu_count", lambda: 2)
    files = sorted(claude_code.discover([corpus]))
    size = importer._bytes_of(files)
    assert size > 1000
    chosen = []
    for low, two in ((size + 1, size + 2), (size, size + 1), (size - 1, size)):
        monkeypatch.setattr(importer, "PARALLEL_MIN_BYTES", low)
        monkeypatch.setattr(importer, "PARALLEL2_MIN_BYTES", two)
        w = importer._start_worker(claude_code, files, None, "claude-code")
        chosen.append(type(w).__name__)
        if w is not None:
            w.close()
    assert chosen == ["NoneType", "ParseWorker", "ParseWorkers"]
    started: list[int] = []
    real_init = ParseWorkers.__init__

    def init(self, *a, **kw):
        real_init(self, *a, **kw)
        started.append(len(self._workers))

    monkeypatch.setattr(ParseWorkers, "__init__", init)
    here, refs_here = _import(tmp_path / "here", corpus, 0)
    default, refs_default = _import(tmp_path / "default", corpus, None)   # the last thresholds
    assert started == [2]
    assert refs_default == refs_here and _summary(default) == _summary(here)


def test_two_children_take_each_session_tree_whole_in_the_paths_order(corpus):
    """``ParseWorkers`` with the reader's ``tree_key`` (``split_paths``): a
    main transcript and its sub-agents' files go to one child (each child
    reads a tree's other files for their taint: the files taken in turn
    had both children read them), the trees about even in bytes; the
    messages still come file by file in the paths' order, the rows those
    parsed here."""
    from objstore.capture import claude_code
    from objstore.capture.parseworker import parse_rows, split_paths
    files = [str(p) for p in claude_code.discover([corpus])]
    subs = [f for f in files if f"{os.sep}subagents{os.sep}" in f]
    assert subs and len(files) >= 6
    child_of = dict(zip(files, split_paths(files, 2, claude_code.tree_key)))
    for s in subs:
        assert child_of[s] == child_of[s.split(f"{os.sep}subagents{os.sep}")[0] + ".jsonl"]
    assert files.index(subs[0]) % 2 != files.index(subs[0].split(f"{os.sep}subagents{os.sep}")[0] + ".jsonl") % 2
    assert set(child_of.values()) == {0, 1}
    size = {f: os.path.getsize(f) if os.path.isfile(f) else 0 for f in files}
    trees: dict[str, int] = {}
    for f in files:
        trees[claude_code.tree_key(f)] = trees.get(claude_code.tree_key(f), 0) + size[f]
    loads = [sum(size[f] for f in files if child_of[f] == k) for k in (0, 1)]
    assert abs(loads[0] - loads[1]) <= max(trees.values())
    with ParseWorkers("objstore.capture.claude_code", files, n=2, tree_of=claude_code.tree_key) as w:
        assert len(w._workers) == 2
        got = [list(w.messages()) for _ in files]
    for f, msgs in zip(files, got):
        here = list(parse_rows("objstore.capture.claude_code", Path(f)))
        assert [m[0] for m in msgs] == [m[0] for m in here] and msgs[-1] == here[-1]
        assert [r for m in msgs[:-1] for r in m[1]] == [r for m in here[:-1] for r in m[1]]


def test_worker_reports_its_end(tmp_path):
    f = tmp_path / "one.jsonl"
    f.write_text("")
    w = ParseWorker("objstore.capture.claude_code", [f])
    try:
        msgs = list(w.messages())
        assert msgs[-1][0] == "file" and msgs[-1][2] is None
        with pytest.raises(WorkerFailed):   # asked for more than it was given
            list(w.messages())
    finally:
        w.close()
    assert w._proc.returncode == 0


def test_an_index_batch_not_flushed_is_replayed_from_the_journal(store_path):
    from objstore.memory.facts import remember
    from objstore.memory.indexbatch import IndexBatch
    store = open_store(store_path, create=True)
    shared_hash_key(store_path)
    with store.lock("test"):
        ib = IndexBatch(store)
        remember(store, "project/p/alpha", "the quokkaberry build flag", index_batch=ib)
        remember(store, "project/p/beta", "the quokkaberry deploy step", index_batch=ib)
        remember(store, "project/p/alpha", "the quokkaberry build flag, second", index_batch=ib)  # flushes
        assert not store.journal.is_empty()
        # the process ends here without ib.flush(): a crash
    store.close()
    again = open_store(store_path)
    try:
        with again.lock("next writer"):   # replays the journal
            pass
        assert again.journal.is_empty()
        keys = sorted(h.ref for h in again.index.search("quokkaberry", kinds=("fact",), limit=10))
        assert keys == ["project/p/alpha", "project/p/beta"]
    finally:
        again.close()


@pytest.mark.parametrize("harness, src", [
    ("codex", REPO / "tests" / "data" / "codex"),
    ("claude-code", REPO / "tests" / "data" / "redaction"),
    ("claude-code", REPO / "cmds" / "data" / "sample-projects"),
])
def test_worker_and_in_process_agree_on_the_test_transcripts(harness, src, tmp_path):
    out = {}
    for w in (0, 1):
        store = open_store(tmp_path / f"s{w}", create=True)
        shared_hash_key(tmp_path / f"s{w}")
        try:
            r = importer.import_transcripts(store, harness, [src], workers=w)
            out[w] = (_summary(r), sorted(store.refs.iter("sessions")), sorted(store.refs.iter("facts")))
        finally:
            store.close()
    assert out[1][0] == out[0][0] and out[1][1] == out[0][1]
    assert [k for k, _ in out[1][2]] == [k for k, _ in out[0][2]]   # rollup summaries (their ids hold a time)
    assert out[0][0][2] > 0


def test_sub_agent_files_are_marked_read_only_after_their_rollup(tmp_path, monkeypatch):
    """An import that dies between storing a sub-agent's turns and writing its
    summary reads that file again next time (and writes the summary); an
    import with nothing new rolls nothing up."""
    src = REPO / "cmds" / "data" / "sample-projects"
    store = open_store(tmp_path / "s", create=True)
    shared_hash_key(tmp_path / "s")
    try:
        def boom(*a, **kw):
            raise KeyboardInterrupt
        monkeypatch.setattr(importer, "rollup_files", boom)
        with pytest.raises(KeyboardInterrupt):
            importer.import_transcripts(store, "claude-code", [src])
        assert not [k for k, _ in store.refs.iter("facts") if "/summary/" in k]
        monkeypatch.undo()
        calls = []
        real = importer.rollup_files
        monkeypatch.setattr(importer, "rollup_files", lambda st, paths, **kw: calls.append(list(paths)) or real(st, paths, **kw))
        again = importer.import_transcripts(store, "claude-code", [src])
        assert [Path(p).name for p in calls[0]] == ["agent-a7c41e9d2b0f3e6a1.jsonl"]   # paths as strings (rss25)
        assert again.turns_added == 0 and again.files_unchanged == again.files - 1
        assert [k for k, _ in store.refs.iter("facts") if "/summary/" in k]
        third = importer.import_transcripts(store, "claude-code", [src])
        assert third.files_unchanged == third.files and len(calls) == 1
    finally:
        store.close()


def _tricky_tree(root: Path) -> tuple[Path, list[Path]]:
    """Transcripts where the turns the parse worker forecasts are not all the
    ones the import writes: a '#nomem' prompt (its turns are skipped), a
    session resumed into another id (its copied prefix is dropped), a
    working directory that exists here (the project is named from it), a
    credential, and a tool result that taints the next turn."""
    from tests.hooks._util import asst, line, text, tool_result, tool_use, user
    proj = root / "projects" / "p"
    proj.mkdir(parents=True)
    work = root / "work" / "realproject"
    work.mkdir(parents=True)
    a, b, c = "5d1e6f0a-0000-4000-8000-0000000000a1", "5d1e6f0a-0000-4000-8000-0000000000b2", "c-real"
    a_lines = [line(user("a1", "fix the build", a)),
               line(asst("a2", "msg_a2", [text("looking"), tool_use("t1", "WebFetch", url="https://x.test")], a)),
               line(user("a3", [tool_result("t1", "fetched page body")], a)),
               line(asst("a4", "msg_a4", [text("the page says to rebuild")], a)),
               line(user("a5", "#nomem do not keep this", a)),
               line(asst("a6", "msg_a6", [text("not kept")], a)),
               line(user("a7", f"deploy with {GH}", a)),
               line(asst("a8", "msg_a8", [text("deployed")], a))]
    b_lines = [line({**json.loads(x), "sessionId": b}) for x in a_lines] + [
        line(user("b1", "now add a changelog entry", b)), line(asst("b2", "msg_b2", [text("added")], b))]
    c_lines = [line(user("c1", "hello there", c, cwd=str(work))),
               line(asst("c2", "msg_c2", [text("hi")], c, cwd=str(work)))]
    sub = root / "work" / "gitrepo" / "src" / "deep"   # a repository's sub-folder: named after the repository
    sub.mkdir(parents=True)
    (root / "work" / "gitrepo" / ".git").mkdir()
    d = "d-sub"
    d_lines = [line(user("d1", "what is in here", d, cwd=str(sub))),
               line(asst("d2", "msg_d2", [text("a parser")], d, cwd=str(sub))),
               line(user("d3", "thanks", d, cwd=str(sub)))]
    files = [proj / f"{a}.jsonl", proj / f"{b}.jsonl", proj / f"{c}.jsonl", proj / f"{d}.jsonl"]
    for f, ls in zip(files, (a_lines, b_lines, c_lines, d_lines)):
        f.write_bytes(b"".join(ls))
    return root / "projects", files


def test_forecasts_are_used_only_for_the_turns_they_forecast(tmp_path, monkeypatch):
    """The parse worker's forecasts (sessions.TurnForecast: each turn's frame
    and id as if every record were written) save the import encoding and
    hashing; where the import writes another turn (skipped records, a
    resumed session's copied prefix, a project named from the file system,
    turns already stored) it encodes its own, and the store is the same."""
    from objstore.core.packwriter import PackWriter
    src, files = _tricky_tree(tmp_path / "src")
    given: list[bool] = []
    real_add = PackWriter.add

    def add(self, frame, digest=None):
        given.append(digest is not None)
        return real_add(self, frame, digest)
    monkeypatch.setattr(PackWriter, "add", add)
    out = {}
    for w in (0, 1, 2):
        given.clear()
        store = open_store(tmp_path / f"s{w}", create=True)
        shared_hash_key(tmp_path / f"s{w}")
        try:
            # first the beginning of one file (its turns are stored: the rest continues them)
            part = tmp_path / f"part{w}" / files[0].name
            part.parent.mkdir()
            part.write_bytes(b"".join(files[0].read_bytes().splitlines(keepends=True)[:3]))
            importer.import_transcripts(store, "claude-code", [part], workers=w)
            # and one record already stored otherwise (another time): the next turn's parent is not
            # the forecast one, its seq is
            with store.lock("test"):
                app = TurnAppender(store, command="test")
                app.add(CapturedTurn("c-real", "cc:c1", "user", "hello there", 1_000, "/elsewhere", "x"))
                app.publish()
            r = importer.import_transcripts(store, "claude-code", [src], workers=w)
            out[w] = (_summary(r), sorted(store.refs.iter("sessions")), list(given))
        finally:
            store.close()
    assert out[1][0] == out[0][0] and out[1][1] == out[0][1]
    assert out[2][0] == out[0][0] and out[2][1] == out[0][1]   # two children: the same store
    assert not any(out[0][2]) and any(out[2][2])
    used = out[1][2]
    assert any(used) and not all(used), used     # some forecasts used, some not
    assert used[-3:] == [True] * 3                # the repository's sub-folder: its name guessed in the child
    assert out[0][0][8] == 1                      # the credential redacted (the same either way)


def test_an_older_workers_rows_without_forecasts_are_read(tmp_path, monkeypatch):
    """Rows of 11 items (a child of an older protocol: no forecast) are read
    as turns without one, and the import stores the same."""
    from objstore.capture.parseworker import parse_rows
    src, files = _tricky_tree(tmp_path / "src")

    class Old:
        def __init__(self, paths):
            self._msgs = [m for p in paths for m in parse_rows("objstore.capture.claude_code", p)]

        def messages(self):
            while self._msgs:
                msg = self._msgs.pop(0)
                yield (msg[0], [row[:11] for row in msg[1]]) if msg[0] == "turns" else msg
                if msg[0] == "file":
                    return

        def close(self):
            pass
    refs = []
    for w in (0, 1):
        store = open_store(tmp_path / f"s{w}", create=True)
        shared_hash_key(tmp_path / f"s{w}")
        try:
            if w:
                monkeypatch.setattr(importer, "_start_worker", lambda reader, to_read, *a: Old(to_read))
            importer.import_transcripts(store, "claude-code", [src], workers=w)
            refs.append(sorted(store.refs.iter("sessions")))
        finally:
            store.close()
    assert refs[0] == refs[1] and len(refs[0]) == 4


def test_a_parse_child_loads_the_gate_matcher_before_its_first_text(corpus, monkeypatch):
    """red40: the child is a bulk caller (``redact.expect_bulk``): its first MiB of text is gated by the
    one-pass matcher, not by one substring test per gate (~0.2 s of CPU per child on the benchmark
    corpus), and its rows are the same either way."""
    from objstore.core.redact import prefilter
    pytest.importorskip("ahocorasick_rs")
    path = next(p for p in sorted(corpus.rglob("*.jsonl")) if p.is_file() and p.name != "s-secret.jsonl")
    monkeypatch.setattr(prefilter, "_FAST", [False, 0])          # no matcher: the substring tests throughout
    slow = list(parseworker.parse_rows("objstore.capture.claude_code", path))
    monkeypatch.setattr(prefilter, "_FAST", [None, 0])           # a new process: nothing scanned yet
    fast = list(parseworker.parse_rows("objstore.capture.claude_code", path))
    assert path.stat().st_size < prefilter._FAST_AFTER          # a file too small to load it by itself
    assert prefilter._FAST[0], "the matcher was not loaded for the child's first file"
    assert fast == slow
