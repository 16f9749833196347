"""A captured turn keeps at most MAX_TURN_CHARS characters (head and tail
around a "[… N characters cut …]" line), whichever path writes it: ``mem
import`` (its parse worker) and the hooks' sync agree, so the same turn is
stored once.  Before, a 20 MB paste was stored whole (remember caps a value
at 100,000)."""

from __future__ import annotations

import re

from objstore.memory.sessions import MAX_TURN_CHARS, cap_turn_text
from tests.hooks._util import asst, line, payload, run_hook_done, text, turns, user

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
_MARK = re.compile(r"\n\[… (\d+) characters cut …\]\n")


def test_cap_keeps_head_and_tail_and_is_stable():
    assert cap_turn_text("short") == "short"
    exact = "x" * MAX_TURN_CHARS
    assert cap_turn_text(exact) is exact
    words = " ".join(f"w{i}" for i in range(200_000))
    out = cap_turn_text(words)
    assert len(out) <= MAX_TURN_CHARS and cap_turn_text(out) == out
    m = _MARK.search(out)
    head, tail = out[:m.start()], out[m.end():]
    assert words.startswith(head) and words.endswith(tail)
    assert len(head) + int(m.group(1)) + len(tail) == len(words)         # N: exactly what is left out
    assert not head.endswith(" ") and " " not in tail[:1]                # cut on white space: no split word
    assert head.split()[-1] in words.split() and tail.split()[0] in words.split()
    blob = "z" * (3 * MAX_TURN_CHARS)                                    # no white space: cut where it falls
    assert len(cap_turn_text(blob)) <= MAX_TURN_CHARS


def test_import_and_hook_store_the_same_capped_turn_once(tmp_path, invoke, store_path):
    big = "start of the paste " + " ".join(["filler"] * 30_000) + " MIDDLEWORD " + \
          " ".join(["filler"] * 30_000) + f" deploy token {TOKEN} end of the paste"
    t = tmp_path / "S1.jsonl"
    t.write_bytes(line(user("u1", big)) + line(asst("a1", "m1", [text("noted")])))
    invoke("import", "claude-code", str(t))
    got = [x for x in turns(store_path) if x[2] == "user"]
    assert len(got) == 1
    stored = got[0][3]
    assert len(stored) <= MAX_TURN_CHARS and _MARK.search(stored)
    assert stored.startswith("start of the paste") and stored.endswith("end of the paste")
    assert "MIDDLEWORD" not in stored and TOKEN not in stored and "[REDACTED" in stored
    rc, _out, _err, _s = run_hook_done(store_path, payload("Stop", "S1", t))
    assert rc == 0
    assert [x[3] for x in turns(store_path) if x[2] == "user"] == [stored]    # the hook's sync adds nothing
    r = invoke("import", "claude-code", str(t))
    assert "0 new turns" in r.stdout or "no new" in r.stdout, r.stdout


# red18: the cap cuts where no credential is split (redact.redact_cut, as every cut of captured text)
GHP = "ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9"
AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9wPLmKEY"


def _minified(n: int, start: int) -> str:
    """``n`` characters of minified JSON (no blank in it: the old cap cut where 256 characters held none)."""
    out, i = [], start
    while sum(map(len, out)) < n:
        out.append(f'"k{i}":"v{i}",')
        i += 1
    return "".join(out)[:n]


def _pieces(text: str) -> list[str]:
    """Every 6-character piece of a secret value that ``text`` holds."""
    return [v[i:i + 6] for v in (GHP[4:], AWS) for i in range(len(v) - 5) if v[i:i + 6] in text]


def test_a_credential_crossing_either_cut_leaves_no_part(tmp_path, invoke, store_path):
    from objstore.memory.sessions import _CAP_HEAD, _CAP_TAIL
    head_token = f'"token":"{GHP}",'
    before = _minified(_CAP_HEAD - 20, 0)                    # the head's cut falls 20 characters into the token
    middle = _minified(150_000, 10_000)
    secret = f'"aws_secret_access_key":"{AWS}",'
    after = _minified(_CAP_TAIL - 30, 90_000)                # the tail's start falls inside the key's value
    big = "{" + before[1:] + head_token + middle + secret + after + "}"
    assert big.index(GHP) < _CAP_HEAD < big.index(GHP) + len(GHP)
    tail_start = len(big) - _CAP_TAIL
    assert big.index(AWS) < tail_start < big.index(AWS) + len(AWS)
    capped = cap_turn_text(big)
    assert _pieces(capped) == [] and len(capped) <= MAX_TURN_CHARS and cap_turn_text(capped) == capped
    m = _MARK.search(capped)
    head, tail = capped[:m.start()], capped[m.end():]
    assert big.startswith(head) and big.endswith(tail) and len(head) + int(m.group(1)) + len(tail) == len(big)
    assert len(head) > _CAP_HEAD - 300 and len(tail) > _CAP_TAIL - 300    # only the credential and its word go
    # a real import of the turn (the parse worker caps it, the writer redacts): no part of either value
    t = tmp_path / "S1.jsonl"
    t.write_bytes(line(user("u1", big)) + line(asst("a1", "m1", [text("noted")])))
    invoke("import", "claude-code", str(t))
    stored = [x[3] for x in turns(store_path) if x[2] == "user"]
    assert len(stored) == 1 and _MARK.search(stored[0]) and _pieces(stored[0]) == [], _pieces(stored[0])
