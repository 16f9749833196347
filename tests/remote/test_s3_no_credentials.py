"""`mem push` to S3 with no AWS credentials at all says none were found and
where they are looked for, not that the service refused them (test32 X7)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.remote.conftest import make_bucket

REPO = Path(__file__).resolve().parents[2]


def _mem(*args, env):
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, env=env,
                          timeout=180, cwd=REPO)


def test_push_without_any_credentials_says_none_were_found(mem, store_path, moto_endpoint):
    bucket = make_bucket(moto_endpoint)
    mem("remember", "user/editor", "helix")
    mem("remote", "add", "s3r", f"s3://{bucket}/mem", "--endpoint", moto_endpoint)
    bare = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    bare["HOME"] = str(store_path.parent / "no-aws-home")   # no ~/.aws either
    r = _mem("push", "s3r", env=bare)
    assert r.returncode == 15, r.stderr
    assert f"no AWS credentials found for s3://{bucket}/mem" in r.stderr
    assert "AWS_ACCESS_KEY_ID" in r.stderr and "AWS_PROFILE" in r.stderr
    assert "refused" not in r.stderr
