"""bench/run.py: on a tiny corpus, mem only, the benchmark runs end to end and
writes a results JSON whose figures are real (imports add turns, a re-sync
adds none, every needle comes back first, the key store's log lists every
version and passes fsck), and the opt-in scale mode extrapolates to 1M."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RUN = REPO / "bench" / "run.py"


def bench(work: Path, *args: str, timeout: float = 240) -> dict:
    r = subprocess.run([sys.executable, str(RUN), "--work", str(work), "--no-peer", *args],
                       capture_output=True, text=True, timeout=timeout, cwd=REPO)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "| what |" in r.stdout or "scale check" in r.stdout  # the Markdown table
    return json.loads((work / "results.json").read_text())


def test_tiny_run_produces_the_results_json(tmp_path):
    t0 = time.monotonic()
    res = bench(tmp_path / "w", "--sessions", "3", "--turns", "60", "--keys", "150", "--versions", "3",
                "--runs", "2", "--import-runs", "1", "--resync-runs", "1", "--fsck-keys", "--one-new-runs", "1",
                "--md", str(tmp_path / "table.md"))
    assert time.monotonic() - t0 < 120
    assert {"meta", "corpus", "import", "store", "resync", "search", "recall", "hook", "remember", "help", "get",
            "one_new", "keys", "ratios", "targets"} <= res.keys()
    assert res["meta"]["machine"]["cores"] >= 1 and res["meta"]["date"]
    assert res["corpus"]["turns"] == 60 and res["corpus"]["bytes"] > 0
    imp = res["import"]["mem"]
    assert imp["wall_s"] > 0 and imp["peak_rss_mb"] > 5 and imp["turns_indexed"] > 60
    assert imp["lines_skipped"] == 0 and imp["index_error"] is None
    assert "memware" not in res["import"] and set(res["ratios"]) == {"one_new_ratio"}  # mem against itself only
    assert res["store"]["mem"]["bytes"] > 0 and "objects" in res["store"]["mem"]["parts"]
    assert res["resync"]["mem"]["added"] == 0
    s = res["search"]["mem"]
    assert s["n"] >= 2 and s["median_ms"] > 0
    assert s["needles_top1"] == s["samples"] == max(2, res["search"]["queries"])
    for name in ("recall", "hook", "remember", "help", "get"):
        assert res[name]["mem"]["median_ms"] > 0 and res[name]["mem"]["n"] == 2
    assert res["one_new"]["files"] == 1 and res["one_new"]["added"][0] > 0
    k = res["keys"]
    assert (k["keys"], k["versions"], k["objects"]) == (150, 3, 450)
    assert k["log_versions_seen"] == 3 and k["fsck_rc"] == 0
    assert all(k[c]["median_ms"] > 0 for c in ("get", "log", "remember"))
    for name in ("get_ms", "keys_get_ms", "log_ms", "recall_ms", "hook_ms", "remember_ms", "help_ms", "one_new_ratio"):
        assert res["targets"][name]["value"] is not None and isinstance(res["targets"][name]["met"], bool)
    assert res["targets"]["import_wall_ratio"]["met"] is None  # no peer, no ratio
    assert (tmp_path / "table.md").read_text().startswith("| what | mem | memware 0.11 |")


def test_scale_mode_extrapolates_to_1m(tmp_path):
    res = bench(tmp_path / "w", "--scale", "400", "--runs", "2")
    s = res["scale"]
    assert s["turns"] == 400 and not s["measured_at_1m"]
    assert s["points"]["quarter"]["turns"] == 100 and s["points"]["full"]["turns"] == 400
    for p in s["points"].values():
        assert p["import_peak_rss_mb"] > 5 and p["turns_indexed"] > p["turns"] and p["store_bytes"] > 0
        assert p["search"]["needles_top1"] == p["search"]["n"]
    e = s["extrapolated_1m"]
    assert "linear" in e["method"] and e["import_wall_s"] > 0 and e["import_peak_rss_mb"] > 0
    assert set(s["targets"]) == {"scale_rss_mb", "scale_search_ms"}


def test_refuses_a_work_dir_it_did_not_make(tmp_path):
    work = tmp_path / "w"
    work.mkdir()
    (work / "precious.txt").write_text("keep me")
    r = subprocess.run([sys.executable, str(RUN), "--work", str(work), "--no-peer"],
                       capture_output=True, text=True, timeout=60, cwd=REPO)
    assert r.returncode != 0 and "not empty" in r.stderr
    assert (work / "precious.txt").read_text() == "keep me"


def test_mem_script_is_the_one_pip_installs(tmp_path):
    """The bench runs the `mem` a tree's install has (bench/run.py's
    mem_script): this tree's bin/mem (pyproject's script-files, no
    `import re`), an older tree's pip console script ([project.scripts])."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_run_module", RUN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = mod.mem_script(REPO, "/venv/bin/python")
    assert text.startswith("#!/venv/bin/python\n") and "from cmds.entry import entry" in text
    assert "\nimport re\n" not in text and text.split("\n", 1)[1] == (REPO / "bin" / "mem").read_text().split("\n", 1)[1]
    old = tmp_path / "old"
    old.mkdir()
    (old / "pyproject.toml").write_text('[project]\nname = "memvcs"\n\n[project.scripts]\nmem = "cmds.entry:entry"\n')
    text = mod.mem_script(old, "/venv/bin/python")
    assert text.startswith("#!/venv/bin/python\n") and "\nimport re\n" in text and "sys.exit(entry())" in text


def test_scale_rss_target_is_300_decimal_megabytes():
    """The issue's "a million turns: import peak RSS ≤ 300 MB" is 300,000,000 B
    (292,969 kB); the bench's peaks are ru_maxrss / 1024 (MiB), so a peak of
    293,000 kB (300.03 MB) misses the target and 292,968 kB meets it (scale34:
    the target had been 300 MiB, 307,200 kB)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_run_module", RUN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    target = mod.TARGETS["scale_rss_mb"]
    assert mod._verdict(293_000 / 1024, target)["met"] is False
    assert mod._verdict(292_968 / 1024, target)["met"] is True
