"""The review shell's line history, kept inside the store so that forget can
purge it (never in ``~``, where a forgotten value would survive).

File ``<store>/cache/shell-history``: UTF-8, one entry per line, oldest
first, mode 0600.  An entry is one command line as typed (the shell reads
single lines; a newline inside an entry is stored as a space).  The file is
derived data: deleting it loses only the shell's up-arrow history.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from objstore.core.atomic import atomic_write
from objstore.core.text import contains, normalize_value
from objstore.core.store import Store
from objstore.memory.sealrules import load as load_seal_rules, withhold_sealed_values

HISTORY_FILE = "cache/shell-history"
#: entries kept; older ones are dropped when the file is rewritten
MAX_ENTRIES = 5000


def history_path(store: Store) -> Path:
    """``<store>/cache/shell-history``."""
    return store.root / HISTORY_FILE


def load_history(store: Store) -> list[str]:
    """The entries, oldest first (empty when there is no file)."""
    try:
        data = history_path(store).read_bytes()
    except FileNotFoundError:
        return []
    return [ln for ln in data.decode("utf-8", "replace").split("\n") if ln.strip()]


def append_history(store: Store, entry: str) -> None:
    """Append one entry (O_APPEND; no store lock needed: only the shell
    writes it, and a purge rewrites it atomically).  The line is written
    as a captured turn would be: credentials redacted, and a sealed or
    forgotten value the store's seal rules name withheld (test38 T8:
    ``search maple otter`` of a sealed "maple otter" was kept as typed).
    A line with a word, once redacted, that mem refuses as a name holding a credential
    (``redact.name_hits``, the rule of ``check_name``: ``show user/pin-4711``)
    is not written at all (test39 T1): every command refuses such a key, so
    nothing is lost but the secret."""
    from objstore.core.redact import name_hits, redact_value  # deferred: compiles the rules
    line = redact_value(" ".join(entry.splitlines()).strip())  # a history line never holds a credential
    if any(name_hits(w.strip("'\"")) for w in line.split()):
        return
    rules = load_seal_rules(store)
    if rules is not None:
        line = withhold_sealed_values(line, rules)[0]
    if not line:
        return
    p = history_path(store)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, (line + "\n").encode("utf-8", "replace"))
    finally:
        os.close(fd)


def _matches(entry: str, needles: list[str]) -> bool:
    return any(contains(entry, n) for n in needles)


def purge_history(store: Store, needles: Iterable[str | bytes]) -> int:
    """Remove every history entry that contains one of ``needles`` (ignoring
    case and whitespace runs); the file is rewritten atomically (and
    deleted when nothing is left).  Also trims it to :data:`MAX_ENTRIES`.

    Called by forget with the forgotten values (and ids).  Returns the number
    of entries removed.
    """
    ns = [n.decode("utf-8", "replace") if isinstance(n, bytes) else n for n in needles]
    ns = [n for n in ns if normalize_value(n)]
    p = history_path(store)
    if not p.exists():
        return 0
    entries = load_history(store)
    kept = [e for e in entries if not (ns and _matches(e, ns))]
    removed = len(entries) - len(kept)
    kept = kept[-MAX_ENTRIES:]
    if removed == 0 and len(kept) == len(entries):
        return 0
    if kept:
        atomic_write(p, "".join(e + "\n" for e in kept).encode("utf-8", "replace"))
    else:
        p.unlink()
    return removed
