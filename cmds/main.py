"""The ``mem`` root command: global options, lazy subcommands and the one
place where errors become messages and exit codes (``docs/exit-codes.md``).

Subcommands are imported only when run, so ``mem --help`` imports neither
tantivy, cryptography nor prompt_toolkit; their one-line summaries live in
:data:`COMMANDS` (a test keeps them equal to each command's own help).
"""

from __future__ import annotations

import os
import sys
import traceback

import click

from ._common import FiniteFloatRange
from ._out import broken_pipe, hint_of, missing_path, refuse_bad_utf8, report_error, unexpected_error, wants_json

EXIT_INTERRUPTED = 130

#: name -> (module, one-line summary).  Order = order in ``mem --help``.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("cmds.init", "Create a store (a write creates it on first use too)."),
    "remember": ("cmds.remember", "Write a new version of KEY; the old value stays in the log."),
    "get": ("cmds.get", "Print the current value of KEY."),
    "log": ("cmds.log", "Show every version of KEY, newest first."),
    "keys": ("cmds.keys", "List keys with their current version."),
    "show": ("cmds.show", "Show an object, a version (KEY@vN) or a session."),
    "search": ("cmds.search", "BM25 search over current facts and captured turns."),
    "recall": ("cmds.recall", "Recall current facts and past turns for one or more phrasings."),
    "context": ("cmds.context", "Print the memory block for a session start, or what a prompt would get."),
    "import": ("cmds.import_", "Import agent transcripts as sessions of turns."),
    "sessions": ("cmds.sessions", "List captured sessions."),
    "setup": ("cmds.setup", "Set mem up: the store, the Claude Code hooks and the shell line."),
    "hooks": ("cmds.hooks_install", "Install or remove mem's hooks in an agent's settings."),
    "hook": ("cmds.hook", "Run a capture hook (agents and shells call it, not people)."),
    "shell-init": ("cmds.shell_init", "Print the shell integration to eval in your shell's rc file."),
    "forget": ("cmds.forget", "Forget a key, a version, an object, matching text or a session."),
    "vault": ("cmds.vault", "Create and inspect the vault that seals secret values."),
    "seal": ("cmds.seal", "Seal KEY: encrypt every version to the vault, then remove the plaintext."),
    "sealed": ("cmds.sealed", "List, read, import and export sealed values."),
    "unseal": ("cmds.unseal", "Make sealed KEY plain again: restore its versions as private facts."),
    "proxy": ("cmds.proxy", "Run the Anthropic Messages API proxy: memory in every request, every turn captured."),
    "memory": ("cmds.memory", "Edit the memory files every session starts with: soul.md, memory.md, user.md."),
    "queue": ("cmds.queue", "Review queue: proposals parked instead of overruling you."),
    "review": ("cmds.review", "Curate memory in an interactive shell that opens on the review queue."),
    "shell": ("cmds.shell_", "Alias of 'mem review': the interactive review shell."),
    "promote": ("cmds.promote", "Promote KEY to the curated tier; --standing loads it into every session."),
    "pin": ("cmds.pin", "Pin KEY: always injected, never dormant."),
    "unpin": ("cmds.unpin", "Unpin KEY: it may go dormant again when unused."),
    "reinforce": ("cmds.reinforce", "Reinforce KEY: restart its decay clock; wake it if dormant."),
    "decay": ("cmds.decay", "Make facts unused for decay.days dormant: searchable, never injected."),
    "remote": ("cmds.remote", "Manage remotes: folders or S3 buckets that push, pull and clone use."),
    "push": ("cmds.push", "Send new objects and refs to remote NAME (pulls first)."),
    "pull": ("cmds.pull", "Fetch remote NAME's objects and merge its refs here."),
    "clone": ("cmds.clone", "Create this machine's store (mem --home DIR clone URL) from the remote at URL."),
    "backup": ("cmds.backup", "Push to remote NAME and record a dated snapshot of every ref."),
    "restore": ("cmds.restore", "Rebuild an empty store (mem --home DIR restore SOURCE) from a snapshot at SOURCE."),
    "gc": ("cmds.gc", "Pack loose objects; delete unreachable objects and temp files."),
    "fsck": ("cmds.fsck", "Verify every object, ref and parent link, and the search index."),
    "reindex": ("cmds.reindex", "Rebuild the search index from the objects."),
    "exclude": ("cmds.exclude", "Keep projects out of capture: preview, add, list and remove exclusion globs."),
    "reflog": ("cmds.reflog", "Show every move of a ref (old -> new id, time, command), newest first."),
    "revert": ("cmds.revert", "Undo a change by writing a new version; history is never rewritten."),
    "audit": ("cmds.audit", "Show the audit log: every write, decision, injection, forget and sync (ids only)."),
    "diff": ("cmds.diff", "Show a word-level diff of two versions of KEY."),
    "blame": ("cmds.blame", "Show who and what produced the current value of KEY."),
    "status": ("cmds.status", "Show what is waiting: review proposals, refs to push, stopped work."),
    "stats": ("cmds.stats", "Count what the store holds: objects, facts, sessions, growth."),
    "export": ("cmds.export", "Export the store: JSON lines that import back exactly, or Markdown."),
    "scan": ("cmds.scan", "Show every place TEXT still exists: store, index, transcripts, shell history."),
    "doctor": ("cmds.doctor", "Check the store and its wiring; each finding names the command that fixes it."),
    "nuke": ("cmds.nuke", "Delete the whole store, after you type its path to confirm."),
    "derive": ("cmds.derive", "Derive facts from sessions with a model; rules decide what is admitted."),
    "config": ("cmds.config", "Read or set a setting of the store's config.toml."),
    "helper": ("cmds.helper", "Start, stop or inspect the store's resident helper."),
    "mcp": ("cmds.mcp", "Serve memory to an MCP client over stdio (one agent session)."),
    "serve": ("cmds.serve", "Serve memory over MCP streamable HTTP, for many agents at once."),
    "curate": ("cmds.curate", "Curate memory with Claude Code and the admin MCP server attached."),
    "eval": ("cmds.eval_", "Measure recall and injection quality on scenario files."),
    "cat-object": ("cmds.cat_object", "Print a raw object (plumbing)."),
    "demo": ("cmds.demo", "Run the tour on bundled sample transcripts in a temporary store."),
    "completion": ("cmds.completion", "Print the shell completion script for bash, zsh or fish."),
    "help": ("cmds.help", "Show mem's help, or a command's: mem COMMAND --help."),
}


class MemGroup(click.Group):
    """A click group with lazy subcommands and the error boundary."""

    def list_commands(self, ctx):
        return list(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        import importlib
        mod = importlib.import_module(COMMANDS[name][0])
        return mod.command

    def format_commands(self, ctx, formatter):
        rows = [(name, summary) for name, (_m, summary) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx):
        from objstore import MemError
        try:
            return super().invoke(ctx)
        except MemError as e:
            report_error(e.message, hint_of(e, _home_or_none(ctx)), e.exit_code, bool(ctx.meta.get("mem_json")))
            ctx.exit(e.exit_code)
        except FileNotFoundError as e:
            report_error(f"no such file or directory: {missing_path(e)}", None, 4, bool(ctx.meta.get("mem_json")))
            ctx.exit(4)
        except (click.exceptions.Exit, click.ClickException, click.Abort, KeyboardInterrupt):
            raise
        except BrokenPipeError:
            ctx.exit(broken_pipe())
        except Exception as e:  # noqa: BLE001 - the last line of defence
            report_error(*unexpected_error(e), 1, bool(ctx.meta.get("mem_json")))
            if os.environ.get("MEM_DEBUG"):
                traceback.print_exc()
            ctx.exit(1)


@click.group(cls=MemGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--home", type=click.Path(file_okay=False), envvar="MEM_HOME",
              help="Store directory (default: $MEM_HOME, else ~/.mem).")
@click.option("--lock-timeout", type=FiniteFloatRange(0, 3600), default=None, metavar="SECONDS",
              help="How long a writer waits for the store lock (default 10, $MEM_LOCK_TIMEOUT).")
@click.option("--ascii", "ascii_only", is_flag=True,
              help="Print only ASCII glyphs (automatic when the locale's encoding is not UTF-8).")
@click.version_option(package_name="memvcs", prog_name="mem")
def cli(home, lock_timeout, ascii_only):
    """mem: a Git-style, versioned memory store for coding agents.

    Facts are versioned per key (a new value supersedes, the old one stays in
    'mem log'); sessions are captured as turns; 'mem forget' + 'mem gc' remove
    a value from every file of the store.  The options below are mem's own
    and go before the command (mem --home DIR clone URL).  A command that
    writes (remember, import, setup, remote add, vault init, …) creates a
    missing store; one that only reads (get, log, search, recall, fsck, …)
    exits 10 instead and creates nothing.

    \b
    Exit status: 0 ok, 1 failed, 2 usage or invalid input, 3 partial,
    4 not found, 5 ref conflict (--expect), 6 refused, 10 no store,
    11 store locked, 12 wrong passphrase, 13 corruption, 14 unsupported
    version, 15 remote unavailable, 16 read-only store, 130 interrupted.
    See docs/exit-codes.md.  Colour is shown on a terminal only, and never
    when NO_COLOR is set (https://no-color.org).
    """
    os.umask(0o077)  # the store holds private text: files and folders are the owner's only
    from . import _out
    _out.PLAIN = False  # set again by a reading command's --plain
    if os.environ.get("NO_COLOR"):  # https://no-color.org: any non-empty value
        click.get_current_context().color = False
    if ascii_only or _out.needs_ascii():
        _out.ascii_streams()


def main(argv: list[str] | None = None) -> int:
    """Console entry point: run :data:`cli`, mapping Ctrl-C and aborts to 130.

    A command line that runs ``mem hook …`` (the subcommand, not a word
    ``hook`` anywhere in the arguments) never exits non-zero: an agent reads
    exit 2 as "block", so a mistyped option in a hook's settings must fail
    open (the error still goes to stderr).  Every other command exits with
    its own status (2 for a usage error)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if command_name(args) == "hook":
        code = _main(args)
        return 0 if code not in (0, EXIT_INTERRUPTED) else code
    return _main(args)


def _home_or_none(ctx: click.Context):
    """The store's folder for an error's hint, or None when it cannot be told."""
    from ._common import home_path
    try:
        return home_path(ctx)
    except Exception:  # noqa: BLE001 - a hint is never worth a second error
        return None


def command_name(args: list[str]) -> str | None:
    """The subcommand a command line runs: its first word that is neither a
    global option nor the value of one (``mem --home X hook …`` -> ``hook``;
    ``mem search hook`` -> ``search``), or None."""
    takes_value = {o for p in cli.params if isinstance(p, click.Option) and not p.is_flag
                   for o in (*p.opts, *p.secondary_opts)}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return args[i + 1] if i + 1 < len(args) else None
        if not a.startswith("-") or a == "-":
            return a
        i += 2 if a in takes_value else 1
    return None


def _place_root_option(e: click.NoSuchOption, argv: list[str]) -> None:
    """A root option given after the subcommand (``mem clone URL --home
    DIR``) is refused by the subcommand's parser as unknown; say where it
    goes instead of "no such option" (it is not moved: after the command
    it may be a value, and the helper picks the store from the options
    before the command)."""
    root = {o: p for p in cli.params if isinstance(p, click.Option) for o in (*p.opts, *p.secondary_opts)}
    p = root.get(e.option_name)
    if p is None:
        return
    cmd = command_name(argv) or "COMMAND"
    value = "" if p.is_flag else f" {p.metavar or ('DIR' if p.name == 'home' else 'VALUE')}"
    e.message = (f"{e.option_name} is an option of mem itself, not of '{cmd}': put it before the command, "
                 f"as in: mem {e.option_name}{value} {cmd} ...")
    e.possibilities = []


def _unechoed(e: click.ClickException) -> None:
    """Replace any credential in a usage error's message by
    ``[REDACTED:<rule>]`` (the value rule, ``objstore.redact_value``):
    click quotes the word it refuses (``Got unexpected extra argument
    (ghp_…)``, ``'sk-…' is not one of …``), and a message never echoes a
    credential typed on the command line."""
    from objstore import redact_value   # deferred: only a usage error compiles the rules
    e.message = redact_value(e.message)


def _main(argv: list[str]) -> int:
    bad = refuse_bad_utf8(argv)
    if bad is not None:  # refused before parsing: no command can store or match such text
        return bad
    try:
        rv = cli.main(args=argv, prog_name="mem", standalone_mode=False)
        return rv if isinstance(rv, int) else 0
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.ClickException as e:
        if isinstance(e, click.NoSuchOption):
            _place_root_option(e, argv)
        _unechoed(e)
        if wants_json(argv):
            report_error(e.format_message(), None, e.exit_code, True)
        else:
            e.show()
        return e.exit_code
    except (click.Abort, KeyboardInterrupt):
        click.echo("Interrupted.", err=True)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return broken_pipe()


def entry() -> None:
    """``mem`` script: ``sys.exit(main())``."""
    sys.exit(main())
