"""The prefilter of :mod:`objstore.core.redact`: which rules a window runs, decided by
the anchors that occur in it (the stdlib substring tests, or the optional one-pass
``ahocorasick_rs`` matcher), and the offsets of the literals the scanners look for."""

from __future__ import annotations

import os

from objstore.core import rxcache
from objstore.core.redact.rule import Rule


def lower(seg: str) -> str:
    """``seg.lower()`` with the same length: U+0130 (the one character whose
    lowercase is two characters) is lowered as ``I``."""
    low = seg.lower()
    if len(low) != len(seg):
        low = seg.replace("\u0130", "I").lower()
    return low


#: a process that has scanned this many characters loads the optional multi-literal matcher
#: (:func:`_gate_matcher`): loading it costs ~4 ms, more than a hook's prompt scan saves
_FAST_AFTER = 1 << 20
#: [the matcher, or None before it is tried and False when unavailable; characters scanned so far]
_FAST: list = [None, 0]
_RUNS_MAX = 4096   # sets of present gates remembered (each maps to the rules to run)


def _gates(anchors: tuple[str, ...]) -> tuple[str, ...]:
    """The literals a window is tested for (with ``str.__contains__``, the
    stdlib prefilter) before a rule with these anchors
    runs: anchors sharing a prefix of at least 2 characters are tested as that
    prefix (``gh`` for ``ghp_ gho_ …``, ``gl`` for the 11 GitLab prefixes),
    so a window without any of them costs one scan, not one per anchor.
    Every match holds an anchor, so it holds one of these."""
    if len(anchors) == 1 and type(anchors) is tuple:   # (most rules: their one anchor, as sorted(set()) gives it)
        return anchors
    out: list[str] = []
    prev = ""   # (shares no 2 characters with any anchor)
    for a in sorted(set(anchors)):
        if a[:2] == prev[:2] and len(a) >= 2 and len(prev) >= 2:   # the common prefix is 2 long or more
            n, m = 2, min(len(prev), len(a))
            while n < m and prev[n] == a[n]:
                n += 1
            prev = out[-1] = prev[:n]
        else:
            out.append(a)
            prev = a
    return tuple(out)


def _tests(gates: tuple[str, ...], at: dict[str, int]) -> tuple[tuple[int, str, int], ...]:
    """:attr:`Plan.tests` of ``gates`` (sorted by length, then text; ``at``:
    gate -> its index): per gate ``(i, gate, j)``, ``j`` the index of the
    longest other gate it contains (of those, the first in ``gates``), or
    -1.  Each gate is looked for once in all the gates joined by NUL
    (~0.2 ms for the ~180 gates, where testing every pair of gates took
    ~0.75 ms of every process that redacts: a hook's prompt, a remember;
    docs/benchmarks.md, "Session 26 (branch `lat26`)"); gates holding NUL
    (no anchor does) are tested pair by pair."""
    if any("\0" in g for g in gates):   # (no anchor holds one) every pair, as the definition says
        return tuple((i, g, at[max(inner, key=len)] if (inner := [p for p in gates if p != g and p in g])
                      else -1) for i, g in enumerate(gates))
    from bisect import bisect_right
    joined = "\0".join(gates)
    starts, off = [], 0
    for g in gates:
        starts.append(off)
        off += len(g) + 1
    best = [-1] * len(gates)
    for j, p in enumerate(gates):
        if not p:
            continue
        pos = joined.find(p)
        while pos != -1:   # p lies inside gate i: a match never spans a NUL
            i = bisect_right(starts, pos) - 1
            if i != j and (best[i] < 0 or len(p) > len(gates[best[i]])):   # the first of the longest
                best[i] = j
            pos = joined.find(p, pos + 1)
    empty = at.get("")
    if empty is not None:   # inside every other gate: theirs when they hold no longer one
        best = [empty if b < 0 and g else b for b, g in zip(best, gates)]
    return tuple((i, g, b) for i, (g, b) in enumerate(zip(gates, best)))


class Plan:
    """What _scan_window needs, worked out once per ``RULES`` (:func:`plan`).

    ``entries``: per rule (rule, its own scanner or None, check, priority,
    name).  Two prefilters find which gates occur in a window: the stdlib
    one tests ``tests`` one by one (the gates of :func:`_gates`, shortest
    first, each with the index of the longest other gate it contains or -1:
    when that one is absent, so is this one, and it is not scanned;
    ``ascii_tests`` those of an ASCII window, whose gates are ASCII); the
    optional matcher (:func:`_gate_matcher`) finds every anchor of
    ``fast_gates`` (the anchors themselves: more of them cost it nothing,
    and a rule runs only where one of its own anchors occurs) in one pass.
    ``literals``: ``fast_gates``, then the other literals the
    case-insensitive rules' scanners look for; ``tracked``: their set, whose
    offsets the matcher hands the rules' scanners (:func:`_occurrences`).
    ``slow_sets`` / ``fast_sets``: per rule the indices of its gates, or
    None (no anchors: always runs).  ``slow_runs`` / ``fast_runs`` map a
    frozenset of present gate indices to the entries to run, in ``RULES``
    order.  ``gate_runs``: ``fast_gates`` in order, as ``(start, anchors)``
    per run of anchors that open with the same 2 characters (``start``;
    the whole anchor when shorter): a text without ``start`` holds none of
    them (``names._glued_hits``)."""

    __slots__ = ("rules", "n", "entries", "tests", "ascii_tests", "slow_sets", "fast_gates", "gate_runs",
                 "slow_runs", "fast_runs", "_matcher")

    def __init__(self, rules: list[Rule]) -> None:
        self.rules, self.n = rules, len(rules)
        self.entries = [(r, r.scan, r.check, r.priority, r.name) for r in rules]
        # the gates, tests and sets depend on the rules' anchors alone: kept across processes (~1.5 ms of
        # every process that redacts; docs/benchmarks.md, "Session 44 (branch rec44)")
        key = _plan_key(rules)
        got = rxcache.kept_value(_KEPT, key) if key is not None else None
        if type(got) is not tuple or len(got) != 5 or type(got[0]) is not list or len(got[0]) != self.n:
            got = self._derive(rules)
            if key is not None:
                rxcache.keep_value(_KEPT, key, got)
        self.slow_sets, self.tests, self.ascii_tests, self.fast_gates, self.gate_runs = got
        self._matcher: tuple | None = None   # (fast_sets, literals, tracked), made on first use
        self.slow_runs: dict[frozenset[int], tuple] = {}
        self.fast_runs: dict[frozenset[int], tuple] = {}

    @staticmethod
    def _derive(rules: list[Rule]) -> tuple:
        """``(slow_sets, tests, ascii_tests, fast_gates, gate_runs)`` of ``rules`` (the class doc), worked out."""
        merged: list = []   # per rule its gates, or None
        of: dict[tuple[str, ...], tuple[str, ...]] = {}   # anchors -> their gates (rules share anchors)
        for r in rules:
            a = r.anchors
            if type(a) is tuple:
                gs = of.get(a)
                if gs is None:
                    gs = of[a] = _gates(a)
                merged.append(gs)
            else:
                merged.append(None if a is None else _gates(a))
        gates = tuple(sorted({g for gs in merged if gs is not None for g in gs}, key=lambda g: (len(g), g)))
        at = {g: i for i, g in enumerate(gates)}
        slow_sets = [None if gs is None else frozenset(at[g] for g in gs) for gs in merged]
        tests = _tests(gates, at)
        # red26b: an ASCII window (str.isascii: a flag CPython keeps, no scan) holds no gate with a letter beyond
        # ASCII (the CJK and Cyrillic password words), and an ASCII gate holds only ASCII gates
        ascii_tests = tuple(t for t in tests if t[1].isascii())
        fast_gates = tuple(sorted({a for r in rules if r.anchors is not None for a in r.anchors}))
        runs: list = []
        for a in fast_gates:   # (sorted: the anchors of one 2-character start are next to each other)
            if runs and runs[-1][0] == a[:2]:
                runs[-1][1].append(a)
            else:
                runs.append((a[:2], [a]))
        return slow_sets, tests, ascii_tests, fast_gates, tuple((p, tuple(run)) for p, run in runs)

    def _matcher_part(self) -> tuple:
        """``(fast_sets, literals, tracked)`` (the class doc), worked out on
        first use: only the optional matcher's prefilter reads them, which a
        process scanning less than ``_FAST_AFTER`` characters (a prompt
        hook, a remember) never loads (~16 k bytecodes of each such
        process; docs/benchmarks.md, "Session 43 (branch rec43)")."""
        got = self._matcher
        if got is None:
            rules = self.rules
            at = {g: i for i, g in enumerate(self.fast_gates)}
            fast_sets = [None if r.anchors is None else frozenset(at[a] for a in r.anchors) for r in rules]
            # the matcher also finds the other literals the case-insensitive rules' scanners look for (their
            # starts: 'api', 'access' ...), so that they need no str.find of their own
            extra = {lit for r in rules if r.ci for lit in getattr(r.scan, "starts", ()) if lit == lit.lower()}
            literals = self.fast_gates + tuple(sorted(extra - set(self.fast_gates)))
            got = self._matcher = (fast_sets, literals, frozenset(literals))
        return got

    fast_sets = property(lambda self: self._matcher_part()[0], doc="Per rule the indices of its anchors in "
                         "``fast_gates``, or None (the class doc).")
    literals = property(lambda self: self._matcher_part()[1], doc="``fast_gates``, then the other literals the "
                        "case-insensitive rules' scanners look for (the class doc).")
    tracked = property(lambda self: self._matcher_part()[2], doc="The set of ``literals``.")

    def todo(self, present: frozenset[int], fast: bool) -> tuple:
        """The entries of the rules one of whose gates is in ``present``."""
        runs = self.fast_runs if fast else self.slow_runs
        todo = runs.get(present)
        if todo is None:
            sets = self.fast_sets if fast else self.slow_sets
            todo = tuple(e for e, gs in zip(self.entries, sets) if gs is None or not present.isdisjoint(gs))
            if len(runs) >= _RUNS_MAX:
                runs.clear()
            runs[present] = todo
        return todo


_PLAN: list = [None]
_KEPT = "redact.prefilter.plan"   # the plan's name among the kept values (objstore.core.rxcache)


def _plan_key(rules: list[Rule]) -> tuple | None:
    """What a :class:`Plan`'s gates, tests and sets are derived from: the
    code that derives them (this module's source, its size and mtime in ns,
    and the bytecode and constants of :meth:`Plan._derive`, :func:`_gates`
    and :func:`_tests`, which a copy with an old mtime cannot hide) and
    each rule's anchors (None, or a tuple of str); None when the source
    cannot be stat'ed or an anchor is not a str (then nothing is kept)."""
    try:
        st = os.stat(__file__)
    except (OSError, NameError, TypeError):
        return None
    anchors = tuple(a if a is None or type(a) is tuple else tuple(a) for a in [r.anchors for r in rules])
    if not all(type(x) is str for a in anchors if a is not None for x in a):
        return None
    code: list = []
    todo = [Plan._derive.__code__, _gates.__code__, _tests.__code__]
    while todo:
        co = todo.pop()
        code += (co.co_code, co.co_names)
        for c in co.co_consts:
            if type(c) is type(co):
                todo.append(c)
            else:
                code.append(c)
    return st.st_size, st.st_mtime_ns, tuple(code), anchors


def plan(rules: list[Rule]) -> Plan:
    """The :class:`Plan` of ``rules`` (the package's ``RULES``), built again
    when that list is replaced or grows (or after :func:`replan`).  The
    patterns are not touched here: a rule compiles on its first window that
    holds one of its gates."""
    pl = _PLAN[0]
    if pl is None or pl.rules is not rules or pl.n != len(rules):
        pl = _PLAN[0] = Plan(rules)
        if _FAST[0]:
            _FAST[0] = None   # built again for the new anchors
    return pl


def replan() -> None:
    """Forget the plan of :func:`plan` (after a rule's ``anchors`` changed in place)."""
    _PLAN[0] = None


def _gate_matcher(gates: tuple[str, ...]):
    """The optional one-pass multi-literal matcher over ``gates``, or False.

    ``ahocorasick_rs`` (the ``memvcs[fast]`` extra; a binding of the Rust
    ``aho-corasick`` crate, https://github.com/G-Research/ahocorasick_rs)
    finds every occurrence of every literal in one pass, where the stdlib
    prefilter runs one ``str.__contains__`` per gate (~0.5 ns a character
    each, ~70 gates).  Each prefilter finds exactly the gates that occur,
    and no match lacks an anchor, so the rules' matches, and the output,
    are the same."""
    try:
        import ahocorasick_rs
        # a DFA: ~0.5 ms to build for ~100 anchors, and half the search time of the default NFA
        return ahocorasick_rs.AhoCorasick(list(gates), implementation=ahocorasick_rs.Implementation.DFA)
    except Exception:   # not installed, or a build that cannot load here: the stdlib prefilter
        return False


def expect_bulk() -> None:
    """Note that this process is about to scan more than ``_FAST_AFTER``
    (1 MiB) characters, so the optional one-pass matcher (:func:`_gate_matcher`)
    loads at the next window rather than after the first MiB: a bulk caller
    (``mem import``'s name rule over hundreds of transcript paths, then its
    sub-agent rollups) scans its first windows ~10x faster (a 150-character
    window: ~26 us with the substring tests, ~3 us with the matcher).  The
    same gates are found either way, so the output is the same.  Nothing
    when the matcher is loaded already or was found unavailable; no
    return value, never raises."""
    if _FAST[0] is None:
        _FAST[1] = max(_FAST[1], _FAST_AFTER)


def present(low: str, plan: Plan) -> tuple[frozenset[int], bool, tuple | None]:
    """The indices of the gates that occur in ``low`` (substring tests),
    whether they index ``plan.fast_gates`` (True) or ``plan.tests``, and the
    window's offsets for :func:`_occurrences`: with the matcher, those of
    each anchor that occurs; without it, none yet."""
    fast = _FAST[0]
    if fast is None:
        _FAST[1] += len(low)
        if _FAST[1] >= _FAST_AFTER:
            fast = _FAST[0] = _gate_matcher(plan.literals)
    if fast:
        try:
            found = fast.find_matches_as_indexes(low, overlapping=True)
        except Exception:   # a str the matcher cannot encode (lone surrogates): the stdlib prefilter
            pass
        else:
            lits, n = plan.literals, len(plan.fast_gates)
            offsets: dict[str, list[int]] = {}
            for i, s, _e in found:
                g = lits[i]
                if g in offsets:
                    offsets[g].append(s)
                else:
                    offsets[g] = [s]
            return frozenset([i for i, _s, _e in found if i < n]), True, (offsets, plan.tracked, low)
    found: set[int] = set()
    for i, g, within in plan.ascii_tests if low.isascii() else plan.tests:   # each gate once per window
        if (within < 0 or within in found) and g in low:
            found.add(i)
    return frozenset(found), False, ({}, None, low)

