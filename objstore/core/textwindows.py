"""Windows of a normalized text matched against digests of texts (the
rules of forgotten and sealed values), and the one separator-folded form
those rules also hold (seal38: test37b T12, T15).

:func:`find_matches` hashes windows of a normalized text
(``objstore.core.text.normalized_map``) and reports those whose digest is
a rule's.  A person or a model re-says ``zebra-lantern-7781`` as
``zebra lantern 7781``, ``zebra_lantern_7781``, ``zebra.lantern.7781`` or
``zebralantern7781``, and ``maple otter`` as ``maple-otter`` or
``mapleotter``: :func:`folded_form` is a normalized text with every
separator (:data:`SEPARATORS`: space, ``-``, ``_``, ``.``, ``/``) removed,
and a writer of rules adds the rule of a value's folded form when
:func:`fold_worth` says it is distinct enough (the value has two parts or
more, and the folded form is at least :data:`FOLD_MIN_CHARS` characters).
:func:`find_matches` then also tries, for every rule of at least
:data:`FOLD_MIN_CHARS` characters, each run of two or more whole words
(letters and digits) joined by separators only, read without its
separators: ``maple-otter`` matches the rule of ``mapleotter``; the rule's
window never starts or ends inside a word (``amaple otter``,
``mapleotters`` hold none).  The normalized form itself is unchanged: old
rules and tombstones stay valid.
"""

from __future__ import annotations

from objstore.core.ids import blake2b
from objstore.core.text import LazyPattern

__all__ = ["FOLD_MIN_CHARS", "SEPARATORS", "find_matches", "fold_worth", "folded_form"]

#: the characters a folded form drops: how a person joins the parts of one value
SEPARATORS = " -_./"
#: the shortest folded form that gets a rule, and the shortest rule a run of joined words is tried against
#: (a shorter one, "ab12", would match "ab 12" in ordinary text)
FOLD_MIN_CHARS = 8
#: find_matches: each character where a window may start with ``word_starts``: one but the space that is
#: not a letter or digit (``\\w`` is str.isalnum's letters and digits and ``_``), or a letter or digit that
#: follows none (or starts the text)
_WORD_START = LazyPattern(r"[^\w ]|_|(?<![^\W_])[^\W_]")
#: find_matches: ``bytes.translate`` table of an ASCII text to 1 for a letter or digit, 0 for the rest
_ALNUM_BYTES = bytes(int(chr(c).isalnum()) for c in range(128)) + bytes(128)
#: a word of a folded run: letters and digits; the gap to the next one: separators only (at most 3: "a - b")
_WORD = LazyPattern(r"[^\W_]+")
_GAP = LazyPattern(r"[ \-_./]{1,3}")
_DROP = str.maketrans("", "", SEPARATORS)


def folded_form(norm: str) -> str:
    """``norm`` (a normalized text: ``core.text.normalize_value``) with
    every character of :data:`SEPARATORS` removed:
    ``folded_form("zebra lantern-7781") == "zebralantern7781"``."""
    return norm.translate(_DROP)


def fold_worth(norm: str) -> str | None:
    """The folded form (:func:`folded_form`) of a normalized value that a
    rule writer adds beside the value's own rule, or None: when the value
    has two parts or more (a separator between two characters that are
    not separators) and the folded form is at least :data:`FOLD_MIN_CHARS`
    characters (``"maple otter"`` -> ``"mapleotter"``, ``"rowan 8841"`` ->
    ``"rowan8841"``; ``"postgres 16"`` is long enough but gets no seal rule
    in the first place, ``"ab 12"`` none)."""
    folded = folded_form(norm)
    if folded == norm or len(folded) < FOLD_MIN_CHARS or not folded.strip(SEPARATORS):
        return None
    return folded


def find_matches(norm: str, rules: list[tuple[bytes, int]], *, word_starts: bool = False,
                 key: bytes | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of every window ``norm[start:end]`` of a normalized
    text (``objstore.core.text.normalized_map``) whose UTF-8 hashes to a
    rule's SHA-256, the rule giving the window's length in characters; a
    window never starts at a collapsed space.  With ``word_starts`` a window
    starts only where a word starts or at a character that is not a letter
    or digit (so ``xzebrafrog`` holds no ``zebrafrog``; ``-pS3cret`` is found
    in ``mysql -pS3cret``): about a sixth of the positions of a prose text.
    ``key``: the rules are keyed BLAKE2b-256 digests under it
    (``sealrules``), and a window also ends where a word ends (the whole
    word, as ``word_starts``, which ``key`` needs, starts it).
    Also every run of two or more whole words joined by separators only
    whose :func:`folded_form` hashes to a rule of at least
    :data:`FOLD_MIN_CHARS` characters (:func:`folded_runs`).
    Sorted, no span twice.  Cost: one SHA-256 per position tried and distinct rule length,
    and one dict lookup per word and distinct rule length."""
    if key is None:
        from hashlib import sha256  # deferred: _hashlib (OpenSSL) costs ~2 ms at start-up

        def hashed(data: bytes) -> bytes:
            return sha256(data).digest()
    else:
        fresh = blake2b(digest_size=32, key=key).copy   # (the key's block compressed once, not per window)

        def hashed(data: bytes) -> bytes:
            h = fresh()
            h.update(data)
            return h.digest()
    by_len: dict[int, set[bytes]] = {}
    for digest, n in rules:
        if 0 < n <= len(norm):
            by_len.setdefault(n, set()).add(digest)
    if not by_len:
        return []
    out = folded_runs(norm, by_len, hashed)
    raw = norm.encode("utf-8", "surrogatepass")
    if word_starts:
        # alnum[k]: norm[k].isalnum() (for ASCII one bytes.translate; [len(norm)] is the end's False); a
        # start is a character but the space that is no letter or digit, or one that follows none (regex)
        alnum = (raw.translate(_ALNUM_BYTES) + b"\0" if len(raw) == len(norm)
                 else [*map(str.isalnum, norm), False])
        starts = [m.start() for m in _WORD_START.finditer(norm)]
    else:
        starts = [s for s in range(len(norm)) if norm[s] != " "]
    if key is not None:   # (n, start) pairs whose window ends a word: not between two letters or digits
        tried = {n: [s for s in starts if s + n <= len(norm) and not (alnum[s + n - 1] and alnum[s + n])]
                 for n in by_len}
    else:
        tried = {n: starts for n in by_len}
    if len(raw) == len(norm):   # ASCII (most text): a window is a slice of the bytes, no encode per window
        for n, digests in by_len.items():
            last = len(raw) - n
            out += [(s, s + n) for s in tried[n] if s <= last and hashed(raw[s:s + n]) in digests]
        return sorted(set(out))
    for n, digests in by_len.items():
        for s in tried[n]:
            if s + n <= len(norm) and hashed(norm[s:s + n].encode("utf-8")) in digests:
                out.append((s, s + n))
    return sorted(set(out))


def folded_runs(norm: str, by_len: dict[int, set[bytes]], hashed) -> list[tuple[int, int]]:
    """:func:`find_matches`' windows of joined words: ``(start, end)`` of
    each run of two or more whole words (:data:`_WORD`: letters and digits)
    of ``norm`` joined by gaps of one to three separators, whose words
    concatenated hash (``hashed``: bytes -> digest) to a digest of
    ``by_len`` (``{length: {digest}}``) of at least :data:`FOLD_MIN_CHARS`
    characters.  Cost: one dict lookup per word and rule length; a hash
    only where the words' lengths add up to a rule's."""
    lens = [n for n in by_len if n >= FOLD_MIN_CHARS]
    if not lens:
        return []
    out: list[tuple[int, int]] = []
    words = [m.span() for m in _WORD.finditer(norm)]
    k = 0
    while k < len(words):   # one chain at a time: words joined by separator gaps
        j = k + 1
        while j < len(words) and _GAP.fullmatch(norm, words[j - 1][1], words[j][0]):
            j += 1
        if j - k >= 2:
            chain = words[k:j]
            sums = [0]
            for a, b in chain:
                sums.append(sums[-1] + b - a)
            at = {v: i for i, v in enumerate(sums)}
            for i in range(len(chain) - 1):
                for n in lens:
                    e = at.get(sums[i] + n)
                    if e is not None and e >= i + 2:
                        text = "".join(norm[a:b] for a, b in chain[i:e])
                        if hashed(text.encode("utf-8", "surrogatepass")) in by_len[n]:
                            out.append((chain[i][0], chain[e - 1][1]))
        k = j
    return out
