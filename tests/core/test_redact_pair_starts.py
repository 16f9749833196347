"""The 'user / password' pair rules (``passwords._PAIR_STARTS``) are tried
only where one of their starts begins: the stdlib prefilter's coarse
literals (``log``, ``sign``, ``cred``, ``user``) find where to look, and a
window holding none of the starts compiles no pattern.  A session block
checks the names of the memory files (``user/memory/soul.md``, …): each of
the three rules' patterns cost ~1 ms to compile there, for nothing
(session 27, lat27).  The matches are the same as trying every start."""

import os
import random
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = r"""
import objstore.core.redact as r
from objstore.core.redact.passwords import _PAIR_STARTS
pair = [x for x in r.RULES if x.anchors == _PAIR_STARTS]
for name in ("user/memory/soul.md", "user/memory/memory.md", "user/editor", "user: ana"):
    assert r.redact(name).text == name
print(len(pair), sum(x._lowered is not None for x in pair))
print(r.redact("login admin / Pw!2024x").text)
print(sum(x._lowered is not None for x in pair))
"""


def test_a_name_with_no_pair_start_compiles_no_pair_rule():
    p = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONPATH": str(REPO)})
    lines = p.stdout.splitlines()
    assert lines[0] == "3 0"              # three pair rules, none compiled by the names
    assert "Pw!2024x" not in lines[1] and "[REDACTED:password-phrase]" in lines[1]
    assert lines[2] != "0"                 # a text with a start compiles and runs them


def _spans(scan, rule, text):
    from objstore.core.redact import prefilter
    out: list = []
    scan(rule, text, 0, len(text), out, prefilter.lower(text), 0, None)
    return sorted(out)


def test_the_coarse_scan_finds_what_trying_every_start_finds():
    from objstore.core.redact import RULES
    from objstore.core.redact.passwords import _PAIR_COARSE, _PAIR_STARTS
    from objstore.core.redact.scanners import scan_at
    old_starts = tuple(s for s in _PAIR_STARTS if not s.startswith("user")) + ("user/", "user /", "username")
    coarse, exact, old = (scan_at(*_PAIR_STARTS, coarse=_PAIR_COARSE), scan_at(*_PAIR_STARTS),
                          scan_at(*old_starts))
    rules = [x for x in RULES if x.anchors == _PAIR_STARTS]
    bits = ["login", "Log in", "log-in", "logon", "sign in", "signin", "Sign-in", "creds", "credentials", "cred",
            "user", "user/", "User/Pass", "user / pass", "username/password", "Username / Password",
            "user/password", "users", " ", " ", ": ", " as ", " with ", " using ", " / ", "/", ":", "admin",
            "ana.b", "Pw!2024x", "hunter2x9", "Tr0ub4dor&3", "the", "and", "password", ".", "\n", "'"]
    rng = random.Random(27)
    found = 0
    for _ in range(3000):
        text = "".join(rng.choice(bits) for _ in range(rng.randint(1, 14)))
        for rule in rules:
            got = _spans(coarse, rule, text)
            assert got == _spans(exact, rule, text) == _spans(old, rule, text), (rule.regex[:40], text)
            found += bool(got)
    assert found > 20   # the texts do hold pairs (37 with this seed)
