"""Password hashes, for :mod:`objstore.core.redact` (red33, red32's left-out ``PASSWORD_HASH=…``).

A stored password's hash is credential material: it is what an offline cracker needs (a bcrypt or an
unsalted MD5 of a weak password falls to a dictionary), and some hashes are used as they are (an NTLM hash
"passes", an ``htpasswd`` or ``/etc/shadow`` line grants the login it holds).  So a value of a hash's shape
under a name that says it is a password's hash (``PASSWORD_HASH``, ``password_digest``, ``hashed_password``,
``ADMIN_PASSWORD_HASH``) is redacted; the keyword rule leaves such names, as ``PASSWORD_HASH=bcrypt`` or
``PASSWORD_HASHERS`` name the algorithm (a setting about the password).  A token's id (``TOKEN_ID``) is not
taken: the tools that print one print it to name the token, not to use it (Cloudflare's ``Token ID`` beside the
one-time secret, Kubernetes' bootstrap ``token-id`` "exchanged publicly", Proxmox's ``TOKENID``, Vault's
accessor), and the secret beside it is redacted by its own label."""

from __future__ import annotations

from objstore.core.redact.rule import Rule, make_rule
from objstore.core.redact.scanners import scan_at

#: a name for a password's hash: 'password_hash', 'PASSWORD-DIGEST', 'pw_hash', 'passwd.hash', 'hashed_password'
#: (after any name segments before it: 'ADMIN_PASSWORD_HASH', 'user.password_hash'), then its sign (':', '=',
#: '=>', a quoted key's quote before it)
_NAME = (r"(?:(?:passw(?:or)?d|pwd|pw)(?<![a-z0-9]pw)[_.\-]?(?:hash|digest)"
         r"|hashed[_.\-]?(?:passw(?:or)?d|pwd))(?![a-z0-9])")
_SIGN = r"(?:\\{0,3}[\"'])?[ \t]{0,4}(?:=>|:=|[=:])[ \t]{0,4}(?:\\{0,3}[\"'`])?"
#: a hash's shapes: the modular crypt format ('$2b$12$…' bcrypt, '$argon2id$…', '$6$…' sha512crypt, '$y$…'
#: yescrypt, '$1$…' md5crypt; crypt(5)), Django's '<algorithm>$…' (pbkdf2_sha256, argon2, bcrypt_sha256, scrypt),
#: an LDAP userPassword scheme ('{SSHA}…', RFC 2307), or the hex of an MD5, SHA-1, SHA-256 or SHA-512 digest
_CRYPT = r"\$(?:1|2[abxy]?|5|6|7|y|gy|argon2(?:id|i|d)|scrypt|pbkdf2(?:-sha(?:1|256|512))?|sha1|md5)\$"
_DJANGO = r"(?:pbkdf2_sha(?:1|256)|argon2|bcrypt(?:_sha256)?|scrypt|sha1|md5)\$"
_LDAP = r"\{(?:s?sha(?:256|384|512)?|s?md5|crypt|pbkdf2(?:-sha(?:1|256|512))?|argon2)\}"
_HEX = r"[0-9a-f]{128}|[0-9a-f]{64}|[0-9a-f]{40}|[0-9a-f]{32}"
_HASH = (r"(?P<secret>(?:" + _CRYPT + "|" + _DJANGO + "|" + _LDAP + r")[a-z0-9./+=$,\-]{8,512}+|(?:" + _HEX
         + r")(?![a-z0-9]))")


def hash_ok(v: str) -> bool:
    """A hash's value, not a run of one character repeated (``0000…``, a test's zero digest)."""
    return len(set(v.rsplit("$", 1)[-1].rsplit("}", 1)[-1])) > 2


#: the rule, placed in ``rules.RULES``
HASH_RULES: list[Rule] = [
    make_rule("generic-secret",
              "a password's hash after a name for it (PASSWORD_HASH=, password_digest:, hashed_password =): the "
              "modular crypt format (crypt(5): $2b$, $argon2id$, $6$, $y$), Django's <algorithm>$ "
              "https://docs.djangoproject.com/en/5.0/topics/auth/passwords/ , an RFC 2307 scheme ({SSHA}), or "
              "an MD5/SHA hex digest (red33)",
              _NAME + _SIGN + _HASH,
              ci=True, priority=50, check=hash_ok, anchors=("hash", "digest"),
              scan=scan_at("passw", "pwd", "pw", "hashed")),
]
