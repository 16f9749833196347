"""Rule 8 of the time rule (``objstore.retrieval.timeline``'s module doc):
a later turn of the person that says a fact's value changed, and the pieces
of rule 2 it shares with ``timeline.relations`` (which kinds of value replace
which, the value pairs compared, whether two subjects name one attribute).

Split from ``timeline`` (session 30), which imports and re-exports every
name here; nothing here imports ``timeline``.
"""

from __future__ import annotations

from objstore.core.record import Record
from objstore.core.text import LazyPattern
from objstore.retrieval.querywords import stop_stems
from objstore.retrieval.restated import PAIRS_READ, SENTENCE_RE, WRONG_NEXT_RE, restates, states
from objstore.retrieval.subjects import normalize
from objstore.retrieval.subjects import Subject, one_head
from objstore.retrieval.valueshape import shape_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

#: what the rule reads: a ``timeline.Item`` (typed by its base here: the time rule imports this module)
Item = Record


#: which kinds of value a value of each kind can replace: a sentence's first
#: word taken for a name ("Priya owns …", kind ``initial``) is replaced by
#: a name or another such word, but never replaces a name itself (it may be
#: prose: "Reminder that …")
SUPERSEDES = {"int": ("int",), "dec": ("dec",), "code": ("code",), "name": ("name", "initial"),
               "initial": ("initial",)}


#: an arrow between two values: "port 5432 -> 6543", "5432 → 6543" (a change, as "from 5432 to 6543" is)
_ARROW_RE = LazyPattern(r"\s(?:-{1,2}>|=>|\u2192|\u21d2|\u27f6)\s")


def _changed_from(text: str, old: str, new: str) -> bool:
    """Whether ``text`` says value ``old`` became ``new`` in so many words:
    ``old -> new`` (or ``=>``, ``→``) or ``from old to new`` (a word, such
    as the attribute, may come before either: "from port 5432 to port
    6543"), within its first 4,000 characters; case aside."""
    import re
    o, n = re.escape(old), re.escape(new)
    return re.search(rf"(?<![\w.]){o}\s*(?:-{{1,2}}>|=>|\u2192|\u21d2|\u27f6)\s*{n}(?![\w])"
                     rf"|\bfrom\s+(?:[^\W\d]\w*\s+)?{o}\s+to\s+(?:[^\W\d]\w*\s+)?{n}(?![\w])",
                     text[:4000], re.I) is not None


#: the old value said gone in so many words: "5432 is dead, use 7003", "the db port is 7023 (was 5432)", "5432 is
#: gone/retired" (test36 T1: a change the person typed with no change word)
_GONE = (r"(?<![\w.])({v})\s+(?:is|was|[\u2019']s)\s+(?:dead|gone|retired|obsolete|deprecated|history"
         r"|decommissioned)\b|\((?:was|formerly|previously|not)\s+({v})\)")


def said_gone(text: str, old: str) -> bool:
    """Whether ``text`` says value ``old`` is gone (:data:`_GONE`):
    "5432 is dead", "(was 5432)"; case aside, the first 4,000 characters
    read."""
    import re
    return re.search(_GONE.replace("{v}", re.escape(old)), text[:4000], re.I) is not None


#: a sentence that says a value is (still) the one in force: "it is still 5432", "back to 5432", "stays on 5432",
#: "make it 5432 again"
_IN_FORCE_RE = LazyPattern(r"\b(?:still|is|it[\u2019']s|remains?|stays?|back\s+(?:to|on)|reverted\s+to|unchanged|kept"
                           r"|make\s+it|again)\b", 2)
#: … unless it says that value is the old one: "it was 5432", "the old 5432", "from 5432"
_PAST_RE = LazyPattern(r"\b(?:was|were|used\s+to|old|older|previous(?:ly)?|formerly|before|earlier|from|no\s+longer"
                       r"|not|isn[\u2019']?t|any\s*more|says?|said|claims?|shows?|lists?|mentions?)\b", 2)
#: (test31c W4: "No, it is not 5432 any more" confirms the change; "only the docs still say 5432" reports another source)
#: what a sentence ends at (as ``subjects``' sentence search reads it)
_SENTENCE_END_RE = LazyPattern(r"[.!?](?:\s|\Z)|[\n;]")
#: … and a clause: a comma, a dash or a colon too (``_narrowed``)
_CLAUSE_END_RE = LazyPattern(r"[.!?](?:\s|\Z)|[\n;,:\u2014\u2013]|\s-\s|\s+(?:after|because|since|as|when|but|and)\b")


def _kept(fact: str, text: str, old: str, new: str) -> bool:
    """Whether ``text``, after the sentence where ``new`` first stands,
    says in a sentence of its own that ``old`` is the value in force
    (:data:`_IN_FORCE_RE`, not :data:`_PAST_RE`) without ``new``, of the
    thing ``fact`` names (no :data:`NARROWING` word ``fact`` lacks): "The
    shop DB port changed to 6543. No, it is still 5432." takes the change
    back (test30c T21); "… 6543. It was 5432." and "…; staging stays on
    5432" do not.  The first 4,000 characters read; case aside."""
    import re
    low = text[:4000].lower()
    at = re.search(rf"(?<![\w.]){re.escape(new)}(?!\w)", low)
    if at is None or old not in low[at.end():]:
        return False
    end = _SENTENCE_END_RE.search(low, at.end())
    pos = end.end() if end else len(low)
    while pos < len(low):
        stop = _SENTENCE_END_RE.search(low, pos)
        sentence = low[pos:stop.end() if stop else len(low)]
        if re.search(rf"(?<![\w.]){re.escape(old)}(?!\w)", sentence) and new not in sentence \
                and _IN_FORCE_RE.search(sentence) and not _PAST_RE.search(sentence) \
                and not _narrows(fact, sentence):
            return True
        if stop is None:
            break
        pos = stop.end()
    return False


#: words that narrow a change to one copy, place or trial of a thing ("my local shop DB", "on the staging replica
#: only", "for testing"), or name another attribute before the fact's ("the shop DB backup port")
NARROWING = frozenset("""
local locally staging stage dev development test tests testing sandbox replica replicas standby secondary backup
backups mirror preview canary qa uat demo experiment experimental laptop personal worktree branch
""".split())
#: a narrowing word in the value's sentence, or "only" after the value ("… to 6543 for the importer only")
_NARROW_RE = LazyPattern(r"\b(?:" + "|".join(sorted(NARROWING)) + r")\b", 2)


def _value_clause(text: str, value: str) -> tuple[str, re.Match, int] | None:
    """``(text lower-cased, where value first stands in it, where its clause
    begins)`` (:data:`_CLAUSE_END_RE`), the first 4,000 characters read;
    None when ``value`` (lower case) is not there."""
    import re
    low = text[:4000].lower()
    at = re.search(rf"(?<![\w.]){re.escape(value)}(?!\w)", low)
    if at is None:
        return None
    return low, at, max((m.end() for m in _CLAUSE_END_RE.finditer(low, 0, at.start())), default=0)


def _narrowed(fact: str, text: str, new: str) -> bool:
    """Whether the sentence of ``text`` where ``new`` first stands says
    the change of one copy, place or trial of the thing (a word of
    :data:`NARROWING` that ``fact`` does not hold: "I changed my local
    shop DB port to 6543 for testing.", "… changed to 6543 on the staging
    replica only.", "The shop DB backup port changed to 6543.", test30c
    T21), or says "only" after the value; a fact that says it of staging
    itself is changed by its staging turn.  Case aside; the first 4,000
    characters read."""
    import re
    if (found := _value_clause(text, new)) is None:
        return False
    low, at, start = found
    end = _CLAUSE_END_RE.search(low, at.end())
    after = low[at.end():end.start() if end else len(low)]
    # the value's clause before it ("my local … port changed to"), and after it only "on/in/for/at <words> <narrowing>"
    # and "only": "after the local outage", "as part of the backup overhaul", "; only the docs still say 5432" narrow
    # nothing (test31c W4)
    near = re.match(r"\s+(?:on|in|for|at)\s+(?:\w+\s+){0,3}", after)
    return re.search(r"\bonly\b", after) is not None or _narrows(fact, low[start:at.start()]) \
        or (near is not None and _narrows(fact, near.group(0) + after[near.end():].split(" ", 1)[0]))


#: what places a value in the past wherever it stands in its clause ("the db port used to be 5432", "formerly
#: 5432"), and the words of a past tense that do so with a time of the past in the sentence
_USED_TO_RE = LazyPattern(r"\b(?:used\s+to|formerly|previously|originally|once\s+was)\b", 2)
_PAST_TENSE_RE = LazyPattern(r"\b(?:was|were|had)\b", 2)
_PAST_TIME_RE = LazyPattern(r"\b(?:before|until|till|back\s+(?:in|then|when)|in\s+the\s+past|at\s+first|initially|"
                            r"earlier)\b", 2)
#: … but a time a change happened at says the value holds since: "after the migration last week the db port
#: was 6543" (test35b T4: "last week" alone tells nothing)
_SINCE_RE = LazyPattern(r"\b(?:after|since|now|from\s+then\s+on)\b", 2)
#: a value said as the new one right before it ("changed to 6543", "is now 6543", "from 5432 to 6543")
_NEW_BEFORE_RE = LazyPattern(r"\b(?:to(?!\s+be\b)|now|is|are|it[\u2019']s)\s+(?:[^\W\d]\w*\s+)?\Z", 2)
#: a value said as the old one right before it ("changed from 5432", "from port 5432")
_FROM_BEFORE_RE = LazyPattern(r"\bfrom\s+(?:[^\W\d]\w*\s+)?\Z", 2)


def said_as_past(text: str, value: str) -> bool:
    """Whether ``text`` says ``value`` (where it first stands) as a value of
    the past, no new one: after "from" ("changed from 5432 to 6543"), in a
    clause saying "used to", "formerly", "previously", "originally" ("the
    db port used to be 5432 back in 2023"), or in a past tense with a time
    of the past in its sentence ("before the migration the db port was
    5432", "… was 5432 until March", not with "after", "since", "now":
    "after the migration last week the db port was 6543" states it, test35b
    T4) — unless said right after "to", "now", "is" ("it was changed to
    6543 last year" states 6543).  Rule 8 reads
    no change from such a value (test35 T6: a person recalling history
    marked the current fact out of date).  Case aside; the first 4,000
    characters read."""
    if (found := _value_clause(text, value.lower())) is None:
        return False
    low, at, start = found
    before = low[start:at.start()]
    if _FROM_BEFORE_RE.search(before):
        return True
    if _NEW_BEFORE_RE.search(before):
        return False
    if _USED_TO_RE.search(before):
        return True
    s0 = max((m.end() for m in _SENTENCE_END_RE.finditer(low, 0, at.start())), default=0)
    end = _SENTENCE_END_RE.search(low, at.end())
    stop = _CLAUSE_END_RE.search(low, at.end())   # (the time a change happened at: in the value's own clause)
    return bool(_PAST_TENSE_RE.search(before)) and _PAST_TIME_RE.search(low, s0, end.start() if end else len(low)) \
        is not None and _SINCE_RE.search(low, start, stop.start() if stop else len(low)) is None


#: a sentence that opens by naming the thing just said ("It changed to 7000.", "Make it 6000.", "That is 7000 now.")
_OF_IT_RE = LazyPattern(r"\W*(?:(?:make|call)\s+(?:it|that)|it|that|this)\b", 2)


def _stands_for(text: str, new: str, values) -> str | None:
    """The value ``new`` replaces when ``text`` says it of "it" in the
    sentence right after a take-back said alone, which follows a sentence
    holding that value: "The billing DB port changed to 6543. Scratch that.
    It changed to 7000." -> "6543" (whose subject, "the billing DB port", is
    7000's), one value of ``new``'s kind; else None.  ``values``: the turn's
    ``{value: kind}`` (``timeline.values_of``);
    the first 4,000 characters read (as :func:`states`)."""
    sentences = [m.group(0).strip() for m in SENTENCE_RE.finditer(text[:4000])]
    sentences = [x for x in sentences if x]
    for i in range(2, len(sentences)):
        said, back, held = sentences[i - 2], sentences[i - 1], sentences[i]
        if new not in normalize(held) or not _OF_IT_RE.match(held):
            continue
        m = WRONG_NEXT_RE.match(back)
        if m is None or back[m.end():].strip(" .!,;"):
            continue   # not a take-back said alone ("Scratch that." / "Actually no.")
        old = [v for v, kind in values.items() if kind == values.get(new) and v != new and v in normalize(said)
               and v not in normalize(held)]
        if len(old) == 1:
            return old[0]
    return None


def _narrows(fact: str, sentence: str) -> bool:
    """Whether lower-cased ``sentence`` holds a :data:`NARROWING` word that ``fact`` does not."""
    import re
    own = fact.lower()
    return any(not re.search(rf"\b{m.group(0)}\b", own) for m in _NARROW_RE.finditer(sentence))


def updates_fact(A: Item, B: Item, newest: dict[str, int], first: dict[str, int], same, a: int, b: int) -> bool:
    """Rule 8: whether turn ``B`` (index ``b``) says that fact ``A``'s
    (index ``a``) value changed: B is a person's turn (role ``user``) of
    A's project, later than A's version, holding a change word
    (:data:`UPDATE_CUES`) and a question word A holds; it states, not
    asks (:func:`states`), a value of a kind A states that A does not
    hold (B says it after A's version: new, even if an older turn said it
    before A's, test27 V22); no such pair of
    values is stated of siblings (``relations``' ``same`` False); and
    either one is read as stated of one subject and one attribute
    ("staging database … port 5432" / "the staging database moved to port
    6543"; ``same`` with ``measure="same"``), or, where the subjects cannot
    be read ("We run 4 workers in production." / "We run 8 workers in
    production now."; "service" names nothing), the content words (values
    aside) A's body and B share are two at least, and at least
    :data:`FACT_COVER` of each side's: the two say the same of one thing (a
    long passage that holds every word of the fact says other things).  ``same`` is ``relations``'."""
    if A.kind == "fact" and B.kind == "turn" and B.role == "user" and B.time > A.time \
            and (A.text.startswith("user ") or B.project == A.project):
        if any("-" + v in B.values and not _narrowed(A.text, B.text, v) for v in A.values):
            return True   # the person's own word that a fact's word was replaced: a user/ fact's in any project
            # (test29 P13); a project fact's in its project, not of a sibling (wordchange; tl30's P4 Redis wordings)
    if B.kind != "turn" or B.role != "user" or B.project != A.project or B.time <= A.time \
            or not B.values or not (B.matched & A.matched) \
            or not (B.cue or _ARROW_RE.search(B.text, 0, 4000) or any(said_gone(B.text, v) for v in A.values)):
        return False
    first = dict.fromkeys(B.values, B.time)   # B is later than A: a value it states is new (test27 V22)
    kinds = {ta for v, t in B.values.items() if v not in A.values
             for ta in SUPERSEDES[t] if ta in newest and first[v] > newest[ta]}
    if not kinds:
        return False
    stated = [(va, vb) for va, vb in ValuePairs(A, B, kinds, first, newest)
              if states(B.text, vb) and not said_as_past(B.text, vb)]
    if not stated:
        return False
    if not _verdict(A, B, stated, same, a, b):
        # "… changed to 6543. Scratch that. It changed to 7000.": 7000 is said of "it", the thing of the value
        # taken back; read as that value's subject (tl31's left-out)
        stand = [(va, v1) for va, vb in stated if (v1 := _stands_for(B.text, vb, B.values)) and v1 not in A.values]
        if not stand or not _verdict(A, B, stand, same, a, b):
            return False
    # (read only for a change found: a turn that takes it back or narrows it, test30c T21; a passage is long)
    held = [(va, vb) for va, vb in stated if not _kept(A.text, B.text, va, vb) and not _narrowed(A.text, B.text, vb)]
    return len(held) == len(stated) or bool(held) and _verdict(A, B, held, same, a, b)


def _verdict(A: Item, B: Item, stated: list[tuple[str, str]], same, a: int, b: int) -> bool:
    """Rule 8's readings of the value pairs ``stated`` (``updates_fact``'s
    docstring, from its subject reading on)."""
    if same(a, b, stated, True, "same") is True:
        return True
    if any(_changed_from(B.text, va, vb) or said_gone(B.text, va) for va, vb in stated[:PAIRS_READ]) \
            and same(a, b, stated) is not False:
        return True    # "port 5432 -> 6543", "changed from 5432 to 6543": A's own value said replaced (test29 P4)
    if restates(A, B, stated):
        return True    # the same quantity of one thing (rule 10)
    if same(a, b, stated) is False:
        return False   # a sibling's value
    if A.kind != "fact":
        return False   # (a passage judged as a fact: the shared share below is for a fact's short body)
    from objstore.index.analysis import index_terms  # deferred: tantivy
    body = set(index_terms((A.text.split("\n", 1)[-1] if A.kind == "fact" else A.text)[:4000])) \
        - set(A.values) - _stop_stems()
    said = B.terms - set(B.values)
    shared = body & said
    return len(shared) >= 2 and len(shared) >= FACT_COVER * len(body) and len(shared) >= FACT_COVER * len(said)


#: rule 8 without a subject read: the share of a fact's body's content words, and of a later turn's, both hold
FACT_COVER = 0.6

_STOP_STEMS: list[frozenset[str]] = []


def _stop_stems() -> frozenset[str]:
    """``querywords.stop_stems()``, computed once."""
    if not _STOP_STEMS:
        _STOP_STEMS.append(frozenset(stop_stems()))
    return _STOP_STEMS[0]


class ValuePairs:
    """The pairs ``(value of A, value of B)`` where B's value may replace
    A's (rule 2), generated when read (a tool's output holds dozens)."""

    __slots__ = ("A", "B", "kinds", "first", "newest")

    def __init__(self, A: Item, B: Item, kinds: set[str], first: dict[str, int], newest: dict[str, int]) -> None:
        self.A, self.B, self.kinds, self.first, self.newest = A, B, kinds, first, newest

    def __iter__(self):
        A, first, newest = self.A, self.first, self.newest
        for vb, tb in self.B.values.items():
            if vb in A.values:
                continue
            for va, ta in A.values.items():
                if ta in self.kinds and ta in SUPERSEDES[tb] and first[vb] > newest[ta]:
                    yield va, vb


def measured(a: Subject, b: Subject, measure: str, va: str = "", vb: str = "") -> bool:
    """Whether two value subjects name one attribute, as ``measure`` asks
    (``relations``' ``same``): ``"same"``, both name it, the later one's
    head among the earlier one's words or key (:func:`one_head`, ``of_b``:
    "the db port" and "the database admin console is on port 8080" name two
    things, test35b T5), or neither does and
    the values ``va``, ``vb`` are of one shape (:func:`shape_of`: "The shop
    cache runs on cache-1.internal" / "the shop cache moved to
    cache-9.internal": a host is what a host replaces, test27 V21);
    ``"agree"``, they do not name two; ``""``, not asked."""
    if measure == "same":
        if not a.attribute and not b.attribute:   # (a part of it is another thing: "shop repo CI logs", test28b Z5)
            return shape_of(va) != "" and shape_of(va) == shape_of(vb) and one_head(a, b)
        if a.attribute and b.attribute or a.attribute == b.attribute:   # (and one head: "the db port" is not
            return a.attribute == b.attribute and one_head(a, b, True)  # "the database admin console … port", T5)
        named, other = (a, b) if a.attribute else (b, a)   # "port 5432" / "the shop DB port changed to 6543" (test29 P4)
        if named.attribute in other.words:
            return True
        # "the shop db port is 5432" / "shop db moved to 6543", "… now listens on 6543": a number of as many digits
        # said of the fact's thing itself, naming no attribute, is its value (test33 T20; three digits at least: not
        # "Postgres 15" / "changed its pool size to 64")
        return named is a and va.isdigit() and vb.isdigit() and len(va) == len(vb) >= 3 and one_head(a, b)
    if measure == "agree":
        return not (a.attribute and b.attribute and a.attribute != b.attribute)
    return True
