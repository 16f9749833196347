"""Session 31 (tester test31): "remember that" asked in other words (U9), a
restatement the hook could not write (U11), and the hook's own key in
rule 5's one-name order (U10).

U9: "can you remember that …?", "don't forget: …", "note to self: …",
"remember the following: …", "remember (for later): …", "remember for next
time: …" were dropped without a word; the look-alikes that ask nothing
(tasks, questions about memory, quoted text) still state nothing.
U11: a restated "remember that" typed while a gc held the store lock was
written later by the Stop hook's sync as a second key, the old value
current and first; now it is the key's next version, unless the key's
value was set after the prompt.
U10: ``project/<p>/remembered/db-host`` (the hook's key) is the name
``db-host`` of ``user/db-host`` and ``global/db-host``: the project's value
goes first in recall, the prompt hook and the session block.
Real ``mem hook`` and ``mem recall`` processes on real stores."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from objstore import list_keys
from objstore.capture.statements import statement_key, statement_of
from objstore.memory.facts import remember, versions
from objstore.memory.opening import open_store
from tests.hooks._util import (REPO, asst, hook_env, hook_log, line, lock_held, payload, run_hook, run_hook_done,
                               store_as_it_was, text, user, wait_store_processes_gone)

SID = "0b1c2d3e-0000-4000-8000-0000000031c9"

ASKED = [  # (prompt, statement): test31 U9, word for word, and neighbours
    ("can you remember that the api port is 9000?", "the api port is 9000"),
    ("don't forget: the cache ttl is 300 seconds", "the cache ttl is 300 seconds"),
    ("note to self: the build agent is runner-7", "the build agent is runner-7"),
    ("remember the following: the log level is debug", "the log level is debug"),
    ("remember (for later): the cache host is redis-9", "the cache host is redis-9"),
    ("remember for next time: the api host is api-3", "the api host is api-3"),
    ("Could you please remember that the queue host is mq-2? thanks", "the queue host is mq-2"),
    ("do not forget, the deploy day is Tuesday", "the deploy day is Tuesday"),
    ("note to self \u2014 the vpn interface is wg0", "the vpn interface is wg0"),
    ("remember for future reference: the region is eu-west-1", "the region is eu-west-1"),
]

NOT_ASKED = [  # look-alikes: a task, a question about memory, quoted text, no statement
    "do you remember that the api port is 9000?", "can you remember the api port?",
    "can you remember when we moved the db?", "can you remember that for me?", "could you remember that?",
    "don't forget to run the tests", "don't forget: push the tag before lunch", "note to self: run the tests",
    "note to self: fix the flaky auth test", "remember: run the migrations first",
    "don't forget: the tests are slow so run only the unit ones",
    '"remember that the db host is pg-9" is what the README says', "> note to self: the vpn is wg0",
    "what do you remember about the cache?", "I wrote a note to self: the vpn is wg0",
    "remember the following files are generated", "do you remember the following: the db host?",
]


def test_the_asked_wordings_state_their_fact_and_the_look_alikes_nothing():
    for said, want in ASKED:
        assert statement_of(said) == want, said
    for said in NOT_ASKED:
        assert statement_of(said) is None, said
    # a label after the cue is not the subject (test31 U9, polish): "as a reminder" never names the key
    got = statement_of("remember that, as a reminder, the build host is ci-4")
    assert got == "the build host is ci-4"
    assert statement_key(got, "shop") == "project/shop/remembered/build-host"


def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Session:
    """A Claude Code transcript the test writes as the agent would, and the
    hooks it sends, as real ``mem hook claude-code`` processes."""

    def __init__(self, tmp_path: Path, sid: str = SID) -> None:
        self.store, self.sid = tmp_path / "store", sid
        self.t = tmp_path / "p" / f"{sid}.jsonl"
        self.t.parent.mkdir(parents=True, exist_ok=True)
        self.n = 0
        self.t.write_bytes(line(user("u0", "first task", sid, ts=_now_iso()))
                           + line(asst("a0", "msg_0", [text("finished 0")], sid, ts=_now_iso())))
        self.stop("finished 0", write=False)

    def prompt(self, words: str, env: dict | None = None, once: bool = False) -> str:
        """Append the prompt to the transcript, send its hook; the context it injected ("" none).
        Delivered again, on the store as it was, while it reached its budget or logged a failure
        (``run_hook_done``: a loaded machine fails the hook open), unless ``once``."""
        self.n += 1
        with open(self.t, "ab") as f:
            f.write(line(user(f"u{self.n}", words, self.sid, ts=_now_iso())))
        data = payload("UserPromptSubmit", self.sid, self.t, prompt=words)
        if once:
            rc, out, _err, _dt = run_hook(self.store, data, env=env)
        else:
            wait_store_processes_gone(self.store)    # (an earlier prompt's capture child: the copy is whole)
            rc, out, _err, _dt = run_hook_done(self.store, data, env=env,
                                               reset=store_as_it_was(self.store, self.store.parent / "store-was"))
        assert rc == 0
        return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else ""

    def stop(self, answer: str = "noted", write: bool = True) -> None:
        if write:
            self.n += 1
            with open(self.t, "ab") as f:
                f.write(line(asst(f"a{self.n}", f"msg_{self.n}", [text(answer)], self.sid, ts=_now_iso())))
        rc, *_ = run_hook_done(self.store, payload("Stop", self.sid, self.t, last_assistant_message=answer))
        assert rc == 0

    def remembered(self) -> dict[str, list[str]]:
        """Every ``remembered/`` key: the bodies of its versions, newest first."""
        with open_store(self.store) as s:
            return {k: [v.fact.body for v in versions(s, k)] for k, _h in list_keys(s) if "/remembered/" in k}


def test_the_asked_wordings_are_remembered_by_the_prompt_hook(tmp_path):
    """U9 through the hook: each is confirmed and written; a look-alike is
    neither (no "Remembered", no key)."""
    s = _Session(tmp_path)
    for said, want in ASKED[:6]:
        ctx = s.prompt(said)
        assert "Remembered as you asked (user_stated)" in ctx and want in ctx, (said, ctx, hook_log(s.store))
    bodies = sorted(b[0] for b in s.remembered().values())
    assert bodies == sorted(w for _s, w in ASKED[:6])
    for said in ("do you remember that the api port is 9000?", "don't forget: push the tag before lunch",
                 "can you remember that for me?"):
        assert "Remembered as you asked" not in s.prompt(said), said
    assert sorted(b[0] for b in s.remembered().values()) == bodies


def _only_db_host(keys: dict[str, list[str]]) -> list[str]:
    got = {k: v for k, v in keys.items() if "/remembered/db-host" in k}
    assert len(got) == 1, got          # never a second, hash-suffixed key
    return next(iter(got.values()))


def _restated_while_locked(tmp_path: Path) -> _Session:
    """The hook writes pg-old-1; then "… is pg-new-2" is typed while another
    process holds the store lock (a gc, an import) and no detached child may
    take the write: nothing is written yet."""
    s = _Session(tmp_path)
    assert "Remembered as you asked" in s.prompt("remember that the db host is pg-old-1")
    s.stop()
    with lock_held(s.store) as holder:
        assert s.prompt("remember that the db host is pg-new-2", env=hook_env(s.store, MEM_HOOK_FORK="0"),
                        once=True) == ""
        assert holder.poll() is None
    return s


def test_a_late_restatement_is_the_keys_next_version(tmp_path):
    """U11: the restatement typed while the store was locked (a gc, an
    import) is written by the Stop sync as the key's v2, as the hook would
    have written it; the old value is history, not a current second key."""
    s = _restated_while_locked(tmp_path)
    assert _only_db_host(s.remembered()) == ["the db host is pg-old-1"]
    s.stop("Noted, pg-new-2.")
    assert _only_db_host(s.remembered()) == ["the db host is pg-new-2", "the db host is pg-old-1"], hook_log(s.store)
    s.stop("again")
    assert _only_db_host(s.remembered()) == ["the db host is pg-new-2", "the db host is pg-old-1"]


def test_a_value_set_after_the_late_prompt_stands(tmp_path):
    """The other way: the person set the key after the locked prompt
    (``mem remember``): the late statement is older and does not replace it
    (nor becomes a second current key)."""
    s = _restated_while_locked(tmp_path)
    (key,) = [k for k in s.remembered() if "/remembered/db-host" in k]
    got = subprocess.run([sys.executable, "-m", "cmds", "remember", key, "the db host is pg-manual-9"],
                         env=hook_env(s.store), cwd=REPO, capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    s.stop("Noted.")
    assert _only_db_host(s.remembered()) == ["the db host is pg-manual-9", "the db host is pg-old-1"]


@pytest.fixture
def three_db_hosts(tmp_path):
    """U10's store: the person's and a global default of ``db-host``, then
    the project's value said with "remember that" in the project."""
    s = _Session(tmp_path)
    with open_store(s.store) as st:
        remember(st, "global/db-host", "pg-global-1 is the shared db host")
        remember(st, "user/db-host", "pg-mine-2")
    assert "Remembered as you asked" in s.prompt("remember that the db host is pg-shop-3")
    s.stop()
    (key,) = [k for k in s.remembered() if k.endswith("/remembered/db-host")]
    assert key.startswith("project/")
    return s, key


def test_the_hooks_key_is_the_projects_value_of_the_name(three_db_hosts):
    """U10: the project's ``remembered/db-host`` goes before ``user/db-host``
    and ``global/db-host`` in recall (text and JSON), the prompt hook and
    the session block."""
    s, key = three_db_hosts
    project = key.split("/")[1]
    got = subprocess.run([sys.executable, "-m", "cmds", "recall", "what is the db host", "--project", project,
                          "--json"], env=hook_env(s.store), cwd=REPO, capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    facts = [h["key"] for h in json.loads(got.stdout)["hits"] if h["kind"] == "fact"]
    assert facts[:3] == [key, "user/db-host", "global/db-host"], facts
    later = _Session(s.store.parent, sid=SID[:-4] + "0002")   # the next session in the project asks
    ctx = later.prompt("what is the db host?")
    assert "pg-shop-3" in ctx and "pg-mine-2" in ctx and "pg-global-1" in ctx, ctx
    assert ctx.index("pg-shop-3") < ctx.index("pg-mine-2") < ctx.index("pg-global-1"), ctx
    rc, out, _err, _dt = run_hook_done(s.store, payload("SessionStart", SID[:-4] + "0003", None, source="startup"))
    assert rc == 0
    block = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert block.index("pg-shop-3") < block.index("pg-mine-2"), block


LEAD_INS = [  # test32 X1, word for word: a lead-in word before the cue stored nothing and said nothing
    ("which port does postgres use? also remember that the deploy day is Friday.", "the deploy day is Friday"),
    ("Also, remember that the staging region is eu-west-2.", "the staging region is eu-west-2"),
    ("btw remember that the release manager is Dana.", "the release manager is Dana"),
    ("ok remember that the cache TTL is 300 seconds.", "the cache TTL is 300 seconds"),
    ("Fix the flaky test and remember that the test db is testdb-4.", "the test db is testdb-4"),
    ("Great work. And remember that the api timeout is 30s.", "the api timeout is 30s"),
    ("FYI: remember that the queue is rabbitmq-2.", "the queue is rabbitmq-2"),
    ("Make sure to remember that the build uses pnpm.", "the build uses pnpm"),
    # test36 T20: a greeting before the cue
    ("Hey, remember that the db port is 5432", "the db port is 5432"),
    ("hey Claude, remember that the region is eu-central-1", "the region is eu-central-1"),
    ("Hi, please remember that the deploy day is Friday.", "the deploy day is Friday"),
]
NOT_LEAD_INS = ["and remember to run the tests", "so remember to push", "ok remember when we fixed the cache?",
                "also don't forget: push the tag", "I can't remember that function's name",
                "Sure, but remember that it is slow",
                # test32b Y6: a question is no statement (X1's lead-ins brought these to everyday prompts)
                "Did you run the migrations and remember that the db was reset?",
                "Oh, remember that bug from last week? It's back.", "Oh remember that flaky test? It failed again.",
                "btw remember that meeting yesterday, what did we decide about the port?",
                "I can't remember that command, and remember that you ran it yesterday?",
                "Hey, do you remember that bug?", "hi remember me?"]
#: test32b Y1: closing words after a take-back are no new value; a take-back of an earlier value keeps the statement
TAKE_BACKS = [("remember that the deploy day is Thursday. Never mind, thanks!", None),
              ("remember that the deploy day is Friday. Never mind, that's all.", None),
              ("remember that the db port is 5432. My mistake, I told you 5433 yesterday.", "the db port is 5432"),
              ("remember that the db port is 5432. Correction: 6543.", "the db port is 6543"),
              # test32b Y15: a take-back of a later sentence is not the statement's
              ("remember that the db port is 6543. The cache host is lime-3, no wait, lime-4.", "the db port is 6543"),
              ("remember that the port is 8080. Run the tests. Never mind.", "the port is 8080")]


def test_a_cue_after_a_lead_in_word_states_its_fact():
    for said, want in LEAD_INS:
        assert statement_of(said) == want, said
    for said in NOT_LEAD_INS:
        assert statement_of(said) is None, said
    for said, want in TAKE_BACKS:
        assert statement_of(said) == want, said
    # test32b Y3: more verbs of change end the subject; an adverb is no part of the key
    for said, key in [("remember that the deploy host has been renamed to fig-99", "deploy-host"),
                      ("remember that the deploy host has been replaced by fig-99", "deploy-host"),
                      ("remember that the deploy host got changed to fig-99", "deploy-host"),
                      ("remember that the db version has been upgraded to 16", "db-version"),
                      ("remember that the db password now is Zq7mmTr33xQ", "db-password"),
                      ("remember that the data set from March is in s3", "data-set-from-march")]:
        assert statement_key(statement_of(said), "web") == f"project/web/remembered/{key}", said
    # test32b Y5: a noun first is no to-do; a bracket label holds a statement, not an aside or a question
    for said, want in [("note to self: order of migrations matters", "order of migrations matters"),
                       ("note to self: clean build takes 20 minutes", "clean build takes 20 minutes"),
                       ("note to self: clean up the cache dir", None), ("[note] the build host is ci-4",
                                                                         "the build host is ci-4"),
                       ("[note] see the README for details", None), ("[note] why is the build host ci-4?", None),
                       ("(remember) this PR touches the auth code, review carefully", None),
                       ("[note] I think the build host might be ci-4, not sure", None)]:
        assert statement_of(said) == want, said


def test_a_cue_after_a_lead_in_word_is_remembered_by_the_prompt_hook(tmp_path):
    s = _Session(tmp_path)
    for said, want in (LEAD_INS[1], LEAD_INS[4]):
        ctx = s.prompt(said)
        assert "Remembered as you asked (user_stated)" in ctx and want in ctx, (said, ctx, hook_log(s.store))
    assert sorted(b[0] for b in s.remembered().values()) == sorted([LEAD_INS[1][1], LEAD_INS[4][1]])


def test_a_long_run_of_lead_in_words_is_read_in_linear_time():
    """test32b Y12: the lead-in group read each blank two ways, so "ok " * n
    + "remember" took 2^n steps (n=22: 3.8 s; a prompt of 40 stalled every
    later hook of its session, and the proxy). A run of thousands now ends;
    the bound is a hang's, not a timing (the reading takes milliseconds)."""
    import subprocess
    import sys
    code = ("from objstore.capture.statements import statement_of\n"
            "for t in ['ok ' * 3000 + 'remember', 'and ' * 3000 + 'remember', 'also' + ' ' * 20000 + 'remember',\n"
            "          'so, ' * 3000 + 'remember that', 'btw ' * 60 + 'remember that the db is pg-3']:\n"
            "    print(repr(statement_of(t)))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:5] == ["None", "None", "None", "None", "'the db is pg-3'"], p.stdout


def test_a_statement_goes_on_in_the_key_a_store_before_the_upgrade_named_it(tmp_path):
    """test32b Y18: session 32 made "now", "currently" and "still" stop words
    of a statement's key, so a statement said again after the upgrade got a
    new key ("db-runs-postgres" beside "db-now-runs") and the old value stayed
    current beside the new.  It goes on in the old key; a new subject still
    gets its own."""
    s = _Session(tmp_path)
    s.prompt("remember that the cache host is redis-9")
    (key,) = s.remembered()
    project = key.split("/")[1]
    with open_store(s.store) as st:    # as a store written before session 32 named them
        for name, body in (("db-now-runs", "the db now runs postgres 15"),
                           ("deploy-host-currently", "the deploy host currently is walrus-1")):
            remember(st, f"project/{project}/remembered/{name}", body, trust="user_stated", owner="user")
    for said in ("remember that the db now runs postgres 16", "remember that the deploy host currently is walrus-2",
                 "remember that the queue now runs rabbitmq"):
        assert "Remembered as you asked" in s.prompt(said), said
    got = {k.rpartition("/")[2]: v for k, v in s.remembered().items()}
    assert got == {"cache-host": ["the cache host is redis-9"],
                   "db-now-runs": ["the db now runs postgres 16", "the db now runs postgres 15"],
                   "deploy-host-currently": ["the deploy host currently is walrus-2",
                                             "the deploy host currently is walrus-1"],
                   "queue-runs": ["the queue now runs rabbitmq"]}, got   # (session 34: subject and verb)


def test_a_turn_synced_after_forgetting_a_remembered_key_is_not_served_with_its_value(tmp_path):
    """test33b T4: ``mem forget KEY`` withheld the value in the turns already
    stored, but the agent's answer quoting it, in the transcript before the
    forget and synced by the Stop hook after it, was stored and served by
    search.  The forget now writes the value's text rule first (a hash)."""
    s = _Session(tmp_path)
    s.prompt("remember that the launch codename is zebra-umbrella-7731")
    with open(s.t, "ab") as f:      # the agent's answer is in the transcript, not yet synced
        f.write(line(asst("a9", "msg_9", [text("Noted: zebra-umbrella-7731 is the launch codename.")], s.sid,
                          ts=_now_iso())))
    (key,) = s.remembered()
    env = {k: v for k, v in hook_env(s.store).items() if k != "MEM_AGENT"}
    r = subprocess.run([sys.executable, "-m", "cmds", "forget", key, "--yes"], env=env, cwd=REPO,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    s.stop("Noted: zebra-umbrella-7731 is the launch codename.", write=False)     # the sync stores the answer now
    r = subprocess.run([sys.executable, "-m", "cmds", "search", "zebra", "umbrella", "--json"], env=env, cwd=REPO,
                       capture_output=True, text=True, timeout=120)
    assert "zebra" not in r.stdout.lower(), r.stdout


def test_the_sessions_later_turns_are_stored_without_a_value_forgotten_by_key(tmp_path):
    """test34 T1: after ``mem forget KEY`` the same session went on; its next
    prompt's Stop sync stored the agent's answer and a tool output quoting the
    value in the clear (masked only when served), and ``mem scan`` found it
    in the store after ``gc --prune=now``.  The forget now gives each session
    whose turns it rewrote the value's ``match:<session>`` rule, so the turn
    writer withholds it in the session's later turns as a ``--match`` does."""
    from objstore import scan_store
    s = _Session(tmp_path)
    s.prompt("remember that the staging bucket is acme-stage-7731")
    s.stop("Got it: the staging bucket is acme-stage-7731.")
    (key,) = s.remembered()
    env = {k: v for k, v in hook_env(s.store).items() if k != "MEM_AGENT"}

    def mem(*args):
        r = subprocess.run([sys.executable, "-m", "cmds", *args], env=env, cwd=REPO, capture_output=True, text=True,
                           timeout=120)
        assert r.returncode in (0, 1), r.stdout + r.stderr
        return r

    assert mem("forget", key, "--yes").returncode == 0
    s.prompt("list the buckets again please")
    s.stop("Buckets: acme-stage-7731 and acme-prod-1.")
    assert mem("gc", "--prune=now").returncode == 0
    assert scan_store(s.store, [b"acme-stage-7731"]) == []
    out = mem("show", s.sid[:8]).stdout
    assert "Buckets:" in out and "acme-prod-1" in out and "acme-stage-7731" not in out, out
    assert mem("fsck").returncode == 0
