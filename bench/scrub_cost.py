"""CPU of scrubbing one 3.7 MB transcript (bench corpus) that the store captured:
the new scrub_captured (parse before/after + tombstones, then scrub) against the
plain scrub, interleaved, medians of 9.  Run with PYTHONPATH=/work/wt-fix16."""
import os, shutil, statistics, sys, time
from objstore import import_transcripts
from objstore.capture.scrub import scrub
from objstore.capture.scrubguard import scrub_captured
from objstore.memory.opening import open_store
SRC = "/tmp/bench-corpus/-workspace-infra-live/b4b38bdb-3f3c-4ba7-bbc6-21743dc43596.jsonl"
W = "/tmp/scrub_cost"
shutil.rmtree(W, ignore_errors=True)
os.makedirs(W + "/t")
f = W + "/t/" + os.path.basename(SRC)
shutil.copy(SRC, f)
word = sys.argv[1] if len(sys.argv) > 1 else "terraform"
with open_store(W + "/store", create=True) as s:
    import_transcripts(s, "claude-code", [f], workers=0)
    base, new = [], []
    for i in range(9):
        for fn, out in ((lambda: scrub(f, word), base), (lambda: scrub_captured(s, f, word), new)):
            shutil.copy(SRC, f)
            t = time.process_time(); n = fn(); out.append(time.process_time() - t)
    print(f"lines rewritten {n}; scrub {statistics.median(base)*1e3:.0f} ms, scrub_captured "
          f"{statistics.median(new)*1e3:.0f} ms CPU, ratio {statistics.median(new)/statistics.median(base):.2f}")
