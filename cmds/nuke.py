"""mem nuke."""

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

    Exit status: 0 deleted; 1 not confirmed (nothing deleted); 4 no store
    at that path.
    """
    from objstore import is_store
    root = home_path(ctx)
    if not is_store(root):
        click.echo(f"Error: no store at {root}", err=True)
        raise click.exceptions.Exit(4)
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
    shutil.rmtree(root)
    click.echo(f"deleted {root}")
