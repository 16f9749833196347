"""Lane red14: ``mem forget --match TEXT`` takes TEXT out of what a turn
carries besides its text (its working directory and project name), out of
the project registry (``projects.json``) and the caches and logs that named
it, while the turns keep their text.  Real transcripts, real ``mem``
processes; the store is searched after forget + gc by ``mem scan`` (objects
decoded) and by a byte search of every file."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from tests.hooks._util import (REPO, asst, files_holding, hook_env, line, payload, question_and_answer, run_hook,
                               sleeping, text, user, wait_store_processes_gone, waits_on)

WORD = "zebraquokka"


def _turn_fields(store_path) -> list[tuple[str, str, str, str]]:
    """(session, text, cwd, project) of every turn."""
    from objstore.memory.opening import open_store
    from objstore.memory.sessions import walk_turns
    with open_store(store_path) as s:
        return [(tv.turn.session, tv.turn.text, tv.turn.cwd, tv.turn.project)
                for _n, head in s.refs.iter("sessions") for tv in walk_turns(s, head)]


def test_forget_match_takes_the_text_out_of_cwd_project_registry_and_caches(tmp_path, mem, store_path):
    work = tmp_path / WORD / "app"          # a real folder: the hook registers its project
    work.mkdir(parents=True)
    cwd = str(work)
    sid = "5d1e6f0a-0000-4000-8000-00000000e001"
    t = question_and_answer(tmp_path / "cc" / ("-" + cwd.strip("/").replace("/", "-")) / f"{sid}.jsonl", sid, cwd)
    other = tmp_path / "cc" / "-home-u-plain" / "5d1e6f0a-0000-4000-8000-00000000e002.jsonl"
    other.parent.mkdir(parents=True)
    osid = other.stem
    other.write_bytes(line(user("u2", "and the test command", osid, cwd="/home/u/plain"))
                      + line(asst("a2", "m2", [text("make test")], osid, cwd="/home/u/plain")))
    mem("import", "claude-code", str(tmp_path / "cc"))
    rc, _out, err, _s = run_hook(store_path, payload("UserPromptSubmit", "5d1e6f0a-0000-4000-8000-00000000e003",
                                                     None, prompt="which port does it use", cwd=cwd))
    assert rc == 0, err
    wait_store_processes_gone(store_path)     # the hook's capture child has stored the prompt (or given up)
    before = _turn_fields(store_path)
    assert any(s.endswith("e003") for s, *_ in before), before
    assert any(WORD in c for _s, _t, c, _p in before)
    assert WORD in (store_path / "projects.json").read_text()

    r = mem("forget", "--match", WORD, "--yes")
    assert "working directory or project name" in r.stdout, r.stdout
    mem("gc", "--prune=now")

    after = _turn_fields(store_path)
    assert sorted((s, x) for s, x, _c, _p in after) == sorted((s, x) for s, x, _c, _p in before)  # text kept
    assert not [f for f in after if WORD in f[2] or WORD in f[3]], after
    assert any(s == osid and c == "/home/u/plain" for s, _x, c, _p in after)   # another cwd stays
    got = mem("scan", WORD, "--no-remotes", "--json", exit_code=None)
    places = [h for h in (json.loads(got.stdout) if got.stdout.strip() else []) if h["place"] != "transcript"]
    assert places == [], places
    assert files_holding(store_path, WORD) == []
    assert mem("fsck").stdout
    # said once: a second forget finds nothing (the turn-meta cache read again, not stale)
    assert "nothing matches" in mem("forget", "--match", WORD, "--yes").stdout


def test_forget_match_dry_run_names_the_turns_and_changes_nothing(tmp_path, mem, store_path):
    sid = "5d1e6f0a-0000-4000-8000-00000000e011"
    cwd = f"/srv/{WORD}-prod"
    t = tmp_path / "cc" / "-srv-x" / f"{sid}.jsonl"
    t.parent.mkdir(parents=True)
    t.write_bytes(line(user("u1", "deploy it", sid, cwd=cwd)) + line(asst("a1", "m1", [text("deployed")], sid, cwd=cwd)))
    mem("import", "claude-code", str(tmp_path / "cc"))
    r = mem("forget", "--match", WORD, "--dry-run", "--json")
    doc = json.loads(r.stdout)
    assert doc["meta"] == 2 and len(doc["metadata"]) == 2 and doc["turns"] == 0, doc
    assert any(WORD in c for _s, _t, c, _p in _turn_fields(store_path))


def test_forget_match_after_the_session_went_scrubs_the_ledgers_that_still_name_it(tmp_path, mem, store_path):
    """Tester test14 (a): after ``forget --session`` + gc, the import ledgers
    (``cache/imported-files``, the read ledger) still named the transcript's
    folder; ``forget --match`` said "nothing matches" and left them."""
    sid = "5d1e6f0a-0000-4000-8000-00000000e021"
    t = tmp_path / "cc" / f"-home-u-{WORD}" / f"{sid}.jsonl"
    t.parent.mkdir(parents=True)
    t.write_bytes(line(user("u1", "hello", sid, cwd="/home/u/x")) + line(asst("a1", "m1", [text("hi")], sid, cwd="/home/u/x")))
    mem("import", "claude-code", str(tmp_path / "cc"))
    mem("forget", "--session", sid, "--yes")
    mem("gc", "--prune=now")
    assert files_holding(store_path, WORD)            # the ledgers name the folder
    r = mem("forget", "--match", WORD, "--yes")
    assert "scrubbed" in r.stdout and "cache/imported-files" in r.stdout, r.stdout
    assert files_holding(store_path, WORD) == []
    assert "nothing matches" in mem("forget", "--match", WORD, "--yes").stdout


def test_a_session_forget_match_touched_only_by_its_cwd_keeps_it_out_of_later_turns(tmp_path, mem, store_path):
    """The session goes on after ``forget --match`` took TEXT out of its
    turns' cwd (their text never held it): the next import stores the new
    turns without that cwd and with ``[forgotten]`` for TEXT in their text
    (final tester D1: the later turn came back with the cwd and the text)."""
    cwd = f"/home/dev/{WORD}-orchard/app"
    sid = "5d1e6f0a-0000-4000-8000-00000000e011"
    t = question_and_answer(tmp_path / "cc" / "-home-dev-x" / f"{sid}.jsonl", sid, cwd)
    mem("import", "claude-code", str(tmp_path / "cc"))
    r = mem("forget", "--match", f"{WORD}-orchard", "--yes")
    assert "working directory or project name" in r.stdout, r.stdout
    with t.open("ab") as f:   # the session goes on
        f.write(line(user("u2", f"is {WORD.title()}-Orchard deployed yet", sid, cwd=cwd)))
    mem("import", "claude-code", str(tmp_path / "cc"))
    fields = [f for f in _turn_fields(store_path) if f[0] == sid]
    assert len(fields) == 3, fields
    assert not [f for f in fields if WORD in f[1].lower() or WORD in f[2] or WORD in f[3]], fields
    assert "is [forgotten] deployed yet" in [f[1] for f in fields]


_LATE_CHILD = """
import sys
import objstore
s = objstore.open_store(sys.argv[1])
print(objstore.capture_prompt(s, session_id=sys.argv[2], prompt=sys.argv[3], cwd=sys.argv[4],
                              time_ms=int(sys.argv[5]), index=True).status)
s.close()
"""


def test_a_prompt_said_before_forget_match_and_stored_after_it_is_stored_as_forget_left_the_others(
        tmp_path, mem, store_path):
    """The prompt hook returns at once and its detached child stores the
    prompt (``_hookrun.fork_off``): a ``forget --match`` run meanwhile did
    not see the turn, and the child then stored the text, its cwd and
    registered the project again after forget had said it was gone (the
    test above failed ~1 run in 4 on it).  The child's own code
    (``capture_prompt`` with the hook's clock) run after the forget: the
    turn is stored as forget left the others, and the session's next prompt
    too."""
    work = tmp_path / WORD / "app"
    work.mkdir(parents=True)
    cwd = str(work)
    sid = "5d1e6f0a-0000-4000-8000-00000000e031"
    t = question_and_answer(tmp_path / "cc" / "-x" / f"{sid}.jsonl", sid, cwd)
    mem("import", "claude-code", str(tmp_path / "cc"))
    late = "5d1e6f0a-0000-4000-8000-00000000e032"
    said = int(time.time() * 1000) - 1000      # the prompt was said, the hook forked its child ...
    assert "working directory or project name" in mem("forget", "--match", WORD, "--yes").stdout
    p = subprocess.run([sys.executable, "-c", _LATE_CHILD, str(store_path), late, f"does {WORD} build on arm",
                        cwd, str(said)], capture_output=True, text=True, timeout=120, cwd=REPO,
                       env=hook_env(store_path))   # ... which stores it only now
    assert p.returncode == 0 and p.stdout.strip() == "captured", p.stderr
    rc, _out, err, _s = run_hook(store_path, payload("UserPromptSubmit", late, None, prompt=f"and {WORD} on x86",
                                                     cwd=cwd), env=hook_env(store_path, MEM_HOOK_FORK="0"))
    assert rc == 0, err
    mem("gc", "--prune=now")
    mine = [f for f in _turn_fields(store_path) if f[0] == late]
    assert sorted(x for _s, x, _c, _p in mine) == ["and [forgotten] on x86", "does [forgotten] build on arm"], mine
    assert all(c == "" and p == "" for _s, _x, c, p in mine), mine
    assert WORD not in (store_path / "projects.json").read_text()
    assert files_holding(store_path, WORD) == []


_LATE_STATEMENT = """
import sys
import objstore
s = objstore.open_store(sys.argv[1])
r = objstore.capture_prompt(s, session_id=sys.argv[2], prompt=sys.argv[3], cwd=sys.argv[4],
                            time_ms=int(sys.argv[5]), index=True, statement=True)
print(r.status, r.stated is not None)
s.close()
"""


def test_a_statement_said_before_forget_match_and_stored_after_it_writes_no_fact_holding_the_text(
        tmp_path, mem, store_path):
    """Session 23 Y5: the same late capture of a "remember that …" prompt
    (``capture_prompt(statement=True)``, the hook's child) stored its turn
    redacted but wrote its fact in the clear.  The statement's fact now
    follows the session's ``--match`` rules (``sync.write_stated``): no
    value holding the text is written, the turn is stored redacted."""
    work = tmp_path / "plain" / "app"
    work.mkdir(parents=True)
    cwd = str(work)
    mem("remember", "project/x/note", f"the {WORD} is a made-up animal")
    late = "5d1e6f0a-0000-4000-8000-00000000e041"
    said = int(time.time() * 1000) - 1000      # the prompt was said, the hook forked its child ...
    mem("forget", "--match", WORD, "--yes")
    p = subprocess.run([sys.executable, "-c", _LATE_STATEMENT, str(store_path), late,
                        f"remember that the staging host is {WORD}", cwd, str(said)],
                       capture_output=True, text=True, timeout=120, cwd=REPO,
                       env=hook_env(store_path))   # ... which stores it only now
    assert p.returncode == 0 and p.stdout.split()[0] == "captured", p.stderr
    rc, _out, err, _s = run_hook(store_path, payload("UserPromptSubmit", late, None,
                                                     prompt=f"remember that the build host is {WORD}-2",
                                                     cwd=cwd), env=hook_env(store_path, MEM_HOOK_FORK="0"))
    assert rc == 0, err
    mem("gc", "--prune=now")
    mine = sorted(x for s, x, _c, _p in _turn_fields(store_path) if s == late)
    assert mine == ["remember that the build host is [forgotten]-2",
                    "remember that the staging host is [forgotten]"], mine
    assert WORD not in mem("keys", "--json").stdout
    assert files_holding(store_path, WORD) == []


_FORGET_HOLDING = """
import sys, time
import objstore
from objstore.memory.forget import forget
s = objstore.open_store(sys.argv[1])
with s.lock("forget"):          # as 'mem forget --match TEXT --yes' holds it, from its plan to its end
    forget(s, match=sys.argv[2])
    time.sleep(0.05)
    print("forgotten", flush=True)
    sys.stdin.readline()        # ... still running (its index purge, its scrub) when the prompt is said
s.close()
"""


def test_a_prompt_said_while_forget_match_runs_is_stored_as_forget_left_the_others(tmp_path, mem, store_path):
    """Session 23 Y5: a prompt said while a ``forget --match`` ran (after
    its tombstones' time, before it let the store lock go) was stored in
    the clear by the hook's child, which waited for that lock: the late
    rule only looked at forgets that started after the prompt.  The
    capture now knows it waited behind a forget (``StoreLock.waited_for``)."""
    mem("remember", "project/x/note", f"the {WORD} is a made-up animal")
    late = "5d1e6f0a-0000-4000-8000-00000000e051"
    cwd = str(tmp_path)
    f = subprocess.Popen([sys.executable, "-c", _FORGET_HOLDING, str(store_path), WORD], cwd=REPO,
                         env=hook_env(store_path), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert f.stdout.readline().strip() == "forgotten"
        said = int(time.time() * 1000)             # the prompt is said now, the forget still runs
        child = subprocess.Popen([sys.executable, "-c", _LATE_STATEMENT, str(store_path), late,
                                  f"remember that the staging host is {WORD}", cwd, str(said)],
                                 cwd=REPO, env=hook_env(store_path), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        lock = store_path / "locks" / "store.lock"
        deadline = time.monotonic() + 60
        # the child waits for the forget's lock and has read who holds it: it sleeps between two tries
        # (a fixed 0.2 s was too short for that under load: the forget would end unseen)
        while not (waits_on(child.pid, lock) and sleeping(child.pid)) and child.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.005)
        assert child.poll() is None, child.communicate()
        f.stdin.write("\n")
        f.stdin.flush()
        assert f.wait(timeout=60) == 0
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0 and out.split()[0] == "captured", err
    finally:
        for p in (f,):
            if p.poll() is None:
                p.kill()
                p.wait()
    mem("gc", "--prune=now")
    mine = [x for s, x, _c, _p in _turn_fields(store_path) if s == late]
    assert mine == ["remember that the staging host is [forgotten]"], mine
    assert WORD not in mem("keys", "--json").stdout
    assert files_holding(store_path, WORD) == []
