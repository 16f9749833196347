"""CPU of objstore.capture.scrub.scrub on one 3.7 MB bench-corpus transcript: the base tree
(BASE, default /tmp/fix16-base: git worktree add /tmp/fix16-base 20357f2, the file replaced)
against this one, interleaved, medians of N (default 7).
  BASE=/tmp/fix17-base N=9 python bench/scrub_in_place_ab.py   # session 17: strings only (fix17)"""
import os, shutil, statistics, subprocess, sys
SRC = "/tmp/bench-corpus/-workspace-infra-live/b4b38bdb-3f3c-4ba7-bbc6-21743dc43596.jsonl"
code = ("import shutil,sys,time; from objstore.capture.scrub import scrub; f='/tmp/scrub_in_place_ab.jsonl'; "
        f"shutil.copy('{SRC}', f); t=time.process_time(); scrub(f, 'terraform'); print(time.process_time()-t)")
BASE, N = os.environ.get("BASE", "/tmp/fix16-base"), int(os.environ.get("N", "7"))
res = {"base": [], "new": []}
for i in range(N):
    for k, t in (("base", BASE), ("new", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))):
        out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=t), capture_output=True, text=True)
        res[k].append(float(out.stdout))
b, n = statistics.median(res["base"]), statistics.median(res["new"])
print(f"scrub CPU median of {N}: base {b*1e3:.0f} ms, new {n*1e3:.0f} ms, ratio {n/b:.2f}")
