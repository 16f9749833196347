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


def folder_pair(tmp_path, mem, fill, *, encrypt: bool):
    """Store A (``fill(env)`` writes into it) pushed to a folder remote
    (``--no-encrypt`` unless ``encrypt``), and B cloned from it; returns
    ``(a, b, remote, env of a, env of b)``."""
    a, b, r = tmp_path / "a", tmp_path / "b", tmp_path / "remote"
    r.mkdir()
    ea, eb = {"MEM_HOME": str(a), "MEM_AGENT": "0"}, {"MEM_HOME": str(b), "MEM_AGENT": "0"}
    fill(ea)
    mem("remote", "add", "origin", str(r), *(() if encrypt else ("--no-encrypt",)), env=ea)
    mem("push", env=ea)
    if encrypt:
        mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=ea)
    mem("clone", str(r), *(("--key", str(tmp_path / "k.key")) if encrypt else ()), env=eb)
    return a, b, r, ea, eb
