"""fresh6 findings on the store (notes/fresh6-attack.md 16, 17, 25, 7, 9, 19,
21): each test runs real ``mem`` processes on real stores and failed on the
code before its fix."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}


# -- 16: a damaged index-journal record ----------------------------------------

def test_torn_multibyte_journal_tail_blocks_nothing(mem, store_path):
    mem("init")
    mem("remember", "project/u/k1", "value number 1", env=PERSON)
    with open(store_path / "index-journal", "ab") as f:
        f.write(b"\xc3")                       # half of an e-acute: a torn append
    r = mem("fsck")                            # a crash state, not damage: a warning, exit 0
    assert "warning: index-journal: a torn last record" in r.stdout
    mem("remember", "project/u/k5", "new", env=PERSON)        # was: internal error UnicodeDecodeError
    mem("forget", "project/u/k1", "--yes", env=PERSON)
    mem("reindex")
    mem("fsck")


def test_damaged_journal_record_is_reported_and_repaired(mem, store_path):
    mem("init")
    mem("remember", "project/u/k1", "value number one", env=PERSON)
    # a damaged record between two sound ones: what it named is unknown
    with open(store_path / "index-journal", "ab") as f:
        f.write(b"F\tproject/u/k1\n\xc3\xff\tbroken\nF\tproject/u/zz\n")
    r = mem("fsck", exit_code=13)
    assert "1 damaged record" in r.stdout
    mem("fsck", "--repair")
    assert (store_path / "index-journal").stat().st_size == 0
    assert list((store_path / "quarantine").glob("*/index-journal"))      # set aside for a person's eye
    assert "value number one" in mem("search", "value number").stdout
    mem("fsck")
    # a write is not blocked either: the next lock holder rebuilds the index
    with open(store_path / "index-journal", "ab") as f:
        f.write(b"\xff\xfe\n")
    mem("remember", "project/u/k2", "second value", env=PERSON)
    assert (store_path / "index-journal").stat().st_size == 0
    assert "second value" in mem("search", "second value").stdout


# -- 17: a damaged cache/imported-files ----------------------------------------

def _transcript(path, sid: str, texts: list[str], cwd: str = "/tmp/pu") -> None:
    import json
    import uuid
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        for i, t in enumerate(texts):
            f.write(json.dumps({"type": "user", "sessionId": sid, "uuid": str(uuid.uuid4()), "cwd": cwd,
                                "timestamp": "2026-03-02T09:00:%02d.000Z" % (i % 60),
                                "message": {"role": "user", "content": t}}) + "\n")


def test_damaged_imported_files_cache_is_rebuilt(mem, store_path, tmp_path):
    sid = "eeeeeeee-0000-4000-8000-000000000001"
    tp = tmp_path / "claude" / "-tmp-pu" / f"{sid}.jsonl"
    _transcript(tp, sid, ["hello world prompt kestrel-4411", "another line"])
    mem("init")
    mem("import", "claude-code", str(tp.parent), env=PERSON)
    ledger = store_path / "cache" / "imported-files"
    ledger.write_bytes(b"\xc3\x28\xff")
    r = mem("import", "claude-code", str(tp.parent), env=PERSON)   # was: internal error, exit 1
    assert "imported-files" in r.stderr
    assert ledger.read_text("utf-8").splitlines() == [str(tp.resolve())]
    ledger.write_bytes(b"\xc3\x28\xff\n")
    r = mem("forget", "--match", "kestrel-4411", "--scrub-sources", "--yes", env=PERSON)
    assert "warning:" in r.stderr and "imported-files" in r.stderr
    assert "kestrel-4411" not in tp.read_text("utf-8")                  # the transcript was scrubbed too


# -- 25: a forget stopped by a signal ------------------------------------------

def _big_session(mem, tmp_path, word: str, n: int = 2000):
    sid = "a9a9a9a9-0000-4000-8000-000000000001"
    tp = tmp_path / "claude" / "-tmp-pk" / f"{sid}.jsonl"
    _transcript(tp, sid, [(f"secret {word} line {i} " if i % 100 == 0 else f"filler line {i} ") + "y" * 150
                          for i in range(n)], cwd="/tmp/pk")
    mem("init")
    mem("import", "claude-code", str(tp.parent), env=PERSON)
    return tp


def _forget_then(store_path, word: str, sig: int):
    """Start ``mem forget --match WORD --yes``, send ``sig`` once it has
    journalled the objects it will delete (the history rewrite follows)."""
    from tests.conftest import signal_forget_midway
    return signal_forget_midway(store_path, ["--match", word], sig, PERSON)


def test_forget_killed_midway_is_finished_by_the_next_writer(mem, store_path, tmp_path):
    import signal
    _big_session(mem, tmp_path, "lynx-copper-5150")
    rc, _err = _forget_then(store_path, "lynx-copper-5150", signal.SIGKILL)
    assert rc == -signal.SIGKILL
    doctor = mem("doctor", exit_code=None).stdout
    assert "forget was stopped" in doctor
    # fsck tells the same truth as doctor, with the same fix (test34b T12: it said "ok … 0 problems")
    fsck = mem("fsck", exit_code=6).stdout
    assert "error: index-journal: a forget was stopped before it finished" in fsck
    assert "mem fsck --repair  (or any write: the next lock finishes the forget)" in fsck
    assert "mem fsck --repair  (or any write: the next lock finishes the forget)" in doctor
    assert fsck.splitlines()[-1].startswith("UNFINISHED:") and "1 unfinished forget" in fsck
    mem("remember", "user/poke", "x", env=PERSON)            # takes the lock: finishes the forget
    assert "lynx-copper-5150" not in mem("search", "lynx-copper-5150", exit_code=None).stdout
    mem("fsck")


def test_forget_sent_sigterm_finishes_first(mem, store_path, tmp_path):
    import signal
    _big_session(mem, tmp_path, "ocelot-brass-6160")
    rc, err = _forget_then(store_path, "ocelot-brass-6160", signal.SIGTERM)
    assert rc == 128 + signal.SIGTERM, err
    assert (store_path / "index-journal").stat().st_size == 0      # done, not left to the next writer
    assert "ocelot-brass-6160" not in mem("search", "ocelot-brass-6160", exit_code=None).stdout
    mem("fsck")


# -- 7: a ref set back to an older version --------------------------------------

def test_ref_set_back_is_reported_and_restored(mem, store_path):
    mem("init")
    mem("remember", "project/a/b", "one", env=PERSON)
    mem("remember", "project/a/b", "two", env=PERSON)
    v1 = [x for x in mem("log", "project/a/b", "--json").json if x["version"] == 1][0]["id"]
    (store_path / "refs" / "facts" / "project" / "a" / "b").write_text(v1 + "\n")
    r = mem("fsck", exit_code=13)
    assert "facts/project/a/b" in r.stdout and "set back" in r.stdout
    # mem doctor tells what fsck tells, in fsck's words (test34b T25: it said nothing of it)
    [said] = [line[len("error: "):] for line in r.stdout.splitlines() if "set back" in line]
    doctor = mem("doctor", exit_code=None).stdout
    assert "[refs] 1 ref(s) serve an older value than their last write: " + said in doctor
    assert "fix: mem fsck --repair" in doctor
    mem("fsck", "--repair")
    assert mem("get", "project/a/b").stdout.strip() == "two"
    mem("fsck")
    assert "set back" not in mem("doctor", exit_code=None).stdout


# -- 9: deleted refs/tombstones/* ---------------------------------------------

def test_lost_tombstone_refs_are_reported_kept_by_gc_and_restored(mem, store_path):
    mem("init")
    mem("remember", "project/q/codename", "orchid-falcon-5521 is the launch codename", env=PERSON)
    mem("forget", "project/q/codename", "--yes", env=PERSON)
    refs = list((store_path / "refs" / "tombstones").iterdir())
    assert refs
    for p in refs:
        p.unlink()
    r = mem("fsck", exit_code=13)
    assert r.stdout.count("is missing") == len(refs)
    mem("gc", "--prune=now")                                 # keeps the tombstones
    r = mem("fsck", "--repair")
    assert sorted(p.name for p in (store_path / "refs" / "tombstones").iterdir()) == sorted(p.name for p in refs)
    r = mem("remember", "project/q/x", "orchid-falcon-5521 is the launch codename",
            env={"MEM_AGENT": "bot"}, exit_code=None)
    assert r.exit_code != 0 and "forgotten" in r.stderr


# -- 19: forget --match of one memory-file entry ---------------------------------

def test_forget_match_removes_only_the_memory_file_entry(mem):
    mem("init")
    for e in ("Deploys happen on Fridays only.", "CI runs on buildkite.", "Old codename was Ruby-Falcon-2231.",
              "Use pnpm, not npm."):
        mem("memory", "add", "memory", e, env=PERSON)
    r = mem("forget", "--match", "ruby-falcon-2231", "--dry-run")
    assert "only the matching entries go" in r.stdout
    mem("forget", "--match", "ruby-falcon-2231", "--yes", env=PERSON)
    shown = mem("memory", "show", "memory").stdout
    assert "Use pnpm, not npm." in shown and "CI runs on buildkite." in shown    # was: rolled back, pnpm lost
    assert "Ruby-Falcon" not in shown
    assert "ruby-falcon-2231" not in mem("search", "ruby-falcon-2231", exit_code=None).stdout.lower()
    assert "ruby-falcon" not in mem("get", "user/memory/journal").stdout.lower()
    mem("fsck")


# -- 21: --scrub-sources on a transcript being written ---------------------------

def test_scrub_sources_keeps_records_appended_meanwhile(mem, store_path, tmp_path):
    import json
    import threading
    mem("init")
    sid = "a0a0a0a0-0000-4000-8000-000000000001"
    tp = tmp_path / "claude" / "-tmp-ps" / f"{sid}.jsonl"
    _transcript(tp, sid, [(f"secret marmot-velvet-1234 line {i} " if i % 100 == 0 else f"filler line {i} ") + "x" * 200
                          for i in range(20000)], cwd="/tmp/ps")
    (store_path / "cache").mkdir(exist_ok=True)
    (store_path / "cache" / "imported-files").write_text(f"{tp}\n")    # as an import records it
    stop, appended = threading.Event(), []

    def agent() -> None:            # the agent's writer: one open and append per record, as Claude Code
        i = 0
        while not stop.is_set():
            with open(tp, "a", encoding="utf-8") as f:
                f.write(json.dumps({"type": "user", "uuid": f"ap-{i}",
                                    "message": {"role": "user", "content": f"appended {i}"}}) + "\n")
            appended.append(f"ap-{i}")
            i += 1

    t = threading.Thread(target=agent)
    t.start()
    try:
        r = mem("forget", "--match", "marmot-velvet-1234", "--scrub-sources", "--yes", env=PERSON)
    finally:
        stop.set()
        t.join()
    assert "redacted" in r.stderr + r.stdout
    recs = [json.loads(line) for line in tp.read_text("utf-8").splitlines()]
    have = {x.get("uuid") for x in recs}
    assert [u for u in appended if u not in have] == []          # was: records appended meanwhile lost
    assert "marmot-velvet-1234" not in tp.read_text("utf-8")
