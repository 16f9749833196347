"""A plain ``mem push`` checks the pack it uploaded before the manifest
names it (the size, and the MD5 an S3 etag gives): a truncated upload is
sent again, never published.  Real ``mem`` processes, a folder remote and
moto's S3 server (behind a loopback proxy that cuts the first pack upload
short, as a broken middlebox would)."""

from __future__ import annotations

import http.client
import os
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import REPO

S3_ENV = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"}


def make_bucket(endpoint: str) -> str:
    """A new bucket on the moto server (names of its own: conftest's counter is another module's)."""
    import uuid

    import boto3
    name = f"memverify-{uuid.uuid4().hex[:12]}"
    boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="testing", aws_secret_access_key="testing",
                 region_name="us-east-1").create_bucket(Bucket=name)
    return name


def _mem(home: Path, *args: str, env: dict | None = None, code: int = 0) -> subprocess.CompletedProcess:
    e = {**os.environ, "MEM_HOME": str(home), **(env or {})}
    p = subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, env=e, cwd=REPO,
                       timeout=120)
    assert p.returncode == code, f"mem {' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p


def test_folder_push_replaces_a_truncated_pack_of_the_same_name(tmp_path):
    """An earlier push left packs/<name> cut short (a crash on a synced or
    network folder); the next push makes the same content-named pack: it
    must see the copy is not whole and send it again."""
    a, remote, scratch = tmp_path / "A", tmp_path / "R", tmp_path / "R2"
    remote.mkdir()
    _mem(a, "init")
    _mem(a, "remember", "project/a/one", "first value")
    _mem(a, "remote", "add", "origin", str(remote), "--no-encrypt")
    _mem(a, "push", "origin")
    _mem(a, "remember", "project/a/two", "second value")
    shutil.copytree(remote, scratch)              # the same remote state: the next pack gets the same name
    _mem(a, "remote", "add", "scratch", str(scratch), "--no-encrypt")
    _mem(a, "push", "scratch")
    new = [p for p in (scratch / "packs").iterdir() if not (remote / "packs" / p.name).exists()]
    assert len(new) == 1
    (remote / "packs" / new[0].name).write_bytes(new[0].read_bytes()[:100])
    _mem(a, "push", "origin")
    assert (remote / "packs" / new[0].name).read_bytes() == new[0].read_bytes()
    _mem(tmp_path / "B", "clone", str(remote))
    assert _mem(tmp_path / "B", "get", "project/a/two").stdout == "second value\n"


class _CutFirstPackPut(BaseHTTPRequestHandler):
    """Forwards every request to moto; the first PUT of a pack bundle
    (``/packs/``) reaches moto with only half its body."""

    upstream: tuple[str, int]
    cuts_left = 1
    lock = threading.Lock()
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def _forward(self) -> None:
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        cls = type(self)
        if self.command == "PUT" and "/packs/" in self.path and len(body) > 2:
            with cls.lock:
                if cls.cuts_left > 0:
                    cls.cuts_left -= 1
                    body = body[:len(body) // 2]
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("content-length", "connection")}
        headers["Content-Length"] = str(len(body))
        c = http.client.HTTPConnection(*self.upstream, timeout=30)
        try:
            c.request(self.command, self.path, body=body if (body or self.command in ("PUT", "POST")) else None,
                      headers=headers)
            r = c.getresponse()
            data = r.read()
            self.send_response(r.status)
            for k, v in r.getheaders():
                if k.lower() not in ("content-length", "connection", "transfer-encoding", "server", "date"):
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)) if self.command != "HEAD"
                             else r.getheader("Content-Length", "0"))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        finally:
            c.close()

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward


@pytest.fixture
def cutting_proxy(moto_endpoint):
    host, port = moto_endpoint.removeprefix("http://").split(":")
    handler = type("Cut", (_CutFirstPackPut,), {"upstream": (host, int(port)), "cuts_left": 1,
                                                 "lock": threading.Lock()})
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}", handler
    srv.shutdown()
    srv.server_close()


def test_s3_push_resends_a_pack_the_upload_cut_short(tmp_path, moto_endpoint, cutting_proxy):
    proxy, handler = cutting_proxy
    bucket = make_bucket(moto_endpoint)
    a = tmp_path / "A"
    _mem(a, "init")
    _mem(a, "remember", "project/a/one", "first value " + "x" * 2000)
    _mem(a, "remote", "add", "origin", f"s3://{bucket}/mem", "--endpoint", proxy, env=S3_ENV)
    _mem(a, "push", "origin", env=S3_ENV)
    assert handler.cuts_left == 0                   # the proxy did cut the first pack upload
    _mem(a, "remote", "key", "export", "-o", str(tmp_path / "k.key"), env=S3_ENV)
    b = tmp_path / "B"
    _mem(b, "clone", f"s3://{bucket}/mem", "--endpoint", moto_endpoint, "--key", str(tmp_path / "k.key"),
         env=S3_ENV)
    assert _mem(b, "get", "project/a/one").stdout.startswith("first value x")


def test_s3_push_that_cannot_upload_whole_publishes_nothing(tmp_path, moto_endpoint, cutting_proxy):
    proxy, handler = cutting_proxy
    handler.cuts_left = 10**6                      # every pack upload is cut
    bucket = make_bucket(moto_endpoint)
    a = tmp_path / "A"
    _mem(a, "init")
    _mem(a, "remember", "project/a/one", "first value " + "x" * 2000)
    _mem(a, "remote", "add", "origin", f"s3://{bucket}/mem", "--endpoint", proxy, env=S3_ENV)
    r = _mem(a, "push", "origin", env=S3_ENV, code=15)
    assert "did not arrive whole" in r.stderr and "manifest did not move" in r.stderr
    import boto3
    s3 = boto3.client("s3", endpoint_url=moto_endpoint, aws_access_key_id="testing",
                      aws_secret_access_key="testing", region_name="us-east-1")
    names = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]
    assert not any("/packs/" in n for n in names), names   # the cut copy was deleted, nothing names it
