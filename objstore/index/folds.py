"""The spelling folds and variants of the search index: the Greek accent
fold (:func:`greek_fold`, applied to bodies and query words alike), and the
other spelling of a Greek final sigma (:func:`sigma_variant`) and of a
Turkish ``İ`` (:func:`dotted_i_variant`), which a query word is looked up
as too.  Split from ``analysis`` (session 29), which re-exports them;
specified in ``docs/format.md`` ("Search index", "Analyzers" and "Queries")."""

from __future__ import annotations

import unicodedata

from objstore.core.text import LazyPattern

__all__ = ["GREEK_RANGES", "dotted_i_variant", "greek_fold", "sigma_variant"]

#: The Greek blocks (code point ranges): Greek and Coptic, Greek Extended.
GREEK_RANGES = ((0x0370, 0x03FF), (0x1F00, 0x1FFF))
_GREEK = "".join(f"{chr(a)}-{chr(b)}" for a, b in GREEK_RANGES)
#: any Greek character: the one test a non-ASCII text without Greek (an em dash, an accented
#: Latin word) pays; its program is kept across processes (:class:`LazyPattern`)
_ANY_GREEK = LazyPattern("[" + _GREEK + "]")
#: [a Greek letter with a diacritic, combining marks after a Greek character,
#: {letter with diacritic: the letter}]: built on the first text holding a Greek character
_FOLD: list = []


def _greek_letter(c: str) -> bool:
    """Whether ``c`` is one character of :data:`GREEK_RANGES`."""
    return len(c) == 1 and any(a <= ord(c) <= b for a, b in GREEK_RANGES)


def _fold_tables() -> list:
    """The patterns and table of :func:`greek_fold` (built once per process,
    ~1 ms, on the first text holding a Greek character): every letter of :data:`GREEK_RANGES` whose canonical
    decomposition (NFD) is a Greek letter and combining marks, mapped to
    that letter; the combining marks (U+0300-U+036F) that follow a Greek
    character."""
    if not _FOLD:
        import re   # (a Greek text only: a reader that meets none imports no re)
        table = {}
        for a, b in GREEK_RANGES:
            for cp in range(a, b + 1):
                c = chr(cp)
                if not unicodedata.category(c).startswith("L"):
                    continue
                base = "".join(ch for ch in unicodedata.normalize("NFD", c) if not unicodedata.combining(ch))
                if base != c and _greek_letter(base):
                    table[c] = base
        _FOLD[:] = [re.compile("[" + "".join(sorted(table)) + "]"),
                    re.compile("(?<=[" + _GREEK + "])[\u0300-\u036f]+"), table]
    return _FOLD


def greek_fold(text: str) -> str:
    """``text`` (NFC) with the diacritics of its Greek letters dropped: each
    letter of :data:`GREEK_RANGES` whose NFD is a Greek letter and
    combining marks becomes that letter (tonos, dialytika and the
    polytonic breathings, accents, iota subscript and length marks:
    ``"Αθήνα"`` -> ``"Αθηνα"``, ``"ἀρετῇ"`` -> ``"αρετη"``), and a run
    of combining marks U+0300-U+036F after a Greek character is removed
    (marks NFC could not compose).  Case and the final sigma are kept (the
    analyzers lowercase; :func:`sigma_variant`); every other character is
    left as it is (Latin accents are the analyzers' ASCII folding).  The
    text of a generation with ``schema.GenFormat.greek_fold`` and every
    query word and body the retrieval compares with it go through it
    (``docs/format.md``, "Analyzers").  Returns ``text`` itself when it
    is ASCII or holds no Greek character (one regex scan; the fold's
    table is built only for a text that holds one)."""
    if text.isascii() or _ANY_GREEK.search(text) is None:
        return text
    marked, marks, table = _fold_tables()
    return marks.sub("", marked.sub(lambda m: table[m.group()], text))


def sigma_variant(toks: tuple[str, ...]) -> str | None:
    """The other spelling of a one-token Greek word's final sigma: ``σ`` <->
    ``ς`` (``("οδος",)`` -> ``"οδοσ"``, ``("οδοσ",)`` -> ``"οδος"``), else
    None.  The analyzers lowercase per character, so a body's ``ΟΔΟΣ`` is
    the term ``οδοσ`` and its ``οδος`` the term ``οδος``; a query word is
    looked up as both (the word's alternative term,
    ``schema.GenFormat.joined``), which old generations hold as they are."""
    if len(toks) != 1 or len(toks[0]) < 2 or toks[0][-1] not in "σς" or not toks[0][-2].isalpha():
        return None
    t = toks[0]
    return t[:-1] + ("ς" if t[-1] == "σ" else "σ")


def dotted_i_variant(toks: tuple[str, ...]) -> str | None:
    """The other spelling of a one-token word's Turkish ``İ``: a token
    holding ``i`` + U+0307 (the case fold of ``İ``, which the index keeps
    as it is: ``İstanbul`` is the term ``i̇stanbul``) with each of them a
    plain ``i`` (``"i̇stanbul"`` -> ``"istanbul"``); else a token holding
    ``i`` with its first ``i`` dotted (``"istanbul"`` -> ``"i̇stanbul"``,
    ``"diyarbakir"`` -> ``"di̇yarbakir"``: a title-case word, or an
    upper-case one with one ``İ``, as Turkish writes them); else None.  A
    query word is looked up as both (the word's alternative term,
    ``schema.GenFormat.joined``), so ``istanbul`` finds a body's
    ``İstanbul`` and ``İstanbul`` a body's ``Istanbul``, in every
    generation, old ones included (test25 T16; an index-side fold would
    need a new analyzer and leave old generations unfound)."""
    if len(toks) != 1:
        return None
    t = toks[0]
    if "i\u0307" in t:
        return t.replace("i\u0307", "i")
    i = t.find("i")
    return t[:i + 1] + "\u0307" + t[i + 1:] if i >= 0 else None
