"""Second factors and wallet seeds, for :mod:`objstore.core.redact` (red32, test31b V4): a 2FA account's
recovery or backup codes (``github 2FA recovery codes: 3f9a1-b7c2e 8d4e2-a19f0``), a TOTP seed given with
a blank for its sign (``otp secret JBSWY3DPEHPK3PXP``), an OAuth client secret so given (``client_secret
X``) and a wallet's seed phrase (``seed phrase: abandon ability able …``, 12 to 24 words).  Each bypasses
what the password protects: a recovery code or the TOTP seed stands for the second factor, a seed phrase
is the wallet itself."""

from __future__ import annotations

from objstore.core.redact.checks import bare_password_ok, looks_secret
from objstore.core.redact.rule import FLAGS, Lazy, Rule, make_rule
from objstore.core.redact.scanners import find_each, scan_at

#: the label of a list of recovery codes: '(2fa|mfa|github …) recovery|backup code(s)', then ':', '=', '-' or
#: 'is|are' (GitHub "Configuring two-factor authentication recovery methods", Google "Sign in with backup codes")
_CODES_HEAD_RE = (r"(?:recovery|backup)[ _-]?codes?(?:[ \t]{0,4}\([^()\r\n]{1,32}\))?"
                   r"(?:[ \t]{0,4}(?::|=|-{1,2}|\u2014)|[ \t]{1,4}(?:is|are|were|was)(?:[ \t]{1,4}now)?[ \t]{0,4}:?)"
                   r"[ \t]{0,8}(?:\r?\n|\\n)?[ \t]{0,8}")
_CODES_HEAD = Lazy(_CODES_HEAD_RE, FLAGS)
#: one code: 6 to 24 letters and digits, groups joined by '-' or ' ' not (GitHub's '3f9a1-b7c2e', Google's
#: '1234 5678' is read as two), then a separator of the list or its end
_CODE = Lazy(r"(?P<c>[a-z0-9]{2,12}(?:-[a-z0-9]{2,12}){0,3})(?P<sep>[ \t]{0,4}[,;][ \t]{0,4}|[ \t]{1,4}|"
             r"[ \t]{0,4}(?:\r?\n|\\n)[ \t]{0,8}(?:[-*\u2022][ \t]{1,4})?)?", FLAGS)
_CODES_MAX = 24


def _code_ok(v: str) -> bool:
    """A recovery code: 6+ characters counted without its dashes, a digit, no word of letters alone."""
    bare = v.replace("-", "")
    return len(bare) >= 6 and any(c.isdigit() for c in bare) and len(bare) <= 32


def scan_codes(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """Each code of a recovery or backup code list (:data:`_CODES_HEAD`, then up to :data:`_CODES_MAX`
    :data:`_CODE` in a row, on the label's line or one a line); the list ends at the first that is no code
    (:func:`_code_ok`: ``recovery codes: see 1Password`` takes nothing).  Appends ``(start, end, priority,
    name)`` spans of ``text`` to ``out``; raises nothing."""
    s0, e0 = ws - off, we - off
    for lit in ("recovery", "backup"):
        for p in find_each(low, lit, s0, e0):
            if p > 0 and low[p - 1].isalnum() or (h := _CODES_HEAD.match(low, p, e0)) is None:
                continue
            q = h.end()
            for _n in range(_CODES_MAX):
                m = _CODE.match(low, q, e0)
                if m is None or not _code_ok(m.group("c")) or (m.end("c") < e0 and low[m.end("c")].isalnum()):
                    break
                out.append((m.start("c") + off, m.end("c") + off, rule.priority, rule.name))
                if not m.group("sep") or m.end() == q:
                    break
                q = m.end()


#: a TOTP seed or an OAuth client secret after its name and a blank, no sign (RFC 6238 TOTP, its key in base32:
#: Google Authenticator's "Key Uri Format" secret; RFC 6749 s2.3.1 client_secret)
_BLANK_SECRET = (r"(?:(?:t?otp|2fa|mfa)[ _-]?(?:secret|seed|key)|client[ _-]?secret)"
                 r"[ \t]{1,4}(?:is[ \t]{1,4})?(?P<secret>[a-z0-9+/=_\-]{8,256}+)(?![^\s.,;)\]\"'`])")


def blank_secret_ok(v: str) -> bool:
    """The value of a TOTP seed or a client secret given with a blank: random-looking
    (:func:`~.checks.looks_secret`) or a password's shape (:func:`~.checks.bare_password_ok`), not a word."""
    return looks_secret(v, labelled=True) or bare_password_ok(v)


#: a seed phrase's label (BIP-39 https://github.com/bitcoin/bips/blob/master/bip-0039.mediawiki : 12 to 24 words of
#: 3 to 8 letters), 'is', ':' or '=', then the words; red33b: 'wallet seed' is such a label too
_SEED = (r"(?:(?:seed|recovery|secret|backup|mnemonic|wallet)[ _-]?(?:phrase|words|mnemonic)|mnemonic"
         r"|wallet[ _-]?seed(?:[ _-]?(?:phrase|words))?)"      # red33b (test33 T14): 'wallet seed is …', 'wallet seed: …'
         r"(?:[ \t]{0,4}\([^()\r\n]{1,32}\))?(?:[ \t]{0,4}[:=\-]|[ \t]{1,4}(?:is|was|are|were)[ \t]{0,4}:?)[ \t]{0,8}"
         r"(?:\r?\n|\\n)?[ \t]{0,8}[\"'`]?"
         r"(?P<secret>[a-z]{3,8}(?:[ \t]{1,2}[a-z]{3,8}){11,23})(?![a-z])")
#: words of prose that no BIP-39 English word is (a sentence after the label, not its words)
_PROSE = frozenset("the and you your this that with from for not are was were will can its they them then when what "
                   "how who why our his her she him has have had been into onto only just than here there where "
                   "which should would could must does did done safe keep write store never share".split())


def seed_phrase_ok(v: str) -> bool:
    """12, 15, 18, 21 or 24 words (BIP-39's lengths), none a word of prose (:data:`_PROSE`)."""
    words = v.split()
    return len(words) in (12, 15, 18, 21, 24) and not any(w in _PROSE for w in words)


SECOND_FACTOR_RULES: list[Rule] = [
    make_rule("second-factor",
              "2FA recovery or backup codes after their label (GitHub 'two-factor authentication recovery codes' "
              "https://docs.github.com/en/authentication/securing-your-account-with-two-factor-authentication-2fa , "
              "Google backup codes): each code of the list, 6+ characters with a digit (red32, test31b V4)",
              _CODES_HEAD_RE, ci=True, priority=48,
              anchors=("recovery", "backup"), scan=scan_codes),
    make_rule("second-factor",
              "a TOTP seed or an OAuth client secret after its name and a blank ('otp secret JBSWY3DPEHPK3PXP', "
              "'client_secret X'; RFC 6238 https://www.rfc-editor.org/rfc/rfc6238 , RFC 6749 s2.3.1): "
              "random-looking or a password's shape (red32, test31b V4)",
              _BLANK_SECRET, ci=True, priority=48, check=blank_secret_ok, anchors=("otp", "2fa", "mfa", "client"),
              scan=scan_at("otp", "totp", "2fa", "mfa", "client")),
    make_rule("seed-phrase",
              "a wallet's seed phrase after its label ('seed phrase: abandon ability …', 'mnemonic is …'): 12 to 24 "
              "words of 3 to 8 letters, no word of prose; BIP-39 "
              "https://github.com/bitcoin/bips/blob/master/bip-0039.mediawiki (red32, test31b V4)",
              _SEED, ci=True, priority=48, check=seed_phrase_ok, anchors=("phrase", "words", "mnemonic", "wallet"),
              scan=scan_at("seed", "recovery", "secret", "backup", "mnemonic", "wallet")),
]
