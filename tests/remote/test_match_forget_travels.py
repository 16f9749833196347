"""``forget --match`` follows the text to a machine that had not seen it
(test16 F7, test16b B6): machine B writes a value holding a text that
machine A forgot by ``--match`` before B learnt of that forget; A's pull
(and B's, once the forget reaches it) forgets that value as A's forget
would have, says so without naming the text, and a value a person states
again *after* the forget reached their machine stays.  Real ``mem``
processes on two stores and a folder remote; the library path on a folder
and on S3 (moto)."""

from __future__ import annotations

import json

from objstore import scan_store

TEXT = "falcon-umber-4410"


def _homes(tmp_path, mem):
    a, b, r = tmp_path / "a", tmp_path / "b", tmp_path / "remote"
    r.mkdir()
    mem("remember", "project/a/k1", f"{TEXT} is the build host", env={"MEM_HOME": str(a)})
    mem("remember", "project/a/other", "the runner is in rack four", env={"MEM_HOME": str(a)})
    mem("remote", "add", "origin", str(r), env={"MEM_HOME": str(a)})
    mem("push", env={"MEM_HOME": str(a)})
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env={"MEM_HOME": str(a)})
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env={"MEM_HOME": str(b)})
    return {"MEM_HOME": str(a)}, {"MEM_HOME": str(b)}, a, b


def _get(mem, env, key):
    return mem("get", key, "--json", env=env, exit_code=None)


def test_pull_forgets_a_value_written_where_the_forget_had_not_arrived(tmp_path, mem):
    ea, eb, a, b = _homes(tmp_path, mem)
    mem("forget", "--match", "falcon-umber", "--yes", env=ea)
    mem("gc", "--prune=now", env=ea)
    mem("remember", "project/a/k1", f"{TEXT} is the build host (v2)", env=eb)
    mem("remember", "project/a/k2", f"use {TEXT.upper()} for builds", env=eb)   # case differs
    mem("push", env=eb)
    out = mem("pull", env=ea)
    assert "2 values holding a text 'forget --match' forgot" in out.stdout, out.stdout
    assert "falcon" not in (out.stdout + out.stderr).lower()
    assert _get(mem, ea, "project/a/k1").exit_code != 0
    assert _get(mem, ea, "project/a/k2").exit_code != 0
    assert json.loads(_get(mem, ea, "project/a/other").stdout)["body"] == "the runner is in rack four"
    mem("gc", "--prune=now", env=ea)
    assert scan_store(a, [b"falcon", b"FALCON"]) == []
    assert "0 problems" in mem("fsck", env=ea).stdout
    # A's push carries the emptied versions; B's pull converges on them
    mem("push", env=ea)
    mem("pull", env=eb)
    mem("gc", "--prune=now", env=eb)
    assert _get(mem, eb, "project/a/k1").exit_code != 0
    assert scan_store(b, [b"falcon", b"FALCON"]) == []
    log_a = mem("log", "project/a/other", "--json", env=ea).stdout
    assert log_a == mem("log", "project/a/other", "--json", env=eb).stdout


def test_the_forget_arriving_forgets_what_was_written_before_it(tmp_path, mem):
    """The other direction: A pushes the forget first; B, which wrote the
    text offline, learns of it by its pull and forgets its own copy."""
    ea, eb, a, b = _homes(tmp_path, mem)
    mem("remember", "project/a/k3", f"offline note: {TEXT} rebooted", env=eb)
    mem("forget", "--match", "falcon-umber", "--yes", env=ea)
    mem("push", env=ea)
    out = mem("pull", env=eb)
    assert "1 value holding a text 'forget --match' forgot" in out.stdout, out.stdout
    mem("gc", "--prune=now", env=eb)
    assert _get(mem, eb, "project/a/k3").exit_code != 0
    assert scan_store(b, [b"falcon"]) == []
    mem("push", env=eb)
    mem("pull", env=ea)
    mem("gc", "--prune=now", env=ea)
    assert scan_store(a, [b"falcon"]) == []


def test_a_person_stating_it_after_the_forget_arrived_keeps_it(tmp_path, mem):
    """The rule of ``mem remember`` (a person may state a forgotten text
    again) holds across machines: B stated it after its pull brought the
    forget, so A's pull keeps it."""
    ea, eb, a, b = _homes(tmp_path, mem)
    mem("forget", "--match", "falcon-umber", "--yes", env=ea)
    mem("push", env=ea)
    mem("pull", env=eb)
    mem("remember", "project/a/k1", f"{TEXT} is back as the build host", env=eb)
    mem("push", env=eb)
    out = mem("pull", env=ea)
    assert "forget --match" not in out.stdout
    assert json.loads(_get(mem, ea, "project/a/k1").stdout)["body"] == f"{TEXT} is back as the build host"


def test_library_pull_on_folder_and_s3(machines):
    from objstore import forget, remember
    a = machines("a")
    remember(a.store, "project/a/k1", f"{TEXT} is the build host")
    a.push()
    b = machines("b", clone_from=a)
    forget(a.store, match="falcon-umber")
    remember(b.store, "project/a/k1", f"{TEXT} is the build host (v2)")
    b.push()
    res = a.pull()
    assert res.forgotten_text == 1
    assert a.store.refs.read("facts/project/a/k1") is None
    a.push()
    res = b.pull()
    assert b.store.refs.read("facts/project/a/k1") is None


def test_a_key_forget_leaves_another_key_holding_its_value(tmp_path, mem):
    """test28 Y2: a whole-key forget on A (no ``--match``) forgets that key's
    versions on every machine, and nothing else: a value the person wrote on
    B under another key, which merely holds the forgotten value, stays at B's
    pull (as it stays on A when written there), and so does a key forget's
    value on A's own store."""
    ea, eb, a, b = _homes(tmp_path, mem)
    mem("remember", "project/x/db", "Postgres on port 5432", env=ea)
    mem("push", env=ea)
    mem("pull", env=eb)
    mem("remember", "project/api/db", "We run Postgres on port 5432 in CI and locally", env=eb)  # not pushed
    mem("forget", "project/x/db", "--yes", env=ea)
    mem("push", env=ea)
    out = mem("pull", env=eb)
    assert "holding a text" not in out.stdout and "1 forgotten value purged" in out.stdout, out.stdout
    assert json.loads(_get(mem, eb, "project/api/db").stdout)["body"] == (
        "We run Postgres on port 5432 in CI and locally")
    assert _get(mem, eb, "project/x/db").exit_code != 0    # the forgotten key is gone on B too
    mem("push", env=eb)
    mem("pull", env=ea)
    assert json.loads(_get(mem, ea, "project/api/db").stdout)["body"] == (
        "We run Postgres on port 5432 in CI and locally")
    assert _get(mem, ea, "project/x/db").exit_code != 0
    # an agent's value holding the forgotten value is still refused on the machine that learnt of the forget
    r = mem("remember", "project/api/note", "Postgres on port 5432 again", env={**eb, "MEM_AGENT": "claude"},
            exit_code=6)
    assert "holds a text that was forgotten" in r.stderr


def test_a_match_text_that_is_a_whole_value_still_travels(tmp_path, mem):
    """test28b Z1: ``forget --match X`` where X is also the whole value of a
    fact it forgets writes a key tombstone and a text tombstone of one
    digest, as a key forget of X does; the reasons tell them apart now
    (``text:`` / ``value:``), so the --match text still forgets, at B's
    pull, the values B wrote holding it before the forget arrived."""
    ea, eb, a, b = _homes(tmp_path, mem)
    mem("remember", "project/x/codename", "saffron-walrus-3390", env=ea)
    mem("push", env=ea)
    mem("pull", env=eb)
    mem("remember", "project/x/note", "the codename saffron-walrus-3390 is public from Monday", env=eb)
    mem("forget", "--match", "saffron-walrus-3390", "--yes", env=ea)
    mem("push", env=ea)
    out = mem("pull", env=eb)
    assert "1 value holding a text 'forget --match' forgot" in out.stdout, out.stdout
    assert _get(mem, eb, "project/x/note").exit_code != 0
    mem("push", env=eb)
    mem("pull", env=ea)
    mem("gc", "--prune=now", env=ea)
    assert scan_store(a, [b"saffron-walrus", b"SAFFRON-WALRUS"]) == []


def test_a_version_forget_leaves_a_later_version_stating_the_value_again(tmp_path, mem):
    """test29 P1: ``mem forget KEY@v1`` on A forgets that version on every
    machine, and nothing else: B's newer version of the key stating v1's
    text again (a rollback B wrote before the forget reached it) stays
    current at B's pull and A's, as a same-text version stays on A when the
    forget runs there, also through A's own push (it used to be purged)."""
    ea, eb, a, b = _homes(tmp_path, mem)
    mem("remember", "project/x/db", "Postgres on port 5432", env=ea)
    mem("remember", "project/x/db", "Postgres on port 6543", env=ea)
    mem("push", env=ea)
    mem("pull", env=eb)
    mem("remember", "project/x/db", "Postgres on port 5432", env=eb)       # B rolls back (v3)
    mem("forget", "project/x/db@v1", "--yes", env=ea)
    mem("push", env=ea)
    out = mem("pull", env=eb)
    assert "purged" not in out.stdout, out.stdout
    for env in (eb, ea):
        if env is ea:
            mem("push", env=eb)
            mem("pull", env=ea)
        cur = json.loads(_get(mem, env, "project/x/db").stdout)
        assert cur["body"] == "Postgres on port 5432" and cur["version"] == 3, cur
        log = json.loads(mem("log", "project/x/db", "--json", env=env).stdout)
        assert [v["version"] for v in log if not v["body"]] == [1], log
    # locally: the same order keeps the later version through a push and a gc
    mem("remember", "project/y/db", "MySQL on port 3306", env=ea)
    mem("remember", "project/y/db", "MySQL on port 3307", env=ea)
    mem("remember", "project/y/db", "MySQL on port 3306", env=ea)
    mem("forget", "project/y/db@v1", "--yes", env=ea)
    mem("push", env=ea)
    mem("gc", "--prune=now", env=ea)
    assert json.loads(_get(mem, ea, "project/y/db").stdout)["version"] == 3
    assert "0 problems" in mem("fsck", env=ea).stdout
    # a copy of the forgotten version itself still goes: B never saw y's forget, its v1 is purged at pull
    mem("pull", env=eb)
    log = json.loads(mem("log", "project/y/db", "--json", env=eb).stdout)
    assert [v["version"] for v in log if not v["body"]] == [1], log


def test_a_version_forget_with_any_reason_names_the_version(tmp_path):
    """test29b Q1: the MCP admin ``forget`` passes its own reason words
    (``mcp forget (<caller>)``); its version forget must still write the
    version's tombstone, or A's own push empties A's later version stating
    the same value."""
    from objstore import open_store, remember, versions
    from objstore.memory.forget import forget
    from objstore.memory.tombstones import all_tombstones, forgotten_check, version_exact
    from objstore.memory.withdrawals import VERSION_RECORDS
    with open_store(tmp_path / "s", create=True) as st:
        for v in ("Postgres on port 5432", "Postgres on port 6543", "Postgres on port 5432"):
            remember(st, "project/x/db", v)
        v1 = [v for v in versions(st, "project/x/db") if v.fact.version == 1][0]
        forget(st, what="project/x/db@v1", reason="mcp forget (owner)")
        keyed = [t for t in all_tombstones(st) if t.key == "project/x/db"
                 and t.reason not in VERSION_RECORDS]   # (not the version's metadata record: withdrawals)
        assert [version_exact(t) for t in keyed] == [v1.fact.recorded_at], [t.reason for t in keyed]
        check = forgotten_check(st)
        live = [v for v in versions(st, "project/x/db") if not v.fact.forgotten]
        assert [v.fact.version for v in live if check(v.fact)] == []      # v3 (same value) is not forgotten


def test_a_version_forget_leaves_an_agents_copy_under_another_key(tmp_path, mem):
    """test29b Q9: an agent's note under another key stating the value of
    the version the person forgets stays through the forget and gc (as the
    forget's preview shows) and now through A's push and B's pull too: the
    merge read the version tombstone as a forget of the value everywhere
    and removed the note's key whole."""
    ea, eb, a, b = _homes(tmp_path, mem)
    mem("remember", "project/x/db", "Postgres on port 5432", env=ea)
    mem("remember", "project/x/db", "Postgres on port 6543", env=ea)
    mem("remember", "project/x/other", "Postgres on port 5432", env={**ea, "MEM_AGENT": "claude"})
    mem("push", env=ea)
    mem("pull", env=eb)
    mem("forget", "project/x/db@v1", "--yes", env=ea)
    mem("gc", "--prune=now", env=ea)
    out = mem("push", env=ea)
    assert "purged" not in out.stdout, out.stdout
    mem("pull", env=eb)
    for env in (ea, eb):
        assert json.loads(_get(mem, env, "project/x/other").stdout)["body"] == "Postgres on port 5432"
        assert json.loads(_get(mem, env, "project/x/db").stdout)["body"] == "Postgres on port 6543"
    # the same key still refuses an agent's write of the forgotten version's value
    r = mem("remember", "project/x/db", "Postgres on port 5432", env={**ea, "MEM_AGENT": "claude"}, exit_code=None)
    assert r.exit_code == 6, (r.stdout, r.stderr)


def test_a_turn_written_where_the_forget_had_not_arrived_does_not_travel_back(tmp_path, mem):
    """test36 T14: B's session quoted the text offline; A forgot it by
    ``--match`` and pushed; B's push (which pulls first) sent B's turn to the
    remote in the clear, and A's pull brought it back into A.  The merge now
    replaces the text in such a turn as A's forget would have."""
    from tests.hooks._util import hook_env, payload, run_hook_done
    ea, eb, a, b = _homes(tmp_path, mem)
    t = tmp_path / "t.jsonl"
    t.touch()
    rc, _o, _e, _d = run_hook_done(b, payload("UserPromptSubmit", "s-t14", t, cwd=str(tmp_path),
                                              prompt=f"use vendor code {TEXT} for the order"),
                                   env=hook_env(b, MEM_HOOK_FORK="0", MEM_NO_HELPER="1"))
    assert rc == 0 and TEXT in mem("show", "s-t14", env=eb).stdout
    mem("forget", "--match", "falcon-umber", "--yes", env=ea)
    mem("gc", "--prune=now", env=ea)
    mem("push", env=ea)
    mem("push", env=eb)
    shown = mem("show", "s-t14", env=eb).stdout
    assert "falcon" not in shown and "use vendor code [forgotten]-4410 for the order" in shown, shown
    mem("pull", env=ea)
    for env, root in ((ea, a), (eb, b)):
        mem("gc", "--prune=now", env=env)
        assert scan_store(root, [b"falcon", b"FALCON"]) == [], root
        assert "0 problems" in mem("fsck", env=env).stdout
    assert mem("show", "s-t14", env=ea).stdout == mem("show", "s-t14", env=eb).stdout
