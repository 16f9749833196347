"""Where a store's bytes go, by file kind, in bytes per turn: the table
issue 12's store row is read against (docs/benchmarks.md, Session 29,
branch sz29).

    python bench/store_breakdown.py STORE [--no-types] [--json OUT]

Rows (apparent bytes, then the allocated bytes of the same files, then
apparent bytes per turn object):

* ``objects/pack *.pack`` and ``*.idx``; with the frames read back
  (pack by pack, in body order) each object type's frames alone compressed
  again as the version-6 writer does (``bench/turn_fields.py``'s
  ``packed_bytes``: the pack's dictionary, 128 KiB blocks, parent
  references; not the source column, so the turns' figure is ~0.5 MB
  above their share of the packs on the bench store): what each type
  would cost alone (``--no-types`` skips this, ~3 s of CPU on the bench
  store, and divides by the packed objects instead of the turns: no frame
  is inflated, so it reads a million-turn store in seconds);
* ``index/<sub-index>``: each file kind of the tantivy segments
  (postings ``.idx``, terms ``.term``, positions ``.pos``, fieldnorms,
  the LZ4 doc store ``.store``, the fast columns ``.fast``), the
  composite ones by field (``bench/index_fields.py``'s
  ``composite_parts``), and the generation's other files (``meta.json``,
  ``.managed.json``, ``.verified``, ``counts``, deletes, locks);
* ``cache/``, ``logs/``, ``refs/`` and the rest, file by file (a file
  under 4 KiB folded into one "small files" row per folder);
* the allocation slack: allocated bytes (``st_blocks``, what
  ``bench/run.py``'s ``disk_usage`` and so the store row count) less
  apparent bytes, directories under STORE included (as ``disk_usage``).

Nothing in STORE is written.  ``--json OUT`` also writes the rows.
"""

from __future__ import annotations

import collections
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from index_fields import composite_parts  # noqa: E402  (the one reader of tantivy's composite footers)

TYPES = {1: "fact", 2: "turn", 3: "tombstone", 4: "queue item", 5: "sealed fact"}
SEGMENT_KINDS = ("idx", "term", "pos", "fieldnorm", "store", "fast")
SMALL = 4096


def _sizes(p: Path) -> tuple[int, int]:
    st = os.lstat(p)
    return st.st_size, st.st_blocks * 512


def _index_rows(sub: Path) -> list[tuple[str, int, int]]:
    """Rows of one sub-index (``index/turns``, ``index/facts``): file kinds, composite ones by field."""
    per: collections.Counter = collections.Counter()
    alloc: collections.Counter = collections.Counter()
    for gen in sorted(x for x in sub.iterdir() if x.is_dir()):
        try:
            names = [f["name"] for f in json.loads((gen / "meta.json").read_text())["schema"]]
        except (OSError, ValueError, KeyError):
            names = []
        for f in gen.iterdir():
            if not f.is_file():
                continue
            size, blocks = _sizes(f)
            ext = f.suffix[1:]
            if ext in SEGMENT_KINDS:
                alloc[ext] += blocks
                if ext in ("idx", "term", "pos", "fieldnorm"):
                    try:
                        for k, v in composite_parts(str(f)).items():
                            per[(ext, names[k] if isinstance(k, int) and k < len(names) else str(k))] += v
                        continue
                    except (ValueError, OSError, IndexError):
                        pass
                per[(ext, "*")] += size
            else:
                alloc["other"] += blocks
                per[("other", "meta.json, .managed.json, .verified, counts, deletes, locks")] += size
    for f in sub.iterdir():
        if f.is_file():
            size, blocks = _sizes(f)
            per[("other", "meta.json, .managed.json, .verified, counts, deletes, locks")] += size
            alloc["other"] += blocks
    rows = []
    for ext in (*SEGMENT_KINDS, "other"):
        parts = sorted(((fld, v) for (e, fld), v in per.items() if e == ext), key=lambda kv: -kv[1])
        if not parts:
            continue
        rows.append((f"{sub.name} .{ext}" if ext != "other" else f"{sub.name} other files",
                     sum(v for _f, v in parts), alloc[ext]))
        if len(parts) > 1 or parts[0][0] != "*":
            for fld, v in parts:
                if v:
                    rows.append((f"    {fld}", v, 0))
    return rows


def _object_type_rows(store: Path) -> list[tuple[str, int, int]]:
    """Per object type: count, raw frame bytes, and its frames alone re-compressed as the writer does."""
    from objstore.core.pack import Pack
    from turn_fields import packed_bytes   # the one re-compression of frames as the pack writer makes them
    packs = []
    for idx in sorted((store / "objects" / "pack").glob("pack-*.idx")):
        with Pack(idx) as p:
            packs.append([(bytes.fromhex(o), f) for o, f in p.frames_in_body_order() if isinstance(f, bytes)])
    rows = []
    for code in sorted({f[5] for ps in packs for _i, f in ps}):
        sel = [[(i, f) for i, f in ps if f[5] == code] for ps in packs]
        n = sum(len(s) for s in sel)
        raw = sum(len(f) for s in sel for _i, f in s)
        label = f"    {TYPES.get(code, code)}: {n:,} objects, {raw:,} B of frames, alone re-compressed"
        rows.append((label, packed_bytes([s for s in sel if s]), 0))
    return rows


def breakdown(store: Path, types: bool = True) -> tuple[int, list[tuple[str, int, int]]]:
    """(turn objects (``types`` false: packed objects, none inflated), rows of
    (label, apparent bytes, allocated bytes)) of ``store``; sub-rows (labels
    indented) have allocated 0 and are parts of the row above them."""
    rows: list[tuple[str, int, int]] = []
    turns = 0
    packdir = store / "objects" / "pack"
    for ext in ("pack", "idx"):
        fs = list(packdir.glob(f"pack-*.{ext}"))
        rows.append((f"objects/pack *.{ext} ({len(fs)})", sum(_sizes(f)[0] for f in fs),
                     sum(_sizes(f)[1] for f in fs)))
        if ext == "pack" and types:
            rows.extend(_object_type_rows(store))
    loose = [f for f in (store / "objects").rglob("*") if f.is_file() and f.parent != packdir]
    if loose:
        rows.append((f"objects, loose ({len(loose)})", sum(_sizes(f)[0] for f in loose),
                     sum(_sizes(f)[1] for f in loose)))
    from objstore.core.pack import Pack
    for idx in packdir.glob("pack-*.idx"):
        with Pack(idx) as p:
            if types:
                turns += sum(1 for _o, f in p.frames_in_body_order() if isinstance(f, bytes) and f[5] == 2)
            else:   # no frame inflated: every object counted (a store's are nearly all turns)
                turns += len(p)
    for sub in sorted((store / "index").iterdir()) if (store / "index").is_dir() else ():
        if sub.is_dir():
            rows.extend(_index_rows(sub))
    done = {store / "objects", store / "index"}
    for top in sorted(store.iterdir()):
        if top in done:
            continue
        if top.is_file():
            size, blocks = _sizes(top)
            rows.append((top.name, size, blocks))
            continue
        small = [0, 0, 0]
        for f in sorted(x for x in top.rglob("*") if x.is_file()):
            size, blocks = _sizes(f)
            if size < SMALL:
                small[0] += size
                small[1] += blocks
                small[2] += 1
            else:
                rows.append((str(f.relative_to(store)), size, blocks))
        if small[2]:
            rows.append((f"{top.name}/, small files ({small[2]})", small[0], small[1]))
    apparent = allocated = 0
    for d, dirs, files in os.walk(store):
        for n in (*files, *dirs):
            size, blocks = _sizes(Path(d) / n)
            allocated += blocks
            if n in files:
                apparent += size
    rows.append(("allocation slack (allocated − apparent, directories too)", allocated - apparent, 0))
    rows.append(("total", apparent, allocated))
    return turns, rows


def main(argv: list[str]) -> None:
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    store = Path(argv[0])
    turns, rows = breakdown(store, types="--no-types" not in argv)
    print(f"{store}: {turns:,} {'turn objects' if '--no-types' not in argv else 'packed objects'}")
    print(f"{'what':78s} {'apparent B':>12s} {'allocated B':>12s} {'B/turn':>8s}")
    for label, size, blocks in rows:
        print(f"{label:78s} {size:>12,} {(f'{blocks:,}' if blocks else ''):>12s} {size / max(turns, 1):8.1f}")
    if "--json" in argv:
        out = argv[argv.index("--json") + 1]
        Path(out).write_text(json.dumps({"turns": turns, "rows": rows}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
