"""Issue 13's acceptance: machine A imports the shared transcripts and writes
facts; B clones from an S3 remote on loopback (moto); ``mem log``,
``mem sessions`` and ``mem search`` give the same results on both."""

from __future__ import annotations

from tests.conftest import shared_path
from tests.remote.conftest import S3_ENV, make_bucket


def test_clone_from_s3_gives_the_same_answers(invoke, tmp_path, monkeypatch, moto_endpoint):
    src = shared_path("data", "transcripts", "claude-code-log", "projects")
    for k, v in S3_ENV.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_endpoint)
    url = f"s3://{make_bucket(moto_endpoint)}/team/mem"
    a = ["--home", str(tmp_path / "a")]
    b = ["--home", str(tmp_path / "b")]
    invoke(*a, "import", "claude-code", str(src))
    invoke(*a, "remember", "project/acme/db", "Postgres 16 on port 5433")
    invoke(*a, "remember", "project/acme/db", "Postgres 17 on port 5434")
    invoke(*a, "remember", "user/editor", "helix")
    invoke(*a, "remote", "add", "origin", url)
    sent = invoke(*a, "push", "--json").json
    assert sent["objects_sent"] > 100
    invoke(*a, "remote", "key", "export", "-o", str(tmp_path / "sync.key"))
    got = invoke(*b, "clone", url, "--key", str(tmp_path / "sync.key"), "--json").json
    assert got["objects_received"] == sent["objects_sent"]
    for args in (["log", "project/acme/db", "--json"], ["sessions", "--json"], ["keys", "--json"],
                 ["search", "error", "--json"], ["search", "test", "--json"], ["search", "Postgres", "--json"]):
        assert invoke(*a, *args).stdout == invoke(*b, *args).stdout, args
    assert "ok" in invoke(*b, "fsck").stdout
