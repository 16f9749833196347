"""False positives and CPU of the name rule over the paths, cwds, session ids and
fact-like names of real transcripts: run with PYTHONPATH=<tree>."""
import json, os, sys, time
from objstore.core.redact import name_hits
names = set()
for root in ("/work/shared/data/transcripts", "/tmp/bench-corpus"):
    for d, _dirs, files in os.walk(root):
        names.add(d)
        for f in files:
            p = os.path.join(d, f)
            names.add(p); names.add(f)
            if not f.endswith(".jsonl"):
                continue
            with open(p, "rb") as fh:
                for i, line in enumerate(fh):
                    if i > 50: break
                    try: r = json.loads(line)
                    except ValueError: continue
                    if isinstance(r, dict):
                        for k in ("cwd", "sessionId"):
                            v = r.get(k)
                            if isinstance(v, str): names.add(v)
names = sorted(names)
hits = [n for n in names if name_hits(n)]
t = time.process_time()
for n in names: name_hits(n)
cpu = time.process_time() - t
print(f"{len(names)} names, {len(hits)} flagged, {cpu / len(names) * 1e6:.1f} us CPU a name")
for h in hits[:10]: print("  ", h)
