"""Shared helpers of the vault commands (``vault``, ``seal``, ``unseal``,
``sealed``): the ``--passphrase-file`` option and asking on the terminal.

The passphrase is never a command-line argument (it would be in the shell
history and in ``ps``): it is typed at a hidden prompt on a terminal, or read
from a file (``-`` = standard input) by scripts and tests.
"""

from __future__ import annotations

import sys

import click

passphrase_file_option = click.option(
    "--passphrase-file", "passphrase_file", metavar="FILE",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Read the vault passphrase from the first line of FILE ('-': standard input) "
         "instead of asking on the terminal.")


def read_passphrase(passphrase_file: str | None, *, confirm: bool = False, check=None) -> str:
    """The vault passphrase: the first line of ``passphrase_file`` (its line
    end removed, nothing else), or typed at a hidden prompt on the terminal
    (twice with ``confirm``).  ``check(passphrase)`` (raising on a bad one)
    runs before the second prompt.  Raises InvalidInput when there is neither a
    file nor a terminal, or the file is not UTF-8 text or its first line is
    empty."""
    from objstore import InvalidInput
    if passphrase_file is not None:
        if passphrase_file == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(passphrase_file, "rb") as f:
                data = f.read()
        line = data.split(b"\n", 1)[0]
        line = line[:-1] if line.endswith(b"\r") else line
        try:
            pw = line.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInput(f"{passphrase_file}: the passphrase is not UTF-8 text") from None
        if not pw:   # (fresh35 F3: it read as "wrong vault passphrase"; no vault takes an empty one)
            raise InvalidInput(f"{'standard input' if passphrase_file == '-' else passphrase_file}: the "
                               "passphrase file's first line is empty (nothing was read or changed)",
                               hint="check the path, or what was piped in: the passphrase goes on its first line")
        if check is not None:
            check(pw)
        return pw
    if not sys.stdin.isatty():
        raise InvalidInput("no terminal to ask for the vault passphrase: without one, --passphrase-file is "
                           "required (nothing was changed)",
                           hint="give it with --passphrase-file FILE, the passphrase on its first line "
                                "(or '-' for standard input)")
    pw = click.prompt("Vault passphrase", hide_input=True, err=True)
    if check is not None:
        check(pw)
    if confirm:
        again = click.prompt("Repeat the passphrase", hide_input=True, err=True)
        if again != pw:
            raise InvalidInput("the two passphrases differ; nothing was created")
    return pw


def remember_sealed_value(store, key, text, kind, trust, valid_from, expect, as_json, owner: str = "user") -> int:
    """``mem remember KEY VALUE --sensitivity secret`` (from ``lean.remember``):
    the sealed write and its answer, which says when the value written is
    not current yet (valid from a later time: the earlier value stays current
    until then, or none is, as for a plain key).  Returns the exit code 0;
    raises what ``objstore.remember_sealed`` raises."""
    from objstore import remember_sealed
    from ._out import echo, emit_json, fmt_time
    w = remember_sealed(store, key, text, kind=kind, trust=trust, valid_from=valid_from, expect=expect,
                        owner=owner)
    s = w.version.sealed
    from objstore import vault_damage
    if bad := vault_damage(store):   # sealed to a key whose identity may no longer open (fresh39 F6)
        echo(f"warning: {bad}", err=True)
    if as_json:
        emit_json({"key": w.key, "written": True, "id": w.version.id, "version": s.version,
                   "previous": w.previous, "current": w.current, "sealed": True, "turns_quoting": w.turns_quoting})
        return 0
    later = w.current != w.version.id and s.valid_from > s.recorded_at
    echo(f"sealed {w.key} v{s.version} {w.version.id[:12]}" + (
        f" (valid from {fmt_time(s.valid_from)}, in the future: " + (
            f"until then the current value stays {w.current[:12]})" if w.current else "no current value until then)")
        if later else "") + withheld_note(w.turns_quoting))
    return 0


def withheld_note(turns: int) -> str:
    """What a sealed write's answer adds when it rewrote ``turns`` stored turns quoting the value
    (``SealedWrite.turns_quoting``; test37b T20): ``", the value withheld in 2 turns quoting it"``, or ``""``."""
    from ._common import plural
    return f", the value withheld in {plural(turns, 'turn')} quoting it" if turns else ""
