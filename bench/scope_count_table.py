#!/usr/bin/env python3
"""A scoped-count table kept beside each turn shard, measured before it is
built (issue #12): would counts read from a table, made at import/gc end,
bring a first question's recall at a million turns near the reference
store's?  ``python bench/scope_count_table.py RUNS REF BIG TABLE_DIR``.

1. For every live turn-shard generation of BIG and every project in it,
   one walk of the ``text`` term dictionary filtered by the project
   (tantivy's ``Searcher.terms_with_prefix(field, "", filter_query=...)``)
   gives that project's document frequency of every term; the terms whose
   unfiltered shard frequency is at least ``--min-df`` (the ones whose
   count query is costly) and the project's own document count are kept as
   records of the generation's counts file format
   (``objstore.index.countcache``: ``count_key(scope, None, live, term)``,
   the meta.json digest), so the product's reader takes them unchanged.
   The tables are written to TABLE_DIR (not into BIG); their CPU and size
   are printed.
2. ``recall --all-projects --json -n 10 NEEDLE`` as new processes, RUNS
   rounds, each round in turn: REF and BIG with every kept count removed
   (a first question, as ``bench/scale.py --cold-counts``), and BIG with
   only the tables in place (a first question after the import or gc that
   would have built them); then REF and BIG warm: the same needle asked
   once before, untimed, so that every count it needs is kept (the most
   any table can give; the current ``.counts`` reader, a linear search of
   its records that rewrites the file after a miss, is part of the table
   variant's cost).  Children's CPU (user+system) medians, and
   whether the BIG variants (table, warm) printed the cold run's JSON byte for byte.

3. Which shards a needle's recall needs (before the timings): per needle,
   the shards whose ``text`` holds a word of the question (tantivy
   ``doc_freq``) and those holding a turn of the top hit's project later
   than the hit (the follow-forward's filter; the project's latest
   ``time`` a shard, by ``order_by_field``): what a per-shard summary or a
   lazy open could skip.

The tables are checked against the product's own counts
(``SearchIndexReads._counts``'s query) for ``--check`` terms a generation.
Needles: each corpus's ``needles.json`` (``--ref-corpus``/``--big-corpus``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import tantivy
from blake3 import blake3

from objstore.index.countcache import _MAGIC, count_key


def _gens(home: Path) -> list[Path]:
    d = home / "index" / "turns"
    lines = (d / "CURRENT").read_text().split("\n")
    names = lines[1:] if lines[0].startswith("shards ") else lines[:1]
    return [d / n for n in names if n and n != "-"]


def build(home: Path, out: Path, min_df: int, check: int) -> dict:
    """Write one counts file per generation of ``home``'s turns into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    cpu0, total, recs, checked, bad = time.process_time(), 0, 0, 0, 0
    for g in _gens(home):
        raw = (g / "meta.json").read_bytes()
        digest = blake3(raw).digest(16)
        ix = tantivy.Index.open(str(g))
        s, sch = ix.searcher(), ix.schema
        live = int(s.num_docs)
        costly = {t for t, c in s.terms_with_prefix("text", "") if c >= min_df}
        body = []
        for proj, _c in s.terms_with_prefix("project", ""):
            pq = tantivy.Query.const_score_query(tantivy.Query.boolean_query(
                [(tantivy.Occur.Should, tantivy.Query.term_query(sch, "project", proj))]), 0.0)
            scope = (proj,)
            n = int(s.search(tantivy.Query.const_score_query(tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, pq)]), 0.0), 1, count=True).count)
            body.append(count_key(scope, None, live, None) + n.to_bytes(4, "little"))
            got = dict(s.terms_with_prefix("text", "", filter_query=pq))
            for t in costly:
                body.append(count_key(scope, None, live, t) + got.get(t, 0).to_bytes(4, "little"))
            for t in sorted(costly)[:check]:  # the product's own count query
                q = tantivy.Query.const_score_query(tantivy.Query.boolean_query(
                    [(tantivy.Occur.Must, tantivy.Query.term_query(sch, "text", t)), (tantivy.Occur.Must, pq)]), 0.0)
                checked += 1
                bad += int(s.search(q, 1, count=True).count) != got.get(t, 0)
        data = _MAGIC + digest + b"".join(body)
        (out / g.name).write_bytes(data)
        total += len(data)
        recs += len(body)
    return {"cpu_s": round(time.process_time() - cpu0, 2), "bytes": total, "records": recs,
            "checked": checked, "mismatched": bad}


def shards_needed(home: Path, mem: list[str], queries: list[str]) -> dict:
    """Per needle of ``queries``: (shards holding a word of it, shards with
    a turn of its top hit's project later than the hit), and the means."""
    shards = []
    for g in _gens(home):
        ix = tantivy.Index.open(str(g))
        shards.append((ix.searcher(), ix.schema))
    rows = []
    for q in queries:
        p = subprocess.run(mem + ["recall", "--all-projects", "--json", "-n", "10", q],
                           env={**os.environ, "MEM_HOME": str(home)}, capture_output=True, timeout=120)
        hits = json.loads(p.stdout)["hits"]
        if not hits:
            continue
        h, words = hits[0], q.lower().split()
        asked = sum(1 for s, _ in shards if any(s.doc_freq("text", w) for w in words))
        later = 0
        for s, sch in shards:
            r = s.search(tantivy.Query.term_query(sch, "project", h["project"]), 1, count=False,
                         order_by_field="time")
            later += bool(r.hits) and r.hits[0][0] > h["time"]
        rows.append((asked, later))
    n = max(1, len(rows))
    return {"shards": len(shards), "needles": len(rows), "question_words_mean": sum(a for a, _ in rows) / n,
            "follow_forward_mean": sum(b for _, b in rows) / n}


def _drop(home: Path) -> None:
    for f in home.glob("index/*/gen-*/.counts"):
        f.unlink()


def _install(home: Path, table: Path) -> None:
    _drop(home)
    for g in _gens(home):
        shutil.copyfile(table / g.name, g / ".counts")


def _run(mem: list[str], home: Path, q: str) -> tuple[float, bytes]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(mem + ["recall", "--all-projects", "--json", "-n", "10", q],
                       env={**os.environ, "MEM_HOME": str(home)}, capture_output=True, timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"recall failed ({p.returncode}): {p.stderr.decode()[-400:]}")
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e3, p.stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", type=int)
    ap.add_argument("ref", type=Path)
    ap.add_argument("big", type=Path)
    ap.add_argument("table", type=Path)
    ap.add_argument("--ref-corpus", type=Path, default=Path("/tmp/scale25/scale-corpus-base"))
    ap.add_argument("--big-corpus", type=Path, default=Path("/tmp/scale25/scale-corpus-t1000000"))
    ap.add_argument("--min-df", type=int, default=1000)
    ap.add_argument("--check", type=int, default=20)
    ap.add_argument("--mem", default=f"{sys.executable} -m cmds")
    a = ap.parse_args(argv)
    built = build(a.big, a.table, a.min_df, a.check)
    print(json.dumps({"table": built}), flush=True)
    mem = a.mem.split()
    _drop(a.big)
    rq = [n["query"] for n in json.loads((a.ref_corpus / "needles.json").read_text())]
    bq = [n["query"] for n in json.loads((a.big_corpus / "needles.json").read_text())]
    print(json.dumps({"shards_needed": shards_needed(a.big, mem, bq)}), flush=True)
    cpu: dict[str, list[float]] = {"ref": [], "big_cold": [], "big_table": [], "ref_warm": [], "big_warm": []}
    same = diff = 0
    for i in range(a.runs):
        _drop(a.ref)
        cpu["ref"].append(_run(mem, a.ref, rq[i % len(rq)])[0])
        _drop(a.big)
        c, cold_out = _run(mem, a.big, bq[i % len(bq)])
        cpu["big_cold"].append(c)
        _install(a.big, a.table)
        c, table_out = _run(mem, a.big, bq[i % len(bq)])
        cpu["big_table"].append(c)
        same, diff = same + (cold_out == table_out), diff + (cold_out != table_out)
        for tag, home, qs in (("ref_warm", a.ref, rq), ("big_warm", a.big, bq)):
            _drop(home)
            _run(mem, home, qs[i % len(qs)])
            c, warm_out = _run(mem, home, qs[i % len(qs)])
            cpu[tag].append(c)
            if home == a.big:
                same, diff = same + (cold_out == warm_out), diff + (cold_out != warm_out)
    _drop(a.big)
    _drop(a.ref)
    med = {k: round(statistics.median(v), 1) for k, v in cpu.items()}
    print(json.dumps({"median_ms": med, "cold_x": round(med["big_cold"] / med["ref"], 2),
                      "table_x": round(med["big_table"] / med["ref"], 2),
                      "warm_x": round(med["big_warm"] / med["ref_warm"], 2), "identical": same, "differ": diff,
                      "load": os.getloadavg()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
