"""mem keys."""

import click

from ._common import emit_json, json_option, safe, short, shown_key, with_store
from ._out import warn_set_back


@click.command("keys")
@click.argument("prefix", required=False, default="")
@json_option
@with_store()
def command(prefix, as_json, store):
    """List keys with their current version.

    PREFIX is whole segments of a key (user, project/api): project/ap does
    not list project/api/port.

    \b
    Examples:
      mem keys
      mem keys project/api/

    A key whose ref is damaged (its file holds no id, or it names a
    missing or damaged object) is skipped with a warning on stderr.  A
    key with no current value (sub-agents that disagree, versions all
    scheduled ahead) is listed as ``KEY  -/N  no current value (why)``;
    in ``--json`` its ``id``, ``version`` and ``body`` are null and
    ``why`` says why (``--plain``: the reason in the body's column).

    A sealed key (mem remember --sensitivity secret, mem seal, mem sealed
    import) is listed as ``KEY  vN/M  sealed (mem sealed show KEY)``, its
    value never shown (``--json``: ``"sealed": true``, ``body`` null).

    When no key is listed, stderr says so and how to add one (the list on
    stdout stays empty).

    Exit status: 0 ok (none listed, damaged refs skipped included); 10 no
    store.
    """
    from objstore import current_of, key_chains, now_ms, why_no_current
    rows = []
    for key, chain in key_chains(store, prefix):
        cur = current_of(chain)
        why = why_no_current([v.fact for v in chain], now_ms()) if cur is None else ""
        rows.append((key, cur, len(chain), why))
    sealed = _sealed_rows(store, prefix, {k for k, _c, _n, _w in rows})
    back = warn_set_back(store, [r[0] for r in rows] + [r[0] for r in sealed])   # (test39b B6)
    if as_json:
        from . import _out
        emit_json([{"key": k, "id": c.id, "version": c.fact.version, "versions": n, "body": c.fact.body,
                    **({"set_back": back[k]} if k in back else {})}
                   if c is not None else   # (--plain: the same columns, the reason in the body's)
                   {"key": k, "id": None, "version": None, "versions": n, "body": f"(no current value: {why})"}
                   if _out.PLAIN else {"key": k, "id": None, "version": None, "versions": n, "body": None, "why": why}
                   for k, c, n, why in rows]
                  + [{"key": k, "id": i, "version": v, "versions": n, "body": None, "sealed": True,
                      **({"set_back": back[k]} if k in back else {})}
                     for k, i, v, n in sealed])
        return
    if not rows and not sealed:   # (a first-day user saw nothing at all: ux36)
        click.echo(safe(f"no keys under {prefix}: mem keys lists every key") if prefix else
                   "no keys yet: add one with mem remember KEY VALUE (the hooks add what you ask to "
                   "remember: mem setup)", err=True)
    for k, c, n, why in rows:
        click.echo(safe(f"{shown_key(k)}  v{c.fact.version}/{n}  {short(c.fact.body, 60)}" if c is not None
                        else f"{shown_key(k)}  -/{n}  no current value ({why})"))
    for k, _i, v, n in sealed:   # (test37b T13: an imported sealed key was listed by 'mem sealed list' only)
        click.echo(safe(f"{shown_key(k)}  {f'v{v}' if v else '-'}/{n}  sealed (mem sealed show {k})"))


def _sealed_rows(store, prefix: str, plain: set[str]) -> list[tuple[str, str | None, int | None, int]]:
    """``(key, current id, current version, versions)`` of each sealed key under ``prefix`` that has no plain
    chain listed (``plain``); none read when nothing is sealed (no vault module loaded)."""
    if not any(True for _n in store.refs.iter("sealed", damaged=[])):
        return []
    from objstore import list_sealed
    return [(r.key, r.current.id if r.current else None, r.current.sealed.version if r.current else None, r.versions)
            for r in list_sealed(store, prefix) if r.key not in plain]
