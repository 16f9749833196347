"""CPU of one UserPromptSubmit ``mem hook claude-code`` (capture in the
process: MEM_HOOK_FORK=0) on a small store whose transcript grows by one
prompt and answer a cycle, base tree against this one, interleaved, the
median of N cycles each (session 17, fix17: a new cursor's path is checked
against the ``match:`` rules; a saved one costs a stat).  The base tree:
``git worktree add /tmp/fix17-base 9b72861``.

    BASE=/tmp/fix17-base N=11 python bench/hook_cursor_ab.py
"""
import json, os, resource, shutil, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE, N = os.environ.get("BASE", "/tmp/fix17-base"), int(os.environ.get("N", "11"))


def rec(i, role, text):
    return {"type": role, "sessionId": "s1", "uuid": f"{role[0]}{i}", "parentUuid": None, "cwd": "/tmp/p",
            "timestamp": f"2026-12-03T16:{i // 60:02d}:{i % 60:02d}.000Z",
            "message": {"role": role, "content": text} if role == "user" else
            {"id": f"m{i}", "role": "assistant", "content": [{"type": "text", "text": f"answer {i}"}]}}


def cpu(tree, home, t, i):
    with open(t, "a") as f:
        f.write(json.dumps(rec(i, "user", f"prompt number {i}")) + "\n")
    body = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": "/tmp/p",
                       "transcript_path": str(t), "prompt": f"prompt number {i}"})
    env = dict(os.environ, PYTHONPATH=tree, MEM_HOME=home, HOME=os.path.dirname(home), MEM_HOOK_FORK="0",
               MEM_NO_HELPER="1")
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "cmds", "hook", "claude-code"], input=body, text=True, env=env,
                   cwd=tree, capture_output=True, check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(t, "a") as f:
        f.write(json.dumps(rec(i, "assistant", "")) + "\n")
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


work = tempfile.mkdtemp(prefix="hook-cursor-ab-")
res = {}
for k in ("base", "new"):
    os.makedirs(f"{work}/{k}/home")
ts = {k: f"{work}/{k}/s1.jsonl" for k in ("base", "new")}
for i in range(N + 1):
    for k, tree in (("base", BASE), ("new", HERE)):
        c = cpu(tree, f"{work}/{k}/home/store", ts[k], i)
        if i:   # the first creates the store
            res.setdefault(k, []).append(c)
b, n = statistics.median(res["base"]), statistics.median(res["new"])
print(f"prompt hook CPU, median of {N}: base {b*1e3:.1f} ms, new {n*1e3:.1f} ms, ratio {n/b:.3f}")
shutil.rmtree(work)
