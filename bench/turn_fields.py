"""What each field of the turn objects costs in the packs: the same blocks
again with one field's values blanked.

    python bench/turn_fields.py STORE

Reads every frame of STORE's packs (pack by pack, in body order), then
compresses them again as the pack writer does (version-5 blocks of
``BLOCK_BYTES`` at ``BLOCK_LEVEL``, each pack primed with its writer's
dictionary; a pack of fewer than 1,000 frames without) and prints the bytes
of the block streams and dictionaries; then, for each turn field, the same
with that field of every turn replaced by a constant of the same kind
(text of the same length, 0, "" ...), and the difference: about what the
field's values cost after compression (an upper bound for a field that a
format could derive, a lower one for what the blanking made repeat).
Nothing in STORE is written.  docs/benchmarks.md, Session 18 (branch size18).
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from objstore.core.cborext import cbor2  # noqa: E402
from objstore.core.pack import Pack  # noqa: E402
from objstore.core.packformat import BLOCK_BYTES, BLOCK_LEVEL, BLOCK_MEMLEVEL  # noqa: E402
from objstore.core.packencode import deflate_block, make_dictionary  # noqa: E402

TURN = 2
BLANKS = (("source", lambda v: "x" * len(v)), ("timestamp", lambda v: 1_700_000_000_000), ("seq", lambda v: 0),
          ("cwd", lambda v: ""), ("project", lambda v: ""), ("session", lambda v: "x" * len(v)),
          ("harness", lambda v: "x" * len(v)), ("role", lambda v: "user"), ("text", lambda v: ""))


def packed_bytes(packs: list[list[tuple[bytes, bytes]]]) -> int:
    """Bytes of the dictionaries and block entries of ``packs`` (lists of (id, frame)) as the writer makes them."""
    total = 0
    for pairs in packs:
        frames = [f for _i, f in pairs]
        d = make_dictionary(frames) if len(frames) >= 1000 else b""
        c = zlib.compressobj(BLOCK_LEVEL, zlib.DEFLATED, -15, BLOCK_MEMLEVEL, zlib.Z_DEFAULT_STRATEGY,
                             *((d,) if d else ()))
        total += 4 + len(d)
        block: list[tuple[bytes, bytes]] = []
        n = 0
        for pair in [*pairs, None]:
            if pair is not None:
                block.append(pair)
                n += len(pair[1])
            if block and (pair is None or n >= BLOCK_BYTES):
                total += 4 + len(deflate_block(c.copy(), [f for _i, f in block], [i for i, _f in block]))
                block, n = [], 0
    return total


def blanked(packs: list[list[tuple[bytes, bytes]]], field: str, fn) -> list[list[tuple[bytes, bytes]]]:
    """``packs`` with ``field`` of every turn frame replaced by ``fn(value)`` (canonical CBOR again)."""
    out = []
    for pairs in packs:
        q = []
        for i, f in pairs:
            if f[5] == TURN:
                m = cbor2.loads(f[6:])
                if field in m:
                    m[field] = fn(m[field])
                f = f[:6] + cbor2.dumps(m, canonical=True)
            q.append((i, f))
        out.append(q)
    return out


def main() -> None:
    store = Path(sys.argv[1])
    packs = []
    for idx in sorted((store / "objects" / "pack").glob("pack-*.idx")):
        with Pack(idx) as p:
            packs.append([(bytes.fromhex(o), f) for o, f in p.frames_in_body_order() if isinstance(f, bytes)])
    turns = sum(1 for ps in packs for _i, f in ps if f[5] == TURN)
    base = packed_bytes(packs)
    print(f"{sum(map(len, packs))} objects ({turns} turns) in {len(packs)} packs: {base:,} B of blocks and dictionaries")
    for field, fn in BLANKS:
        d = packed_bytes(blanked(packs, field, fn)) - base
        print(f"{field:<10} {d:>+12,} B  {d / turns:+8.1f} B/turn", flush=True)


if __name__ == "__main__":
    main()
