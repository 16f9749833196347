"""A version forget (``mem forget KEY@vN``, tombstone reason
``version:<ms>``) is of that key's version alone: an agent may still
write the same text under another key (it may be live there, as the
forget left it), while under the forgotten version's own key it is
refused until a person writes it (test29's helper)."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
AGENT = {"MEM_AGENT": "claude"}


def test_a_version_forget_refuses_its_value_under_its_key_only(mem):
    mem("init")
    mem("remember", "project/a/db", "postgres on db-7", env=PERSON)
    mem("remember", "project/a/db", "postgres on db-9", env=PERSON)
    mem("remember", "project/b/db", "postgres on db-7", env=PERSON)   # the same text, live under b
    mem("forget", "project/a/db@v1", "--yes", env=PERSON)
    assert mem("get", "project/b/db").stdout.strip() == "postgres on db-7"
    r = mem("remember", "project/c/db", "postgres on db-7", env=AGENT)
    assert "wrote project/c/db v1" in r.stdout
    assert mem("get", "project/c/db").stdout.strip() == "postgres on db-7"
    r = mem("remember", "project/a/db", "postgres on db-7", env=AGENT, exit_code=6)
    assert "forgotten or rejected" in r.stderr
    assert mem("get", "project/a/db").stdout.strip() == "postgres on db-9"
    # a whole key's forget still refuses its value under any other key
    mem("remember", "project/d/token", "the deploy phrase is ochre-lantern-42", env=PERSON)
    mem("forget", "project/d/token", "--yes", env=PERSON)
    r = mem("remember", "project/e/token", "the deploy phrase is ochre-lantern-42", env=AGENT, exit_code=6)
    assert "under another key" in r.stderr


def test_forgetting_the_current_version_says_which_value_is_current_now(mem):
    """test30 R10: the preview and the result line both say that the older
    value is current again (a forget of the newest version revives it)."""
    mem("init")
    mem("remember", "project/x/db", "Postgres on port 5432", env=PERSON)
    mem("remember", "project/x/db", "Postgres on port 6543", env=PERSON)
    r = mem("forget", "project/x/db@v2", "--yes", env=PERSON)
    assert "v1 becomes current again: Postgres on port 5432" in r.stdout
    assert "project/x/db: v1 is current now: Postgres on port 5432" in r.stdout
    mem("remember", "project/x/db", "Postgres on port 7000", env=PERSON)
    r = mem("forget", "project/x/db@v1", "--yes", env=PERSON)        # not the current one: nothing to say
    assert "current" not in r.stdout
