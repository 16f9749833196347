"""Session 32 (lane cue32): what a person says in a "remember that" is stored
as they meant it.

W11 (test31c): "remember that the deploy host has been changed to fig-99"
was filed under a new key ``deploy-host-has`` (and "has changed to" under a
third, hash-suffixed one), so the old value stayed current beside it; a
credential's "… wifi password has just been changed to X" got a key
``wifi-password-has`` the key-name rule does not know.  A verb of change
ends the subject as a copula does: the statement is the key's next version.
W16 (test31c): "… fig-9. Scratch that, remember that the cache host is
lime-3." stored fig-9, "… 5432. Correction: 6543." stored 5432, "…
Just kidding." stored the value the person withdrew.  Now the restated one
wins, a correction's value replaces the withdrawn one, a bare take-back
stores nothing.
cue31's left-out: bracket labels (``[note] …``, ``(remember) …``) are cues,
and more to-do verbs ("note to self: clean up the cache dir") state no fact.
Real ``mem hook`` processes on real stores."""

from __future__ import annotations

from objstore.capture.statements import statement_key, statement_of
from tests.hooks.test_remember_asked import _Session

CHANGED = [  # (prompt, statement, key name): a verb of change ends the subject (W11)
    ("remember that the deploy host has been changed to fig-99", "the deploy host has been changed to fig-99",
     "deploy-host"),
    ("remember that the deploy host has changed to lime-22", "the deploy host has changed to lime-22", "deploy-host"),
    ("remember that the deploy host has just been changed to plum-3", "the deploy host has just been changed to plum-3",
     "deploy-host"),
    ("remember that the wifi password has just been changed to Wq3rrNb55z", None, "wifi-password"),
    ("remember that my pin has become 4711", None, "pin"),
    ("remember that the staging db password changed from Kp9vvLm44y to Zq7mmTr33x", None, "staging-db-password"),
    ("remember that the team that changed to rust is the core team", None, "team-changed-rust"),   # a relative clause
]

TAKEN_BACK = [  # (prompt, statement or None): the person withdrew or corrected it in the same prompt (W16)
    ("remember that the cache host is fig-9. Scratch that, remember that the cache host is lime-3.",
     "the cache host is lime-3"),
    ("remember that the db port is 5432. Correction: 6543.", "the db port is 6543"),
    ("remember that the db port is 5433 \u2014 no wait, 5434", "the db port is 5434"),
    ("remember that the db port is 6543. Actually no, make it 6000.", "the db port is 6000"),
    ("remember that the api listens on port 9090, no wait, 9091", "the api listens on port 9091"),
    ("remember that the cache host is fig-9, my mistake: lime-3", "the cache host is lime-3"),
    ("remember that the db port is 5432. Just kidding, it is still 5432.", "the db port is 5432"),
    ("remember that the deploy host is kiwi-17. Just kidding.", None),
    ("remember that the log host is lg-5. Never mind.", None),
    ("remember that the db host is pg-1. Scratch that.", None),
    ("remember that the db port is 5432. Never mind, I'll update the runbook myself.", None),
    # not a take-back: the phrase qualifies something else, or is part of a value
    ("remember that the api is ok, never mind the docs", "the api is ok, never mind the docs"),
    ("remember that the flag is --no-wait", "the flag is --no-wait"),
    ("remember that the port is 5433. It is used by pg.", "the port is 5433"),
]

LABELLED = [  # (prompt, statement or None): cue31's left-outs
    ("[note] the build host is ci-4", "the build host is ci-4"),
    ("(remember) the db is pg-2", "the db is pg-2"),
    ("[Note]: the vpn interface is wg0", "the vpn interface is wg0"),
    ("[remember] clean up the cache dir", None),
    ("note to self: clean up the cache dir", None),
    ("don't forget: remove the debug flag", None),
    ("(note) fix the build", None),
    ("[todo] the build host is ci-4", None),
    ("note to self: upgrade path is via 2.x", "upgrade path is via 2.x"),   # a noun with a copula: a fact
    ("remember: order ids are uuids", "order ids are uuids"),
    ("remember: use pnpm, not npm", "use pnpm, not npm"),
]


def test_a_change_verb_ends_the_subject_a_take_back_is_read_and_labels_are_cues():
    for said, want, name in CHANGED:
        got = statement_of(said)
        assert got == (want or said[len("remember that "):]), said
        assert statement_key(got, "web") == f"project/web/remembered/{name}", said
    for said, want in TAKEN_BACK + LABELLED:
        assert statement_of(said) == want, said


def test_a_changed_value_is_the_keys_next_version_in_the_hook(tmp_path):
    """W11 through the prompt hook: one key, the newest value current, the
    others its history; the credential's key is named for the credential."""
    s = _Session(tmp_path)
    assert "Remembered as you asked" in s.prompt("remember that the deploy host is kiwi-17")
    for said, _w, _n in CHANGED[:3]:
        assert "Remembered as you asked" in s.prompt(said), said
    got = {k: v for k, v in s.remembered().items() if "deploy-host" in k}
    assert list(got) == [k for k in got if k.endswith("/remembered/deploy-host")] and len(got) == 1, got
    assert next(iter(got.values())) == ["the deploy host has just been changed to plum-3",
                                        "the deploy host has changed to lime-22",
                                        "the deploy host has been changed to fig-99", "the deploy host is kiwi-17"]
    later = _Session(s.store.parent, sid=s.sid[:-4] + "0002")
    ctx = later.prompt("what is the deploy host?")
    assert "plum-3" in ctx and "kiwi-17" not in ctx and "fig-99" not in ctx, ctx
    s.prompt(CHANGED[3][0])
    assert [k.rsplit("/", 1)[1] for k in s.remembered() if "wifi" in k] == ["wifi-password"]


def test_a_value_taken_back_in_the_prompt_is_not_stored(tmp_path):
    """W16 through the prompt hook: the restated or corrected value is
    stored and confirmed; a withdrawn one is neither; a bare take-back
    stores nothing and confirms nothing."""
    s = _Session(tmp_path)
    ctx = s.prompt(TAKEN_BACK[0][0])
    assert "Remembered as you asked" in ctx and "lime-3" in ctx, ctx
    ctx = s.prompt(TAKEN_BACK[1][0])
    assert "Remembered as you asked" in ctx and "the db port is 6543" in ctx, ctx
    for said in ("remember that the deploy host is kiwi-17. Just kidding.", "remember that the log host is lg-5. Never mind."):
        assert "Remembered" not in s.prompt(said), said
    got = s.remembered()
    assert sorted(got) == sorted(k for k in got if k.endswith(("/remembered/cache-host", "/remembered/db-port"))), got
    assert sorted(v[0] for v in got.values()) == ["the cache host is lime-3", "the db port is 6543"]
    assert all(len(v) == 1 for v in got.values()), got   # the withdrawn fig-9 / 5432 never a version


def test_a_corrected_statement_on_a_sealed_key_is_captured_withheld(tmp_path):
    """A take-back's corrected statement is not in the prompt as typed ("…
    pg-zqx-a. Correction: pg-zqx-b."): on a sealed key the captured prompt
    keeps neither value (the whole statement withheld), never the clear."""
    from tests.hooks._util import wait_store_processes_gone
    from tests.hooks.test_remember_sealed_key import _sealed_store, _texts
    home, _cwd, prompt = _sealed_store(tmp_path)
    said = prompt("remember that the db host is pg-zqx-a. Correction: pg-zqx-b.")
    assert "Not stored, though asked" in said and "pg-zqx" not in said
    wait_store_processes_gone(home)
    texts = _texts(home)
    assert "remember that [REDACTED:sealed-value]" in texts, texts
    assert not any("pg-zqx" in t for t in texts), texts


def test_any_take_back_on_a_sealed_key_withholds_the_whole_line(tmp_path):
    """test32b Y9: a take-back the statement reading takes otherwise ("My mistake, I told you X
    yesterday" keeps the first statement; "Actually, it's X" is no single-value correction) left
    the new value, or the sealed one, in the captured prompt while the hook said it was sealed."""
    from tests.hooks._util import wait_store_processes_gone
    from tests.hooks.test_remember_sealed_key import _sealed_store, _texts
    home, _cwd, prompt = _sealed_store(tmp_path)
    for said in ("remember that the db host is pg-zqx-5555. My mistake, I told you pg-zqx-one yesterday.",
                 "remember that the db host is pg-zqx-7777. Actually, it's pg-zqx-7778.",
                 "remember that the db host is pg-zqx-6666 -- no wait, pg-zqx-6667"):
        prompt(said)
    wait_store_processes_gone(home)
    texts = _texts(home)
    assert not any("pg-zqx" in t for t in texts), texts
