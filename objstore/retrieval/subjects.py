"""Subjects of values: what a stated value is a value *of*.

The time rule (``objstore.retrieval.timeline``) lets a later value replace
an earlier one of the same kind when the two passages share enough of the
question's words.  Shared words cannot tell "The postgres analytics replica
uses port 5439, separate from the primary." from an update of "The postgres
primary uses port 5432.": both say postgres, primary, port and use.  What
tells them apart is the noun phrase each value is stated of, its
*subject*: "postgres analytics replica" and "postgres primary".

:func:`subjects_of` reads, for each value of a text, the subject of its
first occurrence; :func:`compare` says whether two such subjects name the
same thing, sibling things, or cannot be told.  The reading is a shallow
English heuristic over the words before the value in its sentence (no
part-of-speech model: the taggers that exist need model files loaded at
start-up, tens of milliseconds and megabytes per recall process, for a
decision made on a few short clauses):

* The sentence is the text before the value's first occurrence, back to
  ``. ! ?`` followed by a space, a newline, ``;`` or a bracket (at most
  400 characters); a list ("primary on 5432, replica on 5439") is cut
  after the previous number followed by ``,``/``and``/``but``/``while``.
* Words are *stop* words (:data:`objstore.index.analysis.QUERY_STOPWORDS`:
  articles, pronouns, prepositions, modals), *verbs* (a copula, a verb of
  :data:`VERBS`, a change word of :data:`UPDATE_CUES`, a word ending
  in ``-ed``, a word right after we/I/you/they/he/she), numbers (an
  integer or decimal: values, never subject), or *words*: anything else,
  names and codes (``v2``) included; a one-letter token is a stop word.
* With a verb between the sentence start and the value, the subject is
  the run of words just before the last such verb (stop words and verbs
  right before it skipped: "the primary should now use"), extended over
  "of" ("v1 of the payments api"); where that run is empty (a pronoun:
  "we moved the primary to 5433") it is the first run of words after the
  verb that does not touch the value.  A sentence opened by "For X," /
  "In X," / "On X," adds X ("For staging, the api uses 8081").
* Without a verb it is every run of words before the value ("analytics
  replica: postgres on port 5439").
* The *attribute* of a value with a digit is the word right before it
  ("port" in "port 5432"), or the last word of a subject followed by a
  copula and the value ("primary port is 5433"): it names what is
  measured, not of what, and is left out of the subject.  A subject read
  without a verb is not *sure* (an unknown verb may pass for a word).

:func:`compare` drops :data:`GENERIC` words (server, service, new, …) and
both attributes, compares the stems (Snowball, as the index does), and
answers ``True`` when one subject's words hold the other's ("postgres
primary" / "primary"); ``False`` (siblings) when they differ in a way the
question tells apart: one holds a question word the other lacks and the
other a word foreign to the question ("postgres primary" / "postgres
analytics replica" for "which port does the postgres primary use",
"production api" / "staging api", "v1 payments api" / "v2 payments api"),
read with verbs or sharing a word; ``False`` also where one's sentence
sets it apart from a word only the other's subject holds, whatever the
question names ("The postgres analytics replica uses port 5439, separate
from the primary." / "The postgres primary uses port 5432." for "which
port does postgres use"; ``Subject.apart``, read after "separate from",
"unlike", "next to", "apart from", …); ``None`` otherwise: either empty
(unknown: "we moved it to 5433"), or a difference the question does not
make (a paraphrase as often as another thing: "harbor gateway cache TTL" /
"cache entries expire" for "what is the cache ttl").  Pure, no I/O; cost
is a search for the value and a pass over its sentence.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Iterable

from objstore.core.record import Frozen, set_fields
from objstore.core.text import LazyPattern
from objstore.retrieval.keyrank import key_term
from objstore.retrieval.valueshape import shape_of

#: a token as ``timeline.values_of`` reads values (8080, 3.12, v2, fly.io) and words
_TOKEN_RE = LazyPattern(r"(?<![\w.])[\w][\w.+-]*(?<![.+-])")
#: what ends a sentence or clause for the subject's search
_NUMBER_RE = LazyPattern(r"\d+(?:\.\d+)*")
#: the text up to the last sentence break (a greedy match, backtracked in C)
_LAST_BREAK_RE = LazyPattern(r"(?s:.*)(?:[.!?]\s|[\n;()\[\]])")

COPULAS = frozenset("is are was were be been being am".split())

#: Verbs that state a value ("uses 5432", "listens on 8080", "points to …"),
#: in the forms a sentence uses them; with the copulas, the change words of
#: :data:`UPDATE_CUES` and words ending in ``-ed``, they end a subject.
VERBS = frozenset("""
use uses using run runs ran running listen listens listening serve serves sit sits sat live lives point points
bind binds bound expose exposes deploy deploys set sets connect connects talk talks call calls read reads write writes
keep keeps kept send sends go goes went get gets got need needs require requires want wants pin pins target targets
build builds ship ships hold holds held contain contains stay stays default defaults accept accepts take takes took
return returns start starts open opens say says said mean means give gives gave make makes made show shows expect
expects allow allows wait waits reach reaches resolve resolves answer answers respond responds live lives put puts
become becomes became remain remains stands stand used
""".split())

#: Words that name no particular thing in a subject: what a server, the
#: service or the new instance is, is told by the other words.
GENERIC = frozenset("""
server servers service services app apps application instance instances process daemon container host machine box
new old current currently actual real default main's also still same whole
""".split())

#: A phrase that sets a subject apart from another thing, and that thing's
#: words (up to three): "separate from the primary", "unlike the reporting
#: one", "next to the billing service".  Read in the value's sentence.
_APART_RE = LazyPattern(r"\b(?:separate(?:ly)?\s+from|apart\s+from|distinct\s+from|different\s+from"
                        r"|independent(?:ly)?\s+of|unlike|next\s+to|alongside|besides|as\s+opposed\s+to"
                        r"|in\s+addition\s+to)\s+(?:(?:the|our|a|an|its|their)\s+)?"
                        r"([^\W\d][\w-]*(?:[ \t]+[^\W\d][\w-]*){0,2})", 2)   # re.I
#: where the value's sentence ends, after the value
_END_RE = LazyPattern(r"[.!?](?:\s|\Z)|[\n;]")

_FRONT_PREPS = frozenset(("for", "in", "on"))
#: characters read back from a value for its sentence
_REACH = 400
_LIST_JOINS = frozenset((",", "and", "but", "while", "whereas"))
_NOT_VERBS_ED = frozenset("need seed feed speed shed embed breed bleed".split())
_PRONOUNS = frozenset("i we you they he she".split())


class Subject(Frozen):
    """A value's subject: ``words``, the normalized words of the noun phrase
    it is stated of (unstemmed, in text order); ``attribute``, the word
    naming what is measured ("port"), or ``""``; ``sure``: read before a
    verb or as its object, not from a sentence without a known verb (where
    an unknown verb may pass for a word: "we pick 8443"); ``stems``: the
    words stemmed, one for one (:func:`subjects_of` fills them);
    ``apart``: the stems of what the value's sentence sets its subject
    apart from ("…, separate from the primary": ``("primari",)``;
    :data:`_APART_RE`), its own words left out; ``key``: a fact's, the
    words of its key's name, ``(word, stem)`` (:func:`subjects_of`,
    ``fact``); ``project``: the item's project's name, where ``words`` hold
    it (``project``); ``named``: the attribute is written capitalised
    inside its sentence, a product's name ("upgraded to Postgres 16"),
    not a measure ("port 6543")."""

    __slots__ = ("words", "attribute", "sure", "stems", "apart", "key", "project", "named")

    def __init__(self, words: tuple[str, ...], attribute: str = "", sure: bool = True,
                 stems: tuple[str, ...] = (), apart: tuple[str, ...] = (),
                 key: tuple[tuple[str, str], ...] = (), project: str = "", named: bool = False) -> None:
        set_fields(self, words, attribute, sure, stems, apart, key, project, named)


def normalize(text: str) -> str:
    """NFC + casefold: how values (``objstore.retrieval.timeline``) and
    subject words are compared."""
    if text.isascii():  # NFC leaves ASCII as it is, and casefold is lower there
        return text.lower()
    return unicodedata.normalize("NFC", text).casefold()


#: Stems of the words that announce a change ("we moved it to 8443", "Jest
#: is no longer used", "from now on", "scaled prod to 16 workers"): a passage holding one needs no other
#: word in common with the older one beyond the question's (rule 3).
UPDATE_CUES = frozenset("""
now anymor switch move migrat upgrad downgrad bump rais replac instead renam swap took
chang updat increas decreas reduc lower scale drop retir deprec adopt
""".split())



_STOP: list[frozenset[str]] = []


def _stop() -> frozenset[str]:
    if not _STOP:
        from objstore.index.analysis import QUERY_STOPWORDS  # deferred: tantivy
        _STOP.append(QUERY_STOPWORDS)
    return _STOP[0]


def _kind(w: str, prev: str, stop: frozenset[str], cues: frozenset[str]) -> str:
    """``stop``, ``verb``, ``num`` or ``word`` (the module docstring);
    ``prev`` is the word before."""
    if w in COPULAS or w in VERBS:
        return "verb"
    if _NUMBER_RE.fullmatch(w):
        return "num"
    if w in stop or len(w) == 1:
        return "stop"
    if prev in _PRONOUNS:
        return "verb"   # "we pick …", "they chose …"
    if w.endswith("ed") and len(w) >= 4 and w not in _NOT_VERBS_ED:
        return "verb"
    for n in _CUE_LENGTHS:
        if n <= len(w) <= n + 3 and w[:n] in cues:
            return "verb"   # a change word: moved, switched, migrated, …
    return "word"


#: the lengths of the change words of 4 letters or more (a word's prefixes of those lengths are looked up)
_CUE_LENGTHS = tuple(sorted({len(c) for c in UPDATE_CUES if len(c) >= 4}))


def subjects_of(text: str, values: Iterable[str], limit: int = 4000, project: str = "",
                fact: bool = False) -> dict[str, Subject]:
    """The subject of the first occurrence of each of ``values`` in ``text``
    (the rules of the module docstring): ``{value: Subject}``, a value not
    found as a token left out.

    Args:
        text: the passage (a fact: key words, a newline, its body).
        values: normalized values (``timeline.values_of`` keys).
        limit: characters of ``text`` read.
        project: the passage's project ("" for none): kept in
            ``Subject.project`` where the subject holds its name
            (:func:`compare` may read it without).
        fact: ``text`` is a fact's (``timeitems.fact_text``): the words of
            its key's name (after the scope and project: ``db`` of
            ``project/api/db``, ``db port`` of ``…/db-port``; the value's
            attribute left out) are kept in ``Subject.key``: the key names
            what the value is of (test28 Y6: "Postgres 15 on port 5432"
            under ``project/api/db`` is the api database's port).
    """
    want = set(values)
    if not want:
        return {}
    text = text[:limit]
    out: dict[str, Subject] = {}
    stop, cues = _stop(), UPDATE_CUES
    found: dict[str, int] = {}   # value -> where its first occurrence starts
    rest = []
    low = text.lower() if text.isascii() else None   # (same offsets)
    for v in want:
        if not v.isascii():
            rest.append(v)
        elif low is not None:
            at = _find(low, v)
            if at >= 0:
                found[v] = at
        else:
            import re   # (a non-ASCII text only)
            if m := re.search(r"(?<![\w.])" + re.escape(v) + r"(?![\w]|[.+-]\w)", text, re.I):
                found[v] = m.start()
    if rest:   # a value that NFC and case folding may change: found among the normalized tokens
        for m in _TOKEN_RE.finditer(text):
            t = m.group(0)
            v = t.lower() if t.isascii() else normalize(t)
            if v in rest and v not in found:
                found[v] = m.start()
    for v, at in found.items():   # only the sentence before each value is read (a long turn holds many)
        lo = max(0, at - _REACH)
        brk = _LAST_BREAK_RE.match(text, lo, at)
        head = text[brk.end() if brk else lo:at]
        seg = head + v
        toks = [(t.start(), t.end(), t.group(0)) for t in _TOKEN_RE.finditer(head if "/" in v else seg)]
        if "/" in v:   # a path is one value, not its parts (test27 V21)
            toks.append((len(head), len(seg), v))
        if lo and brk is None and toks:   # (a token cut by the window's start is dropped)
            toks = toks[1:]
        norm = [t.lower() if t.isascii() else normalize(t) for _, _, t in toks]
        if norm and norm[-1] == v:
            sub = _subject_at(seg, toks, norm, stop, cues)
            if sub.attribute and len(toks) >= 3 and norm[-2] == sub.attribute and toks[-2][2][:1].isupper():
                sub = sub.replace(named=True)   # "we upgraded to Postgres 16" (not a sentence's first word)
            if not sub.words and brk and _IT_RE.search(head) and (sub.attribute or shape_of(v)):
                sub = _referred(text[:brk.end()], sub, v) or sub
            if fact and not sub.words and not sub.attribute and len(toks) == 1 and not _TOKEN_RE.search(text, at + len(v)):
                sub = _key_subject(text, sub, stop, cues)   # the body is the value alone (test28 Y6)
            end = _END_RE.search(text, at + len(v), at + len(v) + _REACH)
            apart = _apart_of(seg + text[at + len(v):end.start() if end else at + len(v) + _REACH], stop, cues)
            out[v] = sub.replace(apart=tuple(w for w in apart if w not in sub.words)) if apart else sub
    named = _key_words(text, stop, cues) if fact else ()
    project = normalize(project)
    words = tuple({w for sub in out.values() for w in (*sub.words, *sub.apart)} | set(named))
    if words:
        from objstore.index.analysis import stem_tokens  # deferred: tantivy
        stem = dict(zip(words, stem_tokens(words)))
        out = {v: sub.replace(stems=tuple(stem[w] for w in sub.words),
                              apart=tuple(stem[w] for w in sub.apart if stem[w] not in {stem[x] for x in sub.words}),
                              key=tuple((w, stem[w]) for w in named if w != sub.attribute),
                              project=project if project in sub.words else "")
               for v, sub in out.items()}
    return out


#: a value's sentence that says it of "it" ("That is wrong, it moved to port 7000.")
_IT_RE = LazyPattern(r"\bit\b", 2)   # re.I
#: what separates the words of a key's name (``db-port``, ``cache_ttl``, ``v1.2``)
_NAME_PARTS = LazyPattern(r"[-_.]+")


def _referred(before: str, sub: Subject, value: str = "") -> Subject | None:
    """The subject of a value said of "it" with no subject word of its own
    (``sub``): the subject of the last value of the same attribute in the
    sentences ``before`` it ("Ops says the shop database moved to port
    6543. That is wrong, it moved to port 7000.": the shop database's
    port, test28b Z3); with no attribute, of the last value of the shape
    of ``value`` (``valueshape.shape_of``: "… the shop cache moved to
    cache-5.internal. That is wrong, it moved to cache-9.internal.": the
    shop cache's host); None where there is none, or it names no word."""
    last = None
    if sub.attribute:
        import re
        for last in re.finditer(r"\b" + re.escape(sub.attribute) + r"\s+([^\s,;:!?]+?)[.]?(?=[\s,;:!?]|\Z)", before, re.I):
            pass
        got = normalize(last.group(1)) if last else ""
    else:
        shape = shape_of(value)
        got = next((w for w in reversed([normalize(m.group(0)) for m in _TOKEN_RE.finditer(before)])
                    if shape_of(w) == shape), "")
    if not got:
        return None
    prev = subjects_of(before, (got,)).get(got)
    return sub.replace(words=prev.words) if prev and prev.words and prev.attribute == sub.attribute else None


def _key_subject(text: str, sub: Subject, stop: frozenset[str], cues: frozenset[str]) -> Subject:
    """The subject of a fact's value whose body is the value alone
    (``project/api/db-port`` "5432"): the key names it, the project's name
    and the key's words (:func:`_key_words`) but the last, which is the
    attribute ("api db", ``port``); ``sub`` where the key has no word."""
    named = _key_words(text, stop, cues)
    if not named:
        return sub
    parts = text.split("\n", 1)[0].split()
    project = (normalize(parts[1]),) if parts[:1] == ["project"] and len(parts) > 2 else ()
    return sub.replace(words=tuple(dict.fromkeys(project + named[:-1])), attribute=named[-1], sure=True)


def key_subject(key: str) -> Subject:
    """What a key's name says its value is of: the project's name and the
    name's words but the last (``words``, stemmed in ``stems``; stop
    words, verbs, numbers and :data:`GENERIC` words left out), the last
    word the ``attribute``, generic or not (``project/api/port``:
    ``("api",)``, ``port``; ``user/github-token``: ``("github",)``,
    ``token``; ``project/api/remembered/db-host``: ``("api", "db")``,
    ``host``); ``words`` empty where the name has one word and no project
    (``user/editor``).  For a sealed key, whose value is never read
    (``sealedmarks.sealed_newer``, test30b S8)."""
    parts = key.split("/")
    project = [normalize(parts[1])] if parts[:1] == ["project"] and len(parts) > 2 else []
    stop = _stop()
    name = [normalize(w) for p in parts[1 + len(project):] for w in _NAME_PARTS.split(p) if w]
    name = [w for w in name if _kind(w, "", stop, UPDATE_CUES) == "word"]
    if not name:
        return Subject(tuple(project))
    words = tuple(dict.fromkeys(project + [w for w in name[:-1] if w not in GENERIC]))
    if not words:
        return Subject((), name[-1])
    from objstore.index.analysis import stem_tokens  # deferred: tantivy
    return Subject(words, name[-1], True, tuple(stem_tokens(words)))


def of_key(key: Subject, text: str, values: Iterable[str], project: str = "") -> set[str]:
    """Those of ``values`` (normalized) that ``text`` states of the thing
    the key subject ``key`` (:func:`key_subject`) names: the value's
    attribute (:func:`subjects_of`) is the key's last word, or its subject
    holds that word ("the shop database … port 5432" for ``project/shop/db``);
    and its subject words are the key's (:func:`compare` True: "the
    staging api" for ``project/api/port``), the project's name left out
    of both where the value's subject does not hold it ("the db host is
    pg-1" for ``project/api/…/db-host`` in project api); a value with no
    other subject word is of the key's where the key has only its
    project's name ("we moved the port to 9000").  A
    value of another thing ("redis runs on port 6379" against
    ``project/api/port``, test30b S8) is not."""
    if not key.attribute:
        return set()
    project = normalize(project)
    want = key_term(stem_word(key.attribute))
    out: set[str] = set()
    for v, sub in subjects_of(text, values).items():
        stems = [key_term(t) for t in (sub.stems or sub.words)]
        if not (sub.attribute and key_term(stem_word(sub.attribute)) == want or want in stems):
            continue
        named = project in sub.words   # "the staging api … port 8080": the project's api (else "redis … port")
        words = [(w, t) for w, t in zip(sub.words, sub.stems or sub.words)
                 if key_term(t) != want and (named or w != project) and w not in GENERIC]
        mine = [(w, t) for w, t in zip(key.words, key.stems or key.words) if named or w != project]
        if not words:
            if not mine:
                out.add(v)
            continue
        if mine and compare(Subject(tuple(w for w, _ in mine), "", True, tuple(t for _, t in mine)),
                            Subject(tuple(w for w, _ in words), "", sub.sure, tuple(t for _, t in words))) is True:
            out.add(v)
    return out


def stem_word(word: str) -> str:
    """``word``'s Snowball stem, as the index stems it."""
    from objstore.index.analysis import stem_tokens  # deferred: tantivy
    return stem_tokens((word,))[0]


def _key_words(text: str, stop: frozenset[str], cues: frozenset[str]) -> tuple[str, ...]:
    """The words of the key's name on a fact text's first line ("project
    api db-port": ``("db", "port")``): after the scope, and the project of
    a ``project`` key; stop words, verbs, numbers and :data:`GENERIC` words
    left out."""
    parts = text.split("\n", 1)[0].split()
    name = parts[2:] if parts[:1] == ["project"] else parts[1:]
    words = [normalize(w) for p in name for w in _NAME_PARTS.split(p) if w]
    return tuple(w for w in dict.fromkeys(words) if w not in GENERIC and _kind(w, "", stop, cues) == "word")


def _widened(s: Subject, other: Subject) -> Subject:
    """``s`` as :func:`compare` reads it a second time: a fact's subject
    with its key's words (``Subject.key``); another item's, against a
    fact's (``other.key``) that does not name the project, without the
    project's name where another word than it and :data:`GENERIC` words
    remains ("the api database" in project ``api``: every turn of ``api``
    is about the api)."""
    if s.key:
        have = set(s.words)
        add = [(w, t) for w, t in s.key if w not in have]
        return s.replace(words=s.words + tuple(w for w, _ in add), stems=(s.stems or s.words) + tuple(t for _, t in add))
    p = s.project
    if p and other.key and p not in other.words and p not in {w for w, _ in other.key} \
            and any(w != p and w not in GENERIC for w in s.words):
        keep = [(w, t) for w, t in zip(s.words, s.stems or s.words) if w != p]
        return s.replace(words=tuple(w for w, _ in keep), stems=tuple(t for _, t in keep))
    return s


def item_subject(item, value: str) -> Subject | None:
    """The subject of ``value`` in a ``timeline.Item`` (its text, project
    and kind: :func:`subjects_of`), or None where not read."""
    return subjects_of(item.text, (value,), project=item.project, fact=item.kind == "fact").get(value)


def _apart_of(sentence: str, stop: frozenset[str], cues: frozenset[str]) -> list[str]:
    """The words (normalized, unstemmed) of what ``sentence`` sets apart
    from its subject (:data:`_APART_RE`): the run of words after the
    phrase, up to a stop word, verb or number; :data:`GENERIC` words and
    "one" left out."""
    out: list[str] = []
    for m in _APART_RE.finditer(sentence):
        prev = ""
        for t in m.group(1).split():
            w = normalize(t)
            if _kind(w, prev, stop, cues) != "word":
                break
            if w not in GENERIC and w not in ("one", "ones"):   # "unlike the reporting one"
                out.append(w)
            prev = w
    return out


def _find(hay: str, v: str) -> int:
    """Where ``v`` first occurs in ``hay`` as a whole token (as
    ``_TOKEN_RE`` cuts them: no word character or dot before it, no word
    character after it, nor ``.+-`` and a word character), or -1."""
    i, n, end = hay.find(v), len(hay), len(v)
    while i >= 0:
        j = i + end
        if (i == 0 or not (hay[i - 1].isalnum() or hay[i - 1] in "_.")) and \
                (j == n or not (hay[j].isalnum() or hay[j] == "_"
                                or (hay[j] in ".+-" and j + 1 < n and (hay[j + 1].isalnum() or hay[j + 1] == "_")))):
            return i
        i = hay.find(v, i + 1)
    return -1


def _subject_at(text: str, toks: list[tuple[int, int, str]], norm: list[str],
                stop: frozenset[str], cues: frozenset[str]) -> Subject:
    """The subject of the value that is the last token of a sentence's
    start ``text`` (its tokens ``toks``, normalized ``norm``)."""
    i = len(toks) - 1
    start = i
    while start > 0:  # back to the sentence's start, or to the list item's
        gap = text[toks[start - 1][1]:toks[start][0]]
        prev = norm[start - 1]
        if start < i and ("," in gap and _NUMBER_RE.fullmatch(prev)   # "… on 5432, replica on …"
                          or prev in _LIST_JOINS and start >= 2 and _NUMBER_RE.fullmatch(norm[start - 2])):
            break
        start -= 1
    kinds = [_kind(norm[j], norm[j - 1] if j else "", stop, cues) for j in range(start, i)]
    words = norm[start:i]

    def joined(j: int) -> bool:  # tokens j-1 and j are in one phrase (no comma or colon between)
        return not any(c in text[toks[start + j - 1][1]:toks[start + j][0]] for c in ",:")

    def run_back(end: int) -> list[int]:  # word tokens ending at index end (inclusive), backwards
        got: list[int] = []
        j = end
        while j >= 0 and kinds[j] == "word" and (j == end or joined(j + 1)):
            got.append(j)
            j -= 1
        if got and j >= 1 and words[j] in ("the", "a", "an", "our"):
            j -= 1
        if got and j >= 1 and words[j] == "of" and kinds[j - 1] == "word":   # "v1 of the payments api"
            got += run_back(j - 1)
        return got

    n = len(words)
    digit = any(c.isdigit() for c in norm[i])
    attr = words[-1] if digit and n and kinds[-1] == "word" else ""   # "port 5432" (not "job queue RabbitMQ")
    last_verb = max((j for j in range(n) if kinds[j] == "verb"), default=-1)
    subj: list[int] = []
    if last_verb >= 0:
        j = last_verb - 1
        while j >= 0 and kinds[j] in ("stop", "verb") and joined(j + 1):
            j -= 1
        if j >= 0 and kinds[j] == "word" and joined(j + 1):
            subj = run_back(j)
        if subj and digit and not attr and words[last_verb] in COPULAS and \
                all(kinds[k] == "stop" and words[k] in ("now", "still", "currently") for k in range(last_verb + 1, n)):
            attr = words[max(subj)]   # "the primary port is (now) 5433"
        if not subj:   # "we moved the primary to port 5433": the object
            j = last_verb + 1
            while j < n:
                if kinds[j] == "word":
                    k = j
                    while k + 1 < n and kinds[k + 1] == "word" and joined(k + 1):
                        k += 1
                    if k < n - 1:   # (a run touching the value is its attribute)
                        subj = list(range(j, k + 1))
                    break
                j += 1
        if n >= 3 and words[0] in _FRONT_PREPS and kinds[1] == "word":   # "For staging, the api …"
            k = 1
            while k + 1 < n and kinds[k + 1] == "word" and joined(k + 1):
                k += 1
            if k + 1 < n and not joined(k + 1) and k < last_verb:
                subj += range(1, k + 1)
    else:
        subj = [j for j in range(n) if kinds[j] == "word"]
    got = tuple(dict.fromkeys(words[j] for j in sorted(set(subj)) if words[j] != attr))
    return Subject(got, attr, last_verb >= 0)


def _same_word(term: str) -> str:
    """A stem as it is (``compare`` when no two spellings differ)."""
    return term


def one_head(a: Subject, b: Subject, of_b: bool = False) -> bool:
    """Whether the last word of each subject (not :data:`GENERIC`; stemmed,
    one spelling of a ``core.text.KEY_ABBREVIATIONS`` group) is among the
    other's words or its fact's key's: "shop cache" / "the cache" are one
    head; "shop repo" / "shop repo CI logs", "shop cache" / "shop cache
    dashboards" are not (the logs of the repo are another thing, test28b
    Z5).  A subject with no such word has any head.  ``of_b``: only
    ``b``'s last word is asked for (``project/billing/db`` "Postgres 15 on
    port 5432" / "the billing database moved to port 6543": the turn's
    head is the key's word, session 36)."""
    def heads(s: Subject) -> tuple[str, set[str]]:
        words = [key_term(t) for w, t in zip(s.words, s.stems or s.words) if w not in GENERIC]
        return (words[-1] if words else ""), set(words) | {key_term(t) for _, t in s.key}
    (ha, wa), (hb, wb) = heads(a), heads(b)
    for h, w, other in ((ha, wa, wb), (hb, wb, wa)):   # "staging postgres" / "staging db" (test36 T9)
        if h in _DB_PRODUCTS and _of_db({h}, other - w):
            w |= _db_words()
        elif h in _db_words() and _of_db(other - w, {h}):
            w |= other & _DB_PRODUCTS
    return (of_b or not ha or ha in wb) and (not hb or hb in wa)


def compare(a: Subject | None, b: Subject | None, question: Collection[str] = ()) -> bool | None:
    """Whether the subjects ``a`` (of an earlier value) and ``b`` (of a
    later one) name the same thing, for a question of stems ``question``
    (:func:`_compare`); where one is a fact's (``Subject.key``) and they
    are not read as one thing, read again with the fact's key's words and
    without the other's project name (:func:`_widened`, test28 Y6:
    ``project/api/db`` "Postgres 15 on port 5432" / "the api database
    moved to port 6543"): that second reading only ever says ``True``;
    so does a product's name said again with no subject on either side
    (:func:`_named_alike`: "Postgres 15 …" / "We upgraded to Postgres
    16")."""
    got = _compare(a, b, question)
    if got is not True and a is not None and b is not None and (a.key or b.key) \
            and (_compare(_widened(a, b), _widened(b, a), question) is True or _named_alike(a, b)):
        return True
    return got


def _named_alike(a: Subject, b: Subject) -> bool:
    """Whether a fact's value and another item's, neither with a subject
    word of its own (a fact's key aside), are values of one product's name
    written capitalised in the other item: ``project/api/db`` "Postgres 15
    on port 5432" / "We upgraded to Postgres 16 this morning." (test28
    Y6); never a measure word ("we now listen on port 8080" names no
    thing)."""
    f, o = (a, b) if a.key else (b, a)
    return not f.words and not o.words and o.named and f.attribute == o.attribute != ""


#: the stems of databases' product names: one of them is "the db" of a subject that names no other (test36 T9:
#: "the staging postgres on port 5432" / ``staging-db-port`` 6543)
_DB_PRODUCTS = frozenset("postgr postgresql pg mysql mariadb sqlite mongo mongodb".split())


def _of_db(x: set[str], y: set[str]) -> bool:
    """Whether the differing stems ``x`` name a database product (one) and
    ``y`` the generic "db" (``keyrank.key_term``'s) and no product."""
    return len(x & _DB_PRODUCTS) == 1 and bool(_db_words() & y) and not y & _DB_PRODUCTS


def _db_words() -> set[str]:
    """The generic word "db", as ``keyrank.key_term`` spells its forms."""
    return {key_term(w) for w in ("db", "databas", "database")}


def _compare(a: Subject | None, b: Subject | None, question: Collection[str] = ()) -> bool | None:
    """Whether the subjects ``a`` (of an earlier value) and ``b`` (of a
    later one) name the same thing, for a question of stems ``question``.

    Returns ``True`` when one's words hold the other's, ``False`` for
    siblings, ``None`` when it cannot be told (either empty or unknown,
    or words that differ without telling the question's subject apart).
    Words are compared stemmed (``Subject.stems``), the spellings of one
    ``core.text.KEY_ABBREVIATIONS`` group as one (``keyrank.key_term``:
    "shop db" / "shop database"); :data:`GENERIC` words
    and both attributes are left out.  Siblings: ``a`` holds a question word that ``b`` lacks and ``b``
    a word foreign to the question that ``a`` lacks ("postgres primary" /
    "postgres analytics replica" for "which port does the postgres primary
    use"), or the other way round where the two share a word ("postgres
    analytics replica" / "postgres primary"); and both were read with a
    verb or they share a word; or one's sentence sets it apart from a word
    that only the other's subject holds (``Subject.apart``: "the replica
    …, separate from the primary"), whatever the question names.  Other
    words that differ but are not the question's ("harbor gateway cache" /
    "cache entries expire", "quill editor" / "production deploys" for
    "which host runs production deploys") are a paraphrase as often as
    another thing: unknown."""
    if a is None or b is None or not a.words or not b.words:
        return None
    drop = (a.attribute, b.attribute)
    sa = {t for w, t in zip(a.words, a.stems or a.words) if w not in GENERIC and w not in drop}
    sb = {t for w, t in zip(b.words, b.stems or b.words) if w not in GENERIC and w not in drop}
    if not sa or not sb:
        return None
    da, db = sa - sb, sb - sa
    one = _same_word
    if da and db:   # a short and a long spelling of one word ("db" / "database") name one thing (test27 V8)
        one = key_term
        sa, sb = {one(t) for t in sa}, {one(t) for t in sb}
        da, db = sa - sb, sb - sa
    if da and db and (_of_db(da, db) or _of_db(db, da)):   # "staging postgres" / "staging db" (test36 T9) …
        named = {one(t) for s in (a, b) for w, t in zip(s.words, s.stems or s.words)   # (a project's name, a fact's
                 if w == s.project or s.key and (w, t) not in s.key}                    # words beyond its key's)
        if not (da | db) - _DB_PRODUCTS - _db_words() - named:   # … nothing else apart ("analytics db": a sibling)
            da, db = set(), set()
    if not (da and db):
        return True
    if da & {one(t) for t in b.apart} or db & {one(t) for t in a.apart}:
        return False   # one is said to be apart from the other's thing ("…, separate from the primary")
    shared = sa & sb
    if not (a.sure and b.sure) and not shared:
        return None
    q = {one(t) for t in question}
    if (da & q and db - q) or (shared and db & q and da - q):
        return False
    return None


#: the words after a number that name what it counts ("500 requests per
#: minute"), read up to this many (the joins of :data:`_UNIT_JOINS` aside)
UNIT_WORDS = 3
#: stop words a unit may hold between its words ("requests per minute", "calls a day")
_UNIT_JOINS = frozenset(("per", "a", "an", "each", "every"))
#: a word right after a number or the one before it: spaces or a slash between ("100 req/min")
_UNIT_STEP_RE = LazyPattern(r"(?:[ \t]+|[ \t]*/[ \t]*)([^\W\d_][\w-]*)")


class Quantity(Frozen):
    """What a number counts, and what its sentence says it of.

    ``unit``: the stems of the words right after the number that name
    what it counts, joins left out ("500 requests per minute":
    ``("request", "minut")``); ``words``: the stems of the words
    its sentence says it of, up to the number: stop words, verbs, change
    words (:data:`UPDATE_CUES`), :data:`GENERIC` words, numbers and the
    unit aside ("Bump the gateway limit: from today keys get 500 requests
    per minute.": gateway, limit, today, key; "Right now `f` is
    called from 17 places": right, f); ``before``: for each of ``words``,
    the stem of the word of ``words`` right before it in one phrase (no
    ``, : ; (`` between: "the staging gateway limit": gateway -> stage,
    limit -> gateway), or ``""``; ``names``: those of ``words`` that name
    code (with ``_ . /`` inside, or in backquotes: "Right now
    `format_client` is called from 57 places": format_client)."""

    __slots__ = ("unit", "words", "before", "names")

    def __init__(self, unit: tuple[str, ...], words: frozenset[str], before: dict[str, str],
                 names: frozenset[str] = frozenset()) -> None:
        set_fields(self, unit, words, before, names)


def qualified_apart(a: Quantity, b: Quantity) -> bool:
    """Whether two quantities are said of different things: each names
    code the other does not ("`format_client` is called from 57 places" /
    "`update_job` is called from 41 places"), or a word both sentences
    hold is qualified in each by a word the other sentence lacks ("the
    public gateway" / "the staging gateway"; not "the API rate limit" /
    "the gateway limit", whose "gateway" the first sentence holds too, nor
    "the public gateway" / "the gateway")."""
    if a.names - b.names and b.names - a.names:
        return True
    for w in a.words & b.words:
        qa, qb = a.before.get(w, ""), b.before.get(w, "")
        if qa and qb and qa != qb and qa not in b.words and qb not in a.words:
            return True
    return False


def quantity_of(text: str, value: str, limit: int = 4000) -> Quantity | None:
    """The :class:`Quantity` of the first occurrence of the number ``value``
    (normalized, as ``timeline.values_of`` gives it) in ``text``, or None
    where no unit follows it: the next word is a stop word other than
    :data:`_UNIT_JOINS`, a verb, a number or punctuation ("port 5432.",
    "5432 is gone").  Up to :data:`UNIT_WORDS` words are the unit, read
    while only spaces or a slash come between them; the sentence is read
    back :data:`_REACH` characters to ``. ! ?``, a newline or ``;``, and on
    to the next such break.  Pure; no error raised for any text."""
    text = text[:limit]
    low = text.lower() if text.isascii() else normalize(text)   # (normalize keeps offsets for what it maps)
    at = _find(low, value)
    if at < 0:
        return None
    stop = _stop()
    pos, unit = at + len(value), []
    while len(unit) < UNIT_WORDS + 2:
        m = _UNIT_STEP_RE.match(low, pos)
        if m is None:
            break
        w = m.group(1)
        if w in COPULAS or w in VERBS or (w in stop or len(w) == 1) and (w not in _UNIT_JOINS or not unit) \
                or w in _UNIT_JOINS and any(u in _UNIT_JOINS for u in unit):
            break   # (one join: "requests per minute per key" counts requests per minute)
        unit.append(w)
        pos = m.end()
    while unit and unit[-1] in _UNIT_JOINS:
        unit.pop()
    unit = [w for w in unit if w not in _UNIT_JOINS][:UNIT_WORDS]
    if not unit:
        return None
    lo = max(0, at - _REACH)
    brk = _LAST_BREAK_RE.match(low, lo, at)
    sentence = low[brk.end() if brk else lo:at]   # what the number is said of: its sentence up to it
    from objstore.index.analysis import stem_tokens  # deferred: tantivy
    stems = stem_tokens(tuple(unit))
    toks = [(m.start(), m.end(), m.group(0)) for m in _TOKEN_RE.finditer(sentence)]
    norm = [t for _s, _e, t in toks]
    kinds = [_kind(w, norm[j - 1] if j else "", stop, UPDATE_CUES) for j, w in enumerate(norm)]
    code = [any(c in w for c in "_./") or sentence[toks[j][0] - 1:toks[j][0]] == "`" for j, w in enumerate(norm)]
    tstems = [w if c else st for w, c, st in zip(norm, code, stem_tokens(tuple(norm)))]   # (code: as written)
    keep = [k == "word" and w not in GENERIC and w not in _UNIT_JOINS and st not in UPDATE_CUES and st not in stems
            for w, k, st in zip(norm, kinds, tstems)]
    words: set[str] = set()
    before: dict[str, str] = {}
    for j, st in enumerate(tstems):
        if not keep[j]:
            continue
        words.add(st)
        if st not in before:
            joined = j > 0 and keep[j - 1] and not any(c in sentence[toks[j - 1][1]:toks[j][0]] for c in ",:;(")
            before[st] = tstems[j - 1] if joined else ""
    names = frozenset(st for j, st in enumerate(tstems) if keep[j] and code[j])
    return Quantity(stems, frozenset(words), before, names)
