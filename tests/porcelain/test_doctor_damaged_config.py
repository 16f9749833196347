"""``mem doctor`` on a store whose ``config`` is garbage or missing exited 13
with the open's error and ran no check (session 19's tester): diagnosing a
damaged store is doctor's job.  Now it reports the config as a finding
(check ``store``, fix ``mem fsck --repair``), runs the checks that need no
open store, and exits 1 ("a problem was found", docs/exit-codes.md)."""

from __future__ import annotations

import os


def test_doctor_reports_a_garbage_config_and_goes_on(mem, store_path):
    mem("remember", "project/api/db", "Postgres 16 on port 5433")
    (store_path / "config").write_bytes(os.urandom(200))
    (store_path / "config.toml").write_bytes(b"\xff\xfe not toml")   # another check's finding
    mem("get", "project/api/db", exit_code=13)                  # every other command refuses
    r = mem("doctor", exit_code=1)
    assert "Traceback" not in r.stderr + r.stdout
    assert f"error: [store] {store_path}/config is not a mem store config" in r.stdout
    assert "fix: mem fsck --repair" in r.stdout
    assert "[config]" in r.stdout and "config.toml" in r.stdout   # doctor went on with the other checks
    j = mem("doctor", "--json", exit_code=1).json
    assert j["ok"] is False
    checks = {f["check"]: f for f in j["findings"]}
    assert checks["store"]["severity"] == "error" and "fsck --repair" in checks["store"]["fix"]
    assert "config" in checks and "hooks" in checks
    # the fix it names works, and doctor then reads the store again
    mem("fsck", "--repair")
    again = mem("doctor", "--json", exit_code=None).json
    assert "store" not in {f["check"] for f in again["findings"]}
    assert mem("get", "project/api/db").stdout.strip() == "Postgres 16 on port 5433"


def test_doctor_reports_a_missing_config(mem, store_path):
    mem("remember", "project/api/db", "Postgres 16 on port 5433")
    (store_path / "config").unlink()
    r = mem("doctor", exit_code=1)
    assert "config is missing" in r.stdout and "mem fsck --repair" in r.stdout


def test_doctor_with_no_store_still_exits_10(mem):
    mem("doctor", exit_code=10)
