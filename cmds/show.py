"""mem show."""

import click

from ._common import emit_json, fmt_time, json_option, plural, safe, with_store
from ._out import body_text, edge_lines, shown_key


def object_json(oid: str, obj) -> dict:
    """The stable JSON shape of any object (ids as hex, bytes as hex)."""
    d = {"type": obj.TYPE_NAME, "id": oid}
    for k, v in obj.to_payload().items():
        if isinstance(v, bytes):
            v = v.hex()
        d[k] = v
    return d


def _json(oid: str, obj) -> dict:
    """:func:`object_json`, but a sealed version's age file is replaced by its
    size (``mem sealed export`` writes it; ``cat-object`` shows it raw)."""
    d = object_json(oid, obj)
    if obj.TYPE_NAME == "sealed":
        d["age_bytes"] = len(d.pop("age")) // 2
        d["body"] = None
    return d


def fact_status(store, oid: str, fact) -> tuple[str, int | None]:
    """``(status, current version number)`` of a fact version.  ``status``:
    ``current``, ``forgotten``, ``lost`` (a lost stub ``mem fsck --repair`` kept), ``superseded by vN`` (vN the version that
    replaced this one, the next one by the supersession rule, as ``mem log``
    lists them; not necessarily the current one), ``not current`` (e.g.
    valid only from a future time), or ``unknown`` when the key's history
    cannot be read (its current version None then)."""
    from objstore import MemError, current_of, successor_of, versions
    try:
        chain = versions(store, fact.key)
    except MemError:
        return ("forgotten" if fact.forgotten else "unknown"), None
    cur = current_of(chain)
    cur_v = cur.fact.version if cur is not None else None
    if fact.forgotten:
        from objstore import is_lost_stub
        return ("lost" if is_lost_stub(fact) else "forgotten"), cur_v
    if cur is None:
        return "unknown", None
    if cur.id == oid:
        return "current", cur_v
    nxt = successor_of(chain, oid)
    return (f"superseded by v{nxt.fact.version}" if nxt is not None else "not current"), cur_v


def _print_object(oid: str, obj, status: str | None = None, store=None, current_version: int | None = None) -> None:
    from objstore import Fact, Sealed, Tombstone, Turn, is_lost_stub
    click.echo(click.style(f"{obj.TYPE_NAME} {oid}", fg="yellow"))
    if isinstance(obj, Sealed):
        click.echo(safe(f"key:         {shown_key(obj.key)}  (v{obj.version}, sealed)"))
        click.echo(f"kind:        {obj.kind}    trust: {obj.trust}    owner: {safe(obj.owner)}")
        click.echo(f"valid_from:  {fmt_time(obj.valid_from)}    recorded_at: {fmt_time(obj.recorded_at)}")
        click.echo(f"parent:      {obj.parent or '-'}")
        click.echo("")
        click.echo(safe(f"•••••• sealed: {len(obj.age)} bytes of age ciphertext; "
                        f"read it with: mem sealed show {obj.key} --version {obj.version}"))
    if isinstance(obj, Fact):
        shown = status
        if status in ("not current", "forgotten", "lost") or (status or "").startswith("superseded"):
            if current_version is not None and status != f"superseded by v{current_version}":
                shown = f"{status}; current: v{current_version}"  # the successor is not the current one
        click.echo(safe(f"key:         {shown_key(obj.key)}  (v{obj.version}{', ' + shown if shown else ''})"))
        if status and status.startswith(("superseded", "not current")):
            click.echo(safe(f"note:        not the current value; see it with: mem get {obj.key}"))
        click.echo(f"kind:        {obj.kind}    trust: {obj.trust}    sensitivity: {obj.sensitivity}")
        click.echo(f"valid_from:  {fmt_time(obj.valid_from)}    recorded_at: {fmt_time(obj.recorded_at)}")
        click.echo(f"parent:      {obj.parent or '-'}")
        if obj.forgotten:
            lost = is_lost_stub(obj)
            click.echo(f"{'lost' if lost else 'forgotten'}:   {fmt_time(obj.forgotten)} "
                       f"({'mem fsck --repair could not recover it' if lost else 'its value was removed'})")
        if obj.pinned:
            click.echo("pinned:      yes")
        if obj.namespace:
            click.echo(safe(f"namespace:   {obj.namespace}"))
        if obj.sources:
            click.echo(f"sources:     {', '.join(obj.sources)}")
        from objstore import describe_edge_target
        describe = (lambda t: describe_edge_target(store, t)) if store is not None else None
        for i, line in enumerate(edge_lines(obj.edges, describe)):
            click.echo(safe(f"{'edges:' if i == 0 else '':<13}{line}"))
        click.echo("")
        click.echo(body_text(obj))
    elif isinstance(obj, Turn):
        click.echo(safe(f"session:     {obj.session}  (turn {obj.seq})"))
        from objstore import turn_author
        click.echo(f"role:        {obj.role}    time: {fmt_time(obj.timestamp)}    harness: {obj.harness}"
                   + (f"    entrypoint: {obj.entrypoint}" if obj.entrypoint else ""))
        click.echo(f"author:      {turn_author(obj)}" + ("    untrusted (its session read outside content)"
                                                         if obj.untrusted else ""))
        click.echo(safe(f"project:     {obj.project or '-'}    cwd: {obj.cwd or '-'}"))
        click.echo(f"parent:      {obj.parent or '-'}")
        if obj.forgotten:
            click.echo(f"forgotten:   {fmt_time(obj.forgotten)}"
                       + (" (lost: mem fsck --repair could not recover it)" if is_lost_stub(obj) else ""))
        click.echo("")
        click.echo(body_text(obj))
    elif isinstance(obj, Tombstone):
        click.echo(safe(f"key:         {shown_key(obj.key)}"))
        click.echo(f"value sha256: {obj.value_sha256.hex()}")
        click.echo(f"time:        {fmt_time(obj.time)}    reason: {obj.reason}")


@click.command("show")
@click.argument("what")
@json_option
@with_store()
def command(what, as_json, store):
    """Show an object, a version (KEY@vN) or a session.

    WHAT is an object id (or a prefix of at least 4 hex digits), KEY@vN, a
    key (its current version) or a session id (its turns in order).  A
    sealed version shows its metadata, its value masked.  A turn shows a
    text forgotten with `mem forget --match` as [forgotten] (a session
    imported after the forget still holds it).

    \b
    Examples:
      mem show project/api/db@v1
      mem show 8c1f2a3b
      mem show 03eb5929-52b3-4b13-ada3-b93ae35806b8

    Exit status: 0 ok; 2 the argument is empty or holds a credential (never echoed);
    4 not found or ambiguous; 6 a plain version of a
    sealed key (a seal stopped half-way; mem fsck --repair finishes it);
    13 corrupt object.
    """
    from objstore import current, resolve_session, resolve_version, session_turns
    from objstore import decode
    from objstore import AmbiguousId, InvalidInput, NotFound
    from objstore import check_prefix

    if not what.strip():   # bad input, not "nothing named ''" (test34 T12.5)
        raise InvalidInput("nothing to show: WHAT is empty", hint="give an object id, KEY[@vN] or a session id")
    # a credential pasted here is refused before any lookup, never echoed by "nothing named …" (test26 V18)
    from objstore import check_name
    check_name(what, "argument", where="this command's error message (a terminal's scrollback, an agent's "
               "transcript)", hint="give an object id, KEY[@vN] or a session id")
    is_key = "/" in what.partition("@")[0]  # keys hold a '/', session ids and object ids never do
    if is_key:
        sv = _sealed_version(store, what)
        if sv is not None:
            return emit_json(_json(sv.id, sv.sealed)) if as_json else _print_object(sv.id, sv.sealed)
    if is_key and "@" in what:
        v = resolve_version(store, what)
        return _emit_fact(store, v.id, v.fact, as_json)
    try:
        check_prefix(what)
        is_hex = True
    except InvalidInput:
        is_hex = False
    if is_hex:
        try:
            oid = store.resolve(what)
        except AmbiguousId:
            raise
        except NotFound:
            oid = None
        if oid is not None:
            try:  # an id prefix that is also a session id (or its prefix) names two things
                sid = resolve_session(store, what)
            except AmbiguousId:
                sid = what
            if sid is not None:
                raise AmbiguousId(f"{what} names object {oid[:12]} and session {sid}",
                                  hint=f"give more of the id ({oid[:16]}) or the whole session id")
            obj = decode(store.read_frame(oid))
            if obj.TYPE_NAME == "fact":
                return _emit_fact(store, oid, obj, as_json)
            if obj.TYPE_NAME == "turn":
                obj = _served(store, [obj])[0]
            return emit_json(_json(oid, obj)) if as_json else _print_object(oid, obj)
    sid = resolve_session(store, what)
    if sid is not None:
        turns = session_turns(store, sid)
        turns = [tv.replace(turn=t) for tv, t in zip(turns, _served(store, [tv.turn for tv in turns]))]
        if as_json:
            return emit_json({"session": sid, "turns": [object_json(t.id, t.turn) for t in turns]})
        click.echo(click.style(f"session {sid}  ({plural(len(turns), 'turn')})", fg="yellow"))
        from objstore import turn_author
        for tv in turns:
            t = tv.turn
            who = "user (parent_agent)" if turn_author(t) == "parent_agent" else t.role
            ep = f"  ({t.entrypoint})" if t.entrypoint else ""
            click.echo(click.style(f"\n[{t.seq}] {who}  {fmt_time(t.timestamp)}  {tv.id[:12]}{ep}", bold=True)
                       + (click.style("  untrusted", fg="red") if t.untrusted else ""))
            click.echo(body_text(t))
        return
    if "/" in what:
        v = current(store, what)
        return _emit_fact(store, v.id, v.fact, as_json)
    from objstore import MIN_PREFIX_LEN
    if 0 < len(what) < MIN_PREFIX_LEN and "@" not in what:
        raise NotFound(f"nothing named {what!r}: an id or session prefix is too short "
                       f"(at least {MIN_PREFIX_LEN} characters)",
                       hint="give more of the id: mem sessions lists session ids")
    raise NotFound(f"nothing named {what!r}: not an object id, KEY@vN, key or session",
                   hint="mem keys lists the keys, mem sessions the sessions, mem search WORDS finds text")


def _served(store, turns: list) -> list:
    """``turns`` as served: a text forgotten with ``mem forget --match`` that
    a turn still holds (a session imported after the forget) shown as
    ``[forgotten]`` (``objstore.hider``), as search and recall show it."""
    from objstore import hider
    hide = hider(store) if turns else None
    if hide is None:
        return turns
    return [t.replace(text=hide.text(t.text)) if t.text else t for t in turns]


def _emit_fact(store, oid: str, fact, as_json: bool) -> None:
    from objstore import refuse_if_sealed
    # mend25: a plain version of a sealed key (named by its id: a seal an older mem stopped left the key both
    # sealed and plain) is shown by no reader; 'mem sealed show' reads the key, 'mem fsck --repair' ends it
    refuse_if_sealed(store, fact.key)
    status, cur_v = fact_status(store, oid, fact)
    if as_json:
        return emit_json({**object_json(oid, fact), "status": status, "current_version": cur_v})
    _print_object(oid, fact, status, store, cur_v)


def _sealed_version(store, what: str):
    """The sealed version named by ``KEY`` or ``KEY@vN``, or None when the
    key is not sealed (or not a key at all)."""
    from objstore import InvalidInput
    from objstore import is_sealed, parse_version_spec, pick_version, sealed_versions
    key, v = parse_version_spec(what)
    try:
        if not is_sealed(store, key):
            return None
    except InvalidInput:
        return None
    return pick_version(sealed_versions(store, key), v)
