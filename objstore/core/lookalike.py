"""Names that read as another name, for keys.

Unicode Technical Standard #39 "Unicode Security Mechanisms": a name whose
letters come from two scripts that hold look-alikes (Latin "deploy" with a
Cyrillic "е") reads as another name.  The Script property and the
confusables data are the ``confusable_homoglyphs`` package's (Scripts.txt
and confusables.txt of Unicode 15, MIT; the standard library has neither),
from the optional extra ``memvcs[confusables]`` (the core dependencies are
fixed): loaded on the first non-ASCII name only, an ASCII name costs one
``str.isascii``.  Without the package a character's script is read from its
Unicode name (``unicodedata``: "CYRILLIC SMALL LETTER IE"), so a name mixing
Latin with Cyrillic or Greek letters is refused all the same, and no
character has a prototype but what NFKC gives (fullwidth letters): a
whole-script look-alike (Cyrillic "рор" for "pop") is then not seen.

The one form of a key for comparing it with another (:func:`key_skeleton`),
the display that shows a look-alike segment escaped
(:func:`escape_lookalike`), and the script checks the key rules use
(docs/format.md, "Key rules").  Split from :mod:`objstore.core.text` (the
matching of texts), whose :func:`~objstore.core.text.confusable_fold` is
the first step of every skeleton here.
"""

from __future__ import annotations

import bisect
import unicodedata

from objstore.core.text import confusable_fold

__all__ = [
    "confusable_skeleton",
    "escape_lookalike",
    "is_lookalike",
    "key_skeleton",
    "lookalike_mix",
    "script_by_name",
    "script_of",
]

#: scripts a name may mix with Latin (UTS #39 section 5.2, "Highly Restrictive": Japanese, Chinese, Korean)
_CJK_SETS = (frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}), frozenset({"LATIN", "HAN", "BOPOMOFO"}),
             frozenset({"LATIN", "HAN", "HANGUL"}))
#: what no script is (Scripts.txt's Common and Inherited: digits, punctuation, combining marks)
_NO_SCRIPT = frozenset({"COMMON", "INHERITED", "Unknown"})
_PROTOTYPES: dict[str, str] = {}
#: the characters confusables.txt (Unicode 15) reads as ``-``: its sources of ``-`` but the Arabic full
#: stop it lists between direction marks (HYPHEN U+2010, NON-BREAKING HYPHEN U+2011, FIGURE DASH U+2012,
#: EN DASH U+2013, SMALL EM DASH U+FE58, HYPHEN BULLET U+2043, MODIFIER LETTER MINUS SIGN U+02D7, MINUS
#: SIGN U+2212, HEAVY MINUS SIGN U+2796, COPTIC CAPITAL LETTER DIALECT-P NI U+2CBA): :func:`_prototype`
#: gives them ``-`` without the package as well (test27b X2; tests/cmds/test_key28_dash_keys.py checks
#: this set against the package's table)
_DASH_SOURCES = frozenset("\u2010\u2011\u2012\u2013\ufe58\u2043\u02d7\u2212\u2796\u2cba")
_CONFUSABLES: str | None = None
_SCRIPTS: tuple[list[int], list[int], list[str]] | None = None


def _package_file(name: str) -> str | None:
    """The text of one data file of the ``confusable_homoglyphs`` package,
    found as an import would find it but without running the package's
    code (its loader module imports ``urllib.request`` and ``http.client``,
    +45-80 ms a process, to update the files from the web, which mem never
    does) or importing ``importlib.resources`` (~7 ms).  None when the
    package (the extra ``memvcs[confusables]``) is not installed or its
    file cannot be read."""
    import importlib.util
    spec = importlib.util.find_spec("confusable_homoglyphs")
    if spec is None or not spec.submodule_search_locations:
        return None
    try:
        with open(f"{list(spec.submodule_search_locations)[0]}/{name}", encoding="ascii") as f:
            return f.read()
    except OSError:
        return None


#: Unicode name words that are no script's name: the script is the next word
_NAME_PREFIXES = frozenset({"FULLWIDTH", "HALFWIDTH", "MATHEMATICAL", "SMALL", "CAPITAL", "MODIFIER"})
#: (``KATAKANA-HIRAGANA PROLONGED SOUND MARK`` ー and the voiced sound marks are Common in
#: Scripts.txt, used by both kana: read as a script, every サーバー was a mix: fresh42 F6)
_NAME_SCRIPTS = {"CJK": "HAN", "KATAKANA-HIRAGANA": "COMMON"}


def script_by_name(ch: str) -> str:
    """:func:`script_of` without the package: digits, punctuation, symbols
    and spaces (categories N, P, S, Z) are ``"COMMON"``, marks ``"INHERITED"``,
    a letter's script the first word of its Unicode name that names one
    (``"CYRILLIC SMALL LETTER IE"``: ``"CYRILLIC"``; ``"CJK UNIFIED
    IDEOGRAPH-…"``: ``"HAN"``); ``"Unknown"`` for a character without a name.
    A script's own digits (Arabic-Indic ``٣``) are ``"COMMON"`` here (no
    mixed-number check is made either way).  Agrees with Scripts.txt on the
    letters of the scripts a look-alike mixes (Latin,
    Cyrillic, Greek, Armenian, Han, Kana, Hangul:
    tests/cmds/test_key26_lookalike_keys.py)."""
    cat = unicodedata.category(ch)
    if cat[0] in "NPSZ":
        return "COMMON"
    if cat[0] == "M":
        return "INHERITED"
    words = unicodedata.name(ch, "").split()
    while words and words[0] in _NAME_PREFIXES:
        words = words[1:]
    if not words:
        return "Unknown"
    return _NAME_SCRIPTS.get(words[0], words[0])


def script_of(ch: str) -> str:
    """The Unicode Script property of the character ``ch`` (Scripts.txt),
    upper case: ``"LATIN"``, ``"CYRILLIC"``, ``"GREEK"``, ``"HAN"``;
    ``"COMMON"`` for digits and punctuation, ``"INHERITED"`` for combining
    marks, ``"Unknown"`` for an unassigned code point.  A binary search in
    the package's ``categories.json`` (ranges of code points, sorted)."""
    global _SCRIPTS
    if _SCRIPTS is None:
        import json
        text = _package_file("categories.json")
        if text is None:            # no package: by name, from now on
            _SCRIPTS = ([], [], [])
            return script_by_name(ch)
        data = json.loads(text)
        ranges = data["code_points_ranges"]
        names = data["iso_15924_aliases"]
        _SCRIPTS = ([r[0] for r in ranges], [r[1] for r in ranges], [names[r[2]] for r in ranges])
    starts, ends, scripts = _SCRIPTS
    if not starts:
        return script_by_name(ch)
    cp = ord(ch)
    i = bisect.bisect_right(starts, cp) - 1
    return scripts[i] if i >= 0 and cp <= ends[i] else "Unknown"


def _partners(ch: str) -> list[str] | None:
    """The characters (or sequences) the package's ``confusables.json``
    lists with ``ch``, or None when it lists none.  The file (0.9 MB,
    written with ASCII escapes) is read as text once and only the entry of
    ``ch`` is decoded (a ``str.find`` of its escaped name and a
    ``raw_decode`` of its list): parsing it whole costs ~20 ms of CPU, which
    every ``mem keys`` or session block of a store holding one Cyrillic key
    would pay."""
    global _CONFUSABLES
    import json
    if _CONFUSABLES is None:
        _CONFUSABLES = _package_file("confusables.json") or ""
    needle = json.dumps(ch) + ": ["
    i = _CONFUSABLES.find(needle)
    if i < 0:
        return None
    found, _end = json.JSONDecoder().raw_decode(_CONFUSABLES, i + len(needle) - 1)
    return [d["c"] for d in found]


def _prototype(ch: str) -> str:
    """The prototype of the character ``ch`` in UTS #39's confusables
    mapping (confusables.txt: one or more characters; ``ch`` itself when it
    maps to nothing), from the two-way table the ``confusable_homoglyphs``
    package keeps: a source character is listed with its one prototype and
    a prototype with every source, so a character listed with one
    single-character partner that is listed with several is a source of that
    partner; two characters listed only with each other are one class,
    named by the smaller.  A dash the table reads as ``-``
    (:data:`_DASH_SOURCES`) is ``-`` without the package too.  Kept per
    character."""
    proto = _PROTOTYPES.get(ch)
    if proto is None:
        partners = _partners(ch)
        proto = "-" if ch in _DASH_SOURCES else ch
        if partners is not None and len(partners) == 1:
            other = partners[0]
            if len(other) > 1 or len(_partners(other) or ()) > 1 or other < ch:
                proto = other
        _PROTOTYPES[ch] = proto
    return proto


def confusable_skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text`` (section 4): two texts that look
    alike have the same one.  ``text`` as it reads (:func:`confusable_fold`:
    NFKC, default-ignorables dropped), then NFD, each character replaced by
    its prototype (:func:`_prototype`), NFD again.
    ``confusable_skeleton("d\\u0435ploy") == confusable_skeleton("deploy")``
    (Cyrillic ``е``); ``"ｄｅｐｌｏｙ"`` (fullwidth) too.  Note the standard
    folds some ASCII as well (``"m"`` and ``"rn"``, ``"l"``, ``"I"`` and
    ``"1"`` share one), so callers compare skeletons where a name is not
    ASCII.  Not a display form: only for comparing."""
    nfd = unicodedata.normalize("NFD", confusable_fold(text))
    return unicodedata.normalize("NFD", "".join(map(_prototype, nfd)))


def lookalike_mix(segment: str) -> str | None:
    """Why ``segment`` (one part of a name, between ``/``) mixes scripts so
    that it reads as another, or None.  UTS #39 section 5.2 "Moderately
    Restrictive", with the scripts of Scripts.txt (Common and Inherited
    count as none): one script; or Latin with Han, Hiragana and Katakana,
    with Han and Bopomofo, or with Han and Hangul; or Latin and one other
    script but Cyrillic and Greek, where no letter of the other script
    looks like a Latin letter (its skeleton is ASCII: Armenian ``օ``).
    ``lookalike_mix("d\\u0435ploy")`` names the Cyrillic ``е``;
    ``"проект"``, ``"κλειδί"``, ``"api文档"``, ``"deployの日"`` are None.
    An ASCII segment costs one ``str.isascii``."""
    if segment.isascii():
        return None
    scripts: dict[str, str] = {}
    for ch in segment:
        s = script_of(ch)
        if s not in _NO_SCRIPT:
            scripts.setdefault(s, ch)
    if len(scripts) < 2 or any(scripts.keys() <= allowed for allowed in _CJK_SETS):
        return None
    if len(scripts) == 2 and "LATIN" in scripts:
        other = next(s for s in scripts if s != "LATIN")
        if other not in ("CYRILLIC", "GREEK"):
            alike = [ch for ch in segment if script_of(ch) == other and _prototype(ch).isascii()]
            if not alike:
                return None
            scripts[other] = alike[0]
    names = sorted(scripts)
    odd = [ch for ch in segment if script_of(ch) not in _NO_SCRIPT and script_of(ch) != names[0]] \
        if "LATIN" not in scripts else [ch for ch in segment if script_of(ch) not in _NO_SCRIPT | {"LATIN"}]
    ch = odd[0]
    look = _prototype(ch)
    like = f", which looks like {look!r}" if look != ch and look.isascii() else ""
    return (f"it mixes {' and '.join(s.title() for s in names)} letters ({ch!r}, U+{ord(ch):04X} "
            f"{unicodedata.name(ch, 'unnamed')}{like})")


def is_lookalike(segment: str) -> bool:
    """Whether ``segment`` (not ASCII) reads as another, ASCII, segment: it
    mixes scripts (:func:`lookalike_mix`), or its skeleton
    (:func:`confusable_skeleton`) is ASCII (a whole-script look-alike:
    Cyrillic ``"рор"`` reads as ``"pop"``, fullwidth ``"ｄｂ"`` as ``"db"``).
    False for an ASCII segment and for one in another script that reads as
    itself (``"проект"``, ``"ключ"``, ``"文档"``)."""
    if segment.isascii():
        return False
    if lookalike_mix(segment) is not None:
        return True
    nfd = unicodedata.normalize("NFD", confusable_fold(segment))
    if any(unicodedata.combining(c) and c != "\U0001d16d" for c in nfd):
        return False   # a mark no prototype drops ("café"): not ASCII, without reading the confusables
    return confusable_skeleton(segment).isascii()


#: :func:`key_skeleton` of each printable ASCII character it changes (UTS #39 prototypes of confusables.txt,
#: Unicode 15, after ``str.lower``, then case-folded; ``_``, ``.`` and a space read as ``-``): an ASCII name costs one
#: ``str.lower`` and one ``str.translate``, no read of the package's data (tests/cmds/test_mend27_lookalike_keys.py
#: checks this table against the general path)
_ASCII_SKELETON = str.maketrans({'"': "''", "%": "\u00ba/\u2080", "0": "o", "1": "l", "m": "rn", "`": "'", "|": "l",
                                 "_": "-", ".": "-", " ": "-"})


def key_skeleton(name: str) -> str:
    """The form two names share when one reads as, or is typed as, the
    other: case-folded, NFKD with its combining marks dropped (``é``, a
    combining acute), as it reads (:func:`confusable_fold`), the UTS #39
    skeleton (:func:`confusable_skeleton`: dotless ``ı`` and ``i``,
    ``1`` and ``l``; a Latin small capital ``ᴅ`` read as ``d``, Cyrillic ``р`` and ``p``),
    case-folded again; a dash (Unicode category Pd: ``‐`` U+2010, ``–``
    U+2013, ``—`` U+2014; and what confusables.txt reads as ``-``: ``−``
    U+2212, ``˗`` U+02D7), ``_``, ``.`` and a space read as ``-``, and a run
    of them as one (``deploy--day``, ``deploy - day``; test27b X2).
    ``key_skeleton("project/api/DEPLOY_DAY") == key_skeleton("project/api/dep1oy\u2013day")``.
    Like the skeleton it also folds some ASCII (``m`` and ``rn``, ``0`` and
    ``o``): only for comparing, never shown.  An ASCII ``name`` costs one
    ``str.lower`` and ``str.translate`` (:data:`_ASCII_SKELETON`); another
    reads the confusables data (the extra ``memvcs[confusables]``; without
    it only NFKC look-alikes fold)."""
    if name.isascii():
        return _one_dash(name.lower().translate(_ASCII_SKELETON))
    t = unicodedata.normalize("NFKD", confusable_fold(name).casefold())
    t = "".join(map(_key_char, (c for c in t if not unicodedata.combining(c))))
    return _one_dash(confusable_skeleton(t).casefold().translate(_ASCII_SKELETON))


def _one_dash(form: str) -> str:
    """``form`` with every run of ``-`` written as one."""
    while "--" in form:
        form = form.replace("--", "-")
    return form


def _key_char(ch: str) -> str:
    """``-`` for a dash (category Pd: the em dash an editor makes of ``--``,
    which confusables.txt reads as a Katakana mark); the small letter a
    Latin small capital (``ᴅ``, U+1D05 LATIN LETTER SMALL CAPITAL D) stands
    for, by its Unicode name (confusables.txt pairs it with a Cherokee
    letter only); ``ch`` itself otherwise."""
    if ch.isascii():
        return ch
    if unicodedata.category(ch) == "Pd":
        return "-"
    name = unicodedata.name(ch, "")
    if name.startswith("LATIN LETTER SMALL CAPITAL ") and len(name) == len("LATIN LETTER SMALL CAPITAL ") + 1:
        return name[-1].lower()
    return ch


def escape_lookalike(name: str) -> str:
    """``name`` (a key, ``/``-separated) as every display that lists names
    shows it: each segment that reads as another (:func:`is_lookalike`) with
    its non-ASCII characters written as ``\\uNNNN`` (``project/api/d\\u0435ploy-day``),
    so two keys that look alike never look the same; every other segment
    as it is (``project/проект/ключ``).  ``name`` itself when ASCII."""
    if name.isascii():
        return name
    parts = name.split("/")
    for i, seg in enumerate(parts):
        if is_lookalike(seg):
            parts[i] = "".join(c if c.isascii() else (f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}")
                               for c in seg)
    return "/".join(parts)
