"""A digest of the code of the name rule, so a verdict it gave can be kept.

``mem import`` asks of every transcript it finds whether its path holds a
credential (``capture.transcript.transcript_refused``, which only calls
:func:`objstore.core.redact.transcript_path_refused`: the name rule of
:mod:`objstore.core.redact` and how it combines a path's name and folder,
given and resolved; redb24 moved that combination there so the digest
covers every line that decides a verdict).  With nothing new, that check was most of the
import's CPU (~90 of ~210 ms for the 451 files of the bench corpus, session
24), and its answer for a path that has not changed can only change with the
rule.  :func:`name_rule_digest` names the rule's code: the read ledger
(:class:`objstore.core.fileid.ReadLedger`, ``names``) records under which
digest its paths were found clean, and an import trusts that verdict only
while the digest is the same (``capture.importer``).

What it covers: the bytes of every ``*.py`` file of ``objstore/core/redact``
and of ``objstore/core/text.py`` (the only module outside it the rule calls),
and the Python version (its ``re`` and ``unicodedata`` read the names).  Any
edit of the rules, a mem upgrade that changes them, or another Python gives
another digest.  Imports nothing of the rule itself, so a catch-up that
trusts the ledger never compiles it.
"""

from __future__ import annotations

import os
import sys

from blake3 import blake3

_HERE = os.path.dirname(os.path.abspath(__file__))
#: the digest of this process, once computed (the files do not change under a running mem)
_DIGEST: list[str | None] = []


def name_rule_digest() -> str | None:
    """``"nr1:"`` and 32 hex (BLAKE3, 16 bytes) of the name rule's code (see
    the module doc), computed once per process (~0.5 ms: ~0.35 MB of source
    read), or None when a file of it cannot be read (an install without its
    sources: then no verdict is ever kept).  Never raises."""
    if _DIGEST:
        return _DIGEST[0]
    h = blake3(f"{sys.implementation.name} {sys.version}\0".encode())
    try:
        redact = os.path.join(_HERE, "redact")
        names = sorted(f for f in os.listdir(redact) if f.endswith(".py"))
        for path in [os.path.join(redact, f) for f in names] + [os.path.join(_HERE, "text.py")]:
            with open(path, "rb") as f:
                data = f.read()
            h.update(f"{os.path.basename(path)}\0{len(data)}\0".encode())
            h.update(data)
        digest: str | None = "nr1:" + h.hexdigest(length=16)
    except OSError:
        digest = None
    _DIGEST.append(digest)
    return digest
