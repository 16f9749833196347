"""Where the import's redaction goes, window by window (imp44, issue 12), over the texts
``bench/import_redactions.py collect`` keeps (the parse children's ``redact`` calls)::

    PYTHONPATH=<tree> python bench/redact_parts.py stats TEXTS.pkl [--every K]
    PYTHONPATH=<tree> python bench/redact_parts.py run TEXTS.pkl VARIANT [--every K] [--passes P]

``stats``: the windows ``engine._scan_window`` scans, the rules each runs (the gate's ``Plan.todo``), how many
of those runs append nothing, and the CPU of each rule's runs (``time.process_time`` around each: the clock's
own cost is in them), its runs and the runs with a hit, costliest first.  ``run``: ``P`` passes (for
callgrind: the difference of ``--passes 3`` and ``--passes 1`` is two warm passes) with a part of the work
left out: ``full`` (nothing), ``notable`` (the Markdown rule's table scan, ``markdown._scan_table``),
``nomd`` (the whole ``markdown-secret`` rule), ``gate`` (each window lowered and gated, no rule run),
``none`` (no window scanned: ``redact``'s own work, the readings)."""

from __future__ import annotations

import argparse
import collections
import pickle
import time


def _texts(path: str, every: int) -> list[str]:
    with open(path, "rb") as fh:
        d = pickle.load(fh)
    return (d["turn"] + d["cut"])[::every]


def stats(path: str, every: int) -> None:
    from objstore.core.redact import engine, prefilter, redact, scanners
    from objstore.core.redact.rules import RULES
    texts = _texts(path, every)
    prefilter.expect_bulk()
    n = collections.Counter()
    cpu: collections.Counter = collections.Counter()
    runs: collections.Counter = collections.Counter()
    hits: collections.Counter = collections.Counter()

    def scan_window(text, ws, we, out):   # engine._scan_window, each rule's run timed
        n["windows"] += 1
        n["chars"] += we - ws
        off = max(0, ws - 16)
        low = prefilter.lower(text if (off == 0 and we == len(text)) else text[off:we])
        plan = prefilter.plan(RULES)
        present, fast, at = prefilter.present(low, plan)
        first = len(out)
        for rule, scan, _check, _pri, name in plan.todo(present, fast):
            key = f"{name} {getattr(scan, '__name__', 'finditer')} {(rule.anchors or ())[:3]}"
            k, t0 = len(out), time.process_time()
            if scan is not None:
                scan(rule, text, ws, we, out, low, off, at)
            else:
                scanners.scan_plain(rule, text, ws, we, out, low, off)
            cpu[key] += time.process_time() - t0
            runs[key] += 1
            n["runs"] += 1
            if len(out) == k:
                n["empty runs"] += 1
            else:
                hits[key] += 1
        n["empty windows"] += len(out) == first
        for i in range(first, len(out)):
            c = out[i]
            if c[3] == "cli-password" and (q := engine.quoted_arg_end(text, c[0], c[1], we)) > 0:
                out[i] = (c[0], q, c[2], c[3])
    engine._scan_window = scan_window
    t0 = time.process_time()
    for t in texts:
        redact(t)
    print(f"texts {len(texts)} ({sum(map(len, texts)):,} chars), CPU {time.process_time() - t0:.2f} s; windows "
          f"{n['windows']} ({n['chars']:,} chars), rule runs {n['runs']} ({n['runs'] / max(1, n['windows']):.2f} a "
          f"window), of them empty {n['empty runs']}; windows with no hit {n['empty windows']}; rules' CPU "
          f"{sum(cpu.values()):.2f} s")
    for key, c in cpu.most_common(25):
        print(f"{c:7.3f} s {runs[key]:7d} runs {hits[key]:5d} with a hit  {key}")


def run(path: str, variant: str, every: int, passes: int) -> None:
    from objstore.core.redact import engine, markdown, prefilter, redact
    from objstore.core.redact.rules import RULES
    texts = _texts(path, every)
    prefilter.expect_bulk()
    if variant == "notable":
        markdown._scan_table = lambda *a: None
    elif variant == "nomd":
        for r in RULES:
            if r.scan is markdown.scan_markdown:
                r.scan = lambda *a: None
    elif variant == "gate":
        def gate_only(text, ws, we, out):
            off = max(0, ws - 16)
            low = prefilter.lower(text if (off == 0 and we == len(text)) else text[off:we])
            plan = prefilter.plan(RULES)
            plan.todo(*prefilter.present(low, plan)[:2])
        engine._scan_window = gate_only
    elif variant == "none":
        engine._scan_window = lambda *a: None
    elif variant != "full":
        raise SystemExit(f"unknown variant {variant!r}")
    for _ in range(passes):
        for t in texts:
            redact(t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("stats")
    s.add_argument("texts")
    s.add_argument("--every", type=int, default=1)
    r = sub.add_parser("run")
    r.add_argument("texts")
    r.add_argument("variant", choices=("full", "notable", "nomd", "gate", "none"))
    r.add_argument("--every", type=int, default=1)
    r.add_argument("--passes", type=int, default=1)
    a = ap.parse_args()
    if a.cmd == "stats":
        stats(a.texts, a.every)
    else:
        run(a.texts, a.variant, a.every, a.passes)


if __name__ == "__main__":
    main()
