"""Lane red14: ``mem forget --match TEXT`` takes TEXT out of what a turn
carries besides its text (its working directory and project name), out of
the project registry (``projects.json``) and the caches and logs that named
it, while the turns keep their text.  Real transcripts, real ``mem``
processes; the store is searched after forget + gc by ``mem scan`` (objects
decoded) and by a byte search of every file."""

from __future__ import annotations

import json

from tests.hooks._util import asst, files_holding, line, payload, run_hook, text, user

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
    t = tmp_path / "cc" / ("-" + cwd.strip("/").replace("/", "-")) / f"{sid}.jsonl"
    t.parent.mkdir(parents=True)
    t.write_bytes(line(user("u1", "what is the build command", sid, cwd=cwd))
                  + line(asst("a1", "m1", [text("run make all")], sid, cwd=cwd)))
    other = tmp_path / "cc" / "-home-u-plain" / "5d1e6f0a-0000-4000-8000-00000000e002.jsonl"
    other.parent.mkdir(parents=True)
    osid = other.stem
    other.write_bytes(line(user("u2", "and the test command", osid, cwd="/home/u/plain"))
                      + line(asst("a2", "m2", [text("make test")], osid, cwd="/home/u/plain")))
    mem("import", "claude-code", str(tmp_path / "cc"))
    rc, _out, err, _s = run_hook(store_path, payload("UserPromptSubmit", "5d1e6f0a-0000-4000-8000-00000000e003",
                                                     None, prompt="which port does it use", cwd=cwd))
    assert rc == 0, err
    before = _turn_fields(store_path)
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
    t = tmp_path / "cc" / "-home-dev-x" / f"{sid}.jsonl"
    t.parent.mkdir(parents=True)
    t.write_bytes(line(user("u1", "what is the build command", sid, cwd=cwd))
                  + line(asst("a1", "m1", [text("run make all")], sid, cwd=cwd)))
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
