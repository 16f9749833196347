#!/usr/bin/env python3
"""New-process start-up of the commands an agent or a hook runs, in one or
more source trees, interleaved on one store (issue 12, "Start-up").

Each sample forks and execs the ``mem`` each tree's install would have
(``bench/run.py``'s ``mem_script``: ``bin/mem``, or pip's console script for
an older tree's ``[project.scripts]``), one per tree, in a virtualenv whose site-packages reach this interpreter's dependencies
through a ``.pth`` path line, so no editable-install finder runs) with
``PYTHONPATH`` set to the tree, and reads the child's wall time and user+sys
CPU from ``os.wait4`` (the hook's forked capture child is not counted: the
agent does not wait for it).  Commands and trees are taken in turn, one
warm-up round first, so that load from other processes falls on all alike;
``python -c pass`` runs in the same rounds as the floor.

``hook`` gives each sample a new session (its first prompt); ``hook-later``
gives every sample of a tree one session, so all but the warm-up round are a
session's later prompts (what it was given already is in its state).

``--importtime R`` also prints, per command and tree, the modules imported
and the sum of each module's minimum self time over R runs of
``python -X importtime`` (stdlib / third party / objstore / cmds).

Usage::

    python bench/gen_corpus.py --sessions 30 --turns 2000 -q /tmp/su/corpus
    MEM_HOME=/tmp/su/store mem import claude-code /tmp/su/corpus
    git archive main | tar -x -C /tmp/su/main          # a tree to compare with
    python bench/startup.py --store /tmp/su/store --tree main=/tmp/su/main --tree branch=. --runs 15
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROMPTS = ["why does the ledgerly migration fail on the staging database?",
           "what port does the api listen on now?", "fix the flaky auth test in tuzadez",
           "remind me what we decided about the profile rollout"]
QUERIES = ["tuzadez bibotak", "parebuq fekivik", "database migration", "api port"]
GET_KEY = "project/bench/one"


def commands(home: Path, cwd: Path | None = None) -> dict:
    """name -> (argv after ``mem`` for sample i and tree t, stdin bytes for
    sample i and tree t or None); ``cwd``: the hook's working directory
    (default ``home``)."""
    def event(i: int, t: str) -> bytes:  # a new session each time: nothing was injected in it yet
        return json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": f"bench-hook-{t}-{i}-{os.getpid()}",
                           "cwd": str(cwd or home), "transcript_path": str(home / "none.jsonl"),
                           "prompt": PROMPTS[i % len(PROMPTS)]}).encode()
    def later(i: int, t: str) -> bytes:  # one session for every sample of a tree: a session's later prompts
        return json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": f"bench-later-{t}-{os.getpid()}",
                           "cwd": str(home), "transcript_path": str(home / "none.jsonl"),
                           "prompt": PROMPTS[i % len(PROMPTS)]}).encode()
    def start(i: int, t: str) -> bytes:  # a new session each time: its block is rendered, not the stored bytes
        return json.dumps({"hook_event_name": "SessionStart", "session_id": f"bench-start-{t}-{i}-{os.getpid()}",
                           "cwd": str(cwd or home), "transcript_path": str(home / "none.jsonl"),
                           "source": "startup"}).encode()
    return {
        "help": (lambda i, t: ["--help"], None),
        "get": (lambda i, t: ["get", GET_KEY], None),
        "recall": (lambda i, t: ["recall", "--all-projects", "--json", "-n", "10", QUERIES[i % 4]], None),
        "search": (lambda i, t: ["search", "--json", "-n", "10", QUERIES[i % 4]], None),
        "context": (lambda i, t: ["context"], None),
        "hook": (lambda i, t: ["hook", "claude-code"], event),
        "hook-later": (lambda i, t: ["hook", "claude-code"], later),
        "hook-start": (lambda i, t: ["hook", "claude-code"], start),
        # a new value each time (the same value again writes nothing)
        "remember": (lambda i, t: ["remember", "project/bench/api-port", f"api listens on {8000 + i} ({t})"],
                     None),
    }


def make_env(work: Path, trees: dict[str, str]) -> tuple[str, dict[str, str]]:
    """A virtualenv in ``work`` with the ``mem`` script of each tree
    (``bin/mem-<tree name>``); (python, {tree name: script})."""
    venv = work / "venv"
    py = venv / "bin" / "python3"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
        Path(site, "_mem_startup_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    from run import mem_script
    mems = {}
    for name, tree in trees.items():
        mem = venv / "bin" / f"mem-{name}"
        mem.write_text(mem_script(Path(tree), py))
        mem.chmod(0o755)
        mems[name] = str(mem)
    return str(py), mems


def run(argv: list[str], env: dict, cwd: Path, stdin: bytes | None) -> tuple[float, float, int]:
    """(wall ms, user+sys CPU ms, exit status) of one new process."""
    r, w = os.pipe()
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: stdin from the pipe, output discarded
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(r, 0)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.close(w)
            os.chdir(cwd)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    os.close(r)
    if stdin:
        os.write(w, stdin)
    os.close(w)
    _, status, ru = os.wait4(pid, 0)
    return (time.perf_counter() - t0) * 1000, (ru.ru_utime + ru.ru_stime) * 1000, os.waitstatus_to_exitcode(status)


def settle(mem: str, env: dict, cwd: Path, store: Path) -> None:
    """After a prompt hook: wait for its capture child and index the prompt
    it stored, as the Stop hook's sync does before the next prompt in a
    session (the prompt is stored with ``index=False``; a reader replays the
    index journal first, so without this the next sample would pay a tantivy
    commit for the previous sample's prompt)."""
    journal = store / "index-journal"
    for _ in range(50):
        time.sleep(0.05)
        try:
            if journal.stat().st_size == 0:
                return
        except OSError:
            return
        subprocess.run([mem, "search", "--json", "-n", "1", "settle"], env=env, cwd=cwd, capture_output=True)


def importtime(py: str, mem: str, argv: list[str], env: dict, cwd: Path, stdin: bytes | None, runs: int) -> dict:
    """Modules imported and the sum of their minimum self times (ms), by group."""
    best: dict[str, int] = {}
    for _ in range(runs):
        p = subprocess.run([py, "-X", "importtime", mem, *argv], env=env, cwd=cwd, input=stdin,
                           capture_output=True)
        for line in p.stderr.decode(errors="replace").splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            self_us, _cum, name = line[len("import time:"):].split("|")
            name = name.strip()
            best[name] = min(best.get(name, 1 << 60), int(self_us))
    groups: collections.Counter = collections.Counter()
    for name, us in best.items():
        top = name.split(".")[0]
        group = top if top in ("objstore", "cmds") else (
            "third party" if top in ("tantivy", "cbor2", "blake3", "msgpack", "click") else "stdlib")
        groups[group] += us
    return {"modules": len(best), "ms": round(sum(best.values()) / 1000, 1),
            **{g: round(v / 1000, 1) for g, v in sorted(groups.items())}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, required=True, help="an existing store (MEM_HOME)")
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=PATH",
                    help="a source tree holding objstore/ and cmds/ (repeatable; default: this one)")
    ap.add_argument("--tree-store", action="append", default=[], metavar="NAME=STORE",
                    help="the store tree NAME runs on instead of --store (a store written by that tree, "
                         "when the trees write different formats; repeatable)")
    ap.add_argument("--runs", type=int, default=15, help="samples per command and tree (default 15)")
    ap.add_argument("--only", default="", help="comma-separated commands (default: all)")
    ap.add_argument("--importtime", type=int, default=0, metavar="R", help="also -X importtime, R runs each")
    ap.add_argument("--work", type=Path, default=Path("/tmp/mem-startup"), help="virtualenv and home")
    ap.add_argument("--cwd", type=Path, help="the folder the commands run in, and the hook's cwd (default: home; "
                                             "a folder named after a project: its session block and injection)")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="also set this in every command's environment (e.g. MEM_AGENT=1: the commands as an agent's)")
    ap.add_argument("--json", type=Path, help="write the samples' medians here too")
    args = ap.parse_args(argv)
    trees = dict(t.split("=", 1) for t in args.tree) if args.tree else {"this": str(REPO)}
    trees = {k: str(Path(v).resolve()) for k, v in trees.items()}
    args.work.mkdir(parents=True, exist_ok=True)
    home = args.work / "home"
    home.mkdir(exist_ok=True)
    py, mems = make_env(args.work, trees)
    cmds = commands(home, args.cwd)
    where = args.cwd or home
    names = [n for n in args.only.split(",") if n] or list(cmds)

    stores = {t: Path(s) for t, s in (ts.split("=", 1) for ts in args.tree_store)}
    extra_env = dict(e.split("=", 1) for e in args.env)

    def env_of(tree: str) -> dict:
        tname = next(k for k, v in trees.items() if v == tree)
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
                "MEM_HOME": str(stores.get(tname, args.store)), "PYTHONPATH": tree, **extra_env}

    first, mem = next(iter(trees.values())), next(iter(mems.values()))
    if "get" in names:  # a key with one version
        for tname, tree in trees.items():
            if tname in stores or tree == first:
                subprocess.run([mems[tname], "remember", GET_KEY, "a single value"], env=env_of(tree), cwd=home,
                               capture_output=True)
    samples: dict = collections.defaultdict(list)
    for i in range(-1, args.runs):
        w, c, _ = run([py, "-c", "pass"], env_of(first), where, None)
        if i >= 0:
            samples[("python -c pass", "")].append((w, c))
        for name in names:
            mk, stdin = cmds[name]
            for tname, tree in trees.items():
                w, c, code = run([mems[tname], *mk(i, tname)], env_of(tree), where, stdin(i, tname) if stdin else None)
                if name.startswith("hook"):
                    settle(mems[tname], env_of(tree), where, stores.get(tname, args.store))
                if code != 0:
                    print(f"startup: {name} in {tname} exited {code}", file=sys.stderr)
                if i >= 0:
                    samples[(name, tname)].append((w, c))
    load = os.getloadavg()
    med = {f"{k[0]} {k[1]}".strip(): {"wall_ms": round(statistics.median(s[0] for s in v), 1),
                                      "cpu_ms": round(statistics.median(s[1] for s in v), 1), "n": len(v)}
           for k, v in samples.items()}
    print(f"{args.runs} interleaved new processes each, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print()
    print("| command | " + " | ".join(f"{t}: wall / CPU median" for t in trees) + " |")
    print("|---|" + "---|" * len(trees))
    p = med["python -c pass"]
    print(f"| `python -c pass` | {p['wall_ms']:.0f} / {p['cpu_ms']:.0f} ms" + " |" * len(trees))
    for name in names:
        cells = [f"{med[f'{name} {t}']['wall_ms']:.0f} / {med[f'{name} {t}']['cpu_ms']:.0f} ms" for t in trees]
        print(f"| `mem {name}` | " + " | ".join(cells) + " |")
    out: dict = {"load": load, "runs": args.runs, "medians": med}
    if args.importtime:
        print()
        print("| command | tree | modules | imports (sum of min self ms) | by group |")
        print("|---|---|---|---|---|")
        out["importtime"] = {}
        for name in names:
            mk, stdin = cmds[name]
            for tname, tree in trees.items():
                it = importtime(py, mems[tname], mk(0, tname), env_of(tree), home, stdin(0, tname) if stdin else None,
                                args.importtime)
                if name.startswith("hook"):
                    settle(mem, env_of(first), home, args.store)
                out["importtime"][f"{name} {tname}"] = it
                rest = ", ".join(f"{k} {v}" for k, v in it.items() if k not in ("modules", "ms"))
                print(f"| `mem {name}` | {tname} | {it['modules']} | {it['ms']} | {rest} |")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
