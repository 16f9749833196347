"""The password-file rules of :mod:`objstore.core.redact`'s table (red20, red21; moved out of
:mod:`.commandline` as they were, red26, that module being near the 40,960-byte limit, and spliced
into ``commandline.COMMAND_LINE_RULES`` at their place, its end): the password field of a
PostgreSQL ``.pgpass`` line and of a ``.netrc`` entry, shown or written on a command line
(``cat ~/.pgpass``, ``echo … >> ~/.netrc``)."""

from __future__ import annotations

from objstore.core.redact.checks import cli_secret_ok
from objstore.core.redact.passphrases import quoted_passphrase_ok
from objstore.core.redact.rule import FLAGS, Lazy, Rule, make_rule
from objstore.core.redact.scanners import scan_at

# ---- password files (red20) ----
#: one line of a PostgreSQL password file, 'hostname:port:database:username:password' (libpq "The Password File":
#: a field may be '*', '\\:' and '\\\\' escape, raw or JSON-escaped): at a line's start (raw, JSON-escaped) or after a blank or quote
_PGPASS_FIELD = r"(?:[^\s:\"'`\\]|\\{1,2}[:\\]){1,128}+"
_PGPASS_LINE = (r"(?:(?<=[\s\"'>])|(?<=\\n)|^)" + _PGPASS_FIELD + r":(?:[0-9]{1,5}|\*):" + _PGPASS_FIELD + ":"
                + _PGPASS_FIELD + r":(?P<secret>(?:[^\s:\"'`\\]|\\{1,2}[:\\]){1,256}+)(?![^\s\"'`\\])")
#: red21: a password-file line with no '.pgpass' near, alone on its line, in a shape strict enough for any text:
#: ':PORT:DATABASE:USERNAME:PASSWORD' then the line's end (raw or JSON-escaped, or the JSON string's closing
#: quote); the port '*' or 4-5 digits (mend24: 5433, pgbouncer's 6432, a pooler's 6543 as well as the default
#: 5432; the pattern still opens on ':' then a digit, re's own skip), the database and
#: user names identifiers ('*', '@' of 'user@server', '\\:' escapes), the password one run without blanks; the
#: host before it is checked by _scan_pgpass_line (_PGPASS_HOST)
#: red27 (test26b W7): one character of the password field; the field may hold blanks (libpq splits the line at
#: ':' alone): its words joined by single blanks, up to the line's end ('h:5432:app:bob:my pg pass here')
_PGPASS_CHAR = r"(?:[^\s:\"'`\\]|\\{1,2}[:\\])"
_PGPASS_NAME = r"(?:[A-Za-z0-9_$.@*\-]|\\{1,2}[:\\]){1,63}+"
_PGPASS_TAIL = (r":(?:[0-9]{4,5}|\*):" + _PGPASS_NAME + ":" + _PGPASS_NAME
                + r":(?P<secret>" + _PGPASS_CHAR + r"{4,256}+|" + _PGPASS_CHAR + r"{1,64}+(?: " + _PGPASS_CHAR
                + r"{1,64}+){1,15}+)[ \t]{0,8}(?=\r?\n|\\{1,3}[rn]|\\{0,3}\"|$)")
#: its anchors (mend24): the ports of PostgreSQL and its poolers, whose literals gate it (':543' for 5432-5439, ':6'
#: for the two poolers: anchors sharing a prefix are tested as that prefix); another port is taken where one of
#: them is in the same window, else it needs the file named (_scan_pgpass)
_PGPASS_PORTS = (":*:", *(f":{p}:" for p in range(5432, 5440)), ":6432:", ":6543:", ":25060:")
#: the host field of such a line: '*', a host name with a letter (not a time's '12:30:…'), a dotted IPv4 address
_PGPASS_HOST = Lazy(r"\*|(?=[0-9.\-]{0,252}[A-Za-z])[A-Za-z0-9][A-Za-z0-9.\-]{0,252}|[0-9]{1,3}(?:\.[0-9]{1,3}){3}",
                    FLAGS)
#: a host that is one group of an IPv6 address ('fe80:1:2:3:abcd' is no password-file line)
_HEX_GROUP = Lazy(r"[0-9A-Fa-f]{1,4}", FLAGS)
#: how far back from ':PORT:' the host's line start is looked for (a host name is at most 253 characters)
_PGPASS_HOST_MAX = 262
#: how far before and after a '.pgpass' its lines are looked for ('echo LINE >> ~/.pgpass', 'cat ~/.pgpass' LF LINES)
_PGPASS_BEFORE, _PGPASS_AFTER = 512, 4096
#: the blanks between the tokens of a .netrc (blanks, line breaks, raw or JSON-escaped) and one token; red21: up to
#: 32 (an entry split over several indented lines, a blank line between: 'machine h' LF LF '        login u')
_NETRC_SEP = r"(?:[ \t\r\n]|\\[nrt]){1,32}+"
#: red21: a token may be a quoted string (curl 7.84.0+: '"…"' with '\\"' escapes, the only way to put a blank in one)
_NETRC_QUOTED = r"(?P<{q}>\\{{0,3}})\"(?:(?!(?P={q})\")(?:\\{{1,7}}[^\r\n]|[^\r\n\\])){{0,256}}+(?P={q})\""
_NETRC_TOKEN = r"(?:[^\s\"'`\\]{1,256}+|" + _NETRC_QUOTED.format(q="q1") + ")"
#: where an entry starts (the scan's starts); its gate is 'password', which every match holds and other rules
#: test anyway (a gate of its own, 'default', cost ~0.6 % of the stdlib prefilter's CPU on transcripts)
_NETRC_STARTS = ("machine", "default")
#: red21: the head of an entry, 'machine HOST' or 'default' (GNU inetutils: the entry for any other machine)
_NETRC_HEAD = (r"(?:machine(?:(?<=\\nmachine)|(?<![a-z0-9_\-.]machine))" + _NETRC_SEP + _NETRC_TOKEN
               + r"|default(?:(?<=\\ndefault)|(?<![a-z0-9_\-.]default)))")
_NETRC_ACCOUNT = r"(?:" + _NETRC_SEP + r"account" + _NETRC_SEP + _NETRC_TOKEN.replace("q1", "q2") + r")?"
#: the password, bare or quoted (its quotes kept: the string between them is the secret)
_NETRC_SECRET = (r"(?:(?P<nq>\\{0,3})(?P<oq>\"))?(?P<secret>(?(oq)(?:(?!(?P=nq)\")(?:\\{1,7}[^\r\n]|[^\r\n\\])){1,256}+"
                 r"|[^\s\"'`\\]{1,256}+))(?(oq)(?P=nq)\")")
#: red21: a .netrc entry with a login and a password, in either order ('login' and 'password' are tokens of one
#: entry in any order; 'account' may stand before or after either): the login first, or the password first and
#: a login after it (a 'machine H password P' with no login at all is not taken: 'the machine learning password
#: reset' reads so)
_NETRC_ENTRY = (_NETRC_HEAD + _NETRC_ACCOUNT + r"(?P<lg>" + _NETRC_SEP + r"login" + _NETRC_SEP
                + _NETRC_TOKEN.replace("q1", "q3") + _NETRC_ACCOUNT.replace("q2", "q4") + r")?" + _NETRC_SEP
                + r"password" + _NETRC_SEP + _NETRC_SECRET + r"(?(lg)|(?=" + _NETRC_ACCOUNT.replace("q2", "q5")
                + _NETRC_SEP + r"login" + _NETRC_SEP + r"))")


def _scan_pgpass(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """The password fields of the password-file lines (``_PGPASS_LINE``)
    within 512 characters before and 4,096 after each ``.pgpass`` of the
    window: the line written (``echo 'h:5432:db:u:pw' >> ~/.pgpass``) and
    the lines shown (``cat ~/.pgpass`` and its output); red21: after any
    name of the file, ``PGPASSFILE`` (libpq "Environment Variables") and
    Windows' ``%APPDATA%\\postgresql\\pgpass.conf`` too (libpq "The Password
    File"), which all hold ``pgpass``."""
    s0, e0 = ws - off, we - off
    done = s0
    p = low.find("pgpass", s0, e0)
    while p >= 0:
        for m in rule.lowered.finditer(low, max(done, p - _PGPASS_BEFORE), min(e0, p + _PGPASS_AFTER)):
            a, b = m.span("secret")
            if rule.check(text[a + off:b + off]):
                out.append((a + off, b + off, rule.priority, rule.name))
            done = m.end()
        done = max(done, min(e0, p + _PGPASS_AFTER))
        p = low.find("pgpass", max(p + 6, done - _PGPASS_BEFORE), e0)


def _scan_pgpass_line(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """red21: a password-file line on its own, no ``.pgpass`` named near it
    (a ``cat`` of a file by another name, a ``PGPASSFILE``, a pasted line):
    ``host:port:database:username:password`` as the whole of its line, in the
    strict shape of :data:`_PGPASS_TAIL` and :data:`_PGPASS_HOST` (exactly
    five fields; PostgreSQL libpq "The Password File",
    https://www.postgresql.org/docs/current/libpq-pgpass.html); the password
    by :func:`~.checks.cli_secret_ok` and not digits alone (red27: words
    joined by blanks, by :func:`~.passphrases.quoted_passphrase_ok`: the
    field runs to the line's end).  Read from each
    ``:PORT:`` back to its line's start: ``re`` finds the ``:`` fast, where
    a pattern starting at a line's host would be tried at every offset."""
    for m in rule.pattern.finditer(text, ws, we):
        p = m.start()
        lo = max(0, p - _PGPASS_HOST_MAX)
        # no host holds a line break, a backslash or a quote: the last of them is where its line starts
        b = max(text.rfind("\n", lo, p), text.rfind("\\", lo, p), text.rfind('"', lo, p))
        if b < 0:
            if lo > 0:
                continue
        elif not (text[b] == "\n" or (text[b] == "\\" and text[b + 1:b + 2] == "n")
                  or (text[b] == '"' and (b == 0 or text[max(0, b - 2):b].rstrip(" ")[-1:] in (":", "[", ",")))):
            continue
        host = text[b + 1 + (text[b] == "\\"):p] if b >= 0 else text[:p]
        host = host.lstrip(" \t")
        if _PGPASS_HOST.fullmatch(host) is None or _HEX_GROUP.fullmatch(host) is not None:
            continue
        v = m.group("secret")
        if not v.isdigit() and (quoted_passphrase_ok(v) if " " in v else rule.check(v)):
            out.append((m.start("secret"), m.end("secret"), rule.priority, rule.name))


_r = make_rule   # the table below is aligned to this short name

#: the password-file rules, in their order of the table (a tie in priority goes to the earlier)
PASSWORD_FILE_RULES: list[Rule] = [
    _r("pgpass-password",
       "the password field of a PostgreSQL password file line 'hostname:port:database:username:password' (port "
       "digits or '*'; '\\:' escapes a colon) near '.pgpass', 'PGPASSFILE' or 'pgpass.conf' ('cat ~/.pgpass', "
       "'echo … >> ~/.pgpass'), the other fields kept: PostgreSQL libpq 'The Password File' "
       "https://www.postgresql.org/docs/current/libpq-pgpass.html",
       _PGPASS_LINE, ci=True, priority=45, check=cli_secret_ok, anchors=("pgpass",), scan=_scan_pgpass),
    _r("pgpass-password",
       "the password field of a PostgreSQL password file line 'hostname:port:database:username:password' alone "
       "on its line, no '.pgpass' named near it: exactly five fields, the port '*' or a PostgreSQL one (5432-5439, "
       "pgbouncer's 6432, a pooler's 6543, 25060; mend24), the host '*', a "
       "name with a letter or an IPv4 address, the database and user names identifiers: PostgreSQL libpq 'The "
       "Password File' https://www.postgresql.org/docs/current/libpq-pgpass.html",
       _PGPASS_TAIL, priority=45, check=cli_secret_ok, anchors=_PGPASS_PORTS, scan=_scan_pgpass_line),
    _r("netrc-password",
       "the password of a .netrc entry 'machine HOST [account A] login USER [account A] password PASSWORD' "
       "(tokens separated by blanks or line breaks, raw or JSON-escaped); red21: a 'default' entry, the password "
       "before the login, a quoted password (curl 7.84.0+): GNU inetutils 'The .netrc file' "
       "https://www.gnu.org/software/inetutils/manual/html_node/The-_002enetrc-file.html, curl 'netrc' "
       "https://everything.curl.dev/usingcurl/netrc",
       _NETRC_ENTRY, ci=True, priority=45, check=cli_secret_ok, anchors=("password",), scan=scan_at(*_NETRC_STARTS)),
]
