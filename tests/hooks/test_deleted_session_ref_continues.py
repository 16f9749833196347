"""A session whose ref was deleted (a damaged ``refs/packed-sessions``, a
file removed) continues its chain (crash30's left-out): the next captured
turn started a new chain of one turn beside the stored ones, which only
the reflog kept, and ``fsck`` said ok.  Now the writer, finding the
session's state cache but no ref (a forget drops both), continues from the
head the session's reflog names and sets the ref again.  Real
``mem hook claude-code`` processes on a real store."""

from __future__ import annotations

from tests.hooks._util import payload, run_hook_done, turns, wait_store_processes_gone

S = "48484848-2222-3333-4444-555555555555"


def _prompt(store_path, cwd, text: str) -> None:
    rc, _o, err, _t = run_hook_done(store_path, payload("UserPromptSubmit", S, None, cwd=str(cwd), prompt=text))
    assert rc == 0, err
    wait_store_processes_gone(store_path)   # the prompt's turn is stored by the hook's capture child


def test_the_next_turn_continues_the_chain_its_reflog_names(store_path, tmp_path):
    api = tmp_path / "api"
    api.mkdir()
    _prompt(store_path, api, "the quokka plan one")
    _prompt(store_path, api, "the quokka plan two")
    assert [(q, x) for _s, q, _r, x, _src in turns(store_path)] == [(1, "the quokka plan two"),
                                                                     (0, "the quokka plan one")]
    (store_path / "refs" / "sessions" / S).unlink()
    _prompt(store_path, api, "the quokka plan three")
    assert [(q, x) for _s, q, _r, x, _src in turns(store_path)] == [
        (2, "the quokka plan three"), (1, "the quokka plan two"), (0, "the quokka plan one")]
