"""Key bindings of the review shell: ``make_bindings()``.

On an empty line, one key runs a common action (the command is put on the
line and submitted, so it is echoed and lands in the history like a typed
one):

=========  ============  =========================================
key        runs          filter
=========  ============  =========================================
Alt-a      ``accept``    the line is empty
Alt-r      ``reject``    the line is empty
Alt-e      ``edit``      the line is empty
Alt-n      ``next``      the line is empty
Alt-q      ``queue``     the line is empty
F1         ``help``      always (replaces the line)
=========  ============  =========================================

An escape sequence prompt-toolkit takes for a mouse event but cannot parse
(an ANSI colour in pasted text) is dropped, not an error.

Ctrl-C and Ctrl-D keep prompt-toolkit's meaning in a ``PromptSession``:
Ctrl-C raises ``KeyboardInterrupt`` (the loop in ``app.py`` cancels the
line), Ctrl-D on an empty line raises ``EOFError`` (the loop exits).  Tab
completes (prompt-toolkit's default binding).
"""

from __future__ import annotations

from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys

#: key sequence -> shell command, for the bindings that need an empty line
ACTIONS: dict[tuple[str, ...], str] = {
    ("escape", "a"): "accept",
    ("escape", "r"): "reject",
    ("escape", "e"): "edit",
    ("escape", "n"): "next",
    ("escape", "q"): "queue",
}


@Condition
def line_is_empty() -> bool:
    """True when the input line holds nothing but spaces."""
    return not get_app().current_buffer.text.strip()


def _submit(command: str):
    def handler(event) -> None:
        buf = event.current_buffer
        buf.text = command
        buf.cursor_position = len(command)
        buf.validate_and_handle()
    handler.__doc__ = f"Run ``{command}``."
    return handler


def make_bindings(state=None) -> KeyBindings:
    """The shell's :class:`KeyBindings` (see the module doc).  ``state`` is
    accepted for bindings that will need the session state; none does yet."""
    kb = KeyBindings()
    for keys, command in ACTIONS.items():
        kb.add(*keys, filter=line_is_empty)(_submit(command))
    kb.add("f1")(_submit("help"))
    kb.add(Keys.Vt100MouseEvent)(_mouse_or_odd_keys)
    return kb


def _mouse_or_odd_keys(event) -> object:
    """prompt-toolkit's mouse handler, except that an escape sequence it
    takes for a mouse event and cannot parse (an ANSI colour such as
    ``ESC [ 3 1 m``, pasted or sent by a terminal) is dropped: it raised
    ValueError out of the prompt and ended the shell (fresh43 F13)."""
    from prompt_toolkit.key_binding.bindings.mouse import load_mouse_bindings
    handler = load_mouse_bindings().get_bindings_for_keys((Keys.Vt100MouseEvent,))[0].handler
    try:
        return handler(event)
    except (ValueError, KeyError, IndexError, TypeError):
        return None
