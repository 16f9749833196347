"""``mem doctor``'s findings on the files that keep forgotten and sealed
values safe (fresh39 F5, F6, F13: fsck saw their damage, doctor said
nothing): the tombstone digests (``memory.guardfiles``), the vault's two
files (``vault.identity``)."""

from __future__ import annotations

from objstore.core.store import Store
from objstore.core.errors import LostTextRule
from objstore.core.hashkey import LOST_HINT, key_lost
from objstore.memory.guardfiles import hash_key_damage, lost_text_rules_note, unguarded_note, unread_texts_note
from objstore.porcelain.finding import Finding
from objstore.vault.identity import unproven_pair_note, vault_damage, vault_problem


def guard_findings(store: Store) -> list[Finding]:
    """A warning when keyed tombstones lost their digest pairs (no repair
    rebuilds them; an error for a ``forget --match`` text rule's), a warning for 'forget --match' texts forgotten elsewhere this store cannot read (test42 T24), an error for a damaged hash-key, an error for a damaged or missing vault file while
    keys are sealed,  (A forget note that does not read is
    ``doctor._unfinished``'s, whose fix ``StoppedForget.rerun`` names.)"""
    out = []
    if note := unguarded_note(store):
        out.append(Finding("tombstones", "warning", note,
                           "put tombstone-digests back from a backup or copy, or 'mem pull' from an encrypted "
                           "remote this store pushed to"))
    if why := lost_text_rules_note(store):   # capture and agent writes stop on it (test42 T18)
        out.append(Finding("tombstones", "error", why, LostTextRule.default_hint))
    if why := unread_texts_note(store):   # (test42 T24: the pull said it once, of the past only)
        out.append(Finding("tombstones", "warning", why, "mem forget --match TEXT  (the text forgotten on the "
                           "other machine)"))
    if why := hash_key_damage(store):
        out.append(Finding("tombstones", "error", why, LOST_HINT if key_lost(store.root) else
                           "put hash-key back from a backup or a copy of this store"))
    for why in filter(None, (vault_problem(store), vault_damage(store))):
        out.append(Finding("vault", "error", why, "put back your copy of the vault folder (vault/recipient and "
                           "vault/identity.age)"))
    if why := unproven_pair_note(store):   # (fresh43 F15)
        out.append(Finding("vault", "warning", why.rsplit("; ", 1)[0], why.rsplit("; ", 1)[1]))
    return out
