"""fresh40 F9: ``mem forget --match`` said "the agent's own transcript files
still hold the text" without looking: after a prompt captured from a
transcript that does not exist, ``mem scan`` right after found the text
nowhere.  The note is now said only when a captured transcript holds the
text (and the scrub then finds it there)."""

from __future__ import annotations

from tests.derive._util import transcript

PERSON = {"MEM_AGENT": "0"}


def test_the_sources_note_is_said_only_when_a_transcript_holds_the_text(mem, tmp_path):
    h = ["--home", str(tmp_path / "s")]
    t = tmp_path / "t" / "s1.jsonl"
    transcript(t, "s1", [("user", "the staging box is marmoset-omega-77 now"), ("assistant", "noted")])
    mem(*h, "import", "claude-code", str(t), env=PERSON)
    r = mem(*h, "forget", "--match", "marmoset-omega-77", "--yes", env=PERSON)
    assert "transcript files still hold the text" in r.stderr, r.stderr
    t.unlink()
    transcript(tmp_path / "t" / "s2.jsonl", "s2", [("user", "the cache is kestrel-lake-12"), ("assistant", "ok")])
    mem(*h, "import", "claude-code", str(tmp_path / "t" / "s2.jsonl"), env=PERSON)
    (tmp_path / "t" / "s2.jsonl").write_text("")        # the agent's file no longer holds it
    r = mem(*h, "forget", "--match", "kestrel-lake-12", "--yes", env=PERSON)
    assert "forgot" in r.stdout and "transcript files still hold" not in r.stderr, (r.stdout, r.stderr)
    assert mem(*h, "scan", "kestrel-lake-12", "--no-remotes", env=PERSON).stdout.startswith("found nowhere")
