"""``mem config``: read and set the settings of ``<store>/config.toml``.

Each setting is ``<table>.<name>`` (``derive.auto``, ``context.prompt_budget``)
with a type, a default and a check (:data:`SETTINGS`).  Setting one edits
that line in place and keeps the rest of the file
(``objstore.core.tomledit``).  Only the settings listed here are written:
a misspelt name is refused instead of silently ignored.  A credential never
goes in the file: ``derive.api_key_env`` holds the *name* of the variable
that holds the key.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from objstore.core.errors import InvalidInput
from objstore.core.tomledit import set_value

CONFIG_FILE = "config.toml"


@dataclass(frozen=True)
class Setting:
    """One setting: ``kind`` is ``bool``, ``int``, ``float``, ``str`` or
    ``choice`` (one of ``choices``); ``minimum`` for numbers; ``pattern`` a
    regex a string must match in full; ``help`` one line."""

    name: str
    kind: str
    default: object
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    pattern: str = ""


SETTINGS: dict[str, Setting] = {s.name: s for s in (
    Setting("derive.auto", "bool", False,
            "run 'mem derive --apply' at most once a day from the session-start hook, in the background "
            "(only after 'mem derive --plan' was shown for the same destination)"),
    Setting("derive.sources", "choice", "interactive", "which turns derive reads: interactive (not claude -p or "
            "Agent SDK runs) or all", choices=("interactive", "all")),
    Setting("derive.provider", "choice", "claude", "where derive sends excerpts (default: OPENAI_* if set, "
            "else claude)", choices=("claude", "openai", "ollama")),
    Setting("derive.model", "str", "", "the model name (empty: the provider's default)"),
    Setting("derive.base_url", "str", "", "the endpoint of an openai or ollama provider", pattern=r"https?://\S+"),
    Setting("derive.api_key_env", "str", "OPENAI_API_KEY", "the NAME of the env variable that holds "
            "the key (never the key)", pattern=r"[A-Za-z_][A-Za-z0-9_]{0,63}"),
    Setting("derive.timeout", "float", 120.0, "seconds per model call (never retried)", minimum=1),
    Setting("derive.auto_max_calls", "int", 40, "model calls one automatic run makes at most (the rest "
            "waits for the next day)", minimum=1),
    Setting("context.session_budget", "int", 1500, "estimated tokens of the session-start block", minimum=1),
    Setting("context.prompt_budget", "int", 600, "estimated tokens injected for one prompt", minimum=1),
    Setting("context.moving_max_age_days", "float", 30.0, "days after which a moving value stays out of the "
            "session-start block", minimum=0),
    Setting("helper.autostart", "bool", True, "the session-start hook starts the store's resident helper "
            "(mem helper) in the background when it is not running"),
    Setting("helper.idle_minutes", "float", 15.0, "minutes without a request after which the resident "
            "helper exits", minimum=0.05),
    Setting("capture.ignore_marker", "str", "#nomem", "a prompt starting with it is neither captured nor "
            "answered with memory"),
)}


def parse(name: str, text: str):
    """The typed value of ``text`` for setting ``name``.  Raises InvalidInput
    for an unknown setting or a value of the wrong type or range."""
    s = SETTINGS.get(name)
    if s is None:
        raise InvalidInput(f"unknown setting {name!r}", hint="'mem config' lists them")
    t = text.strip()
    if s.kind == "bool":
        low = t.lower()
        if low in ("true", "1", "yes", "on"):
            return True
        if low in ("false", "0", "no", "off"):
            return False
        raise InvalidInput(f"{name} takes true or false, not {text!r}")
    if s.kind in ("int", "float"):
        try:
            v = int(t) if s.kind == "int" else float(t)
        except ValueError:
            raise InvalidInput(f"{name} takes a number, not {text!r}") from None
        if isinstance(v, float) and not math.isfinite(v):
            raise InvalidInput(f"{name} takes a finite number")
        if s.minimum is not None and v < s.minimum:
            raise InvalidInput(f"{name} must be >= {s.minimum:g}, not {text!r}")
        return v
    if s.kind == "choice":
        if t not in s.choices:
            raise InvalidInput(f"{name} is one of {', '.join(s.choices)}, not {text!r}")
        return t
    if s.pattern and not re.fullmatch(s.pattern, t):
        raise InvalidInput(f"{name}: {text!r} is not a valid value ({s.help})")
    return t


def read(root: str | Path) -> dict[str, object]:
    """Every known setting: its value in ``config.toml``, else its default.
    Raises InvalidInput for a file that is not valid TOML."""
    p = Path(root) / CONFIG_FILE
    try:
        doc = tomllib.loads(p.read_text("utf-8"))
    except FileNotFoundError:
        doc = {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise InvalidInput(f"{p} is not valid TOML: {e}", hint="fix or remove the file") from None
    out = {}
    for name, s in SETTINGS.items():
        table, key = name.split(".", 1)
        t = doc.get(table, {})
        out[name] = t[key] if isinstance(t, dict) and key in t else s.default
    return out


def set_setting(root: str | Path, name: str, text: str) -> tuple[object, bool]:
    """Set ``name`` from its text form (:func:`parse`); returns the typed
    value and whether the file changed.  Raises InvalidInput."""
    value = parse(name, text)
    table, key = name.split(".", 1)
    return value, set_value(Path(root) / CONFIG_FILE, table, key, value)
