"""PEM private keys for :mod:`objstore.core.redact`: the block's pattern
(:data:`PEM_BODY`, RFC 7468 armor, RFC 1421/4880 headers, raw or JSON-escaped line
breaks) and :func:`scan_pem`, which reads a block from its BEGIN line and, where the
BEGIN line was cut off, backwards from its END line.  Split from :mod:`.scanners`
(red30: that module neared the 40,960-byte limit)."""

from __future__ import annotations

from objstore.core.redact.rule import FLAGS, Lazy, Rule
from objstore.core.redact.scanners import scan_plain

_PEM_MAX = 65_536          # how far back from an END line a headless PEM body is looked for


# ---- PEM private keys --------------------------------------------------------------
# A line break, raw or JSON-escaped once or more (``\n``, ``\\n``, ``\r\n``).
_NL = r"(?:\r?\n|\r|\\{1,8}(?:r\\{1,8})?n)"
_SEP = r"[ \t]{0,16}(?:" + _NL + r"[ \t]{0,16}){1,4}"
_B64 = r"[A-Za-z0-9+/=]"
_HDRLINE = r"[A-Za-z][A-Za-z0-9-]{0,40}:[^\r\n\\]{0,256}"   # Proc-Type:, DEK-Info:, Version:, Comment:
_PEM_LABEL = r"(?:[A-Z0-9]{1,16}[ ]){0,3}PRIVATE[ ]KEY(?:[ ]BLOCK)?"
PEM_BODY = (
    r"-----BEGIN[ ]" + _PEM_LABEL + r"-----"
    r"(?:" + _SEP + _HDRLINE + r"){0,8}"                                  # RFC 1421 / 4880 armor headers
    r"(?:(?:" + _SEP + r"|[ ]{0,16})" + _B64 + r"{16,16384}+){1,2048}"     # base64 lines (or one long line)
    r"(?:" + _SEP + _B64 + r"{1,15}+)?"                                   # a short last line / PGP checksum
    r"(?:(?:" + _SEP + r"|[ ]{0,16})-----END[ ]" + _PEM_LABEL + r"-----)?"
)
_PEM_END_RE = Lazy(r"-----END[ ]" + _PEM_LABEL + r"-----", FLAGS)
# The body read backwards from an END line (the text before it, reversed):
# an escaped ``\n`` reads ``n\``, ``\r\n`` reads ``n\r\``.
_RNL = r"(?:\n\r?|\r|n\\{1,8}(?:r\\{1,8})?)"
_RSEP = r"[ \t]{0,16}(?:" + _RNL + r"[ \t]{0,16}){1,4}"
_RB64 = r"(?:[A-Za-mo-z0-9+/=]|n(?!\\))"   # reversed, ``n\`` is a line break, not a base64 ``n``
_PEM_REV_RE = Lazy(
    r"(?:" + _RSEP + r"|[ ]{0,16})" + _RB64 + r"{1,16384}+"
    r"(?:(?:" + _RSEP + r"|[ ]{0,16})" + _RB64 + r"{16,16384}+){0,2048}",
    FLAGS,
)


def scan_pem(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """BEGIN-anchored blocks (complete or truncated), then END lines whose BEGIN
    is missing (a tool output cut at the front): the base64 lines just before
    the END line, read backwards, are redacted with it."""
    scan_plain(rule, text, ws, we, out, low, off)
    pos = floor = ws
    while True:
        p = text.find("-----END ", pos, we)
        if p < 0:
            return
        pos = p + 9
        m = _PEM_END_RE.match(text, p, we)
        if m is None:
            continue
        lo = max(floor, p - _PEM_MAX)
        floor = m.end()
        r = _PEM_REV_RE.match(text[lo:p][::-1])
        if r is not None and r.end() >= 16:
            out.append((p - r.end(), m.end(), rule.priority, rule.name))
