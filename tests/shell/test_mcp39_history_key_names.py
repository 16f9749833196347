"""Lane mcp39 (tester finding test39 T1): the review shell's history keeps
no line whose key argument mem refuses as a name holding a credential
(``check_name``) — the shell, driven through a pipe, refuses the command and
``cache/shell-history`` never holds the secret; other lines are kept."""

from __future__ import annotations

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cmds.shell.app import run
from objstore.memory import facts
from objstore.memory.history import history_path

SECRETS = ("pin-4711", "Zq7mm44x")


def test_history_drops_lines_whose_key_holds_a_credential(store):
    facts.remember(store, "project/api/db", "postgres on 5433")
    out: list[str] = []
    typed = ("show project/api/db", "show user/pin-4711", "log project/api/db-password-Zq7mm44x",
             "diff 'user/pin-4711'", "quit")
    with create_pipe_input() as inp:
        inp.send_text("".join(t + "\r" for t in typed))
        assert run(store, input=inp, output=DummyOutput(), echo=out.append, background=False) == 0
    assert any("holds a credential" in ln for ln in out)      # the shell refused those commands
    text = history_path(store).read_text()
    assert text.splitlines() == ["show project/api/db", "quit"], text
    raw = b"".join(p.read_bytes() for p in store.root.rglob("*") if p.is_file())
    assert not any(s.encode() in raw for s in SECRETS)        # nowhere in the store
