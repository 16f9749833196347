"""Remotes under test: a folder, and a real S3 protocol server (moto's
ThreadedMotoServer) started here on 127.0.0.1."""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass

import pytest

_counter = itertools.count()
S3_ENV = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"}


@pytest.fixture(scope="session")
def moto_endpoint():
    """One moto S3 server on a free loopback port for the whole run."""
    pytest.importorskip("obstore")
    moto_server = pytest.importorskip("moto.server")
    srv = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    srv.start()
    host, port = srv.get_host_and_port()
    yield f"http://{host}:{port}"
    srv.stop()


def make_bucket(endpoint: str) -> str:
    import boto3
    name = f"mem-{os.getpid()}-{next(_counter)}"
    boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="testing", aws_secret_access_key="testing",
                 region_name="us-east-1").create_bucket(Bucket=name)
    return name


@dataclass
class RemoteTarget:
    kind: str
    url: str
    endpoint: str | None
    env: dict


@pytest.fixture(params=["folder", "s3"])
def target(request, tmp_path):
    """A fresh, empty remote: a folder, or a bucket on the moto server."""
    if request.param == "folder":
        (tmp_path / "remote").mkdir()       # a folder remote must exist, as a bucket must
        return RemoteTarget("folder", str(tmp_path / "remote"), None, {})
    ep = request.getfixturevalue("moto_endpoint")
    return RemoteTarget("s3", f"s3://{make_bucket(ep)}/mem", ep, dict(S3_ENV))


@pytest.fixture
def folder_target(tmp_path):
    (tmp_path / "remote").mkdir()
    return RemoteTarget("folder", str(tmp_path / "remote"), None, {})


class Machine:
    """A store in its own home, with ``origin`` set to the target."""

    def __init__(self, root, target: RemoteTarget, *, encrypt: bool = True) -> None:
        from objstore import open_store, add_remote
        self.target = target
        self.root = root
        self.store = open_store(root, create=True)
        self.spec = add_remote(self.store, "origin", target.url, endpoint=target.endpoint, encrypt=encrypt)

    def push(self, **kw):
        from objstore import push
        return push(self.store, self.spec, env=self.target.env, **kw)

    def pull(self):
        from objstore import pull
        return pull(self.store, self.spec, env=self.target.env)

    def key(self) -> str:
        from objstore import export_sync_key
        return export_sync_key(self.store)

    def close(self):
        self.store.close()


@pytest.fixture
def machines(tmp_path, target):
    """``machines(n)``: the first store of ``n`` made fresh, the others
    cloned once the first has pushed (the caller pushes first)."""
    made: list[Machine] = []

    def make(name: str, *, clone_from: Machine | None = None, encrypt: bool = True) -> Machine:
        if clone_from is not None:
            from objstore import open_store, clone
            st, _res = clone(tmp_path / name, target.url, endpoint=target.endpoint, key=clone_from.key()
                             if encrypt else None, encrypt=encrypt, env=target.env)
            m = Machine.__new__(Machine)
            m.target, m.root, m.store = target, tmp_path / name, st
            from objstore import get_remote
            m.spec = get_remote(st, "origin")
        else:
            m = Machine(tmp_path / name, target, encrypt=encrypt)
        made.append(m)
        return m
    yield make
    for m in made:
        m.close()
