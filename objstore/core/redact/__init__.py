"""Credential redaction: replace secrets with ``[REDACTED:<rule>]`` before anything reaches disk.

Every capture path (hooks, transcript imports, shell capture, ``mem remember``)
passes its text through :func:`redact`.  It runs inside an agent hook, so it is
built to be cheap on ordinary text and bounded on hostile text.  The package, by concern: ``rule`` (the
rule type and regex flags), ``checks`` (value checks: is a match a credential
or prose), ``scanners`` (rule scans other than one ``finditer`` pass),
``rules`` (``RULES``, the table below: the token formats) and ``passwords``
(its password labels, phrases and command lines), ``prefilter`` (which rules
a window runs) and this module (windows, merging, rendering, the public API):

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
  characters starts, so ``re`` never re-reads a run from every offset
  (a format taken glued, ``tok(glued=True)``, starts at each occurrence of
  its literal prefix: still one bounded try each);
* a text holding an invisible (zero-width space, soft hyphen, word joiner)
  or fullwidth/mathematical character next to a token character is also
  scanned **as it reads** (:func:`objstore.core.text.ascii_reading`), and
  each hit there redacts the characters it reads from (``ghp\u200b_…``,
  ``ＡＫＩＡ…``; red17, test16b B5); an ASCII text costs nothing more, a
  non-ASCII one a few ``str.find`` and an NFKC quick check.

Rules (``RULES``; the ``source`` field of each names the documented format):

========================  ==========================================================  ==========================================
rule                      what it matches                                             documented format
========================  ==========================================================  ==========================================
private-key               PEM ``-----BEGIN ... PRIVATE KEY-----`` blocks (RSA, EC,    RFC 7468; RFC 5915 (EC); OpenSSH
                          DSA, ENCRYPTED, OPENSSH, PGP ``PRIVATE KEY BLOCK``), also   PROTOCOL.key; RFC 4880 s6.2 (PGP armor)
                          blocks with no END line and tails with no BEGIN line,
                          raw or JSON-escaped (``\\n``)
gcp-service-account       the PEM value of a ``"private_key"`` JSON field            Google Cloud IAM, service account key file
aws-access-key-id         ``AKIA``/``ASIA``/``ABIA``/``ACCA`` + 16 [A-Z0-9], also      AWS IAM "unique identifiers" (ID prefixes)
                          glued to a word on either side (``xAKIA…``, ``AKIA…x``)
aws-secret-access-key     40-char base64 value after ``aws_secret_access_key``,       AWS CLI config files / access keys docs
                          ``SecretAccessKey``, ``secret_key`` (= : => or blank);
                          unlabelled: a mixed-case 40-char base64 token within
                          256 chars of an access key id
gcp-api-key               ``AIza`` + 35 [A-Za-z0-9_-]                                 Google Cloud "Manage API keys"
github-token              ``ghp_ gho_ ghu_ ghs_ ghr_`` + 36..251 [A-Za-z0-9], also    GitHub "authentication token formats"
                          glued to the word before (``xghp_…``; the formats
                          taken glued: the red17 note in ``rules``)
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
age-secret-key            ``AGE-SECRET-KEY-1`` + 58 Bech32 upper case; plugin         age v1 spec (X25519 identities); C2SP
                          identities ``AGE-PLUGIN-<NAME>-1`` + Bech32 (mem's sync     age-plugin "Identities"
                          key and vault identity are such keys)
pypi-token                ``pypi-AgEIcHlwaS5vcmc`` (pypi.org) / ``pypi-AgENdGVzdC5weX PyPI "API tokens" (a macaroon)
                          BpLm9yZw`` (test.pypi.org) + 30.. [A-Za-z0-9_-]
doppler-token             ``dp.pt. dp.ct. dp.st.[config.] dp.sa. dp.scim. dp.audit.`` Doppler "Token formats"
                          + 40..44 [A-Za-z0-9]
openai-key                ``sk-proj- sk-svcacct- sk-admin-`` + 20..; legacy ``sk-`` + OpenAI API reference "Authentication"
                          48 [A-Za-z0-9]                                              (project/service-account/admin keys)
huggingface-token         ``hf_`` + 34..40 [A-Za-z0-9], both cases, or one case       Hugging Face "User access tokens"
                          that reads as random (``hf_token_ok``)
sendgrid-key              ``SG.`` + 22 [A-Za-z0-9_-] + ``.`` + 43 [A-Za-z0-9_-]        Twilio SendGrid "API Keys"
digitalocean-token        ``dop_v1_ doo_v1_ dor_v1_`` + 64 hex                          DigitalOcean token prefixes
shopify-token             ``shpat_ shpca_ shppa_ shpss_`` + 32 hex                     Shopify "Access tokens"
discord-webhook           the token of ``discord[app].com/api/[vN/]webhooks/<id>/``    Discord "Webhook Resource" (Execute
                                                                                      Webhook)
azure-storage-key         the base64 key after ``AccountKey=``, ``SharedAccessKey=``,  Azure Storage "Configure a connection
                          ``AZURE_STORAGE_KEY=``, ``--account-key``                   string"; az storage ``--account-key``
azure-sas-token           the ``sig=`` of a SAS URL or token (``?``/``&``/``;sig=``;    Azure Storage "Create a service SAS"
                          30+ URL-encoded base64 characters)
vault-token               ``hvs. hvb. hvr.`` + 24.. [A-Za-z0-9_-] (both letter        HashiCorp Vault "Tokens: token prefixes";
                          cases); the legacy ``s. b. r.`` + 24 base62 only after      ``vault login`` command
                          ``vault login [opts]``, ``VAULT_TOKEN``, ``X-Vault-Token``
databricks-token          ``dapi`` + 32 hex                                           Databricks "Personal access token
                                                                                      authentication"
telegram-bot-token        the ``AA`` + 32..33 [A-Za-z0-9_-] after ``<8+ digit id>:``  Telegram Bot API "Authorizing your bot"
                          (the bot id is kept)
linear-api-key            ``lin_api_ lin_oauth_`` + 40..64 [A-Za-z0-9]                Linear "API and Webhooks"
atlassian-api-token       ``ATATT3`` + 60..400 [A-Za-z0-9_=-]                         Atlassian "Manage API tokens"
discord-bot-token         base64url(user id) ``.`` 6 ``.`` 27..38 (three parts; the   Discord "Reference: Authentication"
                          first decodes to a 17-20 digit snowflake) in a window       (bot tokens)
                          naming ``discord``, or after ``Authorization: Bot``
mailgun-key               ``key-`` + 32 hex                                           Mailgun "API keys"
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
                          plain words when it looks like a password (>= 6 chars,       see ``phrase_secret``)
                          a digit, symbol or inner capital: ``my password is
                          hunterUniq2024``), also with what it opens in between
                          (``the password for the staging box is X``, ``... box:
                          X``: a preposition and 1-5 words), and a 4-12 digit
                          ``pin is 4821`` (also ``passcode is 7741#a``);
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
                          a trailing ``!`` goes with the password in every form
                          (``admin / P@ssw0rd!``, ``the password is P@ssw0rd!``,
                          as ``password: P@ssw0rd!``; ``is wrong!`` stays); a
                          dash label ``Password - X`` (also ``passwd``,
                          ``passwort``, ``passphrase``, ``pwd``, ``secret``, and X
                          alone on the next line: ``Password -`` LF ``X``; X
                          shaped like a password and not a whole placeholder,
                          or a short value that ends its line: see below);
                          ``the vpn|wifi|admin|root... pass is X``; German ``das
                          Passwort ist|lautet X`` (a trailing ``!`` kept with X);
                          ``db pw X`` (no verb; X cannot be prose); ``sign in as
                          admin with X``; ``the password is <4+ words>`` unquoted
                          (no prose word); ``the wifi passphrase Tiger99xx`` (no
                          verb, as ``password hunter2x9``); ``passphrase: <3+
                          words>`` to the end of the line (not ``passphrase: not set``)
mem-command               mem's own command lines (test17 T10: shell capture, an      docs/cli.md (``remember``, ``forget``,
                          agent's Bash call): the VALUE of ``mem remember KEY VALUE   ``scan``)
                          --sensitivity secret`` or of a KEY named for a
                          credential, the TEXT of ``mem forget --match TEXT`` and
                          ``mem scan TEXT``
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
                          token|api_key|access_key|auth_key|private_key|              see ``looks_secret``)
                          client_secret|secret_key_base|pass|*_pass`` ``= / : / =>`` assignments when the value
                          looks random (see ``looks_secret``), or mixes letters
                          with digits or symbols (``password=hunter2``,
                          ``token=abc123def456``), or is a quoted literal after a
                          password keyword (``looks_assigned``; an unquoted
                          ``secret: X`` is held to a password's 6 characters:
                          ``secret: hunter2``); code such as
                          ``password = getpass()`` or ``token = tokens[i]`` is left;
                          ``api key``, ``secret key`` with a blank too; after a
                          password label (``password|passwd|passwort|passphrase|
                          pwd|*_pass``, not an attribute ``self.password``) a value
                          of letters alone with nothing after it on its line
                          (``Password: correcthorsebattery``, ``passwd=qwerty``;
                          after such a label only a whole placeholder is kept,
                          ``Password: Example#2024`` is redacted;
                          not ``password: str``, ``password: hashedPassword``,
                          ``Password: incorrect``: ``labelled_password_ok``); when
                          the label ends its line, the value alone on the next
                          line by the same checks (``Password:`` LF ``  hunter2xyz``;
                          not ``password:`` LF ``  type: string``, a list item,
                          a label, a blank line between: ``_next_line_value``);
                          with prose after it on that line, its first token
                          when it has letters with digits or symbols
                          (``Password:`` LF ``PlumTree#77 is set for the db``:
                          the token, not the prose; not a word, a log stamp,
                          nor code: ``pw2 = x``; red13); a label alone on its
                          line (``password`` LF ``PlumTree#77``: a form read
                          out) the same, never a value of letters alone;
                          ``secret`` as such a label too, for the next line and
                          the short value. The short value (scan12): 4 or 5
                          characters alone after a password or ``secret`` label,
                          nothing after it on its line, with letters and digits
                          or symbols (``Password: Zq7mm``, ``pwd=Zq7mm``,
                          ``secret - Kx9mm``, ``secret:`` LF ``ab12``); a value of
                          letters alone keeps the 6-character floor and the word
                          lists (``password: see below``, ``Password: hello``,
                          ``secret: none`` stay), digits alone stay
                          (``Password: 1234``), as do references and paths
                          (``short_labelled_ok``)
named-secret              not a text rule: :func:`redact_named` (``mem remember``,    (no vendor format: the key's own words)
                          imports, derived facts) replaces the whole value under a
                          key named for a credential (``.../staging-password``,
                          ``.../github-token``, ``.../api-key``) when it is one
                          token or a passphrase (``hunter2``, ``Example#2024``;
                          not ``stored in 1Password``, ``$DB_PASSWORD``,
                          ``changeme``: ``named_value_ok``)
========================  ==========================================================  ==========================================

The promise, in short: a vendor token is redacted by its format wherever it
is; a value after an explicit password label (``Password: X``,
``passwd=X``, ``pwd: X``, ``DB_PASS=X``, ``Password - X``, ``secret: X``,
``secret - X``, or any of them with X alone on the next line, or first on
it with prose after, or after ``password`` alone on its line) or stored under
a key named for a credential is redacted whatever its shape (after a label, 4
characters are enough when X has letters with digits or symbols and ends its
line: ``Password: Zq7mm``; 6 for letters alone) (all lower case, no digit:
``correcthorsebattery``, ``hunter``; a placeholder word inside:
``Example#2024``, ``dummy-Pa55``, ``hunter2EXAMPLE``) unless it reads as code
or prose, or the WHOLE value is a placeholder (``checks.is_placeholder``:
``changeme``, ``example``, ``xxxx``, ``***``, ``<password>``, ``${VAR}``,
``$VAR``, ``%VAR%``, ``your_password_here``; red10); in
free prose (``the password for the staging box is X``) only a token that
looks like a password is (a digit, a symbol or an inner capital), so
``the password is stored in the vault`` and ``the password is
correcthorsebattery`` are both left as typed.

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
from collections import Counter, namedtuple

from objstore.core.errors import InvalidInput
from objstore.core.record import Frozen, set_fields
from objstore.core.redact import prefilter
from objstore.core.redact.rule import Rule
from objstore.core.redact.checks import PIN_CODE_OWNERS, hardware_pin, named_value_ok
from objstore.core.redact.rules import RULES
from objstore.core.redact.scanners import credential_name
from objstore.core.text import ascii_reading, reading_span, replace_spans

__all__ = [
    "DEFAULT_MAX_SCAN_CHARS", "NAMED_RULE", "PIN_CODE_OWNERS", "RULES", "Hit", "RedactResult", "Rule", "check_name",
    "credential_name", "hardware_pin", "name_hits", "path_holds_credential", "redact", "redact_named", "redact_value", "remove_credentials",
]

DEFAULT_MAX_SCAN_CHARS = 262_144
_OVERLAP = 16_384          # windows overlap by this much: no shorter secret is cut in two
_MIN_WINDOW = 4_096
_MAX_PASSES = 4


# --------------------------------------------------------------------------- result


#: One redacted span: the rule that named it and its [start, end) in the input
#: (``Hit(rule, start, end)``; ``collections.namedtuple``, not ``typing.NamedTuple``,
#: whose annotations cost ~1 ms to compile at import on the prompt hook).
Hit = namedtuple("Hit", "rule start end")


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


def _scan_window(text: str, ws: int, we: int, out: list) -> None:
    # One lowercased copy of the window (and 16 characters before it, for
    # look-behinds), offsets unchanged, serves every case-insensitive rule.
    # The plain finditer pass of _scan_plain is inlined here: this loop runs
    # for every rule on every captured text.
    off = max(0, ws - 16)
    low = prefilter.lower(text if (off == 0 and we == len(text)) else text[off:we])
    append = out.append
    plan = prefilter.plan(RULES)
    # no match can lack an anchor (Rule.anchors): a rule none of whose gates occur is skipped,
    # and not even compiled
    present, fast, at = prefilter.present(low, plan)
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
    return _merge(cands)


def _merge(cands: list) -> list[list]:
    """Candidate ``(start, end, priority, name)`` spans merged where they
    overlap (the lower priority names the union), sorted."""
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
    read = ascii_reading(text)
    if read is not None:
        # a token with an invisible or fullwidth character inside (red17, test16b B5): the rules run over
        # the text as it reads too, and each hit there takes the characters it reads from
        reading, rmoves = read
        spans = _merge(spans + [[*reading_span(rmoves, s, e), p, n] for s, e, p, n in _find(reading, window)])
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


NAMED_RULE = "named-secret"


def redact_named(text: str, name: str) -> RedactResult:
    """:func:`redact` for a value stored under ``name`` (a fact key): when
    the name says the value is a credential (:func:`credential_name`:
    ``project/api/staging-password``, ``db_passwd``, ``github-token``,
    ``openai_api_key``) and the value is one token or a passphrase of plain
    words (:func:`named_value_ok`: ``hunter2``, ``correcthorsebattery``,
    ``correct horse battery staple``), the whole value, whatever its shape,
    becomes ``[REDACTED:named-secret]`` (blanks around it kept); otherwise
    (``stored in 1Password``, ``$DB_PASSWORD``, a key named ``password-policy``)
    the text rules run as :func:`redact`.

    Returns:
        A :class:`RedactResult` whose offsets are in ``text``.

    Raises:
        TypeError: ``text`` or ``name`` is not a ``str``.
    """
    if not isinstance(name, str):
        raise TypeError(f"redact_named() takes a str name, not {type(name).__name__}")
    kind = credential_name(name)
    if kind is not None and isinstance(text, str):
        s, e = len(text) - len(text.lstrip()), len(text.rstrip())
        if named_value_ok(text[s:e], password=kind == "password"):
            return RedactResult(f"{text[:s]}[REDACTED:{NAMED_RULE}]{text[e:]}", (Hit(NAMED_RULE, s, e),))
    return redact(text)


#: the readings of a name :func:`name_hits` scans: separators kept (``sk-ant-…``, ``xoxb-…``,
#: ``pwd=Zq7mm``), ``/`` and ``.`` read as blanks (a token right after one), and ``-`` too
#: (``api-key-…``-style words); each maps a character to one character, so offsets hold
_NAME_READINGS = (str.maketrans("", ""), str.maketrans("/.", "  "), str.maketrans("/.-", "   "))


#: words of a password label (``scanners._password_label`` reads them): a name holding none
#: is not read prefix by prefix (:func:`name_hits`)
_NAME_LABELS = ("pass", "pwd", "pw:", "pw=", "secret", "pin:", "pin=", "token", "key:", "key=")


def name_hits(name: str) -> tuple[Hit, ...]:
    """The credentials in a name a write stores in the clear (a fact key,
    a session id, a sub-agent name): :func:`redact`'s hits over the name
    as typed, then with ``/`` and ``.`` read as blanks, then with ``-``
    too (the first reading that finds one wins).  So every shape the value
    redaction knows is found in a name: a vendor token whose format holds
    dashes (``project/x/sk-ant-api03-…``, ``xoxb-…``), one right after a
    separator, a labelled value (``project/api/Password: Zq7mm``,
    ``pwd=Zq7mm``, ``secret - Kx9mm``); then, in a name with a password
    label, each prefix that ends before a blank (a labelled short value
    with words after it, ``Password: Zq7mm x``, which a value reads as
    prose); last, the rest of the name after each ``-`` between two letters
    or digits (a dashed token after a word: ``-home-dev-sk-ant-…``).  Offsets are in ``name`` (each
    reading replaces one character by one).  Empty when there is none.
    Raises ``TypeError`` for a non-str."""
    if not isinstance(name, str):
        raise TypeError(f"name_hits() takes a str, not {type(name).__name__}")
    seen = None
    for table in _NAME_READINGS:
        reading = name.translate(table)
        if reading == seen:         # no separator of this reading in the name: already scanned
            continue
        hits = redact(reading).hits
        if hits:
            return hits
        seen = reading
    plain = name.translate(_NAME_READINGS[1])
    # a labelled short value with words after it (``Password: Zq7mm x``): a value is read as
    # prose there, but a name holds no prose after a password: each prefix of the name that
    # ends before a blank is read as a value that ends its line
    low = plain.lower()
    if any(w in low for w in _NAME_LABELS):
        for i, ch in enumerate(plain):
            if ch in " \t,;" and i and not plain[i - 1].isspace():
                hits = redact(plain[:i]).hits
                if hits:
                    return hits
    # a token glued to the letters before it (``user/x/vAKIA…``, ``xghp_…``, ``asdsk-ant-…``): a
    # value rule starts a token where a word starts, a name has no blank to give it one; so the
    # rest of the name from each anchor that follows a letter, digit or ``_`` is scanned too
    hits = _glued_hits(plain)
    if hits:
        return hits
    # a dashed token right after a '-' (``-home-dev-sk-ant-…``, a Claude project folder): the
    # first reading joins it to the word before, the last splits the token itself.  Each suffix
    # is a substring of ``plain``, and a match of an anchored rule holds one of its gates: when
    # every rule is anchored and no gate occurs in ``plain``, none occurs in a suffix, and no
    # suffix is scanned (a session UUID's four dashes cost four scans otherwise, every import)
    if "-" not in plain:
        return ()
    plan = prefilter.plan(RULES)
    if None not in plan.slow_sets and not prefilter.present(prefilter.lower(plain), plan)[0]:
        return ()
    for i, ch in enumerate(plain):
        if ch == "-" and plain[i + 1:i + 2].isalnum() and i and plain[i - 1].isalnum():
            hits = redact(plain[i + 1:]).hits
            if hits:
                return tuple(Hit(h.rule, h.start + i + 1, h.end + i + 1) for h in hits)
    return ()


def _glued_hits(plain: str) -> tuple[Hit, ...]:
    """The hits of :func:`redact` over the rest of ``plain`` (a name, its
    separators read as blanks) from each place an anchor of a rule (its
    literal start: ``akia``, ``ghp_``, ``sk-ant-``, ``xoxb-``, …; the
    prefilter's ``fast_gates``) follows a letter, digit or ``_``, offsets
    in ``plain``; the first such place with one wins.  Cost: one scan of a
    suffix per glued anchor found (a key holds few)."""
    low = prefilter.lower(plain)
    for a in prefilter.plan(RULES).fast_gates:
        at = low.find(a, 1)
        while at > 0:
            if plain[at - 1].isalnum() or plain[at - 1] == "_":
                hits = redact(plain[at:]).hits
                if hits:
                    return tuple(Hit(h.rule, h.start + at, h.end + at) for h in hits)
            at = low.find(a, at + 1)
    return ()


#: paths already judged by :func:`path_holds_credential` (a capture names the same few cwds
#: on every turn); bounded: cleared whole when full
_PATHS: dict[str, bool] = {}


def path_holds_credential(path: str) -> bool:
    """Whether a path mem would write in the clear (a turn's working
    directory or project, a transcript's path in the read ledgers and the
    hook log) holds a credential by the one name rule (:func:`name_hits`,
    its ``/`` and ``.`` read as blanks: ``/home/dev/AKIA…/app``,
    ``…/sk-ant-…/x.jsonl``).  Callers skip what would carry it and count it,
    never showing the path.  Cached per path.  Raises ``TypeError`` for a
    non-str."""
    got = _PATHS.get(path)
    if got is None:
        if len(_PATHS) >= 4096:
            _PATHS.clear()
        got = _PATHS[path] = bool(name_hits(path))
    return got


#: what a message shows in place of a path :func:`path_holds_credential` finds one in
PATH_NOT_SHOWN = "(a path holding a credential, not shown)"


def shown_path(path: str) -> str:
    """``path`` for a message or a skipped-file list, or
    :data:`PATH_NOT_SHOWN` when it holds a credential
    (:func:`path_holds_credential`): the one way every importer names a
    file it skips.  Raises ``TypeError`` for a non-str."""
    return PATH_NOT_SHOWN if path_holds_credential(path) else path


def check_name(name: str, what: str = "key", *, where: str = "file names and logs", hint: str = "",
               url: bool = False) -> None:
    """Raise :class:`~objstore.core.errors.InvalidInput` (exit 2) when the
    name ``name`` holds a credential (:func:`name_hits`): ``the <what> holds
    a credential``.  The one refusal, and the one message, for every name a
    write or a selector would keep in the clear or echo (a fact key, a
    session id, an agent name, a project, a remote's name, URL or endpoint,
    a setting of ``config.toml``: ``what`` says which field, ``where`` where
    it would be written, ``hint`` what to do instead).  The message never
    holds the name.  Run before any format check or lookup, so a malformed
    or unknown name holding a secret is refused without being echoed (``bad
    agent name '…'``, ``no key …``).  Returns None otherwise; raises
    ``TypeError`` for a non-str.  ``url=True``: the name is a URL, and any
    user or key before an ``@`` of its authority (``s3://TOKEN@bucket``,
    ``https://user:pw@host``) is refused the same way, whatever its shape
    (test16b B10: a bare 40-hex token there matched no rule)."""
    if name_hits(name) or (url and _url_userinfo(name)):
        raise InvalidInput(f"the {what} holds a credential: it would be stored in the clear in {where}",
                           hint=hint or ("name what the value is, not the value" if what == "key"
                                         else f"name the {what} for what it is, not with a secret"))


def _url_userinfo(text: str) -> bool:
    """Whether ``text`` is ``scheme://…@…`` with an ``@`` before the first
    ``/`` after the scheme (RFC 3986 3.2.1 userinfo)."""
    scheme, sep, rest = text.strip().partition("://")
    return bool(sep) and "@" in rest.split("/", 1)[0] and scheme.replace("+", "").isalnum()


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


#: how far past a cut :func:`redact_cut` redacts, so a credential crossing the cut is seen whole
#: (a 4,096-bit RSA private key block is ~3,300 characters)
CUT_LOOKAHEAD = 16 * 1024
#: how far back a cut moves to fall after white space or a quote / comma
CUT_SEEK = 256
_CUT_BREAKS = " \n\t\"',"
_MARKER_OPEN = "[REDACTED:"


def cut_point(text: str, pos: int, seek: int = CUT_SEEK) -> int:
    """Where to cut ``text`` (already redacted) at most at ``pos``: never
    inside a ``[REDACTED:<rule>]`` marker (moved to its start), and moved
    back to just after the last white space, quote or comma within
    ``seek`` characters when there is one, so no prefix of a word is kept
    (a word longer than ``seek`` is cut where it is: redaction has seen it
    whole).  ``len(text)`` when ``pos`` is at or past the end."""
    if pos >= len(text):
        return len(text)
    pos = max(pos, 0)
    m = text.rfind(_MARKER_OPEN, max(0, pos - 200), pos)
    if m >= 0 and text.find("]", m, pos) < 0:
        pos = m
    ws = max(text.rfind(c, max(0, pos - seek), pos) for c in _CUT_BREAKS)
    return ws + 1 if ws >= 0 else pos


def redact_cut(text: str, limit: int) -> tuple[str, int]:
    """``text``'s head of at most ``limit`` characters, cut where no
    credential is split (tester finding T19: a plain cut kept a prefix of a
    credential that straddled it, which no rule then recognised), and the
    number of characters of ``text`` left out (0: ``text`` itself, it has
    at most ``limit`` characters).  The first ``limit`` +
    :data:`CUT_LOOKAHEAD` characters are redacted to find the credentials
    (:func:`redact`); the cut moves to the start of one that crosses it, then
    to a word's end (:func:`cut_point`), until none crosses it.  The head is
    NOT redacted: its writer redacts it (and counts what it replaced).
    Raises ``TypeError`` for a non-str."""
    if len(text) <= limit:
        return text, 0
    hits = sorted(redact(text[:limit + CUT_LOOKAHEAD]).hits, key=lambda h: h.start, reverse=True)
    end = limit
    while True:
        for h in hits:              # latest first: a move can only bring an earlier one across
            if h.start < end < h.end:
                end = h.start
        new = cut_point(text, end)
        if new == end or not any(h.start < new < h.end for h in hits):
            end = new
            break
        end = new
    return text[:end], len(text) - end
