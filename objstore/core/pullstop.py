"""Pulls stopped after their packs were installed and before they had set
every new ref (``mem pull``, ``mem push``'s pull, ``mem clone``).

A pull installs the remote's packs, then merges the manifest's refs one by
one under the store lock (``objstore.remote.fetch``).  Killed in between, a
key or session the store did not have yet has its objects stored and no
ref: ``mem fsck`` called that CORRUPT ("ref facts/...: missing, while N of
its versions are stored").  It is no damage: the same pull run again merges
those refs (the packs are already here, so it downloads nothing again).

Setting such a ref from the note alone (as recovery does for an import's
``N`` lines) would be wrong: the merge decides a new key with everything
the two sides' tombstones say (``--match`` text rules, case-folded, which
side knew a rule: ``merge.ForgetIndex``), and a forgotten value could come
back (session 29, cap29).  So nothing replays a note; it only lets ``mem
fsck`` and ``mem doctor`` say what happened and what finishes it.

File ``<store>/pull-unfinished/<32 hex>``, one per remote, the name the
first 32 hex of SHA-256 of the UTF-8 remote name; UTF-8 JSON
``{"remote": NAME, "time": MS, "refs": {REF NAME: HEAD ID, ...}}``: the
``facts/`` and ``sessions/`` refs the manifest names that this store did
not have when the pull started.  Written (temporary file, fsync, rename,
directory fsync) under the store lock before the first pack is installed,
only when there is such a ref; deleted by the pull once its merge is done
(and by any later pull of the same remote that gets that far).  A file that
does not read counts as a stopped pull of an unknown remote naming no ref.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from objstore.core.atomic import atomic_write, fsync_dir
from objstore.core.ids import sha256

#: the directory under the store root
DIRNAME = "pull-unfinished"


def _file(root: Path, remote: str) -> Path:
    return Path(root) / DIRNAME / sha256(remote.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def note(root: Path, remote: str, refs: dict[str, str], time_ms: int) -> None:
    """Note, durably, that a pull from ``remote`` will set ``refs`` (ref
    name -> the manifest's head id) for the first time (caller holds the
    store lock; module doc).  Nothing is written when ``refs`` is empty.
    Raises OSError."""
    if not refs:
        return
    path = _file(root, remote)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    doc = {"remote": remote, "time": int(time_ms), "refs": dict(sorted(refs.items()))}
    atomic_write(path, json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def done(root: Path, remote: str) -> bool:
    """The pull from ``remote`` has merged every ref: delete its note
    (directory fsynced).  Returns True if there was one.  Raises OSError
    (not a missing file)."""
    path = _file(root, remote)
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    fsync_dir(path.parent)
    return True


class StoppedPull:
    """One stopped pull: ``remote`` (its name, ``None`` when its note does not
    read), ``time`` (ms it started, 0 if unknown), ``refs`` (ref name ->
    head id it was to set) and ``path`` (its note)."""

    __slots__ = ("remote", "time", "refs", "path")

    def __init__(self, remote: str | None, time: int, refs: dict[str, str], path: Path) -> None:
        self.remote, self.time, self.refs, self.path = remote, time, refs, path

    def rerun(self) -> str:
        """The command that finishes it, for a person to run."""
        return f"mem pull {self.remote}" if self.remote else "mem pull  (the remote it pulled from)"


def stopped(root: Path) -> list[StoppedPull]:
    """The stopped pulls noted in the store at ``root`` (module doc), by
    file name; none when the folder is missing or unreadable.  Never
    raises for a note's content."""
    d = Path(root) / DIRNAME
    try:
        names = sorted(n for n in os.listdir(d) if len(n) == 32 and not n.startswith("."))
    except OSError:
        return []
    out: list[StoppedPull] = []
    for n in names:
        p = d / n
        try:
            doc = json.loads(p.read_bytes())
            remote, time_ms, refs = doc["remote"], int(doc["time"]), doc["refs"]
            if not (isinstance(remote, str) and isinstance(refs, dict)
                    and all(isinstance(k, str) and isinstance(v, str) for k, v in refs.items())):
                raise ValueError("not a pull note")
        except FileNotFoundError:   # the pull finished meanwhile
            continue
        except (OSError, ValueError, KeyError, TypeError):
            remote, time_ms, refs = None, 0, {}
        out.append(StoppedPull(remote, time_ms, refs, p))
    return out


def pending_refs(root: Path) -> dict[str, tuple[str, str | None]]:
    """Ref name -> (head id, remote name) of every ref a stopped pull was
    to set for the first time (:func:`stopped`)."""
    out: dict[str, tuple[str, str | None]] = {}
    for s in stopped(root):
        for name, head in s.refs.items():
            out[name] = (head, s.remote)
    return out


def unfinished(root: Path, read_ref) -> list[tuple[str, str]]:
    """``(what happened, the command that finishes it)`` for each stopped
    pull (:func:`stopped`) that has a new ref still unset (``read_ref(name)``
    None; one that raises counts as unset) or whose note does not read: what
    ``mem doctor`` and ``mem fsck`` say (test37 T9.4: a clone killed while it
    merged read "ok: … 0 refs" in fsck).  A note whose refs are all set was
    stopped after its merge: nothing to say."""
    out = []
    for p in stopped(root):
        unset = []
        for n in p.refs:
            try:
                if read_ref(n) is None:
                    unset.append(n)
            except Exception:   # noqa: BLE001 - a damaged ref: fsck names it on its own
                unset.append(n)
        if unset or p.remote is None:
            out.append((f"a pull{' from ' + p.remote if p.remote else ''} (or a clone) was stopped before it "
                        f"had set {len(unset)} new ref(s) (their objects are stored, not yet readable); only the "
                        "pull run again merges them", p.rerun()))
    return out

