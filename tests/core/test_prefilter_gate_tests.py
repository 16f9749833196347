"""The stdlib prefilter's ``tests`` (``objstore.core.redact.prefilter``):
per gate, the longest other gate inside it (the first of those in the
gates' order), found by one search of each gate in the joined gates
(session 26, lat26), the same as the definition: every pair tested."""

import random

from objstore.core.redact import RULES, prefilter


def pairwise(gates):
    """The definition, as ``Plan`` computed it before session 26."""
    return tuple((i, g, gates.index(max(inner, key=len)) if (inner := [p for p in gates if p != g and p in g])
                  else -1) for i, g in enumerate(gates))


def sorted_gates(gs):
    return tuple(sorted(set(gs), key=lambda g: (len(g), g)))


def test_the_rules_plan_holds_the_pairwise_tests():
    plan = prefilter.Plan(RULES)
    gates = tuple(g for _i, g, _j in plan.tests)
    assert len(gates) > 100
    assert plan.tests == pairwise(gates)
    assert any(j >= 0 for _i, _g, j in plan.tests)   # some gate holds another (the check is not vacuous)


def test_random_gates_with_ties_empty_and_one_character_gates():
    rnd = random.Random(26)
    for _ in range(2000):
        alpha = rnd.choice(["ab", "abc", "a_b", "xy01"])
        gates = sorted_gates("".join(rnd.choice(alpha) for _ in range(rnd.randint(0, 7)))
                             for _ in range(rnd.randint(1, 30)))
        at = {g: i for i, g in enumerate(gates)}
        assert prefilter._tests(gates, at) == pairwise(gates), gates


def test_longest_inner_gate_and_the_first_of_equal_length():
    gates = sorted_gates(["ab", "bc", "abc", "xabcx", "zz"])
    at = {g: i for i, g in enumerate(gates)}
    got = {g: (gates[j] if j >= 0 else None) for _i, g, j in prefilter._tests(gates, at)}
    assert got == {"ab": None, "bc": None, "zz": None, "abc": "ab", "xabcx": "abc"}


def test_gates_holding_nul_are_tested_pair_by_pair():
    gates = sorted_gates(["a\0b", "a", "b\0", "b"])
    at = {g: i for i, g in enumerate(gates)}
    assert prefilter._tests(gates, at) == pairwise(gates)
