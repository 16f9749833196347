"""The prompt-toolkit session, driven through a pipe (no terminal): the
acceptance scenario of the review shell, Ctrl-C/Ctrl-D, key bindings,
completion and the history kept inside the store."""

from __future__ import annotations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cmds.shell.app import run
from cmds.shell.commands import build_catalog
from cmds.shell.completer import Refresher, ShellCompleter, make_completer
from objstore.memory import facts, queue
from objstore.memory.history import history_path, load_history

ACCEPT, REJECT, EDIT, FORGET = "project/acme/db", "project/acme/cache", "user/editor", "project/acme/secret"


def session(store, keys: str, **kw) -> list[str]:
    """Run the shell on ``keys`` (all typed ahead: no key here waits for
    asynchronous work; a Tab does, see test_tab_completes_a_key_in_the_session)."""
    out: list[str] = []
    with create_pipe_input() as inp:
        inp.send_text(keys)
        assert run(store, input=inp, output=DummyOutput(), echo=out.append, background=False, **kw) == 0
    return out


@pytest.fixture
def queued(store):
    for key, value in ((ACCEPT, "postgres 16"), (REJECT, "redis 7"), (EDIT, "neovim"), (FORGET, "canary-30411 orchard")):
        facts.remember(store, key, value)
    ids = {key: facts.remember(store, key, value, trust="agent_observed").queued
           for key, value in ((ACCEPT, "postgres 17"), (REJECT, "memcached"), (EDIT, "emacs"))}
    assert queue.count(store) == 3
    return ids


def test_acceptance_scripted_review_session(store, queued, invoke):
    before = {k: [v.id for v in facts.versions(store, k)] for k in (ACCEPT, REJECT, EDIT)}
    out = session(store, f"accept {queued[ACCEPT][:8]}\r"
                         f"reject {queued[REJECT][:8]}\r"
                         f"edit {queued[EDIT][:8]}\r"
                         "\x15helix 24\r"          # Ctrl-U clears the pre-filled proposal, then the new value
                         f"forget {FORGET}\r"
                         "yes\r"
                         "quit\r")
    assert out[0] == "3 items to review:"
    assert any(ln.startswith(f"accepted {queued[ACCEPT][:12]}: wrote {ACCEPT} v2") for ln in out)
    assert any(ln.startswith(f"rejected {queued[REJECT][:12]}") for ln in out)
    assert any(ln.startswith(f"accepted {queued[EDIT][:12]} (edited): wrote {EDIT} v2") for ln in out)
    assert any(ln.startswith(f"forgot {FORGET}: 1 version") for ln in out)

    # the store shows exactly those changes in mem log
    log = {k: invoke("log", k, "--json").json for k in (ACCEPT, REJECT, EDIT)}
    assert [(v["version"], v["body"], v["trust"], v["current"]) for v in log[ACCEPT]] == [
        (2, "postgres 17", "user_stated", True), (1, "postgres 16", "user_stated", False)]
    assert [(v["version"], v["body"]) for v in log[REJECT]] == [(1, "redis 7")]
    assert [(v["version"], v["body"], v["trust"]) for v in log[EDIT]] == [
        (2, "helix 24", "user_stated"), (1, "neovim", "user_stated")]
    for k in (ACCEPT, REJECT, EDIT):  # the old versions are the very same objects
        assert [v["id"] for v in log[k]][-len(before[k]):] == before[k]
    assert invoke("log", FORGET, exit_code=4).stderr.startswith(f"Error: no key {FORGET}")
    assert [k["key"] for k in invoke("keys", "--json").json] == [REJECT, ACCEPT, EDIT]
    assert invoke("queue", "list", "--json").json == []
    assert invoke("fsck").stdout.startswith("ok:")
    from objstore.memory.forget import scan_store
    assert scan_store(store.root, [b"canary-30411"]) == []

    # the rejected proposal, written again by an agent, is not queued again
    invoke("remember", REJECT, "memcached", "--trust", "agent_observed", exit_code=6)
    assert invoke("queue", "list", "--json").json == []
    assert invoke("get", REJECT).stdout == "redis 7\n"


def test_ctrl_c_cancels_the_line_and_ctrl_d_exits(store, queued):
    out = session(store, "reject\x03accept\r\x04")
    assert any(ln.startswith(f"accepted {queued[ACCEPT][:12]}") for ln in out)  # the first, not rejected
    assert not any(ln.startswith("rejected") for ln in out)
    assert queue.count(store) == 2


def test_ctrl_c_at_a_question_cancels_it(store, queued):
    out = session(store, f"forget {FORGET}\r\x03quit\r")
    assert "nothing forgotten" in out
    assert facts.current(store, FORGET).fact.body == "canary-30411 orchard"


def test_key_bindings_run_the_common_actions(store, queued):
    session(store, "\x1bn\x1br\x1ba\r" "quit\r")  # Alt-n next, Alt-r reject it, Alt-a accept the next
    assert facts.current(store, REJECT).fact.body == "redis 7"  # the second item was rejected
    assert facts.current(store, EDIT).fact.body == "emacs"  # then the third accepted
    assert [i.id for i in queue.items(store)] == [queued[ACCEPT]]
    assert load_history(store)[:2] == ["next", "reject"]


def test_history_lives_in_the_store_or_nowhere(store, queued):
    session(store, "queue\rshow user/editor\rquit\r")
    assert load_history(store) == ["queue", "show user/editor", "quit"]
    assert history_path(store).parent == store.root / "cache"
    history_path(store).unlink()
    session(store, "queue\rquit\r", history=False)
    assert not history_path(store).exists()


def test_up_arrow_recalls_history_from_the_store(store, queued):
    session(store, f"show {EDIT}\rquit\r")
    out = session(store, "\x1b[A\x1b[A\rquit\r")  # Up, Up: "show user/editor" again
    assert any(ln.startswith(f"{EDIT}  v1") for ln in out)


def test_completer_offers_keys_and_ids(store, queued):
    comp = ShellCompleter(build_catalog(store))
    got = [c.text for c in comp.get_completions(Document("show proj"), CompleteEvent(completion_requested=True))]
    assert got == [REJECT, ACCEPT, FORGET]
    got = list(comp.get_completions(Document(f"accept {queued[EDIT][:3]}"), CompleteEvent()))
    assert [c.text for c in got] == [queued[EDIT][:12]] and got[0].start_position == -3
    r = Refresher(lambda: build_catalog(store))
    dyn = make_completer(r)
    r.refresh(wait=True)
    assert [c.text for c in dyn.get_completions(Document("pin user"), CompleteEvent())] == [EDIT]
    facts.remember(store, "user/shell", "zsh")
    r.refresh()  # in the background
    r.wait()
    assert [c.text for c in dyn.get_completions(Document("pin user"), CompleteEvent())] == [EDIT, "user/shell"]
    assert r.catalog.counts.facts == 5


def test_tab_completes_a_key_in_the_session(store, queued, monkeypatch):
    """Enter is sent only once the Tab's completion is in the line: the
    completion runs as a task of the event loop, and a fixed pause lost
    that race on a loaded CI machine."""
    import threading
    import time

    import cmds.shell.app as app
    made: list = []

    class Recorded(app.PromptSession):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append(self)

    monkeypatch.setattr(app, "PromptSession", Recorded)
    out: list[str] = []
    with create_pipe_input() as inp:
        inp.send_text("log user/ed\t")

        def feed():
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not (made and made[0].default_buffer.text == f"log {EDIT}"):
                time.sleep(0.02)
            inp.send_text("\r")
            while time.monotonic() < deadline and not any(ln.startswith("v1 ") for ln in out):
                time.sleep(0.02)      # the log is shown: the next prompt takes "quit"
            inp.send_text("quit\r")
        t = threading.Thread(target=feed, daemon=True)
        t.start()
        assert app.run(store, input=inp, output=DummyOutput(), echo=out.append, background=False) == 0
        t.join()
    assert any(ln.startswith("v1 ") and "(current)" in ln for ln in out)
    assert load_history(store)[0] == f"log {EDIT}"
