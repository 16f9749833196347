"""mem help."""

import click


@click.command("help")
@click.argument("names", nargs=-1, metavar="[COMMAND [SUBCOMMAND]]")
@click.pass_context
def command(ctx, names):
    """Show mem's help, or a command's: mem COMMAND --help.

    \b
    Examples:
      mem help
      mem help export
      mem help memory add

    Exit status: 0 ok; 2 no such command.
    """
    cur = ctx.find_root()
    for i, name in enumerate(names):
        group = cur.command
        sub = group.get_command(cur, name) if isinstance(group, click.Group) else None
        if sub is None:
            where = "mem " + " ".join(names[:i]) if i else "mem"
            raise click.UsageError(f"no such command {' '.join(names[: i + 1])!r}; '{where} --help' lists them")
        cur = click.Context(sub, info_name=name, parent=cur)
    click.echo(cur.get_help())
