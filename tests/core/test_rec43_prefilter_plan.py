"""The redaction prefilter's :class:`~objstore.core.redact.prefilter.Plan`
as session 43 (rec43) builds it: each distinct anchors tuple's gates once,
the common-prefix walk only where two characters match, and the optional
matcher's sets (``fast_sets``, ``literals``, ``tracked``) made on first
use, which a process redacting a prompt never reaches.  The plan is the
same as the definitions below (the code before session 43) say."""

import os
import random
import subprocess
import sys

from objstore.core.redact import RULES, Rule, prefilter
from tests.conftest import REPO


def gates_by_definition(anchors):
    """``_gates``' docstring: sorted anchors, each sharing a prefix of 2
    characters or more with the last gate merged into that prefix."""
    out = []
    for a in sorted(set(anchors)):
        if out:
            prev = out[-1]
            n = 0
            while n < min(len(prev), len(a)) and prev[n] == a[n]:
                n += 1
            if n >= 2:
                out[-1] = prev[:n]
                continue
        out.append(a)
    return tuple(out)


def test_gates_are_the_definitions_for_the_rules_and_random_anchors():
    for r in RULES:
        if r.anchors is not None:
            assert prefilter._gates(r.anchors) == gates_by_definition(r.anchors), r.name
    rnd = random.Random(43)
    for _ in range(20000):   # ties, prefixes, empty and one-character anchors, U+0130
        an = tuple("".join(rnd.choice("ab_\u0130") for _ in range(rnd.randint(0, 4))) for _ in range(rnd.randint(0, 6)))
        assert prefilter._gates(an) == gates_by_definition(an), an
        assert prefilter._gates(list(an)) == gates_by_definition(an), an


def test_the_matchers_sets_are_the_eager_ones():
    extra = Rule("rec43-list", "test", r"zz\d", anchors=["zz", "zzy", "q"])   # a list of anchors, not a tuple
    for rules in (RULES, [*RULES, extra]):
        plan = prefilter.Plan(rules)
        at = {g: i for i, g in enumerate(plan.fast_gates)}
        fast_sets = [None if r.anchors is None else frozenset(at[a] for a in r.anchors) for r in rules]
        more = {lit for r in rules if r.ci for lit in getattr(r.scan, "starts", ()) if lit == lit.lower()}
        literals = plan.fast_gates + tuple(sorted(more - set(plan.fast_gates)))
        assert plan.fast_sets == fast_sets
        assert plan.literals == literals and plan.tracked == frozenset(literals)
        slow = [None if r.anchors is None else gates_by_definition(r.anchors) for r in rules]
        gates = tuple(g for _i, g, _j in plan.tests)
        assert plan.slow_sets == [None if gs is None else frozenset(gates.index(g) for g in gs) for gs in slow]


def test_a_prompts_redaction_leaves_the_matchers_sets_unmade():
    """A new process redacting a prompt-sized text (under ``_FAST_AFTER``
    characters) runs the stdlib prefilter only: the sets only the matcher
    reads are never worked out (~16 k bytecodes of every hook and
    remember), and the text is redacted as before."""
    code = ("from objstore.core.redact import RULES, prefilter, redact\n"
            "r = redact('deploy with password: hunter2hunter2 and token ghp_' + 'a' * 36)\n"
            "print(r.text)\n"
            "print(prefilter.plan(RULES)._matcher is None)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(REPO)})
    assert p.returncode == 0, p.stderr
    text, unmade = p.stdout.splitlines()
    assert "hunter2hunter2" not in text and "ghp_" + "a" * 36 not in text, text
    assert unmade == "True", p.stdout
