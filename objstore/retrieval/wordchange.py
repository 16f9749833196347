"""Word values that a later passage or a fact's history says were replaced.

The time rule (``objstore.retrieval.timeline``) reads as values only
tokens that look like a setting: a token with a digit or a capitalised
word.  "We deploy the web app with fabric" states a value in a lower-case
word, and "the web app now deploys with ansible; fabric is removed" replaces
it (tester test24's T2): neither holds a value the rule can read, so the
older turn stayed first and unmarked.  Reading every lower-case word as a
value would make any later passage that mentions other words "newer".  This
module lets a word count as a value only where the items compared say it
was replaced, so that the rule's own tests (same project, shared question
words, rule 4's share, siblings) then decide:

* **A change statement** names the replaced word X (:data:`_GONE`): "moved
  / moving / migrated / switched off X", "… away from X", "moved from X",
  "no longer uses X", "X is no longer …", "removed / dropped / retired /
  replaced / deprecated X", "X is (now) removed / gone / dropped / retired /
  deprecated / replaced", "instead of X".  A passage that merely mentions
  two words ("we compared fabric and ansible") names none, nor a question,
  a denial or a plan ("should we move off fabric?", "we won't drop it",
  "we could replace fabric": :data:`_NOT_YET_RE`).  X is a content
  word: no stop word, verb, number (numbers are the rule's own values),
  :data:`objstore.retrieval.subjects.GENERIC` word, nor a word of the
  question (that is the subject, not a value).
* **A current fact's history** names the words its older versions held and
  the current one dropped, where the current one says a word they did not
  ("web deploys with fabric" -> "web deploys with ansible": fabric).

For a word X replaced by item B (a change statement, made at B's time, or
a fact's history) and an item A that holds X as a word, of the same
project and sharing a question word with B (a turn; or a fact, where B is
the person's turn: tl30's P4 "The shop no longer uses Redis." against
``project/shop/cache`` "The shop uses Redis for caching", read by rule 8),
where A is older than the
statement (for a fact, whatever its date, as rule 4), neither names X
replaced itself nor (for a fact) holds a word the current version added,
and A's X and B's X are not stated of sibling subjects
(:func:`objstore.retrieval.subjects.compare`, "the replica no longer uses
pgbouncer" against "the primary uses pgbouncer"): A gets the value X (kind
``name``, as a capitalised word would be), and B the value ``"-X"`` (kind
``name``; a statement that X is gone, new at B's time, held by no older
item) and, a fact, X among its ``old_values`` (rule 4); a change statement
also counts as a change word (``Item.cue``).  The time rule then
supersedes A by B as for a number.  Pure, no I/O; one regular-expression
search per item, more only for the few items that hold a change statement.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from objstore.core.text import LazyPattern
from objstore.retrieval.subjects import COPULAS, GENERIC, VERBS, compare, normalize, subjects_of
from objstore.retrieval.timeline import Item

#: a cheap test before the patterns: a text without any of these names no replaced word
_HINT_RE = LazyPattern(r"\b(?:mov|migrat|switch|longer|remov|instead|drop|retir|deprecat|replac|ditch|gone)", 2)  # re.I
_DET = r"(?:(?:the|our|a|an|old|legacy|existing|whole)\s+)*"
_X = r"(?<![\w.])([^\W\d][\w+-]*(?:\.[^\W\d]\w*)*)"
#: the change statements (module docstring): group "x" is the replaced word,
#: "between" (a move) the words between the verb and "off" / "from".  The four
#: statements that name it share their end (``\s+`` + _DET + _X), written once
#: after their alternation: the same tries in the same order as four whole
#: alternatives ((A|B)C is AC|BC to a backtracking matcher), and a pattern that
#: compiles in two thirds of the time (~0.85 -> ~0.58 ms; most recalls compile it:
#: docs/benchmarks.md, "Session 25 (branch `rcl25`)")
_GONE = LazyPattern(
    r"(?:\b(?:mov|migrat|switch)\w*\s+(?P<between>(?:[\w-]+\s+){0,4}?)(?:off(?:\s+of)?|away\s+from|from)"
    r"|\bno\s+longer\s+(?:use[sd]?|using|runs?|needs?|relies\s+on|depends\s+on|\w+s\s+(?:with|via|on))"
    r"|\b(?:remov|drop|retir|replac|deprecat|ditch)(?:e|es|ed|ing|ped|ping)?"
    r"|\binstead\s+of)\s+" + _DET + _X.replace("([", "(?P<x>[", 1)
    + r"|\s(?:is|are|was|were|has\s+been|have\s+been|got)\s+(?:now\s+|also\s+)?"   # "X is removed": X read back
    r"(?:removed|gone|dropped|retired|deprecated|replaced|no\s+longer)\b", 2)   # re.I
#: the word that ends a text (the X of "X is removed")
_LAST_RE = LazyPattern(_X + r"\Z")
#: the end of the sentence a change statement is in
_END_RE = LazyPattern(r"[.!?\n]")
#: words just before a change statement that say it has not happened: a
#: denial, a modal or a plan ("we won't move off", "we could replace",
#: "planning to drop"); read from the sentence's start at most
_NOT_YET_RE = LazyPattern(r"(?:\b(?:not|never|could|should|might|may|would|will|shall|want|wants|plan|plans|planning"
                          r"|consider|considering|thinking|propose|proposed|suggest|suggested|going|if|whether)|n't|'ll)"
                          r"\W+(?:[\w-]+\W+){0,3}$", 2)
_WORD_RE = LazyPattern(r"(?<![\w.])[^\W\d][\w+-]*(?:\.[^\W\d]\w*)*(?<![.+-])")
#: characters of a text read, as ``timeline.values_of``
_LIMIT = 4000


def _gone_of(text: str) -> dict[str, str]:
    """The words ``text`` names replaced (normalized, unfiltered), each with
    the text whose end is the word, as the subject of the change is read
    from it (``objstore.retrieval.subjects``): the text before the change
    statement, the moved thing ("we moved the web app deploys off"), the
    word; never "instead of" or "no longer", which would be read as its
    subject ("ansible-playbook instead of fabric")."""
    out: dict[str, str] = {}
    for m in _GONE.finditer(text):
        end = _END_RE.search(text, m.end())
        if (end and end.group(0) == "?") or _NOT_YET_RE.search(text, max(0, m.start() - 48), m.start()):
            continue   # a question, a denial or a plan: "should we move off fabric?", "we won't drop it"
        w = m.group("x")
        if w and normalize(w) in _words(text[m.end():]):
            continue   # the word said again after it: still used ("no longer uses Redis 6, we upgraded to
            # Redis 7", "… directly; the proxy still fronts Redis": test31c W10)
        if w:
            probe = text[:m.start()] + " " + (m.group("between") or "") + " " + w
        else:
            last = _LAST_RE.search(text, max(0, m.start() - 60), m.start())
            if last is None:
                continue
            w, probe = last.group(1), text[:m.start()]
        out.setdefault(normalize(w), probe)
    return out


def _words(text: str) -> set[str]:
    """The normalized words of ``text`` (its first ``_LIMIT`` characters)."""
    return {normalize(w) for w in _WORD_RE.findall(text[:_LIMIT])}


def word_changes(items: Sequence[Item], old_bodies: Sequence[Collection[str]], question: Collection[str],
                 stems: Collection[str], terms_of: Callable[[str], Collection[str]]) -> list[Item]:
    """``items`` with the word values of the module docstring added, for
    ``timeline.order_by_time``.

    Args:
        items: the recalled items, as ``timeline.Item`` (a fact's ``text``
            is its key's words, a newline, its body).
        old_bodies: for each item, the bodies of a fact's older versions
            (empty for a turn or a fact without history).
        question: the question's words and stems (normalized): never a
            replaced word.
        stems: the question's content stems (``Item.matched`` is the
            part of them an item holds).
        terms_of: an item's text -> its content terms (stemmed, stop words
            dropped), as recall reads them for ``Item.terms``; called only
            for an item without values (recall reads no terms for those)
            that states or holds a replaced word.

    Returns a new list (the items are records; those unchanged are the same
    objects).  No error is raised for any text.
    """
    texts = [it.text[:_LIMIT] for it in items]
    items = list(items)
    st = set(stems)

    def read(i: int) -> Item:   # an item without values was given no terms by recall: read them now
        it = items[i]
        if not it.values and not it.terms and it.text:
            terms = set(terms_of(it.text))
            it = items[i] = it.replace(terms=terms, matched=st & terms)
        return it
    gone: list[set[str]] = [set() for _ in items]
    added: list[set[str]] = [set() for _ in items]
    said: list[dict[str, str]] = [{} for _ in items]   # word -> the text its subject is read from
    found = False
    for i, (it, text) in enumerate(zip(items, texts)):
        if it.role == "tool":
            continue
        if _HINT_RE.search(text):
            said[i] = _gone_of(text)
            gone[i] = set(said[i])
        if it.kind == "fact" and old_bodies[i]:
            old = set().union(*(_words(b) for b in old_bodies[i]))
            now = _words(text.partition("\n")[2] or text)
            if old - now and now - old:
                gone[i] |= old - now
                added[i] = now - old
        if gone[i] and not read(i).matched:
            gone[i], said[i] = set(), {}
        found = found or bool(gone[i])
    if not found:
        return items
    from objstore.index.analysis import QUERY_STOPWORDS, stem_tokens  # deferred: tantivy
    cand = sorted({w for g in gone for w in g})
    stems = dict(zip(cand, stem_tokens(tuple(cand))))
    q = set(question)

    def content(w: str) -> bool:
        return (len(w) > 1 and w not in QUERY_STOPWORDS and w not in GENERIC and w not in VERBS
                and w not in COPULAS and not w.endswith(("ed", "ing")) and w not in q and stems[w] not in q)

    gone = [{w for w in g if content(w)} for g in gone]
    added = [{w for w in a if w not in QUERY_STOPWORDS and w not in q} for a in added]
    if not any(gone):
        return items
    lows = [normalize(t) for t in texts]
    held: dict[int, set[str]] = {}

    def holds(a: int) -> set[str]:   # an item's words, read only for an item that may hold a replaced word
        if a not in held:
            held[a] = _words(texts[a]) if any(w in lows[a] for g in gone for w in g) else set()
        return held[a]
    new_values = [dict(it.values) for it in items]
    new_old = [set(it.old_values) for it in items]
    cue = [it.cue for it in items]   # (an item read() later keeps these: read() changes only terms)
    for b in range(len(items)):
        B = items[b]
        for x in gone[b]:
            for a in range(len(items)):
                A = items[a]
                if a == b or not (A.kind == "turn" or A.kind == "fact" and B.kind == "turn" and B.role == "user") \
                        or A.project != B.project or x not in lows[a] or x not in holds(a) or x in gone[a] \
                        or A.values.get(x, "name") not in ("name", "initial") or not (read(a).matched & B.matched):
                    continue
                A = items[a]
                fact = B.kind == "fact" and x not in said[b]   # (a fact's history, not its words)
                if fact:
                    if added[b] & holds(a):
                        continue   # the turn already says what the current version added
                else:
                    if A.time >= B.time:
                        continue
                    sa = subjects_of(texts[a], (x,), fact=A.kind == "fact").get(x)
                    sb = subjects_of(said[b][x], (x,)).get(x)
                    got = compare(sa, sb, A.matched | B.matched)
                    if got is False or got is None and A.kind == "fact" and sb is not None and sb.words:
                        continue   # stated of a sibling: the replica dropped it, not the primary (of a fact:
                        # of its own subject, or of none, "we replaced Redis": "the billing service no longer uses it")
                new_values[a].setdefault(x, "name")
                new_values[b]["-" + x] = "name"   # (the rule compares only items that state a value)
                if fact:
                    new_old[b].add(x)
                else:
                    cue[b] = True
    return [it if (v == it.values and o == it.old_values and c == it.cue)
            else it.replace(values=v, old_values=o, cue=c)
            for it, v, o, c in zip(items, new_values, new_old, cue)]


#: the person's own word that a ``user/`` fact's word X became Y (test29 P13, "I use vim as my editor"):
#: "from X to Y", "X -> Y", "dropped X for Y", "Y now, not X"; ``{x}``, ``{y}`` are filled in
_USER_CHANGES = (
    r"\bfrom\s+{x}\s+to\s+{y}\b",
    r"(?<![\w.]){x}\s*(?:-{{1,2}}>|=>|\u2192|\u21d2)\s*{y}\b",
    r"\b(?:dropp|ditch|replac|swapp|trad)(?:e|ed|ped)?\s+{x}\s+(?:for|with)\s+{y}\b",
    r"\b{y}\s+now\s*,?\s+not\s+{x}\b",
)
#: and, in a sentence that names the attribute (``{attr}``: the key's last word, "editor"), "switched /
#: moved to Y" ("I moved to helix as my editor") or "my <attribute> is Y now / these days"
_USER_TO = (r"\b(?:switch|mov|migrat|chang)(?:e|es|ed|ing)?\s+(?:over\s+)?to\s+{y}\b",
            r"\bmy\s+{attr}\s+(?:is|'s)\s+(?:now\s+)?{y}\s*,?\s+(?:now|these\s+days|nowadays)\b")
#: a word that may be the new value Y of a user/ fact: a lower-case word (a name such as "helix")
_USER_Y = r"(?P<y>[a-z][\w+-]*[\w+])"
#: words that say how a thing is, not which it is ("My editor is slow these days", tl30b's left-out): never Y
STATE_WORDS = frozenset("""
slow slower fast faster laggy buggy broken fine great good bad worse better awful terrible annoying weird flaky
unstable stable crashing sluggish unusable ok okay nice cool frozen stuck down up busy outdated heavy clunky janky
glitchy unresponsive perfect amazing horrible snappy quick responsive smooth noisy messy cluttered ugly pretty
fun boring painful solid reliable unreliable usable free expensive cheap old new different same open closed
""".split())
#: endings of such words: "sluggish", "useless", "wonderful", "unbearable", "enormous", "intrusive"
_STATE_ENDS = ("ish", "less", "ful", "able", "ible", "ous", "ive")


def user_word_changes(items: Sequence[Item], terms_of: Callable[[str], Collection[str]],
                      stems: Collection[str]) -> list[Item]:
    """``items`` with the words of a ``user/`` fact that the person's later
    turn says were replaced (test29 P13), for ``timeline.order_by_time``:
    a ``user/`` fact applies in every project, so a turn of the person
    (role ``user``, any project) later than the fact's version that says
    in so many words (:data:`_USER_CHANGES`, :data:`_USER_TO`) that a
    content word X of the fact's body became a word Y it does not hold
    (not a question, a denial nor a plan: :data:`_NOT_YET_RE`; Y not a
    stop word, verb or generic word, nor a word of how a thing is,
    :data:`STATE_WORDS` and their endings) gives the fact the value X and the
    turn the value ``"-X"`` (both kind ``name``, as :func:`word_changes`
    does), which rule 8 (``factchange.updates_fact``) reads as the fact
    changed.  A fact is known as ``user/`` by its text's first word (its
    key's words, ``timeitems.fact_text``).  ``terms_of`` and ``stems`` as
    for :func:`word_changes` (both items' terms are read when changed).
    Returns a new list; no error is raised for any text."""
    facts = [a for a, it in enumerate(items) if it.kind == "fact" and it.text.startswith("user ")]
    if not facts:
        return list(items)
    import re
    from objstore.index.analysis import QUERY_STOPWORDS  # deferred: tantivy
    out = list(items)
    st = set(stems)

    def plain(w: str) -> bool:
        return len(w) > 1 and w not in QUERY_STOPWORDS and w not in GENERIC and w not in VERBS \
            and w not in COPULAS and not w.endswith(("ed", "ing"))
    for a in facts:
        A = items[a]
        head, _, body = A.text[:_LIMIT].partition("\n")
        own = _words(body)
        xs = sorted(w for w in own if plain(w) and w not in head.split())
        last = normalize(head.split()[-1]) if len(head.split()) > 1 else ""
        attr = re.escape(last.replace("-", " ")) if re.fullmatch(r"[a-z]+(?:-[a-z]+)*", last) else ""
        for b, B in enumerate(items):
            if B.kind != "turn" or B.role != "user" or B.time <= A.time or not B.text:
                continue
            low = normalize(B.text[:_LIMIT])
            for x in xs:
                if x not in low and not (attr and re.search(rf"\b{attr}\b", low)):
                    continue
                pats = [(p.format(x=re.escape(x), y=_USER_Y, attr=attr), False) for p in _USER_CHANGES]
                if attr:   # "moved to Y": only in a sentence that names the attribute ("… as my editor")
                    pats += [(p.format(x=re.escape(x), y=_USER_Y, attr=attr), True) for p in _USER_TO]
                for p, named in pats:
                    m = re.search(p, low)
                    if m is None or m.group("y") in own or not plain(m.group("y")) \
                            or m.group("y") in STATE_WORDS or m.group("y").endswith(_STATE_ENDS):
                        continue   # (a state, not a new thing: "My editor is slow these days")
                    end = _END_RE.search(low, m.end())
                    start = max((low.rfind(c, 0, m.start()) for c in ".!?\n"), default=-1) + 1
                    if named and not re.search(rf"\b{attr}\b", low[start:end.start() if end else len(low)]):
                        continue
                    if (end and end.group(0) == "?") or _NOT_YET_RE.search(low, max(0, m.start() - 48), m.start()):
                        continue
                    A2, B2 = out[a], out[b]
                    ta = A2.terms or set(terms_of(A2.text))
                    tb = B2.terms or set(terms_of(B2.text))
                    out[a] = A2.replace(values={**A2.values, x: "name"}, terms=ta, matched=st & ta)
                    out[b] = B2.replace(values={**B2.values, "-" + x: "name"}, terms=tb, matched=st & tb, cue=True)
                    break
    return out
