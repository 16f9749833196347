"""Which later turn restates or answers an earlier one: rules 9 and 10 of
the time rule (:mod:`objstore.retrieval.timeline`, whose :class:`Item` they
read), kept apart from its other rules (session 27, test26 V12).

Rule 9, an exchange (:func:`answer_to`): the turns that answer a prompt
(its session's turns after it, up to the next prompt) never supersede it.
"Bump the gateway limit: from today keys get 500 requests per minute." is
not "updated later" by "Done: gateway/limits.py now allows 500 …": the
answer's first word ("Done") read as a name replaced the prompt's
("Bump"), and the answer acknowledges the prompt, it does not change it.

Rule 10, the same quantity restated (:func:`restates`): the person's later
turn with a change word that states a number followed by the same unit as
an earlier value's ("100 requests per minute per key" / "500 requests per
minute"), in a sentence sharing two words with the earlier one's, one a
question word both hold, supersedes it without rule 3's similarity or rule
4's share (rule 8 for a fact alike).  Such a terse statement ("Bump the
gateway limit: …") ranks far below a long earlier answer and repeats few
of its words.  A word both sentences qualify apart ("the public gateway" /
"the staging gateway") holds it back.

The sentence reading the time rule's rules share lives here too:
:func:`states` (a value said in a statement, not a question),
:data:`SENTENCE_RE`, :data:`ASKING_WORDS`.  Pure: no store, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from objstore.core.record import Record
from objstore.core.takeback import SOFT_TAKE_BACK_PHRASES, TAKE_BACK_PHRASES
from objstore.core.text import LazyPattern
from objstore.retrieval.querywords import ASKING_WORDS   # (defined with the query words: the prompt hook reads it)
from objstore.retrieval.subjects import compare, normalize, qualified_apart, quantity_of, subjects_of

#: what the rules read: a ``timeline.Item`` (typed by its base here: the time rule imports this module)
Item = Record

#: pairs of values whose subjects rule 3 reads for one pair of items, at most
PAIRS_READ = 3

#: a sentence: up to ``. ! ?`` and the spaces after them, or a line; a ``.`` inside a token ("3.11",
#: "limits.py") ends none
SENTENCE_RE = LazyPattern(r"[^\n.!?]*(?:[.!?](?=[^\s.!?])[^\n.!?]*)*(?:[.!?]+|\n|\Z)")   # (unrolled: as fast as without)



#: where a sentence's clauses part: ``, ; :`` before a space, a dash, "but"; a negation
#: (:data:`NEGATION_RE`) in the clause that holds a value denies it ("did not move to 6543; it stays on
#: 5432" denies only 6543); a value across a mark ("https://…", "1,000") is read in its whole sentence
CLAUSE_SPLIT_RE = LazyPattern(r"[,;:](?=\s)|\s[\u2014\u2013-]\s|\u2014|\bbut\b", 2)   # re.I

#: words that deny what their clause says ("not", "never", "didn't"); "no longer" is a change, not a denial
NEGATION_RE = LazyPattern(r"\b(?:not|never|nor|neither|cannot)\b|n[\u2019']t\b", 2)   # re.I

#: words that turn down a change the sentence names ("… move to port 6543 but we rejected it")
REJECTION_RE = LazyPattern(r"\b(?:reject|declin|veto|turned down|voted down|decided against|ruled out)", 2)  # re.I

#: a claim called false ("Ops says the db moved to port 6543, but that is wrong." / "… 6543. That is wrong."),
#: in the sentence that holds the value or opening the next one (test27b X7)
WRONG_RE = LazyPattern(r"\b(?:(?:that|this|which|it)(?:[\u2019']s|\s+(?:is|was))|(?:claim|report|rumou?r|story)\b.*"
                       r"\b(?:is|was))\s+(?:\w+\s+)?"
                       r"(?:wrong|false|incorrect|untrue|not true|not the case|not right|a mistake)\b", 2)  # re.I
#: after a take-back: a clause that says the value stands (", it is still 5432")
_STANDS = (r"\s*[,;:\u2014\u2013-]\s*(?:it|that|this|the\s+\w+)?\s*(?:is|was|[\u2019']s|stays?|remains?)\s+"
           r"(?:still|unchanged|the\s+same)\b")
#: the next sentence, said alone, that calls the claim before it false ("Not true.", "Wrong."); not a
#: noun's adjective ("That is wrong info in the wiki.", test28b Z3)
WRONG_NEXT_RE = LazyPattern(r"\W*(?:(?:that|this|it)(?:[\u2019']s|\s+(?:is|was))\s+(?:\w+\s+)?"
                            r"(?:wrong|false|incorrect|untrue|not true|not the case|not right|a mistake)\b"
                            r"(?![ \t]+(?!(?:and|but|so|or|because|since|as|though|anyway|either|too|btw|by|i|we|it|"
                            r"they|you|he|she|again|sorry)\b)\w)"   # "That is wrong info in the wiki." rejects no claim
                            r"|(?:not true|wrong|false|incorrect|nope)\W*$"
                            r"|(?:" + "|".join(TAKE_BACK_PHRASES) + r")\b(?=\s*(?:[.!]|$)|" + _STANDS + ")"
                            r"|(?:" + "|".join(SOFT_TAKE_BACK_PHRASES) + r")\b(?=" + _STANDS + "))", 2)
#: (re.I, matched at the start; the last lines: the person taking back what they just said
#: (``core.takeback.TAKE_BACK_PHRASES``, the phrases capture reads; a soft one, "Actually, it is still 5432", only before
#: a clause saying the value stands), "Just kidding,
#: it is still 5432.", "Scratch that."; not "Never mind the docs", test30c T21, nor "Never mind, I'll update the
#: runbook myself", test31c W4: after a comma only a clause saying the value stands)

#: the clause after the value's that calls it false ("moved to port 6543 - not true, it's still 5432", test28b Z3;
#: "… to 6543, just kidding", test30c T21)
FALSE_NEXT_RE = LazyPattern(r"\W*(?:not true|untrue|false|wrong|incorrect|nope|just kidding|kidding|j/?k)\b", 2)  # re.I (at the start)

#: a clause's end right after a rejection that opens a sentence ("That is wrong, it moved to port 7000")
CLAUSE_BREAK_RE = LazyPattern(r"\s*(?:[,;:\u2014\u2013-]|but\b)", 2)  # re.I

#: a clause that says what is to happen, not what happened ("will move to port 6543 next year", "we plan to
#: move it"): a plan is no change yet (test27b X7) …
FUTURE_RE = LazyPattern(r"\b(?:will|shall|going to|gonna|plan(?:s|ned|ning)? to|intend(?:s|ed)? to|scheduled to|"
                        r"about to|might|should|want(?:s|ed)? to (?:move|switch|migrate|change|upgrade)|tomorrow|"
                        r"next (?:week|month|year|quarter|sprint))\b|[\u2019']ll\b", 2)  # re.I (read before the value: "… moved to 6543, the app will …")
#: … unless it says the change holds from now ("from today keys will get 500 requests per minute")
NOW_RE = LazyPattern(r"\b(?:now|today|tonight|this morning|from here on|henceforth|already|"
                     r"(?:effective|starting|as of) (?:today|immediately|now))\b",
                     2)  # re.I

#: a sentence that only supposes ("Assume the shop database moved to port 6543 and update the config"),
#: or a clause that does ("if it moved to 6543, …"): no statement (test27 V27)
SUPPOSE_RE = LazyPattern(r"\W*(?:\w+,\s*)?(?:assume|assuming|suppose|supposing|imagine|pretend|hypothetically|i hope|hopefully|"
                         r"let[\u2019']?s say|let us say|say that|what if)\b", 2)  # re.I (matched at the start)
IF_RE = LazyPattern(r"\W*(?:and\s+|but\s+|or\s+)?(?:if|unless|in case|whether)\b", 2)  # re.I (a clause's start)


def states(text: str, value: str) -> bool:
    """Rules 8 and 10, and every rule of a turn that supersedes another:
    whether a sentence of ``text`` (its first 4,000 characters) that holds
    ``value`` (normalized, as ``timeline.values_of`` gives it) is a
    statement of a change that happened:

    * it neither ends with "?" nor opens with a word of
      :data:`ASKING_WORDS` ("is the staging db on 6543 now?" asks);
    * it does not suppose (:data:`SUPPOSE_RE`: "Assume the database moved
      to port 6543 and update the config", test27 V27);
    * it does not turn the change down (:data:`REJECTION_RE`: "Bob
      suggested the move to port 6543 but we rejected it"), nor call it
      false, in itself or in the sentence after it (:data:`WRONG_RE`,
      :data:`WRONG_NEXT_RE`: "Ops says the db moved to port 6543. That is
      wrong.", test27b X7; "The claim that … is false."; nor taken back:
      "… changed to 6543. Just kidding, it is still 5432.", test30c T21), nor is it called
      false by the clause after it (:data:`FALSE_NEXT_RE`: "… moved to
      port 6543 - not true, it's still 5432", test28b Z3); a rejection
      that opens the sentence rejects what came before
      (:func:`_after_rejection`: "That is wrong, it moved to port 7000.");
      it does not hope ("I hope the db moved …");
    * a clause holding ``value`` (:data:`CLAUSE_SPLIT_RE`) neither denies
      it (:data:`NEGATION_RE`: "The database did not move to port 6543; it
      stays on 5432." states 5432, not 6543; "It is 6543, not 5432" states
      6543; "has not moved to port 6543" states nothing, test27 V5, test27b
      X7), nor opens with "if" (:data:`IF_RE`), nor says it is to happen
      (:func:`_planned`: "will move to port 6543 next year", "might",
      "should", "want to move", "next week", test28b Z3; not "from
      today keys will get 500 requests per minute")."""
    sentences = [m.group(0).strip() for m in SENTENCE_RE.finditer(text[:4000])]
    for i, sentence in enumerate(sentences):
        sentence = _after_rejection(_after_semicolon(sentence, value), value)
        if not sentence or value not in normalize(sentence) or \
                sentence.endswith("?") or sentence.split(None, 1)[0].lower() in ASKING_WORDS or \
                REJECTION_RE.search(sentence) or WRONG_RE.search(sentence) or SUPPOSE_RE.match(sentence):
            continue
        after = next((x for x in sentences[i + 1:] if x), "")
        if after and WRONG_NEXT_RE.match(after):
            continue
        clauses = CLAUSE_SPLIT_RE.split(sentence)
        held = [j for j, c in enumerate(clauses) if value in normalize(c)]
        if not held:
            clauses, held = [sentence], [0]
        if not all(NEGATION_RE.search(c) or IF_RE.match(c) or _planned(c, value) or
                   (j + 1 < len(clauses) and FALSE_NEXT_RE.match(clauses[j + 1]))
                   for j, c in ((j, clauses[j]) for j in held)):
            return True
    return False


def _after_rejection(sentence: str, value: str) -> str:
    """The part of ``sentence`` after a rejection of what came before it
    that opens it, where that part holds ``value`` in a clause of its own
    ("That is wrong, it moved to port 7000.": "it moved to port 7000.",
    test28b Z3); else ``sentence`` as it is ("That is wrong that it moved
    to 7000" rejects the value itself)."""
    m = WRONG_NEXT_RE.match(sentence)
    if m is None:
        return sentence
    rest = sentence[m.end():]
    cut = CLAUSE_BREAK_RE.match(rest)
    return rest[cut.end():].strip() if cut and value in normalize(rest) else sentence


def _after_semicolon(sentence: str, value: str) -> str:
    """The part of ``sentence`` after its last ``;`` where only that part
    holds ``value`` and the part before it rejects or calls false what it
    says (:data:`REJECTION_RE`, :data:`WRONG_RE`): "The report that said
    5432 was wrong; the shop db moved to 6543 this morning." states 6543
    (tl28c's left-out); else ``sentence`` as it is ("Bob suggested port
    6543; we rejected it" rejects 6543)."""
    if ";" not in sentence:
        return sentence
    head, _, tail = sentence.rpartition(";")
    if value in normalize(tail) and value not in normalize(head) and (REJECTION_RE.search(head) or WRONG_RE.search(head)) \
            and not (REJECTION_RE.search(tail) or WRONG_RE.search(tail)):
        return tail.strip()
    return sentence


#: a change said as done after a plan word, of another verb ("Tomorrow I'll tell them the db moved to 6543"): a
#: change word's past form, not after "have"/"be" ("should have moved", "will be moved") nor "if"/"whether"
DONE_RE = LazyPattern(r"\b(?:(have|has|had|be|been|being|if|whether)\s+)?(?:mov|migrat|switch|chang|upgrad|downgrad|"
                      r"bump|replac|renam|swapp|rais|increas|decreas|reduc|lower|scal|dropp|retir)ed\b", 2)   # re.I


def _planned(clause: str, value: str) -> bool:
    """Whether ``clause`` says ``value`` is to come: a word of
    :data:`FUTURE_RE` before it ("will move to port 6543 next year"; not
    "moved to 6543 and the app will need a restart"), none of
    :data:`NOW_RE` ("from today keys will get 500"), and no change said
    as done between the last such word and the value (:data:`DONE_RE`:
    "Tomorrow I'll tell them the db moved to port 6543" states 6543;
    tl28c's left-out)."""
    low = normalize(clause)
    at = low.find(value)
    if at <= 0 or NOW_RE.search(low) is not None:
        return False
    plan = None
    for plan in FUTURE_RE.finditer(low, 0, at):
        pass
    if plan is None:
        return False
    done = [m for m in DONE_RE.finditer(low, plan.end(), at)]
    return not done or any(m.group(1) for m in done) or _IF_WORD_RE.search(low, plan.end(), at) is not None


_IF_WORD_RE = LazyPattern(r"\b(?:if|whether)\b")


def may_restate(B: Item) -> bool:
    """Whether ``B`` may restate a quantity for rule 10: the person's
    turn, holding a change word."""
    return B.kind == "turn" and B.role == "user" and B.cue


def restates(A: Item, B: Item, pairs: Iterable[tuple[str, str]]) -> bool:
    """Rule 10, the same quantity restated: whether a pair of numbers
    (of ``A``, of ``B``; at most three pairs of kind ``int``
    or ``dec`` are read, :data:`PAIRS_READ`) counts one thing, where B *states* its number
    (:func:`states`): both are followed by one unit
    (``subjects.quantity_of``: "100 requests per minute per key" / "500
    requests per minute"), and the words their sentences say them of
    (``Quantity.words``: up to the number, verbs, change words and the
    like aside; a fact's with its key's last part) share two at least, one
    a question word both hold ("The API rate limit for the public gateway
    is 100 requests per minute" / "Bump the gateway limit: from today keys
    get 500 requests per minute.": gateway, limit).
    BM25 ranks such a terse later statement far below the earlier one, and
    it shares too few of its words for rule 3; the unit ties the two.
    The callers ask it only of the person's turn with a change word
    (:func:`may_restate`).  A pair is held back where a word both
    sentences hold is qualified apart in each (``subjects.qualified_apart``:
    "the public gateway" / "the staging gateway"), or where the values'
    subjects (``subjects.subjects_of``) share a word and ``compare`` reads
    them as siblings ("the staging gateway limit" / "the production
    gateway limit" for a question naming production); subjects with no
    word in common tell nothing here ("The public gateway API rate limit
    is 100 …" / "… from today keys get 500 …": the unit and the sentences'
    words say more than a subject read from the words before a verb)."""
    question = A.matched & B.matched
    if not question:
        return False
    asked = A.matched | B.matched
    n = 0
    for va, vb in pairs:
        if A.values.get(va) not in ("int", "dec") or B.values.get(vb) not in ("int", "dec"):
            continue
        n += 1
        if n > PAIRS_READ:
            break
        qb = quantity_of(B.text, vb) if states(B.text, vb) else None
        qa = quantity_of(A.text, va) if qb else None
        if qa is None or qb is None or qa.unit != qb.unit or qualified_apart(qa, qb):
            continue   # (another count, or the same count of a sibling: "the staging gateway")
        shared = (qa.words | _key_words(A) if A.kind == "fact" else qa.words) & qb.words
        if len(shared) < 2 or not shared & question:
            continue
        sa, sb = subjects_of(A.text, (va,)).get(va), subjects_of(B.text, (vb,)).get(vb)
        if sa and sb and set(sa.stems) & set(sb.stems) and compare(sa, sb, asked) is False:
            continue   # siblings: "staging gateway" / "production gateway"
        return True
    return False


def _key_words(A: Item) -> set[str]:
    """The stems of a fact's key's last part ("project gateway rate-limit":
    rate, limit; ``timeitems.fact_text`` puts the key on the first line)."""
    from objstore.index.analysis import index_terms  # deferred: tantivy
    head = A.text.split("\n", 1)[0].split()
    return set(index_terms(head[-1])) if head else set()


def answer_to(items: Sequence[Item], a: int, b: int) -> bool:
    """Rule 9, an exchange: whether item ``b`` answers the person's turn
    ``a`` ("Bump the gateway limit: … 500 requests per minute." / "Done:
    gateway/limits.py now allows 500 …"): ``a`` is a ``user`` turn, ``b``
    a later turn of its session (higher ``seq``) that is not the person's,
    and no ``user`` turn of that session among ``items`` comes between
    them.  Such a turn acknowledges or carries out the prompt; it never
    marks it as updated later.  (A prompt of the session said between the
    two but not among ``items`` is not seen: the answer to a later prompt
    is then taken for this one's, and marks nothing.)"""
    A, B = items[a], items[b]
    if A.kind != "turn" or B.kind != "turn" or A.role != "user" or B.role == "user" \
            or not A.session or B.session != A.session or B.seq <= A.seq:
        return False
    return not any(C.kind == "turn" and C.role == "user" and C.session == A.session and A.seq < C.seq < B.seq
                   for C in items)
