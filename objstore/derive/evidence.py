"""Derive's evidence check: is a proposed value stated by the turns it cites?

Two deterministic tests (``objstore.derive.run.decide`` applies them):

* **Words** (:func:`content_words`): every content word of the value must
  occur in a cited turn.  Words are compared as the search index compares
  them, through its one analysis (``objstore.index.analysis``: NFC, the
  ``mem_words`` tokens, lowercase, ASCII folding, the Snowball English
  stemmer); :data:`STOPWORDS` and :data:`NEGATIONS` are not content, so "uses" is evidenced
  by "use" and "Café" by "cafe".  A value with no content word at all
  ("It is not.", "🔥🔥 !!!") has nothing to check and is not evidence of
  anything: :func:`unevidenced` reports it.
* **Polarity** (:func:`contradicted`): a value must not invert its evidence.
  Texts are cut into sentences (at ``. ; ! ?`` and line ends) and those into
  clauses (at ``, :``); a clause is negated when it holds a negation word
  (:data:`NEGATIONS`; a contracted ``n't``, the tokens ``…n`` ``t``, reads as
  ``not``).  A "not" or "cannot" that ends its clause after another word
  dangles ("We do not, however, use X"): it negates the later clauses of its
  sentence up to one that turns (:data:`TURNS`: "but", "yet", …); an answer or
  an interjection ("No, the service uses X", "Oh no, we lost X") is not carried.  For each clause of the value, the
  cited clauses sharing the most content words with it are found; when
  every one of them has the other polarity, the cited turns say the
  opposite (a tie between polarities is not a contradiction: a request
  phrased as a question, "can you replace …?", still evidences "replace …").  A
  heuristic, in the spirit of the word test: it catches "does use" against
  "does not use"; it does not parse.

An episode (the model's summary of a session) is judged otherwise
(:func:`episode_unevidenced`): its outcome and lesson by the values they
assert (:func:`asserted`, :func:`claims_contradicted`), not by their plain
words, since a lesson generalises in its own words (test30c T9).

Deferred imports: the index's analysis loads tantivy, which ``mem derive``
needs and no hook imports.
"""

from __future__ import annotations

import re

from objstore.capture.statements import taken_back_in
from objstore.core.takeback import DENIAL, DENIAL_WORDS
from objstore.derive.asides import ASIDE_MORE, HEARSAY, IGNORE, PAST_FIRST, QUOTE, UNSURE

#: words that are not content: what a value may hold that no cited turn need
#: show.  Kept short on purpose (every word here goes unchecked), so not the
#: index's ``QUERY_STOPWORDS``, which drop "only", "more", "same", "over" …
STOPWORDS = frozenset("""a an and are as at be been but by can could did do does for from had has have he her his
i if in into is it its me my of on or our she so that the their them then there these they this to
too us was we were what when where which who will with would you your""".split())
#: words that negate the clause they stand in (folded, as :func:`_tokens` yields them)
NEGATIONS = frozenset("not no never nor neither none nobody nothing nowhere cannot without".split()
                      # the same in the languages sessions hold (test38 T2: "nicht 5432", "n'est pas 5432", "non è",
                      # "不是5432": the index cuts CJK text a character a token; "no" is Spanish too)
                      + "nicht kein keine keinen keiner nie niemals pas jamais non nunca nao niet geen 不 没 沒 别 別".split())
#: words that, opening a clause, end a dangling negation's reach ("It is not, but X uses Y")
TURNS = frozenset("but yet instead rather though although whereas".split())
_SENTENCE = re.compile(r"[.;!?\n]+")
_CLAUSE = re.compile(r"[,:]+")


def _tokens(text: str) -> list[str]:
    """The index's tokens of ``text``, a contracted negation ("doesn't":
    ``doesn`` ``t``) read as ``not``."""
    from objstore.index.analysis import tokenize  # deferred: the index's analysis imports tantivy
    toks = tokenize(text)
    for i in range(len(toks) - 1, 0, -1):
        if toks[i] == "t" and toks[i - 1].endswith("n"):
            toks[i - 1:i + 1] = ["not"]
    return toks


def _stems(tokens: list[str]) -> set[str]:
    """The stems of the content tokens (the index's stopwords and the
    negations out: polarity is the other test's)."""
    from objstore.index.analysis import stem_tokens  # deferred: tantivy
    return set(stem_tokens(tuple(t for t in tokens if t not in STOPWORDS and t not in NEGATIONS)))


def content_words(text: str) -> set[str]:
    """The content words of ``text`` as index stems (module doc, "Words"):
    ``content_words("The service uses Redis")`` -> ``{"servic", "use", "redi"}``;
    ``set()`` for a text without one.  Never raises for a ``str``."""
    return _stems(_tokens(text))


def unevidenced(value: str, cited: list[str]) -> str:
    """Why ``value`` is not evidenced by the texts ``cited``, else "": it has
    no content word, or some of its content words are in none of them."""
    words = content_words(value)
    if not words:
        return "the value has no content word"
    missing = words - content_words(" ".join(cited))
    return f"{len(missing)} word(s) in none of the cited turns" if missing else ""


def _negated(tokens: list[str]) -> bool:
    return any(t in NEGATIONS for t in tokens)


def _clauses(text: str) -> list[tuple[set[str], bool]]:
    """``(content stems, negated)`` of each clause of ``text`` that has a
    content word, a dangling negation carried (module doc, "Polarity")."""
    out = []
    for sentence in _SENTENCE.split(text):
        dangling = False
        for part in _CLAUSE.split(sentence):
            toks = _tokens(part)
            if toks and toks[0] in TURNS:
                dangling = False
            stems = _stems(toks)
            if stems:
                out.append((stems, dangling or _negated(toks)))
            if len(toks) > 1 and toks[-1] in ("not", "cannot"):
                dangling = True
    return out


def contradicted(value: str, cited: list[str]) -> str:
    """Why the ``cited`` texts say the opposite of ``value`` (module doc,
    "Polarity"), else "".  ``contradicted("The service does use redis",
    ["No, the service does not use redis."])`` -> a reason."""
    evidence = [c for text in cited for c in _clauses(text)]
    for stems, negated in _clauses(value):
        best, polarities = 0, set()
        for estems, eneg in evidence:
            n = len(stems & estems)
            if n > best:
                best, polarities = n, {eneg}
            elif n == best and n:
                polarities.add(eneg)
        if best and polarities == {not negated}:
            side = "negates" if not negated else "affirms"
            return f"the cited turns' closest clause {side} what the value states"
    return ""


#: a bare value token (a name, a version, a host: "ruff", "flake8", "pg-9.internal")
_TOK = r"([a-z0-9][\w.+/-]*[\w+]|[a-z0-9])"
#: words that never fill a value slot (articles, pronouns, adverbs of time)
_NOT_VALUE = STOPWORDS | NEGATIONS | frozenset("""now still currently again instead today also just only
already always often usually here done fine ok okay used using should must may might shall need needs
ready green red broken slow fast up down new old same wrong right true false open closed clean safe empty full
flaky stale idle busy live off on out over yes""".split())
#: endings of a complement that describes ("current", "available", "flaky") rather than names
_DESCRIBES = re.compile(r"^[a-z]{3,}(?:ed|ing|ly|ble|ous|ful|ive|ant|ent|al|ic|ary|less)$")
#: slots whose token a text states as current: "X is the Y", "is X", "uses X", "switched to X" …
_CURRENT = tuple(re.compile(r) for r in (
    rf"^\s*{_TOK}\s+(?:is|are|was|were|remains?|stays?)\s+(?:now\s+|still\s+)?(?:the|our|a|an)\b",
    # "redis is used for the cache", "redis is not used" (its negation is the clause's: test37 T2)
    rf"^\s*{_TOK}\s+(?:is|are|was|were)\s+(?:not\s+|no\s+longer\s+|still\s+|now\s+)?(?:used|in\s+use)\b",
    # the complement of a definite subject ("the api database is X"; "retries are important" is a generalisation)
    rf"^\s*(?:the|our|its|their|my|your|this)\s+(?:[\w.-]+\s+){{0,3}}?(?:is|are|was|were|becomes?|became|remains?|stays?)\s+"
    rf"(?:now\s+|still\s+|currently\s+)?{_TOK}"
    r"(?:\s+(?:now|still|currently|again|instead|today))?\s*$",
    rf"\b(?:uses?|using|used|switched\s+to|moved\s+to|migrated\s+to|upgraded\s+to|pinned\s+to|runs?\s+on|"
    rf"went\s+with|chose|picked|replaced\s+\S+\s+(?:with|by)|in\s+favou?r\s+of)\s+{_TOK}"
    # the object alone, not a describing word before a noun ("use explicit timeouts")
    r"(?=\s*$|[\s,.;:!?)]*(?:$|[,.;:!?)]|\s(?:for|to|in|on|with|as|instead|now|because|since|at|from|by|or|over|"
    r"again|too|today|which|that|when|if)\b))",
))
#: slots whose token a text says was dropped, replaced or removed
_DROPPED = tuple(re.compile(r) for r in (
    # the old value of a change: "the port changed from 5432 to 6543", "we upgraded node from 18 to 20" (test38 T2)
    rf"\b(?:changed|changes|went|go(?:es)?|upgraded|downgraded|bumped|increased|decreased|raised|lowered|updated|"
    rf"moved|switched|migrated|rose|fell|dropped|renamed)\s+(?:[\w.-]+\s+){{0,4}}?from\s+{_TOK}(?=\s+(?:to|into)\b)",
    rf"\b(?:dropped|drop|removed|remove|replaced|replace|deprecated|retired|abandoned|ditched|stopped\s+using|"
    rf"no\s+longer\s+use[sd]?|got\s+rid\s+of|moved\s+(?:away\s+)?from|switched\s+(?:away\s+)?from|"
    rf"migrated\s+(?:away\s+)?(?:from|off)|moved\s+off|instead\s+of)\s+{_TOK}",
    rf"^\s*{_TOK}\s+(?:was|were|is|are|has\s+been|have\s+been|got|gets)\s+(?:now\s+)?"
    r"(?:dropped|removed|replaced|deprecated|retired|abandoned|gone)\b",
))
_CLAUSE_AT = re.compile(r"[.;!?\n,:]+\s|[.;!?\n]+$|\n|\s(?:and|but|so|while|whereas)\s")


def _slots(clause: str, patterns: tuple) -> set[str]:
    """The tokens filling ``patterns``' slot in ``clause`` (casefolded), no
    stopword or time word among them."""
    out = set()
    for rx in patterns:
        for m in rx.finditer(clause):
            tok = m.group(1).strip(".-/")
            if tok and tok not in _NOT_VALUE and not (rx is _CURRENT[1] and _DESCRIBES.match(tok)):
                out.add(tok)
    return out


def asserted(text: str) -> list[tuple[str, set[str], set[str], set[str], bool]]:
    """What each clause of ``text`` asserts about values: ``(clause,
    current, dropped, stems, negated)`` per clause (its text as written) (cut at ``. ; ! ? , :`` and at
    "and", "but", "so", "while", "whereas"): the tokens it states as
    current (``objstore.retrieval.timeline.values_of``'s values — numbers,
    versions, names, hosts, paths — and the bare token filling a slot: the
    subject of "X is the Y", the complement of "is X", the object of "uses
    X", "switched to X" …), the tokens it says were dropped, replaced or
    removed ("we dropped X", "X was replaced", "switched from X"), its
    content stems (:func:`content_words`) and whether a negation word
    stands in it.  Casefolded tokens; a dropped token is not also current.
    Never raises for a ``str``."""
    from objstore.retrieval.timeline import values_of  # deferred: as the rest of derive's checks
    out = []
    for part in _CLAUSE_AT.split(text):
        clause = " ".join(part.split()).casefold()
        if not clause:
            continue
        toks = _tokens(clause)
        dropped = _slots(clause, _DROPPED)
        current = (_slots(clause, _CURRENT) | set(values_of(part, lower_words=None))) - dropped
        out.append((part.strip(), current, dropped, _stems(toks), _negated(toks)))
    return out


def _ed_complement(clause: str) -> set[str]:
    """The complement of a definite subject's "is" (:data:`_CURRENT`'s
    second slot) that :func:`_slots` leaves out only for its -ed ending
    ("memcached" of "the cache is memcached now"), casefolded."""
    m = _CURRENT[1].search(" ".join(clause.split()).casefold())
    tok = m.group(1).strip(".-/") if m else ""
    return {tok} if tok.endswith("ed") and tok not in _NOT_VALUE and _DESCRIBES.match(tok) else set()


def _held(tok: str, said: str, stems: set[str]) -> bool:
    words = content_words(tok)
    return bool(re.search(rf"(?<![\w.-]){re.escape(tok)}(?![\w-])", said)) or (bool(words) and words <= stems)


#: a clause that tells a value's past ("used X until last month", "X was used before"): not a claim that it is current
_PAST = re.compile(r"\b(?:until|used\s+to|no\s+longer|formerly|previously|anymore|any\s+more)\b", re.I)
#: a turn clause that says its value WAS so ("the deploy window used to be Friday"): the value is dropped
_WAS = re.compile(r"\b(?:used\s+to\s+be|formerly|previously)\b", re.I)
#: a turn clause that takes the previous clause's value back ("we evaluated redis … but decided against it")
_AGAINST = re.compile(r"\b(?:decided|chose|opted|voted)\s+against\s+(?:it|that|them)\b|\bruled\s+(?:it|that|them)\s+out\b"
                      r"|\brejected\s+(?:it|that|them)\b", re.I)
#: a denial of what was just said: "that's wrong" (``core.takeback.DENIAL``), "which is wrong" (test40 T14)
_DENIES = (rf"(?:{DENIAL}|which\s+(?:is|was)\s+{DENIAL_WORDS}|(?:which|that|it|this)(?:['\u2019]s|\s+is|\s+was)\s+no\s+"
           r"longer\s+(?:true|right|correct|accurate|valid|the\s+case))")   # ("…, which is no longer true", test41 T18)
#: a turn clause saying the one before is wrong ("The old docs say X, but that's wrong": test39b B15; "X, which is
#: wrong", test40 T14)
_DENIED = re.compile(rf"^\W*(?:(?:but|and|yet|though)\s+)?{_DENIES}\s*(?:[.!,;:\u2014\u2013)-]|$)", re.I)
#: a turn clause whose subject is the previous clause's ("… used to be Friday; it is Tuesday now")
#: ("…; now it is 6543": test39b B15)
#: ("…; since then it is 6543", "…, but now it is 6543": test40 T14)
_ANAPHOR = re.compile(r"^\s*(?:(?:now|but|and|so|today|currently|nowadays|these\s+days|since\s+then|since\s+\w+|"
                      r"from\s+then\s+on|after\s+that|ever\s+since),?\s+){0,3}(?:it|this|that|they)"
                      r"(?:\s+(?:is|are|was|were|will\s+be)|'s|’s)\b", re.I)


def _has_digit(tok: str) -> bool:
    return any(ch.isdigit() for ch in tok)


def claims_contradicted(claims: str, turns: list[str], what: str = "its outcome or lesson") -> str:
    """Why ``claims`` (an episode's outcome and lesson) contradict the
    values the ``turns`` hold, else "" (test30c T9): judged by the values
    the claims assert (:func:`asserted`), not by their plain words, so a
    generalisation in the model's own words passes.

    * a value a clause asserts as current that no turn holds (whole token,
      or the same stems: "mongodb" from a session about the linter);
    * a value the turns say was dropped, replaced or removed (their last
      word on it; a turn "we don't use X" drops it too), restated as
      current by a clause that does not negate it ("flake8 is the linter"
      from "ruff … we dropped flake8");
    * a value paired with a subject the turns pair with another value and
      never with it ("black is the linter" from "ruff is the linter and
      black is the formatter").

    A value a turn takes back ("5432 - wait, no, 6543", :func:`_sentences`)
    or a clause denies ("…, but that's wrong") is dropped; the statement
    with the new value is read as a turn too (test39b B15).

    ``what`` opens the reason (a fact proposal's check says "the value").
    The reason never quotes a value."""
    # a value taken back in its turn ("… 5432 - wait, no, 6543"): the statement with the new value read as a turn
    # too, the old value dropped (test39b B15)
    takes = [(taken, fixed) for text in turns for _s, taken, fixed, _b in _sentences(text) if taken]
    turns = [*turns, *(fixed for _t, fixed in takes if fixed)]
    said = " ".join(" ".join(turns).split()).casefold()
    stems = content_words(" ".join(turns))
    state: dict[str, bool] = {}                  # token -> dropped, by the turns' last word on it
    pairs: list[tuple[set[str], set[str], set[str]]] = []  # (values, other stems, all stems) of each turn clause
    for text in turns:
        prev_vals: set[str] = set()
        prev_subject: set[str] = set()
        for c, current, dropped, cstems, negated in asserted(text):
            for tok in current:
                state[tok] = negated or bool(_WAS.search(c))   # "… used to be Friday": its last word drops it
            for tok in dropped:
                state[tok] = True
            if _AGAINST.search(c) or _DENIED.search(c):   # "… but decided against it" (test37 T2), "…, but that's wrong"
                for tok in prev_vals:
                    state[tok] = True
                if not current | dropped:
                    continue   # (the subject carried past it: "…, but that's wrong: it is 6543")
            vals = current | dropped
            subject = cstems - {s for v in vals for s in content_words(v)}
            if _ANAPHOR.search(c):   # "it is Tuesday now": the previous clause's subject
                subject |= prev_subject
            if vals:
                pairs.append((vals, subject, cstems | subject))
            prev_vals, prev_subject = vals, subject
    for taken, fixed in takes:
        kept = {tok for _c, current, _d, _s, _n in asserted(fixed or "") for tok in current}
        for tok in {tok for _c, current, _d, _s, _n in asserted(taken) for tok in current} - kept:
            state[tok] = True
    claimed = asserted(claims)
    missing = {tok for _c, current, _d, _s, _n in claimed for tok in current if not _held(tok, said, stems)}
    # a complement ending in -ed no turn holds, nor its stem ("the cache is memcached now" from a session about
    # redis): a name, not a describing word ("enabled", "scheduled": the turns say enable/schedule); der31's left-out
    named = {tok for c, *_ in claimed for tok in _ed_complement(c)}
    missing |= {tok for tok in named if not _held(tok, said, stems)}
    if missing:
        n = sum(len(c) for _c, c, _d, _s, _n in claimed) + len(named)
        return f"{what}: {len(missing)} of its {n} value words in none of the turns"
    for c, current, dropped, cstems, negated in claimed:
        if negated or _PAST.search(c):
            continue   # "… is not MySQL", "… used MySQL until last month": not said to be current (test32b Y14)
        if any(state.get(tok) for tok in current):
            return f"{what}: it states as current a value the turns say was dropped or replaced"
        vstems = {s for v in current | dropped for s in content_words(v)}
        subject = cstems - vstems
        for tok in current:
            # a turn clause whose words hold the value pairs it with its subject too ("The cache is redis on
            # redis-3": its value token is the host, its words hold redis; "Redis is the cache", test32b Y14)
            tstems = content_words(tok)
            with_it = set().union(*[o for vals, o, every in pairs if tok in vals or (tstems and tstems <= every)])
            # a subject word the turns pair with another value and never with this one ("the api" of "the api
            # uses port 8080" from "the web frontend uses port 8080 and the api uses port 9090": "uses port"
            # is said of both, "api" of 9090 alone; test37 T2)
            # (the other value of the same kind: a number for a number, a name for a name; "pnpm" said of
            # "reflects" does not make "pnpm dev opens at …:5173" another value's)
            digit = _has_digit(tok)
            if any((subject - with_it) & o and tok not in vals and any(_has_digit(v) == digit for v in vals)
                   for vals, o, _e in pairs):
                return f"{what}: it pairs a value with what the turns pair with another value"
    return ""


def episode_unevidenced(body: str, turns: list[str], claims: str = "") -> str:
    """Why an episode (the model's ``situation``/``action``/``outcome``/
    ``lesson`` summary of a session excerpt, ``body``) is not evidenced by
    the excerpt's ``turns`` (their texts), else "":

    * a value it states — a number or version, a name (a capitalised word
      inside a sentence), a host, a path
      (``objstore.retrieval.timeline.values_of``) — that none of the turns
      holds as a whole token (case ignored; test30 R3: "the api database is
      MongoDB 3.6 on mongo-legacy-1" from a session that never named either);
    * ``claims`` (its ``outcome`` and ``lesson``: what it says is so)
      judged by the values they assert, not by their plain words
      (:func:`claims_contradicted`, test30c T9: a value no turn holds, a
      dropped value restated as current, a value paired with another's
      subject; test30b S1: "the api database is mongodb now, postgres was
      dropped" in lower case; a generalisation in the model's own words,
      "fixtures should wait until the service accepts connections", is
      fine), and a clause of them that asserts a value not saying the
      opposite of the turns (:func:`contradicted`).

    Each field is read alone, so its first word is a sentence's start, not
    a name (test30b S11: "The user asked …").

    The reason counts, never quotes them."""
    from objstore.retrieval.timeline import values_of  # deferred: as the rest of derive's checks
    said = " ".join(" ".join(turns).split()).casefold()
    # each field read alone, its own first word a sentence start (test30b S11: "The user asked …" is prose)
    fields = [line.partition(": ")[2] or line for line in body.splitlines()]
    missing = {v for f in fields for v in values_of(f)
               if not re.search(rf"(?<![\w.-]){re.escape(v.casefold())}(?![\w-])", said)}
    if missing:
        return f"{len(missing)} value(s) of the episode in none of the session's turns"
    if claims.strip():
        why = claims_contradicted(claims, turns)   # its values, not its plain words (test30c T9)
        if why:
            return why
        # the polarity test on the clauses that assert a value ("the api database is not Postgres 16");
        # a generalisation's own "should not" is not a value's polarity
        why = contradicted("\n".join(c for c, cur, dr, _s, _n in asserted(claims) if cur or dr), turns)
        if why:
            return f"its outcome or lesson: {why}"
    return ""


#: a statement unit of a turn: a sentence (cut at ``. ; ! ?`` before a space and at line ends; "pg-9.internal" and
#: "3.11" stay whole), cut again before a turn word ("…, but our config says Y")
_UNIT = re.compile(r"(?:[^.;!?\n]|[.;!?]+(?=\S))+[.;!?]*")
#: and before a denial ("5432, which is wrong", "5432 — that's wrong") or a new time ("…, since then it is 6543")
#: (test40 T14)
#: a value undone after it was set ("… and later reverted", "…, then changed back to 5432"; test43 T3)
_REVERT = (r"(?:reverted|rolled\s+(?:it\s+)?back|undone|undid|backed\s+out|(?:changed|switched|moved|set|put)\s+"
           r"(?:it\s+)?back)\b")
_UNIT_TURN = re.compile(rf",?\s+(?=(?:but|yet|however|whereas|although|though)\s)|\s*(?:[,(\u2014\u2013]|\s-+\s)\s*"
                        rf"(?={_DENIES}\b)|,\s+(?=(?:and\s+|so\s+)?(?:since\s+then|from\s+then\s+on|now|nowadays|"
                        r"these\s+days|today)\b)", re.I)
_UNASSERTED = re.compile(
    UNSURE + "|" + IGNORE + "|" + ASIDE_MORE + "|" + HEARSAY + "|" + PAST_FIRST + "|" + QUOTE + r"|\b(?:maybe|perhaps|possibly|supposedly|reportedly|allegedly|rumou?red|draft)\b"
    r"|\bclaims?\s+(?:that\s+)?(?:the|our|it|this|a|an|we|you)\b"
    r"|^\W*(?:if|suppose|supposing|imagine|what\s+if)\b.*\b(?:were|would)\b"
    # a past value: "was X until …", "we used X for … until March" (test39b B15)
    r"|\b(?:was|were|used|had)\b.*\buntil\b|\bused\s+to\s+be\b|\b(?:our|my|their)\s+(?:old|former|previous)\b"
    # "X (no longer true)", "X - no longer true" (test42 T11; "X, which is no longer true" is :data:`_DENIED`'s)
    r"|(?:[(\u2014\u2013]|\s-)\s*no\s+longer\s+(?:true|right|correct|accurate|valid|the\s+case)\b", re.I)
#: a clause that does not state its value so (test43 T3): stale ("X (outdated)"), asked about ("someone asked if
#: X"), to come ("X will be / should be changed to Y"), on a condition ("if X was changed to Y, …") or undone ("X,
#: then rolled back"); matched per clause of a unit (:data:`_CLAUSE_OF`), not its whole sentence, since "If you
#: need it, the port is X" and "the port is X, so clients should be updated to use it" state X (test44 T2)
_NOT_SO = re.compile(
    r"(?:[(,\u2014\u2013]|\s-)\s*(?:not\s+(?:true|valid|right|correct)\s+any\s*more|outdated|obsolete|out\s+of\s+date)\b"
    r"|\b(?:ask(?:s|ed|ing)?|wonder(?:s|ed|ing)?)\s+(?:(?:me|us|you|him|her|them)\s+)?(?:if|whether)\b"
    r"|\b(?:will|shall|should|must|(?:is|are|am)\s+going\s+to|plan(?:s|ned)?\s+to|needs?\s+to)\s+(?:be\s+|get\s+)?"
    r"(?:chang|updat|mov|switch|set|bump|rais|lower|migrat)\w*\s+to\b|^\W*(?:if|unless|in\s+case)\s"
    r"|\b(?:and|then|later|but)\s+(?:\w+\s+){0,2}?" + _REVERT, re.I)
#: a clause that only says the one before is stale ("…, not true anymore")
_STALE_BACK = r"|^\W*(?:not\s+(?:true|valid|right|correct)\s+any\s*more|outdated|obsolete|out\s+of\s+date)\W*$"
#: where a unit is cut into clauses for :data:`_NOT_SO` (and for nothing else: the unit's other rules read it whole)
_CLAUSE_OF = re.compile(r"\s*[,:;]\s+|\s+(?=(?:and|so|but|then)\s)", re.I)
_HEARSAY_RE = re.compile(HEARSAY, re.I)
#: a unit that sets aside the unit before it too ("I'm not decided yet", "I could not confirm it", "ignore it"), or
#: says it is wrong ("The old docs say …, but that's wrong", test39b B15: ``core.takeback.DENIAL``)
_UNSURE_BACK = re.compile(UNSURE + "|" + IGNORE + "|" + _DENIED.pattern + r"|^\W*(?:(?:and|but|then|later|it|this|that|was|"
                          r"were|got)\s+)*" + _REVERT + _STALE_BACK, re.I)
#: a unit that tells the value now ("…, now it is 6543", "since then it is 6543") after one that told it in the past
#: ("The db port was 5432"): that one is a past value (test40 T14)
_NOW = re.compile(r"^\W*(?:(?:and|but|so)\s+)?(?:now|nowadays|these\s+days|today|since\s+then|from\s+then\s+on)\b", re.I)
_WAS_THEN = re.compile(r"\b(?:was|were|used\s+to|had\s+been)\b", re.I)
#: a question that is not a request ("can you replace …?" still evidences "replace …")
_REQUEST = re.compile(r"\b(?:(?:can|could|would|will)\s+you|please)\b", re.I)
#: a request that asks whether a value is so ("Can you confirm the region is …?", "could you check whether …?"):
#: a question still (test38 T2)
_ASKS_IF = re.compile(r"\b(?:confirm|check|verify|tell\s+me|find\s+out|see|know|double[-\s]?check|make\s+sure)\b"
                      r"(?:\s+(?:whether|if|that))?", re.I)
#: a unit about the unit before it ("… until yesterday; it is now Y", "…, but our config says Y")
_ABOUT_PREV = re.compile(r"^\W*(?:but|yet|however|whereas|although|though)\b|\b(?:it|its|they|them)\b", re.I)
#: the value of "was X until …" (a past value: not the subject an about-the-previous unit carries on)
_UNTIL_VALUE = re.compile(r"\b(?:was|were)\s+((?:\S+\s+){0,3}?\S+)\s+until\b", re.I)


#: a unit that tells to write, print or echo a quoted text ("Write 'PORT=9000' to the example file", "echo '…'"):
#: the quoted text is the instruction's payload, not a statement (test38 T2)
_PAYLOAD_VERB = re.compile(r"^\W*(?:(?:please|now|then|just|(?:can|could|would|will)\s+you(?:\s+please)?)\s+)?"
                           r"(?:write|echo|print|printf|type|append|add|insert|put|output|paste|emit|log|say)\b", re.I)
_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"|`([^`]+)`|“([^”]+)”|‘([^’]+)’")


def _payload(unit: str) -> set[str]:
    """The content stems that stand only in the quoted payload of a unit that says to write, print or echo it
    (:data:`_PAYLOAD_VERB`), else ``set()``."""
    if not _PAYLOAD_VERB.search(unit):
        return set()
    quoted = " ".join(g for m in _QUOTED.finditer(unit) for g in m.groups() if g)
    return content_words(quoted) - content_words(_QUOTED.sub(" ", unit)) if quoted else set()


def _sentences(text: str):
    """``(sentence, taken back, fixed, back)`` of each sentence of ``text`` (:data:`_UNIT`), a value taken back in
    its own sentence ("The db port is 5432 - wait, no, 6543.") or by the next one's opening ("… is 5432. Actually,
    it's 6543.") read as the prompt hook reads it (``capture.statements.taken_back_in``, test39b B15): the sentence
    less what it took back, what it took back ("" for none; the previous sentence's when ``back``), the statement
    with the new value ("The db port is 6543", else None)."""
    prev = ""
    for m in _UNIT.finditer(text):
        sentence = m.group(0)
        took = taken_back_in(sentence)
        if took is not None:
            yield took[1], took[0].strip(), took[2], False
        elif prev and (took := taken_back_in(f"{prev} {sentence}")) is not None \
                and len(took[0].rstrip(" .!?;")) >= len(prev.rstrip(" .!?;")):   # (the take-back opens this one)
            yield took[1], prev.strip(), took[2], True
        else:
            yield sentence, "", None, False
        prev = sentence


#: where a clause after hearsay starts ("Dave said it's fine, and the db port is …"), where a parenthetical before it
#: does ("The db port is 6543 (Bob thinks it is 5432 …)"), and a clause verb after the source's (test41 T18)
_AND_CLAUSE = re.compile(r",\s+(?=and\s)", re.I)
_CLAUSE_VERB = re.compile(r"\b(?:is|are|was|were)\b", re.I)


def _own_clauses(unit: str) -> list[str]:
    """``unit`` cut so that a hearsay verb governs its own clause only
    (test41 T18): before ", and …" after the hearsay, and before a "("
    that opens a hearsay with a clause of its own ("(Bob thinks it is
    5432)"; "(per Alice)" names the unit's source and is not cut)."""
    m = _HEARSAY_RE.search(unit)
    if not m:
        return [unit]
    if (paren := unit.rfind("(", 0, m.start())) > 0 and _CLAUSE_VERB.search(unit, m.end()) \
            and not _HEARSAY_RE.search(unit[:paren]):
        return [unit[:paren], unit[paren:]]
    if (cut := _AND_CLAUSE.search(unit, m.end())):
        return [unit[:cut.start()], unit[cut.end():]]
    return [unit]


def _units(text: str) -> list[tuple[str, bool]]:
    """``(unit, set aside)`` of each statement unit of ``text`` (:data:`_UNIT`): set aside when it asks (a
    question that is not a request), guesses, supposes, reports hearsay, is to be ignored, or tells a
    removed, past or draft value (:data:`_UNASSERTED`), or when the unit after it says it is undecided,
    unconfirmed, to be ignored or wrong (:data:`_UNSURE_BACK`); a value taken back is set aside and the
    statement with the new value a unit of its own (:func:`_sentences`)."""
    out: list[tuple[str, bool]] = []
    since = 0   # where the sentence before's units start in ``out``
    for sentence, taken, fixed, back in _sentences(text):
        start = len(out)
        if back:   # the previous sentence taken back by this one's opening ("… 5432. Actually, it's 6543.")
            out[since:] = [(u, True) for u, _a in out[since:]]
        elif taken:
            out.append((taken, True))
        since = start
        for unit in (c for u in _UNIT_TURN.split(sentence) for c in _own_clauses(u)):
            unit = unit.strip()
            if not unit:
                continue
            aside = bool(_UNASSERTED.search(unit)) or unit.endswith("?") and (
                not _REQUEST.search(unit) or bool(_ASKS_IF.search(unit)))
            for part in (_CLAUSE_OF.split(unit) if not aside and _NOT_SO.search(unit) else (unit,)):
                if not part.strip():
                    continue
                if out and (_UNSURE_BACK.search(part) or _NOW.search(part) and _WAS_THEN.search(out[-1][0])):
                    out[-1] = (out[-1][0], True)
                out.append((part, aside or bool(_NOT_SO.search(part))))
        if fixed:
            out.append((fixed, False))
    return out


def unasserted(value: str, cited: list[str]) -> str:
    """Why the ``cited`` texts do not state ``value`` as so, else "": some
    content word of it (:func:`content_words`) is only in units the turns
    set aside (:func:`_units`: a question, a guess, a counterfactual,
    hearsay, a line to ignore, a tool tried and removed, a past or old
    thing's value, an unapproved draft; test37b T11; test38 T2: a hedge
    "I think …", "probably …", a request to confirm a value, a unit that
    opens "Ignore this:"; test39b B15: hearsay with its place, "X - wait,
    no, Y", "we used X … until March", "…, but that's wrong"; test40 T14: hearsay by role or name, "I was told",
    "Until March X was …", "X, which is wrong", "X was A, now it is B"; test41 T18: "In 2023 X was …", "Bob: X",
    "ChatGPT said X", "X, which is no longer true"; a source governs its own clause only, :func:`_own_clauses`); a quoted text a unit says to write, print or
    echo is not stated by it (:func:`_payload`).  A unit that follows
    a set-aside one and is about it ("…, but our config says Y", "… until
    yesterday; it is now Y") carries on its subject: its words less the
    set-aside value's.  The reason counts, never quotes, the words."""
    stated: set[str] = set()
    for text in cited:
        prev: tuple[str, bool] | None = None
        for unit, aside in _units(text):
            if not aside:
                stated |= content_words(unit) - _payload(unit)
                if prev and prev[1] and _ABOUT_PREV.search(unit):
                    told = {v for _c, cur, dr, _s, _n in asserted(prev[0]) for v in cur | dr}
                    told |= {w for m in _UNTIL_VALUE.finditer(prev[0]) for w in m.group(1).split()}
                    stated |= content_words(prev[0]) - content_words(" ".join(told))
            prev = (unit, aside)
    missing = content_words(value) - stated
    if missing:
        return (f"{len(missing)} word(s) only where the cited turns ask, guess, suppose, set aside or tell a past, "
                f"removed or draft value")
    return ""
