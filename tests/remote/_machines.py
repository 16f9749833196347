"""Two machines sharing a folder remote, for the merge tests: machine A
runs ``setup`` (``mem`` argument lists), adds the remote, pushes and exports
its sync key; machine B clones it."""

from __future__ import annotations


def two_machines(tmp_path, mem, setup: list[list[str]]):
    """``(env A, env B, home A, home B)`` (``MEM_HOME`` envs for the ``mem`` fixture)."""
    a, b, r = tmp_path / "a", tmp_path / "b", tmp_path / "remote"
    r.mkdir()
    ea, eb = {"MEM_HOME": str(a)}, {"MEM_HOME": str(b)}
    for argv in setup:
        mem(*argv, env=ea)
    mem("remote", "add", "usb", str(r), env=ea)
    mem("push", env=ea)
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=ea)
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env=eb)
    return ea, eb, a, b


def cross_sync(mem, ea, eb) -> None:
    """A pushes, B pushes (merging A's), A pulls (B's merge)."""
    mem("push", env=ea)
    mem("push", env=eb)
    mem("pull", env=ea)
