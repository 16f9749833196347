"""A/B CPU time of `mem hook claude-code` (a Stop event over a 400-record
transcript already synced) between two trees, interleaved; median of N runs
each.  Usage: python bench/hook_found_path_ab.py BASE_TREE NEW_TREE N"""
import json, os, resource, shutil, statistics, subprocess, sys, uuid
A, B, N = sys.argv[1], sys.argv[2], int(sys.argv[3])
work = "/tmp/fix18b-bench/w"; shutil.rmtree(work, ignore_errors=True); os.makedirs(work)
sid = "abababab-2222-3333-4444-555555555555"
t = f"{work}/claude/projects/-home-dev-app/{sid}.jsonl"; os.makedirs(os.path.dirname(t))
with open(t, "w") as f:
    for i in range(200):
        f.write(json.dumps({"type": "user", "uuid": str(uuid.uuid4()), "sessionId": sid, "cwd": "/home/dev/app",
                            "timestamp": "2026-01-05T10:00:00Z", "message": {"role": "user", "content": f"question {i} about the build"}}) + "\n")
        f.write(json.dumps({"type": "assistant", "uuid": str(uuid.uuid4()), "sessionId": sid, "cwd": "/home/dev/app",
                            "timestamp": "2026-01-05T10:00:01Z", "message": {"id": f"msg_{i}", "role": "assistant", "model": "c",
                            "content": [{"type": "text", "text": f"answer {i}"}], "stop_reason": "end_turn"}}) + "\n")
ev = json.dumps({"hook_event_name": "Stop", "session_id": sid, "cwd": "/home/dev/app", "transcript_path": t}).encode()
def run(tree, store):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(PYTHONPATH=tree, MEM_HOME=store, CLAUDE_CONFIG_DIR=f"{work}/claude", MEM_HOOK_FORK="0", MEM_NO_HELPER="1", HOME=work)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "cmds", "hook", "claude-code"], input=ev, env=env, cwd=tree, check=True, capture_output=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
for tree, store in ((A, f"{work}/sa"), (B, f"{work}/sb")):
    run(tree, store); run(tree, store)     # first sync + warm
ta, tb = [], []
for _ in range(N):
    ta.append(run(A, f"{work}/sa")); tb.append(run(B, f"{work}/sb"))
ma, mb = statistics.median(ta), statistics.median(tb)
print(f"base {ma*1000:.0f} ms CPU, fix18b {mb*1000:.0f} ms CPU, ratio {mb/ma:.3f} (median of {N})")
