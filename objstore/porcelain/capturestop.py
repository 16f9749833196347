"""Whether the hooks capture at all: the one check of the damage that stops
every write and so every captured turn and "remember that …" (session 42,
dmg42; test41 T25, T34: only ``mem status`` said it, on stderr, of the
hash-key alone, and the agent was told nothing).  ``mem status`` gives it
(stderr, and ``capture_stopped`` in ``--json``); the SessionStart hook puts
it in the agent's block and the person's ``systemMessage``."""

from __future__ import annotations

from objstore.core.store import Store
from objstore.core.storelayout import WRITE_NAMES, layout_damage
from objstore.core.storeperms import denied_notes, unwritable_note
from objstore.memory.guardfiles import hash_key_damage, lost_text_rules_note, lost_tombstones_note
from objstore.memory.sealrulefile import RULES_FILE
from objstore.memory.sealrules import rules_refused

__all__ = ["capture_stopped"]


def capture_stopped(store: Store) -> str | None:
    """Why every write and capture of ``store`` stops, as one clause with its
    fix, or None: a store this user cannot write (``storeperms.unwritable_note``), a damaged ``hash-key`` (``guardfiles.hash_key_damage``),
    ``logs/audit``, ``logs/refs`` or ``locks/store.lock`` of the other type
    (``core.storelayout``; not the folders below ``logs/refs``, which stop
    one scope's keys, and never a walk of them), a ``forget --match`` text
    rule that lost its digest line (``guardfiles.lost_text_rules``: reads
    the tombstones), a ``seal-rules`` that reads as no rules (``sealrules.rules_refused``).  An unusable ``config.toml``
    is said by its own check (``settings.config_problem``).  Reads the
    hash-key and seal-rules files, three ``lstat``."""
    if why := unwritable_note(store.root):   # (fresh43 F10)
        return why
    if why := hash_key_damage(store):
        return why
    for d in layout_damage(store.root, (*WRITE_NAMES, "locks"), deep=False):   # (locks a file: fresh44 F1)
        return f"{d.rel} is {d.other} where the store keeps {d.want}: no write is possible; 'mem fsck --repair' sets it aside"
    if notes := denied_notes(store.root)[:1]:   # a hash-key or seal-rules this user may not read (fresh41 F7)
        return notes[0] if not notes[0].startswith("vault/") else None
    if why := lost_text_rules_note(store, fix=True):   # (test42 T18)
        return why
    if rules_refused(store):
        return (f"{RULES_FILE} does not read as seal rules: every write is refused; 'mem sealed rebuild-rules' "
                "writes it again")
    return lost_tombstones_note(store)   # (fresh44 F1)
