"""mem shell-init: print the shell integration to eval in an rc file."""

import re
import shlex
from pathlib import Path

import click

SHELLS = ("bash", "zsh", "fish")
RC_LINES = {
    "bash": 'command -v mem >/dev/null 2>&1 && eval "$(mem shell-init bash)"',
    "zsh": '(( $+commands[mem] )) && eval "$(mem shell-init zsh)"',
    "fish": "command -q mem; and mem shell-init fish | source",
}


#: the calls of the integration that use a store (the rest only run or check mem)
_STORE_CALLS = re.compile(r"\bmem (hook|import|proxy health)\b")


def quote(shell: str, text: str) -> str:
    """``text`` as one word of ``shell`` (fish reads ``\\`` and ``\'`` inside single quotes)."""
    if shell == "fish":
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return shlex.quote(text)


def rc_line(shell: str, home: str | None = None) -> str:
    """The rc-file line that loads the integration; with ``home`` (a store that
    is not the default), ``mem --home HOME shell-init …``, so the integration's
    own calls (catch-up, ``mem hook shell``, Codex import) write to that store."""
    line = RC_LINES[shell]
    return line if not home else line.replace("mem shell-init", f"mem --home {quote(shell, home)} shell-init")


def asset(shell: str) -> Path:
    """``hooks/shell/mem.<shell>`` next to the package."""
    return Path(__file__).resolve().parents[1] / "hooks" / "shell" / f"mem.{shell}"


@click.command("shell-init")
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def command(ctx, shell):
    """Print the shell integration to eval in your shell's rc file.

    It defines 'claude' and 'codex' wrappers that start the agent with
    capture on (and, when mem is missing or broken, warn and start it
    anyway), and, only with MEM_SHELL_CAPTURE=1, records each command you
    type (command line, working directory, exit status, duration) as turns
    of a shell session; a command starting with a space is never recorded.
    'mem setup' adds the line for your shell.  With a store other than
    ~/.mem (--home or $MEM_HOME), the integration's own calls use that store.

    \b
    Examples:
      eval "$(mem shell-init bash)"          # in ~/.bashrc
      eval "$(mem shell-init zsh)"           # in ~/.zshrc
      mem shell-init fish | source           # in ~/.config/fish/config.fish
      eval "$(mem --home ~/work-store shell-init bash)"

    Exit status: 0 ok; 1 the integration files are missing from this
    installation; 2 the store path (--home / $MEM_HOME) holds a credential
    (not shown: the lines would carry it into the shell).
    """
    p = asset(shell)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError:
        raise click.ClickException(f"{p} is missing from this installation of mem") from None
    from .hooks_install import store_arg
    home = store_arg(ctx)
    if home:
        q = quote(shell, home)
        text = "".join(ln.replace("fish -c '", f"env MEM_HOME={q} fish -c '", 1) if "fish -c '" in ln
                       else _STORE_CALLS.sub(lambda m: f"mem --home {q} {m.group(1)}", ln)
                       for ln in text.splitlines(keepends=True))
    click.echo(text, nl=False)
