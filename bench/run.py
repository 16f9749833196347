#!/usr/bin/env python3
"""Benchmark ``mem`` against memware 0.11 on one corpus, in one run.

What is measured (``bench/README.md`` and ``docs/benchmarks.md`` explain it):

* import: ``mem import claude-code CORPUS`` into a new store, and memware's
  ``backfill CORPUS`` into a new database. Wall time and peak RSS of the
  process (``wait4``'s ``ru_maxrss``), median over ``--import-runs``.
* store size on disk: ``du`` of the store directory and of memware's home,
  where its database and WAL live.
* re-sync with nothing new: ``mem import`` again on the same corpus, and
  ``memware sync CORPUS``.
* latency as a new process: ``mem search`` against ``memware recall``
  (needle queries from ``needles.json``, with each top hit checked), ``mem
  remember`` against ``memware assert``, and ``mem --help`` against
  ``memware --help``. Each is the median of ``--runs`` samples, taken in
  turn so that load from other processes falls on both tools alike.
* ``mem get`` / ``mem log`` latency on a store of ``--keys`` keys with
  ``--versions`` versions each. The store is built quickly through the
  library: one lock, packs and refs written directly (:func:`build_key_store`).

``--scale 1m`` (opt-in) generates a 1M-turn corpus and measures mem's import
(wall, peak RSS, store size) and ``mem search`` latency on it. A size below
1M (``--scale 200k``) also measures a quarter of that size and extrapolates
linearly to 1M. The extrapolated figures are labelled as such.

Every process runs with HOME, MEM_HOME and MEMWARE_HOME inside ``--work``, so
neither tool touches the real home. Results go to ``WORK/results.json``
(``--out``), and a Markdown table goes to stdout (``--md FILE`` writes it too).

Usage::

    python bench/run.py --mem-rev HEAD                 # the full comparison, on a commit
    python bench/run.py --corpus /tmp/bench-corpus     # the working tree, on a generated corpus
    python bench/run.py --no-peer --sessions 3 --turns 60 --keys 200 --runs 3
    python bench/run.py --scale 1m                     # the 1M-turn check only

Peer: memware is run from its own virtualenv (``--peer-venv``, default
``/tmp/bench-venv``). When it is missing, it is created there with
``pip install memware==0.11.0``, never in the project's environment.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GEN = REPO / "bench" / "gen_corpus.py"
MARKER = ".mem-bench"
MEMWARE_VERSION = "0.11.0"

#: The issue's targets: ratios are mem / memware (lower is better), absolute
#: figures in ms or MB.
TARGETS = {
    "import_wall_ratio": 1.0,       # issue 12; the goal beyond it: 0.33
    "store_bytes_ratio": 1.0,       # beyond: 0.5
    "resync_ratio": 1.0,
    "one_new_ratio": 1.5,           # one new session among the corpus vs that file alone
    "recall_ms": 50.0,
    "hook_ms": 60.0,
    "get_ms": 40.0,
    "log_ms": 60.0,
    "remember_ms": 50.0,
    "help_ms": 40.0,
    # the "300 MB" is 300,000,000 B (292,969 kB); rss_mb counts MiB (ru_maxrss / 1024),
    # so the target in that unit is 286.10, not 300 (which let 307,200 kB pass: 4.9 % over)
    "scale_rss_mb": 300e6 / 2**20,
    "scale_search_ms": 150.0,
}


# -- processes ------------------------------------------------------------------------------

class Runner:
    """Runs commands as new processes with a controlled environment and
    measures wall time (``perf_counter`` around fork/exec/wait) and peak RSS
    (``wait4``). Output goes to scratch files so pipes never throttle it."""

    def __init__(self, scratch: Path, base_env: dict[str, str]) -> None:
        self.scratch = scratch
        self.base_env = base_env
        self.cwd = base_env.get("HOME")  # never the repository, whose packages would shadow an install
        scratch.mkdir(parents=True, exist_ok=True)

    def run(self, argv: list[str], env: dict[str, str] | None = None, *,
            check: bool = True, timeout: float | None = None, stdin: bytes | None = None) -> dict:
        """Run ``argv`` (stdin empty, or the bytes ``stdin`` from a file);
        return {wall_s, cpu_s, rss_mb, rc, stdout, stderr}. A failure (unless
        ``check`` is False) stops the benchmark with the command's stderr."""
        e = dict(self.base_env)
        e.update(env or {})
        out_p, err_p, in_p = self.scratch / "stdout", self.scratch / "stderr", self.scratch / "stdin"
        if stdin is not None:
            in_p.write_bytes(stdin)
        with open(out_p, "wb") as out, open(err_p, "wb") as err, \
                (open(in_p, "rb") if stdin is not None else open(os.devnull, "rb")) as inp:
            t0 = time.perf_counter()
            p = subprocess.Popen(argv, stdin=inp, stdout=out, stderr=err, env=e, cwd=self.cwd)
            deadline = None if timeout is None else t0 + timeout
            while True:
                pid, status, ru = os.wait4(p.pid, os.WNOHANG if deadline else 0)
                if pid:
                    break
                if time.perf_counter() > deadline:
                    p.kill()
                    pid, status, ru = os.wait4(p.pid, 0)
                    break
                time.sleep(0.01)
            t1 = time.perf_counter()
            p.returncode = os.waitstatus_to_exitcode(status)
        res = {"wall_s": t1 - t0, "cpu_s": ru.ru_utime + ru.ru_stime, "sys_s": ru.ru_stime, "rss_mb": ru.ru_maxrss / 1024,
               "rc": p.returncode,
               "stdout": out_p.read_text("utf-8", "replace"), "stderr": err_p.read_text("utf-8", "replace")}
        if check and res["rc"] != 0:
            raise SystemExit(f"bench: command failed (exit {res['rc']}): {shlex.join(argv)}\n"
                             f"{res['stderr'][-2000:]}")
        return res


def summary(runs: list[dict]) -> dict:
    """Median and spread of the wall times of ``runs`` (Runner results), in
    ms, plus the median CPU time (user + system), which load from other
    processes on the machine disturbs much less than the wall time, and the
    median of its system part alone (the kernel's: files opened, mapped and
    stat-ed, page faults, threads)."""
    ms = sorted(r["wall_s"] * 1000 for r in runs)
    q = statistics.quantiles(ms, n=10) if len(ms) >= 2 else [ms[0]] * 9
    return {"median_ms": round(statistics.median(ms), 1), "min_ms": round(ms[0], 1),
            "p10_ms": round(q[0], 1), "p90_ms": round(q[-1], 1), "n": len(ms),
            "cpu_median_ms": round(statistics.median(r["cpu_s"] * 1000 for r in runs), 1),
            "sys_median_ms": round(statistics.median(r.get("sys_s", 0.0) * 1000 for r in runs), 1)}


def interleaved(runner: Runner, specs: dict[str, tuple], n: int, warmup: int = 1) -> dict[str, list[dict]]:
    """Run each spec's command ``n`` times (after ``warmup`` untimed runs),
    alternating between specs and rotating which goes first.

    ``specs``: name -> (argv_for(i) -> list[str], env dict[, stdin_for(i) -> bytes]).
    Returns name -> list of run results."""
    names = list(specs)

    def one(name: str, i: int) -> dict:
        argv_for, env, *rest = specs[name]
        return runner.run(argv_for(i), env, stdin=rest[0](i) if rest else None)
    for w in range(warmup):
        for name in names:
            one(name, -1 - w)
    out: dict[str, list[dict]] = {name: [] for name in names}
    for i in range(n):
        order = names[i % len(names):] + names[:i % len(names)]
        for name in order:
            out[name].append(one(name, i))
    return out


# -- files ----------------------------------------------------------------------------------

def disk_usage(path: Path) -> dict:
    """``du``-style bytes (allocated blocks) and apparent bytes of a tree."""
    blocks = apparent = files = 0
    seen = set()
    for dirpath, dirs, names in os.walk(path):
        for n in names + dirs:
            try:
                st = os.lstat(os.path.join(dirpath, n))
            except FileNotFoundError:
                continue
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            blocks += st.st_blocks * 512
            if n in names:
                apparent += st.st_size
                files += 1
    return {"bytes": blocks, "apparent_bytes": apparent, "files": files}


def fresh_dir(work: Path, name: str) -> Path:
    """``work/name``, emptied (only ever inside the bench work dir)."""
    p = work / name
    assert p.parent == work and (work / MARKER).exists()
    if p.exists():
        shutil.rmtree(p)
    p.mkdir(parents=True)
    return p


def prepare_work(work: Path) -> None:
    work.mkdir(parents=True, exist_ok=True)
    if not (work / MARKER).exists():
        if any(work.iterdir()):
            raise SystemExit(f"bench: {work} is not empty and was not made by bench/run.py; "
                             "give --work a new directory")
        (work / MARKER).write_text("made by bench/run.py; its subdirectories are replaced on each run\n")


def load_needles(corpus: Path) -> list[dict]:
    p = corpus / "needles.json"
    return json.loads(p.read_text()) if p.exists() else []


def generate_corpus(runner: Runner, out: Path, sessions: int, turns: int, seed: int) -> dict:
    """Run gen_corpus.py into ``out`` (replacing a corpus it wrote there),
    unless ``out`` already holds the corpus of these arguments (the output is
    deterministic)."""
    try:
        have = json.loads((out / "corpus.json").read_text())["args"]
        # a corpus of more than SHARD_SESSIONS sessions written before the generator's
        # shards (no shard_sessions) differs from what it writes now
        from gen_corpus import SHARD_SESSIONS  # bench/ is this script's directory
        shard = SHARD_SESSIONS if sessions > SHARD_SESSIONS else None
        if (out / ".gen_corpus").exists() and (have["sessions"], have["turns"], have["seed"]) == (sessions, turns, seed) \
                and have.get("shard_sessions") == shard:
            return {"reused": True}
    except (OSError, ValueError, KeyError, TypeError):
        pass
    argv = [sys.executable, str(GEN), str(out), "--sessions", str(sessions), "--turns", str(turns),
            "--seed", str(seed), "-q"]
    if out.exists() and (out / ".gen_corpus").exists():
        argv.append("--force")
    r = runner.run(argv)
    return {"wall_s": round(r["wall_s"], 2), "rss_mb": round(r["rss_mb"], 1)}


# -- the key store --------------------------------------------------------------------------

def key_name(k: int) -> str:
    """The k-th bench key: 90% under 100 projects, 10% in the user scope."""
    if k % 10 == 9:
        return f"user/pref/k{k:06d}"
    return f"project/proj{k % 100:02d}/setting/k{k:06d}"


def build_key_store(root: Path, keys: int, versions: int, *, seed: int = 1,
                    pack_objects: int = 100_000, src: Path = REPO) -> dict:
    """Create a store at ``root`` holding ``keys`` keys x ``versions`` versions.

    The fast bulk path: one store lock; fact objects written into packs of at
    most ``pack_objects`` objects (as ``mem import`` writes them); ref and
    reflog files written directly (the store is new, nobody else writes it);
    one filesystem sync; the current versions added to the search index in
    one batch. The result is the store a ``mem remember`` per version would
    have left after ``mem gc`` packed it: ``mem fsck`` passes on it.

    Returns {"keys", "versions", "objects", "packs", "build_s"}.
    """
    sys.path.insert(0, str(src))
    from objstore.core.codec import encode
    from objstore.memory.facts import fact_doc
    from objstore.core.ids import ZERO_ID
    from objstore.core.objects import Fact
    from objstore.core.refs import fact_ref
    from objstore.memory.opening import open_store

    t0 = time.perf_counter()
    rng = random.Random(seed)
    words = ("postgres redis port host timeout retries region bucket token path branch "
             "node python rust image tag replica pool limit cache queue worker").split()
    store = open_store(root, create=True)
    base = 1_700_000_000_000
    docs, objects, packs = [], 0, 0
    try:
        with store.lock("bench keys"), store.batch():
            writer = store.pack_writer()
            for k in range(keys):
                key = key_name(k)
                ref = fact_ref(key)
                parent, log_lines = None, []
                for v in range(1, versions + 1):
                    t = base + (k * versions + v) * 1000
                    body = (f"{rng.choice(words)} {rng.choice(words)} = {rng.randrange(1, 65536)}; "
                            f"set in version {v} of {key.rsplit('/', 1)[1]} "
                            + " ".join(rng.choice(words) for _ in range(rng.randrange(3, 20))))
                    fact = Fact(key=key, kind="user" if key.startswith("user/") else "project", body=body,
                                version=v, parent=parent, valid_from=t, recorded_at=t,
                                trust="user_stated", sensitivity="private", owner="user",
                                sources=(), pinned=False)
                    oid = writer.add(encode(fact))
                    objects += 1
                    log_lines.append(f"{parent or ZERO_ID} {oid} {t} remember\n")
                    parent = oid
                if writer.count >= pack_objects:
                    writer.finish()
                    packs += 1
                    writer = store.pack_writer()
                docs.append(fact_doc(parent, fact))
                rp = store.refs.path(ref)
                rp.parent.mkdir(parents=True, exist_ok=True)
                rp.write_bytes(parent.encode("ascii") + b"\n")
                lp = store.reflog.path(ref)
                lp.parent.mkdir(parents=True, exist_ok=True)
                lp.write_text("".join(log_lines), "utf-8")
            if writer.count:
                writer.finish()
                packs += 1
            else:
                writer.abort()
        store.index.add(docs)
    finally:
        store.close()
    return {"keys": keys, "versions": versions, "objects": objects, "packs": packs,
            "build_s": round(time.perf_counter() - t0, 2)}


# -- the tools ------------------------------------------------------------------------------

def export_rev(rev: str, dest: Path) -> Path:
    """``git archive REV`` of this repository into ``dest`` (replaced): a
    snapshot that edits to the working tree during the run cannot change.
    ``worktree`` copies the working tree's packages as they are now."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    if rev == "worktree":
        for name in ("objstore", "cmds"):
            shutil.copytree(REPO / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy2(REPO / "pyproject.toml", dest / "pyproject.toml")
        return dest
    arch = subprocess.run(["git", "archive", "--format=tar", rev], cwd=REPO, capture_output=True)
    if arch.returncode != 0:
        raise SystemExit(f"bench: git archive {rev} failed: {arch.stderr.decode(errors='replace').strip()}")
    subprocess.run(["tar", "-x", "-C", str(dest)], input=arch.stdout, check=True)
    return dest


PIP_SCRIPT = """#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from {module} import {func}
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit({func}())
"""


def mem_script(src: Path, python: str | Path) -> str:
    """The text of the ``mem`` command pip would install from the tree
    ``src`` into an environment whose interpreter is ``python``: the tree's
    own script (``[tool.setuptools] script-files``, ``bin/mem`` since
    session 12) with its first line made ``#!python``, else pip's console
    script for ``[project.scripts]`` (older trees: it imports ``re``).
    Raises SystemExit when the tree names neither."""
    lines = (src / "pyproject.toml").read_text().splitlines()
    for line in lines:
        if line.startswith("script-files"):
            for name in line.split("=", 1)[1].strip(" []").split(","):
                rel = name.strip().strip('"')
                if Path(rel).name == "mem":
                    body = (src / rel).read_text().split("\n", 1)[1]
                    return f"#!{python}\n{body}"
    for i, line in enumerate(lines):
        if line.strip() == "[project.scripts]":  # the console script pip would write: mem = "module:func"
            target = next(l.split("=", 1)[1].strip().strip('"') for l in lines[i + 1:] if l.startswith("mem"))
            module, func = target.split(":")
            return PIP_SCRIPT.format(python=python, module=module, func=func)
    raise SystemExit(f"bench: {src}/pyproject.toml names no 'mem' script")


def install_snapshot(src: Path, venv: Path) -> list[str]:
    """Lay ``src`` (a snapshot of this repository) out as ``pip install``
    would: a new virtualenv whose site-packages holds ``objstore`` and
    ``cmds``, compiled, with a ``memvcs`` dist-info and the ``bin/mem``
    pip would install (:func:`mem_script`). Dependencies come from this interpreter's
    site-packages through a path line in a ``.pth`` file (such a directory's
    own ``.pth`` files, like an editable install's finder, are not run).

    This measures start-up as a user's install has it, without the
    editable-install finder that ``pip install -e`` adds to every start.
    Returns the command that runs ``mem``."""
    import compileall
    import sysconfig
    if venv.exists():
        shutil.rmtree(venv)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    vpy = venv / "bin" / "python"
    site = Path(subprocess.run([str(vpy), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    for pkg in ("objstore", "cmds"):
        shutil.copytree(src / pkg, site / pkg)
    compileall.compile_dir(str(site), quiet=1)
    version = "0"
    for line in (src / "pyproject.toml").read_text().splitlines():
        if line.startswith("version") and version == "0":
            version = line.split("=", 1)[1].strip().strip('"')
    text = mem_script(src, vpy)
    di = site / f"memvcs-{version}.dist-info"
    di.mkdir()
    (di / "METADATA").write_text(f"Metadata-Version: 2.1\nName: memvcs\nVersion: {version}\n")
    (site / "_mem_bench_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    script = venv / "bin" / "mem"
    script.write_text(text)
    script.chmod(0o755)
    return [str(script)]


def src_of(mem: list[str]) -> Path:
    """Where the measured ``objstore``/``cmds`` sources are: the installed
    snapshot's site-packages, else this repository."""
    exe = Path(mem[0])
    if exe.name == "mem" and exe.parent.name == "bin":
        for site in exe.parent.parent.glob("lib/python*/site-packages"):
            if (site / "objstore").is_dir():
                return site
    return REPO


def tree_digest(src: Path) -> str:
    """A short digest of the measured sources (objstore/, cmds/), naming a
    working-tree snapshot that no commit names."""
    import hashlib
    h = hashlib.blake2b(digest_size=8)
    for p in sorted(list((src / "objstore").rglob("*.py")) + list((src / "cmds").rglob("*.py"))):
        h.update(p.relative_to(src).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def mem_command(arg: str | None) -> list[str]:
    if arg:
        return shlex.split(arg)
    script = Path(sys.executable).with_name("mem")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cmds"]


def ensure_memware(runner: Runner, venv: Path, install: bool) -> list[str]:
    exe = venv / "bin" / "memware"
    if not exe.exists():
        if not install:
            raise SystemExit(f"bench: no memware at {exe}; run without --no-install-peer, or --no-peer")
        print(f"bench: installing memware=={MEMWARE_VERSION} into {venv} (a separate venv)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"memware=={MEMWARE_VERSION}"], check=True)
    return [str(exe)]


def git_rev(rev: str | None = None) -> str:
    """The short commit of REV, or of HEAD plus ``+dirty`` for the working tree."""
    try:
        short = subprocess.run(["git", "rev-parse", "--short", rev or "HEAD"], cwd=REPO, capture_output=True,
                               text=True, check=True).stdout.strip()
        if rev:
            return short
        rev = short
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                               capture_output=True, text=True).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine() -> dict:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_total = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_total = int(line.split()[1]) // 1024
    except OSError:
        pass
    return {"cores": os.cpu_count(), "cpu": cpu, "mem_mb": mem_total, "os": platform.platform(),
            "python": platform.python_version(), "loadavg_start": list(os.getloadavg())}


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


# -- the measurements -----------------------------------------------------------------------

#: prompts of the UserPromptSubmit hook runs (the same for both tools)
HOOK_PROMPTS = ["why does the flaky auth test fail on the database port?",
                "how do we run the migrations again",
                "fix the failing build in the ingest worker",
                "what did we decide about retries in the http client?"]


def measure_one_new(runner, mem, corpus: Path, work: Path, store: Path, runs: int, seed: int) -> dict:
    """Catch-up cost of one new session: ``mem import claude-code CORPUS NEW``
    on the store that already holds the corpus, against importing NEW alone
    into a new store. Each run adds a different new session (a small corpus
    generated with another seed), so every run has exactly one file to read."""
    extra = work / "extra-sessions"
    if not (extra / "corpus.json").exists():
        if extra.exists():
            shutil.rmtree(extra)
        runner.run([sys.executable, str(GEN), str(extra), "--sessions", str(runs), "--turns", str(60 * runs),
                    "--seed", str(seed + 100), "--subagent-share", "0"])
    files = sorted(extra.rglob("*.jsonl"))[:runs]
    among, alone = [], []
    for i, f in enumerate(files):
        r = runner.run(mem + ["import", "claude-code", str(corpus), str(f), "--json"], {"MEM_HOME": str(store)})
        among.append({**r, "added": json.loads(r["stdout"])["turns_added"]})
        home = fresh_dir(work, "one-new-store")
        r = runner.run(mem + ["import", "claude-code", str(f), "--json"], {"MEM_HOME": str(home)})
        alone.append({**r, "added": json.loads(r["stdout"])["turns_added"]})
    a, b = summary(among), summary(alone)
    return {"files": len(files), "among": a, "alone": b, "added": [x["added"] for x in among],
            "ratio": ratio(a["median_ms"], b["median_ms"])}


def measure_imports(runner, mem, mw, corpus, work, runs, peer, pack_codec: str = "deflate") -> dict:
    """Import into new stores ``runs`` times (alternating tools); the last
    stores stay for the later steps.  ``pack_codec`` ``zstd``: each mem
    store is made first with ``store.pack_codec = "zstd"`` (pack version 7,
    the extra memvcs[zstd]; untimed), as a person opting in does."""
    res: dict = {"mem": [], "memware": []}
    for i in range(runs):
        home = fresh_dir(work, "mem-store")
        if pack_codec != "deflate":
            for step in (["init"], ["config", "store.pack_codec", pack_codec]):  # stops the bench on a failure
                runner.run(mem + step, {"MEM_HOME": str(home)})
        r = runner.run(mem + ["import", "claude-code", str(corpus), "--json"], {"MEM_HOME": str(home)})
        out = json.loads(r["stdout"])
        res["mem"].append({"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "rss_mb": r["rss_mb"],
                           "turns": out["turns_added"],
                           "lines_skipped": out["lines_skipped"], "index_error": out["index_error"]})
        if peer:
            mwh = fresh_dir(work, "memware-home")
            r = runner.run(mw + ["--db", str(mwh / "memware.db"), "--json", "backfill", str(corpus)],
                           {"MEMWARE_HOME": str(mwh)})
            out = json.loads(r["stdout"])
            res["memware"].append({"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "rss_mb": r["rss_mb"],
                                   "turns": out["turns_added"]})
    agg = {}
    for tool, rows in res.items():
        if rows:
            agg[tool] = {"wall_s": round(statistics.median(x["wall_s"] for x in rows), 3),
                         "wall_s_runs": [round(x["wall_s"], 3) for x in rows],
                         "cpu_s": round(statistics.median(x["cpu_s"] for x in rows), 3),
                         "peak_rss_mb": round(max(x["rss_mb"] for x in rows), 1),
                         "turns_indexed": rows[-1]["turns"]}
            if tool == "mem":
                agg[tool]["lines_skipped"] = rows[-1]["lines_skipped"]
                agg[tool]["index_error"] = rows[-1]["index_error"]
    return agg


def top_session_mem(stdout: str) -> tuple[str | None, list[str]]:
    hits = json.loads(stdout)
    sessions = [h.get("session") or h.get("key") for h in hits]
    return (sessions[0] if sessions else None), sessions


def top_session_memware(stdout: str) -> tuple[str | None, list[str]]:
    hits = json.loads(stdout)
    sessions = [h.get("session") for h in hits if h.get("kind") == "turn"]
    return (sessions[0] if sessions else None), sessions


def needle_session(n: dict) -> str:
    # subagent needles are "<parent>.agent-<id>"; both tools may report either form
    return n["session"]


def session_match(got: str | None, want: str) -> bool:
    """A subagent needle's session is ``<parent>.agent-<id>``; memware files
    a subagent's turns under the parent's id, which counts as found."""
    return bool(got) and (got == want or got == want.split(".agent-")[0])


def measure_main(args, runner, mem, mw) -> dict:
    work = args.work
    results: dict = {"schema": 1}
    corpus = args.corpus
    if corpus is None:
        corpus = work / "corpus"
        print(f"bench: generating corpus ({args.sessions} sessions, {args.turns} turns) in {corpus}",
              file=sys.stderr)
        results["corpus_gen"] = generate_corpus(runner, corpus, args.sessions, args.turns, args.seed)
    corpus = corpus.resolve()
    info = json.loads((corpus / "corpus.json").read_text()) if (corpus / "corpus.json").exists() else {}
    results["corpus"] = {"path": str(corpus), "sessions": info.get("counts", {}).get("sessions"),
                         "subagents": info.get("counts", {}).get("subagents"),
                         "turns": info.get("counts", {}).get("turns"),
                         "tool_calls": info.get("counts", {}).get("tool_calls"),
                         "bytes": info.get("bytes") or disk_usage(corpus)["apparent_bytes"],
                         "files": info.get("files")}
    needles = load_needles(corpus)
    peer = mw is not None
    mem_home, mw_home = work / "mem-store", work / "memware-home"
    mw_db = ["--db", str(mw_home / "memware.db")]
    menv, wenv = {"MEM_HOME": str(mem_home)}, {"MEMWARE_HOME": str(mw_home)}
    tools = ["mem", "memware"] if peer else ["mem"]

    step = lambda s: print(f"bench: {s}", file=sys.stderr, flush=True)  # noqa: E731

    step(f"import x{args.import_runs}")
    imp = measure_imports(runner, mem, mw, corpus, work, args.import_runs, peer, args.pack_codec)
    results["import"] = imp
    results["pack_codec"] = args.pack_codec

    step("store size")
    results["store"] = {"mem": disk_usage(mem_home)}
    results["store"]["mem"]["parts"] = {p.name: disk_usage(p)["bytes"] if p.is_dir() else p.stat().st_blocks * 512
                                        for p in sorted(mem_home.iterdir())}
    if peer:
        results["store"]["memware"] = disk_usage(mw_home)

    step(f"re-sync x{args.resync_runs}")
    specs = {"mem": (lambda i: mem + ["import", "claude-code", str(corpus), "--json"], menv)}
    if peer:
        specs["memware"] = (lambda i: mw + mw_db + ["--json", "sync", str(corpus)], wenv)
    rs = interleaved(runner, specs, args.resync_runs, warmup=0)
    results["resync"] = {}
    for tool, rows in rs.items():
        added = [json.loads(r["stdout"]).get("turns_added" if tool == "mem" else "added") for r in rows]
        results["resync"][tool] = {**summary(rows), "added": max(added),
                                   "peak_rss_mb": round(max(r["rss_mb"] for r in rows), 1)}

    step(f"search x{args.runs}")
    queries = [n["query"] for n in needles] or ["error", "migration failed"]
    specs = {"mem": (lambda i: mem + ["search", "--json", "-n", "10", queries[i % len(queries)]], menv)}
    if peer:
        specs["memware"] = (lambda i: mw + mw_db + ["--json", "recall", "-k", "10", queries[i % len(queries)]],
                            wenv)
    sr = interleaved(runner, specs, max(args.runs, len(queries)))
    results["search"] = {"queries": len(queries)}
    for tool, rows in sr.items():
        parse = top_session_mem if tool == "mem" else top_session_memware
        top1 = top10 = 0
        for i, r in enumerate(rows):
            if not needles:
                break
            want = needle_session(needles[i % len(needles)])
            first, all_s = parse(r["stdout"])
            top1 += session_match(first, want)
            top10 += any(session_match(s, want) for s in all_s)
        results["search"][tool] = {**summary(rows),
                                   "needles_top1": top1, "needles_top10": top10, "samples": len(rows)}
    if peer:  # recall without its usage write, for reference
        nt = interleaved(runner, {"memware": (lambda i: mw + mw_db + ["--json", "recall", "--no-touch", "-k", "10",
                                                                     queries[i % len(queries)]], wenv)},
                         max(args.runs, len(queries)))
        results["search"]["memware_no_touch"] = summary(nt["memware"])

    step(f"recall x{args.runs}")
    specs = {"mem": (lambda i: mem + ["recall", "--all-projects", "--json", "-n", "10", queries[i % len(queries)]],
                     menv)}
    if peer:
        specs["memware"] = (lambda i: mw + mw_db + ["--json", "recall", "-k", "10", queries[i % len(queries)]],
                            wenv)
    results["recall"] = {tool: summary(rows) for tool, rows in interleaved(runner, specs, args.runs).items()}

    step(f"UserPromptSubmit hook x{args.runs}")

    def hook_event(i: int) -> bytes:
        return json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": f"bench-hook-{i + 2}",
                           "cwd": str(work / "home"), "transcript_path": str(work / "home" / "none.jsonl"),
                           "prompt": HOOK_PROMPTS[i % len(HOOK_PROMPTS)]}).encode()
    specs = {"mem": (lambda i: mem + ["hook", "claude-code"], menv, hook_event)}
    if peer:
        specs["memware"] = (lambda i: mw + mw_db + ["context", "--from-hook"], wenv, hook_event)
    results["hook"] = {tool: summary(rows) for tool, rows in interleaved(runner, specs, args.runs).items()}

    step(f"remember x{args.runs}")
    specs = {"mem": (lambda i: mem + ["remember", "project/bench/api-port", f"api listens on {8000 + i + 10}"],
                     menv)}
    if peer:
        specs["memware"] = (lambda i: mw + mw_db + ["assert", "api", "listens on port", str(8000 + i + 10)], wenv)
    rr = interleaved(runner, specs, args.runs)
    results["remember"] = {tool: summary(rows) for tool, rows in rr.items()}

    step(f"get x{args.runs}")
    gr = interleaved(runner, {"mem": (lambda i: mem + ["get", "project/bench/api-port"], menv)}, args.runs)
    results["get"] = {"mem": summary(gr["mem"])}

    if args.helper:
        step(f"with and without the resident helper x{args.runs}")
        results["helper"] = measure_helper(runner, mem, menv, args.runs, hook_event)

    if args.one_new_runs:
        step(f"one new session among the corpus x{args.one_new_runs}")
        results["one_new"] = measure_one_new(runner, mem, corpus, work, mem_home, args.one_new_runs, args.seed)

    step(f"--help x{args.runs}")
    specs = {"mem": (lambda i: mem + ["--help"], menv)}
    if peer:
        specs["memware"] = (lambda i: mw + ["--help"], wenv)
    hr = interleaved(runner, specs, args.runs)
    results["help"] = {tool: summary(rows) for tool, rows in hr.items()}

    if not args.keys:
        return finish(results, peer)
    step(f"key store: {args.keys} keys x {args.versions} versions")
    kh = fresh_dir(work, "keys-store")
    ks = build_key_store(kh, args.keys, args.versions, seed=args.seed, src=args.mem_src)
    ks["store"] = disk_usage(kh)
    kenv = {"MEM_HOME": str(kh)}
    rng = random.Random(args.seed)
    sample = [key_name(rng.randrange(args.keys)) for _ in range(max(args.runs, 10) + 2)]
    # correctness first: the log of a sampled key lists every version
    chk = runner.run(mem + ["log", "--json", sample[0]], kenv)
    ks["log_versions_seen"] = len(json.loads(chk["stdout"]))
    gr = interleaved(runner, {"get": (lambda i: mem + ["get", sample[i]], kenv),
                              "log": (lambda i: mem + ["log", sample[i]], kenv)}, args.runs)
    rk = interleaved(runner, {"remember": (lambda i: mem + ["remember", sample[i], f"new value {i}"], kenv)},
                     args.runs)
    if args.fsck_keys:
        r = runner.run(mem + ["fsck"], kenv, check=False)
        ks["fsck_rc"], ks["fsck_s"] = r["rc"], round(r["wall_s"], 2)
    results["keys"] = {**ks, "get": summary(gr["get"]), "log": summary(gr["log"]),
                       "remember": summary(rk["remember"])}
    return finish(results, peer)


def _proc_cpu_ms(pid: int) -> float:
    """user + system CPU of process ``pid`` so far, ms (``/proc/PID/stat``)."""
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def measure_helper(runner, mem, menv: dict, runs: int, hook_event) -> dict:
    """get, recall, the prompt hook and remember as new processes, without
    and with the store's resident helper (``mem helper``), interleaved; for
    the helper also its own CPU per request (the client's CPU does not hold
    it).  Starts the helper and stops it at the end."""
    with_h = {**menv, "MEM_NO_HELPER": ""}
    runner.run(mem + ["helper", "start"], with_h)
    pid = json.loads(runner.run(mem + ["helper", "status", "--json"], with_h)["stdout"])["pid"]
    cmds = {
        "get": (lambda i: mem + ["get", "project/bench/api-port"], None),
        "recall": (lambda i: mem + ["recall", "--all-projects", "--json", "-n", "10", "database migration failed"],
                   None),
        "hook": (lambda i: mem + ["hook", "claude-code"], hook_event),
        "remember": (lambda i: mem + ["remember", "project/bench/api-port", f"api listens on {9000 + i}"], None),
    }
    out: dict = {"helper_pid": pid}
    try:
        for name, (argv_for, stdin_for) in cmds.items():
            extra = (stdin_for,) if stdin_for else ()
            before = _proc_cpu_ms(pid)
            rows = interleaved(runner, {"without": (argv_for, menv, *extra),
                                        "with": (lambda i, f=argv_for: f(i + 1000), with_h, *extra)}, runs)
            # the helper greets a status probe once the work it does after an answer (the hook's
            # capture, remember's index commit) is over: that work is counted with its requests
            runner.run(mem + ["helper", "status"], with_h, check=False)
            spent = _proc_cpu_ms(pid) - before
            out[name] = {"without": summary(rows["without"]), "with": summary(rows["with"]),
                         "helper_cpu_per_request_ms": round(spent / (runs + 1), 1)}
    finally:
        runner.run(mem + ["helper", "stop"], with_h, check=False)
    return out


def finish(results: dict, peer: bool) -> dict:
    """Add the ratios against memware and the verdicts on the targets."""
    def g(*ks):
        return _dig(results, None, *ks)
    rat = {}
    if peer:
        rat = {
            "import_wall_ratio": ratio(g("import", "mem", "wall_s"), g("import", "memware", "wall_s")),
            "import_rss_ratio": ratio(g("import", "mem", "peak_rss_mb"), g("import", "memware", "peak_rss_mb")),
            "store_bytes_ratio": ratio(g("store", "mem", "bytes"), g("store", "memware", "bytes")),
            "resync_ratio": ratio(g("resync", "mem", "median_ms"), g("resync", "memware", "median_ms")),
            "search_ratio": ratio(g("search", "mem", "median_ms"), g("search", "memware", "median_ms")),
            "remember_ratio": ratio(g("remember", "mem", "median_ms"), g("remember", "memware", "median_ms")),
            "help_ratio": ratio(g("help", "mem", "median_ms"), g("help", "memware", "median_ms")),
            "recall_ratio": ratio(g("recall", "mem", "median_ms"), g("recall", "memware", "median_ms")),
            "hook_ratio": ratio(g("hook", "mem", "median_ms"), g("hook", "memware", "median_ms")),
            "recall_cpu_ratio": ratio(g("recall", "mem", "cpu_median_ms"), g("recall", "memware", "cpu_median_ms")),
            "hook_cpu_ratio": ratio(g("hook", "mem", "cpu_median_ms"), g("hook", "memware", "cpu_median_ms")),
            # the same on CPU time (user + system), a cross-check when the machine is loaded
            "import_cpu_ratio": ratio(g("import", "mem", "cpu_s"), g("import", "memware", "cpu_s")),
            "resync_cpu_ratio": ratio(g("resync", "mem", "cpu_median_ms"), g("resync", "memware", "cpu_median_ms")),
            "search_cpu_ratio": ratio(g("search", "mem", "cpu_median_ms"), g("search", "memware", "cpu_median_ms")),
            "remember_cpu_ratio": ratio(g("remember", "mem", "cpu_median_ms"),
                                        g("remember", "memware", "cpu_median_ms")),
        }
    if g("one_new", "ratio") is not None:
        rat["one_new_ratio"] = g("one_new", "ratio")
    results["ratios"] = rat
    results["targets"] = {
        "import_wall_ratio": _verdict(rat.get("import_wall_ratio"), TARGETS["import_wall_ratio"]),
        "store_bytes_ratio": _verdict(rat.get("store_bytes_ratio"), TARGETS["store_bytes_ratio"]),
        "resync_ratio": _verdict(rat.get("resync_ratio"), TARGETS["resync_ratio"]),
        "one_new_ratio": _verdict(rat.get("one_new_ratio"), TARGETS["one_new_ratio"]),
        "recall_ms": _verdict(results["recall"]["mem"]["median_ms"], TARGETS["recall_ms"]),
        "hook_ms": _verdict(results["hook"]["mem"]["median_ms"], TARGETS["hook_ms"]),
        "get_ms": _verdict(results["get"]["mem"]["median_ms"], TARGETS["get_ms"]),
        "keys_get_ms": _verdict(_dig(results, None, "keys", "get", "median_ms"), TARGETS["get_ms"]),
        "log_ms": _verdict(_dig(results, None, "keys", "log", "median_ms"), TARGETS["log_ms"]),
        "remember_ms": _verdict(results["remember"]["mem"]["median_ms"], TARGETS["remember_ms"]),
        "help_ms": _verdict(results["help"]["mem"]["median_ms"], TARGETS["help_ms"]),
    }
    return results


def _dig(d, default, *keys):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return default or None
        d = d[k]
    return d


def _verdict(value, target) -> dict:
    return {"value": value, "target": target, "met": None if value is None else value <= target}


# -- scale ----------------------------------------------------------------------------------

def parse_size(text: str) -> int:
    t = text.strip().lower()
    mult = 1
    if t.endswith("m"):
        mult, t = 1_000_000, t[:-1]
    elif t.endswith("k"):
        mult, t = 1_000, t[:-1]
    return int(float(t) * mult)


def scale_point(runner, mem, work: Path, turns: int, seed: int, tag: str, reuse: str | None = None) -> dict:
    """Generate a ``turns``-turn corpus and import it into a new store.

    With ``reuse`` (the digest of the measured sources), a store that an
    earlier run imported from the same corpus with the same sources is kept
    and its import figures are read back instead."""
    sessions = max(3, round(turns * 16 / 1000))  # 16,000 sessions per 1M turns, as in the issue
    corpus = work / f"scale-corpus-{tag}"
    saved = work / f"scale-point-{tag}.json"
    if reuse and saved.exists():
        old = json.loads(saved.read_text())
        if old.get("src") == reuse and old["turns"] == turns and (work / f"scale-store-{tag}").is_dir():
            print(f"bench: scale {tag}: reusing the store imported by an earlier run", file=sys.stderr)
            return {**old, "reused_store": True, "_corpus": corpus, "_home": work / f"scale-store-{tag}"}
    print(f"bench: scale {tag}: generating {turns} turns / {sessions} sessions", file=sys.stderr, flush=True)
    gen = generate_corpus(runner, corpus, sessions, turns, seed)
    saved.unlink(missing_ok=True)
    home = fresh_dir(work, f"scale-store-{tag}")
    print(f"bench: scale {tag}: importing", file=sys.stderr, flush=True)
    r = runner.run(mem + ["import", "claude-code", str(corpus), "--json"], {"MEM_HOME": str(home)},
                   timeout=6 * 3600)
    out = json.loads(r["stdout"])
    cinfo = json.loads((corpus / "corpus.json").read_text())
    res = {"turns": turns, "sessions": sessions, "corpus_bytes": cinfo.get("bytes"), "gen": gen,
           "import_wall_s": round(r["wall_s"], 2), "import_peak_rss_mb": round(r["rss_mb"], 1),
           "import_cpu_s": round(r["cpu_s"], 2), "turns_indexed": out["turns_added"],
           "store_bytes": disk_usage(home)["bytes"]}
    saved.write_text(json.dumps({**res, "src": tree_digest(src_of(mem))}) + "\n")
    return {**res, "_corpus": corpus, "_home": home}


def scale_search(runner, mem, pts: dict, runs: int) -> None:
    """``mem search`` latency on every point's store, the stores taken in
    turn so that load from other processes falls on all of them alike."""
    specs, needles = {}, {}
    for tag, p in pts.items():
        needles[tag] = load_needles(p["_corpus"])
        qs = [n["query"] for n in needles[tag]] or ["error"]
        specs[tag] = ((lambda qs: lambda i: mem + ["search", "--json", "-n", "10", qs[i % len(qs)]])(qs),
                      {"MEM_HOME": str(p["_home"])})
    n = max([runs] + [len(v) for v in needles.values()])
    sr = interleaved(runner, specs, n)
    for tag, p in pts.items():
        nd = needles[tag]
        top1 = sum(session_match(top_session_mem(x["stdout"])[0], needle_session(nd[i % len(nd)]))
                   for i, x in enumerate(sr[tag])) if nd else None
        p["search"] = {**summary(sr[tag]), "needles_top1": top1}
        del p["_corpus"], p["_home"]


def measure_scale(args, runner, mem) -> dict:
    n = parse_size(args.scale)
    pts = {}
    reuse = tree_digest(src_of(mem)) if args.reuse_scale_stores else None
    if n < 1_000_000:
        pts["quarter"] = scale_point(runner, mem, args.work, n // 4, args.seed, "quarter", reuse)
    pts["full"] = scale_point(runner, mem, args.work, n, args.seed, "full", reuse)
    scale_search(runner, mem, pts, args.runs)
    res: dict = {"turns": n, "points": pts, "measured_at_1m": n >= 1_000_000}
    if n < 1_000_000:
        a, b = pts["quarter"], pts["full"]

        def lin(*keys):
            """Linear through both points, never below the larger measured value."""
            ya, yb = _dig(a, 0, *keys), _dig(b, 0, *keys)
            slope = (yb - ya) / (b["turns"] - a["turns"])
            return round(max(ya, yb, yb + slope * (1_000_000 - b["turns"])), 1)

        res["extrapolated_1m"] = {
            "method": f"linear through the {a['turns']:,}- and {b['turns']:,}-turn points",
            "import_wall_s": lin("import_wall_s"),
            "import_cpu_s": lin("import_cpu_s"),
            "import_peak_rss_mb": lin("import_peak_rss_mb"),
            "store_bytes": lin("store_bytes"),
            # wall medians of short commands swing with the machine's load; the
            # growth is taken from the CPU-time medians, which load barely moves
            "search_median_ms": round(b["search"]["median_ms"] + max(0.0, (
                b["search"]["cpu_median_ms"] - a["search"]["cpu_median_ms"]) / (b["turns"] - a["turns"])
                * (1_000_000 - b["turns"])), 1),
            "search_method": "wall median at the larger point + the growth of the CPU-time median, extended linearly",
        }
        rss, srch = res["extrapolated_1m"]["import_peak_rss_mb"], res["extrapolated_1m"]["search_median_ms"]
    else:
        rss, srch = pts["full"]["import_peak_rss_mb"], pts["full"]["search"]["median_ms"]
    res["targets"] = {"scale_rss_mb": _verdict(rss, TARGETS["scale_rss_mb"]),
                      "scale_search_ms": _verdict(srch, TARGETS["scale_search_ms"])}
    return res


# -- reporting ------------------------------------------------------------------------------

def _fmt_ms(x):
    return "—" if x is None else f"{x:.0f} ms"


def _fmt_mb(b):
    return "—" if b is None else f"{b / 1e6:.1f} MB"


def markdown(results: dict) -> str:
    """The results as a Markdown table (what docs/benchmarks.md shows)."""
    g = lambda *ks: _dig(results, 0, *ks)  # noqa: E731
    r = results.get("ratios", {})
    tg = results.get("targets", {})

    def mark(name):
        v = tg.get(name, {})
        return "" if v.get("met") is None else (" ✓" if v["met"] else " ✗")

    def rt(name, target):
        x = r.get(name)
        return "—" if x is None else f"{x:.2f}×{mark(name) if target else ''}"

    rows = []
    if "import" in results:
        rows += [
            ("import wall", f"{g('import', 'mem', 'wall_s'):.2f} s", _s(g("import", "memware", "wall_s")),
             rt("import_wall_ratio", 1), "≤ 1.0× (then 0.33×)"),
            ("import peak RSS", f"{g('import', 'mem', 'peak_rss_mb'):.0f} MB",
             _mb(g("import", "memware", "peak_rss_mb")), rt("import_rss_ratio", 0), "—"),
            ("turns indexed", f"{g('import', 'mem', 'turns_indexed'):,}",
             _n(g("import", "memware", "turns_indexed")), "", "all text"),
            ("store on disk", _fmt_mb(g("store", "mem", "bytes")), _fmt_mb(g("store", "memware", "bytes")),
             rt("store_bytes_ratio", 1), "≤ 1.0× (then 0.5×)"),
            ("re-sync, nothing new", _fmt_ms(g("resync", "mem", "median_ms")),
             _fmt_ms(g("resync", "memware", "median_ms")), rt("resync_ratio", 1), "≤ 1.0×"),
            ("one new session among the corpus, vs that file alone",
             _fmt_ms(g("one_new", "among", "median_ms")), _fmt_ms(g("one_new", "alone", "median_ms")),
             rt("one_new_ratio", 1), "≤ 1.5×"),
            ("`mem search` / `memware recall`, new process", _fmt_ms(g("search", "mem", "median_ms")),
             _fmt_ms(g("search", "memware", "median_ms")), rt("search_ratio", 0), "—"),
            ("`recall`, new process", _fmt_ms(g("recall", "mem", "median_ms")),
             _fmt_ms(g("recall", "memware", "median_ms")), rt("recall_ratio", 0), f"≤ 50 ms{mark('recall_ms')}"),
            ("UserPromptSubmit hook, new process", _fmt_ms(g("hook", "mem", "median_ms")),
             _fmt_ms(g("hook", "memware", "median_ms")), rt("hook_ratio", 0), f"≤ 60 ms{mark('hook_ms')}"),
            ("needles found first", f"{g('search', 'mem', 'needles_top1')}/{g('search', 'mem', 'samples')}",
             (f"{g('search', 'memware', 'needles_top1')}/{g('search', 'memware', 'samples')}"
              if g("search", "memware") else "—"), "", "—"),
            ("remember / assert, new process", _fmt_ms(g("remember", "mem", "median_ms")),
             _fmt_ms(g("remember", "memware", "median_ms")), rt("remember_ratio", 0),
             f"≤ 50 ms{mark('remember_ms')}"),
            ("`--help`", _fmt_ms(g("help", "mem", "median_ms")), _fmt_ms(g("help", "memware", "median_ms")),
             rt("help_ratio", 0), f"≤ 40 ms{mark('help_ms')}"),
            ("`get`, new process", _fmt_ms(g("get", "mem", "median_ms")), "—", "", f"≤ 40 ms{mark('get_ms')}"),
        ]
    if "keys" in results:
        k = results["keys"]
        label = f"{k['keys']:,} keys × {k['versions']}"
        rows += [
            (f"`mem get`, {label}", _fmt_ms(k["get"]["median_ms"]), "—", "", f"≤ 40 ms{mark('keys_get_ms')}"),
            (f"`mem log`, {label}", _fmt_ms(k["log"]["median_ms"]), "—", "", f"≤ 60 ms{mark('log_ms')}"),
            (f"`mem remember`, {label}", _fmt_ms(k["remember"]["median_ms"]), "—", "",
             "≤ 50 ms" + (" ✓" if k["remember"]["median_ms"] <= TARGETS["remember_ms"] else " ✗")),
        ]
    out = []
    if rows:
        out += ["| what | mem | memware 0.11 | mem / memware | target |", "|---|---|---|---|---|"]
        out += [f"| {' | '.join(row)} |" for row in rows]
    if "helper" in results:
        h = results["helper"]
        out += ["", "| new process | without helper: wall / CPU median | with helper: wall / client CPU median "
                "| helper CPU per request | target |", "|---|---|---|---|---|"]
        for name, target in (("get", 40), ("recall", 50), ("hook", 60), ("remember", 50)):
            if name in h:
                a, b = h[name]["without"], h[name]["with"]
                out.append(f"| {name} | {a['median_ms']:.0f} / {a['cpu_median_ms']:.0f} ms | {b['median_ms']:.0f} / "
                           f"{b['cpu_median_ms']:.0f} ms | {h[name]['helper_cpu_per_request_ms']:.0f} ms | "
                           f"≤ {target} ms |")
    if "scale" in results:
        s = results["scale"]
        out += ["", f"| scale check ({s['turns']:,} turns) | turns | import wall | peak RSS | store | "
                "`mem search` median |", "|---|---|---|---|---|---|"]
        for name, p in s["points"].items():
            out.append(f"| measured ({name}) | {p['turns']:,} | {p['import_wall_s']:.0f} s | "
                       f"{p['import_peak_rss_mb']:.0f} MB | {_fmt_mb(p['store_bytes'])} | "
                       f"{p['search']['median_ms']:.0f} ms |")
        if "extrapolated_1m" in s:
            e = s["extrapolated_1m"]
            out.append(f"| **extrapolated** to 1M ({e['method']}) | 1,000,000 | {e['import_wall_s']:.0f} s | "
                       f"{e['import_peak_rss_mb']:.0f} MB | {_fmt_mb(e['store_bytes'])} | "
                       f"{e['search_median_ms']:.0f} ms |")
    return "\n".join(out) + "\n"


def _s(x):
    return "—" if x is None else f"{x:.2f} s"


def _mb(x):
    return "—" if x is None else f"{x:.0f} MB"


def _n(x):
    return "—" if x is None else f"{x:,}"


# -- main -----------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, help="an existing gen_corpus.py output (default: generate one)")
    ap.add_argument("--sessions", type=int, default=300, help="sessions of a generated corpus (default 300)")
    ap.add_argument("--turns", type=int, default=18099, help="turns of a generated corpus (default 18099)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "mem-bench",
                    help="scratch directory for stores, homes and results (default /tmp/mem-bench)")
    ap.add_argument("--out", type=Path, help="results JSON (default WORK/results.json)")
    ap.add_argument("--md", type=Path, help="also write the Markdown table here")
    ap.add_argument("--mem", help="how to run mem (default: the mem script beside this Python)")
    ap.add_argument("--mem-rev", metavar="REV",
                    help="measure the commit REV (e.g. HEAD), or 'worktree' for a copy of the working tree "
                         "taken at the start, installed as pip would into WORK/mem-venv: edits made during the "
                         "run cannot change what is measured")
    ap.add_argument("--no-peer", action="store_true", help="measure mem only")
    ap.add_argument("--peer-venv", type=Path, default=Path("/tmp/bench-venv"),
                    help="virtualenv holding memware (created with pip when missing)")
    ap.add_argument("--no-install-peer", action="store_true", help="fail instead of installing memware")
    ap.add_argument("--runs", type=int, default=15, help="samples per latency figure (default 15)")
    ap.add_argument("--pack-codec", choices=("deflate", "zstd"), default="deflate",
                    help="the mem stores' store.pack_codec (default deflate, pack version 6, a store's default; "
                         "zstd: version 7, smaller, needs pip install 'memvcs[zstd]')")
    ap.add_argument("--import-runs", type=int, default=3, help="imports per tool; the median is kept (default 3)")
    ap.add_argument("--resync-runs", type=int, default=5, help="re-syncs per tool (default 5)")
    ap.add_argument("--keys", type=int, default=100_000,
                    help="keys in the get/log store (default 100000; 0 skips that store)")
    ap.add_argument("--one-new-runs", type=int, default=3,
                    help="runs of the one-new-session catch-up check (default 3; 0 skips it)")
    ap.add_argument("--versions", type=int, default=5, help="versions per key (default 5)")
    ap.add_argument("--fsck-keys", action="store_true", help="run mem fsck on the key store too")
    ap.add_argument("--reuse-scale-stores", action="store_true",
                    help="with --scale: keep stores an earlier run imported with the same sources "
                         "(re-measures search only)")
    ap.add_argument("--helper", action="store_true",
                    help="also measure get/recall/hook/remember with the store's resident helper (mem helper)")
    ap.add_argument("--scale", metavar="TURNS",
                    help="opt-in: the scale check at TURNS (1m; below 1M it extrapolates), instead of the comparison")
    args = ap.parse_args(argv)
    if args.runs < 1 or args.import_runs < 1 or args.resync_runs < 1 or args.keys < 0 or args.versions < 1:
        ap.error("counts must be at least 1")
    args.work = args.work.resolve()
    prepare_work(args.work)
    # Both tools run with a warm bytecode cache, as after a pip install. An
    # environment with PYTHONDONTWRITEBYTECODE=1 would make mem (an editable
    # checkout without __pycache__) compile its sources on every start, about
    # 35 ms, while memware's site-packages has its .pyc files from pip.
    base_env = {k: v for k, v in os.environ.items()
                if not k.startswith(("MEM_", "MEMWARE_", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"))}
    home = args.work / "home"
    home.mkdir(exist_ok=True)
    base_env.update({"HOME": str(home), "NO_COLOR": "1", "MEM_LOCK_TIMEOUT": "60", "MEM_NO_HELPER": "1",
                     "PYTHONPYCACHEPREFIX": str(args.work / "pycache")})
    args.mem_src = REPO
    runner = Runner(args.work / "scratch", base_env)
    if args.mem_rev:
        args.mem_src = export_rev(args.mem_rev, args.work / "mem-src")
        mem = install_snapshot(args.mem_src, args.work / "mem-venv")
    else:
        mem = mem_command(args.mem)
    started = dt.datetime.now(dt.timezone.utc)
    meta = {"date": started.strftime("%Y-%m-%d %H:%M UTC"), "machine": machine(),
            "mem_rev": git_rev(args.mem_rev) if args.mem_rev not in (None, "worktree") else git_rev(),
            "mem_cmd": shlex.join(mem), "argv": shlex.join(["python", "bench/run.py", *(argv or sys.argv[1:])])}
    if args.scale:
        results = {"schema": 1, "scale": measure_scale(args, runner, mem)}
    else:
        mw = None
        if not args.no_peer:
            mw = ensure_memware(runner, args.peer_venv, not args.no_install_peer)
            meta["memware"] = runner.run(mw + ["--version"])["stdout"].strip()
        results = measure_main(args, runner, mem, mw)
    if args.mem_rev:
        meta["mem_src_digest"] = tree_digest(args.mem_src)
    meta["machine"]["loadavg_end"] = list(os.getloadavg())
    meta["wall_s"] = round((dt.datetime.now(dt.timezone.utc) - started).total_seconds(), 1)
    results = {"meta": meta, **results}
    out = args.out or args.work / "results.json"
    out.write_text(json.dumps(results, indent=2) + "\n")
    table = markdown(results)
    if args.md:
        args.md.write_text(table)
    print(table)
    print(f"results: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
