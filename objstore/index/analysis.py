"""Analysis: how the search index turns text into terms.

Five tantivy analyzers, specified in ``docs/format.md`` ("Search index",
"Analyzers"): ``mem_words`` (the regex word tokenizer, lowercase, ASCII
folding, tokens under 64 bytes), ``mem_stem`` (``mem_words`` then the
Snowball English stemmer), ``mem_simple_stem`` (the filters of ``mem_stem``
after tantivy's ``simple`` tokenizer over :func:`simple_text`: the same
terms but where a token holds a combining mark that is not alphabetic, for
half the CPU; new generations' ``text``), ``mem_plain`` (tantivy's ``simple`` tokenizer
on case-folded text, for the substring prefilter; ``mem_plain_s`` is it without the words of
``plainwords.txt``, the ``plain`` of generations whose ``text`` is named ``mem_simple_stem_s``)
and ``mem_pairs`` (the
adjacent-token pairs of :func:`glued_pairs`, lowercased and ASCII-folded:
what a generation without positions answers multi-token words with).  The analyzer objects are
built once per process (building one compiles the token regex) and
registered on every index opened (:func:`register_analyzers`).
"""

from __future__ import annotations

import _thread   # not threading: its import is ~0.8 ms of every reader's start-up (benchmarks: lat18)
import os
import unicodedata

import tantivy

from objstore.core.rxcache import compile_pattern
from objstore.core.text import LazyPattern, strip_escapes
from objstore.index.folds import dotted_i_variant, greek_fold, sigma_variant  # (re-exported)
from objstore.index.simpletext import SIMPLE_BLANK, SIMPLE_CJK, ascii_stand_in, simple_text  # (re-exported)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

__all__ = [
    "ANALYZERS",
    "GREEK_FOLD_SUFFIX",
    "MAX_TOKEN_BYTES",
    "PLAIN_MAX_TOKEN_BYTES",
    "PLAIN_ANALYZER",
    "PLAIN_STOP_ANALYZER",
    "SIMPLE_STEM_STOP_ANALYZER",
    "SIMPLE_STEM_FAST_ANALYZER",
    "SIMPLE_STEM_SHORT_ANALYZER",
    "SIMPLE_STEM_DIFF_ANALYZER",
    "SIMPLE_STEM_VOCAB_ANALYZER",
    "SIMPLE_STEM_COLID_ANALYZER",
    "QUERY_STOPWORDS",
    "STEM_ANALYZER",
    "PAIRS_ANALYZER",
    "SIMPLE_STEM_ANALYZER",
    "SIMPLE_STEM_KEYED_ANALYZER",
    "WORDS_ANALYZER",
    "index_terms",
    "glued_in",
    "greek_fold",
    "holds_term",
    "glued_pairs",
    "is_cjk_token",
    "joined_token",
    "lower_folds",
    "nfc",
    "plain_aligned",
    "plain_differing",
    "plain_differing_words",
    "plain_stop_words",
    "plain_tokens",
    "register_writer_analyzers",
    "register_analyzers",
    "simple_text",
    "sigma_variant",
    "dotted_i_variant",
    "simple_tokens",
    "stem_tokens",
    "text_pairs",
    "tokenize",
    "word_pairs",
    "word_tokens",
]

#: Tokens of this many UTF-8 bytes or more are dropped by the analyzer.
MAX_TOKEN_BYTES = 64
#: Tokens of this many UTF-8 bytes or more are dropped from the ``plain``
#: field; a document whose case-folded text is this long is flagged ``long``.
PLAIN_MAX_TOKEN_BYTES = 32_768

#: Tokenizer names as recorded in a generation's schema (``meta.json``).
WORDS_ANALYZER = "mem_words"
STEM_ANALYZER = "mem_stem"
PLAIN_ANALYZER = "mem_plain"
PAIRS_ANALYZER = "mem_pairs"
#: ``mem_simple_stem``: the ``text`` analyzer of new generations (tantivy's
#: ``simple`` tokenizer over :func:`simple_text`, then the filters of ``mem_stem``)
SIMPLE_STEM_ANALYZER = "mem_simple_stem"
#: ``mem_simple_stem`` under a second name, the ``text`` tokenizer of the
#: generations with a keyed ``id`` (``schema.GenFormat.id_key_field``, since
#: session 8): a ``mem`` from before knows no such tokenizer and reports the
#: generation as damaged instead of misreading its ``id``
SIMPLE_STEM_KEYED_ANALYZER = "mem_simple_stem_k"
#: ``mem_simple_stem`` under a third name, the ``text`` tokenizer of the
#: generations whose ``plain`` leaves out the words of ``plainwords.txt``
#: (``schema.GenFormat.plain_stop``, since session 11): a ``mem`` from
#: before would look a substring up in ``plain`` alone and miss them, so it
#: must report such a generation as damaged instead
SIMPLE_STEM_STOP_ANALYZER = "mem_simple_stem_s"
#: ``mem_simple_stem`` under a fourth name, the ``text`` tokenizer of the
#: generations whose object ids are in fast columns and whose ``id`` key is
#: 12 bytes (``schema.GenFormat.fast_oid``, since session 12): a ``mem``
#: from before would read no id from their documents and look ids up by a
#: 16-byte key, so it must report such a generation as damaged instead
SIMPLE_STEM_FAST_ANALYZER = "mem_simple_stem_f"
#: ``mem_simple_stem`` under a fifth name, the ``text`` tokenizer of the
#: ``fast_oid`` generations whose ``id`` key is 10 bytes, not 12
#: (``schema.GenFormat.short_key``, since session 13): a ``mem`` from before
#: would look ids up by a 12-byte key and find none, so it must report such
#: a generation as damaged instead
SIMPLE_STEM_SHORT_ANALYZER = "mem_simple_stem_t"
#: ``mem_simple_stem`` under a sixth name, the ``text`` tokenizer of the
#: ``short_key`` generations whose ``plain`` holds only the words ``text``
#: does not hold as themselves (:func:`plain_differing`;
#: ``schema.GenFormat.plain_diff``, since session 15): a ``mem`` from before
#: would look most words up in ``plain`` alone and miss them, so it must
#: report such a generation as damaged instead
SIMPLE_STEM_DIFF_ANALYZER = "mem_simple_stem_d"
#: ``mem_simple_stem`` under a seventh name, the ``text`` tokenizer of the
#: ``plain_diff`` generations whose ``plain`` holds a word the stemmer
#: changes only in the first document of a session that holds it
#: (``schema.GenFormat.plain_vocab``, since session 17): a ``mem`` from
#: before would look such a word up in ``plain`` alone and miss the later
#: documents, so it must report such a generation as damaged instead
SIMPLE_STEM_VOCAB_ANALYZER = "mem_simple_stem_v"
#: ``mem_simple_stem`` under an eighth name, the ``text`` tokenizer of the
#: ``plain_vocab`` generations without an ``id`` field: the object id is
#: only in the fast columns, which answer its lookups and deletes
#: (``schema.GenFormat.col_id``, since session 18): a ``mem`` from before
#: would find no document by its ``id`` term, so it must report such a
#: generation as damaged instead
SIMPLE_STEM_COLID_ANALYZER = "mem_simple_stem_c"
#: The end of the ``text`` tokenizer's name (``mem_simple_stem`` and each
#: of its names above, then this) in the generations whose ``text`` had
#: the diacritics of Greek letters dropped (:func:`greek_fold`;
#: ``schema.GenFormat.greek_fold``, since session 29): a ``mem`` from before
#: would look an accented Greek word up as it is spelled and miss it, so it
#: must report such a generation as damaged instead
GREEK_FOLD_SUFFIX = "_g"
#: ``mem_plain`` followed by tantivy's stop-word filter of the words of
#: ``plainwords.txt`` (:func:`plain_stop_words`): the ``plain`` of a
#: ``plain_stop`` generation, registered on the indexes a writer writes
#: (:func:`register_writer_analyzers`)
PLAIN_STOP_ANALYZER = "mem_plain_s"
#: analyzer option of :class:`~objstore.index.searchindex.SearchIndex` ->
#: tokenizer name of the ``text`` field in the schema
ANALYZERS: dict[str, str] = {"stem": STEM_ANALYZER, "words": WORDS_ANALYZER}

#: Query words dropped before searching (English function words and question
#: words; the classic SMART/NLTK-style list, trimmed).  Only single-token
#: words are dropped, and only when another word remains.
QUERY_STOPWORDS: frozenset[str] = frozenset("""
a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing don down
during each few for from further had has have having he her here hers herself
him himself his how i if in into is it its itself just ll me more most my
myself no nor not now of off on once only or other our ours ourselves out over
own re s same she should so some such t than that the their theirs them
themselves then there these they this those through to too under until up ve
very was we were what when where which while who whom why will with would you
your yours yourself yourselves
""".split())
_CJK = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}"
_TOKEN_PATTERN = r"[" + _CJK + r"]|[\p{L}\p{M}\p{N}&&[^" + _CJK + r"]]+"

def _build_analyzer(stem: bool = False, simple: bool = False, whole: bool = False) -> "tantivy.TextAnalyzer":
    """``mem_words``/``mem_stem`` (the regex tokenizer of ``_TOKEN_PATTERN``)
    or, with ``simple``, ``mem_simple_stem`` (``stem``) and its unstemmed
    form (the query side's :func:`simple_tokens`): tantivy's ``simple``
    tokenizer (maximal runs of ``char::is_alphanumeric``, about twice as fast
    as the regex tokenizer) over :func:`simple_text`.  Then lowercase, ASCII
    folding, tokens of MAX_TOKEN_BYTES or more dropped, [Snowball English
    stemmer].  ``whole``: the text as one token (tantivy's ``raw``), for a
    text the regex takes whole (:func:`stem_tokens`)."""
    tokenizer = tantivy.Tokenizer.raw() if whole else tantivy.Tokenizer.simple() if simple \
        else tantivy.Tokenizer.regex(_TOKEN_PATTERN)
    b = (
        tantivy.TextAnalyzerBuilder(tokenizer)
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.remove_long(MAX_TOKEN_BYTES))
    )
    if stem:
        b = b.filter(tantivy.Filter.stemmer("english"))
    return b.build()


def _build_pairs_analyzer() -> "tantivy.TextAnalyzer":
    """``mem_pairs``: the whitespace-separated pair strings of
    :func:`glued_pairs`, lowercased and ASCII-folded, pairs of
    MAX_TOKEN_BYTES or more dropped."""
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace())
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.ascii_fold())
            .filter(tantivy.Filter.remove_long(MAX_TOKEN_BYTES))
            .build())


def _build_plain_analyzer(limit: int | None = PLAIN_MAX_TOKEN_BYTES, stop: bool = False) -> "tantivy.TextAnalyzer":
    """``mem_plain``: tantivy's ``simple`` tokenizer (maximal runs of
    alphanumeric characters, Rust ``char::is_alphanumeric``; about twice as
    fast as the ``mem_words`` regex) and no other filter (the text is
    case-folded by Python before it reaches it), tokens of ``limit`` bytes or
    more dropped; ``limit=None`` keeps every token (used on match texts).
    ``stop``: ``mem_plain_s``, then the words of :func:`plain_stop_words`
    dropped (tantivy's ``custom_stopword`` filter, in Rust)."""
    b = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
    if limit is not None:
        b = b.filter(tantivy.Filter.remove_long(limit))
    if stop:
        b = b.filter(tantivy.Filter.custom_stopword(sorted(plain_stop_words())))
    return b.build()


_STOP_WORDS: list = []  # [frozenset]: read on first use


def plain_stop_words() -> frozenset[str]:
    """The words ``mem_plain_s`` drops (``objstore/index/plainwords.txt``,
    one a line; made by ``bench/plain_words.py``): ASCII tokens of
    ``mem_plain`` that ``mem_simple_stem`` indexes as themselves (the
    stemmer leaves them as they are, and they are shorter than
    MAX_TOKEN_BYTES), so that a ``text`` term stands for each where
    ``plain`` has none (``docs/format.md``, "Substring prefilter").
    Read once per process (~10,000 words).  Raises ``OSError`` when the
    file is missing (a broken installation)."""
    if not _STOP_WORDS:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "plainwords.txt"),
                  encoding="ascii") as fh:
            _STOP_WORDS.append(frozenset(fh.read().split()))
    return _STOP_WORDS[0]


# The characters whose case folding (``str.casefold``) a ``mem_plain``
# token may end or start inside of, or which fold to ASCII letters that
# ``mem_simple_stem``'s lowercasing and ASCII folding do not give: found by
# asking tantivy-py 0.27's analyzers about every code point whose casefold
# differs from itself (no other character can differ:
# ``test_plain_split_chars_are_those_the_analyzers_cut_differently``).  A body
# holding one is indexed in ``plainall`` instead of ``plain``
# (:func:`plain_aligned`).  ``İ`` folds to ``i`` + U+0307 (which separates),
# the Greek ones to a letter + a combining mark, ``ﬅ`` to ``st`` where
# ASCII folding leaves it.
_PLAIN_SPLIT = ((0x130, 0x130), (0x149, 0x149), (0x1f0, 0x1f0), (0x390, 0x390), (0x3b0, 0x3b0),
                (0x1e96, 0x1e9a), (0x1f50, 0x1f50), (0x1f52, 0x1f52), (0x1f54, 0x1f54), (0x1f56, 0x1f56),
                (0x1fb6, 0x1fb7), (0x1fc6, 0x1fc7), (0x1fd2, 0x1fd3), (0x1fd6, 0x1fd7), (0x1fe2, 0x1fe4),
                (0x1fe6, 0x1fe7), (0x1ff6, 0x1ff7), (0xfb05, 0xfb05))
_PLAIN_SPLIT_RX: list = []  # compiled on the first non-ASCII text


def plain_aligned(text: str) -> bool:
    """Whether ``text`` (NFC, escape sequences removed: as indexed) holds
    none of the characters of ``_PLAIN_SPLIT``: then every ASCII
    ``mem_plain`` token of ``text.casefold()`` is also a token of
    ``mem_simple_stem`` before stemming (the same characters, cut at the
    same places), so a ``plain`` that drops a word of
    :func:`plain_stop_words` loses nothing ``text`` does not hold
    (``docs/format.md``, "Substring prefilter").  An ASCII text is one
    ``str.isascii``; any other one regex scan (~1 ns a character)."""
    if text.isascii():
        return True
    if not _PLAIN_SPLIT_RX:
        import re   # (a non-ASCII text only: a recall or hook that meets none imports no re)
        _PLAIN_SPLIT_RX.append(re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in _PLAIN_SPLIT) + "]"))
    return _PLAIN_SPLIT_RX[0].search(text) is None


_ANALYZERS: dict[str, "tantivy.TextAnalyzer"] = {}  # built on first use (start-up time)
_ANALYZER_LOCK = _thread.allocate_lock()   # threading.Lock
_REGISTERED: dict[str, "tantivy.TextAnalyzer"] = {}  # the objects registered on every Index


def register_analyzers(index: "tantivy.Index") -> None:
    """Register ``mem_words``, ``mem_stem``, ``mem_simple_stem`` (also as
    ``mem_simple_stem_k`` and its other names, each also with
    GREEK_FOLD_SUFFIX), ``mem_plain`` and ``mem_pairs`` on ``index``
    (a ``tantivy.Index``; needed before a writer of it is made:
    ``SubIndex.new_writer`` calls it, a generation opened for reading goes
    without, as its queries are built from terms).  The analyzer objects are built
    once per process and shared by every index (building one compiles the
    token regex, ~0.7 ms; a process opening 16 shards would pay that 48 times)."""
    with _ANALYZER_LOCK:
        if not _REGISTERED:
            # the words, stem and pairs analyzers are the query side's objects too (_analyzer):
            # each regex one built once per process, not twice (~1.1 ms at start-up)
            _REGISTERED.update({WORDS_ANALYZER: _analyzer(False),
                                STEM_ANALYZER: _analyzer(True),
                                SIMPLE_STEM_ANALYZER: _analyzer("simple_stem"),
                                PLAIN_ANALYZER: _build_plain_analyzer(),
                                PAIRS_ANALYZER: _analyzer("pairs")})
        for name, a in _REGISTERED.items():
            index.register_tokenizer(name, a)
        simple = _REGISTERED[SIMPLE_STEM_ANALYZER]   # (the Greek fold is applied to the text before it)
        for name in (SIMPLE_STEM_ANALYZER, SIMPLE_STEM_KEYED_ANALYZER, SIMPLE_STEM_STOP_ANALYZER,
                     SIMPLE_STEM_FAST_ANALYZER, SIMPLE_STEM_SHORT_ANALYZER, SIMPLE_STEM_DIFF_ANALYZER,
                     SIMPLE_STEM_VOCAB_ANALYZER, SIMPLE_STEM_COLID_ANALYZER):
            index.register_tokenizer(name, simple)
            index.register_tokenizer(name + GREEK_FOLD_SUFFIX, simple)


def register_writer_analyzers(index: "tantivy.Index") -> None:
    """Register ``mem_plain_s`` on ``index`` (after :func:`register_analyzers`),
    before a writer of it is made: only writers analyse ``plain``, and
    building it (reading ``plainwords.txt``, ~10,000 words into tantivy's
    filter) costs ~2 ms that a reading process never pays.  Built once per
    process.  Raises ``OSError`` when the word list is missing."""
    with _ANALYZER_LOCK:
        index.register_tokenizer(PLAIN_STOP_ANALYZER, _analyzer("plain_s"))


def plain_differing(folded: str) -> str:
    """The ``plain`` of a ``plain_diff`` generation for the case-folded,
    :func:`plain_aligned` body ``folded``: the words of
    :func:`plain_differing_words` joined by spaces in no set order."""
    return b" ".join(plain_differing_words(folded)).decode("utf-8", "surrogatepass")


def plain_differing_words(folded: str) -> "set[bytes]":
    """The words (UTF-8, surrogates passed) of the ``plain`` of a ``plain_diff`` generation for the case-folded,
    :func:`plain_aligned` body ``folded``: its distinct ``mem_plain``
    tokens but those that ``text`` holds as themselves (ASCII, shorter than
    MAX_TOKEN_BYTES, left as they are by the stemmer of
    ``mem_simple_stem``; the words of :func:`plain_stop_words` are such),
    as a set (empty when none is left); the field's
    ``mem_plain_s`` then drops those of PLAIN_MAX_TOKEN_BYTES or more.  The
    substring prefilter asks ``text`` for the words left out
    (``docs/format.md``, "Substring prefilter").  The body's UTF-8 is cut
    at its ASCII separators (``bytes.translate`` and ``split``): a run of
    ASCII letters and digits between them is a whole ``mem_plain`` token; a
    run holding a non-ASCII byte is kept as it is (the field's analyzer
    cuts it into its tokens, some of which ``text`` may hold too: more than
    needed, never less).  ~0.8 s for the corpus's 33 M characters
    (session 16, load 7; 1.1 s with a set of each body's words).
    Each word's answer is memoised (cleared at _DIFFERS_MAX words, after
    which the body's every word is decided again): one ``analyze`` of a
    body's new short ASCII words.  Never raises for a
    ``str`` (a lone surrogate passes through, for tantivy to refuse)."""
    raw = folded.encode("utf-8", "surrogatepass")
    # runs between ASCII separators: an ASCII one is a whole mem_plain token; one holding a non-ASCII
    # character is kept whole (the field's own analyzer cuts it, perhaps into words text holds too).
    # No set of the body's words is built: two lookup passes over the list (hashes cached on the
    # words) cost less than hashing each word into a new set
    words = raw.translate(_ASCII_SEPARATORS).split()
    with _ANALYZER_LOCK:
        if not _DIFFERS_SEEN.issuperset(words):
            new = set(words).difference(_DIFFERS_SEEN)
            if len(_DIFFERS_SEEN) + len(new) > _DIFFERS_MAX:
                _DIFFERS_SEEN.clear()
                _DIFFERS_KEEP.clear()
                new = set(words)
            short = [w for w in new if w.isascii() and len(w) < MAX_TOKEN_BYTES]
            _DIFFERS_KEEP.update(new.difference(short))
            if short:
                # an ASCII token of mem_plain is a run of [0-9a-z]: mem_simple_stem cuts the joined words
                # at the same spaces, one term each (none dropped: all are shorter than its limit)
                stemmer = _analyzer("simple_stem")
                stems = stemmer.analyze(b" ".join(short).decode("ascii"))
                if len(stems) != len(short):  # never, by the above; asked one by one rather than trusted
                    stems = [(stemmer.analyze(w.decode("ascii")) or [""])[0] for w in short]
                _DIFFERS_KEEP.update(w for w, s in zip(short, stems) if s.encode("ascii") != w)
            _DIFFERS_SEEN.update(new)
        return _DIFFERS_KEEP.intersection(words)


#: the words :func:`plain_differing` has decided (a pure function of the
#: word), and of them those it keeps in ``plain``; both cleared when the
#: first would hold more than _DIFFERS_MAX
_DIFFERS_SEEN: set[bytes] = set()
_DIFFERS_KEEP: set[bytes] = set()
_DIFFERS_MAX = 131072
#: ``bytes.translate`` table: every ASCII byte that is not a letter or
#: digit to a space, every other byte as it is (:func:`plain_differing`)
_ASCII_SEPARATORS = bytes(c if chr(c).isalnum() else 0x20 for c in range(128)) + bytes(range(128, 256))


def _analyzer(stem: bool | str) -> "tantivy.TextAnalyzer":
    """The shared words (False), stemming (True), ``"plain"`` (no filter,
    no length limit), ``"plain_s"`` (``mem_plain_s``), ``"pairs"``,
    ``"simple"`` (``mem_simple_stem`` without the stemmer) or
    ``"simple_stem"`` (``mem_simple_stem``) analyzer, or ``"whole_stem"``
    (``mem_stem``'s filters over the text as one token); caller holds
    _ANALYZER_LOCK."""
    key = stem if isinstance(stem, str) else ("stem" if stem else "words")
    a = _ANALYZERS.get(key)
    if a is None:
        a = _ANALYZERS[key] = (_build_plain_analyzer(None) if key == "plain"
                               else _build_plain_analyzer(stop=True) if key == "plain_s"
                               else _build_analyzer(stem=True, simple=True) if key == "simple_stem"
                               else _build_pairs_analyzer() if key == "pairs"
                               else _build_analyzer(simple=True) if key == "simple"
                               else _build_analyzer(stem=True, whole=True) if key == "whole_stem"
                               else _build_analyzer(key == "stem"))
    return a


def nfc(text: str) -> str:
    """``text`` without terminal escape sequences (``objstore.core.text.strip_escapes``,
    the one matching normalization) in Unicode Normalization Form C (UAX #15),
    as every indexed body and query word is before analysis."""
    return unicodedata.normalize("NFC", strip_escapes(text))


def tokenize(text: str, greek: bool = True) -> list[str]:
    """Tokens of ``text`` exactly as the index sees them.

    ``text`` is NFC-normalised, its Greek diacritics dropped
    (:func:`greek_fold`, as in a ``schema.GenFormat.greek_fold``
    generation; not with ``greek`` False: as an older generation holds
    them), split by the ``mem_words`` regex (an ASCII
    one by ``simple``, which cuts it at the same places: the regex's
    classes on ASCII are letters and digits), lowercased and ASCII-folded;
    tokens of 64 or more UTF-8 bytes are dropped.  Example:
    ``'Café re-index auth.py 日本語'`` ->
    ``['cafe', 're', 'index', 'auth', 'py', '日', '本', '語']``.
    Returns ``[]`` for text without letters or digits.  Never raises for a
    ``str``; ``TypeError`` for anything else.
    """
    if not isinstance(text, str):
        raise TypeError(f"tokenize() needs str, got {type(text).__name__}")
    if not text:
        return []
    text = greek_fold(nfc(text)) if greek else nfc(text)
    if not text.isascii():
        text = ascii_stand_in(text) or text
    with _ANALYZER_LOCK:  # ASCII: tantivy's ``simple`` tokenizer cuts as the regex does, at half its CPU
        return list(_analyzer("simple" if text.isascii() else False).analyze(text))


def word_tokens(word: str) -> tuple[str, ...]:
    """:func:`tokenize` of one whitespace-free word, memoised (a pure
    function of the word; a snippet tokenizes every word it looks at, and
    the same words recur across passages; cleared at _WORDS_MAX words);
    an ASCII one without ESC by a regex."""
    got = _WORDS.get(word)
    if got is None:
        if len(_WORDS) >= _WORDS_MAX:
            _WORDS.clear()
        got = _WORDS[word] = tuple(t.lower() for t in _RUN(word) if len(t) < MAX_TOKEN_BYTES) \
            if word.isascii() and "\x1b" not in word else tuple(tokenize(word))
    return got


#: word -> its tokens (:func:`word_tokens`)
_WORDS: dict[str, tuple[str, ...]] = {}
_WORDS_MAX = 65536
_RUN = compile_pattern(r"[A-Za-z0-9]+").findall


def index_terms(text: str, analyzer: str = "stem") -> list[str]:
    """Terms of ``text`` as a generation built with ``analyzer`` (``"stem"``
    or ``"words"``, see :data:`ANALYZERS`) holds them in its ``text`` field.

    ``"words"`` is :func:`tokenize` (Greek diacritics dropped, as new
    generations hold them); ``"stem"`` stems each of those tokens
    (Snowball English), one term per token, in order:
    ``index_terms("Running databases")`` -> ``['run', 'databas']``.
    Raises ``TypeError`` for a non-str, ``ValueError`` for an unknown analyzer.
    """
    if analyzer not in ANALYZERS:
        raise ValueError(f"analyzer must be one of {tuple(ANALYZERS)}, got {analyzer!r}")
    if analyzer == "words":
        return tokenize(text)
    if not isinstance(text, str):
        raise TypeError(f"index_terms() needs str, got {type(text).__name__}")
    if not text:
        return []
    text = greek_fold(nfc(text))
    if not text.isascii():
        text = ascii_stand_in(text) or text
    with _ANALYZER_LOCK:  # ASCII: as tokenize()
        return list(_analyzer("simple_stem" if text.isascii() else True).analyze(text))


def stem_tokens(toks: tuple[str, ...]) -> tuple[str, ...]:
    """Stem already-analyzed word tokens (:func:`tokenize` output) one by
    one with the Snowball English stemmer of ``mem_stem``: a tuple of the
    same length (stemming a token never splits or drops it, so positions
    stay aligned); a token the stemmer empties is kept as it is.
    ``stem_tokens(("running", "dbs"))`` -> ``("run", "db")``."""
    memo = _STEMS
    out = [memo.get(t) for t in toks]
    if None in out:
        with _ANALYZER_LOCK:
            simple = _analyzer("simple_stem")  # ASCII letters and digits: as tokenize()
            if len(memo) >= _STEMS_MAX:
                memo.clear()
            new = [t for t in set(toks) if t not in memo and t.isascii() and t.isalnum()]
            if len(new) > 1 and len(got := simple.analyze(" ".join(new))) == len(new):
                memo.update(zip(new, got))
            for t in toks:
                if t not in memo:   # ASCII: ``simple`` cuts as the regex does (tokenize); ASCII letters and
                    u = t.replace("\u0307", "")   # digits with a U+0307 (a dotted-i variant): one token
                    s = (simple if t.isascii() else _analyzer("whole_stem")
                         if u.isascii() and u.isalnum() else _analyzer(True)).analyze(t)
                    memo[t] = s[0] if s else t
            out = [memo[t] for t in toks]
    return tuple(out)


#: token -> its stem (:func:`stem_tokens`): a pure function of the token,
#: memoised because a search stems each query word once per generation and
#: a snippet every word it looks at (cleared when it holds _STEMS_MAX tokens)
_STEMS: dict[str, str] = {}
_STEMS_MAX = 65536


def is_cjk_token(tok: str) -> bool:
    """Whether ``tok`` (a :func:`tokenize` token) is one Han, Hiragana,
    Katakana or Hangul character (CJK tokens are single characters by
    construction of the token pattern)."""
    if len(tok) != 1:
        return False
    name = unicodedata.name(tok, "")
    return name.startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL"))


def joined_token(toks: tuple[str, ...]) -> str | None:
    """Concatenation alternative of a multi-token word (``("re", "index")``
    -> ``"reindex"``), or None when it makes no sense: fewer than two
    tokens, a CJK token, or a concatenation of MAX_TOKEN_BYTES or more."""
    if len(toks) < 2 or any(is_cjk_token(t) for t in toks):
        return None
    joined = "".join(toks)
    return joined if len(joined.encode()) < MAX_TOKEN_BYTES else None


# The blocks of the non-ASCII characters agents' transcripts are made of
# (accented Latin, dashes and ellipses, arrows, mathematical and technical
# symbols, box drawing, check marks and other dingbats): a body whose every
# character is ASCII or one of theirs that none of the tables above names and
# whose ``str.lower`` is its ``str.casefold`` (:func:`lower_folds`) is indexed
# as it is in ``text`` and its lowercase in ``plain``, one scan of it deciding
# (``str.casefold`` is per character and ``str.lower`` too but for U+03A3, not
# in them; ``str.lower`` costs about half of ``str.casefold`` on such a text).
_LOWER_FOLD_BLOCKS = ((0xA0, 0x24F), (0x2000, 0x245F), (0x2500, 0x27BF))
_LOWER_FOLD_RX: list = []  # compiled on the first non-ASCII text


def _lower_fold_rx() -> "re.Pattern":
    """The pattern of :func:`lower_folds`: any character but ASCII and those
    of ``_LOWER_FOLD_BLOCKS`` that are in no table of :func:`simple_text` or
    :func:`plain_aligned` and whose ``str.lower`` is their ``str.casefold``
    in this Python's Unicode (one class of BMP characters: a bitmap test a
    character, astral ones never in it).  Built once per process (~1 ms)."""
    if not _LOWER_FOLD_RX:
        import re
        named = bytearray(0x10000)  # BMP code points in a table of simple_text or plain_aligned
        for a, b in SIMPLE_CJK + SIMPLE_BLANK + _PLAIN_SPLIT:
            if a <= 0xFFFF:
                named[a:min(b, 0xFFFF) + 1] = b"\x01" * (min(b, 0xFFFF) + 1 - a)
        keep = [cp for a, b in _LOWER_FOLD_BLOCKS for cp in range(a, b + 1)
                if not named[cp] and chr(cp).lower() == chr(cp).casefold()]
        runs: list[list[int]] = []
        for cp in keep:
            if runs and runs[-1][1] == cp - 1:
                runs[-1][1] = cp
            else:
                runs.append([cp, cp])
        _LOWER_FOLD_RX.append(re.compile("[^\x00-\x7f" + "".join(
            f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in runs) + "]"))
    return _LOWER_FOLD_RX[0]


def lower_folds(text: str) -> bool:
    """Whether ``text`` (NFC, as :func:`nfc` gives it) is indexed as the
    plain forms of an ASCII text are: then ``simple_text(text) == text``,
    ``plain_aligned(text)`` and ``fold(text) == text.lower()``
    (``objstore.core.text.fold``).  True for a text whose characters are
    ASCII or of the common symbol and Latin blocks (``_LOWER_FOLD_BLOCKS``)
    and without escape sequences; False otherwise, which says nothing (the
    caller computes each form).  One scan of the text (~3 ns a character
    for a non-ASCII one); :func:`objstore.index.schema.to_tantivy_doc`'s
    shortcut."""
    if strip_escapes(text) is not text:  # a sequence stripping leaves (fold strips once more)
        return False
    return text.isascii() or _lower_fold_rx().search(text) is None


def simple_tokens(tok: str) -> tuple[str, ...]:
    """The terms (before stemming) a ``mem_simple_stem`` generation holds
    where a body holds the :func:`tokenize` token ``tok``: ``(tok,)`` but
    for a token with a combining mark that is not alphabetic, which
    ``simple`` cuts there (``"हिन्दी"`` -> ``("हिन", "दी")``, cut at the virama), and ``(tok,)``
    too for a token it holds no term of (a Kangxi radical: such a token is
    then found nowhere in that generation).  A ``tok`` holding "i" +
    U+0307 (the lowercase of ``İ``, which ``simple`` would cut there) is cut
    as the body's ``İ`` is: not there (``"i̇stanbul"`` -> ``("i̇stanbul",)``,
    the term a body's ``İstanbul`` gives).  Memoised."""
    if tok.isascii():
        return (tok,)
    got = _SIMPLE_TOKS.get(tok)
    if got is None:
        with _ANALYZER_LOCK:   # "i" + U+0307 is the lowercase of a body's "İ", which simple keeps in its word
            got = tuple(_analyzer("simple").analyze(simple_text(tok.replace("i\u0307", "\u0130")))) or (tok,)
        if len(_SIMPLE_TOKS) >= _WORDS_MAX:
            _SIMPLE_TOKS.clear()
        _SIMPLE_TOKS[tok] = got
    return got


#: tokenize token -> its simple_tokens (non-ASCII tokens only)
_SIMPLE_TOKS: dict[str, tuple[str, ...]] = {}


def _word_char(analyzer: "tantivy.TextAnalyzer", c: str) -> bool:
    """Whether ``c`` is a token character of ``analyzer``: ``"a" + c`` is one token."""
    return analyzer.analyze("a" + c) == ["a" + c]


def plain_tokens(norm: str) -> tuple[list[str], bool, bool]:
    """``(tokens, left_open, right_open)`` of an already normalized, non-empty
    match text under ``mem_plain`` without the length limit: its tokens in
    order, and whether its first / last character is a token character (the
    first / last token may then be part of a longer token of a body).
    Raises ``UnicodeError`` or ``ValueError`` for text tantivy cannot take
    (e.g. a lone surrogate)."""
    with _ANALYZER_LOCK:
        a = _analyzer("plain")
        toks = list(a.analyze(norm))
        if not toks:
            return [], False, False
        return toks, _word_char(a, norm[0]), _word_char(a, norm[-1])


# Characters each of which is a token on its own (the CJK classes of the
# ``mem_words`` pattern, as code point ranges: Han, kana, Hangul and their
# extensions); every other letter or digit (``str.isalnum``) joins a run.
_PAIR_CJK = ((0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3005, 0x3007), (0x3021, 0x3029), (0x3038, 0x303B),
             (0x3040, 0x30FF), (0x3130, 0x318F), (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
             (0xA960, 0xA97F), (0xAC00, 0xD7FF), (0xF900, 0xFAFF), (0xFF66, 0xFFDC), (0x20000, 0x3134F))
# maximal runs of letters and digits (``[^\W_]`` is ``str.isalnum``; a class that also
# excluded the CJK ranges would cost ~4-30 ms to compile in every process importing this)
_ALNUM_RUN = LazyPattern(r"[^\W_]+")


def _pair_tokens(word: str) -> list[str]:
    """The tokens :func:`glued_pairs` cuts ``word`` into: runs of
    ``str.isalnum`` characters, each CJK character (``_PAIR_CJK``) alone."""
    out = []
    for run in _ALNUM_RUN.findall(word):
        if run.isascii():
            out.append(run)
            continue
        start = 0
        for i, c in enumerate(run):
            o = ord(c)
            if o >= 0x1100 and any(a <= o <= b for a, b in _PAIR_CJK):
                if i > start:
                    out.append(run[start:i])
                out.append(c)
                start = i + 1
        if start < len(run):
            out.append(run[start:])
    return out


#: whitespace-free word -> its pair string (:func:`glued_pairs`); cleared at _WORDS_MAX words
_PAIRS: dict[str, str] = {}


def glued_pairs(text: str) -> str:
    """The adjacent-token pairs of the glued words of ``text`` (NFC, as
    indexed), as the value of the ``pairs`` field: for each
    whitespace-separated word, its tokens (maximal runs of letters and
    digits in Python's sense, ``str.isalnum``, each CJK character alone;
    ``_`` and every other character separates) and, for each two
    consecutive ones ``a``, ``b``, the string ``a_b``; all of them joined
    by spaces.  ``glued_pairs("fix auth.py: re-index 日本語")`` ->
    ``"auth_py re_index 日_本 本_語"``.  Only tokens of one word pair up,
    so a pair says "these two tokens stand next to each other with no
    whitespace between" (``docs/format.md``, "Search index", "Pairs").
    A word of letters and digits alone (ASCII, or one character) has no
    pair and costs one ``str.isalnum`` test."""
    out = []
    memo = _PAIRS
    for w in text.split():
        if w.isalnum() and (w.isascii() or len(w) == 1):
            continue
        p = memo.get(w)
        if p is None:
            toks = _pair_tokens(w)
            p = " ".join([a + "_" + b for a, b in zip(toks, toks[1:])]) if len(toks) > 1 else ""
            if len(memo) >= _WORDS_MAX:
                memo.clear()
            memo[w] = p
        if p:
            out.append(p)
    return " ".join(out)


def word_pairs(word: str) -> tuple[str, ...]:
    """The ``pairs`` terms of one whitespace-free query word: the pairs of
    :func:`glued_pairs` (of the word's NFC form, :func:`greek_fold`) as ``mem_pairs`` turns them
    into terms, distinct, in order.  ``word_pairs("Auth.PY")`` ->
    ``("auth_py",)``; ``()`` for a word with fewer than two tokens.  A
    document holds every one of them wherever the word stands in it
    glued (no whitespace inside), since a pair depends on its two tokens
    alone."""
    p = glued_pairs(greek_fold(nfc(word)))
    if not p:
        return ()
    with _ANALYZER_LOCK:
        return tuple(dict.fromkeys(_analyzer("pairs").analyze(p)))


def text_pairs(text: str) -> frozenset[str]:
    """The ``pairs`` terms a body ``text`` would have (:func:`glued_pairs`
    of its NFC form, :func:`greek_fold`, through ``mem_pairs``): a query word of
    :func:`word_pairs` ``p`` stands glued in the body iff ``set(p) <=
    text_pairs(text)``, the test ``SearchIndex.search`` makes against the
    hits of a generation without the ``pairs`` field.  ~40 ns a character."""
    p = glued_pairs(greek_fold(nfc(text)))
    if not p:
        return frozenset()
    with _ANALYZER_LOCK:
        return frozenset(_analyzer("pairs").analyze(p))


#: pair term -> the ``re`` pattern finding it in an ASCII body (:func:`glued_in`)
_PAIR_RX: dict[str, "re.Pattern[str]"] = {}


def holds_term(text: str, term: str | None, stem: bool) -> bool:
    """Whether body ``text`` (taken as indexed, :func:`nfc`) has a token
    whose term in a ``mem_simple_stem`` generation (``stem``; else its
    unstemmed cut) is ``term``: a hit of a multi-token word that matched
    through its joined alternative (``reindex`` for ``re-index``,
    :func:`joined_token`), which the glued check must keep as a generation
    with ``pairs`` does.  Greek diacritics are dropped from both
    (:func:`greek_fold`: a term of an older generation that holds them
    matches as in a newer one).  False for no ``term``.  O(len(text))."""
    if not term:
        return False
    term = greek_fold(term)
    with _ANALYZER_LOCK:
        toks = _analyzer("simple").analyze(simple_text(greek_fold(nfc(text))))
    if not stem:
        return term in toks
    cand = tuple({t for t in toks if t[:1] == term[:1]})
    return term in cand or term in stem_tokens(cand)


def glued_in(text: str, pairs: tuple[str, ...]) -> bool:
    """Whether body ``text`` holds every ``pairs`` term (:func:`word_pairs`
    of a query word), i.e. ``set(pairs) <= text_pairs(text)``.  ASCII pairs
    are first looked for with one regex each over the lowercase body
    (``a_b``: ``a`` and ``b`` whole runs of letters and digits, one or more
    characters that are neither whitespace nor letters or digits between
    them: what :func:`glued_pairs` pairs), ~50 times faster than
    :func:`text_pairs`; an ASCII body is answered by them alone, any other
    body by :func:`text_pairs` where a regex finds nothing (ASCII folding
    may make a pair there, ``café.py`` holds ``cafe_py``).  ``text`` is
    taken as indexed (:func:`nfc`)."""
    if not pairs:
        return True
    text = greek_fold(nfc(text))  # as indexed: escape sequences out, accents composed, Greek ones dropped
    if all(p.isascii() for p in pairs):
        low = text.lower()
        for p in pairs:
            rx = _PAIR_RX.get(p)
            if rx is None:
                a, b = p.split("_", 1)
                if len(_PAIR_RX) >= _WORDS_MAX:
                    _PAIR_RX.clear()
                # a literal first: re finds it with a fast scan; the start is checked below
                import re
                rx = _PAIR_RX[p] = re.compile(re.escape(a) + r"(?:[^\w\s]|_)+" + re.escape(b) + r"(?![^\W_])")
            for m in rx.finditer(low):
                i = m.start()
                if i == 0 or not low[i - 1].isalnum():
                    break
            else:
                if text.isascii():
                    return False
                break
        else:
            return True
    return text_pairs(text).issuperset(pairs)
