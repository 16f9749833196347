"""Credential redaction: replace secrets with ``[REDACTED:<rule>]`` before anything reaches disk.

Every capture path (hooks, transcript imports, shell capture, ``mem remember``)
passes its text through :func:`redact`.  It runs inside an agent hook, so it is
built to be cheap on ordinary text and bounded on hostile text:

* the **prefilter** is ``re``'s own literal-prefix scan: every pattern starts
  with a literal (``ghp_``, ``AKIA``, ``-----BEGIN ``, ``://``,
  ``authorization``, ``bearer``, ``secret`` ...) and its word-boundary
  look-behind is written *after* that literal (``ghp_(?<!Xghp_)``), so a rule
  whose prefix is absent costs one scan in C and nothing else.  The
  case-insensitive rules run over one lowercased copy of the window; the
  generic keyword rule tries a match only where ``str.find`` sees one of five
  anchor words (``pass pwd secret token key``);
* which rules run at all is decided by their **anchors** (``Rule.anchors``):
  a rule none of whose anchors occurs in the lowercased window is skipped.
  A process that has scanned 1 MiB finds every anchor in one pass with the
  optional ``ahocorasick_rs`` matcher (``memvcs[fast]``); without it, one
  ``str.__contains__`` per gate (:func:`_gates`).  Both find exactly the
  anchors that occur, so the output is the same (docs/benchmarks.md,
  "Session 7 (branch ``redact7``)");
* every pattern is **linear**: its quantifiers are bounded (and possessive
  where a token ends), no quantified group can match the same text two ways,
  and the look-behind means a token can only start where a run of token
  characters starts, so ``re`` never re-reads a run from every offset.

Rules (``RULES``; the ``source`` field of each names the documented format):

========================  ==========================================================  ==========================================
rule                      what it matches                                             documented format
========================  ==========================================================  ==========================================
private-key               PEM ``-----BEGIN ... PRIVATE KEY-----`` blocks (RSA, EC,    RFC 7468; RFC 5915 (EC); OpenSSH
                          DSA, ENCRYPTED, OPENSSH, PGP ``PRIVATE KEY BLOCK``), also   PROTOCOL.key; RFC 4880 s6.2 (PGP armor)
                          blocks with no END line and tails with no BEGIN line,
                          raw or JSON-escaped (``\\n``)
gcp-service-account       the PEM value of a ``"private_key"`` JSON field            Google Cloud IAM, service account key file
aws-access-key-id         ``AKIA``/``ASIA``/``ABIA``/``ACCA`` + 16 [A-Z0-9]           AWS IAM "unique identifiers" (ID prefixes)
aws-secret-access-key     40-char base64 value after ``aws_secret_access_key``,       AWS CLI config files / access keys docs
                          ``SecretAccessKey``, ``secret_key`` (= : => or blank);
                          unlabelled: a mixed-case 40-char base64 token within
                          256 chars of an access key id
gcp-api-key               ``AIza`` + 35 [A-Za-z0-9_-]                                 Google Cloud "Manage API keys"
github-token              ``ghp_ gho_ ghu_ ghs_ ghr_`` + 36..251 [A-Za-z0-9]          GitHub "authentication token formats"
github-fine-grained-pat   ``github_pat_`` + 22..255 [A-Za-z0-9_]                      GitHub fine-grained PAT (22 + _ + 59)
gitlab-token              ``glpat- gldt- glrt- glptt- glft- gloas- glcbt- glagent-    GitLab "Token overview: token prefixes"
                          glimt- glsoat- glffct-`` + 20.. [A-Za-z0-9_-] (routable
                          ``.<ver>.<crc>`` suffix included)
slack-token               ``xox[abcdeoprs]-...``, ``xapp-...``                        Slack "Token types"
slack-webhook             path after ``hooks.slack.com/services|workflows|triggers/`` Slack "Sending messages using incoming
                                                                                      webhooks"
stripe-key                ``sk_live_ rk_live_ sk_test_ rk_test_`` + 10..247 alnum;    Stripe "API keys"; "Webhook signatures"
                          ``whsec_`` + base64
npm-token                 ``npm_`` + 36 [A-Za-z0-9]                                    npm/GitHub "npm's new access token format"
mem-key                   ``memk_`` + 43 [A-Za-z0-9_-]                                 mem's own MCP keys (docs/mcp.md)
openai-key                ``sk-proj- sk-svcacct- sk-admin-`` + 20..; legacy ``sk-`` + OpenAI API reference "Authentication"
                          48 [A-Za-z0-9]                                              (project/service-account/admin keys)
huggingface-token         ``hf_`` + 34..40 [A-Za-z0-9], both cases                    Hugging Face "User access tokens"
sendgrid-key              ``SG.`` + 22 [A-Za-z0-9_-] + ``.`` + 43 [A-Za-z0-9_-]        Twilio SendGrid "API Keys"
digitalocean-token        ``dop_v1_ doo_v1_ dor_v1_`` + 64 hex                          DigitalOcean token prefixes
shopify-token             ``shpat_ shpca_ shppa_ shpss_`` + 32 hex                     Shopify "Access tokens"
discord-webhook           the token of ``discord[app].com/api/[vN/]webhooks/<id>/``    Discord "Webhook Resource" (Execute
                                                                                      Webhook)
azure-storage-key         the base64 key after ``AccountKey=``, ``SharedAccessKey=``,  Azure Storage "Configure a connection
                          ``AZURE_STORAGE_KEY=``, ``--account-key``                   string"; az storage ``--account-key``
azure-sas-token           the ``sig=`` of a SAS URL or token (``?``/``&``/``;sig=``;    Azure Storage "Create a service SAS"
                          30+ URL-encoded base64 characters)
anthropic-key             ``sk-ant-`` + 20.. [A-Za-z0-9_-] (api03, admin01, oat01)    Anthropic API "Authentication"/x-api-key
jwt                       ``eyJ...`` ``.eyJ...`` ``.sig`` (base64url)                  RFC 7519 s3 / RFC 7515 s7.1 compact form
bearer-token              the credential after ``Authorization: Bearer|Token``, and  RFC 6750 s2.1 (b64token)
                          a random-looking (>= 20 chars) value after a bare
                          ``Bearer``
basic-auth                the credential after ``Authorization: Basic``               RFC 7617 s2
url-password              the password in ``scheme://user:password@host``             RFC 3986 s3.2.1 (userinfo)
                          (user and host are kept)
mysql-password            the password attached to ``-p`` on a ``mysql``/``mysqldump``/  MySQL "Command Options for Connection
                          ``mariadb``... command line (``-pS3cret``; not ``-p``        Establishment" (``-p[password]``)
                          alone, ``-P 3306``, ``mkdir -p``)
password-phrase           the token after ``password|passwd|passphrase is|was`` in    (no vendor format: keyword heuristics,
                          plain words when it looks like a password (>= 6 chars,       see ``_phrase_secret``)
                          a digit, symbol or inner capital: ``my password is
                          hunterUniq2024``), and a 4-12 digit ``pin is 4821``;
                          ``the password is stored in vault`` is left; also
                          ``the secret|token|api key is X``, a quoted value after
                          ``password|passphrase|secret is``, and ``password X``
                          with no verb when X cannot be prose (``UpstreamPw777``);
                          ``my pw is X``; the password of a ``user / password`` pair
                          after a credential word (``login admin / Pw!2024x``,
                          ``creds: admin / Pw!2024x``; not ``cp a / b``, ``1 / 2``,
                          ``the user / group split``), also with no blanks when the
                          password has letters and digits and no ``.`` or ``/``
                          (``login admin/Pw!2024x``; not ``login users/groups.py``);
                          ``the vpn|wifi|admin|root... pass is X``; German ``das
                          Passwort ist|lautet X``; ``passphrase: <3+
                          words>`` to the end of the line (not ``passphrase: not set``)
cli-password              a password given to a command on its command line:          the tools' own manuals (sshpass(1),
                          ``sshpass -p``, ``docker|podman|az|oc|cf... login -p``,      curl(1), redis-cli, openssl-passphrase-
                          ``curl -u user:pw``, ``redis-cli -a``, ``openssl -k`` /     options(1), htpasswd(1), sudo(8),
                          ``-pass pass:``, ``htpasswd -b``, ``echo pw | sudo -S``,    mongosh, rabbitmqctl(8), Windows net
                          ``--password pw`` (``--passphrase``, ``--http-password``    user/use, bash here-strings, chpasswd(8),
                          ...); ``mongo|mongosh|mongodump... -p|--password``;         sqlcmd, ldapsearch(1), zip(1), 7-Zip,
                          ``rabbitmqctl add_user|change_password u pw``; ``net user   keytool, mosquitto_pub(1), PuTTY,
                          u pw /add``, ``net use \\\\s\\x pw``; a here-string to a  FreeRDP, rdesktop(1), mysqladmin,
                          password prompt (``sudo -S ... <<< pw``, ``passwd <<<``,    smbclient(1))
                          ``chpasswd <<< 'u:pw'``, ``--password-stdin <<<``) and
                          ``echo u:pw | chpasswd``; ``sqlcmd -P``, ``ldapsearch -w``,
                          ``zip -P``, ``7z -ppw``, ``keytool -storepass``,
                          ``mosquitto_pub -P``, ``plink -pw``, ``xfreerdp /p:``,
                          ``rdesktop -p``, ``mysqladmin password``, ``smbclient -U
                          u%pw``; not ``$VAR``, ``env:``/``file:``
                          sources, ``--password-stdin`` or placeholder words
sql-password              the string literal of ``IDENTIFIED [WITH plugin] BY        MySQL CREATE USER / SET PASSWORD;
                          'pw'``, ``[WITH] [ENCRYPTED] PASSWORD 'pw'``, ``SET          PostgreSQL CREATE ROLE; Oracle
                          PASSWORD [FOR u] = 'pw'``; Oracle's unquoted ``IDENTIFIED   CREATE USER
                          BY Pw2024x`` (not ``identified by email``, ``$1``, hashes)
generic-secret            the value of ``password|passwd|passwort|pwd|pw|passphrase|   (no vendor format: keyword heuristics,
                          token|api_key|access_key|auth_key|private_key|              see ``_looks_secret``)
                          client_secret|secret_key_base|pass|*_pass`` ``= / : / =>`` assignments when the value
                          looks random (see ``_looks_secret``), or mixes letters
                          with digits or symbols (``password=hunter2``,
                          ``token=abc123def456``), or is a quoted literal after a
                          password keyword (``_looks_assigned``); code such as
                          ``password = getpass()`` or ``token = tokens[i]`` is left
========================  ==========================================================  ==========================================

When matches overlap they are merged into one ``[REDACTED:<rule>]`` named after
the most specific rule (vendor formats before ``jwt``, ``url-password``,
``bearer-token``/``basic-auth`` and ``generic-secret``).

The bound.  ``max_scan_chars`` (default 256 Ki, at least 4 Ki) caps what one
regex pass reads: longer text is scanned in windows of ``max_scan_chars``
characters that overlap by ``min(16 Ki, max_scan_chars / 4)``, so every
character is scanned, no secret shorter than the overlap is cut in two, and
nothing is dropped (redacting the unscanned rest would destroy data; leaving
it unscanned would leak).  A window costs a bounded amount even on
pathological input, and the total cost is linear in ``len(text)``; callers
that want a hard cap on the time per entry cap the entry's size, this module
never truncates.  Measured on the 2-core dev box (CPython 3.11,
tests/core/test_redact.py -s): a 2 KB prompt p50 ~0.05-0.08 ms; 10 MB of
mixed text ~0.6-0.9 s in one call; the worst of ~30 pathological 256 KB lines
(``a``, ``=``, ``eyJAAA...``, ``x:x:...``, base64, ``password=password=...``,
``private_key":"...``) ~30-75 ms, most under 10 ms.  After the redact6 rules
(CPU time, the box shared at a load of 12-20; docs/benchmarks.md "Redaction:
the redact6 rules"): 10 MB mixed 1.1-1.4 s before, 1.7-1.9 s after; the
shared transcripts (9 MB, 2,124 lines) 0.33-0.36 s before, 0.56 s after; a
2 KB prompt 86-114 us before, 119-136 us after; the worst pathological line
per rule <= 190 ms (most new rules under 110 ms).  Most of the added cost is
the anchor test (``g in low``, ~0.65 ns a character for each distinct
anchor, whatever its length): each new anchor adds ~2% on transcripts.

Guarantees: :func:`redact` never raises on a ``str`` (lone surrogates
included), and is idempotent: ``redact(redact(t).text).text ==
redact(t).text``.  Replacing a secret changes its neighbours (``[`` and
``]``), so after a pass that redacted something the output is scanned again
(at most ``_MAX_PASSES`` passes in all; ordinary text takes one).
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Callable
from typing import NamedTuple

from objstore.core.record import Frozen, set_fields
from objstore.core.text import LazyPattern, replace_spans

__all__ = [
    "DEFAULT_MAX_SCAN_CHARS", "RULES", "Hit", "RedactResult", "Rule", "redact", "redact_value", "remove_credentials",
]

DEFAULT_MAX_SCAN_CHARS = 262_144
_OVERLAP = 16_384          # windows overlap by this much: no shorter secret is cut in two
_MIN_WINDOW = 4_096
_MAX_PASSES = 4
_PEM_MAX = 65_536          # how far back from an END line a headless PEM body is looked for

_FLAGS = re.ASCII


_Lazy = LazyPattern  # helper patterns compile on first use: a hook scanning a short prompt needs few
_IFLAGS = re.ASCII | re.IGNORECASE

# A token starts where the previous character cannot belong to it, and ends
# where the next cannot.  ``]`` / ``[`` are in the classes so that a token
# touching a ``[REDACTED:...]`` marker is treated exactly like one touching
# another token character (this is what makes a second pass find nothing new).
# The look-behind is written *after* the literal prefix, (``ghp_(?<!Xghp_)``),
# so that ``re`` can still search for the prefix with its fast literal scan.
_LBC = r"[A-Za-z0-9_+\-\]]"
_LA = r"(?![A-Za-z0-9_+\-\[])"


class _Tok(str):
    """A token pattern (a ``str``) that knows its literal prefixes."""

    anchors: tuple[str, ...]


def _tok(prefixes: tuple[str, ...], body: str, lbc: str = _LBC, la: str = _LA) -> str:
    """``(?:p1(?<!Xp1)|p2(?<!Xp2)...)body`` + look-ahead: a prefixed token on
    a boundary.  The prefixes, lowercased, are the rule's anchors (:class:`Rule`)."""
    alts = "|".join(f"{re.escape(p)}(?<!{lbc}{re.escape(p)})" for p in prefixes)
    tok = _Tok(f"(?:{alts}){body}{la}")
    tok.anchors = tuple(p.lower() for p in prefixes)
    return tok


# --------------------------------------------------------------------------- rules


class Rule:
    """One credential format.

    Attributes:
        name: the ``<rule>`` in ``[REDACTED:<rule>]``.
        source: the documented token format the pattern follows (vendor doc or RFC).
        regex: the pattern's source; its ``secret`` group (or the whole match) is
            replaced.
        pattern: ``regex`` compiled, on first use: compiling all the rules
            costs ~7 ms, more than a hook's prompt scan, and most texts hold
            no anchor of most rules (start-up, docs/benchmarks.md).
            Case-insensitive rules (``ci``, compiled with ``re.IGNORECASE``)
            are run as their case-sensitive twin ``lowered`` over a lowercased
            copy of the text (same offsets), which is several times faster
            than ``re.IGNORECASE``.
        ci: the rule is case-insensitive.
        priority: lower wins the name when matches overlap.
        check: optional test of the matched value (False: not a secret).
        scan: optional replacement for the plain ``finditer`` pass.
        anchors: lowercase literals of which every match contains one, or
            None; a window whose lowercased text holds none of them is not
            scanned with this rule (so its pattern need not be compiled).
    """

    __slots__ = ("name", "source", "regex", "ci", "priority", "check", "scan", "anchors", "_pattern", "_lowered")

    def __init__(self, name: str, source: str, regex: str, ci: bool = False, priority: int = 10,
                 check: Callable[[str], bool] | None = None, scan: Callable[..., None] | None = None,
                 anchors: tuple[str, ...] | None = None) -> None:
        self.name, self.source, self.regex, self.ci, self.priority = name, source, str(regex), ci, priority
        self.check, self.scan, self.anchors = check, scan, anchors
        self._pattern = self._lowered = None

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = re.compile(self.regex, _IFLAGS if self.ci else _FLAGS)
        return self._pattern

    @property
    def lowered(self) -> re.Pattern[str] | None:
        if self.ci and self._lowered is None:
            self._lowered = re.compile(self.regex, _FLAGS)
        return self._lowered

    def __repr__(self) -> str:
        return f"Rule({self.name!r}, priority={self.priority})"


# ---- PEM private keys --------------------------------------------------------------
# A line break, raw or JSON-escaped once or more (``\n``, ``\\n``, ``\r\n``).
_NL = r"(?:\r?\n|\r|\\{1,8}(?:r\\{1,8})?n)"
_SEP = r"[ \t]{0,16}(?:" + _NL + r"[ \t]{0,16}){1,4}"
_B64 = r"[A-Za-z0-9+/=]"
_HDRLINE = r"[A-Za-z][A-Za-z0-9-]{0,40}:[^\r\n\\]{0,256}"   # Proc-Type:, DEK-Info:, Version:, Comment:
_PEM_LABEL = r"(?:[A-Z0-9]{1,16}[ ]){0,3}PRIVATE[ ]KEY(?:[ ]BLOCK)?"
_PEM_BODY = (
    r"-----BEGIN[ ]" + _PEM_LABEL + r"-----"
    r"(?:" + _SEP + _HDRLINE + r"){0,8}"                                  # RFC 1421 / 4880 armor headers
    r"(?:(?:" + _SEP + r"|[ ]{0,16})" + _B64 + r"{16,16384}+){1,2048}"     # base64 lines (or one long line)
    r"(?:" + _SEP + _B64 + r"{1,15}+)?"                                   # a short last line / PGP checksum
    r"(?:(?:" + _SEP + r"|[ ]{0,16})-----END[ ]" + _PEM_LABEL + r"-----)?"
)
_PEM_END_RE = _Lazy(r"-----END[ ]" + _PEM_LABEL + r"-----", _FLAGS)
# The body read backwards from an END line (the text before it, reversed):
# an escaped ``\n`` reads ``n\``, ``\r\n`` reads ``n\r\``.
_RNL = r"(?:\n\r?|\r|n\\{1,8}(?:r\\{1,8})?)"
_RSEP = r"[ \t]{0,16}(?:" + _RNL + r"[ \t]{0,16}){1,4}"
_RB64 = r"(?:[A-Za-mo-z0-9+/=]|n(?!\\))"   # reversed, ``n\`` is a line break, not a base64 ``n``
_PEM_REV_RE = _Lazy(
    r"(?:" + _RSEP + r"|[ ]{0,16})" + _RB64 + r"{1,16384}+"
    r"(?:(?:" + _RSEP + r"|[ ]{0,16})" + _RB64 + r"{16,16384}+){0,2048}",
    _FLAGS,
)


def _scan_pem(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """BEGIN-anchored blocks (complete or truncated), then END lines whose BEGIN
    is missing (a tool output cut at the front): the base64 lines just before
    the END line, read backwards, are redacted with it."""
    _scan_plain(rule, text, ws, we, out, low, off)
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


# ---- value checks --------------------------------------------------------------------

_PLACEHOLDERS = ("xxx", "***", "...", "your", "example", "changeme", "change_me", "placeholder",
                 "redacted", "dummy", "sample", "replace", "insert", "todo", "fixme", "<", ">")
_PLACEHOLDER_RE = _Lazy("|".join(map(re.escape, _PLACEHOLDERS)), _IFLAGS)
_IDENT_RE = _Lazy(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*", _FLAGS)
_HEX_RE = _Lazy(r"[0-9a-f]+|[0-9A-F]+", _FLAGS)
_WORDY_RE = _Lazy(r"[A-Za-z_.-]+", _FLAGS)
_DIGITS = frozenset("0123456789")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LETTERS = _LOWER | _UPPER
_CAPS_WORD = _UPPER | {"_"}     # ``PASSWORD``, ``MY_PW``: a placeholder or a variable's name, not a value


def _entropy(s: str) -> float:
    """Shannon entropy of ``s`` in bits per character."""
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _looks_secret(v: str) -> bool:
    """True when an assigned value looks like a credential rather than code or prose.

    Conservative: identifiers and dotted names (``tokens``, ``self.secret``,
    ``nextToken2``), paths, URLs, numbers, ``$VAR``/``%s``/``{x}`` references and
    placeholders (``your_token``, ``xxxx``, ``changeme``) are not secrets.  A
    value needs letters mixed with digits or symbols and a character entropy
    typical of random strings (>= 3 bits/char); an identifier-shaped value
    needs more (mixed case, >= 2 digits, >= 12 chars, >= 3.3 bits/char).
    """
    n = len(v)
    if n < 8 or n > 4096 or v[0] in "$%/~.#{" or _WORDY_RE.fullmatch(v):
        return False                       # identifiers, dotted names, words joined by - or .
    chars = set(v)
    if len(chars) < 8 or chars.isdisjoint(_LETTERS):
        return False                       # < 3 bits/char; numbers, dates, punctuation
    if "://" in v or _PLACEHOLDER_RE.search(v):
        return False
    if _IDENT_RE.fullmatch(v):
        # identifier-shaped (so with digits): code (``token2``, ``api_key_v2``) unless
        # it reads as random (hex digests, mixed-case keys with several digits)
        digits = sum(c in _DIGITS for c in v)
        if n >= 16 and digits >= 2 and _HEX_RE.fullmatch(v):
            return _entropy(v) >= 3.0
        return (n >= 12 and digits >= 2 and not chars.isdisjoint(_UPPER) and not chars.isdisjoint(_LOWER)
                and _entropy(v) >= 3.3)
    return _entropy(v) >= 3.0


_SNAKE_RE = _Lazy(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", _FLAGS)
_NOT_VALUES = frozenset({"none", "null", "nil", "true", "false", "undefined", "required", "optional",
                         "string", "str", "bytes", "int", "text", "hidden", "empty", "unset", "secret",
                         "password", "passwd", "passphrase", "token"})


def _looks_assigned(v: str, *, password: bool, quoted: bool) -> bool:
    """True when a value assigned to a credential keyword is a credential even
    though it does not look random (:func:`_looks_secret` missed it): a human
    password (``password=hunter2``, ``PGPASSWORD=mydbpass99``), a short
    ``token=abc123def456``.  Letters with digits or symbols, at least 6
    characters after a password keyword (``password``, ``passwd``,
    ``passphrase``, ``pwd``) and 8 after the others; or, after a password
    keyword, any quoted string literal of 4+ characters (a hard-coded
    password, as bandit's B105 flags it).  Never: references (``$X``,
    ``%s``, ``{x}``), paths and URLs, placeholders, words and dotted names
    without digits (code: ``password=password``, ``token=self.token``),
    snake_case identifiers (``next_token2``, ``api_key_v2``), literals such
    as ``None`` or ``true``."""
    n = len(v)
    if n < 4 or n > 4096 or v[0] in "$%/~.#{" or "/" in v or "://" in v or _PLACEHOLDER_RE.search(v):
        return False
    if v.lower() in _NOT_VALUES or v.isdigit():
        return False
    if quoted and password:
        return True
    if n < (6 if password else 8) or _WORDY_RE.fullmatch(v) or _SNAKE_RE.fullmatch(v):
        return False
    chars = set(v)
    return not chars.isdisjoint(_LETTERS) and not (chars <= _LETTERS | {"_", "-", "."})


def _not_placeholder(v: str) -> bool:
    """``Authorization: Bearer your-token-here`` is documentation, not a credential."""
    return _PLACEHOLDER_RE.search(v) is None


def _bearer_ok(v: str) -> bool:
    """A bare ``Bearer <x>`` (no Authorization header) counts only when x looks random."""
    v = v.rstrip("=")
    return (len(v) >= 20 and any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
            and _entropy(v) >= 3.0 and not _PLACEHOLDER_RE.search(v))


_URL_PW_WORDS = frozenset({"pass", "password", "passwd", "pwd", "pw", "secret", "token", "changeme"})


def _url_password_ok(v: str) -> bool:
    """Skip ``$VAR``/``%(x)s``/``<password>``/``{pw}`` placeholders and the words
    docs use in their place (``user:pass@``, ``joe:password@``); keep the rest."""
    return not (v.startswith(("$", "%", "<", "{", "*")) or v.lower() in _URL_PW_WORDS
                or _PLACEHOLDER_RE.search(v))


# ---- generic keyword assignments -------------------------------------------------------
# ``key`` alone is too common (cache_key, primary_key); it counts only as the
# end of api_key / access_key / auth_key / private_key (fixed-width look-behinds).
_KEY_OWNERS = ("api", "access", "auth", "private")
_KW = (r"(?:passw(?:or)?d|passwort|passphrase|pwd|pw(?<![a-z0-9]pw)(?![a-z0-9])|pass(?<=_pass)(?![a-z])|pass(?<![a-z0-9_]pass)(?![a-z0-9])|secret|token|key(?:"
       + "|".join(f"(?<={o}{sep}key)" for o in _KEY_OWNERS for sep in ("", "_", "-")) + "))"
       r"(?:[_-]?(?:key(?:[_-]base)?|token|value))?")   # key_base: Rails' SECRET_KEY_BASE
_ASSIGN = r"(?:\\{0,3}[\"'])?[ \t]{0,8}(?:=>|:=|=|:)[ \t]{0,8}(?:\\{0,3}[\"'`])?"
_VALUE = r"(?:[^\s\"'`\\,;&<>(){}\[\]|]|&(?![&\s]|$|[A-Za-z_][A-Za-z0-9_.\-]{0,64}=))"   # ``&`` inside a value (``Tr0ub4dor&3``), not ``&&`` or ``&next=``
_VALUE_END = r"(?=[\s\"'`\\,;&)}\]>|]|$)"
# over the lowercased text: the head alone, and head and value in one match
# (group 1 the value run, group 2 set when a delimiter or the end follows it)
_GEN_HEAD = _Lazy(_KW + _ASSIGN, _FLAGS)
_GEN_HV = _Lazy(_KW + _ASSIGN + r"(" + _VALUE + r"{0,4096}+)(" + _VALUE_END + r")?", _FLAGS)
_GEN_RUN = _Lazy(_VALUE + r"*+", _FLAGS)


_GEN_ANCHORS = ("pass", "pw", "secret", "token", "key")   # every _KW alternative starts with one


def _find_all(s: str, sub: str, start: int, end: int) -> list[int]:
    out = []
    i = s.find(sub, start, end)
    while i >= 0:
        out.append(i)
        i = s.find(sub, i + 1, end)
    return out


def _occurrences(at, hay: str, shift: int, lits: tuple[str, ...], start: int, end: int) -> list[int]:
    """The sorted offsets in ``hay`` where one of ``lits`` starts, within
    [start, end) (:func:`_find_all`).  ``at``: the window's offsets (a dict:
    lowercase literal -> its offsets in the lowercased window; the set of
    anchors the matcher looked for, or None without it; the lowercased
    window), or None; ``shift``: what to add to such an offset to get one in
    ``hay`` (0 when ``hay`` is the lowercased window, its offset when
    ``hay`` is the text).  An anchor the matcher looked for costs no scan;
    another lowercase literal is looked for once per window, whichever
    scanners ask for it.  Over the original text the offsets may include
    some where only the lowercase form occurs, where no match of a pattern
    starting with that literal can start."""
    if at is None:
        return sorted({p for lit in lits for p in _find_all(hay, lit, start, end)})
    offsets, tracked, low = at
    out: list[int] = []
    for lit in lits:
        found = offsets.get(lit)
        if found is None:
            if tracked is not None and lit in tracked:
                continue                                  # the matcher saw none
            if lit != lit.lower():
                out += _find_all(hay, lit, start, end)
                continue
            found = offsets[lit] = _find_all(low, lit, 0, len(low))
        if found:
            out += [q for p in found if start <= (q := p + shift) and q + len(lit) <= end]
    return sorted(set(out)) if len(lits) > 1 else out


_URL_BREAK = _Lazy(r"[\s\"'`<>]", _FLAGS)


def _in_url(text: str, hs: int, ws: int) -> bool:
    """True when the keyword at ``hs`` sits in the userinfo of a URL (a ``://``
    before it with no blank or quote in between)."""
    i = text.rfind("://", max(ws, hs - 256), hs)
    return i >= 0 and _URL_BREAK.search(text, i, hs) is None


def _scan_generic(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """Keyword heads, then the value after each.  A head is tried only where
    ``str.find`` saw an anchor word in the lowercased window (faster than
    letting ``re`` try every p/s/t/k), with one match for head and value.  A
    head whose value would start inside the value of an earlier head
    (accepted, rejected or unterminated) is skipped, so each value run is read
    once and ``password=password=...`` stays linear; a head that starts inside
    an earlier value but whose own value starts after it
    (``password=PASSWORD: s3cr3t...``) is still looked at."""
    cands = _occurrences(at, low, 0, _GEN_ANCHORS, ws - off, we - off)
    match, head, end = _GEN_HV.match, _GEN_HEAD.match, we - off
    last = -1          # end of the last head (heads do not overlap)
    vend = ws - off    # end of the last value looked at
    for p in cands:
        if p < last:
            continue
        if p < vend:   # inside an earlier value: only its head is read, to see where it ends
            h = head(low, p, end)
            if h is None:
                continue
            last = h.end()
            if last < vend:
                continue
        if (m := match(low, p, end)) is None:
            continue
        s, e = m.span(1)
        last = s
        s += off
        e += off
        if m.group(2) is None:                     # not followed by a delimiter: not a value
            vend = (e if e - s < 4096 else _GEN_RUN.match(text, s, we).end()) - off
            continue
        vend = e - off
        if e - s < 4:
            continue
        at = text.find("@", s, e)
        if at >= 0 and _in_url(text, p + off, ws):
            e = at                         # ``scheme://token:SECRET@host``: the host is not the secret
        v = text[s:e]
        if _looks_secret(v) or _looks_assigned(v, password=low.startswith(("pass", "pw"), p),
                                               quoted=s > 0 and text[s - 1] in "\"'`"):
            out.append((s, e, rule.priority, rule.name))


#: how far (characters) from an AWS access key id an unlabelled secret access key is looked for
_AWS_PAIR_SPAN = 256
_AWS_SECRET_RE = _Lazy(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])", _FLAGS)


def _aws_secret_like(v: str) -> bool:
    """A 40-character token that can be an AWS secret access key and not a
    hex digest (a git commit id, a SHA-1): base64 with both letter cases and
    a digit or ``/`` / ``+``."""
    return (any(c.isupper() for c in v) and any(c.islower() for c in v)
            and any(c.isdigit() or c in "/+" for c in v))


def _scan_aws_pair(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """An unlabelled secret access key beside its key id (``AKIA… wJalr…``,
    a CSV row of the IAM console's ``accessKeys.csv``, two env values on one
    line): every secret-shaped 40-character token within
    :data:`_AWS_PAIR_SPAN` characters of an access key id."""
    for m in rule.pattern.finditer(text, ws, we):
        lo, hi = max(0, m.start() - _AWS_PAIR_SPAN), min(len(text), m.end() + _AWS_PAIR_SPAN)
        for t in _AWS_SECRET_RE.finditer(text, lo, hi):
            if _aws_secret_like(t.group()):
                out.append((t.start(), t.end(), rule.priority, rule.name))


def _r(name, source, pattern, *, ci=False, priority=10, check=None, scan=None, anchors=None) -> Rule:
    """A :class:`Rule`; its anchors are ``anchors``, else a :func:`_tok` pattern's prefixes."""
    return Rule(name, source, pattern, ci, priority, check, scan, anchors or getattr(pattern, "anchors", None))


def _at(*starts: str, leftmost: bool = False, coarse: tuple[str, ...] | None = None) -> Callable[..., None]:
    """A rule's ``scan`` that tries its pattern only where one of ``starts``
    (literals every match begins with: command names or their common
    prefix, keywords) occurs,
    found with ``str.find``, instead of at every offset of the window: a rule
    that begins with an alternation of words has no literal prefix for
    ``re`` to search for, and trying it at every offset of a 256 KB window
    costs a few milliseconds per rule (a find costs microseconds).  The
    pattern's look-behinds still see the text before each start.  Matches
    may overlap (a start inside a match whose value the check refused is
    tried again); :func:`_find` merges them.  ``leftmost=True``: the matches
    of ``pattern.finditer`` exactly (each search resumes at the end of the
    last match, accepted or not), only found faster.  ``coarse``: shorter
    literals, one of which every start begins with, looked for instead
    without the matcher (fewer scans, more tries)."""
    def scan(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
        if rule.lowered is not None:
            hay, o, match = low, off, rule.lowered.match
        else:
            hay, o, match = text, 0, rule.pattern.match
        s0, e0 = ws - o, we - o
        grouped = "secret" in rule.pattern.groupindex
        check = rule.check
        cands = _occurrences(at, hay, off - o, coarse if coarse and (at is None or at[1] is None) else starts,
                             s0, e0)
        done = s0      # end of the last accepted match (of any match: leftmost): a start inside it is not tried
        for p in cands:
            if p < done or (m := match(hay, p, e0)) is None:
                continue
            if leftmost:
                done = m.end()
            s, e = m.span("secret") if grouped else m.span()
            if s < 0 or s == e:
                continue
            if check is not None and not check(text[s + o:e + o]):
                continue
            out.append((s + o, e + o, rule.priority, rule.name))
            done = m.end()
    scan.leftmost, scan.starts = leftmost, starts
    return scan


# ---- passwords in plain words and on mysql command lines ----------------------------
_PHRASE_PIN_RE = _Lazy(r"[0-9]{4,12}", _FLAGS)


def _phrase_secret(v: str) -> bool:
    """The token after ``password is`` looks like a password, not a word of
    prose (``the password is stored in vault``, ``password is required``):
    at least 6 characters, not a placeholder, and a digit, a symbol, or an
    upper-case letter after the first character (``hunterUniq2024``,
    ``HookNatPw0``, ``s3cret!``)."""
    if len(v) < 6 or v.startswith(("$", "%", "<", "{", "*")) or _PLACEHOLDER_RE.search(v):
        return False
    return any(c.isdigit() or not c.isalnum() for c in v) or (
        any(c.isupper() for c in v[1:]) and any(c.islower() for c in v))


def _pin_ok(v: str) -> bool:
    """``my pin is 4821``: a PIN is 4 to 12 digits (``the LED pin is GPIO17`` is hardware)."""
    return _PHRASE_PIN_RE.fullmatch(v) is not None


def _mysql_password_ok(v: str) -> bool:
    """``-p$MYSQL_PWD`` / ``-p<password>`` / ``-p****`` are placeholders."""
    return not (v.startswith(("$", "%", "<", "{", "*")) or _PLACEHOLDER_RE.search(v))


# ``password is X``, ``my db passphrase was X``, ``the password is now: X``, over the lowercased
# text; the token ends before trailing sentence punctuation (``... is hunter2024.``).
_PHRASE_VERB_BARE = (r"[ \t]{1,4}(?:is|was)(?:[ \t]{1,4}(?:now|still|set[ \t]{1,4}to|changed[ \t]{1,4}to))?"
                     r"[ \t]{0,4}:?[ \t]{1,4}")
_PHRASE_VERB = _PHRASE_VERB_BARE + r"[\"'`]?"
_PHRASE_TOKEN = r"[^\s\"'`]{0,127}?[^\s\"'`.,;:!?)\]]" + r"(?=[.,;:!?)\]]*(?:[\s\"'`]|$))"
# mysql / mysqldump / mariadb ... -pSECRET (the password attached to -p; ``-p`` alone prompts,
# ``-P 3306`` is the port); the command and -p on one line, before any ; | &.
_MYSQL_CMD = (r"(?:mysql(?<![A-Za-z0-9_.\-]mysql)|mariadb(?<![A-Za-z0-9_.\-]mariadb))"
              r"(?:dump|admin|import|show|check|pump|slap|sh|-dump|-admin|-import|-show|-check|-slap)?+"
              r"(?![A-Za-z0-9_.])[^\n\r;|&]{0,512}?[ \t]-p[\"']?"
              r"(?P<secret>[^\s\"'`;&|<>()]{1,256}+)")

# ---- passwords passed to a command on its command line ------------------------------
# An argument: optionally quoted, up to a blank, quote or shell operator.
_ARG = r"[\"']?(?P<secret>[^\s\"'`;&|<>()]{1,256}+)"
_WORD = r"[\"']?[^\s;|&\"']{1,256}+[\"']?"            # one positional argument
_FLAGS_RUN = r"(?:[ \t]{1,4}-[A-Za-z]{1,8}+){1,4}+"   # a command's short-option clusters, bounded


def _flags_with(letter: str) -> str:
    """A look-ahead body: one of the next (at most 4) option clusters holds ``letter``."""
    return r"(?:[ \t]{1,4}-[A-Za-z]{1,8}+){0,3}[ \t]{1,4}-[A-Za-z]{0,7}" + letter


_ARGS_BEFORE = r"[^\n\r;|&]{0,256}?[ \t]"          # the command's other arguments, on the same command
_OPENSSL_SOURCES = ("env:", "file:", "fd:", "stdin")


def _cli_secret_ok(v: str) -> bool:
    """A password given as a command-line argument, not a reference to one
    (``$PW``, ``%s``, ``<password>``, ``{pw}``, ``****``), another option
    (``-u``), a placeholder word (``PASSWORD``, ``changeme``, ``your-pass``)
    or an openssl pass-phrase source (``env:VAR``, ``file:path``, ``fd:3``,
    ``stdin``)."""
    if v.startswith(("$", "%", "<", "{", "*", "-")) or v.startswith(_OPENSSL_SOURCES):
        return False
    low = v.lower()
    return not (low in _URL_PW_WORDS or low in _NOT_VALUES or _PLACEHOLDER_RE.search(v)
                or set(v) <= _CAPS_WORD)


def _cmd(*names: str) -> str:
    """``(?:n1(?<!Xn1)|n2(?<!Xn2)...)``: a command name on a word boundary."""
    return "(?:" + "|".join(f"{re.escape(n)}(?<![A-Za-z0-9_.\\-]{re.escape(n)})" for n in names) + r")(?![A-Za-z0-9_.\-])"


def _cmd_family(prefix: str, *suffixes: str, optional: bool = True) -> str:
    """``prefix(?:s1|s2...)`` as a command name on a word boundary, written so
    the pattern starts with one literal (``re`` then finds it with its fast
    literal search): ``_cmd_family("mongo", "sh", "dump")`` is mongo, mongosh
    or mongodump; ``optional=False``: a suffix is required."""
    alts = "|".join(map(re.escape, suffixes))
    return (f"{re.escape(prefix)}(?<![A-Za-z0-9_.\\-]{re.escape(prefix)})(?:{alts})" + ("?" if optional else "")
            + r"(?![A-Za-z0-9_.\-])")


def _bare_password_ok(v: str) -> bool:
    """``I'll use password UpstreamPw777`` (no ``is``, no ``=``): only a token
    that cannot be a word of prose: 8+ characters, letters with digits, and a
    capital or a symbol; not an identifier in snake_case, not a placeholder."""
    return (len(v) >= 8 and any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
            and any(c.isupper() or not c.isalnum() for c in v) and not _SNAKE_RE.fullmatch(v.lower())
            and _cli_secret_ok(v))


def _quoted_phrase_ok(v: str) -> bool:
    """``the passphrase is "purple monkey dishwasher"``: any quoted value of 4+
    characters that is not a placeholder or a type word (``"required"``)."""
    v = v.strip()
    return len(v) >= 4 and v.lower() not in _NOT_VALUES and not _PLACEHOLDER_RE.search(v) \
        and not v.startswith(("$", "%", "{"))


# ---- more passwords on command lines, in here-strings, in SQL and in chat (redact6) ------------
def _net_secret_ok(v: str) -> bool:
    """``net user bob <password>``: not an option (``/add``, ``/delete``,
    ``/domain``) and not ``*`` (prompt), nor a reference or a placeholder."""
    return not v.startswith("/") and _cli_secret_ok(v)


def _pair_password_ok(v: str) -> bool:
    """The password of ``login admin / Pw!2024x``: looks like a password
    (:func:`_phrase_secret`) and is not a path, an option or a reference
    (``/``, ``-``, ``$``)."""
    return "/" not in v and not v.startswith("-") and _phrase_secret(v) and _cli_secret_ok(v)


def _sql_literal_ok(v: str) -> bool:
    """A password string literal in SQL: 3+ characters, not a placeholder, a
    reference (``$1``, ``:pw``, ``%s``, ``?``) or a stored hash (``*6BB4…``)."""
    return (len(v) >= 3 and not v.startswith(("$", "%", "<", "{", "*", ":", "?"))
            and v.lower() not in _NOT_VALUES and not _PLACEHOLDER_RE.search(v))


def _sql_bare_ok(v: str) -> bool:
    """Oracle's unquoted ``IDENTIFIED BY <password>``: only a token that cannot
    be prose (``identified by email`` is a sentence): :func:`_phrase_secret`
    and not a keyword (``VALUES``, ``PASSWORD``, ``RANDOM``)."""
    return v.lower() not in ("values", "password", "random", "externally", "globally") and \
        _phrase_secret(v) and _cli_secret_ok(v)


# Credential words that introduce a 'user / password' pair in chat ('login admin / Pw!2024x',
# 'creds: admin / Pw!2024x'), over the lowercased text; each alternative starts on a word boundary.
_PAIR_WORDS = ("login", "log in", "log-in", "logon", "sign in", "signin", "sign-in", "creds", "cred",
               "credentials", "credential", "user/pass", "user / pass", "username/password",
               "username / password", "user/password")
#: literals every _PAIR_WORDS word starts with (the stdlib prefilter tests them as log, sign, cred, user)
_PAIR_STARTS = ("login", "log in", "log-in", "logon", "sign in", "signin", "sign-in", "cred", "user/", "user /",
                "username")
_PAIR_COARSE = ("log", "sign", "cred", "user")   # without the matcher: 4 scans, not 11
_PAIR_HEAD = ("(?:" + "|".join(f"{re.escape(w)}(?<![a-z0-9_\\-\\]]{re.escape(w)})" for w in _PAIR_WORDS)
              + r")(?:word)?s?(?![a-z0-9_])"
              r"(?:[ \t]{0,4}(?::|=|is|are|was|were|with|as|using)(?![a-z0-9_])){0,2}[ \t]{0,4}")
# the user: starts with a letter (a fraction's '1 / 2' is not a pair), no blank, slash or colon
# and is not a noun of the login UI or of a bug report ('the login page / Dashboard2024 view')
_PAIR_NOT_USER = ("page", "screen", "form", "button", "flow", "url", "link", "view", "prompt", "box", "field",
                  "endpoint", "route", "api", "handler", "logic", "code", "test", "module", "service", "step",
                  "issue", "bug", "error", "fail", "work", "success", "attempt", "request", "session", "token",
                  "method", "option", "dialog", "modal", "window", "component", "feature", "check", "and", "or")
_PAIR_USER = (r"(?!(?:" + "|".join(_PAIR_NOT_USER) + r")(?:s|es|ed|ing)?[ \t/:])"
              r"[\"'`]?[a-z][a-z0-9_.@+\\\-]{0,63}+[\"'`]?")
# 'sudo -S' / 'passwd' / ... read the password from standard input: a here-string feeds it
_SUDO_S = r"sudo(?<![A-Za-z0-9_.\-]sudo)(?:[ \t]{1,4}-[A-Za-z]{1,8}+){0,4}?[ \t]{1,4}-[A-Za-z]{0,7}S"
_STDIN_PW_CMDS = ("(?:" + _SUDO_S + "|" + _cmd("passwd", "smbpasswd", "kinit")
                  + r"|--password-stdin(?![A-Za-z0-9_\-])|--passphrase-fd[ \t=]0(?![0-9]))")
_HERE = r"[^\n\r;|&<]{0,256}?<<<[ \t]{0,4}(?:\$(?=['\"]))?[\"']?"
_HERE_SECRET = r"(?P<secret>[^\s\"'`;&|<>()]{1,256}+)"


# ---- redact7 helpers ------------------------------------------------------------------
_AZURE_KEY_WORDS = ("accountkey", "sharedaccesskey", "azure_storage_key", "azure_storage_account_key",
                    "--account-key")
#: the azure-storage-key rule's anchors: each holds ``key``, a gate other rules test anyway, so the
#: stdlib prefilter scans them only where ``key`` occurs
_AZURE_ANCHORS = ("accountkey", "sharedaccesskey", "_key", "--account-key")
#: the accounts whose 'X pass is <token>' is a password ('the vpn pass is ...'), not a pass of a program
_PASS_OWNERS = ("vpn", "wifi", "wi-fi", "wlan", "my", "admin", "root", "login", "account", "db", "database",
                "ssh", "sudo", "server", "router", "email", "mail", "portal", "user", "app", "vault", "ftp",
                "sftp", "smtp", "imap", "laptop", "bios", "door", "alarm", "master")
#: words of prose or configuration docs: a 'passphrase: ...' holding one is not a passphrase
_PROSE_WORDS = frozenset((
    "a an the is are was were be been not no none null nil set unset empty required optional see use used "
    "using in on of for to from by with without and or but if then when it its this that these those your "
    "my our their his her you we they stored kept read taken given env envvar variable file vault "
    "keychain keyring prompt prompted ask asked same as above below here there default blank yes true "
    "false todo tbd needed must should will can may".split()))


def _mixed_case(v: str) -> bool:
    """A random token has both letter cases (``hf_`` + 34 random letters);
    an identifier such as ``hf_downloadconfigurationresolver...`` has one."""
    return any(c.isupper() for c in v) and any(c.islower() for c in v)


def _sas_sig_ok(v: str) -> bool:
    """A SAS signature is URL-encoded base64 of 32 bytes: long, random
    (a digit or ``%``, both cases), not a reference (``$SIG``) or a placeholder."""
    return (len(v) >= 30 and any(c.isdigit() or c == "%" for c in v) and _mixed_case(v)
            and not _PLACEHOLDER_RE.search(v))


def _pair_slash_ok(v: str) -> bool:
    """The password of ``login admin/Pw!2024x`` (no blanks around the
    slash, so a path is likelier than with them): 6+ characters, letters
    and digits, no ``.`` or ``/`` (``users/groups.py``, ``api/v2/login``),
    and a password by :func:`_pair_password_ok`."""
    return (len(v) >= 6 and "." not in v and any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
            and _pair_password_ok(v))


def _word_passphrase_ok(v: str) -> bool:
    """``passphrase: correct horse battery staple``: 3+ words, none a word
    of prose or docs (``not set``, ``see the vault``, ``stored in the
    keychain``) nor a placeholder."""
    words = v.lower().replace("-", " ").split()
    return len(words) >= 3 and not any(w in _PROSE_WORDS for w in words) and not _PLACEHOLDER_RE.search(v)


_AUTH_HDR = r"authorization\\{0,3}[\"']?[ \t]{0,8}[:=][ \t]{0,8}\\{0,3}[\"']?[ \t]{0,8}"

RULES: list[Rule] = [
    _r("gcp-service-account",
       "Google Cloud IAM, service account key file: JSON whose 'private_key' is a PKCS#8 PEM "
       "https://cloud.google.com/iam/docs/keys-create-delete",
       r"private_key\\{0,3}\"[ \t]{0,8}:[ \t]{0,8}\\{0,3}\"(?P<secret>" + _PEM_BODY + ")",
       priority=1, anchors=("private_key",)),
    _r("private-key",
       "RFC 7468 (PKCS#8 'PRIVATE KEY', 'ENCRYPTED PRIVATE KEY'), PKCS#1 'RSA PRIVATE KEY', "
       "RFC 5915 'EC PRIVATE KEY', OpenSSH PROTOCOL.key 'OPENSSH PRIVATE KEY', "
       "RFC 4880 s6.2 'PGP PRIVATE KEY BLOCK'",
       _PEM_BODY, priority=2, scan=_scan_pem, anchors=("-----begin ", "-----end ")),
    _r("aws-access-key-id",
       "AWS IAM User Guide, 'Unique identifiers' (AKIA access key, ASIA temporary STS key, ABIA, ACCA) "
       "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html",
       _tok(("AKIA", "ASIA", "ABIA", "ACCA"), r"[A-Z0-9]{16}")),
    _r("aws-secret-access-key",
       "AWS CLI 'Configuration and credential file settings' (aws_secret_access_key, 40 chars) and "
       "STS Credentials.SecretAccessKey https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html "
       "(any 40-char base64 value after secret_access_key / secret_key)",
       r"secret[_-]?(?:access[_-]?)?key"
       r"(?:" + _ASSIGN + r"|[ \t]{1,8})(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
       ci=True, priority=3, anchors=("secret",)),
    _r("aws-secret-access-key",
       "AWS IAM 'Managing access keys' (an access key is a pair: the key id AKIA/ASIA… and a 40-char "
       "secret access key, e.g. the console's accessKeys.csv) "
       "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html "
       "(an unlabelled 40-char base64 value near a key id)",
       _tok(("AKIA", "ASIA", "ABIA", "ACCA"), r"[A-Z0-9]{16}"), priority=4, scan=_scan_aws_pair),
    _r("gcp-api-key",
       "Google Cloud 'Manage API keys' (AIza + 35 chars) https://cloud.google.com/docs/authentication/api-keys",
       _tok(("AIza",), r"[A-Za-z0-9_-]{35}")),
    _r("github-token",
       "GitHub 'About authentication: GitHub's token formats' (ghp_ PAT, gho_ OAuth, ghu_ user-to-server, "
       "ghs_ server-to-server, ghr_ refresh; 36 chars now, up to 255 announced) "
       "https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/",
       _tok(("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"[A-Za-z0-9]{36,251}+")),
    _r("github-fine-grained-pat",
       "GitHub fine-grained personal access tokens: github_pat_ + 22 + '_' + 59 chars "
       "https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/"
       "managing-your-personal-access-tokens",
       _tok(("github_pat_",), r"[A-Za-z0-9_]{22,255}+")),
    _r("gitlab-token",
       "GitLab 'Token overview: token prefixes' (glpat- personal/project/group, gldt- deploy, glrt- runner, "
       "glptt- trigger, glft- feed, gloas- OAuth secret, glcbt- CI job, glagent-, glimt-, glsoat-, glffct-; "
       "routable tokens end .<version>.<crc>) https://docs.gitlab.com/ee/security/tokens/",
       _tok(("glpat-", "gldt-", "glrt-", "glptt-", "glft-", "gloas-", "glcbt-", "glagent-", "glimt-",
             "glsoat-", "glffct-"), r"[A-Za-z0-9_-]{20,255}+(?:\.[A-Za-z0-9_-]{1,64}+){0,2}")),
    _r("slack-token",
       "Slack 'Token types' (xoxb- bot, xoxp- user, xoxa-/xoxr- access/refresh, xoxe- config, "
       "xoxc-/xoxd-/xoxs- session, xapp- app-level) https://api.slack.com/authentication/token-types",
       _tok(("xoxa-", "xoxb-", "xoxc-", "xoxd-", "xoxe-", "xoxo-", "xoxp-", "xoxr-", "xoxs-", "xoxe.xoxp-",
             "xapp-"), r"[A-Za-z0-9-]{10,250}+")),
    _r("slack-webhook",
       "Slack 'Sending messages using incoming webhooks' (https://hooks.slack.com/services/T../B../secret) "
       "https://api.slack.com/messaging/webhooks",
       r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/+-]{8,256}+)",
       anchors=("hooks.slack.com/",)),
    *(_r("stripe-key",
         "Stripe 'API keys' (sk_live_/sk_test_ secret, rk_live_/rk_test_ restricted; up to 255 chars) "
         "https://docs.stripe.com/keys",
         _tok((prefix,), r"[A-Za-z0-9]{10,247}+"))
      # one rule per prefix: each then starts with a literal that re scans for fast
      for prefix in ("sk_live_", "sk_test_", "rk_live_", "rk_test_")),
    _r("stripe-key",
       "Stripe 'Check webhook signatures': endpoint signing secret whsec_ + base64 "
       "https://docs.stripe.com/webhooks",
       _tok(("whsec_",), r"[A-Za-z0-9+/=]{24,128}+")),
    _r("npm-token",
       "npm 'About access tokens' / GitHub blog 'npm's new access token format' (npm_ + 36 chars) "
       "https://github.blog/2021-09-23-announcing-npms-new-access-token-format/",
       _tok(("npm_",), r"[A-Za-z0-9]{36}")),
    _r("mem-key",
       "mem MCP server keys: memk_ + 43 base64url characters (256 random bits), docs/mcp.md",
       _tok(("memk_",), r"[A-Za-z0-9_-]{43}")),
    # ---- redact7: vendor tokens that were stored in clear ----
    _r("huggingface-token",
       "Hugging Face 'User access tokens' (hf_ + 34 letters) https://huggingface.co/docs/hub/security-tokens",
       _tok(("hf_",), r"[A-Za-z0-9]{34,40}+"), check=_mixed_case),
    _r("sendgrid-key",
       "Twilio SendGrid 'API Keys': SG. + 22-character key id + . + 43-character secret (69 characters) "
       "https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys",
       _tok(("SG.",), r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}")),
    _r("digitalocean-token",
       "DigitalOcean token prefixes: dop_v1_ personal access token, doo_v1_ OAuth token, dor_v1_ refresh token, "
       "+ 64 hex https://docs.digitalocean.com/reference/api/create-personal-access-token/",
       _tok(("dop_v1_", "doo_v1_", "dor_v1_"), r"[a-f0-9]{64}"), anchors=("_v1_",)),   # one gate, not "do"
    _r("shopify-token",
       "Shopify access tokens: shpat_ Admin API access token, shpca_ custom app, shppa_ private app, shpss_ "
       "shared secret, + 32 hex https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens",
       _tok(("shpat_", "shpca_", "shppa_", "shpss_"), r"[a-fA-F0-9]{32}")),
    _r("discord-webhook",
       "Discord 'Webhook Resource': Execute Webhook POST /webhooks/{webhook.id}/{webhook.token} (the token "
       "is the credential; discord.com, discordapp.com, ptb./canary.) "
       "https://discord.com/developers/docs/resources/webhook#execute-webhook",
       r"(?i:discord(?:app)?\.com/api/(?:v[0-9]{1,2}/)?webhooks/)[0-9]{15,21}/(?P<secret>[A-Za-z0-9_-]{32,128}+)",
       anchors=("discord",)),
    _r("azure-storage-key",
       "Azure Storage 'Configure a connection string' (AccountKey=<88-character base64 account key>), "
       "Service Bus / Event Hubs 'SharedAccessKey=<base64>', AZURE_STORAGE_KEY and az '--account-key' "
       "https://learn.microsoft.com/en-us/azure/storage/common/storage-configure-connection-string "
       "https://learn.microsoft.com/en-us/cli/azure/storage/container",
       r"(?:accountkey|sharedaccesskey|azure_storage_key|azure_storage_account_key|--account-key)"
       r"(?:\\{0,3}[\"'])?[ \t]{0,8}(?:[:=]|(?<=key)[ \t])[ \t]{0,8}(?:\\{0,3}[\"'])?"
       r"(?P<secret>[A-Za-z0-9+/]{40,128}+={0,2})(?![A-Za-z0-9+/=])",
       ci=True, priority=8, anchors=_AZURE_ANCHORS, scan=_at(*_AZURE_KEY_WORDS, leftmost=True)),
    _r("azure-sas-token",
       "Azure Storage 'Create a service SAS' / 'Create an account SAS': the signature field sig=<URL-encoded "
       "base64 HMAC-SHA256> of a SAS token or SAS URL "
       "https://learn.microsoft.com/en-us/rest/api/storageservices/create-service-sas",
       r"[sS][iI][gG]=(?<=[?&;][sS][iI][gG]=)(?P<secret>[A-Za-z0-9%+/=_-]{20,512}+)", check=_sas_sig_ok, anchors=("sig=",)),
    _r("anthropic-key",
       "Anthropic API 'Authentication' (x-api-key: sk-ant-api03-..., admin keys sk-ant-admin01-, "
       "OAuth sk-ant-oat01-) https://docs.anthropic.com/en/api/overview",
       _tok(("sk-ant-",), r"[A-Za-z0-9_-]{20,400}+"), priority=9),
    _r("openai-key",
       "OpenAI API reference 'Authentication' (project keys sk-proj-, service accounts sk-svcacct-, admin "
       "sk-admin-, legacy user keys sk- + 48 chars) https://platform.openai.com/docs/api-reference/authentication",
       _tok(("sk-",), r"(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,400}+|[A-Za-z0-9]{48})")),
    _r("jwt",
       "RFC 7519 s3 / RFC 7515 s7.1 JWS compact serialization: base64url(header).base64url(payload).sig; "
       "header and claims are JSON objects, so both segments begin 'eyJ'",
       _tok(("eyJ",), r"[A-Za-z0-9_-]{5,8192}+\.eyJ[A-Za-z0-9_-]{5,16384}+\.[A-Za-z0-9_-]{0,8192}+",
            lbc=r"[A-Za-z0-9_+.\-\]]"),
       priority=20),
    _r("url-password",
       "RFC 3986 s3.2.1 userinfo 'user:password@host' (deprecated, still used in git remotes and DSNs)",
       r"://[^\s:/?#@\[\]\"'<>{}\\|`]{0,128}+:(?P<secret>[^\s/?#@\[\]\"'<>{}\\|`]{1,256}+)@",
       priority=30, check=_url_password_ok, anchors=("://",)),
    _r("basic-auth",
       "RFC 7617 s2 'Authorization: Basic base64(user-id:password)'",
       _AUTH_HDR + r"basic[ \t]{1,8}(?P<secret>[A-Za-z0-9+/]{4,4096}+={0,2})",
       ci=True, priority=40, check=_not_placeholder, anchors=("authorization",)),
    _r("bearer-token",
       "RFC 6750 s2.1 'Authorization: Bearer b64token' (also GitHub's 'Authorization: token ...')",
       _AUTH_HDR + r"(?:bearer|token)[ \t]{1,8}(?P<secret>[A-Za-z0-9._~+/-]{8,8192}+=*)",
       ci=True, priority=40, check=_not_placeholder, anchors=("authorization",)),
    _r("bearer-token",
       "RFC 6750 s2.1 b64token after a bare 'Bearer ' (no header name): only random-looking values",
       r"bearer(?<![A-Za-z0-9_\-\]]bearer)[ \t]{1,4}(?P<secret>[A-Za-z0-9._~+/-]{20,8192}+=*)",
       ci=True, priority=41, check=_bearer_ok, anchors=("bearer",)),
    _r("generic-secret",
       "keyword heuristics (no vendor format): password/passwd/pwd/passphrase/secret/token/api_key/"
       "access_key/auth_key/private_key = or : value, where the value looks random (_looks_secret)",
       _KW + _ASSIGN + r"(?P<secret>" + _VALUE + r"{8,4096}+)" + _VALUE_END,
       ci=True, priority=50, check=_looks_secret, scan=_scan_generic, anchors=_GEN_ANCHORS),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'my password/passwd/passphrase is|was <token>' in plain "
       "words, where the token looks like a password (_phrase_secret)",
       r"passw(?<![A-Za-z0-9_\-\]]passw)(?:or)?d(?:[ \t]{1,4}for[ \t]{1,4}[^\s]{1,64}?)?" + _PHRASE_VERB
       + r"(?P<secret>" + _PHRASE_TOKEN + ")",
       ci=True, priority=51, check=_phrase_secret, anchors=("passw",)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'my passphrase is <token>'",
       r"passphrase(?<![A-Za-z0-9_\-\]]passphrase)" + _PHRASE_VERB + r"(?P<secret>" + _PHRASE_TOKEN + ")",
       ci=True, priority=51, check=_phrase_secret, anchors=("passphrase",)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'my pin is <4-12 digits>'",
       r"pin(?<![A-Za-z0-9_\-\]]pin)(?:[ \t]{1,4}(?:code|number))?" + _PHRASE_VERB + r"(?P<secret>" + _PHRASE_TOKEN + ")",
       ci=True, priority=51, check=_pin_ok, anchors=("pin",)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'the secret/token/api key is <token>'",
       r"(?:secret(?<![A-Za-z0-9_\-\]]secret)|token(?<![A-Za-z0-9_\-\]]token)"
       r"|api[ _-]?key(?<![A-Za-z0-9_\-\]]api[ _-]key)|access[ _-]?key)" + _PHRASE_VERB
       + r"(?P<secret>" + _PHRASE_TOKEN + ")",
       ci=True, priority=52, check=_phrase_secret, anchors=("secret", "token", "key"),
       scan=_at("secret", "token", "api", "access", leftmost=True)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'the password/passphrase/secret is \"<quoted words>\"'",
       r"(?:passw(?:or)?d|passphrase|secret)" + _PHRASE_VERB_BARE
       + r"(?P<q>[\"'`])(?P<secret>[^\"'`\n\r]{4,128})(?P=q)",
       ci=True, priority=51, check=_quoted_phrase_ok, anchors=("passw", "passphrase", "secret"),
       scan=_at("passw", "passphrase", "secret", leftmost=True)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'use password <token>' with no verb, only for a token "
       "that cannot be prose (_bare_password_ok)",
       r"passw(?<![A-Za-z0-9_\-\]]passw)(?:or)?d[ \t]{1,4}(?P<secret>[A-Za-z0-9][^\s\"'`]{6,126}?"
       r"[^\s\"'`.,;:!?)\]])(?=[.,;:!?)\]]*(?:[\s\"'`]|$))",
       priority=53, check=_bare_password_ok, anchors=("passw",)),
    _r("cli-password",
       "sshpass(1) '-p password' (the password on the command line) https://linux.die.net/man/1/sshpass",
       _cmd("sshpass") + _ARGS_BEFORE + r"-p[ \t]*" + _ARG,
       priority=45, check=_cli_secret_ok, anchors=("sshpass",)),
    _r("cli-password",
       "registry and cloud logins with '-p|--password <password>': docker/podman/nerdctl/buildah/skopeo/"
       "helm/oras/crane login, az login, oc login, cf login "
       "https://docs.docker.com/reference/cli/docker/login/ https://learn.microsoft.com/cli/azure/reference-index#az-login",
       _cmd("docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane", "az", "oc", "cf")
       + r"[^\n\r;|&]{0,128}?[ \t]login(?![A-Za-z0-9_.\-])" + _ARGS_BEFORE + r"(?:-p|--password)(?:[ \t]+|=)" + _ARG,
       priority=45, check=_cli_secret_ok, anchors=("login",)),
    _r("cli-password",
       "curl(1) '-u, --user <user:password>' and '-U, --proxy-user <user:password>' https://curl.se/docs/manpage.html",
       _cmd("curl") + _ARGS_BEFORE + r"(?:-u|--user|-U|--proxy-user)(?:[ \t]+|=)?[\"']?[^\s:\"'`]{1,128}:"
       r"(?P<secret>[^\s\"'`;&|<>()]{1,256}+)",
       priority=45, check=_cli_secret_ok, anchors=("curl",)),
    _r("cli-password",
       "redis-cli '-a <password>' / '--pass <password>' (https://redis.io/docs/latest/develop/tools/cli/)",
       _cmd("redis-cli", "valkey-cli", "keydb-cli") + _ARGS_BEFORE + r"(?:-a|--pass)(?:[ \t]+|=)" + _ARG,
       priority=45, check=_cli_secret_ok, anchors=("-cli",)),
    _r("cli-password",
       "openssl(1) '-k password' and '-pass|-passin|-passout pass:password' (openssl-passphrase-options(1); "
       "env:, file:, fd:, stdin are sources, not passwords) https://docs.openssl.org/master/man1/openssl-passphrase-options/",
       _cmd("openssl") + _ARGS_BEFORE + r"(?:-k|-pass|-passin|-passout|-password)[ \t]+[\"']?(?:pass:)?"
       r"(?P<secret>[^\s\"'`;&|<>()]{1,256}+)",
       priority=45, check=_cli_secret_ok, anchors=("openssl",)),
    _r("cli-password",
       "htpasswd(1) '-b' batch mode: 'htpasswd -b passwdfile user password', 'htpasswd -nb user password' "
       "https://httpd.apache.org/docs/2.4/programs/htpasswd.html",
       # -n prints instead of writing a file: one positional (user) before the password, else two
       _cmd("htpasswd") + r"(?=" + _flags_with("b") + r")(?:(?=" + _flags_with("n") + r")" + _FLAGS_RUN
       + r"[ \t]{1,4}" + _WORD + r"|(?!" + _flags_with("n") + r")" + _FLAGS_RUN + r"[ \t]{1,4}" + _WORD
       + r"[ \t]{1,4}" + _WORD + r")[ \t]{1,4}" + _ARG,
       priority=45, check=_cli_secret_ok, anchors=("htpasswd",)),
    _r("cli-password",
       "sudo(8) '-S' reads the password from standard input: 'echo|printf <password> | sudo -S' "
       "https://www.sudo.ws/docs/man/sudo.man/",
       _cmd("echo", "printf") + r"(?:[ \t]+-[neE]+)*[ \t]+" + _ARG + r"[\"']?[ \t]*\|[ \t]*sudo[ \t]+"
       r"(?:-[A-Za-z]+[ \t]+)*?-[A-Za-z]*S",
       priority=45, check=_cli_secret_ok, anchors=("sudo",)),
    _r("cli-password",
       "'--password <password>' / '--passwd' / '--pass' / '--passphrase' (gpg) / '--http-password' ... with a "
       "blank (the '=' form is generic-secret): an "
       "option-argument after a blank, POSIX utility syntax guideline 6 "
       "https://pubs.opengroup.org/onlinepubs/9799919799/basedefs/V1_chap12.html",
       r"--(?:(?:http|https|ftp|proxy|db|admin|root|user|new|old|store|key|bind)-)?pass(?:w(?:or)?d|phrase)?[ \t]+"
       + _ARG,
       priority=46, check=_cli_secret_ok, anchors=("-pass",)),
    _r("mysql-password",
       "MySQL 'Command Options for Connection Establishment' --password[=password], -p[password] (no space: "
       "the password; -p alone prompts) https://dev.mysql.com/doc/refman/8.0/en/connection-options.html",
       _MYSQL_CMD, priority=45, check=_mysql_password_ok, anchors=("mysql", "mariadb")),
    # ---- redact6: more command-line, here-string, SQL and chat forms ----
    _r("cli-password",
       "MongoDB shell and database tools '-p, --password <password>' (mongosh: '-p' alone prompts; the tools "
       "take '--password=<password>, -p=<password>') https://www.mongodb.com/docs/mongodb-shell/reference/options/ "
       "https://www.mongodb.com/docs/database-tools/mongodump/",
       _cmd_family("mongo", "sh", "dump", "restore", "export", "import", "stat", "top", "files") + _ARGS_BEFORE
       + r"(?:-p(?:[ \t]+|=)?|--password(?:[ \t]+|=))" + _ARG,
       priority=45, check=_cli_secret_ok, anchors=("mongo",)),
    _r("cli-password",
       "rabbitmqctl(8) 'add_user <username> <password>', 'change_password <username> <newpassword>', "
       "'authenticate_user <username> <password>' (the password omitted: read from standard input) "
       "https://www.rabbitmq.com/docs/man/rabbitmqctl.8",
       _cmd("rabbitmqctl") + _ARGS_BEFORE + r"(?:add_user|change_password|authenticate_user)[ \t]{1,4}" + _WORD
       + r"[ \t]{1,4}" + _ARG,
       priority=45, check=_cli_secret_ok, anchors=("rabbitmqctl",)),
    _r("cli-password",
       "Windows 'net user <username> <password> /add' (the password given; '*' prompts) "
       "https://learn.microsoft.com/en-us/previous-versions/windows/it-pro/windows-server-2012-r2-and-2012/cc771865(v=ws.11)",
       r"net(?<![a-z0-9_.\-]net)[ ]users?[ \t]{1,4}(?:\"[^\"\n\r]{1,64}\"|[^\s/\"*]{1,64}+)[ \t]{1,4}" + _ARG,
       ci=True, priority=45, check=_net_secret_ok, anchors=("net use",)),
    _r("cli-password",
       "Windows 'net use [\\\\computer\\share] [password | *] [/user:[domain\\]user]' (the password after "
       "the share, or after /user:) "
       "https://learn.microsoft.com/en-us/previous-versions/windows/it-pro/windows-server-2012-r2-and-2012/gg651155(v=ws.11)",
       r"net(?<![a-z0-9_.\-]net)[ ]use[ \t]" + _ARGS_BEFORE
       + r"(?:\\\\[^\s\"]{1,256}+|/user:[^\s\"]{1,128}+)[ \t]{1,4}" + _ARG,
       ci=True, priority=45, check=_net_secret_ok, anchors=("net use",)),
    _r("cli-password",
       "a password read from standard input fed by a bash here-string ('<<< word', bash(1) 'Here Strings'): "
       "sudo -S, passwd, smbpasswd, kinit, '--password-stdin', gpg '--passphrase-fd 0' "
       "https://www.gnu.org/software/bash/manual/bash.html#Here-Strings https://www.sudo.ws/docs/man/sudo.man/",
       _STDIN_PW_CMDS + _HERE + _HERE_SECRET,
       priority=45, check=_cli_secret_ok, anchors=("<<<",),
       scan=_at("sudo", "passwd", "smbpasswd", "kinit", "--password-stdin", "--passphrase-fd")),
    _r("cli-password",
       "chpasswd(8) / chgpasswd(8) read 'user:password' lines from standard input: a here-string or "
       "'echo|printf user:password |' feeds them (the name is kept) https://man7.org/linux/man-pages/man8/chpasswd.8.html",
       _cmd("chpasswd", "chgpasswd") + _HERE + r"[^\s:\"'`;&|<>()]{1,64}+:" + _HERE_SECRET,
       priority=45, check=_cli_secret_ok, anchors=("<<<",), scan=_at("chpasswd", "chgpasswd")),
    _r("cli-password",
       "chpasswd(8) / chgpasswd(8) read 'user:password' lines from standard input: "
       "'echo|printf user:password | chpasswd' https://man7.org/linux/man-pages/man8/chpasswd.8.html",
       _cmd("echo", "printf") + r"(?:[ \t]{1,4}-[neE]{1,3}+){0,3}[ \t]{1,4}(?:\$(?='))?[\"']?[^\s:\"'`;&|<>()]{1,64}+:"
       + _HERE_SECRET + r"[\"']?[ \t]{0,4}\|[ \t]{0,4}(?:sudo[ \t]{1,4})?(?:chpasswd|chgpasswd)(?![A-Za-z0-9_.\-])",
       priority=45, check=_cli_secret_ok, anchors=("passwd",), scan=_at("echo", "printf")),
    _r("cli-password",
       "passwd(1) '--stdin' / smbpasswd(8) '-s' / '--password-stdin' read the password from standard "
       "input: 'echo|printf <password> | passwd --stdin' https://man7.org/linux/man-pages/man1/passwd.1.html "
       "https://www.samba.org/samba/docs/current/man-html/smbpasswd.8.html",
       _cmd("echo", "printf") + r"(?:[ \t]{1,4}-[neE]{1,3}+){0,3}[ \t]{1,4}(?:\$(?='))?" + _ARG
       + r"[\"']?[ \t]{0,4}\|[ \t]{0,4}(?:sudo[ \t]{1,4})?(?:(?:passwd|smbpasswd)(?![A-Za-z0-9_.\-])"
       r"|[^\n\r;|&]{0,256}?--password-stdin(?![A-Za-z0-9_\-]))",
       priority=45, check=_cli_secret_ok, anchors=("passwd", "--password-stdin"),
       scan=_at("echo", "printf")),
    # a family with one literal prefix is left to re's literal search; the others are tried only where
    # one of their names is (_at)
    *(_r("cli-password", source, (cmds if isinstance(cmds, str) else _cmd(*cmds)) + _ARGS_BEFORE + opt + _ARG,
         priority=45, check=_cli_secret_ok, anchors=anchors,
         scan=None if isinstance(cmds, str) else _at(*(starts or anchors)))
      for cmds, opt, anchors, source, *starts in (
          (_cmd("sqlcmd"), r"-P[ \t]*", ("sqlcmd",),
           "sqlcmd '-P password' https://learn.microsoft.com/en-us/sql/tools/sqlcmd/sqlcmd-utility"),
          (_cmd_family("ldap", "search", "modify", "add", "delete", "passwd", "whoami", "modrdn", "compare", "exop",
                       "url", optional=False), r"-w[ \t]*", ("ldap",),
           "OpenLDAP ldapsearch(1) '-w passwd' (simple bind password; -W prompts) "
           "https://www.openldap.org/software/man.cgi?query=ldapsearch"),
          (("zip", "unzip", "zipcloak"), r"-P[ \t]*", ("zip", "unzip"),
           "zip(1) '-P password, --password password', unzip(1) '-P password' "
           "https://linux.die.net/man/1/zip https://linux.die.net/man/1/unzip"),
          (_cmd_family("7z", "a", "r", "z"), r"-p", ("7z",),
           "7-Zip '-p{Password}' switch (alone: prompts) https://7-zip.opensource.jp/chm/cmdline/switches/password.htm"),
          (_cmd("keytool"), r"-(?:(?:src|dest)?(?:store|key)pass|new)[ \t]+", ("keytool",),
           "keytool '-storepass', '-keypass', '-srcstorepass', '-deststorepass', '-new' "
           "https://docs.oracle.com/en/java/javase/21/docs/specs/man/keytool.html"),
          (_cmd_family("mosquitto_", "pub", "sub", "rr", optional=False), r"(?:-P|--pw)[ \t]+", ("mosquitto_",),
           "mosquitto_pub(1) '-P, --pw password' https://mosquitto.org/man/mosquitto_pub-1.html"),
          (("plink", "pscp", "psftp", "putty"), r"-pw[ \t]+", ("-pw",),
           "PuTTY 3.11.3.8 '-pw: specify a password' https://the.earth.li/~sgtatham/putty/0.81/htmldoc/Chapter3.html",
           "plink", "pscp", "psftp", "putty"),
          (("xfreerdp", "wlfreerdp", "sdl-freerdp", "sdl-freerdp3", "xfreerdp3"), r"/p:", ("freerdp",),
           "FreeRDP '/p:<password>' https://github.com/FreeRDP/FreeRDP/wiki/CommandLineInterface",
           "xfreerdp", "wlfreerdp", "sdl-freerdp"),
          (_cmd("rdesktop"), r"-p[ \t]*", ("rdesktop",),
           "rdesktop(1) '-p <password>' ('-p -' reads it from standard input) https://linux.die.net/man/1/rdesktop"),
          (("mysqladmin", "mariadb-admin"), r"password[ \t]{1,4}", ("mysqladmin", "mariadb-admin"),
           "mysqladmin 'password new_password' (sets a new password) "
           "https://dev.mysql.com/doc/refman/8.0/en/mysqladmin.html"),
      )),
    _r("cli-password",
       "smbclient(1) '-U|--user=[DOMAIN\\]USERNAME[%PASSWORD]' (smbcacls, smbget the same) "
       "https://www.samba.org/samba/docs/current/man-html/smbclient.1.html",
       _cmd_family("smb", "client", "cacls", "get", "tree", "cquotas", optional=False) + _ARGS_BEFORE
       + r"(?:-U|--user(?:name)?)(?:[ \t]+|=)?[\"']?[^\s%\"'`;&|<>()]{1,128}+%" + _HERE_SECRET,
       priority=45, check=_cli_secret_ok, anchors=("smb",)),
    _r("sql-password",
       "MySQL 'CREATE USER ... IDENTIFIED [WITH plugin] BY 'auth_string'' (ALTER USER, GRANT the same); "
       "Oracle 'IDENTIFIED BY password' https://dev.mysql.com/doc/refman/8.0/en/create-user.html "
       "https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/CREATE-USER.html",
       r"identified(?<![a-z0-9_]identified)(?:[ \t]{1,4}with[ \t]{1,4}[a-z0-9_]{1,64}+)?[ \t]{1,4}by[ \t]{1,4}"
       r"(?P<q>\\{0,3}['\"])(?P<secret>[^'\"\\\n\r]{1,256}+)\\{0,3}(?P=q)",
       ci=True, priority=44, check=_sql_literal_ok, anchors=("identified",)),
    _r("sql-password",
       "Oracle 'CREATE USER u IDENTIFIED BY password' (an unquoted password) "
       "https://docs.oracle.com/en/database/oracle/oracle-database/19/sqlrf/CREATE-USER.html",
       r"identified(?<![a-z0-9_]identified)[ \t]{1,4}by[ \t]{1,4}(?P<secret>[a-z0-9_#$!@%^*+=.\-]{1,128}+)"
       r"(?![^\s;,)])",
       ci=True, priority=44, check=_sql_bare_ok, anchors=("identified",)),
    _r("sql-password",
       "PostgreSQL 'CREATE ROLE|USER ... [WITH] [ENCRYPTED] PASSWORD 'password'' (ALTER ROLE the same); "
       "MySQL 'SET PASSWORD [FOR user] = 'auth_string'' https://www.postgresql.org/docs/current/sql-createrole.html "
       "https://dev.mysql.com/doc/refman/8.0/en/set-password.html",
       r"password(?<![a-z0-9_]password)(?:[ \t]{1,4}for[ \t]{1,4}[^=\n\r;]{1,128}?[ \t]{0,4}=|[ \t]{0,4}=)?"
       r"[ \t]{1,4}(?P<q>\\{0,3}')(?P<secret>[^'\\\n\r]{1,256}+)(?P=q)",
       ci=True, priority=44, check=_sql_literal_ok, anchors=("password",)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'my pw is <token>', 'the pw was <token>'",
       r"pw(?<![a-z0-9_\-\]]pw)" + _PHRASE_VERB + r"(?P<secret>" + _PHRASE_TOKEN + ")",
       ci=True, priority=51, check=_phrase_secret, anchors=("pw",)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): a 'user / password' pair after a credential word "
       "('login admin / Pw!2024x', 'creds: admin / Pw!2024x', 'log in as admin:Pw!2024x'); a path, a "
       "fraction or 'the user / group split' has no credential word before it",
       _PAIR_HEAD + _PAIR_USER + r"(?:[ \t]{1,4}/[ \t]{1,4}|:)[\"'`]?(?P<secret>" + _PHRASE_TOKEN + ")",
       ci=True, priority=51, check=_pair_password_ok, anchors=_PAIR_STARTS,
       scan=_at(*_PAIR_STARTS, coarse=_PAIR_COARSE)),
    # ---- redact7: phrases that were stored in clear ----
    _r("password-phrase",
       "keyword heuristics (no vendor format): a 'user/password' pair with no blanks after a credential word "
       "('login admin/Pw!2024x', 'creds admin/hunter2x9'); only a password with letters and digits and no "
       "'.' or '/' (not 'login users/groups.py')",
       _PAIR_HEAD + _PAIR_USER + r"/[\"'`]?(?P<secret>" + _PHRASE_TOKEN + ")",
       ci=True, priority=51, check=_pair_slash_ok, anchors=_PAIR_STARTS,
       scan=_at(*_PAIR_STARTS, coarse=_PAIR_COARSE)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'the vpn|wifi|admin|root|db... pass is <token>' (a pass of a "
       "named account, not 'the second pass is 2x faster')",
       r"pass(?:" + "|".join(f"(?<={re.escape(w)} pass)" for w in _PASS_OWNERS) + r")(?![a-z0-9_])"
       + _PHRASE_VERB + r"(?P<secret>" + _PHRASE_TOKEN + ")",
       ci=True, priority=51, check=_phrase_secret, anchors=("pass",)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): German 'das Passwort ist|lautet|war <token>'",
       r"passwort(?<![a-z0-9_\-\]]passwort)"
       r"[ \t]{1,4}(?:ist|lautet|war)(?:[ \t]{1,4}(?:jetzt|noch))?[ \t]{0,4}:?[ \t]{1,4}[\"'`]?"
       r"(?P<secret>" + _PHRASE_TOKEN + ")",
       ci=True, priority=51, check=_phrase_secret, anchors=("passwort",)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'passphrase: <several words>' to the end of the line "
       "('passphrase: correct horse battery staple', 'passphrase=correct-horse-battery-staple'), not prose "
       "('passphrase: not set', 'passphrase: see the vault') (_word_passphrase_ok)",
       r"passphrase(?<![a-z0-9_\-\]]passphrase)(?:\\{0,3}[\"'])?[ \t]{0,4}[:=][ \t]{0,4}(?:\\{0,3}[\"'`])?"
       r"(?P<secret>[a-z0-9]{2,24}+(?:(?:-|[ \t]{1,2})[a-z0-9]{2,24}+){2,9})"
       r"(?=[ \t]{0,4}(?:[\"'`,;.!?]|\r|\n|\\[rn]|$))",   # a sentence's end too ('... lamp.')
       ci=True, priority=51, check=_word_passphrase_ok, anchors=("passphrase",)),
]


# --------------------------------------------------------------------------- result


class Hit(NamedTuple):
    """One redacted span: the rule that named it and its [start, end) in the input."""

    rule: str
    start: int
    end: int


class RedactResult(Frozen):
    """Outcome of :func:`redact`.

    Attributes:
        text: the redacted text (the input object itself when nothing matched).
        hits: one :class:`Hit` per ``[REDACTED:...]`` marker, offsets in the input.
    """

    __slots__ = ("text", "hits")

    def __init__(self, text: str, hits: tuple[Hit, ...] = ()) -> None:
        set_fields(self, text, hits)

    @property
    def changed(self) -> bool:
        """True when anything was redacted."""
        return bool(self.hits)

    @property
    def counts(self) -> Counter[str]:
        """Number of redactions per rule name."""
        return Counter(h.rule for h in self.hits)


# --------------------------------------------------------------------------- engine


def _scan_plain(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int) -> None:
    if rule.lowered is not None:
        matches = rule.lowered.finditer(low, ws - off, we - off)
    else:
        matches, off = rule.pattern.finditer(text, ws, we), 0
    check = rule.check
    grouped = "secret" in rule.pattern.groupindex
    for m in matches:
        s, e = m.span("secret") if grouped else m.span()
        if s < 0 or s == e:
            continue
        s += off
        e += off
        if check is not None and not check(text[s:e]):
            continue
        out.append((s, e, rule.priority, rule.name))


def _lower(seg: str) -> str:
    """``seg.lower()`` with the same length: U+0130 (the one character whose
    lowercase is two characters) is lowered as ``I``."""
    low = seg.lower()
    if len(low) != len(seg):
        low = seg.replace("\u0130", "I").lower()
    return low


#: a process that has scanned this many characters loads the optional multi-literal matcher
#: (:func:`_gate_matcher`): loading it costs ~4 ms, more than a hook's prompt scan saves
_FAST_AFTER = 1 << 20
#: [the matcher, or None before it is tried and False when unavailable; characters scanned so far]
_FAST: list = [None, 0]
_RUNS_MAX = 4096   # sets of present gates remembered (each maps to the rules to run)


def _gates(anchors: tuple[str, ...]) -> tuple[str, ...]:
    """The literals a window is tested for (with ``str.__contains__``, the
    stdlib prefilter) before a rule with these anchors
    runs: anchors sharing a prefix of at least 2 characters are tested as that
    prefix (``gh`` for ``ghp_ gho_ …``, ``gl`` for the 11 GitLab prefixes),
    so a window without any of them costs one scan, not one per anchor.
    Every match holds an anchor, so it holds one of these."""
    out: list[str] = []
    for a in sorted(set(anchors)):
        if out:
            prev = out[-1]
            n = 0
            while n < min(len(prev), len(a)) and prev[n] == a[n]:
                n += 1
            if n >= 2:
                out[-1] = prev[:n]
                continue
        out.append(a)
    return tuple(out)


class _Plan:
    """What _scan_window needs, worked out once per ``RULES`` (:func:`_plan`).

    ``entries``: per rule (rule, its own scanner or None, check, priority,
    name).  Two prefilters find which gates occur in a window: the stdlib
    one tests ``tests`` one by one (the gates of :func:`_gates`, shortest
    first, each with the index of the longest other gate it contains or -1:
    when that one is absent, so is this one, and it is not scanned); the
    optional matcher (:func:`_gate_matcher`) finds every anchor of
    ``fast_gates`` (the anchors themselves: more of them cost it nothing,
    and a rule runs only where one of its own anchors occurs) in one pass.
    ``literals``: ``fast_gates``, then the other literals the
    case-insensitive rules' scanners look for; ``tracked``: their set, whose
    offsets the matcher hands the rules' scanners (:func:`_occurrences`).
    ``slow_sets`` / ``fast_sets``: per rule the indices of its gates, or
    None (no anchors: always runs).  ``slow_runs`` / ``fast_runs`` map a
    frozenset of present gate indices to the entries to run, in ``RULES``
    order."""

    __slots__ = ("rules", "n", "entries", "tests", "slow_sets", "fast_gates", "fast_sets", "slow_runs",
                 "fast_runs", "literals", "tracked")

    def __init__(self, rules: list[Rule]) -> None:
        self.rules, self.n = rules, len(rules)
        self.entries = [(r, r.scan, r.check, r.priority, r.name) for r in rules]
        merged = [None if r.anchors is None else _gates(r.anchors) for r in rules]
        gates = tuple(sorted({g for gs in merged if gs is not None for g in gs}, key=lambda g: (len(g), g)))
        at = {g: i for i, g in enumerate(gates)}
        self.slow_sets = [None if gs is None else frozenset(at[g] for g in gs) for gs in merged]
        self.tests = tuple((i, g, at[max(inner, key=len)] if (inner := [p for p in gates if p != g and p in g])
                            else -1) for i, g in enumerate(gates))
        self.fast_gates = tuple(sorted({a for r in rules if r.anchors is not None for a in r.anchors}))
        at = {g: i for i, g in enumerate(self.fast_gates)}
        self.fast_sets = [None if r.anchors is None else frozenset(at[a] for a in r.anchors) for r in rules]
        # the matcher also finds the other literals the case-insensitive rules' scanners look for (their
        # starts: 'api', 'access' ...), so that they need no str.find of their own
        extra = {lit for r in rules if r.ci for lit in getattr(r.scan, "starts", ()) if lit == lit.lower()}
        self.literals = self.fast_gates + tuple(sorted(extra - set(self.fast_gates)))
        self.tracked = frozenset(self.literals)
        self.slow_runs: dict[frozenset[int], tuple] = {}
        self.fast_runs: dict[frozenset[int], tuple] = {}

    def todo(self, present: frozenset[int], fast: bool) -> tuple:
        """The entries of the rules one of whose gates is in ``present``."""
        runs = self.fast_runs if fast else self.slow_runs
        todo = runs.get(present)
        if todo is None:
            sets = self.fast_sets if fast else self.slow_sets
            todo = tuple(e for e, gs in zip(self.entries, sets) if gs is None or not present.isdisjoint(gs))
            if len(runs) >= _RUNS_MAX:
                runs.clear()
            runs[present] = todo
        return todo


_PLAN: list = [None]


def _plan() -> _Plan:
    """The :class:`_Plan` of ``RULES``, built again when ``RULES`` is replaced
    or grows (or after :func:`_replan`).  The patterns are not touched here:
    a rule compiles on its first window that holds one of its gates."""
    plan = _PLAN[0]
    if plan is None or plan.rules is not RULES or plan.n != len(RULES):
        plan = _PLAN[0] = _Plan(RULES)
        if _FAST[0]:
            _FAST[0] = None   # built again for the new anchors
    return plan


def _replan() -> None:
    """Forget the plan of :func:`_plan` (after a rule's ``anchors`` changed in place)."""
    _PLAN[0] = None


def _gate_matcher(gates: tuple[str, ...]):
    """The optional one-pass multi-literal matcher over ``gates``, or False.

    ``ahocorasick_rs`` (the ``memvcs[fast]`` extra; a binding of the Rust
    ``aho-corasick`` crate, https://github.com/G-Research/ahocorasick_rs)
    finds every occurrence of every literal in one pass, where the stdlib
    prefilter runs one ``str.__contains__`` per gate (~0.5 ns a character
    each, ~70 gates).  Each prefilter finds exactly the gates that occur,
    and no match lacks an anchor, so the rules' matches, and the output,
    are the same."""
    try:
        import ahocorasick_rs
        # a DFA: ~0.5 ms to build for ~100 anchors, and half the search time of the default NFA
        return ahocorasick_rs.AhoCorasick(list(gates), implementation=ahocorasick_rs.Implementation.DFA)
    except Exception:   # not installed, or a build that cannot load here: the stdlib prefilter
        return False


def _present(low: str, plan: _Plan) -> tuple[frozenset[int], bool, tuple | None]:
    """The indices of the gates that occur in ``low`` (substring tests),
    whether they index ``plan.fast_gates`` (True) or ``plan.tests``, and the
    window's offsets for :func:`_occurrences`: with the matcher, those of
    each anchor that occurs; without it, none yet."""
    fast = _FAST[0]
    if fast is None:
        _FAST[1] += len(low)
        if _FAST[1] >= _FAST_AFTER:
            fast = _FAST[0] = _gate_matcher(plan.literals)
    if fast:
        try:
            found = fast.find_matches_as_indexes(low, overlapping=True)
        except Exception:   # a str the matcher cannot encode (lone surrogates): the stdlib prefilter
            pass
        else:
            lits, n = plan.literals, len(plan.fast_gates)
            offsets: dict[str, list[int]] = {}
            for i, s, _e in found:
                g = lits[i]
                if g in offsets:
                    offsets[g].append(s)
                else:
                    offsets[g] = [s]
            return frozenset([i for i, _s, _e in found if i < n]), True, (offsets, plan.tracked, low)
    found: set[int] = set()
    for i, g, within in plan.tests:   # each gate scanned once per window (not once per rule naming it)
        if (within < 0 or within in found) and g in low:
            found.add(i)
    return frozenset(found), False, ({}, None, low)


def _scan_window(text: str, ws: int, we: int, out: list) -> None:
    # One lowercased copy of the window (and 16 characters before it, for
    # look-behinds), offsets unchanged, serves every case-insensitive rule.
    # The plain finditer pass of _scan_plain is inlined here: this loop runs
    # for every rule on every captured text.
    off = max(0, ws - 16)
    low = _lower(text if (off == 0 and we == len(text)) else text[off:we])
    append = out.append
    plan = _plan()
    # no match can lack an anchor (Rule.anchors): a rule none of whose gates occur is skipped,
    # and not even compiled
    present, fast, at = _present(low, plan)
    for rule, scan, check, pri, name in plan.todo(present, fast):
        if scan is not None:
            scan(rule, text, ws, we, out, low, off, at)
            continue
        pattern, lowered = rule.pattern, rule.lowered
        if lowered is not None:
            matches, o = lowered.finditer(low, ws - off, we - off), off
        else:
            matches, o = pattern.finditer(text, ws, we), 0
        grouped = "secret" in pattern.groupindex
        for m in matches:
            s, e = m.span("secret") if grouped else m.span()
            if s < 0 or s == e:
                continue
            s += o
            e += o
            if check is not None and not check(text[s:e]):
                continue
            append((s, e, pri, name))


def _find(text: str, window: int) -> list[list]:
    """Merged, sorted, non-overlapping [start, end, priority, name] spans."""
    n = len(text)
    overlap = min(_OVERLAP, window // 4)
    step = window - overlap
    cands: list = []
    ws = 0
    while True:
        we = min(n, ws + window)
        _scan_window(text, ws, we, cands)
        if we >= n:
            break
        ws += step
    if not cands:
        return []
    cands.sort(key=lambda c: (c[0], -c[1]))
    merged: list[list] = []
    for s, e, pri, name in cands:
        if merged and s < merged[-1][1]:
            last = merged[-1]
            if e > last[1]:
                last[1] = e
            if pri < last[2]:
                last[2], last[3] = pri, name
        else:
            merged.append([s, e, pri, name])
    return merged


def _render(text: str, spans: list[list]) -> tuple[str, list[tuple[int, int, int, int]]]:
    """The text with each span replaced by its marker, and for each span
    (input start, input end, output start, output end)."""
    parts: list[str] = []
    moves: list[tuple[int, int, int, int]] = []
    pos = out = 0
    for s, e, _pri, name in spans:
        parts.append(text[pos:s])
        out += s - pos
        marker = f"[REDACTED:{name}]"
        parts.append(marker)
        moves.append((s, e, out, out + len(marker)))
        out += len(marker)
        pos = e
    parts.append(text[pos:])
    return "".join(parts), moves


def _back(pos: int, moves: list[tuple[int, int, int, int]], end: bool) -> int:
    """Map an offset in a rendered text back to the text it was rendered from."""
    i = bisect.bisect_right(moves, pos, key=lambda mv: mv[2]) - 1
    if i < 0:
        return pos
    s, e, _os, oe = moves[i]
    if pos < oe or (end and pos == oe):
        return e if end else s   # inside a marker: the whole original span
    return e + (pos - oe)


def redact(text: str, *, max_scan_chars: int = DEFAULT_MAX_SCAN_CHARS) -> RedactResult:
    """Replace every credential in ``text`` with ``[REDACTED:<rule>]``.

    Args:
        text: any ``str`` (lone surrogates and NULs are fine).
        max_scan_chars: the most characters one regex pass reads (at least
            4096); longer text is scanned in windows of this size overlapping
            by 16 Ki characters, so all of it is scanned and none is dropped.

    Returns:
        A :class:`RedactResult`; ``.text`` is ``text`` itself when nothing matched.

    Raises:
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"redact() takes a str, not {type(text).__name__}")
    if not text:
        return RedactResult(text)
    window = max(int(max_scan_chars), _MIN_WINDOW)
    spans = _find(text, window)
    if not spans:
        return RedactResult(text)
    cur, moves = _render(text, spans)
    hits = [Hit(name, s, e) for s, e, _p, name in spans]
    chain = [moves]
    for _ in range(_MAX_PASSES - 1):
        more = _find(cur, window)
        if not more:
            break
        nxt, nmoves = _render(cur, more)
        for s, e, _p, name in more:
            for mv in reversed(chain):
                s, e = _back(s, mv, False), _back(e, mv, True)
            hits.append(Hit(name, s, e))
        chain.append(nmoves)
        cur = nxt
    hits.sort(key=lambda h: (h.start, h.end))
    return RedactResult(cur, tuple(hits))


def redact_value(text: str) -> str:
    """``redact(text).text``: the redacted string, for callers that need no hit list."""
    return redact(text).text


def remove_credentials(text: str, replacement: str = " ") -> str:
    """``text`` with every credential :func:`redact` finds replaced by
    ``replacement`` (one space by default) rather than a
    ``[REDACTED:<rule>]`` marker: for derived text such as search cues and
    traces, which must hold no part of a credential and gain no marker words.
    ``text`` itself when nothing matched.  Raises ``TypeError`` for a non-str."""
    r = redact(text)
    if not r.hits:
        return text
    return replace_spans(text, [(h.start, h.end) for h in r.hits], replacement)
