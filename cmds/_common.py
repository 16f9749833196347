"""Shared helpers of the click commands: the store option, JSON output,
time parsing/formatting and progress on stderr."""

from __future__ import annotations

import datetime as _dt
import functools
import json
import os
import sys
from pathlib import Path

import click

DEFAULT_HOME = "~/.mem"


def home_path(ctx: click.Context) -> Path:
    """The store directory: ``--home``, else ``$MEM_HOME``, else ``~/.mem``."""
    root = ctx.find_root()
    home = (root.params.get("home") if root.params else None) or os.environ.get("MEM_HOME") or DEFAULT_HOME
    return Path(home).expanduser()


def lock_timeout(ctx: click.Context) -> float:
    """Seconds to wait for the store lock (``--lock-timeout`` / ``$MEM_LOCK_TIMEOUT``)."""
    root = ctx.find_root()
    v = root.params.get("lock_timeout") if root.params else None
    if v is None:
        try:
            v = float(os.environ.get("MEM_LOCK_TIMEOUT", "10"))
        except ValueError:
            v = 10.0
    return v


def open_store(ctx: click.Context, *, create: bool = False):
    """Open (or with ``create`` create on first use) the store of this invocation."""
    from objstore import open_store as open_
    store = open_(home_path(ctx), create=create, lock_timeout=lock_timeout(ctx))
    ctx.call_on_close(store.close)
    return store


def with_store(create: bool = False):
    """Decorator: pass an open :class:`objstore.core.store.Store` as ``store``."""
    def deco(f):
        @functools.wraps(f)
        @click.pass_context
        def wrapper(ctx, *a, **kw):
            return f(*a, store=open_store(ctx, create=create), **kw)
        return wrapper
    return deco


def _note_json(ctx: click.Context, _param, value):
    if value:
        ctx.meta["mem_json"] = True
    return value


json_option = click.option("--json", "as_json", is_flag=True, callback=_note_json,
                           help="Print JSON (a stable, scriptable format); errors also as JSON on stderr.")


def emit_json(obj) -> None:
    """Print one JSON document on stdout."""
    click.echo(json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=False))


def fmt_time(ms: int) -> str:
    """ms since epoch -> ``2026-11-29T14:00:00Z`` (UTC); ``-`` for 0."""
    if not ms:
        return "-"
    try:
        return _dt.datetime.fromtimestamp(ms / 1000, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (ValueError, OverflowError, OSError):
        return f"{ms}ms"


def parse_time(text: str) -> int:
    """``now``, ISO 8601 date or date-time (UTC unless an offset is given), or
    ``@MS`` (milliseconds since the epoch) -> ms since epoch, within 1970..9999.
    Raises click.BadParameter."""
    import re
    t = text.strip()
    bad = click.BadParameter(f"{text!r} is not a time between 1970 and 9999 (use ISO 8601 like "
                             "2026-03-01 or 2026-03-01T12:00Z, '@<ms since epoch>', or 'now')")
    if t.lower() == "now":
        from objstore import now_ms
        return now_ms()
    if re.fullmatch(r"@[0-9]{1,15}", t):
        ms = int(t[1:])
    elif not t.isascii() or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.,]+)?(Z|[+-][0-9:]+)?", t):
        raise bad
    else:
        try:
            d = _dt.datetime.fromisoformat(t.replace("Z", "+00:00") if t.endswith("Z") else t)
        except ValueError:
            raise bad from None
        if d.tzinfo is None:
            d = d.replace(tzinfo=_dt.timezone.utc)
        ms = int(d.timestamp() * 1000)
    from objstore import MAX_TIME_MS
    if not 0 <= ms <= MAX_TIME_MS:
        raise bad
    return ms


class TimeType(click.ParamType):
    """click parameter type for :func:`parse_time`."""

    name = "TIME"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        try:
            return parse_time(value)
        except click.BadParameter as e:
            self.fail(e.message, param, ctx)


def short(text: str, width: int = 72) -> str:
    """One line of at most ``width`` characters."""
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"


def progress_bar(label: str):
    """A context manager yielding ``update(done, total)``: a click progress bar
    on stderr when stderr is a terminal, silent otherwise (scripts, hooks)."""
    import contextlib

    @contextlib.contextmanager
    def cm():
        if not sys.stderr.isatty():
            yield lambda done, total=None: None
            return
        state = {"bar": None, "done": 0}

        def update(done, total=None):
            if total is None:  # unknown length: a counter
                click.echo(f"\r{label}: {done}", err=True, nl=False)
                state["counter"] = True
                return
            if state["bar"] is None:
                state["bar"] = click.progressbar(length=total, label=label, file=sys.stderr, show_pos=True)
                state["bar"].__enter__()
            state["bar"].update(done - state["done"])
            state["done"] = done
        try:
            yield update
        finally:
            if state["bar"] is not None:
                state["bar"].__exit__(None, None, None)
            elif state.get("counter"):
                click.echo("", err=True)
    return cm()


def complete_key(ctx: click.Context, _param, incomplete: str):
    """Shell completion for KEY arguments: keys of the store that start with
    what was typed (nothing when there is no store)."""
    from click.shell_completion import CompletionItem
    try:
        from objstore import list_keys
        from objstore import open_store as open_
        with open_(home_path(ctx)) as store:
            return [CompletionItem(k) for k, _ in list_keys(store) if k.startswith(incomplete)][:200]
    except Exception:  # noqa: BLE001 - completion must never fail loudly
        return []


def plural(n: int, word: str) -> str:
    """``plural(1, "turn") == "1 turn"``, ``plural(2, "turn") == "2 turns"``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


_CONTROL = {c: f"\\x{c:02x}" for c in list(range(0x20)) + [0x7F] + list(range(0x80, 0xA0)) if c not in (9, 10)}


def safe(text: str) -> str:
    """Text for a terminal: control characters (escape sequences, carriage
    returns, C1 controls) shown as ``\\xNN`` so stored content cannot drive
    the user's terminal.  Tabs and newlines are kept."""
    return text.translate(_CONTROL)


def confirm_or_exit(question: str) -> None:
    """Ask ``question`` on stderr; anything but yes (including end of input)
    prints "nothing forgotten" and exits 1, having changed nothing."""
    try:
        ok = click.confirm(question, err=True)
    except click.Abort:  # end of input: nothing was confirmed
        ok = False
    if not ok:
        click.echo("nothing forgotten", err=True)
        raise click.exceptions.Exit(1)
