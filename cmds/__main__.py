"""``python -m cmds`` runs ``mem``."""

from .main import entry

entry()
