"""mem diff."""

import click

from ._common import complete_key, emit_json, json_option, safe, with_store
from ._out import body_text


def _version(text):
    if text is None:
        return None
    from objstore import clip_spec, version_number
    n = version_number(text)
    if n is None:
        raise click.BadParameter(f"{clip_spec(text)} is not a version (want vN, e.g. v2)")
    return n


@click.command("diff")
@click.argument("key", shell_complete=complete_key)
@click.argument("va", required=False, metavar="[vA]")
@click.argument("vb", required=False, metavar="[vB]")
@json_option
@with_store()
def command(key, va, vb, as_json, store):
    """Show a word-level diff of two versions of KEY.

    Default: the version in force before the current one (not one
    scheduled for later, nor a sub-agent's) against the current one; for
    a value that settled sub-agents that disagreed (none was in force),
    the rival it replaced (one whose value it did not take), named in a
    note (--json: "settled", each rival's version and id).
    With vA only: vA against the current version.  Removed words are shown
    as [-…-] and added words as {+…+} (in colour on a terminal).

    \b
    Examples:
      mem diff project/api/db
      mem diff project/api/db v1 v3
      mem diff project/api/db@v1          # the same as: mem diff project/api/db v1
      mem diff project/api/db --json

    Exit status: 0 ok (also when the versions are equal, or when the
    version has none before it: nothing to diff, said so; --json gives a
    and b the same).  A version mem forget emptied (or mem fsck --repair
    could not recover) diffs as empty text, and a line says so, as mem log
    does (--json: its "forgotten" time, ms, else 0); 2 a bad version; 4 no such key or version, or no
    current value to compare with (sub-agents that disagree, every version
    forgotten: name both versions); 6 the key is sealed; 10 no store.
    """
    from objstore import diff_versions, parse_version_spec, refuse_if_sealed
    key, at = parse_version_spec(key)   # KEY@vN: the same as KEY vN (as log, show, forget name a version)
    if at is not None:
        if vb is not None:
            raise click.UsageError("KEY@vN names vA: give at most one more version (mem diff KEY@v1 v3)")
        va, vb = f"v{at}", va
    refuse_if_sealed(store, key, "diff")
    d = diff_versions(store, key, _version(va), _version(vb))
    if as_json:
        emit_json({"key": d.key, "a": _side_json(d.a), "b": _side_json(d.b), "changed": d.changed,
                   "ops": [{"op": o.op, "text": o.text} for o in d.ops],
                   "settled": [_side_json(v) for v in d.settled]})
        return
    if d.a.id == d.b.id and va is None:
        click.echo(f"{d.key} has no version before v{d.b.fact.version} {d.b.id[:12]}: nothing to diff "
                   f"(mem log {d.key})")
        return
    color = click.get_current_context().color  # None: colour only on a terminal; False under NO_COLOR
    click.echo(f"{d.key}  v{d.a.fact.version} {d.a.id[:12]} -> v{d.b.fact.version} {d.b.id[:12]}"
               + ("" if d.changed else "  (no change in the value)"))
    if d.settled:   # (test38 T9.14: the rival whose value the choice took was diffed, "no change")
        took = [v for v in d.settled if v.fact.body == d.b.fact.body]
        click.echo(safe(f"note: v{d.b.fact.version} settled sub-agents that disagreed ("
                        + ", ".join(f"v{v.fact.version} {v.fact.namespace}" for v in d.settled) + "): "
                        + (f"it took v{took[0].fact.version}'s value; " if took else "")
                        + f"diffed against v{d.a.fact.version}, the value it replaced"))
    for v in (d.a,) if d.a.id == d.b.id else (d.a, d.b):
        if v.fact.forgotten:   # its value is gone: the diff shows it as empty, say why
            click.echo(f"note: v{v.fact.version} {body_text(v.fact)[1:-1]}: its value is gone and diffs as empty "
                       f"(mem log {d.key})")
    parts = []
    for o in d.ops:
        t = safe(o.text)
        if o.op == "equal":
            parts.append(t)
        elif o.op == "delete":
            parts.append(click.style(f"[-{t}-]", fg="red") if color is not False else f"[-{t}-]")
        else:
            parts.append(click.style(f"{{+{t}+}}", fg="green") if color is not False else f"{{+{t}+}}")
    click.echo("".join(parts), color=color)


def _side_json(v) -> dict:
    return {"version": v.fact.version, "id": v.id, "forgotten": v.fact.forgotten or 0}
