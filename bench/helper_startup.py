"""Interleaved new-process timing of get/recall/hook/remember, with and without the
store's resident helper (mem helper), and `python -c pass` for the load:
wall and child CPU (user+sys via os.wait4); for the helper runs also the
helper process's own CPU per request (/proc/PID/stat utime+stime delta)."""
import json
import os
import statistics
import sys
import time
N = int(os.environ.get("N", "11"))
MEM = os.environ.get("MEM", os.path.join(os.path.dirname(sys.executable), "mem"))
PY = sys.executable
STORE = os.environ["STORE"]  # a store with project/bench/one and project/bench/api-port, its helper running
base = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("MEM_")},
        "MEM_HOME": STORE, "HOME": os.environ.get("BENCH_HOME", "/tmp/mem-helper-home")}
hook_in = lambda i: json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": f"bench-hook-{i}",
    "cwd": base["HOME"], "transcript_path": base["HOME"] + "/none.jsonl",
    "prompt": "why did the database migration fail on the deploy branch"}).encode()
cases = {
  "get": ([MEM, "get", "project/bench/one"], None),
  "recall": ([MEM, "recall", "--all-projects", "--json", "-n", "10", "database migration failed"], None),
  "hook": ([MEM, "hook", "claude-code"], hook_in),
  "remember": ([MEM, "remember", "project/bench/api-port", "api listens on {i}"], None),
}
sel = sys.argv[1:] or list(cases)
CLK = os.sysconf("SC_CLK_TCK")
def helper_pid():
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from cmds._helperclient import connect
    got = connect(STORE, 2.0)
    assert got, "no helper"
    got[0].sock.close()
    return got[1]
def helper_idle():
    """Wait until the helper greets again: the work it does after an answer
    (the hook's capture, remember's index commit) is over, so its CPU is
    counted with the request that caused it."""
    from cmds._helperclient import connect
    got = connect(STORE, 10.0)
    if got:
        got[0].sock.close()
def cpu_of(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000 / CLK
def run(argv, stdin, env):
    r, w = os.pipe()
    t = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        if stdin is not None:
            os.dup2(r, 0)
        os.close(w)
        fd = os.open(os.devnull, os.O_WRONLY); os.dup2(fd, 1); os.dup2(fd, 2)
        os.execve(argv[0], argv, env)
    os.close(r)
    if stdin is not None:
        os.write(w, stdin)
    os.close(w)
    _, st, ru = os.wait4(pid, 0)
    return (time.perf_counter() - t) * 1000, (ru.ru_utime + ru.ru_stime) * 1000, os.waitstatus_to_exitcode(st)
os.makedirs(base["HOME"], exist_ok=True)
hp = helper_pid()
variants = [("pass", [PY, "-c", "pass"], None, base)]
for k in sel:
    argv, inp = cases[k]
    variants.append((k, argv, inp, {**base, "MEM_NO_HELPER": "1"}))
    variants.append((k + "+helper", argv, inp, base))
res = {v[0]: [] for v in variants}
hcpu = {v[0]: [] for v in variants}
for i in range(N + 1):
    for name, argv, inp, env in variants:
        argv = [a.replace("{i}", f"{9000 + i} {name}") for a in argv]
        c0 = cpu_of(hp)
        w, c, rc = run(argv, inp(i) if inp else None, env)
        if name.endswith("+helper"):
            helper_idle()       # the hook's capture and remember's index commit run after the answer
        c1 = cpu_of(hp)
        if i:
            res[name].append((w, c, rc)); hcpu[name].append(c1 - c0)
load = open("/proc/loadavg").read().split()[:3]
print(f"N={N} load {' '.join(load)} helper pid {hp}")
for name in res:
    ws = [x[0] for x in res[name]]; cs = [x[1] for x in res[name]]
    extra = f"  helper CPU/req mean {statistics.mean(hcpu[name]):5.1f}" if name.endswith("+helper") else ""
    print(f"{name:16s} wall med {statistics.median(ws):6.1f} min {min(ws):6.1f} | cpu med {statistics.median(cs):6.1f} min {min(cs):6.1f}{extra}  rc={set(x[2] for x in res[name])}")
