"""The phrases of a person taking back what they just said, one list read
by capture and by recall (split from ``core.text``, its size).  Regular
expression sources, read with ``re.I``; no import."""

from __future__ import annotations

#: the person taking back what they just said ("Scratch that", "Just kidding.", "Never mind.", "no wait",
#: "Correction:", "Forget it."): one list, read by capture (``capture.statements``: the statement's value
#: is corrected or dropped) and by recall's rule 8 (``retrieval.restated.WRONG_NEXT_RE``: a change taken back marks
#: no fact), regular-expression sources (re.I); test33's lane tl33 made the two read the same phrases
TAKE_BACK_PHRASES = (r"(?:oh\s+)?(?:no,?\s+)?wait,?\s+no", r"no,?\s+wait", r"scratch\s+that", r"(?:just\s+)?kidding",
                     r"j/?k", r"never\s*mind", r"ignore\s+(?:that|this)", r"disregard\s+(?:that|this)",
                     r"my\s+(?:mistake|bad)", r"actually,?\s+no", r"(?:sorry|oops),?\s+(?:no|wrong)", "correction", "oops",
                     r"whoops", r"nope", r"korrektur",   # ("Nope, X" as the next prompt after a password: seal34)
                     r"forget\s+(?:it|that|this)", r"false\s+alarm",   # ("Forget it.": test32b Y2)
                     r"typo", r"let\s+me\s+correct\s+(?:that|this)", r"hmm+,?\s+no")   # (test33b T15)
#: the softer take-backs ("Actually, it's 6543", "I mean 6543", "Sorry, 6543", "or rather 6543"): one only with what
#: follows (capture: a new value or the same subject's statement; rule 8: a clause saying the old value stands)
SOFT_TAKE_BACK_PHRASES = (r"actually", r"i\s+meant?", r"sorry", r"(?:or\s+)?rather", r"(?:oh\s+)?wait")   # ("Wait, it's r2": test33b T15)
#: the person saying what was just said is wrong ("that's wrong", "it is not true", "this was outdated"): beside a
#: retraction (``capture.retraction``) and, after a value, setting it aside in derive's evidence check
#: (``derive.evidence``: "The old docs say the db port is 5432, but that's wrong", test39b B15)
#: (what the denial says of it: derive's evidence check reads it after "which is" too: "5432, which is wrong")
DENIAL_WORDS = (r"(?:(?:all|just|actually|totally)\s+)?(?:wrong|incorrect|not\s+(?:right|true|correct)|outdated|"
                r"out\s+of\s+date|a\s+mistake|old|stale|a\s+typo|bad|false)")
DENIAL = rf"(?:it|that|this)(?:['\u2019]s|\s+is|\s+was|\s+were)\s+{DENIAL_WORDS}"
