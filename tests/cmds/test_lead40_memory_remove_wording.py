"""fresh40 F15: ``mem memory remove memory "Deploys"`` (a part of an entry)
said "memory.md has no entry 'Deploys' (it changed since)" although nothing
had changed.  It now says no entry is exactly that text and names the
entry that holds it; nothing is written either way."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_a_part_of_an_entry_is_refused_naming_the_entry(mem, tmp_path):
    h = ["--home", str(tmp_path / "s")]
    mem(*h, "memory", "add", "memory", "Deploys happen on Fridays only.", env=PERSON)
    before = mem(*h, "memory", "show", "memory", env=PERSON).stdout
    r = mem(*h, "memory", "remove", "memory", "Deploys", exit_code=6, env=PERSON)
    assert "no entry that is exactly 'Deploys'" in r.stderr and "changed since" not in r.stderr, r.stderr
    assert "'Deploys happen on Fridays only.'" in r.stderr, r.stderr
    r = mem(*h, "memory", "replace", "memory", "nonexistent text", "y", exit_code=6, env=PERSON)
    assert "mem memory show memory" in r.stderr, r.stderr
    assert mem(*h, "memory", "show", "memory", env=PERSON).stdout == before
