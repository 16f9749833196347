"""mem nuke."""

import os
import shutil

import click

from ._common import home_path


@click.command("nuke")
@click.option("--yes-really", "confirm_text", metavar="PATH",
              help="Skip the prompt: give the store's path exactly as confirmation.")
@click.pass_context
def command(ctx, confirm_text):
    """Delete the whole store, after you type its path to confirm.

    Removes the store directory and everything in it: objects, refs,
    reflogs, the index, the vault, caches and logs.  It does not touch the
    agents' own transcripts (~/.claude, ~/.codex), the hooks in their
    settings (mem hooks uninstall / mem setup --undo), the line in your
    shell's rc file, remotes, backups or exports: say 'mem scan' first to
    see where a text still is.

    \b
    Examples:
      mem nuke
      mem nuke --yes-really ~/.mem

    Only a person deletes the store: run by an agent (CLAUDECODE, Codex's
    variables or MEM_AGENT set) it is refused with exit 6, even with
    --yes-really or a confirmation on standard input.

    Exit status: 0 deleted; 1 not confirmed (nothing deleted) or not
    deletable; 2 the store path is a symbolic link; 6 run by an agent;
    10 no store at that path; 11 the store is locked by a writer.
    """
    from objstore import is_store, require_person
    require_person(os.environ, "mem nuke", instead="tell the user the command to run")
    root = home_path(ctx)
    if root.is_symlink():
        click.echo(f"Error: {root} is a link to {root.resolve()}: give that path (nuke deletes a real folder only)",
                   err=True)
        raise click.exceptions.Exit(2)
    if not is_store(root):
        from objstore import StoreNotFound
        raise StoreNotFound(f"no mem store at {root}: nothing to delete")
    click.echo(f"This deletes the store at {root} and everything in it.", err=True)
    click.echo("It does not touch: the agents' transcripts, installed hooks, your shell rc line, "
               "remotes, backups or exports.", err=True)
    if confirm_text is None:
        try:
            confirm_text = click.prompt(f"Type the store's path ({root}) to confirm", err=True, default="",
                                        show_default=False)
        except click.Abort:
            confirm_text = ""
    from pathlib import Path
    if Path(confirm_text).expanduser().resolve() != root.resolve():
        click.echo("not confirmed: nothing deleted", err=True)
        raise click.exceptions.Exit(1)
    from objstore import Store
    from ._common import lock_timeout
    store = Store.open(root, lock_timeout=lock_timeout(ctx))
    try:
        with store.lock("nuke"):  # no writer is half-way; one that waits finds the store gone (exit 10)
            gone = root.with_name(f".{root.name}.nuke-{os.getpid()}")
            os.replace(root, gone)  # one atomic step: from here on there is no store at this path
            shutil.rmtree(gone)
    except OSError as e:
        click.echo(f"Error: could not delete {root}: {e.strerror}", err=True)
        raise click.exceptions.Exit(1) from None
    finally:
        store.close()
    click.echo(f"deleted {root}")
