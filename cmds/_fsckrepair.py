"""What ``mem fsck --repair`` prints of its report (:func:`print_repair`,
:func:`print_registry`), one line each through :func:`say`.  Split from
``cmds/fsck.py`` (session 43) to keep it under the module size limit."""

from __future__ import annotations

import click

from ._common import plural, safe


def say(text: str, err: bool = False) -> None:
    """One repair line on stdout (a hint: on stderr, ``err``), through
    :func:`safe`: a ref name from a file name that is not UTF-8 as
    ``bad\\udcff``, as every command shows it."""
    click.echo(safe(text), err=err)


def print_registry(rb) -> None:
    """The lines of a rebuilt project registry (``objstore.memory.registryfix``); none for None."""
    if rb is None:
        return
    say(f"repair: rebuilt the project registry: {plural(rb.kept, 'entry')} still readable kept, "
         f"{plural(len(rb.found), 'project')} named again from the turns' folders"
         + (f", the folders of {len(rb.folders)} remote identities recorded" if rb.folders else "")
         + (f"; the damaged file moved to {rb.set_aside}" if rb.set_aside else ""))
    for ident, name in rb.not_given:
        say(f"repair: {ident}: its sessions were captured as {name} too, a name another project holds now; "
             f"facts under project/{name}/ are not served there: 'mem keys project/{name}/' lists them")
    for name, other in rb.other_names:
        say(f"repair: project {name}: some of its sessions were captured as {other} (while the registry was "
             f"damaged); facts under project/{other}/ are not served in {name}: 'mem keys project/{other}/' lists them")


def print_repair(r, reindexed: int | None, config_fixed: str | None = None, other: bool = False) -> None:
    """The repair's lines after the config's (printed before the open): one
    summary, "nothing to repair" only when nothing at all was repaired
    (``other``: another repair, the project registry's, was made)."""
    if reindexed is not None:
        say(f"repair: rebuilt the search index ({plural(reindexed, 'document')})")
    for name in r.lost_tombstones:
        say(f"repair: kept {name}: its object is lost, so no turn is captured until it is restored")
    if r.lost_tombstones:
        say("hint: 'mem pull' from a remote that holds it restores it; 'mem fsck --repair "
                   "--drop-lost-tombstones' drops it (what it forgot may then be captured again)", err=True)
    for name, at, bit in r.unflipped:   # (test34b T24)
        say(f"repair: pack {name[:16]} had one flipped bit (byte {at}, bit {bit}): flipped back, the pack is "
             "again as written (its checksum matches) and every object in it reads; the damaged copy is in "
             "the quarantine")
    for pack in r.put_back:
        say(f"repair: put back {pack} and its index from the quarantine (they verify)")
    if r.pack_dir:   # nothing touched: its objects are missing, not lost (fresh42 F3)
        say(f"repair: stopped: {r.pack_dir}; no ref, reflog or file was changed")
        return
    for pack in r.absent_packs:   # missing, not damaged: nothing that needs it is touched (test33 T17)
        say(f"repair: {pack} is missing (its index is intact): every ref and reflog is kept as it is, and "
             "the refs are not checked or mended while it is missing; put the file back, then run 'mem fsck'")
    if r.absent_packs:
        say("hint: if it is gone for good, move its .idx out of objects/pack and run 'mem fsck --repair' again: "
             "a history that needs its objects then gets 'lost' placeholders, and a ref with nothing readable "
             "is removed", err=True)
    if not r.changed:
        if r.absent_packs:
            return
        if reindexed is None and not config_fixed and not r.lost_tombstones and not other:
            say("repair: nothing to repair")
        return
    if r.quarantine:
        say(f"repair: moved {plural(len(r.quarantined), 'damaged file')} to {r.quarantine}")
    if r.salvaged:
        say(f"repair: salvaged {plural(r.salvaged, 'object')} from damaged packs")
    if r.dropped_objects:
        say(f"repair: dropped {plural(len(r.dropped_objects), 'damaged object')}")
        for name, n in r.uninflated.items():   # why one bit cost many objects (test34 T2)
            say(f"repair: {n} of them (pack {name[:16]}) came after the damage in their compressed block, "
                 "which does not inflate beyond it (a block is one DEFLATE stream: damage costs every "
                 "object after it in the block)")
        for name, n in r.miscopied.items():   # why one bit cost objects that still inflate (test34b T24)
            say(f"repair: {n} of them (pack {name[:16]}) inflate to wrong bytes: the damage is in what their "
                 "compressed block shares (its Huffman table, or text later objects copy), and it is not one "
                 "flipped bit the repair could find and undo")
    if r.misindexed:   # a damaged .idx id: the object is intact, only its entry was wrong
        one = len(r.misindexed) == 1
        say(f"repair: dropped {len(r.misindexed)} pack index {'entry' if one else 'entries'} whose id did "
                   f"not match {'its object' if one else 'their objects'} (a damaged .idx); the "
                   f"{'object is' if one else 'objects are'} intact in the pack, and a history that needs "
                   f"{'it reads it' if one else 'them reads them'} back")
    if r.unindexed:
        say(f"repair: read {plural(r.unindexed, 'object')} back from a pack whose index was missing or damaged")
    if len(r.refetched) > r.unindexed:
        say(f"repair: re-fetched {plural(len(r.refetched) - r.unindexed, 'object')}")
    for name in r.found_again:
        say(f"repair: set {name} again: its objects read again (an older repair found them lost)")
    for name, head in r.written_since:   # not set back: the later writes would be rewritten (test43 T6)
        say(f"repair: {name}: the history an older repair removed reads again (head {head[:12]}), but it was "
             f"written since, so it is not set back; 'mem show {head[:12]}' reads its last value, its reflog "
             "keeps the older versions")
    if r.rerecorded:
        say(f"repair: wrote back {len(r.rerecorded)} pack{'s' if len(r.rerecorded) > 1 else ''} "
             "into objects/info/packs (the record was deleted, emptied or incomplete)")
    for name in r.restored_refs:
        if name.startswith("tombstones/"):
            say(f"repair: restored {name} (the ref of a tombstone still stored was missing)")
        else:
            say(f"repair: restored {name} from its reflog (a damaged ref file is in the quarantine; "
                       "a ref set back is moved forward)")
    for name in r.relost:
        say(f"repair: recorded the head of {name} in its reflog, which was missing or empty (its earlier moves "
             "are not known)")
    for name in r.relogged:
        say(f"repair: added to the reflog of {name} the line of a move it lost (a write that stopped before its "
             "line: a full disk, a crash; or a line lost since)")
    for name in r.refound:
        say(f"repair: restored {name} from its reflog (no ref named its stored "
                   f"{'turns' if name.startswith('sessions/') else 'versions'})")
    for path, kept, dropped in r.reflogs:
        if not kept and not dropped:   # no lines: a symlink, a folder, a FIFO in its place
            say(f"repair: set aside the damaged reflog {path} in the quarantine: not a regular file (a symbolic "
                 "link, a folder, a FIFO), never read or written through")
            continue
        say(f"repair: set aside the damaged reflog {path} in the quarantine: dropped "
                   f"{plural(dropped, 'unreadable line')}, kept {plural(kept, 'readable line')}"
                   + ("" if kept else " (the file is gone)"))
    for name, other, n, base in r.own_history:
        say(f"repair: {name} reached the versions of another key ({other}): "
             + (f"set to its own last version {base[:12]}" if base is not None else "removed (no version of its own)")
             + (f", with its {plural(n, 'newer version')} put back on it" if n else "")
             + f"; {other}'s versions stay its own")
    for name, head, what in r.stale_reflogs:
        say(f"repair: set aside the reflog of {name} in the quarantine: it named {head[:12]} as its head "
             f"({what}) while no version of the key is stored; the key's next write starts it at v1")
    for name, was, now in r.reset_refs:
        say(f"repair: set {name} to {now[:12]}, the head its reflog names: it held {was[:12]}, which "
                   "is not in this store (a damaged ref; no object was lost)")
    for name in r.misnamed:
        say(f"repair: removed {name}: its head is "
             f"{'a turn of another session' if name.startswith('sessions/') else 'a version of another key'} "
             "(a damaged name)")
    for name in r.rebuilt:
        say(f"repair: rebuilt {name} from its {'turn' if name.startswith('sessions/') else 'version'} "
                   "objects (its ref was damaged or missing)"
                   + ("; several turns had no child: took the one a reflog names, else the highest seq"
                      if name in r.rebuilt_ambiguous else ""))
    for name, heads in r.unresolved.items():
        say(f"repair: did not rebuild {name}: its candidate heads "
                   f"{', '.join(h[:12] for h in heads)} are in its reflog")
    if r.unresolved:
        say("hint: 'mem reflog KEY' lists them and 'mem cat-object ID' shows each; 'mem remember KEY "
                   "VALUE' then sets the value to keep", err=True)
    for name in r.mended:
        if name in r.gaps_filled:   # whole, but misnumbered (an unseal before session 15 dropped forgotten places)
            say(f"repair: mended {name}: {plural(r.gaps_filled[name], 'missing version number')} "
                       "kept as forgotten placeholders (a forgotten version's place an older mem unseal dropped)")
        elif name in r.cut_short:   # its head was lost: the session's end, of unknown length (test34 T11)
            k, more = r.cut_short[name], r.stubs_in.get(name, 1) - 1
            say(f"repair: mended {name}: its last turns were lost with its head (from turn #{k} on; how many is "
                 f"unknown): kept as an empty 'lost' placeholder at #{k}"
                 + (f", and {_lost_places(name, more)} before it as placeholders in their places" if more else ""))
        elif r.stubs_in.get(name):
            say(f"repair: mended {name}: {_lost_places(name, r.stubs_in[name])} kept as "
                       + ("an empty 'lost' placeholder in its place" if r.stubs_in[name] == 1
                          else "empty 'lost' placeholders in their places"))
        else:
            say(f"repair: mended {name}: its readable versions relinked (no placeholder needed)")
    for name, n in r.edges_dropped.items():
        say(f"repair: dropped {plural(n, 'edge')} of {name} to ids that are no fact version or turn here "
             + ("(lost to the damage above)" if r.lost or r.dropped_objects or r.stubs else
                "(a forget --match stopped before it rewrote the summaries citing the turns it rewrote)"))
    for name, n in r.lost_heads.items():
        say(f"repair: the current value of {name.split('/', 1)[1]} was lost: its place is kept (v{n + 1}, "
                   f"'lost'); v{n}, the newest readable version, is older and was not made current")
    if any(name.startswith("facts/") for name in r.lost_heads):
        say("hint: 'mem pull' from a remote that holds the value brings it back; else 'mem log KEY' shows "
                   "what is left, 'mem revert KEY' makes the older value current again, 'mem remember KEY VALUE' "
                   "sets the value to keep", err=True)
    if any(name.startswith("sealed/") for name in r.lost_heads):   # never pushed: no remote holds it
        say("hint: a sealed value is on no remote: 'mem sealed show KEY --version N' reads an older one, "
                   "'mem remember KEY VALUE --sensitivity secret' sets the value to keep", err=True)
    if any(name.startswith("sessions/") for name in r.mended):
        say("hint: 'mem import claude-code --reread' (or codex) of the sessions' transcripts puts "
                   "their lost turns back in their places", err=True)
    for name in r.dropped_rules:
        say(f"repair: removed {name}: a text rule whose digest line is lost; its text may be captured again")
    for name in r.dropped_refs:
        if name.startswith("tombstones/"):
            say(f"repair: removed {name}: its object is lost; what it forgot is no longer filtered and "
                       "a re-import can capture it again")
        else:
            say(f"repair: removed {name}: nothing of it could be read")
    for name, n in r.forgotten_entries.items():
        say(f"repair: dropped {plural(n, 'entry')} of the reflog of {name} naming what a tombstone forgets "
                   "(gc deletes it now)")
    summary = _lost_summary(r)
    if summary:
        say(f"repair: lost in all: {summary}")
    if r.recorded:   # (test33b T13; sealed: no pull brings them, fresh41 F3)
        from objstore import sealed_way_back
        say("hint: the removed refs are recorded in lost-refs: 'mem fsck' and 'mem doctor' name them until "
             "'mem pull REMOTE' from a remote or backup that holds them puts them back", err=True)
        if way := sealed_way_back([n for n in r.recorded if n.startswith("sealed/")]):
            say(f"hint: {way}", err=True)


def _lost_places(name: str, n: int) -> str:
    """``2 lost versions`` / ``1 lost turn`` / ``1 lost sealed version`` of ref ``name``."""
    what = {"sessions": "turn", "sealed": "sealed version"}.get(name.split("/", 1)[0], "version")
    return plural(n, f"lost {what}")


def _lost_summary(r) -> str:
    """What the repair lost, counted as the store now holds it: the 'lost'
    placeholders it wrote (by kind, and in how many histories), the refs it
    removed with nothing readable, the tombstones kept or dropped whose
    object is lost; "" when nothing was lost."""
    parts = []
    by_kind: dict[str, list[int]] = {}
    for name, n in r.stubs_in.items():
        n -= name in r.cut_short   # that placeholder stands for a session's end, said below
        if n:
            by_kind.setdefault(name.split("/", 1)[0], []).append(n)
    for ns, what in (("facts", "version"), ("sealed", "sealed version"), ("sessions", "turn")):
        if ns in by_kind:
            n, refs = sum(by_kind[ns]), len(by_kind[ns])
            where = plural(refs, "session" if ns == "sessions" else "key")
            parts.append(f"{plural(n, what)}, now {'a' if n == 1 else n} 'lost' "
                         f"{'placeholder' if n == 1 else 'placeholders'} in {where}")
    if r.cut_short:   # a 'lost' placeholder there stands for a session's end of unknown length (test34 T11)
        parts.append(f"the end of {plural(len(r.cut_short), 'session')} from a lost head on (one placeholder "
                     "each: how many turns is unknown)")
    gone = [n for n in r.dropped_refs if not n.startswith("tombstones/")]
    if gone:
        parts.append(f"{plural(len(gone), 'ref')} removed with nothing readable ({', '.join(gone)})")
    tombs = len(r.lost_tombstones) + sum(n.startswith("tombstones/") for n in r.dropped_refs)
    if tombs:
        parts.append(f"{plural(tombs, 'tombstone')} whose object is lost (kept or removed: see above)")
    return "; ".join(parts)
