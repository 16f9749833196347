"""Time in turn ranking: which recalled passage states a value that was
changed later.

BM25 ranks turns by words, not by time: when "the api runs on 8080" was said
in March and "we moved it to 8443" in June, both match the question and the
older one often matches it better.  This module decides, among the passages
and facts recall found for one question, which ones are **superseded**, so
that recall can put each of them below what superseded it and show it as
"updated later: …" (``objstore.retrieval.recall``), and the prompt gate can
refuse to inject a stale turn without the current fact
(``objstore.retrieval.context``).

Values.  The *values* of a text (:func:`values_of`) are its tokens that look
like a setting rather than prose: a token with a digit (``8080``, ``3.12``,
``v2``; type ``int``, ``dec`` or ``code``), an absolute path of two parts
or more, not a file's (``/srv/shop-new``; type ``code``) or a capitalised word inside
a sentence (``Vitest``, ``RabbitMQ``, ``Fly.io``, and ``Render`` in
"deploys go to Render" even where "render time" is said too; type
``name``); a sentence's first word only if it is never written in lower
case in the texts compared, no stop word and not shaped like a verb or
adverb (``Priya owns …`` yes, ``Upgraded …`` no), and then of the weaker
kind ``initial``: it may be replaced by a name but replaces none (rule 2).
Tokens that are words of the question are the subject, not values
(``Postgres`` in "which postgres version"), and a name held by more than
a tenth of the items compared (and more than two) is too common to tell
statements apart (a speaker's name in a chat).  Values are compared NFC +
casefolded.

First appearance.  A value's *first appearance* is the earliest time of an
item (turn timestamp, fact ``valid_from``) that holds it; an item's
*newness* is the latest first appearance of its values.  A passage that
repeats an old value in passing ("we used to use 8080", said after the move
to 8443) is as new as the value it repeats, not as its own date.

Rule.  Item B supersedes item A when all hold:

1. same project (``""`` counts as a project of its own);
2. A states a value and B states a value of a kind A also states
   (``int``/``dec``/``code``/``name``; a ``name`` also replaces an
   ``initial``) that A does not hold, first appearing after the newest
   first appearance of A's values of that kind;
3. B shares the question's subject with A: both hold one of the
   question's content words at least (stemmed), and B's content terms
   cover at least ``similar`` (default 0.3) of A's content terms' weight
   (a term weighs ``ln(1 + n / df)`` over the n items that state a value, so the
   words every candidate shares, such as the project's name, count
   little), unless B holds a word that announces a change
   (:data:`UPDATE_CUES`: now, no longer, switched, moved, upgraded, …);
   and in any case B's new value is not stated of a *sibling* of the
   subject A's value is stated of (:mod:`objstore.retrieval.subjects`):
   "The postgres analytics replica uses port 5439, separate from the
   primary." shares every word of "which port does the postgres primary
   use" with "The postgres primary uses port 5432.", but its subject is
   the replica, not the primary (the same for staging / production, v1 /
   v2 of an API, two services); B is held back when the pairs of its new
   values and A's whose subjects could be read (at most
   :data:`PAIRS_READ`; not in a tool's output) are all stated of
   siblings;
4. B is relevant enough: its relevance is at least ``share`` (default 0.2)
   times A's, unless B is a current fact one of whose older versions held
   a value A states (below): the key's own history ties the two, whatever
   BM25 says of a terse "Postgres 16 on port 5433" against a long turn;
   or a current fact of rule 6.  A fact with neither is held to the rule:
   sharing the words "postgres" and "port" does not make "pgbouncer
   listens on 6432" the answer about the primary's port;
5. B is a statement, not tool output: what a command printed (a file's
   content, a grep) shows what a file held at that moment, which is often
   the old value a person has just said they changed, so it never
   supersedes (it can still be superseded).

Newness strictly grows along "supersedes", so there is no cycle.  A current
fact also supersedes any turn that holds a value of one of the key's older
versions that the current version dropped (whatever the dates), as long as
rule 3 holds: "a current fact outranks the turns that state its older
values".

Rule 6, a fact that answers.  A current fact that *answers* (it holds
every question word the turn holds, verbs aside: "postgres primary port is
5432" for "which port does the postgres primary use") and states a value
of the same subject and attribute as a turn's value of that kind
(:func:`objstore.retrieval.subjects.compare` is True: one's subject words
hold the other's; both name one attribute, "port 5432" / "port is 5433",
where "keeps 200 connections" names none) needs neither rule 3's shared
words nor rule 4's share to supersede the turn, history or not; where it
states the turn's own value of the same subject, it goes before the turn
without marking it (it *confirms* the turn).  BM25 puts a long turn that repeats the question's
words above a terse fact; the fact is the current answer.

Rule 7, a question is not an answer.  A turn that only asks (:func:`asks`:
it states no value, and each of its sentences that holds a question word
is a question: "what port does the api use?") holds every word of the
question and often ranks first, yet says nothing of the value.  Every item
of its project that states a value and holds every question word the turn
holds, verbs aside (as rule 6: "The api listens on port 8080" for "what
port does the api use?"), goes before it, without marking it: it answers
what the turn only asked.  A turn whose question words are all verbs
("how do we deploy?") is left where it is: any passage with a number
would hold them.

Rule 8, a fact a later turn of the person says changed
(:func:`updates_fact`): a current fact is superseded, for ranking and
marking only, by a later turn of the person that states a new value of it
(``docs/design.md``, "A fact a later turn says has changed").  The prompt
hook's passages are judged by it too (``relations``' ``strict``).

Rule 11, the person's word first (test27b X2): a current fact the person
stated (role ``""``) goes before, without marking it, a current fact an
agent wrote (role ``agent``: trust other than ``user_stated``, under
another key: "shop database port: 6543" beside the person's "The shop
database is Postgres on port 5432") of the same project that states a
value of a kind it also states, where it holds every question word the
agent's holds, verbs aside (as rule 6).  BM25 puts the agent's terse
key-worded fact first; the person's is the one to trust.  Not for a
person's fact a later turn says changed (rule 8): then nothing is moved
(test28b Z11: the chain of waits lifted an empty "Noted." first).  Where
the person's fact was recorded after the agent's, holds no question word
the agent's lacks, and states a new value of a kind the agent's states, not
of a sibling (rule 3's subjects), it supersedes it ("updated later", test36
T20: a sub-agent's summary "… Also the db host is pg-7." under the person's
``db-host`` pg-9).

Rules 9 (an exchange: the answer to a prompt never supersedes it) and 10
(the same quantity restated by the person) are
:mod:`objstore.retrieval.restated`'s.

Rule 12, the identifier asked about.  When the question names an
identifier exactly (:func:`identifiers`: ``t39998``, ``m34.py``,
``test_login``), an item that holds it is superseded by no item that lacks
it and holds another identifier (:func:`another_id`: "fix flaky test
t38834" is no update of "fix flaky test t39998", test27 V31).

A turn that asks its new value ("is the gateway limit now 500 requests
per minute?", :func:`states`) supersedes nothing: a question changes no
value.

The rule serves questions about the present state; :func:`wants_current`
tells them from questions about the past or about everything that happened
("when did …", "what was …", "which … have we used"), for which recall
keeps the relevance order.

:func:`order_by_time` turns this into an order: items keep their relevance
order, except that an item is placed only after every item that supersedes
or confirms it (a stable topological order).  Everything here is pure (no
store, no I/O); cost is O(n²) for the n items compared (n ≤ a few dozen).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence

from objstore.core.record import Record
from objstore.core.text import LazyPattern
from objstore.retrieval.valueshape import another_id, identifiers, shape_of  # noqa: F401  (re-exported)
# the rules that compare two items' values (restated, factchange) are imported where values are compared (relations):
# a recall whose items state none (a needle's turns) loads neither (session 41, rec41b)
from objstore.retrieval.querywords import ASKING_WORDS
# UPDATE_CUES and normalize are defined with the subjects, which read them too
from objstore.retrieval.subjects import (COPULAS, GENERIC, UPDATE_CUES, VERBS, Subject, compare,  # noqa: F401  (re-exported)
                                         item_subject, normalize, one_head, subjects_of)


#: a token with a digit: 8080, 3.12, v2, 5433/tcp is two
_DIGIT_RE = LazyPattern(r"(?<![\w.])[\w.+-]*\d[\w.+-]*(?<![.+-])")
# The two patterns below open with the character they consume first, its "not after" test a two-character
# look-behind behind it: the same matches as the look-behind first ("(?<![\w.~/:-])~?/…", "(?<![\w.])([A-Z]…"),
# but re's search then skips to the next "/" or "~" (a capital) in C instead of trying the pattern at every
# position (tests/retrieval/test_value_patterns.py; docs/benchmarks.md, "Session 42 (branch rec42)").
#: an absolute path of two parts or more ("/srv/shop-new", "~/work/shop"), not a URL's or a relative one's tail;
#: a file's ("/Users/u/app/index.html": the last part holds a dot) is a mention far more often than a setting
_PATH_RE = LazyPattern(r"(?:~(?<![\w.~/:-]~)/|/(?<![\w.~/:-]/))[A-Za-z_][\w.-]*(?:/[\w.-]+)+/?")
#: a capitalised word (possibly with dots or internal capitals: Fly.io, RabbitMQ)
_NAME_RE = LazyPattern(r"([A-Z](?<![\w.][A-Z])[\w+-]*(?:\.[A-Za-z]\w*)*)")
_SENTENCE_START_RE = LazyPattern(r"(?:\A|[.!?]\s+|\n\s*|[\"'(\[]\s*)\Z")


_DEC_RE = LazyPattern(r"\d+\.\d+(?:\.\d+)*")


def _type_of(tok: str) -> str:
    if tok.isdigit():
        return "int"
    if _DEC_RE.fullmatch(tok):
        return "dec"
    return "code"


def values_of(text: str, subject: Iterable[str] = (), lower_words: set[str] | None = None,
              limit: int = 4000) -> dict[str, str]:
    """The values of ``text`` (module docstring): ``{normalized value: type}``.

    Args:
        subject: normalized words that are the subject (never values).
        lower_words: words seen in lower case in the texts compared (a
            sentence's capitalised first word among them is prose, not a
            name); None: no first word is a name.  A capitalised word
            inside a sentence is a name either way.
        limit: characters of ``text`` read.
    """
    text = text[:limit]
    subj = set(subject)
    out: dict[str, str] = {}
    # (normalize() inlined for ASCII tokens, and the ASCII test of an inner capital: a passage
    # has hundreds of candidates and this runs for each item of every recall)
    for m in _DIGIT_RE.finditer(text):
        tok = m.group(0).strip(".+-")
        if not tok or len(tok) > 40:
            continue
        v = tok.lower() if tok.isascii() else normalize(tok)
        if v not in subj and v not in out:
            out[v] = _type_of(tok)
    if "/" in text:   # a path names a place whatever its words: "/srv/shop-new" (test27 V21)
        for m in _PATH_RE.finditer(text):
            tok = m.group(0).rstrip("/.")
            if len(tok) <= 80 and tok.count("/") >= 2 and "//" not in tok and "." not in tok.rsplit("/", 1)[1]:
                v = tok.lower() if tok.isascii() else normalize(tok)
                if v not in subj and v not in out:
                    out[v] = "code"
    for m in _NAME_RE.finditer(text):
        tok = m.group(1)
        if len(tok) < 2:
            continue
        ascii_ = tok.isascii()
        v = tok.lower() if ascii_ else normalize(tok)
        if v in subj or v in out:
            continue
        rest = tok[1:]
        odd = (rest != rest.lower() if ascii_ else any(c.isupper() for c in rest)) \
            or "." in tok  # RabbitMQ, CircleCI, Fly.io
        if not odd and _sentence_start(text, m.start()):
            if _initial_name(v, lower_words):
                out[v] = "initial"  # a sentence's first word: prose as often as a name (a weaker kind)
            continue
        out[v] = "name"
    return out


def _sentence_start(text: str, pos: int) -> bool:
    """Whether ``text[pos]`` starts a sentence: ``_SENTENCE_START_RE``
    matches ``text[:pos]`` (the text's start, or ``.!?`` and whitespace, a
    newline, an opening quote or bracket, each then only whitespace), read
    backwards from ``pos`` instead of searching the whole prefix."""
    j = pos
    while j > 0 and text[j - 1].isspace():  # str.isspace is the \s of re
        j -= 1
    if "\n" in text[j:pos]:
        return True
    if j == 0:
        return pos == 0
    c = text[j - 1]
    return c in "\"'([" or (c in ".!?" and j < pos)


def _initial_name(v: str, lower_words: set[str] | None) -> bool:
    """Whether a capitalised first word of a sentence is taken for a name
    ("Priya owns the rotation"): never written in lower case in the texts
    compared, not a stop word, not shaped like a verb or adverb (-ed,
    -ing, -ly), not a word of courtesy (:data:`COURTESY`: "Please spawn a
    helper …" states no value, test37 T9.6)."""
    from objstore.index.analysis import QUERY_STOPWORDS  # deferred: tantivy
    return (lower_words is not None and v not in lower_words and v not in QUERY_STOPWORDS
            and not v.endswith(("ed", "ing", "ly", "'s")) and v.isalpha() and v not in VERBS and v not in COURTESY)


#: words that open a request or a reply, never a name ("Please …", "Thanks, …", "Sure, …")
COURTESY = frozenset("please pls thanks thank thx hey hi hello ok okay sorry yes yeah yep no nope sure great cool".split())


def lower_words_of(texts: Iterable[str]) -> set[str]:
    """Words written in lower case somewhere in ``texts`` (normalized)."""
    out: set[str] = set()
    for t in texts:
        out.update(w.lower() if w.isascii() else normalize(w)   # (normalize, inlined for ASCII)
                   for w in set(_LOWER_RE.findall(t[:4000])))
    return out


_LOWER_RE = LazyPattern(r"[a-z](?<![\w.][a-z])[\w.+-]*")   # "(?<![\w.])[a-z][\w.+-]*", its first letter first (_PATH_RE)
_WORD_RE = LazyPattern(r"\w+")



#: rule 11's kinds of value: a sentence's first word taken for a name is a name
_KIND_OF = {"int": "int", "dec": "dec", "code": "code", "name": "name", "initial": "name"}

#: A name held by more than this share of the items compared (and by more
#: than two) is no value: a name everyone uses, such as a speaker's.
COMMON_VALUE_SHARE = 0.1

#: Words of a question about the past or about everything that happened
#: ("when did we move", "what was the port", "which versions have we used"):
#: such a question wants the old statements as much as the new ones, so the
#: rule is not applied (:func:`wants_current`).
PAST_WORDS = frozenset("""
did was were had has have ago used before originally first previous previously earlier past ever
times would history
""".split())


def wants_current(queries: Iterable[str]) -> bool:
    """Whether a question asks for the present state ("which port does the
    api use", "what is the cache ttl"): none of its phrasings holds a word
    of :data:`PAST_WORDS` (case-folded words)."""
    for q in queries:
        if set(_WORD_RE.findall(normalize(q))) & PAST_WORDS:
            return False
    return True


class Item(Record):
    """One recalled item, as the rule sees it.

    Attributes:
        time: ms since epoch (turn timestamp, fact valid_from).
        project: the item's project ("" for none).
        values: ``{value: type}`` (:func:`values_of`).
        matched: the question's content terms the item holds.
        relevance: the retrieval score (higher is better; only ratios matter).
        kind: ``turn`` or ``fact``.
        old_values: for a current fact, the values of its older versions
            that the current version dropped.
        seq: a tie-breaker for items of one session at one time.
        terms: the item's content terms (stemmed, stop words dropped).
        cue: the item holds a word of :data:`UPDATE_CUES` (stop words
            included: "now").
        role: a turn's role (``user``, ``assistant``, ``tool``); a fact's
            ``""``, or ``agent`` for one an agent wrote (rule 11).  A ``tool`` item never supersedes (rule 5).
        text: the text the values were read from (a fact: key words, a
            newline, its body), for their subjects (rule 3,
            ``objstore.retrieval.subjects``); ``""``: subjects unknown.
        session: a turn's session (``""``: unknown), with ``seq`` for
            the exchange rule (:func:`answer_to`).
        ids: the identifiers the question names exactly that the item
            holds (:func:`identifiers`; rule 12).
        others: the other identifiers it holds (rule 12; read only when
            the question names one).
    """

    __slots__ = ("time", "project", "values", "matched", "relevance", "kind", "old_values", "seq", "terms", "cue",
                 "role", "text", "session", "ids", "others")

    def __init__(self, time: int, project: str, values: dict[str, str], matched: set[str], relevance: float,
                 kind: str = "turn", old_values: set[str] | None = None, seq: int = 0, terms: set[str] | None = None,
                 cue: bool = False, role: str = "", text: str = "", session: str = "",
                 ids: frozenset[str] = frozenset(), others: frozenset[str] = frozenset()) -> None:
        # (a mutable record: attribute stores, ~15x cheaper than set_fields' slot setters)
        self.time, self.project, self.values, self.matched, self.relevance = time, project, values, matched, relevance
        self.kind, self.old_values = kind, set() if old_values is None else old_values
        self.seq, self.terms, self.cue, self.role = seq, set() if terms is None else terms, cue, role
        self.text, self.session, self.ids, self.others = text, session, ids, others


def superseders(items: Sequence[Item], *, share: float = 0.2, similar: float = 0.3) -> list[list[int]]:
    """For each item, the indexes of the items that supersede it (the rule
    in the module docstring), newest superseder first."""
    return relations(items, share=share, similar=similar)[0]


def relations(items: Sequence[Item], *, share: float = 0.2, similar: float = 0.3,
              strict: Collection[int] = ()) -> tuple[list[list[int]], list[list[int]]]:
    """``(superseders, confirmers)``: for each item, the indexes of the
    items that supersede it (the rule in the module docstring, newest
    first), and of the current facts that state its value of the same
    subject and answer the question (rule 6): these go before it without
    marking it.  ``strict``: indexes of turns judged as a fact is, by rule
    8 alone (the prompt hook's passages against the later turns it
    searched for, ``laterturns.later_turns``: found by a search for change
    words, not ranked for the question, so rule 3's shared words and rule
    4's share say nothing of them)."""
    vdf: dict[str, int] = {}
    for it in items:
        for v, t in it.values.items():
            if t in ("name", "initial"):
                vdf[v] = vdf.get(v, 0) + 1
    common = {v for v, n in vdf.items() if n > max(2, COMMON_VALUE_SHARE * len(items))}
    if common:  # a value most candidates hold (a speaker's name) tells no statement from another
        items = [it.replace(values={v: t for v, t in it.values.items() if v not in common}) for it in items]
    first: dict[str, int] = {}
    for it in items:
        for v in it.values:
            first[v] = min(first.get(v, it.time), it.time)

    def newness(it: Item) -> dict[str, int]:
        out: dict[str, int] = {}
        for v, t in it.values.items():
            out[t] = max(out.get(t, first[v]), first[v])
        return out

    new = [newness(it) for it in items]
    tdf: dict[str, int] = {}
    stating = [it for it in items if it.values]
    for it in stating:
        for t in it.terms:
            tdf[t] = tdf.get(t, 0) + 1
    tw = {t: math.log(1.0 + len(stating) / n) for t, n in tdf.items()}
    subj: dict[tuple[int, str], Subject | None] = {}

    def subject_of(i: int, v: str) -> Subject | None:
        got = subj.get((i, v), False)
        if got is False:
            got = subj[i, v] = item_subject(items[i], v)
        return got

    def same(a: int, b: int, pairs: Iterable[tuple[str, str]], want_true: bool = False,
             measure: str = "") -> bool | None:
        """Rule 3's subjects: True if a pair of values (of ``a``, of ``b``)
        is stated of one subject, False if every pair whose subjects are
        both read is stated of siblings (and one is), else None; unless
        ``want_true``, the first pair neither of siblings nor unread ends
        the search.  At most :data:`PAIRS_READ` pairs are read; a tool's
        output is not read (None).  ``measure`` (rule 6): ``"same"``, a
        pair is True only if both name one attribute ("port 5432" / "port
        is 5433", not "keeps 200 connections"); ``"agree"``, unless they
        name two."""
        if not items[a].text or not items[b].text or items[a].role == "tool":
            return None
        question = items[a].matched | items[b].matched
        sibling = undecided = False
        n = 0
        for va, vb in pairs:
            if items[a].values[va] == "initial" or items[b].values[vb] == "initial":
                continue   # a sentence's first word ("Done", "Still"): no subject to read
            n += 1
            if n > PAIRS_READ:
                break
            sa, sb = subject_of(a, va), subject_of(b, vb)
            if not (sa and sb and (sa.words or sa.key) and (sb.words or sb.key or sb.named)):
                continue   # a subject not read ("we moved it to 5433"): this pair tells nothing (a fact's key, test28 Y6)
            got = compare(sa, sb, question)
            if got and not measured(sa, sb, measure, va, vb):
                got = None   # (rule 6: the same thing, but maybe not the same setting of it)
            if got or (got is None and not want_true):
                return got
            sibling, undecided = sibling or got is False, undecided or got is None
        return False if sibling and not undecided else None

    def of_question(b: int, need: set[str]) -> bool:
        """Rule 7: whether item ``b``'s values may be stated of what the
        question (its stems ``need``) asks about: not every subject read
        (at most :data:`PAIRS_READ`) is a sibling of the question's words
        ("The postgres analytics replica uses port 5439, separate from the
        primary." does not answer "which port does the postgres primary
        use?")."""
        from objstore.retrieval.restated import PAIRS_READ  # deferred: loaded by only_asks (asks) already
        asked = Subject(tuple(sorted(need - _generic_stems())), "", True)
        sibling, n = False, 0
        for v, t in items[b].values.items():
            if t == "initial" or not items[b].text:
                continue
            n += 1
            if n > PAIRS_READ:
                break
            sb = subject_of(b, v)
            if not (sb and sb.words):
                return True
            mine = asked
            if sb.attribute:   # what is measured ("port 5439") names no subject: left out of the question's too
                from objstore.index.analysis import stem_tokens  # deferred: tantivy
                drop = {sb.attribute, *stem_tokens((sb.attribute,))}
                mine = Subject(tuple(w for w in asked.words if w not in drop), "", True)
            if compare(mine, sb, need) is not False:
                return True
            sibling = True
        return not sibling

    out: list[list[int]] = [[] for _ in items]
    ahead: list[list[int]] = [[] for _ in items]
    for a, A in enumerate(items):   # rule 7: what answers a turn that only asks goes before it
        if A.values or A.kind != "turn" or A.role == "tool" or not A.matched:
            continue
        if only_asks(A.text, A.matched):
            need = A.matched - _verb_stems()
            ahead[a] = [b for b, B in enumerate(items) if b != a and B.values and B.role != "tool"
                        and B.project == A.project and need <= B.matched and of_question(b, need)]
    if sum(1 for it in items if it.values and it.matched) > 1 or any(
            it.values and it.matched and (it.kind == "fact" or i in strict) for i, it in enumerate(items)):
        # every rule below compares a value stated by an item the question matched (a fact's, or a turn's with
        # another's): rules 9, 10 and the sentences read (restated); rule 8 and rule 2's value pairs (factchange),
        # imported only then (a needle's turns state values around words the question does not match)
        from objstore.retrieval.restated import PAIRS_READ, answer_to, may_restate, restates, states  # deferred: above
        from objstore.retrieval.factchange import SUPERSEDES, ValuePairs, measured, updates_fact  # deferred: above
    replaced: dict[str, set[int]] = {}  # value -> items that superseded an item holding it
    for a, A in enumerate(items):
        if not A.values or A.kind != "turn" or not A.matched:
            continue
        a_terms = None  # its terms' weight, summed when first needed
        for b, B in enumerate(items):
            if b == a or B.role == "tool" or B.project != A.project or not B.values or not (B.matched & A.matched):
                continue
            if another_id(A, B):
                continue  # rule 12: a later turn about another identifier than the one asked about
            if answer_to(items, a, b):
                continue  # rule 9: the answer to a prompt does not update it ("Done: … now 500 …")
            old_of_fact = B.kind == "fact" and bool(B.old_values & set(A.values)) \
                and not (set(B.values) & set(A.values) - B.old_values)
            weak = not old_of_fact and B.relevance < share * A.relevance
            if weak and B.kind != "fact" and not may_restate(B):
                continue  # (a fact whose older version held A's value needs no share: rule 4; nor one of rule 6)
            kinds = {ta for v, t in B.values.items() if v not in A.values
                     for ta in SUPERSEDES[t] if ta in new[a] and first[v] > new[a][ta]}
            pairs = ValuePairs(A, B, kinds, first, new[a])
            if not kinds and not old_of_fact:
                if B.kind == "fact" and _answers(B, A) and \
                        same(a, b, ((v, v) for v in A.values if v in B.values), True, "agree"):
                    ahead[a].append(b)  # rule 6: a current fact that says the same of the same subject
                continue  # (before the similarity below, the costly test)
            if not old_of_fact:
                answers = B.kind == "fact" and _answers(B, A)
                subject = same(a, b, pairs, True, "same") if answers else None
                if not subject:  # (rule 6: a fact that answers, of the same subject, needs neither test)
                    apart = weak
                    if not apart and not B.cue and A.terms:
                        if a_terms is None:
                            a_terms = sum(tw[t] for t in A.terms)
                        apart = sum(tw[t] for t in A.terms & B.terms) < similar * a_terms
                    restated = None   # (rule 10: the person restating the quantity needs none of these tests)
                    if apart and not (restated := may_restate(B) and restates(A, B, pairs)) \
                            and not (B.kind == "fact" and not answers and same(a, b, pairs, True, "same")):
                        continue   # (a fact of the same subject and attribute, words apart: test36 T9)
                    if (subject if answers else same(a, b, pairs)) is False and not (
                            restated if restated is not None else may_restate(B) and restates(A, B, pairs)):
                        continue  # rule 3: stated of a sibling ("the replica" against "the primary")
            if B.kind == "turn" and B.text and not any(vb.startswith("-") or states(B.text, vb) for _va, vb in pairs):
                continue   # it asks ("is the gateway limit now 500 …?"): a question changes nothing
                # (a "-word" is wordchange's: the word said replaced, not a value the text holds)
            out[a].append(b)
            for v, t in A.values.items():
                if (t in kinds or old_of_fact) and v not in B.values:
                    replaced.setdefault(v, set()).add(b)
    # an item that only repeats replaced values (of a kind) is superseded by what replaced them
    for c, C in enumerate(items):
        if C.kind != "turn" or not C.matched:
            continue
        by_kind: dict[str, list[str]] = {}
        for v, t in C.values.items():
            by_kind.setdefault(t, []).append(v)
        for t, vs in by_kind.items():
            if all(v in replaced for v in vs):
                for v in vs:
                    for b in replaced[v]:
                        if b != c and b not in out[c] and items[b].project == C.project and not answer_to(items, c, b) \
                                and not another_id(C, items[b]) \
                                and not set(items[b].values) & set(vs) \
                                and same(c, b, ((u, w) for u in vs for w, tw_ in items[b].values.items()
                                                if t in SUPERSEDES[tw_])) is not False:
                            out[c].append(b)
    for a, A in enumerate(items):   # rule 8: a later user turn that says a fact's value changed
        if (A.kind == "fact" or a in strict) and A.values and A.matched:
            out[a] = [b for b, B in enumerate(items)
                      if not another_id(A, B) and updates_fact(A, B, new[a], first, same, a, b)]
            for b in out[a]:   # (it no longer confirms, nor supersedes, the turn that replaces it: test27 V22)
                ahead[b] = [x for x in ahead[b] if x != a]
                out[b] = [x for x in out[b] if x != a]
    for a, A in enumerate(items):   # rule 11: the person's fact before an agent's on the same question
        if A.kind == "fact" and A.role == "agent" and A.values and A.matched:
            need, kinds = A.matched - _verb_stems(), {_KIND_OF[t] for t in A.values.values()}
            ahead[a] += [b for b, B in enumerate(items) if B.kind == "fact" and not B.role and B.project == A.project
                         and need <= B.matched and kinds & {_KIND_OF[t] for t in B.values.values()}
                         and not out[b] and b not in ahead[a]]   # (a fact a later turn changed waits: Z11)
            for b in ahead[a]:   # … and one recorded later with a new value of the same thing supersedes it (T20)
                B = items[b]
                kinds = {ta for v, t in B.values.items() if v not in A.values
                         for ta in SUPERSEDES[t] if ta in new[a] and first[v] > new[a][ta]}
                if B.kind == "fact" and not B.role and B.time > A.time and kinds \
                        and B.matched - _verb_stems() <= need and same(a, b, ValuePairs(A, B, kinds, first, new[a])) is not False:   # (not a sibling's)
                    out[a].append(b)
    for a in range(len(items)):  # values of two kinds that moved apart: no order between them
        out[a] = [b for b in out[a] if a not in out[b]]
    last = [max(n.values(), default=it.time) for n, it in zip(new, items)]
    for a in range(len(items)):
        out[a].sort(key=lambda b: (-last[b], -items[b].time, b))
    return out, ahead


def _answers(fact: Item, turn: Item) -> bool:
    """Rule 6: whether ``fact`` answers the question at least as closely as
    ``turn``: it holds every question word the turn holds, but for verbs
    (a fact says "port is 5432" where a turn says "uses port 5432")."""
    return turn.matched - _verb_stems() <= fact.matched


#: a "?" or a sentence opened by an asking word: a text without either asks nothing
_MAY_ASK_RE = LazyPattern(r"\?|(?:\A|[.!?\n])\s*(?:" + "|".join(sorted(ASKING_WORDS)) + r")\b", 2)   # re.I


def may_ask(text: str) -> bool:
    """Whether :func:`asks` can be true of ``text`` (a cheap test, no
    stemming): it holds a "?" or a sentence opened by an asking word."""
    return _MAY_ASK_RE.search(text, 0, 4000) is not None


def asks(text: str, terms: Collection[str]) -> bool:
    """Rule 7: whether ``text`` (a turn's) only asks about ``terms`` (the
    question's stems it holds): every sentence of its first 4,000
    characters that holds one of ``terms`` is a question, and one does: it
    ends with "?" or opens with a word of :data:`ASKING_WORDS` ("what port
    does the api use?", "hi. which port does the api use? thanks", a
    prompt typed as "which port does the api use").  The caller has
    checked that it states no value."""
    from objstore.index.analysis import index_terms  # deferred: tantivy
    from objstore.retrieval.restated import SENTENCE_RE  # deferred: a turn that may ask only (relations)
    want = set(terms)
    asked = False
    for m in SENTENCE_RE.finditer(text[:4000]):
        sentence = m.group(0).strip()
        if not sentence or not want.intersection(index_terms(sentence)):
            continue
        if not (sentence.endswith("?") or sentence.split(None, 1)[0].lower() in ASKING_WORDS):
            return False
        asked = True
    return asked


def only_asks(text: str, stems: Collection[str]) -> bool:
    """Rule 7 for a text that states no value: whether it only asks about
    the question's stems ``stems`` it holds, verbs aside (:func:`asks`;
    False where they are all verbs: "how do we deploy?")."""
    need = set(stems) - _verb_stems()
    return bool(need) and may_ask(text) and asks(text, need)


_GENERIC_STEMS: list[frozenset[str]] = []


def _generic_stems() -> frozenset[str]:
    """The stems of ``subjects.GENERIC`` (computed once)."""
    if not _GENERIC_STEMS:
        from objstore.index.analysis import stem_tokens  # deferred: tantivy
        _GENERIC_STEMS.append(frozenset(stem_tokens(tuple(sorted(GENERIC)))))
    return _GENERIC_STEMS[0]


_VERB_STEMS: list[frozenset[str]] = []


def _verb_stems() -> frozenset[str]:
    if not _VERB_STEMS:
        from objstore.index.analysis import stem_tokens  # deferred: tantivy
        words = tuple(sorted(VERBS | COPULAS))
        _VERB_STEMS.append(frozenset(stem_tokens(words)) | frozenset(words))
    return _VERB_STEMS[0]


def order_by_time(items: Sequence[Item], *, share: float = 0.2, similar: float = 0.3) -> tuple[list[int], list[list[int]]]:
    """The order of ``items`` (given best first) with time: an item that
    supersedes others takes the place of the best of them, and every item
    comes after all the items that supersede it; otherwise the given order
    stays.  Returns ``(order, superseders)`` (indexes into ``items``)."""
    sup, ahead = relations(items, share=share, similar=similar)
    n = len(items)
    before = [s + [b for b in h if b not in s] for s, h in zip(sup, ahead)]  # what must come before each item
    supersedes: list[list[int]] = [[] for _ in range(n)]
    for a in range(n):
        for b in before[a]:
            supersedes[b].append(a)
    key = list(range(n))
    for _ in range(n):  # propagate along chains (C over B over A): at most n rounds
        changed = False
        for b in range(n):
            k = min([key[b], *(key[a] for a in supersedes[b])])
            if k < key[b]:
                key[b], changed = k, True
        if not changed:
            break
    pending = sorted(range(n), key=lambda i: (key[i], i))
    placed: set[int] = set()
    order: list[int] = []
    while pending:
        for i in pending:
            if all(b in placed for b in before[i]):
                break
        else:  # a cycle (not produced by the rule): keep the given order
            i = pending[0]
        pending.remove(i)
        placed.add(i)
        order.append(i)
    return order, sup
