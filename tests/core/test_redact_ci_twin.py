"""A case-insensitive rule runs as its case-sensitive twin over the
lowercased text (``Rule.lowered``); its ``re.IGNORECASE`` twin
(``Rule.pattern``) is not compiled only to read the group names
(``Rule.groupindex``; session 26, lat26: ~1.2 ms of a process whose text
holds ``": "``, e.g. a hook's project path ``path:/…`` or a prompt)."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = r"""
import objstore.core.redact as r
out = r.redact("db note: password = Zq7mmKx9pL2 and the path: /srv/app").text
rule = next(x for x in r.RULES if x.name == "generic-secret" and x.scan is None)   # one the engine runs itself
print(out)
print(rule._lowered is not None, rule._pattern is None)
print(sorted(rule.groupindex) == sorted(rule.lowered.groupindex))
print(r.path_holds_credential("path:/tmp/proj"), r.path_holds_credential("path:/tmp/password: Zq7mmKx9pL2"))
"""


def test_a_case_insensitive_rule_compiles_only_the_twin_it_runs():
    p = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONPATH": str(REPO)})
    lines = p.stdout.splitlines()
    assert lines[0] == "db note: password = [REDACTED:generic-secret] and the path: /srv/app"
    assert lines[1] == "True True"      # ran (lowered compiled), its IGNORECASE twin never compiled
    assert lines[2] == "True"
    assert lines[3] == "False True"


def test_groupindex_is_the_patterns_group_names():
    from objstore.core.redact import RULES
    for rule in RULES[:40]:
        assert dict(rule.groupindex) == dict(rule.pattern.groupindex), rule.name
