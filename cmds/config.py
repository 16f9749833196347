"""mem config."""

import os

import click

from ._common import emit_json, json_option, with_store


def _fmt(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _names(_ctx, _param, incomplete):
    from objstore import config_settings
    return [n for n in config_settings if n.startswith(incomplete)]


@click.command("config", context_settings={"ignore_unknown_options": True})  # VALUE may be -3: range-checked
@click.argument("name", required=False, metavar="[NAME]", shell_complete=_names)
@click.argument("value", required=False, metavar="[VALUE]")
@json_option
@with_store()
def command(name, value, as_json, store):
    """Read or set a setting of the store's config.toml.

    With no argument (or list), list every setting with its value (its
    default when the file does not set it) and what it does.  NAME alone
    prints its value; NAME VALUE sets it, keeping the rest of the file (comments,
    other tables) as it was.  Only known settings are written: a misspelt
    name is refused, with the closest names offered.  A boolean is spelt as
    git config spells it: true, yes, on or 1; false, no, off or 0 (any
    case), and is stored as true or false.  derive.api_key_env takes the
    NAME of the environment variable holding a key, never a key.  Reading
    is anyone's; setting is the person's: run by an agent (CLAUDECODE,
    Codex's variables or MEM_AGENT set) NAME VALUE is refused with exit 6,
    since the settings decide what leaves the machine (derive.*), what is
    captured (capture.ignore_marker), what is injected (context.*), when
    facts go dormant (decay.days) and which mem can read the store
    (store.pack_codec zstd: smaller packs, pack version 7, readable only
    with pip install 'memvcs[zstd]', from a clone of mem '.[zstd]').

    \b
    Examples:
      mem config
      mem config list
      mem config derive.auto true
      mem config derive.sources all
      mem config decay.days 90
      mem config store.pack_codec zstd
      mem config context.prompt_budget

    Exit status: 0 ok; 2 unknown setting, bad value (a number out of its
    range included), or a config.toml mem cannot edit safely; 6 set by an
    agent; 10 no store; 14 store.pack_codec zstd without the zstd codec
    (nothing written); 16 read-only store.
    """
    from objstore import config_read, config_set, config_setting, config_settings
    settings = config_settings
    if name is None or (name == "list" and value is None):
        cur = config_read(store.root)
        if as_json:
            emit_json([{"name": n, "value": cur[n], "default": s.default, "help": s.help}
                       for n, s in settings.items()])
            return
        for n, s in settings.items():
            mark = "" if cur[n] == s.default else "  (set)"
            click.echo(f"{n} = {_fmt(cur[n])}{mark}\n    {s.help}")
        return
    config_setting(name)  # an unknown name: exit 2 with the closest names
    if value is None:
        v = config_read(store.root)[name]
        if as_json:
            emit_json({"name": name, "value": v})
        else:
            click.echo(_fmt(v))
        return
    from objstore import require_person
    require_person(os.environ, f"mem config {name} VALUE", instead="tell the user the command to run")
    v, changed = config_set(store.root, name, value)
    if as_json:
        emit_json({"name": name, "value": v, "changed": changed})
        return
    click.echo(f"{name} = {_fmt(v)}" + ("" if changed else " (unchanged)"))
    if name == "derive.auto" and v is True:
        click.echo("derive runs at most once a day from the session-start hook, in the background, once "
                   "'mem derive --plan' has been shown for the destination it sends to.", err=True)
