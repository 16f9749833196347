"""mem get."""

import click

from ._common import TimeType, complete_key, exit_with, json_option, with_store


@click.command("get")
@click.argument("key", shell_complete=complete_key)
@click.option("--as-of", type=TimeType(), help="The value that was current at TIME (recorded by then and valid then).")
@click.option("--session", metavar="ID", help="Read as this session's namespace (default: $MEM_SESSION).")
@click.option("--agent", metavar="NAME", help="Read as sub-agent NAME of the session: its own and its ancestors' "
                                              "values, never a sibling's.")
@json_option
@with_store()
def command(key, as_of, session, agent, as_json, store):
    """Print the current value of KEY.

    The current value is decided by the refs and the supersession rule
    (the newest valid_from wins), never by a score.  With --as-of, the
    value that was current at TIME: among the versions recorded by TIME
    and valid by TIME, the newest valid_from (as mem log --as-of marks it).
    --session S (default $MEM_SESSION) reads as session S, --agent NAME as
    its sub-agent NAME: the value mem recall --session S --agent NAME shows
    (a sub-agent's own value first, then its ancestors'; never a sibling's).
    On a terminal a control character or escape sequence in the value is
    shown escaped (a\\x1b[31m), as mem keys and mem log show it always;
    to a pipe or a file the value is written exactly as stored, for
    $(mem get KEY) in a script; --json holds it as stored.  A key whose
    ref was set back to an older version than its reflog's last move (a
    file-level restore, a synced folder's older copy) gets the value its
    ref holds and a warning on stderr naming both versions (as mem log).

    \b
    Examples:
      mem get project/api/db
      mem get project/api/db --as-of 2026-03-01
      mem get project/api/db --json
      mem get project/api/cache --session S1 --agent explorer

    Exit status: 0 found; 2 a bad session or agent name, or --agent without
    a session; 4 no such key (or no value current at --as-of);
    6 the key is sealed (its value is shown only by mem sealed show); 10 no store;
    13 the current value was lost to damage (mem fsck --repair kept its
    place; the message names the newest readable version: mem revert KEY
    makes it current again), or the whole key was (mem fsck --repair
    removed it with nothing readable and recorded it in lost-refs: the
    message says when; mem pull from a remote or backup puts it back).
    """
    from . import lean
    exit_with(lean.get(store, key, as_json, as_of, session, agent))
