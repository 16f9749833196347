"""The spelling folds and variants of the search index: the other spelling
of a Greek final sigma (:func:`sigma_variant`) and of a Turkish ``İ``
(:func:`dotted_i_variant`), which a query word is looked up as too.  Split
from ``analysis`` (session 29), which re-exports them; specified in
``docs/format.md`` ("Search index", "Queries")."""

from __future__ import annotations

__all__ = ["dotted_i_variant", "sigma_variant"]


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
