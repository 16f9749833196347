"""``python -m cmds`` runs ``mem``."""

from .entry import entry

entry()
