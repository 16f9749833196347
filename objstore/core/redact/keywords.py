"""The credential keywords of :mod:`objstore.core.redact` and the key-name rule: :data:`KW`, the
words a generic keyword assignment's name ends with (``password``, ``DB_PASS``, ``api_key``,
``client_secret``, ``DB_PASSWORD_V2``), and :func:`credential_name`, what a fact key's last part
says its value is by the same words (split from :mod:`.scanners` by red32 for the module size
limit; the scanners, the command-line and ``mem remember`` rules all read these)."""

from __future__ import annotations

from objstore.core.redact.checks import PIN_CODE_OWNERS, pin_ok
from objstore.core.redact.rule import FLAGS, Lazy

# ``key`` alone is too common (cache_key, primary_key); it counts only as the
# end of api_key / access_key / auth_key / private_key (fixed-width look-behinds).
#: redb22 (tester finding X10): also ENCRYPTION_KEY / SIGNING_KEY (a symmetric key named by its use: Laravel's
#: APP_KEY is an encryption key, "Encryption" https://laravel.com/docs/11.x/encryption ) and ``passcode``
#: red23 (tester finding Y3): also MASTER_KEY (Rails' RAILS_MASTER_KEY decrypts credentials.yml.enc, "Custom
#: Credentials" https://guides.rubyonrails.org/security.html#custom-credentials ) and APP_KEY (Laravel's encryption key)
#: red27b (test27 V9): also a name ending ``_CREDENTIAL(S)`` (``MY_SERVICE_CREDENTIAL=…``), a secret label like ``_TOKEN``
#: red29 (test29 P5): also STRIPE_KEY (Laravel Cashier's name for the Stripe key, https://laravel.com/docs/11.x/billing )
#: red30: also a URL's ``key`` parameter in its query, fragment or path (``?key=``, ``#key=``, ``;key=``: Google's
#: API keys ride so, https://cloud.google.com/docs/authentication/api-keys-use )
#: red31b (test31 U1): name segments after the word ('DB_PASSWORD_V2', 'db.password.prod', camel 'smtpPasswordProd'), not
#: after a bare 'pass' ('pass_stmt:'), unless one names a setting about the credential or a file
#: red32 (red31b's left-out): also a version of the credential ('dbPasswordOld', 'smtpPasswordNew', 'PASSWORD_PREV')
#: red33: 'digest' names a setting as 'hash' does ('PASSWORD_DIGEST=sha256'); a hash's value is hashes.py's rule
_ENV = (r"(?:prod|production|staging|stage|dev|test|qa|uat|local|live|primary|replica|main|\d{1,2}"
        r"|old|new|prev|previous|current|backup|temp|tmp)")
_NOT_CRED = (r"(?:[a-z0-9]{0,16}[_.\-]{1,2}){0,3}(?:min|max|length|len|size|chars|expiry|expires?|expiration|ttl|timeout|lifetime|age"
             r"|file|path|dir|url|uri|endpoint|host|name|type|kind|policy|hash|hasher|digest|algo|algorithm|rounds|cost|regex|pattern|rules?"
             r"|encoder|encoding|format|header|prefix|field|param|manager|arn|id|backend|store|provider|source|ref|issuer|audience"
             r"|scopes?|enabled?|disabled?|required|reset|hint|prompt|label|strength|complexity|history|count|limit|interval|used"
             r"|usage|env|var|mode|input|column|placeholder|message|msg|error|text|title|changed|updated|created|at|date|time"
             r"|seconds|secs|ms|minutes|mins|days|hours|check|validator|validation|verify|last|protected|scanning"
             r"|less|fields?|location|mount|vars|budget|rotation|rotate|cache|stats|counts?"
             r"|pyc?|[ch]|cc|[ch]pp|rs|go|[jt]sx?|mjs|rb|java|kt|php|json|ya?ml|toml|ini|cfg|conf|txt|md|sh|lock|log|html|css"
             r"|sql|swift|cs|exs?|lua|pl|scala|vue|proto|tf|xml)(?![a-z])")   # a file ('test_token.py::test_x', 'token.c:572:')
#: the words before ``key`` that make it a keyword of :data:`KW` (``api_key``); keysuffix.py leaves these names to it
KEY_OWNERS = ("api", "access", "auth", "private", "encryption", "signing", "master", "app", "stripe", "admin")
KW = (r"(?:passw(?:or)?d|passwort|passphrase|passcode|pwd|pw(?<![a-z0-9]pw)(?![a-z0-9])|pass(?<=_pass)(?![a-z])|pass(?<![a-z0-9_]pass)(?![a-z0-9])|secret|token|(?<=_)credentials?(?![a-z])|key(?:"
       + "|".join(f"(?<={o}key)|(?<={o}[_\\- ]key)" for o in KEY_OWNERS) + r"|(?<=[?#;&]key)))"
       r"(?:[ _-]?(?:key(?:[_-]base)?|token|value|(?<=pass_)code|(?<=pass-)code))?"
       r"(?:[_.\-]{0,2}" + _ENV + r"(?![a-z]))?(?:(?<!pass)(?:[_.\-]{1,2}(?!" + _NOT_CRED + r")[a-z0-9]{1,16}){1,4})?")   # key_base: Rails' SECRET_KEY_BASE; 'API key:', 'secret key:'; red23: 'pass_code'

GEN_ANCHORS = ("pass", "pw", "secret", "token", "credential", "key")   # every KW alternative starts with one
_NAME_RE = Lazy(r"(?:" + KW + r")\Z", FLAGS)
#: red27b (test27 V11): last words of a key naming a credential the keywords miss (lowercased, after a
#: separator or alone): a credentials file, a private key, a Wi-Fi pre-shared key, a one-time-password seed,
#: 2FA recovery codes, a cookie (a session's bearer)
#: red32 (test31b V4): a wallet's seed phrase or mnemonic, a TOTP or 2FA seed ('wallet-seed', 'seed-phrase', 'mnemonic',
#: 'totp', 'mfa-seed'); not a bare 'seed' (a database's or a random generator's)
#: red39 (test39 T2): the short 'creds'/'cred' ('db-creds', 'creds2'), and a stage after the word ('db-creds-prod')
_NAME_WORD_ANCHORS = ("cred", "privkey", "psk", "otp", "codes", "cookie", "mnemonic", "seed", "phrase")   # one is in every match: no compile without
_NAME_WORDS_RE = Lazy(r"(?:\A|[_.\- ])(?:cred(?:ential)?s?|privkey|psk|t?otp(?:[_-]?(?:seed|secret|key))?|recovery[_-]?codes?"
                      r"|backup[_-]?codes|(?:session[_-]?)?cookies?|mnemonic|(?:seed|recovery)[_-]?(?:phrase|words)"
                      r"|(?:wallet|mfa|2fa)[_-]?(?:seed|secret))(?:[_-]?[0-9]{1,3})?(?:[_.\-]{1,2}" + _ENV + r")?\Z", FLAGS)   # red33b: 'wallet-seed2'


#: test38 T1: the last words of a key that name a PIN or an access code ('user/pin', 'bank-pin', 'door-code',
#: 'safe-combination', 'sim-puk', 'cvv', 'ssn'); a code's word counts after a word of PIN_CODE_OWNERS or 'pin'
_PIN_WORDS = frozenset({"pin", "pincode", "puk", "cvv", "cvv2", "cvc", "cvc2", "ssn"})
_CODE_WORDS = frozenset({"code", "combination", "combo"})
#: a PIN's value: 2-6 digit groups joined by '-' or a space, 4-19 digits (a PIN, a card's or an SSN's groups)
_PIN_GROUPS = Lazy(r"\d{2,6}(?:[- ]\d{2,6}){0,3}", FLAGS)


def _pin_name(seg: str) -> bool:
    """Whether ``seg`` (a key's last part, lowercased) says its value is a PIN or an access code (:data:`_PIN_WORDS`;
    ``code``/``combination`` after a word of ``checks.PIN_CODE_OWNERS`` or ``pin``): ``pin``, ``bank-pin``,
    ``door-code``, ``safe_combination``, ``bank-pin-2``; not ``zip-code``, ``error-code``, ``pin-version``."""
    if not seg.isascii():   # (test39b B3: full-width 'ｐｉｎ', accented 'pín' read as 'pin')
        import unicodedata
        seg = "".join(c for c in unicodedata.normalize("NFKD", seg) if not unicodedata.combining(c)).lower()
    words = seg.replace("-", " ").replace("_", " ").replace(".", " ").split()
    while words and words[-1].isdigit():   # 'pin2'-like numbering: 'bank-pin-2'
        words.pop()
    if len(words) > 1 and words[-1] in ("number", "no", "num") and words[-2] in _PIN_WORDS:
        words.pop()   # 'pin-number' (test39b B3)
    if not words:
        return False
    last = words[-1].rstrip("0123456789") or words[-1]
    if last.endswith("s") and last[:-1] in _PIN_WORDS:   # 'pins' (test39b B3)
        last = last[:-1]
    for end in ("pin", *_CODE_WORDS):   # glued to its owner: 'bankpin', 'doorcode' (test39b B3)
        if last.endswith(end) and last[:-len(end)] in PIN_CODE_OWNERS:
            return True
    return last in _PIN_WORDS or (last in _CODE_WORDS and len(words) > 1
                                  and (words[-2] in PIN_CODE_OWNERS or words[-2] == "pin"))


def pin_code_ok(v: str) -> bool:
    """``v`` is a code a key of kind ``"pin"`` (:func:`credential_name`) holds: a PIN (:func:`~.checks.pin_ok`:
    ``4471``, ``kq77``), or 2-6 digit groups joined by ``-`` or a blank with 4 to 19 digits in all (``4471-9982``,
    ``5520 1199 3377``); not ``13`` (an LED's pin), ``2024-05-01`` (a date)."""
    if pin_ok(v):
        return True
    return (_PIN_GROUPS.fullmatch(v) is not None and 4 <= sum(c.isdigit() for c in v) <= 19
            and not (len(v) == 10 and v[4] == v[7] == "-"))


def credential_name(name: str) -> str | None:
    """What the last ``/``-part of ``name`` (a fact key) says its value is,
    by the keywords of the generic-secret rule (:data:`KW`) at its end:
    ``"password"`` for ``project/api/staging-password``, ``db_passwd``,
    ``wifi-passphrase``, ``DB_PASS``, ``pwd``; ``"secret"`` for
    ``github-token``, ``api-key``, ``openai_api_key``, ``client-secret``,
    ``secret-key-base``; None for ``password-policy``, ``tokens``,
    ``token-budget``, ``keyboard``, ``bypass``.  red27b (test27 V11): also
    ``"password"`` for a camel-case ``…Pass`` (``DbPass``), ``"secret"``
    for a last word naming a credential (:data:`_NAME_WORDS`:
    ``credentials``, ``privkey``, ``wifi-psk``, ``otp-seed``,
    ``recovery-codes``, ``session-cookie``; red39: ``db-creds``,
    ``creds-prod``); red34: a number after the
    name is read past (``db-pass3``, ``pw2``, ``api-key-2``).  pin39
    (fresh38 F15): ``"pin"`` for a name of a PIN or an access code
    (``user/pin``, ``bank-pin``, ``door-code``, ``sim-puk``, ``cvv``: its
    value is checked by :func:`pin_code_ok`), where no keyword above says
    more."""
    raw = name.rsplit("/", 1)[-1]
    seg = raw.lower()
    if any(a in seg for a in _NAME_WORD_ANCHORS) and _NAME_WORDS_RE.search(seg):
        return "secret"
    if raw.endswith("Pass") and raw[-5:-4].islower():
        return "password"
    # every match of :data:`KW` starts with one of its anchors: a name without any never
    # compiles the pattern (~2-4 ms: remember and the prompt hook check every key and id)
    if not any(a in seg for a in GEN_ANCHORS):
        return "pin" if _pin_name(seg) else None
    # red34 (red33b's left-out): a numbered credential ('db-pass3', 'api-key-2') is read as its name without the
    # number, as ``wallet-seed2`` is; in text the keyword rule keeps 'pass2' a program's pass
    bare = seg.rstrip("0123456789")
    for name in (seg, bare.rstrip("_.-")) if 0 < len(seg) - len(bare) <= 3 else (seg,):
        for m in _NAME_RE.finditer(name):
            return "password" if name.startswith(("pass", "pw"), m.start()) else "secret"
    return "pin" if _pin_name(seg) else None
