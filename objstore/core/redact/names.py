"""The name rule of :mod:`objstore.core.redact` (moved out of its ``__init__`` as it was, red18):
a name mem writes in the clear (a fact key, a session id, an agent name, a path) holding a
credential is refused or not shown (:func:`name_hits`, :func:`check_name`,
:func:`path_holds_credential`, :func:`shown_path`, :func:`transcript_path_refused`), and a value under a key named for a
credential is redacted whole (:func:`redact_named`).  Public from :mod:`objstore.core.redact`."""

from __future__ import annotations

import os

from objstore.core.errors import InvalidInput
from objstore.core.text import LazyPattern
from objstore.core.redact import prefilter
from objstore.core.redact.engine import Hit, RedactResult, redact
from objstore.core.redact.rule import IFLAGS
from objstore.core.redact.checks import named_value_ok
from objstore.core.redact.rules import RULES
from objstore.core.redact.keywords import credential_name, pin_code_ok
from objstore.core.redact.keysuffix import key_suffix_name, key_value_ok
from objstore.core.redact.beforeword import password_token_ok
from objstore.core.redact.secondfactors import seed_phrase_ok

NAMED_RULE = "named-secret"


#: pin39 (fresh38 F6/F15): a code in a value under a PIN's key (``PIN: 4471``, ``#4471``, ``it's 4471 now``,
#: ``{"pin": "4471"}``): a run of letters and digits, or digit groups joined by '-' or a blank, alone between others;
#: not a part of a word joined by '-', '_' or '.' (``4821-kw``, ``okapiquetzal-5521``, ``v1.4471``: a name's)
_PIN_TOKEN = LazyPattern(r"(?<![A-Za-z0-9_.\-])(?:\d{2,6}(?:[- ]\d{2,6}){1,3}|[A-Za-z0-9]{4,12})"
                         r"(?![A-Za-z0-9_\-]|\.[A-Za-z0-9])")
#: a PIN spelled out (``four four seven one``, ``nine-oh-one-one``): 4 to 12 digit words in a row
_DIGIT_WORD = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|niner)"
#: a PIN typed digit by digit (``4 4 7 1``, ``4.4.7.1``, ``4-4-7-1``; test39b B3): 4 to 12 single digits, one separator
_DIGIT_BY_DIGIT = LazyPattern(r"(?<![0-9A-Za-z])[0-9](?:[ .\-][0-9]){3,11}(?![0-9A-Za-z])")
_SPELLED_PIN = LazyPattern(r"\b" + _DIGIT_WORD + r"(?:[ ,-]{1,2}" + _DIGIT_WORD + r"){3,11}\b", IFLAGS)


def _pin_codes(text: str) -> tuple[Hit, ...]:
    """pin39 (fresh38 F6/F15): the codes in a value stored under a key of kind ``"pin"`` (:func:`credential_name`),
    whatever stands around them: each run :func:`~.keywords.pin_code_ok` takes (``#4471``, ``4471#``, ``*4471*``,
    ``pin=4471``, ``4471 (new)``) and each PIN spelled in digit words (``four four seven one``); not ``13`` nor
    a word (``ask the office``)."""
    hits = [Hit(NAMED_RULE, m.start(), m.end()) for m in _PIN_TOKEN.finditer(text) if pin_code_ok(m.group())]
    hits += [Hit(NAMED_RULE, m.start(), m.end()) for m in _SPELLED_PIN.finditer(text)]
    hits += [Hit(NAMED_RULE, m.start(), m.end()) for m in _DIGIT_BY_DIGIT.finditer(text)]
    return tuple(sorted(hits, key=lambda h: h.start))


def _ascii_digits(text: str) -> str:
    """``text`` with every other script's decimal digit (full-width ``４``, Arabic-Indic ``٤``) as its ASCII digit,
    one character for one, so offsets into it are offsets into ``text`` (test39b B3)."""
    if text.isascii():
        return text
    return "".join(str(int(c)) if c.isdecimal() and not c.isascii() and len(str(int(c))) == 1 else c for c in text)


def _with(text: str, res: RedactResult, extra: tuple[Hit, ...]) -> RedactResult:
    """``res`` (:func:`redact` over ``text``) with the hits of ``extra`` that overlap none of its own."""
    extra = tuple(x for x in extra if not any(h.start < x.end and x.start < h.end for h in res.hits))
    if not extra:
        return res
    hits = sorted(res.hits + extra, key=lambda h: h.start)
    out, p = [], 0
    for h in hits:
        out.append(f"{text[p:h.start]}[REDACTED:{h.rule}]")
        p = h.end
    return RedactResult("".join(out) + text[p:], tuple(hits))


def redact_named(text: str, name: str) -> RedactResult:
    """:func:`redact` for a value stored under ``name`` (a fact key): when
    the name says the value is a credential (:func:`credential_name`:
    ``project/api/staging-password``, ``db_passwd``, ``github-token``,
    ``openai_api_key``) and the value is one token or a passphrase of plain
    words (:func:`named_value_ok`: ``hunter2``, ``correcthorsebattery``,
    ``correct horse battery staple``), the whole value, whatever its shape,
    becomes ``[REDACTED:named-secret]`` (blanks around it kept); otherwise
    (``stored in 1Password``, ``$DB_PASSWORD``, a key named ``password-policy``)
    the text rules run as :func:`redact`.  red34c: also a value of one
    random key (:func:`.keysuffix.key_value_ok`) under a name ending
    ``key``/``auth`` (:func:`.keysuffix.key_suffix_name`: ``…/hmac-key``).
    pin39: under a PIN's name (``credential_name`` says ``"pin"``:
    ``user/pin``, ``bank-pin``, ``door-code``), a code
    (:func:`.keywords.pin_code_ok`) alone is withheld whole, and each code
    in a longer value (``PIN: 4471``, ``#4471``, ``it's 4471 now``,
    ``four four seven one``) by itself.

    Returns:
        A :class:`RedactResult` whose offsets are in ``text``.

    Raises:
        TypeError: ``text`` or ``name`` is not a ``str``.
    """
    if not isinstance(name, str):
        raise TypeError(f"redact_named() takes a str name, not {type(name).__name__}")
    kind = credential_name(name)
    s, e = (len(text) - len(text.lstrip()), len(text.rstrip())) if isinstance(text, str) else (0, 0)
    if kind == "pin" and isinstance(text, str):
        # test38 T1, pin39 (fresh38 F6/F15): a PIN's key withholds its code whole, or each code in a longer value
        text_in, text = text, _ascii_digits(text)   # (test39b B3: '４４７１', '٤٤٧١'; one character for one)
        if s < e and pin_code_ok(text[s:e]):
            return RedactResult(f"{text_in[:s]}[REDACTED:{NAMED_RULE}]{text_in[e:]}", (Hit(NAMED_RULE, s, e),))
        return _with(text_in, redact(text_in), _pin_codes(text))
    # red34c (test34 T10): a random key under a name of keysuffix.py's rule ('hmac-key', 'redis-auth')
    if (kind is None and s < e and key_suffix_name(name) and key_value_ok(text[s:e])
            or kind is not None and isinstance(text, str)
            and (named_value_ok(text[s:e], password=kind == "password") or _seed_words(text[s:e]))):
        return RedactResult(f"{text[:s]}[REDACTED:{NAMED_RULE}]{text[e:]}", (Hit(NAMED_RULE, s, e),))
    if kind is not None and isinstance(text, str):
        res = redact(text)
        return _with(text, res, _named_tokens(text, res.hits))
    return redact(text)


def _seed_words(v: str) -> bool:
    """red33b (test33 T14): a wallet's seed phrase as a whole value (``…/wallet-seed``, ``…/mnemonic``): 12 to 24
    lowercase words of 3 to 8 ASCII letters on one line (BIP-39's shape, :func:`~.secondfactors.seed_phrase_ok`),
    which :func:`~.checks.named_value_ok` (3-10 words) does not take."""
    words = v.split()
    return "\n" not in v and all(3 <= len(w) <= 8 and w.isascii() and w.isalpha() and w.islower() for w in words) \
        and seed_phrase_ok(v)


#: red32 (test31c W17): a word of a value under a credential key, and what may stand around it
_VALUE_WORD = LazyPattern(r"[\"'(\[{<]*(?P<w>[^\s\"'()\[\]{}<>]+?)[\"')\]}>.,;:!?]*(?=\s|$)")
#: a name and a number (``canary-58813``, ``prod-db-2``, ``kiwi-17``): a host's, a build's or a ticket's, not a password
_NAME_NUMBER = LazyPattern(r"[a-z]+(?:[-_][a-z]+)*[-_][0-9]+")
#: password managers a value under a credential key names (README: ``stored in 1Password`` is kept)
_VAULTS = frozenset(("1password", "lastpass", "bitwarden", "keepass", "keepassxc", "dashlane", "keychain"))


def _named_tokens(text: str, hits: tuple[Hit, ...]) -> tuple[Hit, ...]:
    """red32 (test31c W17): under a key named for a credential, each word of a value of several words that is
    shaped like a password (:func:`~.passwords.password_token_ok`: 6+ characters, a digit, a symbol or an inner
    capital, no code or tech word; ``Zq7mmTr33x since Monday``, ``it is hunter2``, ``old: O new: X``), outside
    ``hits``; not a path, a URL, a host, an address, a name and a number (:data:`_NAME_NUMBER`) or a password
    manager's name (:data:`_VAULTS`)."""
    found = []
    for m in _VALUE_WORD.finditer(text):
        a, b = m.span("w")
        w = text[a:b]
        if (any(c in w for c in "./@=") or w.lower() in _VAULTS or any(h.start < b and a < h.end for h in hits)
                or _NAME_NUMBER.fullmatch(w.lower()) is not None or not password_token_ok(w)):
            continue
        found.append(Hit(NAMED_RULE, a, b))
    return tuple(found)


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
    for start, run in prefilter.plan(RULES).gate_runs:   # the anchors in order, a run skipped when its start is absent
        if start not in low:
            continue
        for a in run:
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


def transcript_path_refused(path, real: str | None = None) -> bool:
    """Whether a transcript file is never read because its path holds a
    credential: its name (a session id is taken from it: :func:`name_hits`)
    or its folder (``…/sk-ant-…/x.jsonl``: :func:`path_holds_credential`),
    as given (made absolute) or as resolved (``real``:
    ``os.path.realpath(path)`` when the caller has it, else computed here).
    The whole verdict of ``capture.transcript.transcript_refused`` (redb24,
    tester finding U7: here, so :func:`objstore.core.namerule.name_rule_digest`,
    which hashes this package, changes whenever the verdict can).  ``path``:
    a str or ``os.PathLike``.  Raises ``TypeError`` for anything else."""
    given = os.path.abspath(path)
    for p in {given, real if real is not None else os.path.realpath(given)}:
        if name_hits(os.path.basename(p)) or path_holds_credential(os.path.dirname(p)):
            return True
    return False


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
    (test16b B10: a bare 40-hex token there matched no rule), and so is a
    query parameter named as a key (:data:`URL_KEY_PARAMS`: ``?key=…``, the
    way Google's API keys ride in a URL; test29 P2), or such a parameter in
    its fragment or a path segment (``#key=…``, ``/v1;key=…``; red30)."""
    if name_hits(name) or (url and (_url_userinfo(name) or _url_key_param(name))):
        raise InvalidInput(f"the {what} holds a credential: it would be stored in the clear in {where}",
                           hint=hint or ("name what the value is, not the value" if what == "key"
                                         else f"name the {what} for what it is, not with a secret"))


#: query parameter names (folded: lower case, ``-`` as ``_``) whose value is a credential in a URL:
#: Google API keys (``key``), Azure and gateway keys (Azure Functions' ``code``), OAuth tokens and codes,
#: SAS/presigned signatures
URL_KEY_PARAMS = frozenset({"key", "api_key", "apikey", "x_api_key", "token", "access_token", "auth", "auth_token",
                            "password", "pass", "pwd", "secret", "client_secret", "sig", "signature",
                            "x_amz_signature", "x_goog_signature", "subscription_key", "code"})


#: ``scheme://user:password@`` where the password holds a ``/`` (AWS and MinIO secret keys do), which
#: puts its ``/`` before the ``@`` (test29b Q2); not ``host:port/…@`` (a port is digits then ``/`` or the end)
_SLASHED_USERINFO = LazyPattern(r"(?i)^\s*[a-z][a-z0-9+.\-]*://[^/@:\s]+:(?!\d+(?:[/?#]|\s*$))[^\s@]*@")


def _url_key_param(text: str) -> bool:
    """Whether the URL ``text`` has a parameter of :data:`URL_KEY_PARAMS`
    with a value: in its query (RFC 3986 3.4: what follows the first ``?``,
    up to a ``#``; parameters split on ``&`` and ``;``), and (red30) in its
    fragment (3.5: ``#key=…``, ``#access_token=…`` as OAuth's implicit grant
    returns it) or a path segment's parameters (3.3: ``/v1;key=…``); a
    parameter whose ``=`` is percent-encoded (``?key%3D…``), and a path
    segment shaped like a generated key (:func:`_generated`) (test30 R6)."""
    from urllib.parse import unquote, urlsplit   # defer: a URL check only
    try:
        u = urlsplit(text.strip())
        segments = u.path.split("/")
        parts = [u.query, u.fragment, *(seg.partition(";")[2] for seg in segments)]
    except ValueError:                           # (an unbalanced '[' in the host): every part after a delimiter
        parts, segments = text.replace("?", "&").replace("#", "&").split("&")[1:], []
    for part in ";".join(parts).replace(";", "&").split("&"):
        name, eq, val = part.partition("=")
        if not eq:   # '=' itself percent-encoded (?key%3DX, test30 R6) is the same parameter to a server that decodes
            name, eq, val = unquote(part).partition("=")
        if eq and val.strip() and unquote(name).strip().lower().replace("-", "_") in URL_KEY_PARAMS:
            return True   # (a name percent-encoded, ?api%5Fkey=, is the same name: test29b Q2)
    return any(_generated(seg.partition(";")[0]) for seg in segments)


def _generated(segment: str) -> bool:
    """A path segment shaped like a generated key (a gateway's ``/<key>/v1``,
    test30 R6): 24+ characters of letters, digits, ``-`` and ``_``, upper
    and lower case, digits in 3 or more runs (a commit hash or a UUID has
    one case; ``ReferenceGuide2024`` one run)."""
    return (len(segment) >= 24 and _KEYISH.fullmatch(segment) is not None and not segment.islower()
            and not segment.isupper() and len(_DIGIT_RUNS.findall(segment)) >= 3)


_KEYISH = LazyPattern(r"[A-Za-z0-9_\-]+")
_DIGIT_RUNS = LazyPattern(r"\d+")


def _url_userinfo(text: str) -> bool:
    """Whether ``text`` is ``scheme://…@…`` with an ``@`` before the first
    ``/`` after the scheme (RFC 3986 3.2.1 userinfo)."""
    scheme, sep, rest = text.strip().partition("://")
    return bool(sep) and scheme.replace("+", "").isalnum() and (
        "@" in rest.split("/", 1)[0] or _SLASHED_USERINFO.search(text) is not None)
