"""mem shell-init: print the shell integration to eval in an rc file."""

from pathlib import Path

import click

SHELLS = ("bash", "zsh", "fish")
RC_LINES = {
    "bash": 'command -v mem >/dev/null 2>&1 && eval "$(mem shell-init bash)"',
    "zsh": '(( $+commands[mem] )) && eval "$(mem shell-init zsh)"',
    "fish": "command -q mem; and mem shell-init fish | source",
}


def asset(shell: str) -> Path:
    """``hooks/shell/mem.<shell>`` next to the package."""
    return Path(__file__).resolve().parents[1] / "hooks" / "shell" / f"mem.{shell}"


@click.command("shell-init")
@click.argument("shell", type=click.Choice(SHELLS))
def command(shell):
    """Print the shell integration to eval in your shell's rc file.

    It defines 'claude' and 'codex' wrappers that start the agent with
    capture on (and, when mem is missing or broken, warn and start it
    anyway), and, only with MEM_SHELL_CAPTURE=1, records each command you
    type (command line, working directory, exit status, duration) as turns
    of a shell session; a command starting with a space is never recorded.
    'mem setup' adds the line for your shell.

    \b
    Examples:
      eval "$(mem shell-init bash)"          # in ~/.bashrc
      eval "$(mem shell-init zsh)"           # in ~/.zshrc
      mem shell-init fish | source           # in ~/.config/fish/config.fish

    Exit status: 0 ok; 1 the integration files are missing from this
    installation.
    """
    p = asset(shell)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError:
        raise click.ClickException(f"{p} is missing from this installation of mem") from None
    click.echo(text, nl=False)
