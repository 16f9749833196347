"""The shapes of the values a sentence names, for the time rule
(:mod:`objstore.retrieval.timeline`, which re-exports them): identifiers a
question names exactly (rule 12: :func:`identifiers`, :func:`another_id`)
and where-or-what values whatever their words (rule 8: :func:`shape_of`).
Split from ``timeline`` (at the 40,960-byte module limit).  Pure; no I/O."""

from __future__ import annotations

from objstore.core.text import LazyPattern

#: a word of a question or a text that may be an identifier: word characters joined by ``.``, ``/``, ``-``, ``_``
_ID_RE = LazyPattern(r"(?<![\w./-])\w[\w./-]*\w")   # (two characters at least)
_ID_DOT_RE = LazyPattern(r"[^\W_]{2}\.[^\W_]{2}")


def identifiers(text: str, limit: int = 4000) -> set[str]:
    """The identifiers ``text`` names (its first ``limit`` characters),
    casefolded: tokens that mix letters and digits (``t8``, ``t39998``,
    ``node18``), or of three characters or more that join word characters
    by ``_`` or ``/`` (``test_login``, ``src/app``), or by a dot with two
    characters on each side (``m34.py``, ``fly.io``); never a number
    (``8080``, ``3.12``) nor a hyphenated word (``follow-up``)."""
    out = set()
    for m in _ID_RE.finditer(text[:limit]):
        tok = m.group(0)
        if not any(c.isalpha() for c in tok):
            continue
        if any(c.isdigit() for c in tok) or "_" in tok or "/" in tok or _ID_DOT_RE.search(tok):
            out.add(tok.casefold())
    return out


def another_id(A, B) -> bool:
    """Rule 12: whether ``B`` is about another identifier than one the
    question names exactly and ``A`` holds: B lacks it and holds another
    identifier (:func:`identifiers`).  Then B updates nothing of A ("fix
    flaky test t38834", or "done: changed m69.py", is not the news of "…
    test t39998" asked about; test27 V31); a B that names no identifier
    ("moved the port to 8443") still may.  The price: asked about
    ``node18`` by name, "we moved the build to node20" no longer marks
    "the build uses node18" (both are still recalled).  Never for a B the
    person said with a change word (``B.cue``, role ``user``: "The shop
    image is now shop-api:v1.5.0 after today's deploy" is the news of
    "shop-api:v1.4.2" asked about: there the identifier is the value, not
    the thing; test28b Z9); an agent's "done: changed m7.py" stays apart.
    ``A``, ``B``: ``timeline.Item`` (its ``ids``, ``others``, ``cue``,
    ``role``)."""
    if B.cue and B.role == "user":
        return False
    return bool(B.others) and any(q not in B.ids for q in A.ids)


#: a host name: dotted labels, the last of letters ("cache-1.internal", "api-v2.shop.internal")
_HOST_RE = LazyPattern(r"[a-z0-9](?:[\w-]*[a-z0-9])?(?:\.[a-z0-9](?:[\w-]*[a-z0-9])?)*\.[a-z]{2,}")
#: a dotted name that is a file's, not a host's ("limits.py")
_FILE_SUFFIXES = frozenset("py js ts tsx jsx json yaml yml toml md txt cfg ini conf sh go rs rb java kt c h cc cpp hpp "
                           "lock log csv sql html css scss xml env pem key crt gz zip tar whl so dll exe".split())


def shape_of(value: str) -> str:
    """The shape of a normalized value that names where or what it is,
    whatever its words: ``url`` ("https://api-v2.shop.internal"), ``path``
    ("/srv/shop-2"), ``email``, ``host`` ("cache-1.internal"; a file name
    such as "limits.py" is none), else ""."""
    if "://" in value:
        return "url"
    if value.startswith(("/", "~/")):
        return "path"
    if "@" in value:
        return "email"
    if "." in value and _HOST_RE.fullmatch(value) and value.rsplit(".", 1)[1] not in _FILE_SUFFIXES:
        return "host"
    return ""
