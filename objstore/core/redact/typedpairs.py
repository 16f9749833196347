"""Credentials a person types as a pair, for :mod:`objstore.core.redact` (red39, test39 T2; each was stored in the
clear by ``mem remember``, the hooks, the proxy and MCP, which share these rules):

* ``user:password@host`` with no scheme (``connect with admin:Kx9#mm@db.internal:5432``, ``root:pw@10.0.0.5``):
  the ``url-password`` of a URL read without its ``scheme://``; also a URL's password holding ``#`` or ``?``
  (``postgres://admin:Kx9#mm@db:5432``: typed unencoded, RFC 3986 s3.2 would end the authority there, but the
  person meant the password) (:func:`scan_userinfo`);
* a Wi-Fi network and its password (``wifi: Tulip / Kx9#mm``, ``SSID Tulip Home / Kx9#mm``), as ``login: admin /
  X`` is read;
* a user named, then its password after the bare word ``pass``, ``secret``, ``pw`` (``db user app / pass Kx9#mm``,
  ``user app, secret Kx9#mm``, ``username: app; pw: Kx9#mm``): a user before it says the word is no verb
  (``pass the salt``) and no noun of prose (``the secret sauce``).

Kept: an e-mail address after a label (``email:jdoe42@example.com``), a host and port with no password
(``user@host:22``, ``admin:8080``), a package alias or an image digest (``npm:lodash@4.17.21``,
``nginx:1.25@sha256:…``), a reference or a placeholder (``{user}:{pw}@{host}``, ``user:pass@host``)."""

from __future__ import annotations

from objstore.core.redact.beforeword import password_token_ok
from objstore.core.redact.checks import cli_secret_ok, pair_password_ok, phrase_secret_bang_ok, url_password_ok
from objstore.core.redact.passwordphrases import PHRASE_TOKEN_BANG
from objstore.core.redact.rule import FLAGS, Lazy, Rule, make_rule
from objstore.core.redact.scanners import scan_at

#: the host after the ``@`` (a name or an IPv4 address), an optional port, an optional path or query
_HOST = Lazy(r"(?P<host>[A-Za-z0-9](?:[A-Za-z0-9\-]{0,62}\.){0,8}[A-Za-z0-9\-]{0,63})(?P<port>:[0-9]{1,5})?"
             r"(?P<path>[/?][^\s\"'`]*)?", FLAGS)
_IPV4 = Lazy(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}", FLAGS)
#: what may stand between the ``:`` and the ``@`` of ``user:password@host``, and after the ``@`` (no blank, quote or
#: bracket: the run of one argument)
_IN_RUN = Lazy(r"[^ \t\r\n\"'`<>(\[=,;|]*", FLAGS)
_AFTER = Lazy(r"[^ \t\r\n\"'`<>]{1,300}", FLAGS)
#: the characters of the user of ``user:password@host`` (a login name: letters, digits, ``_ . -``; not first a sign),
#: read back from its ``:``
_USER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
#: labels before ``:`` that make the rest an address, not a user (``email:jdoe42@example.com``, ``mailto:``)
_ADDRESS_LABELS = frozenset((
    "email e-mail mail mailto from to cc bcc reply-to contact sender recipient author committer address addr "
    "user username login account owner maintainer reporter assignee by via npm jsr pnpm yarn link file workspace "
    "patch git github gitlab docker image sip xmpp tel im smtp".split()))
#: characters an e-mail's local part may hold unquoted (RFC 5322 dot-atom, the usual subset)
_LOCAL_PART = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._+-")


def userinfo_ok(user: str, secret: str, host: str, port: str, path: str) -> bool:
    """The password of ``user:password@host`` typed with no scheme: a user
    that is no label (:data:`_ADDRESS_LABELS`: ``email:x1@y.com``) nor a
    number (``10:30@home``); a host with a letter or an IPv4 address
    (not a version: ``npm:lodash@4.17.21``); a password by
    :func:`~.checks.url_password_ok` and :func:`~.checks.cli_secret_ok`
    (no ``{pw}``, ``$PW``, ``pass``, no redaction's mark) and shaped like one
    (:func:`~.checks.phrase_secret_bang_ok`: 6+ characters, a digit, a
    symbol or an inner capital); and, without a port or a path, not an
    e-mail address's local part in lower case (``bob:jdoe42@example.com``;
    an IPv4 host is no mail domain: ``root:hunter2x@10.0.0.5`` is taken)."""
    if user.lower() in _ADDRESS_LABELS or user.isdigit() or not host or host.endswith("-") or "[REDACTED:" in secret:
        return False
    if not (any(c.isalpha() for c in host) or _IPV4.fullmatch(host)):
        return False
    if not (url_password_ok(secret) and cli_secret_ok(secret) and phrase_secret_bang_ok(secret)):
        return False
    return bool(port or path) or not (set(secret) <= _LOCAL_PART and "." in host and not _IPV4.fullmatch(host))


def scan_userinfo(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """The scan of ``user:password@host`` without a scheme (and with one,
    where the password holds ``#`` or ``?``): at each ``@`` of the window,
    the last ``:`` before it with no blank, quote or bracket between
    (:data:`_IN_RUN`), the user before that ``:`` (:data:`_USER_CHARS`, after a
    blank, a sign, a quote or ``scheme://``) and the host after the ``@``
    (:data:`_HOST`, to the run's end, trailing sentence punctuation left out;
    a later ``@`` in the run is the host's start instead: the password may
    hold one); the password is appended when :func:`userinfo_ok` takes it.
    Most ``@`` (an e-mail, ``git@host:``) have no ``:`` in their run before
    them and cost two string searches."""
    p = text.find("@", ws, we)
    while p >= 0:
        nxt = text.find("@", p + 1, we)
        c = text.rfind(":", max(ws, p - 300), p)
        if c > ws and _IN_RUN.fullmatch(text, c + 1, p):
            m = _AFTER.match(text, p + 1, we)
            r = m.end() if m else p + 1
            last = text.rfind("@", p, r)
            _userinfo(rule, text, ws, c, last, r, out)
            if last > p:
                nxt = text.find("@", r, we)
        p = nxt


def _userinfo(rule: Rule, text: str, ws: int, c: int, at: int, r: int, out: list) -> None:
    """:func:`scan_userinfo` for the ``:`` at ``c`` and the ``@`` at ``at`` whose run ends at ``r``."""
    s = c
    while s > ws and c - s < 64 and text[s - 1] in _USER_CHARS:
        s -= 1
    if s == c or text[s] in ".-" or (s > ws and text[s - 1] not in " \t\r\n\"'`(<[=,;|>/"):
        return
    scheme = s >= 3 and text[s - 3:s] == "://"
    if scheme and not any(ch in "#?" for ch in text[c + 1:at]):
        return     # the url-password rule's (RFC 3986 userinfo)
    if scheme and text[c + 1:at].replace("?", "#").partition("#")[0].isdigit():
        return     # a port, then a fragment or query holding '@' ('http://host:8080#a@b')
    if "/" in text[c + 1:at] or text.startswith("REDACTED:", s) or (s > ws and text[s - 1] == "/" and not scheme):
        return     # a scheme's own ':' ('https://host@x', the last ':' before the '@'), or a path
    end = r
    while end > at + 1 and text[end - 1] in ".,;:!?)]}":
        end -= 1
    m = _HOST.fullmatch(text, at + 1, end)
    if m is None or not userinfo_ok(text[s:c], text[c + 1:at], m.group("host"), m.group("port") or "",
                                    m.group("path") or ""):
        return
    out.append((c + 1, at, rule.priority, rule.name))


#: a Wi-Fi network's word and its sign, then its name (1-3 words), a ``/`` between blanks, then the password;
#: pin40 (red39's left-out): or a ``,`` after the name when the word has its ':' or '=' ('wifi: Tulip, X'); with no
#: sign ('wifi Tulip / X') it could be hardware ('wifi adapter / Intel9260'), and stays
_WIFI = (r"(?<![a-z0-9_\-])(?:wi-?fi|wlan|ssid)"
         r"(?:[ \t]{1,4}(?:network|name|ssid))?[ \t]{0,4}(?:(?P<sign>[:=])|[ \t]-|(?<=ssid)[ \t])[ \t]{0,4}[\"'`]?[^\s/,\"'`]{1,32}"
         r"(?:[ \t][^\s/,\"'`]{1,32}){0,2}[\"'`]?[ \t]{0,4}(?:/|(?(sign),|(?!)))[ \t]{0,4}[\"'`]?(?P<secret>" + PHRASE_TOKEN_BANG + ")")
#: a user named, a separator, then a bare password word (the one a user before it makes no verb or noun of prose)
_USER_PASS = (r"(?<![a-z0-9_\-])(?:user(?:name)?|usr|login|account|acct)"
              r"[ \t]{0,4}+[:=]?[ \t]{0,4}+[\"'`]?[a-z0-9_][a-z0-9_.@+\-]{0,63}+[\"'`]?"   # (possessive: no retries)
              r"(?:[ \t]{0,4}+(?:[,/;|&+]|and)[ \t]{1,4}+|[ \t]{1,4}+)(?:pass|secret|pwd?)(?![a-z0-9_\-])[ \t]{0,4}[:=]?[ \t]{0,4}[\"'`]?"
              r"(?P<secret>" + PHRASE_TOKEN_BANG + ")")

#: the rules, placed in ``rules.RULES``
TYPED_PAIR_RULES: list[Rule] = [
    make_rule("url-password",
              "RFC 3986 s3.2.1 userinfo read without its scheme; red39 (test39 T2): 'user:password@host' with no "
              "scheme ('connect with admin:X@db.internal:5432', "
              "'root:X@10.0.0.5'), and a URL's password holding '#' or '?' typed unencoded; not an e-mail after a "
              "label, a package alias, a version, a placeholder (userinfo_ok)",
              r"@", priority=30, check=None, anchors=("@",), scan=scan_userinfo),
    make_rule("password-phrase",
              "red39 (test39 T2): a Wi-Fi network and its password ('wifi: Tulip / X', 'SSID Tulip Home / X'; pin40: "
              "'wifi: Tulip, X'), "
              "as 'login: admin / X' (pair_password_ok)",
              _WIFI, ci=True, priority=51, check=pair_password_ok, anchors=("wifi", "wi-fi", "wlan", "ssid"),
              scan=scan_at("wifi", "wi-fi", "wlan", "ssid")),
    make_rule("password-phrase",
              "red39 (test39 T2): a user, then a bare 'pass', 'secret', 'pw' and the password ('db user app / pass "
              "X', 'user app, secret X'); only a token shaped like a password (password_token_ok)",
              _USER_PASS, ci=True, priority=51, check=password_token_ok,
              anchors=("pass", "secret", "pw"),   # (in every match: a window without one runs no scan)
              scan=scan_at("user", "usr", "login", "account", "acct")),
]
