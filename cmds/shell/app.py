"""The prompt-toolkit session of ``mem review``: construction and loop.

:func:`run` opens on the queue (the list and its first item), then reads
commands until ``quit`` or Ctrl-D; Ctrl-C cancels the line being typed.
Questions (``forget``'s confirmation, ``edit``'s value) are asked in a
second, history-less prompt, so values typed there never reach the history
file.  The history lives inside the store (``objstore.memory.history``, so forget
purges it) or nowhere (``history=False``); after a forget the session is
rebuilt so the purged entries leave memory too.

Tests drive :func:`run` with ``create_pipe_input()`` and ``DummyOutput()``
and read what it printed through ``echo``.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.history import History, InMemoryHistory
from prompt_toolkit.styles import Style

from objstore import append_history, load_history
from objstore import Store, open_store

from .commands import Ask, ShellState, answer, build_catalog, dispatch, welcome
from .completer import Refresher, make_completer
from .keybindings import make_bindings
from .toolbar import toolbar_tokens

PROMPT = "mem> "

STYLE = Style.from_dict({
    "prompt": "bold",
    "bottom-toolbar": "noreverse bg:#303030 #d0d0d0",
    "bottom-toolbar.value": "noreverse bg:#303030 #ffffff bold",
    "bottom-toolbar.alert": "noreverse bg:#303030 #ffaf00 bold",
    "bottom-toolbar.sep": "noreverse bg:#303030 #808080",
    "bottom-toolbar.path": "noreverse bg:#303030 #87afd7",
    "bottom-toolbar.hint": "noreverse bg:#303030 #808080",
})


class StoreHistory(History):
    """prompt-toolkit history kept in ``<store>/cache/shell-history``."""

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store

    def load_history_strings(self):
        """Entries newest first (what prompt-toolkit expects)."""
        yield from reversed(load_history(self.store))

    def store_string(self, string: str) -> None:
        """Append one entry to the file."""
        append_history(self.store, string)


def _ask(ask: Ask, input, output) -> str | None:
    s: PromptSession = PromptSession(input=input, output=output, history=InMemoryHistory())
    try:
        return s.prompt(ask.prompt, default=ask.default)
    except (KeyboardInterrupt, EOFError):
        return None


def run(store: Store, *, input=None, output=None, history: bool = True,
        echo: Callable[[str], None] | None = None, background: bool = True) -> int:
    """Run the review shell on ``store`` until ``quit`` or Ctrl-D; returns 0.

    Args:
        input, output: prompt-toolkit ``Input``/``Output`` (default: the terminal).
        history: keep the line history in the store (else in memory only).
        echo: where output lines go (default: printed on ``output``).
        background: refresh completions and counts in a background thread
            (with its own store handle); tests pass False.
    """
    state = ShellState(store)
    holder: dict = {}

    def build():
        if not background:
            return build_catalog(store)
        with open_store(store.root) as s:
            return build_catalog(s)

    def redraw() -> None:
        sess = holder.get("session")
        if sess is not None and sess.app.is_running:
            sess.app.invalidate()

    refresher = Refresher(build, background=background, on_done=redraw)
    refresher.refresh(wait=True)

    def make_session() -> PromptSession:
        return PromptSession(
            message=[("class:prompt", PROMPT)], completer=make_completer(refresher), complete_while_typing=False,
            key_bindings=make_bindings(state), style=STYLE, input=input, output=output,
            bottom_toolbar=lambda: toolbar_tokens(refresher.catalog.counts, store.root),
            history=StoreHistory(store) if history else InMemoryHistory())

    holder["session"] = make_session()

    def out(line: str) -> None:
        if echo is not None:
            echo(line)
        else:
            print_formatted_text(line, output=holder["session"].output)

    def measure() -> None:
        try:
            state.width = max(40, holder["session"].output.get_size().columns)
        except Exception:  # noqa: BLE001 - size is cosmetic
            state.width = 100

    measure()
    for line in welcome(state).lines:
        out(line)
    while True:
        session: PromptSession = holder["session"]
        measure()
        try:
            text = session.prompt()
        except KeyboardInterrupt:
            continue  # Ctrl-C: the line is dropped, the shell stays
        except EOFError:
            break  # Ctrl-D
        try:
            reply = dispatch(state, text)
            changed, purged, leave = reply.changed, reply.purged, reply.exit
            while True:
                for line in reply.lines:
                    out(line)
                if reply.ask is None:
                    break
                reply = answer(reply.ask, _ask(reply.ask, input, output))
                changed, purged, leave = changed or reply.changed, purged or reply.purged, leave or reply.exit
        except Exception as e:  # noqa: BLE001 - a bug must not end the session or lose the terminal
            out(f"internal error: {e!r}")
            changed = purged = leave = False
        if purged:
            holder["session"] = make_session()  # reload the purged history
        if changed:
            refresher.refresh()
        if leave:
            break
    refresher.wait(2)
    return 0
