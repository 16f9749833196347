"""The cheap part of :func:`objstore.core.settings.config_problem`: whether
the store's ``config.toml`` is absent or unchanged since it was found usable
(a ``stat`` and the read of its stamp), without the settings module.

Split from :mod:`objstore.core.settings` so that the question every command
asks (``cmds._out.warn_config``) imports no settings table nor parser when
there is nothing to parse: a ``mem recall`` paid ~0.3 ms of CPU for that
module's import to learn that there is no ``config.toml``
(docs/benchmarks.md, "Session 31 (branch `lat31`)").
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CONFIG_FILE", "CONFIG_OK_STAMP", "config_known_good", "config_stamp", "stamp_usable"]

#: the store's settings file, under the store
CONFIG_FILE = "config.toml"
#: the stamp (size, mtime, inode) of the last config.toml found usable, under the store
CONFIG_OK_STAMP = "cache/config.ok"


def config_stamp(root: str | Path) -> str | None:
    """``"<size> <mtime_ns> <inode>\\n"`` of ``<root>/config.toml``, or
    None when there is none.  Raises OSError when it cannot be ``stat``-ed
    for another reason (a permission)."""
    try:
        st = os.stat(Path(root) / CONFIG_FILE)
    except FileNotFoundError:
        return None
    return f"{st.st_size} {st.st_mtime_ns} {st.st_ino}\n"


def stamp_usable(root: str | Path, stamp: str) -> bool:
    """Whether ``stamp`` (:func:`config_stamp`) is the one left in
    ``<root>/cache/config.ok`` when the file was last found usable; False
    when that file is missing or unreadable."""
    try:
        return (Path(root) / CONFIG_OK_STAMP).read_text("ascii") == stamp
    except (OSError, UnicodeDecodeError):
        return False


def config_known_good(root: str | Path) -> bool:
    """True when ``<root>/config.toml`` is absent, or unchanged since it was
    found usable: ``config_problem`` would say None without parsing it.
    False otherwise (changed, never checked, or not ``stat``-able): only
    ``config_problem`` can say.  Raises nothing."""
    try:
        stamp = config_stamp(root)
    except OSError:
        return False
    return stamp is None or stamp_usable(root, stamp)
