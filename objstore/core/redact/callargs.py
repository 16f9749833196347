"""A password passed to a call as a positional argument, for :mod:`objstore.core.redact` (red26):
the keyword scan (:func:`~.scanners.scan_generic`) reads ``password="X"``, not the second argument
of ``smtp.login("me@gmail.com", "X")``, ``auth=("bob", "X")`` or ``HTTPBasicAuth("bob", "X")``,
where no keyword names the value: the call does."""

from __future__ import annotations

from objstore.core.redact.checks import cli_secret_ok
from objstore.core.redact.rule import Rule, make_rule
from objstore.core.redact.scanners import scan_at

#: where such a call starts: a method ``.login(`` (Python's smtplib ``SMTP.login(user, password)``, imaplib
#: ``IMAP4.login(user, password)``, ftplib ``FTP.login(user, passwd)``, Django's test client, most clients),
#: requests' ``auth=(user, pass)`` tuple, ``HTTPBasicAuth`` / ``HTTPDigestAuth`` (requests, httpx) and
#: aiohttp's ``BasicAuth(login, password)``
_STARTS = (".login", "basicauth", "digestauth", "auth=", "auth =")
#: the first argument: a string literal (raw or JSON-escaped quotes) or a name, an attribute or a subscript
_FIRST = (r"(?:\\{0,3}[\"'][^\"'\\\r\n]{0,256}+\\{0,3}[\"']"
          r"|[a-z_][a-z0-9_.]{0,127}+(?:\[[^\]\r\n]{0,64}+\])?)")
_CALL = (r"(?:\.login|(?:basic|digest)auth|auth[ \t]{0,4}=[ \t]{0,4})[ \t]{0,4}\([ \t]{0,4}" + _FIRST
         + r"[ \t]{0,4},[ \t]{0,8}(?P<bs>\\{0,3})(?P<q>[\"'])(?P<secret>(?:(?!(?P=bs)(?P=q))[^\r\n]){1,256}+)"
         r"(?P=bs)(?P=q)[ \t]{0,4}[),]")


def call_password_ok(v: str) -> bool:
    """The literal of a call's password argument: 4+ characters, not a
    reference, a placeholder or the credential's name (:func:`cli_secret_ok`:
    ``"$PW"``, ``"{pw}"``, ``"<password>"``, ``"password"``, ``"changeme"``),
    nor a format string (``"%s"``)."""
    return len(v) >= 4 and not v.isspace() and cli_secret_ok(v.strip())


CALL_RULES: list[Rule] = [
    make_rule("call-password",
              "a password as a call's second positional argument (red26): Python smtplib 'SMTP.login(user, "
              "password)' https://docs.python.org/3/library/smtplib.html#smtplib.SMTP.login , imaplib "
              "'IMAP4.login(user, password)', ftplib 'FTP.login(user, passwd)'; requests 'auth=(user, pass)' and "
              "HTTPBasicAuth/HTTPDigestAuth https://requests.readthedocs.io/en/latest/user/authentication/ ; "
              "aiohttp 'BasicAuth(login, password)' https://docs.aiohttp.org/en/stable/client_reference.html",
              _CALL, ci=True, priority=45, check=call_password_ok, anchors=_STARTS, scan=scan_at(*_STARTS)),
]
