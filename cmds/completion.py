"""mem completion."""

import click


def script(shell: str) -> str:
    """The completion script click generates for ``mem`` in ``shell``."""
    from click.shell_completion import get_completion_class

    from .main import cli
    cls = get_completion_class(shell)
    return cls(cli, {}, "mem", "_MEM_COMPLETE").source()


@click.command("completion")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def command(shell):
    """Print the shell completion script for bash, zsh or fish.

    \b
    Examples:
      mem completion bash > ~/.local/share/bash-completion/completions/mem
      mem completion zsh > "${fpath[1]}/_mem"
      mem completion fish > ~/.config/fish/completions/mem.fish

    Exit status: 0 ok; 2 unknown shell.
    """
    click.echo(script(shell), nl=False)
