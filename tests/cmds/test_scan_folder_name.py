"""``mem scan`` after ``forget --match --scrub-sources`` (test28 Y3): the
transcripts are scrubbed, but Claude Code named the project's folder after
the working directory, and that name holds the text.  The scan names the
folder (no false all-clear, exit 1) and says mem cannot rename it; a text
no name holds is not reported so.  Real files, real ``mem`` processes."""

from __future__ import annotations

from tests.hooks._util import asst, line, text, user

SID = "5d1e6f0a-0000-4000-8000-00000000d1e5"
CODE = "vermilion-otter-5521"


def test_a_transcript_folder_named_for_the_text_is_named(tmp_path, mem):
    folder = tmp_path / "projects" / f"-home-dev-{CODE}-shop"
    folder.mkdir(parents=True)
    t = folder / f"{SID}.jsonl"
    t.write_bytes(line(user("u1", f"the {CODE} box runs the shop", SID, cwd=f"/home/dev/{CODE}/shop"))
                  + line(asst("a1", "m1", [text("noted")], SID)))
    mem("import", "claude-code", str(tmp_path / "projects"))
    mem("forget", "--match", CODE, "--scrub-sources", "--yes")
    assert CODE.encode() not in t.read_bytes()
    r = mem("scan", CODE, "--no-remotes", "--json", exit_code=1)
    got = [h for h in r.json if h["place"] == "transcript"]
    assert [h["where"] for h in got] == [str(folder)], r.json
    assert "mem cannot rename it" in got[0]["detail"]
    r = mem("scan", "shop box runs", "--no-remotes", "--json", exit_code=None)
    assert not [h for h in (r.json if r.stdout.strip() else []) if "its name holds it" in h["detail"]]


def test_the_folder_is_named_in_claude_codes_spelling_of_the_text(tmp_path, mem):
    """test28b Z6: a cwd "/home/dev/Zeb Quill/shop" is the folder
    "-home-dev-Zeb-Quill-shop" (every character but a letter or digit is
    '-'): a scan for "Zeb Quill" names it."""
    folder = tmp_path / "projects" / "-home-dev-Zeb-Quill-shop"
    folder.mkdir(parents=True)
    t = folder / f"{SID}.jsonl"
    t.write_bytes(line(user("u1", "Zeb Quill owns the shop box", SID, cwd="/home/dev/Zeb Quill/shop"))
                  + line(asst("a1", "m1", [text("noted")], SID)))
    mem("import", "claude-code", str(tmp_path / "projects"))
    mem("forget", "--match", "Zeb Quill", "--scrub-sources", "--yes")
    r = mem("scan", "Zeb Quill", "--no-remotes", "--json", exit_code=1)
    assert str(folder) in [h["where"] for h in r.json if h["place"] == "transcript"], r.json
