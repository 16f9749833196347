"""The shell's command registry: ``@meta_command`` (litecli's
``@special_command``).

Each command is a plain function ``handler(state, arg) -> Reply`` where
``arg`` is the rest of the line after the command word, unparsed (values
may contain any characters).  Registration records what the completer needs
(the kind of each positional argument) and what ``help`` prints.

Argument kinds: ``id`` (a queued item), ``key``, ``key_or_id``, ``version``
(``vN`` of the key given before it), ``command``, ``text`` (free text, not
completed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

ARG_KINDS = ("id", "key", "key_or_id", "version", "command", "text")


@dataclass(frozen=True)
class MetaCommand:
    """A registered shell command.

    Attributes:
        name: the command word.  aliases: other words for it.
        handler: ``handler(state, arg) -> Reply``.
        args: argument kinds, one per positional argument (:data:`ARG_KINDS`).
        usage: e.g. ``diff KEY [vA vB]``.  summary: one line for ``help``.
        binding: the key binding that runs it ("" = none).
    """

    name: str
    handler: Callable
    args: tuple[str, ...]
    usage: str
    summary: str
    aliases: tuple[str, ...] = ()
    binding: str = ""


REGISTRY: dict[str, MetaCommand] = {}
_ORDER: list[str] = []


def meta_command(name: str, *, args: tuple[str, ...] = (), usage: str = "", aliases: tuple[str, ...] = (),
                 binding: str = "") -> Callable[[Callable], Callable]:
    """Register the decorated function as shell command ``name``.

    The summary is the first line of the function's docstring.  Raises
    ValueError for a name already taken or an unknown argument kind (a bug,
    caught at import)."""
    for a in args:
        if a not in ARG_KINDS:
            raise ValueError(f"unknown argument kind {a!r}")

    def deco(fn: Callable) -> Callable:
        summary = (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else ""
        cmd = MetaCommand(name, fn, tuple(args), usage or name, summary, tuple(aliases), binding)
        for word in (name, *aliases):
            if word in REGISTRY:
                raise ValueError(f"shell command {word!r} registered twice")
            REGISTRY[word] = cmd
        _ORDER.append(name)
        return fn
    return deco


def lookup(word: str) -> MetaCommand | None:
    """The command named (or aliased) ``word``, case-insensitively."""
    return REGISTRY.get(word.lower())


def commands() -> list[MetaCommand]:
    """Every command once, in registration order."""
    return [REGISTRY[n] for n in _ORDER]


def arg_specs() -> dict[str, tuple[str, ...]]:
    """``{word: argument kinds}`` for every name and alias."""
    return {w: c.args for w, c in REGISTRY.items()}
