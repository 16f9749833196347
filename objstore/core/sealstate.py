"""Keys that are both sealed and plain: a ``mem seal`` stopped half-way.

``mem seal KEY`` (``objstore.vault.sealed.seal_key``) writes the sealed
chain ``refs/sealed/<key>``, then removes the plain one ``refs/facts/<key>``
as a forget does.  Stopped in between (kill -9, power lost), the key is
both: ``mem get`` says "sealed" while every reader of plain values (keys,
search, recall, context, export, push) would serve the plaintext (tester
finding test24 T1).  Since session 24 the seal notes itself durably in
``forget-unfinished`` (``objstore.core.unfinished``, kind ``what``, command
``seal``) before its sealed ref moves, and every store opening finishes it
(``objstore.memory.sealstop``).  A store left both ways by an older ``mem``
has no note: :func:`plain_and_sealed` finds it by walking ``refs/sealed``
(``mem fsck`` and ``mem doctor`` report it; ``mem fsck --repair`` or the
next ``mem seal KEY`` finishes it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from objstore.core.errors import ForgetUnfinished, MemError
from objstore.core.objects import Fact
from objstore.core.refs import fact_ref
from objstore.core.setback import refuse_set_back_refs
from objstore.core.unfinished import refuse_while_unfinished

if TYPE_CHECKING:
    from objstore.core.store import Store


def plain_and_sealed(store: Store) -> list[str]:
    """The keys (sorted) that have a sealed ref and a plain chain with a
    version that still holds a value (versions a forget emptied hold none:
    an earlier forget's places, which ``seal_key`` also clears).  Costs one
    walk of ``refs/sealed`` and one ref read per sealed key, and a walk of
    the plain chain of each key that has one; a plain chain that does not
    read counts as holding a value (it may).  A key whose unseal was
    stopped (a note, command ``unseal``: finding test24b U3) is left out:
    its note names it, and the fix is the unseal's, not the seal's.  Raises
    CorruptObject for a damaged sealed ref file (as ``Refs.iter``)."""
    out = []
    unsealing: set[str] | None = None
    for name, _oid in store.refs.iter("sealed"):
        key = name[len("sealed/"):]
        head = store.refs.read(fact_ref(key))
        if head is None:
            continue
        if unsealing is None:   # the notes are read only for a key both ways
            unsealing = {s.selector for s in store.unfinished.list() if s.command == "unseal" and s.kind == "what"}
        if key in unsealing:
            continue
        try:
            if all(f.forgotten for _id, f in store.walk_chain(head, Fact, "fact version")):
                continue
        except MemError:
            pass
        out.append(key)
    return out


def refuse_while_stopped(store: Store, action: str, journal: bool = True) -> None:
    """:func:`objstore.core.unfinished.refuse_while_unfinished` (a forget or
    seal noted as stopped, ``journal`` as there), then the same refusal
    (ForgetUnfinished, exit 6) for a key both sealed and plain
    (:func:`plain_and_sealed`: a seal an older ``mem`` left half-way, no
    note): ``action`` (``push``, ``backup``, ``export``) would copy its
    plaintext.  Costs one walk of ``refs/sealed`` more.  Then IntegrityError
    (exit 13) for a set-back fact ref (``core.setback.refuse_set_back_refs``:
    its older value would leave as the current one; test41 T5), one reflog
    tail read per fact ref."""
    refuse_while_unfinished(store.unfinished, action, journal)
    both = plain_and_sealed(store)
    if both:
        raise ForgetUnfinished(f"{action} refused: {both[0]} is both sealed and plain (a 'mem seal' was stopped "
                               f"before it removed the plaintext), so {action} would copy the plaintext",
                               hint=f"finish it first: mem seal {both[0]}  (or: mem fsck --repair)")
    refuse_set_back_refs(store, action)
