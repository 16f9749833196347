"""Session 33 (lane cue33): what a person says in a "remember that" is stored
as they meant it — more take-backs and verbs of change (test32b).

Y2: "Actually, it's X", "I mean X", "Sorry, X" stored the withdrawn value;
"Forget it" stored it too; a take-back on the prompt's next line was not
read; "Correction: <the whole statement again>" stored nothing.
Y7 (rest): a corrected password or PIN ("Actually, it's X.", the correction
on the next line, "Correction: 4712.") left the new value in the clear in
the captured prompt.
Y1 (rest): "Never mind, great." stored "the deploy day is great".
Y6 (rest): "remember that the db is on pg-3, can you update the config?"
stored nothing: the statement before the request is said.
Y10/Y3 (rest): "got switched over to", "changes to" named keys
"api-got-switched", "log-level-changes"; "the api has moved to k8s"
replaced "the api is written in go" (another attribute of the api).
Real ``mem hook claude-code`` processes, read back with ``mem log``."""

from __future__ import annotations

import json
import subprocess
import sys

from objstore.capture.statements import statement_key, statement_of
from tests.hooks._util import REPO, hook_env, payload, run_hook_done, turns
from tests.hooks.test_remember_asked import _Session

SHAPES = [  # (prompt, statement or None)
    ("remember that the db port is 5432. Actually, it's 6543.", "the db port is 6543"),
    ("remember that the db port is 5432, I mean 6543", "the db port is 6543"),
    ("remember that the db port is 5432. I meant 6543.", "the db port is 6543"),
    ("remember that the db port is 5432. Sorry, 6543.", "the db port is 6543"),
    ("remember that the db port is 5432. Actually, the db port is 6543.", "the db port is 6543"),
    ("remember that the db port is 5432. Forget it.", None),
    ("remember that the db port is 5432.\nActually, 6543.", "the db port is 6543"),
    ("remember that the db port is 5432\nCorrection: 6543", "the db port is 6543"),
    ("remember that the db port is 5432.\nNever mind.", None),
    ("remember that the db port is 5432. Correction: the db port is 6543.", "the db port is 6543"),
    ("remember that the db port is 5432. Correction: the db host is pg-4.", "the db host is pg-4"),
    ("remember that my pin is 4711. Correction: 4712.", "my pin is 4712"),
    ("remember that the deploy day is Friday. Never mind, great.", None),
    ("remember that the db is on pg-3, can you update the config?", "the db is on pg-3"),
    ("remember that the db is on pg-3 and could you restart it?", "the db is on pg-3"),
    ("remember that the db host is pg-1. Scratch that, the db host is pg-2.", "the db host is pg-2"),
    ("remember that the db host is pg-1. Never mind, the docs are wrong.", None),   # only "Correction:" another's
    # not a take-back: no new value after the softer words, another subject, a later line of its own
    ("remember that the api is ok, sorry for the noise", "the api is ok, sorry for the noise"),
    ("remember that the db port is 5432. Actually, the cache host is lime-3.", "the db port is 5432"),
    ("remember that the db port is 5432. I mean it.", "the db port is 5432"),
    ("remember that the db port is 5432.\nThe tests are slow.", "the db port is 5432"),
    ("remember that the db port is 5432. Actually, it's 6543 on staging.", "the db port is 5432"),
    # a real question stays no statement
    ("remember that the db was reset?", None),
    ("can you update the config? remember that", None),
]

KEYED = [  # (statement, key name): a verb of change ends the subject (Y10/Y3)
    ("the api got switched over to grpc", "api"),
    ("the log level changes to debug", "log-level"),
    ("the app version was bumped to 2.4", "app-version"),
    ("the cache moves to redis-4", "cache"),
]


def test_the_shapes_are_read_as_meant():
    for said, want in SHAPES:
        assert statement_of(said) == want, said
    for said, name in KEYED:
        assert statement_of(f"remember that {said}") == said
        assert statement_key(said, "web") == f"project/web/remembered/{name}", said


class _Hooked(_Session):
    """:class:`_Session` whose prompt hook is delivered again while a loaded machine ran it past its budget."""

    def prompt(self, words: str, env: dict | None = None) -> str:
        from tests.hooks._util import line, user
        from tests.hooks.test_remember_asked import _now_iso
        self.n += 1
        with open(self.t, "ab") as f:
            f.write(line(user(f"u{self.n}", words, self.sid, ts=_now_iso())))
        rc, out, _err, _dt = run_hook_done(self.store, payload("UserPromptSubmit", self.sid, self.t, prompt=words))
        assert rc == 0
        return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else ""

    def log(self, name: str) -> list[str]:
        """The bodies ``mem log project/proj/remembered/<name> --json`` shows, newest first."""
        p = subprocess.run([sys.executable, "-m", "cmds", "log", f"project/proj/remembered/{name}", "--json"],
                           text=True, capture_output=True, env=hook_env(self.store), cwd=REPO, timeout=120)
        assert p.returncode == 0, p.stderr
        return [v["body"] for v in json.loads(p.stdout)]


def test_a_take_back_said_another_way_stores_what_was_meant(tmp_path):
    """Y2, Y1, Y6 through the prompt hook: the corrected value is the key's
    only version; a bare take-back or a closing stores nothing; the
    statement before a request is stored."""
    s = _Hooked(tmp_path)
    said = [("remember that the db port is 5432. Actually, it's 6543.", "db-port", "the db port is 6543"),
            ("remember that the cache port is 6379, I mean 6380", "cache-port", "the cache port is 6380"),
            ("remember that the api port is 8080. Sorry, 8081.", "api-port", "the api port is 8081"),
            ("remember that the queue host is mq-1.\nActually, it's mq-2.", "queue-host", "the queue host is mq-2"),
            ("remember that the build host is ci-3. Correction: the build host is ci-4.", "build-host",
             "the build host is ci-4"),
            ("remember that the db is on pg-3, can you update the config?", "db", "the db is on pg-3")]
    for prompt, _name, want in said:
        assert want in s.prompt(prompt), prompt
    for prompt in ("remember that the log host is lg-5. Forget it.",
                   "remember that the deploy day is Friday. Never mind, great."):
        assert "Remembered" not in s.prompt(prompt), prompt
    assert sorted(k.rsplit("/", 1)[1] for k in s.remembered()) == sorted(n for _p, n, _w in said)
    for _prompt, name, want in said:
        assert s.log(name) == [want], name


def test_a_verb_of_change_restates_its_subject_not_another_attribute(tmp_path):
    """Y10/Y3 through the prompt hook: "got switched over to", "changes to",
    "was bumped to" are the key's next version; "has moved to" is not a
    new value of what the api "is written in"."""
    s = _Hooked(tmp_path)
    for first, then, name in (("the api transport is rest", "the api transport got switched over to grpc",
                               "api-transport"),
                              ("the log level is info", "the log level changes to debug", "log-level"),
                              ("the app version is 2.3", "the app version was bumped to 2.4", "app-version")):
        s.prompt(f"remember that {first}")
        assert then in s.prompt(f"remember that {then}")
        assert s.log(name) == [then, first], name
    s.prompt("remember that the api is written in go")
    s.prompt("remember that the api has moved to k8s")
    assert s.log("api") == ["the api is written in go"]
    moved = [k.rsplit("/", 1)[1] for k in s.remembered() if k.rsplit("/", 1)[1].startswith("api-")
             and k.rsplit("/", 1)[1] != "api-transport"]
    assert len(moved) == 1 and s.log(moved[0]) == ["the api has moved to k8s"], moved


def test_a_corrected_secret_is_redacted_in_the_turn_and_the_fact(tmp_path):
    """Y7 (rest): the taken-back value and the new one are both redacted in
    the captured prompt, and the fact holds neither in the clear."""
    s = _Hooked(tmp_path)
    values = ("Hx7kk2Lp", "Qm4rr8Tz", "Jw5tt9Rb", "Zp3vv6Nc", "4711", "4712")
    for prompt in ("remember that the wifi password is Hx7kk2Lp. Actually, it's Qm4rr8Tz.",
                   "remember that the vpn password is Jw5tt9Rb.\nCorrection: Zp3vv6Nc",
                   "remember that my pin is 4711. Correction: 4712."):
        assert "Remembered as you asked" in s.prompt(prompt), prompt
    texts = [t[3] for t in turns(s.store)]
    assert any("wifi password is [REDACTED" in t for t in texts), texts
    assert not any(v in t for t in texts for v in values), texts
    for name in ("wifi-password", "vpn-password", "pin"):
        bodies = s.log(name)
        assert len(bodies) == 1 and "[REDACTED:" in bodies[0], (name, bodies)
        assert not any(v in bodies[0] for v in values), bodies


def test_a_next_line_take_back_on_a_sealed_key_is_withheld(tmp_path):
    """A take-back on the prompt's next line says the sealed key's value
    again: withheld with the line of the statement, never in the clear."""
    from tests.hooks._util import wait_store_processes_gone
    from tests.hooks.test_remember_sealed_key import _sealed_store, _texts
    home, _cwd, prompt = _sealed_store(tmp_path)
    prompt("remember that the db host is pg-zqx-5555.\nActually, it's pg-zqx-5556.\nthe tests are slow")
    wait_store_processes_gone(home)
    texts = _texts(home)
    assert not any("pg-zqx" in t for t in texts), texts
    assert any("the tests are slow" in t for t in texts), texts
