"""Settings named ``…_KEY`` or ``…_AUTH`` whose value is shaped as a secret, for :mod:`objstore.core.redact`
(red34c, test34 T10).

The keyword rule (:data:`.keywords.KW`) takes ``key`` only after a word that says it is a credential
(``API_KEY``, ``ACCESS_KEY``, ``MASTER_KEY``…), since ``key`` alone names ids as often (``PRIMARY_KEY``,
``SORT_KEY``, ``CACHE_KEY_PREFIX``).  A vendor's ``.env`` names its keys by their use
(``ALGOLIA_ADMIN_KEY``, ``SEGMENT_WRITE_KEY``, ``NEW_RELIC_LICENSE_KEY``, ``HMAC_KEY``, ``WEBHOOK_KEY``,
``REDIS_AUTH``), so here any identifier ending in ``_KEY``/``-key``/``_AUTH`` takes a value when the value
itself reads as a random key (:func:`key_value_ok`: 16+ characters of hex or base64, random by
:func:`.checks.looks_secret`'s entropy test, not a UUID, not a path).

Kept, with the reason: a key that is public by design, after ``public``/``publishable``/``site``/``gpg``/
``pgp`` (a PEM or base64 public key, Stripe's ``pk_…`` "can be publicly accessible in your web or mobile
app's client-side code" https://docs.stripe.com/keys , reCAPTCHA's site key served in the page, an
OpenPGP key id), and the names of database or cache keys (``primary``, ``foreign``, ``sort``,
``partition``, ``composite``, ``cache``, ``idempotency``), whose random-looking values are ids."""

from __future__ import annotations

from objstore.core.redact.checks import looks_secret
from objstore.core.redact.keywords import KEY_OWNERS
from objstore.core.redact.rule import FLAGS, IFLAGS, Lazy, Rule, make_rule
from objstore.core.redact.scanners import scan_at

#: the last words before ``_key`` of a key that is not a secret (see the module's docstring)
_NOT_SECRET = ("public", "publishable", "site", "gpg", "pgp", "primary", "foreign", "sort", "partition", "cache",
               "idempotency")
#: ``_key``/``-key``/``_auth`` ending an identifier (a letter or digit before it, none after), then its sign
#: (``=``, ``:``, ``:=``, ``=>``, a quote around the name or the value, raw or JSON-escaped)
#: (not after :data:`.keywords.KEY_OWNERS`: ``API_KEY=`` is the keyword rule's, and a value judged twice costs a scan)
_NAME = ("(?<=[a-z0-9])" + "".join(f"(?<!{w})" for w in _NOT_SECRET + KEY_OWNERS)
         + r"(?:[_-]key|_auth)(?![a-z0-9_\-])(?:\\{0,3}[\"'])?[ \t]{0,4}(?:=>|:=|[=:])[ \t]{0,4}(?:\\{0,3}[\"'])?")
#: the value: a run of base64/base64url characters, ended by a character outside it (a ``.`` only before a blank
#: or the end: ``HMAC_KEY=….`` in a sentence; ``…/3f9a.png`` is a file), not by ``(`` or ``[`` (code:
#: ``private_key = MLDSA44Ed25519PrivateKey(``)
_VALUE = r"(?P<secret>[a-z0-9+/_\-]{16,512}+={0,2})(?![a-z0-9+/=_\-(\[]|\.[a-z0-9])"
_KEY_CHARS_RE = Lazy(r"[A-Za-z0-9+/_\-]{16,512}={0,2}", FLAGS)
_UUID_RE = Lazy(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", IFLAGS)


def key_value_ok(v: str) -> bool:
    """Whether ``v``, the value of a ``…_KEY``/``…_AUTH`` setting, is shaped as a
    secret key: 16-512 base64/base64url characters (and ``=`` padding) that
    :func:`.checks.looks_secret` reads as random (hex or base64 with letters and digits mixed, 3+ bits a
    character; ``a5753088af80920eb62995dcafbe6b7a``), not a UUID
    (``550e8400-e29b-…``: a row's or a request's id as often) and not a
    path (a ``/``-part of 3+ lower-case letters alone: ``uploads/2024/3f9a8b7c…``)."""
    if len(v) < 16 or _UUID_RE.fullmatch(v) or not _KEY_CHARS_RE.fullmatch(v):
        return False
    if "/" in v and any(len(p) >= 3 and p.isalpha() and p.islower() for p in v.split("/")):
        return False
    return looks_secret(v)


def key_suffix_name(name: str) -> bool:
    """Whether the last ``/``-part of ``name`` (a fact key) is a name of this rule: words joined by
    ``-``/``_``/``.``, the last ``key`` or ``auth``, the one before it not of :data:`_NOT_SECRET`
    (``project/acme/hmac-key``, ``algolia_admin_key``, ``redis-auth``; not ``cache-key``,
    ``public-key``, ``key``)."""
    words = name.rsplit("/", 1)[-1].lower().replace("-", ".").replace("_", ".").split(".")   # (no re: one compile less)
    return len(words) >= 2 and words[-1] in ("key", "auth") and words[-2] != "" and words[-2] not in _NOT_SECRET


#: a setting or variable named ``COOKIE``/``COOKIES``, ending ``cookie(s)`` (``SESSION_COOKIE``, ``sessionCookie``:
#: the match starts at the word, :func:`.scanners.scan_at`) or ``cookie_value`` (fresh42 F19: ``COOKIE=sessionid=…``,
#: ``SESSION_COOKIE=…``, ``export COOKIES="sid=…"`` were stored as typed, while the ``Cookie:`` header is
#: :data:`.commandline` ``http-cookie``'s), then its sign (``=``, ``:``, ``:=``, ``=>``: a shell, YAML or JSON
#: setting), then the cookie pairs before it and its own name and ``=`` (RFC 6265 s4.2.1; test43 T2: ``theme=dark;
#: sessionid=…``); the value is judged as a ``_KEY``'s (:func:`key_value_ok`: a random 16+-character run, so
#: ``COOKIE_DOMAIN=example.com`` and ``COOKIE_SECURE=true`` are kept)
_COOKIE_NAME = (r"cookies?(?:[_-]?value)?(?![a-z0-9_\-])(?:\\{0,3}[\"'])?"
                r"[ \t]{0,4}(?:=>|:=|[=:])[ \t]{0,4}(?:\\{0,3}[\"'])?"
                # (test43 T2: the pairs before it, "theme=dark; sessionid=…")
                r"(?:[A-Za-z0-9_.!#$%&*+^`|~\-]{1,128}+=[^;\s\"'`\\]{0,256}+;[ \t]?){0,8}+"
                r"(?:[A-Za-z0-9_.!#$%&*+^`|~\-]{1,128}+[ \t]?[=:][ \t]?)?")

#: the rule, placed in ``rules.RULES``
KEY_SUFFIX_RULES: list[Rule] = [
    make_rule("http-cookie",
              "fresh42 F19: a session cookie in a setting or variable named COOKIE/COOKIES or ending _COOKIE "
              "(SESSION_COOKIE=…, COOKIE=sessionid=…): a random value of 16+ characters, the cookie's name kept "
              "(RFC 6265 s8.4: whoever holds the cookie is the session) https://www.rfc-editor.org/rfc/rfc6265#section-8.4",
              _COOKIE_NAME + _VALUE,
              ci=True, priority=51, check=key_value_ok, anchors=("cookie",), scan=scan_at("cookie")),
    make_rule("generic-secret",
              "red34c (test34 T10): a settings name ending _KEY/-key/_AUTH (ALGOLIA_ADMIN_KEY=, HMAC_KEY=, "
              "REDIS_AUTH=) with a random hex/base64 value of 16+ characters; public keys and database keys kept",
              _NAME + _VALUE,
              ci=True, priority=51, check=key_value_ok, anchors=("_key", "-key", "_auth"),
              scan=scan_at("_key", "-key", "_auth")),
]
