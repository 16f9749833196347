"""A memory-file proposal holds no credential in the clear (test17 T5): an
agent's ``mem memory add``, ``mem memory propose`` and ``mem import
claude-memory`` queue their entries through the one redaction, so neither
the queue item (an object: gc keeps it, push carries it, ``queue list``
prints it) nor the accepted file holds the credential."""

from __future__ import annotations

import json

AWS_ID = "AKIAQ3EGRT5YHN6PLW2M"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
PW = "Zq7mm9xQ"


def test_proposals_are_queued_redacted_and_nothing_keeps_the_credential(mem, tmp_path):
    claude = tmp_path / "home" / ".claude"
    claude.mkdir(parents=True)
    (claude / "CLAUDE.md").write_text(f"# Memory\n- my aws key is {AWS_ID} secret {AWS_SECRET}\n")

    r = mem("memory", "add", "memory", f"agent says aws {AWS_ID} here", env={"MEM_AGENT": "bot"})
    assert "queued" in r.stdout and "1 credential(s) in the value were replaced" in r.stderr
    r = mem("memory", "propose", "add", "user", f"pw is password: {PW}", "--json")
    assert r.json["redacted"] == 1
    r = mem("import", "claude-memory", "--json")
    assert r.json["proposed"] == 1 and r.json["redacted"] == 2

    listing = mem("queue", "list", "--json").stdout
    for secret in (AWS_ID, AWS_SECRET, PW):
        assert secret not in listing
    assert "[REDACTED:aws-access-key-id]" in listing
    for it in json.loads(listing):
        mem("queue", "accept", it["id"])
    mem("gc", "--prune=now")
    for secret in (AWS_ID, PW, "wJalrXUtnFEMI"):
        assert mem("scan", secret, exit_code=None).exit_code == 0, secret   # 0: found nowhere
    user_md = mem("memory", "show", "user", "--json").json[0]["entries"]
    assert user_md[1] == "my aws key is [REDACTED:aws-access-key-id] secret [REDACTED:aws-secret-access-key]"
    # importing again finds the entry as stored (redacted), so proposes nothing
    r = mem("import", "claude-memory", "--json")
    assert (r.json["proposed"], r.json["present"]) == (0, 1)


def test_an_edit_naming_an_entry_with_its_credential_finds_the_stored_one(mem):
    """The file holds the entry redacted; an OLD typed with the credential
    still names it (the plan is redacted before it is matched), and no
    refusal echoes the credential."""
    mem("memory", "add", "memory", f"deploy with password: {PW}")
    r = mem("memory", "replace", "memory", f"deploy with password: {PW}", "deploy with the vault", "--json")
    assert r.json["chars"] == len("deploy with the vault")
    r = mem("memory", "remove", "memory", f"gone password: {PW}", exit_code=6)
    assert PW not in r.stderr + r.stdout
