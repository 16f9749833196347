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

Deferred imports: the index's analysis loads tantivy, which ``mem derive``
needs and no hook imports.
"""

from __future__ import annotations

import re

#: words that are not content: what a value may hold that no cited turn need
#: show.  Kept short on purpose (every word here goes unchecked), so not the
#: index's ``QUERY_STOPWORDS``, which drop "only", "more", "same", "over" …
STOPWORDS = frozenset("""a an and are as at be been but by can could did do does for from had has have he her his
i if in into is it its me my of on or our she so that the their them then there these they this to
too us was we were what when where which who will with would you your""".split())
#: words that negate the clause they stand in (folded, as :func:`_tokens` yields them)
NEGATIONS = frozenset("not no never nor neither none nobody nothing nowhere cannot without".split())
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


def episode_unevidenced(body: str, turns: list[str]) -> str:
    """Why an episode (the model's ``situation``/``action``/``outcome``/
    ``lesson`` summary of a session excerpt, ``body``) is not evidenced by
    the excerpt's ``turns`` (their texts), else "": a value it states — a
    number or version, a name (a capitalised word inside a sentence), a
    host, a path (``objstore.retrieval.timeline.values_of``) — that none of
    the turns holds (case ignored).  A summary's own words need not be the
    turns' (it summarises); its values must be (test30 R3: a lesson that
    "the api database is MongoDB 3.6 on mongo-legacy-1" from a session that
    never named either).  The reason counts the values, never quotes them."""
    from objstore.retrieval.timeline import values_of  # deferred: as the rest of derive's checks
    said = " ".join(" ".join(turns).split()).casefold()
    missing = [v for v in values_of(body) if v.casefold() not in said]
    return f"{len(missing)} value(s) of the episode in none of the session's turns" if missing else ""

