"""Two shapes of a password named by where it goes, for :mod:`objstore.core.redact` (red35, test34b):

* a setting named ``…_AUTH`` whose value is a ``user:password`` pair (T7);
* "use X as the db password" (T8): the password said before its label, after ``use``.

Settings named ``…_AUTH`` whose value is a ``user:password`` pair
(red35, test34b T7: ``BASIC_AUTH=admin:Pl8mKo3nJi`` and ``PROXY_AUTH=user:Wq2eRt5yUi`` were stored as they
were, while ``REDIS_AUTH=sunflower-Orbit-42`` was redacted).  The pair is how Basic auth is configured
(``curl -u user:password``, nginx's and Traefik's ``BASIC_AUTH``, a proxy's ``PROXY_AUTH``); the password
is redacted, the user kept.

Kept: a URL (``KEYCLOAK_AUTH=https://…``: ``//`` after the colon), a ``host:port`` (``PROXY_AUTH=proxy:3128``:
a port's digits alone), a reference or a placeholder (``user:$PASS``, ``user:${PW}``, ``user:<password>``,
``user:changeme``: :func:`.checks.cli_secret_ok`)."""

from __future__ import annotations

from objstore.core.redact.checks import cli_secret_ok, phrase_secret_bang_ok
from objstore.core.redact.passwordphrases import PHRASE_TOKEN_BANG
from objstore.core.redact.rule import Rule, make_rule
from objstore.core.redact.scanners import scan_at

#: the password of a pair: up to a blank, quote or separator; red36 (test35b T10): in a quoted value, up to
#: its closing quote, blanks and all (``BASIC_AUTH="admin:S3cret Pass99"`` kept ``Pass99``)
_PAIR_SECRET = (r"(?P<secret>(?(q)(?:[^\"'`\r\n\\]{4,128}(?=(?P=bs)(?P=q))|[^\s\"'`,;\\]{4,128})"
                r"|[^\s\"'`,;\\]{4,128}))")
#: ``_auth``/``-auth`` ending an identifier, its sign (``=``, ``:``, ``:=``, a quote around name or value) or,
#: red36 (test35b T10), blanks alone (``--basic-auth admin:PW``, ``BASIC_AUTH admin:PW``), the user
_PAIR = (r"(?<=[a-z0-9])[_-]auth(?![a-z0-9_\-])(?:\\{0,3}[\"'])?(?:[ \t]{0,4}(?::=|[=:])[ \t]{0,4}|[ \t]{1,4})"
         r"(?:(?P<bs>\\{0,3})(?P<q>[\"']))?[a-z0-9_.@+\-]{1,64}:" + _PAIR_SECRET)


def auth_pair_ok(v: str) -> bool:
    """The password of an ``_AUTH=user:password`` pair: not a URL's ``//``,
    not a port's digits alone, and a password by :func:`.checks.cli_secret_ok`
    (4+ characters, no reference or placeholder)."""
    return not v.startswith("/") and not v.isdigit() and cli_secret_ok(v)


#: ``use X as the (db|wifi …) password`` (``the``/``my``/``our``/``a`` and up to 3 words before the label)
_USE_AS = (r"(?<![a-z0-9_\-])use[ \t]{1,4}[\"'`]?(?P<secret>" + PHRASE_TOKEN_BANG + r")[\"'`]?[ \t]{1,4}as[ \t]{1,4}"
           r"(?:(?:the|my|our|your|a|an|its)[ \t]{1,4})?(?:[a-z0-9_.\-]{1,32}[ \t]{1,4}){0,3}"
           r"(?:passw(?:or)?d|passphrase|pwd?)(?![a-z0-9_])")


#: the rules, placed in ``rules.RULES``
AUTH_PAIR_RULES: list[Rule] = [
    make_rule("generic-secret",
              "red35 (test34b T7): a settings name ending _AUTH/-auth whose value is a user:password pair "
              "(BASIC_AUTH=admin:Pl8mKo3nJi, PROXY_AUTH=user:pass): the password; a URL or a host:port kept",
              _PAIR, ci=True, priority=51, check=auth_pair_ok, anchors=("_auth", "-auth"),
              scan=scan_at("_auth", "-auth")),
    make_rule("password-phrase",
              "red35 (test34b T8): 'use <token> as the db password', the token looking like a password "
              "(phrase_secret: not 'use this as the password', 'use it as your pw')",
              _USE_AS, ci=True, priority=51, check=phrase_secret_bang_ok, anchors=("passw", "passphrase", "pw"),
              scan=scan_at("use ")),
]
