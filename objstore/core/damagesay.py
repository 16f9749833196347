"""What a reader that went on without damaged objects or refs says of the
cause, and what ``mem fsck --repair`` will then truly do (test34 T2, T3).

Before, one sentence served every cause: "a pack file is missing … ('mem
fsck --repair' keeps every ref meanwhile)" was printed for a damaged pack,
for a pack moved away with its ``.idx``, and for a ref file with one hex
digit flipped, and the repair then removed every ref in the first two
cases.  :func:`damage_causes` sorts ``Store.damaged`` (``{id or "ref
NAME": reason}``) by cause; :func:`damage_advice` gives one clause per
cause found, each with its own words."""

from __future__ import annotations

from objstore.core.errors import MemError

#: the reason ``Store.read_frame`` gives for an id a missing ``.pack``'s intact index lists
_ABSENT_PACK = ", which is missing"
#: the reason of an id found in no pack and no loose file (``NotFound``'s message)
_NOWHERE = ": no object "
#: a ref whose file holds no id at all (``Store.note_damaged_refs``)
_GARBAGE_REF = "the ref file does not hold an object id"


def _pack_named(reason: str) -> str | None:
    """The ``pack-….pack`` file name a reason names, or None."""
    for word in reason.replace("(", " ").replace(")", " ").split():
        name = word.rstrip(":,").rsplit("/", 1)[-1]
        if name.startswith("pack-") and name.endswith(".pack"):
            return name
    return None


def damage_causes(store) -> dict[str, list[str]]:
    """``{cause: [what, …]}`` of ``store.damaged`` (entries ``lost …`` are
    said elsewhere).  Causes: ``missing-pack`` (a ``.pack`` absent while its
    index is intact: pack file names), ``damaged-pack`` (an object of a
    present pack does not read back: pack file names), ``ref-file`` (a ref
    file holding no id, or an id in no store file while its reflog names
    another head: ref names), ``gone`` (a ref naming an id that is in no
    pack and no loose file, its reflog naming that same id: the object was
    written here and is now nowhere, e.g. a pack moved away with its
    ``.idx``: ref names), ``other``.  Reads a reflog for each ref of an
    id found nowhere; raises nothing."""
    out: dict[str, list[str]] = {}

    def add(cause: str, what: str) -> None:
        if what not in out.setdefault(cause, []):
            out[cause].append(what)

    for key, reason in store.damaged.items():
        if key.startswith("lost "):
            continue
        pack = _pack_named(reason)
        if reason.endswith(_ABSENT_PACK) and pack:
            add("missing-pack", pack)
        elif pack:
            add("damaged-pack", pack)
        elif key.startswith("ref ") and reason == _GARBAGE_REF:
            add("ref-file", key[4:])
        elif key.startswith("ref ") and _NOWHERE in reason:
            ref, named = key[4:], reason.split()[1].rstrip(",")
            try:
                log = store.reflog.read(ref)
            except (OSError, MemError):
                log = []
            head = log[-1].new if log else None
            add("gone" if head in (None, named) else "ref-file", ref)
        else:
            add("other", key[4:] if key.startswith("ref ") else key[:12])
    return out


def damage_advice(causes: dict[str, list[str]]) -> str:
    """One clause per cause of :func:`damage_causes`, joined by "; ": what
    the damage is and what ``mem fsck --repair`` will do about it."""
    def first(names: list[str]) -> str:
        return names[0] + (f" and {len(names) - 1} more" if len(names) > 1 else "")

    says = []
    if "missing-pack" in causes:
        says.append(f"pack file {first(causes['missing-pack'])} is missing (its index is intact): put it back; "
                    "'mem fsck --repair' keeps every ref meanwhile")
    if "damaged-pack" in causes:
        says.append(f"pack file {first(causes['damaged-pack'])} is damaged (its objects do not read back): 'mem fsck "
                    "--repair' sets it aside in quarantine/, keeps what is readable and removes the refs of which "
                    "nothing is (it names them and records them in lost-refs; a remote or backup puts them back)")
    if "gone" in causes:
        n = len(causes["gone"])
        says.append(f"{'the ref' if n == 1 else f'the {n} refs'} name{'s' if n == 1 else ''} an object that is in "
                    "no pack and no loose file although the reflog records it (a pack moved away with its .idx?): put the files back in objects/pack first; "
                    "'mem fsck --repair' removes such refs (recorded in lost-refs; a repair after the pack is back "
                    "rebuilds them)")
    if "ref-file" in causes:
        says.append(f"the ref file of {first(causes['ref-file'])} is damaged: 'mem fsck --repair' sets it back to "
                    "the head its reflog names (and removes it, recorded in lost-refs, when none is readable)")
    if "other" in causes or not says:
        says.append("'mem fsck' lists the damage, 'mem fsck --repair' sets it aside")
    return "; ".join(says)
