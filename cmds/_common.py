"""Shared helpers of the click commands: the store option, the time type,
progress on stderr.  The click-free helpers (JSON output, time formatting)
are in :mod:`cmds._out` and re-exported here."""

from __future__ import annotations

import contextlib
import functools
import io
import os
import sys
from pathlib import Path

import click

from . import _out
from ._out import (warn_config, warn_damage, emit_json, fmt_time, home_from_env, lock_timeout_from_env, store_lock_timeout, parse_time, plural, safe,  # noqa: F401
                   short, shown_key)


def home_path(ctx: click.Context) -> Path:
    """The store directory: ``--home``, else ``$MEM_HOME``, else ``~/.mem``."""
    root = ctx.find_root()
    return Path(home_from_env(root.params.get("home") if root.params else None))


def lock_timeout(ctx: click.Context) -> float:
    """Seconds to wait for the store lock (``--lock-timeout`` / ``$MEM_LOCK_TIMEOUT``)."""
    root = ctx.find_root()
    return lock_timeout_from_env(root.params.get("lock_timeout") if root.params else None)



class FiniteFloatRange(click.FloatRange):
    """``click.FloatRange`` that also refuses ``nan`` (every comparison with
    it is false, so the range check alone lets it through: ``--lock-timeout
    nan`` waited without limit)."""

    def convert(self, value, param, ctx):
        import math
        v = super().convert(value, param, ctx)
        if math.isnan(v):
            self.fail(f"{value!r} is not a number", param, ctx)
        return v


class ExistingPath(click.Path):
    """``click.Path(exists=True, ...)`` whose missing path is "not found"
    (exit 4, docs/exit-codes.md), as a missing file is for every command,
    instead of click's usage error (exit 2)."""

    def __init__(self, **kw) -> None:
        super().__init__(exists=False, **kw)

    def convert(self, value, param, ctx):
        import os
        if value != "-" and not os.path.lexists(os.fsdecode(value)):
            from objstore import NotFound, shown_path
            raise NotFound(f"{shown_path(os.fsdecode(value))}: no such file or directory")
        return super().convert(value, param, ctx)


def exit_with(code: int | None) -> None:
    """End a click command with the exit status a shared body returned."""
    if code:
        raise click.exceptions.Exit(code)


def open_store(ctx: click.Context, *, create: bool = False):
    """Open (or with ``create`` create on first use) the store of this invocation."""
    from objstore import open_store as open_
    store = open_(home_path(ctx), create=create)
    root = ctx.find_root()   # a bad $MEM_LOCK_TIMEOUT: a read goes on (test41 T25)
    store_lock_timeout(store, root.params.get("lock_timeout") if root.params else None)
    ctx.call_on_close(store.close)
    ctx.call_on_close(lambda: warn_damage(store))  # runs first (LIFO)
    if ctx.command.name not in ("doctor", "config"):   # those two say it themselves
        ctx.call_on_close(lambda: warn_config(store.root))
    return store


def with_store(create: bool = False):
    """Decorator: pass an open :class:`objstore.core.store.Store` as ``store``.

    With ``create``, a store this call created is removed again when the
    command ends with nothing stored in it (a refused write, an import that
    read nothing): a failed first command leaves no empty store."""
    def deco(f):
        @functools.wraps(f)
        @click.pass_context
        def wrapper(ctx, *a, **kw):
            if not create:
                return f(*a, store=open_store(ctx), **kw)
            with first_use_store(ctx) as store:
                return f(*a, store=store, **kw)
        return wrapper
    return deco


@contextlib.contextmanager
def first_use_store(ctx: click.Context):
    """The store, created when missing (``open_store(ctx, create=True)``);
    one this call created is removed again when the block ends with nothing
    stored in it (``Store.discard_if_unused``), whether it ends by an error
    or not.  For :func:`with_store` and a command that cannot use it
    (``mem vault init``, fresh40 F11)."""
    home = home_path(ctx)
    fresh = not (home / "config").exists()
    root_existed = home.exists()
    store = open_store(ctx, create=True)
    try:
        yield store
    finally:
        if fresh:
            store.discard_if_unused(remove_root=not root_existed)


def _note_json(ctx: click.Context, _param, value):
    if value and ctx.meta.get("mem_plain"):   # (--plain is eager: noted before --json)
        raise click.UsageError(_out.TWO_FORMATS, ctx)
    # ctx.meta is shared by a group and its subcommand: 'mem queue --json show ID' is JSON too
    if value or ctx.meta.get("mem_plain") or ctx.meta.get("mem_json"):
        ctx.meta["mem_json"] = True
        return True
    return value


def _note_plain(ctx: click.Context, _param, value):
    if value:
        ctx.meta["mem_plain"] = True
        _out.PLAIN = True
    return value


def json_option(f=None, *, first: str = "id"):
    """``--json`` (one JSON document) and ``--plain`` (tab-separated, id
    first, one record a line, for fzf/awk/cut) on a reading command; the
    command receives ``as_json`` and prints through :func:`emit_json`.
    ``@json_option(first="its kind")`` for records that do not start with an
    id (test38 T9.2: status's help said "id first" under "its kind first")."""
    if f is None:
        return lambda g: json_option(g, first=first)
    f = click.option("--json", "as_json", is_flag=True, callback=_note_json,
                     help="Print JSON (a stable, scriptable format); errors also as JSON on stderr.")(f)
    return click.option("--plain", is_flag=True, is_eager=True, expose_value=False, callback=_note_plain,
                        help=f"Print tab-separated records, {first} first, one a line (for fzf, awk, cut).")(f)


class TimeType(click.ParamType):
    """click parameter type for :func:`parse_time`."""

    name = "TIME"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        try:
            return parse_time(value)
        except ValueError as e:
            self.fail(str(e), param, ctx)


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


def holding_remotes(store, ids: set[str]) -> list[str]:
    """``objstore.remote.config.remotes_holding(store, ids)``, or [] after a
    warning on stderr when ``remotes.json`` is damaged: a forget, seal or
    redaction is local and goes on (test38 T7: a credential written into
    remotes.json by hand made ``mem forget`` exit 13 and forget nothing);
    only which remotes still hold the value is not known."""
    from objstore import IntegrityError, remotes_holding
    try:
        return remotes_holding(store, ids)
    except IntegrityError as e:
        click.echo(safe(f"warning: {e.message}: which remotes hold the value is not known (fix it, then "
                        "'mem push' carries this to them)"), err=True)
        return []


def note_remotes_holding(remotes: list[str], what: str = "the value") -> None:
    """Say on stderr which remotes still hold ``what`` after a local
    forget, redaction or seal removed it here (``remotes``: names, from
    ``objstore.remote.config.remotes_holding``, asked before the objects
    went), and the command that purges it there: a push (or a backup, to a
    backup remote) carries the forget and rewrites the remote packs that
    hold it.  Nothing is printed when ``remotes`` is empty.  The note says
    the remote *held* it when this store last synced with it: what this store
    knows (its pack-ids cache), not a read of the remote, which another
    machine's push may have purged since (test33 T5: "holds" while the
    remote no longer did)."""
    if not remotes:
        return
    many = len(remotes) > 1
    push = " and ".join(f"'mem push {n}'" for n in remotes)
    click.echo(f"note: remote{'s' if many else ''} {', '.join(remotes)} held {what} when this store last synced "
               f"with {'them' if many else 'it'}; {push} purge{'' if many else 's'} it there unless another "
               "machine's push has since ('mem backup NAME' for a backup; 'mem scan TEXT' reads the remotes)",
               err=True)


def edit_in_editor(store, data: bytes, *, extension: str = ".md") -> bytes:
    """Open ``data`` in the user's editor ($VISUAL, $EDITOR, as
    ``click.edit`` picks it) and return the bytes saved (``data`` itself
    when nothing was saved).  The one way a command opens an editor.

    The file lives in a scratch folder under ``<store>/tmp``
    (``objstore.new_scratch``), not the system's ``/tmp``, and is deleted
    when the editor returns, fails, or this process gets SIGHUP or SIGTERM
    (then it exits 128 + the signal's number, e.g. 129 for a hangup); one
    killed by SIGKILL leaves it for ``mem gc`` (tester finding W7: what
    was typed, unredacted, outlived a killed edit in ``/tmp``).  Raises
    click.ClickException when the editor cannot run or exits non-zero."""
    import os
    import shutil
    import signal
    import threading

    from objstore import new_scratch

    def _killed(signum, _frame):
        raise SystemExit(128 + signum)

    scratch = new_scratch(store, "editor")
    old = {}
    try:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGHUP, signal.SIGTERM):
                old[sig] = signal.signal(sig, _killed)
        name = scratch / f"edit{extension}"
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        click.edit(filename=str(name))
        with open(name, "rb") as f:
            return f.read()
    finally:
        try:
            shutil.rmtree(scratch)
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)


class _ClosableStdout(io.RawIOBase):
    """Standard output's file descriptor ``fd`` as a raw stream (under an
    ``io.BufferedWriter``) that, once a write to it failed (the reader closed
    the pipe, ``EPIPE``; a full disk or quota, ``ENOSPC``/``EDQUOT``; an I/O
    error, ``EIO``: ``mem forget KEY --yes > /dev/full``), points the
    descriptor at ``/dev/null`` (``_out.broken_pipe``) and takes every later
    write there, remembering that it happened (``closed_early``) and why
    (``error``: the first ``OSError``, None for a pipe closed before the
    command started).  A would-block write (``EAGAIN``) is raised as
    before: it is no lost output."""

    def __init__(self, fd: int, closed_early: bool = False):
        super().__init__()
        self.fd, self.closed_early, self.error = fd, closed_early, None

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return os.isatty(self.fd)

    def write(self, b) -> int:
        if not self.closed_early:
            try:
                return os.write(self.fd, b)
            except BlockingIOError:
                raise
            except OSError as e:
                self.closed_early, self.error = True, e
                _out.broken_pipe()
        return len(b)


#: what the command running under :func:`finishes_when_stdout_closes` said of its work
_RUN = {"changed_nothing": False}


def changed_nothing() -> None:
    """Mark the command running under :func:`finishes_when_stdout_closes`
    as one that changed nothing (``mem forget --match TEXT`` that matched
    nothing): if its output is lost, exit 74 says "it changed nothing"
    rather than "its work was done" (a ``dry_run`` keyword does the same
    by itself; docs/exit-codes.md)."""
    _RUN["changed_nothing"] = True


def _quiet_stderr() -> None:
    """Standard error could not be written either: point its descriptor at
    ``/dev/null`` and drop what its buffer holds, so that nothing fails
    again (the interpreter's flush at exit included) and the exit status
    stays the command's."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stderr.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):
        pass
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def finishes_when_stdout_closes(f):
    """Decorator of a write command whose work must not stop half-way when
    the reader of its standard output goes away (``mem forget KEY --yes |
    head -1``; test22 X1) or its output cannot be written (``> /dev/full``:
    ``ENOSPC``, ``EDQUOT``, ``EIO``; session 23 Y9): from the command's
    start, a write that fails so goes to ``/dev/null`` instead of raising,
    the command runs to its end (a forget confirmed by ``--yes`` or at the
    prompt is carried out, a scrub of every file done), and then exits 141
    (``_out.EXIT_BROKEN_PIPE``) for a closed pipe, quietly, or 74
    (``_out.EXIT_OUTPUT_LOST``) for another failed write, saying on stderr
    that the output was lost and the work done, or, for a dry run (a true
    ``dry_run`` keyword) or a run that called :func:`changed_nothing`, that
    nothing was changed (docs/exit-codes.md); the status is 74 whether or
    not stderr can be written (``2>/dev/full``: session 23, V8).  An
    error or a signal's exit raised meanwhile keeps its own code.  Under a
    test runner whose ``sys.stdout`` has no file descriptor it changes
    nothing."""
    @functools.wraps(f)
    def run(*args, **kwargs):
        _RUN["changed_nothing"] = False
        old = sys.stdout
        try:
            fd = old.fileno()
        except (AttributeError, OSError, ValueError):   # no descriptor (a test runner)
            return f(*args, **kwargs)
        try:
            old.flush()
            broken = False
        except BrokenPipeError:
            broken = _out.broken_pipe() is not None
        raw = _ClosableStdout(fd, broken)
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(raw), encoding=old.encoding, errors=old.errors,
                                      line_buffering=True)
        try:
            rv = f(*args, **kwargs)
        finally:
            try:
                sys.stdout.flush()
            except OSError:
                pass
            sys.stdout = old
        if raw.closed_early and raw.error is not None and not isinstance(raw.error, BrokenPipeError):
            why = raw.error.strerror or type(raw.error).__name__
            done = ("it was a dry run: nothing was changed" if kwargs.get("dry_run") else
                    "it changed nothing" if _RUN["changed_nothing"] else "its work was done")
            try:   # stderr may be lost too (2>/dev/full): the exit status alone then says it (V8)
                _out.report_error(f"standard output could not be written ({why.lower()}): the command's output "
                                  f"was lost; {done}", None, _out.EXIT_OUTPUT_LOST, bool(kwargs.get("as_json")))
            except (OSError, ValueError):
                _quiet_stderr()
            raise click.exceptions.Exit(_out.EXIT_OUTPUT_LOST)
        if raw.closed_early:
            raise click.exceptions.Exit(_out.EXIT_BROKEN_PIPE)
        return rv
    return run
