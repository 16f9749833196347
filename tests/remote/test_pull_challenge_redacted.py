"""A pull parks another machine's lower-trust version that overrules a
user_stated one as a review-queue challenge (``remote.merge``).  That item
is a new object written here, but it skipped the one redaction every local
proposal gets (``queue.propose``): a version an older mem on the other
machine stored with a credential (fewer rules then) was queued, listed by
``mem queue list`` and pushed on, in the clear.  Now the pull redacts it as
``queue.redact_proposal`` does a local one.  Real ``mem`` processes; the
other machine's old version is written through the store API (no writer of
this mem stores a credential)."""

from __future__ import annotations

from objstore.core.objects import Fact
from objstore.core.refs import fact_ref
from objstore.memory.facts import commit_version
from objstore.memory.opening import open_store

TOKEN = "ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9"
KEY = "project/p/db"


def _old_mem_version(home, body: str, valid_from: int) -> None:
    """A version as a mem with fewer rules wrote it: the body as given, agent_observed."""
    with open_store(home) as s, s.lock("remember"):
        head = s.refs.read(fact_ref(KEY))
        prev = s.get(head, Fact)
        f = prev.replace(body=body, version=prev.version + 1, parent=head, trust="agent_observed",
                         valid_from=valid_from, recorded_at=valid_from)
        new = s.put(f)
        commit_version(s, KEY, head, new, old_chain=[], new_chain=[], command="remember")


def test_a_challenge_a_pull_parks_is_redacted(mem, tmp_path):
    remote, key = tmp_path / "remote", tmp_path / "sync.key"
    remote.mkdir()
    a, b = ["--home", str(tmp_path / "a")], ["--home", str(tmp_path / "b")]
    person = {"MEM_AGENT": "0", "CLAUDECODE": ""}
    mem(*a, "init")
    mem(*a, "remote", "add", "origin", str(remote))
    mem(*a, "remember", KEY, "Postgres", "--valid-from", "2026-01-01", env=person)
    mem(*a, "push")
    mem(*a, "remote", "key", "export", "-o", str(key))
    mem(*b, "clone", str(remote), "--key", str(key))
    mem(*a, "remember", KEY, "MySQL (user)", "--valid-from", "2026-02-01", env=person)
    _old_mem_version(tmp_path / "b", f"SQLite, the token is {TOKEN}", 1_780_000_000_000)
    mem(*b, "push")
    mem(*a, "push")
    mem(*a, "pull")
    q = mem(*a, "queue", "list", "--json").json
    assert [x["body"] for x in q] == ["SQLite, the token is [REDACTED:github-token]"], q
    assert mem(*a, "get", KEY).stdout.strip() == "MySQL (user)"
    assert "Q9w2" not in mem(*a, "queue", "list").stdout
