"""What one turn's search document costs to analyse and to store, per generation format.

Indexes the given turn texts into ONE tantivy index (one writer, one indexing
thread, one segment, as ``/tmp/s7/idx.py`` of session 7 did) in a format of
``objstore.index.schema`` and prints the CPU seconds of the process (Python
document preparation and tantivy's threads) and the bytes of the index, per
file kind.  The texts: a pickle of a list of str (e.g. every turn text of the
benchmark corpus), or ``--corpus DIR`` to parse Claude Code transcripts.

    python bench/index_doc_cost.py --texts /tmp/texts.pkl --runs 3

Formats: ``s6`` = the format new generations had in session 6 (``mem_stem``
regex tokenizer, ``plain``, ``pairs``), ``s7`` = the current one of the turns
(``schema.new_format("stem", "turn")``: ``mem_simple_stem``, no ``pairs``),
``s7-simple`` = ``mem_simple_stem`` with ``pairs`` (the current format of the
facts, ``schema.FORMATS["stem"]``), ``s15`` = the turns' format without
``plain_diff`` (sessions 13 to 15), ``s15-diff`` = with it (the turns'
default since session 16).  Run each a few times, interleaved: the machine
is shared, compare CPU, not wall time.
"""

from __future__ import annotations

import argparse
import os
import pickle
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tantivy  # noqa: E402

from objstore.index.analysis import register_analyzers, register_writer_analyzers  # noqa: E402
from objstore.index.schema import (  # noqa: E402
    FORMATS,
    GenFormat,
    IndexDoc,
    _build_schema,
    new_format,
    to_tantivy_doc,
)

FMTS = {
    "s6": GenFormat("stem", True, True, True, True, positions=False, has_pairs=True),
    "s7-simple": FORMATS["stem"],
    "s7": new_format("stem", "turn"),
    "s15": new_format("stem", "turn").replace(plain_diff=False),
    "s15-diff": new_format("stem", "turn").replace(plain_diff=True),
}


def texts_of(args: argparse.Namespace) -> list[str]:
    """The turn texts to index."""
    if args.texts:
        with open(args.texts, "rb") as f:
            return pickle.load(f)
    from objstore.capture import claude_code
    stats = claude_code.ParseStats()
    out = []
    for path in claude_code.discover([args.corpus]):
        for ct in claude_code.parse_file(path, stats):
            t = getattr(ct, "text", None)
            out.append(t if t is not None else ct.turn.text)
    return out


def run(fmt: GenFormat, texts: list[str], workdir: Path) -> tuple[float, float, dict[str, int]]:
    """(CPU s of the process, of it the main thread's document preparation s, {file extension: bytes})."""
    d = workdir / "ix"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir()
    index = tantivy.Index(_build_schema(fmt), path=str(d))
    register_analyzers(index)
    register_writer_analyzers(index)
    docs = [IndexDoc(i.to_bytes(32, "big").hex(), "turn", f"session-{i // 120:05d}", 1_700_000_000_000 + i * 1000,
                     "project-a", ("user", "assistant", "tool")[i % 3], t, i % 120) for i, t in enumerate(texts)]
    c0 = time.process_time()
    prep = 0.0
    w = index.writer(200_000_000, 1)
    for d_ in docs:
        p0 = time.thread_time()
        doc = to_tantivy_doc(d_, fmt)
        prep += time.thread_time() - p0
        w.add_document(doc)
    w.commit()
    w.wait_merging_threads()
    cpu = time.process_time() - c0
    sizes: dict[str, int] = {}
    for f in os.listdir(d):
        ext = f.rsplit(".", 1)[-1] if "." in f else f
        sizes[ext] = sizes.get(ext, 0) + os.path.getsize(d / f)
    return cpu, prep, sizes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--texts", help="pickle of a list of turn texts")
    ap.add_argument("--corpus", help="a directory of Claude Code transcripts (instead of --texts)")
    ap.add_argument("--format", action="append", choices=sorted(FMTS), help="format(s), in order")
    ap.add_argument("--runs", type=int, default=1, help="rounds over the formats")
    args = ap.parse_args()
    texts = texts_of(args)
    print(f"{len(texts)} texts, {sum(map(len, texts)) / 1e6:.1f} M characters")
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            for name in args.format or ["s6", "s7-simple", "s7"]:
                cpu, prep, sizes = run(FMTS[name], texts, Path(tmp))
                total = sum(sizes.values())
                kinds = " ".join(f"{k} {v / 1e6:.2f}" for k, v in sorted(sizes.items()) if v > 10_000)
                print(f"{name}: cpu {cpu:.2f} s (python prep {prep:.2f} s)  {total / 1e6:.2f} MB  [{kinds}]")


if __name__ == "__main__":
    main()
