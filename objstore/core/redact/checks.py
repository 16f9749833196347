"""Value checks of :mod:`objstore.core.redact`: whether a matched value is a credential
(a rule's ``check``) rather than code, prose, a reference or a placeholder."""

from __future__ import annotations

from objstore.core.redact.rule import FLAGS, IFLAGS, Lazy
from objstore.core.redact.tokenshape import entropy as _entropy, glued_in_random
from objstore.core.rxcache import compile_pattern, escape

_PLACEHOLDERS = ("xxx", "***", "...", "your", "example", "changeme", "change_me", "placeholder",
                 "redacted", "dummy", "sample", "replace", "insert", "todo", "fixme", "<", ">")
_PLACEHOLDER_RE = Lazy("|".join(map(escape, _PLACEHOLDERS)), IFLAGS)
_IDENT_RE = Lazy(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*", FLAGS)
_HEX_RE = Lazy(r"[0-9a-f]+|[0-9A-F]+", FLAGS)
_WORDY_RE = Lazy(r"[A-Za-z_.-]+", FLAGS)
_DIGITS = frozenset("0123456789")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LETTERS = _LOWER | _UPPER
_CAPS_WORD = _UPPER | {"_"}     # ``PASSWORD``, ``MY_PW``: a placeholder or a variable's name, not a value

#: words that mark a value as a placeholder when the whole value is made of them and of
#: :data:`_PLACEHOLDER_FILLER` (``your_password_here``, ``example-password``, ``change-me``):
#: after a label or under a credential name (red10) only such a value is a placeholder;
#: ``Example#2024`` or ``dummy-Pa55`` is not, nor ``test`` or ``my-password`` (no marker)
_PLACEHOLDER_MARKERS = frozenset((
    "xxx xxxx changeme change placeholder redacted example sample dummy replace insert enter todo fixme tbd "
    "your here".split()))
_PLACEHOLDER_FILLER = frozenset((
    "me put my the a an new goes this value pass password passwd pwd pw passphrase secret token key api "
    "apikey access auth db database".split()))
#: one word alone that is a placeholder (besides the markers): the credential's own name
_PLACEHOLDER_NAMES = frozenset("password passwd pwd passphrase secret token".split())
_PLACEHOLDER_SPLIT_RE = Lazy(r"[-_ .]+", FLAGS)
_REFERENCE_RE = Lazy(r"\$\{[^{}]{1,128}\}|\$[A-Za-z_][A-Za-z0-9_]{0,127}|%[A-Za-z_][A-Za-z0-9_]{0,127}%"
                     r"|<[^<>]{1,128}>|\{\{[^{}]{1,128}\}\}|\{[A-Za-z_][A-Za-z0-9_.]{0,127}\}|%\(?[a-z_]*\)?s", FLAGS)


def is_placeholder(v: str) -> bool:
    """The WHOLE of ``v`` (stripped) stands in for a credential rather than
    being one: empty; a run of ``x``, ``*``, ``.`` or ``#`` (``xxxx``,
    ``***``, ``...``); a reference or template (``${VAR}``, ``$VAR``,
    ``%VAR%``, ``<password>``, ``{{ pw }}``, ``{pw}``, ``%s``); a value
    already redacted (``[REDACTED:rule]``); or only
    placeholder words joined by ``-``, ``_``, ``.`` or blanks, one of them
    a marker (:data:`_PLACEHOLDER_MARKERS`: ``changeme``, ``example``,
    ``your-password``, ``your_password_here``, ``example_password``; in
    capitals too: ``YOUR_TOKEN``), or the credential's name alone
    (``password``); not ``test`` or ``my-password``, which are passwords.  A value that merely holds such a word
    (``Example#2024``, ``sample!Pw9``, ``myexamplepass1``,
    ``hunter2EXAMPLE``) is not: :func:`not_placeholder` and the prose
    checks still use the substring test, a label or a credential name this
    one (red10)."""
    v = v.strip().strip("\"'`:")        # pip's masked 'user:****' leaves ':****'
    if not v or set(v) <= set("xX*.#•·-_ ") or "[REDACTED:" in v or _REFERENCE_RE.fullmatch(v):
        return True
    words = [w for w in _PLACEHOLDER_SPLIT_RE.split(v.lower()) if w]
    if len(words) == 1 and words[0] in _PLACEHOLDER_NAMES:
        return True
    marked = [w in _PLACEHOLDER_MARKERS or set(w) <= {"x"} for w in words]
    return any(marked) and all(m or w in _PLACEHOLDER_FILLER for m, w in zip(marked, words))


def _placeholder(v: str, labelled: bool) -> bool:
    """The placeholder test a check applies: the whole value (:func:`is_placeholder`)
    after a label or under a credential name, else any placeholder word inside it
    unless it is :func:`~.tokenshape.glued_in_random` (red34, test33 T19)."""
    if labelled:
        return is_placeholder(v)
    hits = list(_PLACEHOLDER_RE.finditer(v))
    return bool(hits) and not glued_in_random(v, hits)


def looks_secret(v: str, *, labelled: bool = False) -> bool:
    """True when an assigned value looks like a credential rather than code or prose.

    Conservative: identifiers and dotted names (``tokens``, ``self.secret``,
    ``nextToken2``), paths, URLs, numbers, ``$VAR``/``%s``/``{x}`` references and
    placeholders (``your_token``, ``xxxx``, ``changeme``) are not secrets.  A
    value needs letters mixed with digits or symbols and a character entropy
    typical of random strings (>= 3 bits/char); an identifier-shaped value
    needs more (mixed case, >= 2 digits, >= 12 chars, >= 3.3 bits/char).
    ``labelled``: the value follows an explicit password label, so only a
    whole placeholder (:func:`is_placeholder`) is one (``Example#2024`` is
    a password there).
    """
    n = len(v)
    if n < 8 or n > 4096 or v[0] in "$%/~.#{" or _WORDY_RE.fullmatch(v):
        return False                       # identifiers, dotted names, words joined by - or .
    chars = set(v)
    if len(chars) < 8 or chars.isdisjoint(_LETTERS):
        return False                       # < 3 bits/char; numbers, dates, punctuation
    if "://" in v or _placeholder(v, labelled):
        return False
    if _IDENT_RE.fullmatch(v):
        # identifier-shaped (so with digits): code (``token2``, ``api_key_v2``) unless
        # it reads as random (hex digests, mixed-case keys with several digits)
        digits = sum(c in _DIGITS for c in v)
        if n >= 16 and digits >= 2 and _HEX_RE.fullmatch(v):
            return _entropy(v) >= 3.0
        if n >= 16 and digits >= 2 and _hex_groups(v):   # test25 T3: 'a1b2c3d4_e5f6a7b8_c9d0e1f2_a3b4c5d6'
            return _entropy(v.replace("_", "")) >= 3.0
        return (n >= 12 and digits >= 2 and not chars.isdisjoint(_UPPER) and not chars.isdisjoint(_LOWER)
                and _entropy(v) >= 3.3)
    return _entropy(v) >= 3.0


def _hex_groups(v: str) -> bool:
    """test25 T3: ``v`` is groups of 4+ hex digits joined by ``_``, each
    holding a digit (``a1b2c3d4_e5f6a7b8``): a token printed in groups, not
    a snake_case name (``next_token2``, ``cafe_bead``: a group without a digit)."""
    groups = v.split("_")
    return len(groups) > 1 and all(len(g) >= 4 and _HEX_RE.fullmatch(g) and not set(g).isdisjoint(_DIGITS)
                                   for g in groups)


_SNAKE_RE = Lazy(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", FLAGS)
_NOT_VALUES = frozenset({"none", "null", "nil", "true", "false", "undefined", "required", "optional",
                         "string", "str", "bytes", "int", "text", "hidden", "empty", "unset", "secret",
                         "password", "passwd", "passphrase", "token"})


def looks_assigned(v: str, *, password: bool, quoted: bool, labelled: bool = False) -> bool:
    """True when a value assigned to a credential keyword is a credential even
    though it does not look random (:func:`looks_secret` missed it): a human
    password (``password=hunter2``, ``PGPASSWORD=mydbpass99``), a short
    ``token=abc123def456``.  Letters with digits or symbols, at least 6
    characters after a password keyword (``password``, ``passwd``,
    ``passphrase``, ``pwd``) and 8 after the others; or, after a password
    keyword, any quoted string literal of 4+ characters (a hard-coded
    password, as bandit's B105 flags it).  Never: references (``$X``,
    ``%s``, ``{x}``), paths and URLs, placeholders, words and dotted names
    without digits (code: ``password=password``, ``token=self.token``),
    snake_case identifiers (``next_token2``, ``api_key_v2``), literals such
    as ``None`` or ``true``.  ``labelled``: after an explicit password
    label only a whole placeholder is one (:func:`is_placeholder`)."""
    n = len(v)
    if n < 4 or n > 4096 or v[0] in "$%/~.#{" or "/" in v or "://" in v or _placeholder(v, labelled):
        return False
    if v.lower() in _NOT_VALUES or v.isdigit():
        return False
    if quoted and password:
        return True
    if n < (6 if password else 8) or _WORDY_RE.fullmatch(v) or _SNAKE_RE.fullmatch(v):
        return False
    chars = set(v)
    return not chars.isdisjoint(_LETTERS) and not (chars <= _LETTERS | {"_", "-", "."})


def not_placeholder(v: str) -> bool:
    """``Authorization: Bearer your-token-here`` is documentation, not a credential."""
    return _PLACEHOLDER_RE.search(v) is None


def basic_credentials_ok(v: str) -> bool:
    """red27b (test27 V9): ``v`` is base64 (RFC 4648 s4, padding optional) of
    ``user-id:password`` as RFC 7617 s2 builds HTTP Basic credentials: it
    decodes to printable UTF-8 text without blanks holding a ``:`` with a
    user before it and a password after it (``YWxpY2U6V29uZGVybGFuZDk5`` is
    ``alice:Wonderland99``), and is no placeholder.  So a ``Basic <x>``
    outside an ``Authorization:`` header (``AUTH=Basic …``, ``BASIC_AUTH=…``)
    is taken only when it is one; a word after ``basic`` never decodes so."""
    import base64
    import binascii
    body = v.rstrip("=")
    if len(body) < 8 or len(body) % 4 == 1 or not not_placeholder(v):
        return False
    try:
        text = base64.b64decode(body + "=" * (-len(body) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    user, sep, pw = text.partition(":")
    return bool(sep and user and pw) and text.isprintable() and not any(c.isspace() for c in text)


def bearer_ok(v: str) -> bool:
    """A bare ``Bearer <x>`` (no Authorization header) counts only when x looks random."""
    v = v.rstrip("=")
    return (len(v) >= 20 and any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
            and _entropy(v) >= 3.0 and not _PLACEHOLDER_RE.search(v))


_URL_PW_WORDS = frozenset({"pass", "password", "passwd", "pwd", "pw", "secret", "token", "changeme"})


def url_password_ok(v: str) -> bool:
    """Skip ``$VAR``/``%(x)s``/``<password>``/``{pw}`` placeholders and the words
    docs use in their place (``user:pass@``, ``joe:password@``); keep the rest."""
    return not (v.startswith(("$", "%", "<", "{", "*")) or v.lower() in _URL_PW_WORDS
                or _PLACEHOLDER_RE.search(v))


_PHRASE_PIN_RE = Lazy(r"[0-9]{4,12}", FLAGS)


def phrase_secret(v: str) -> bool:
    """The token after ``password is`` looks like a password, not a word of
    prose (``the password is stored in vault``, ``password is required``):
    at least 6 characters, not a placeholder, and a digit, a symbol, or an
    upper-case letter after the first character (``hunterUniq2024``,
    ``HookNatPw0``, ``s3cret!``)."""
    return _phrase_shape(v, labelled=False)


def _phrase_shape(v: str, *, labelled: bool) -> bool:
    """:func:`phrase_secret`'s test; ``labelled``: only a whole placeholder is one."""
    if len(v) < 6 or v.startswith(("$", "%", "<", "{", "*")) or _placeholder(v, labelled):
        return False
    return any(c.isdigit() or not c.isalnum() for c in v) or (
        any(c.isupper() for c in v[1:]) and any(c.islower() for c in v))


def labelled_phrase_ok(v: str) -> bool:
    """The token of a dash label ``Password - X`` (red10): shaped like a
    password as :func:`phrase_secret` asks (``hunter2``; not ``required``),
    and not a whole placeholder (:func:`is_placeholder`): ``Example#2024``
    is a password there, ``<password>`` and ``your-password`` are not.  A
    trailing ``!`` is taken with the token but does not make one
    (``Password - Changeme2024!`` loses the ``!`` too; ``Password - never!``
    stays)."""
    return _phrase_shape(v.rstrip("!"), labelled=True)


#: red17: a short PIN-like token of letters and digits (``kq77``, ``7ab9x2``): 4-8 characters, 2+ of each
_PIN_MIXED_RE = Lazy(r"(?=(?:[a-z]*[0-9]){2})(?=(?:[0-9]*[a-z]){2})[a-z0-9]{4,8}", FLAGS)
#: red17 (the statement guard's false positive 'GPIO17 is the LED pin'): a hardware pin's name, a GPIO
#: (``gpio17``, ``gp2``, ``io5``), a port pin (``pa15``, ``pb3``), an Arduino pin (``d13``, ``a0``)
_HW_PIN_RE = Lazy(r"(?:gpio|gp|io|p[a-k]|d|a|pin)[0-9]{1,3}", FLAGS)
#: red17: words of a board's pin (a GPIO, a header's, an LED's), not a personal identification number: a
#: statement holding one names no PIN ('GPIO17 is the LED pin', 'pin 18 is the header's data pin')
HARDWARE_WORDS = frozenset((
    "gpio gpios led leds header headers board boards breadboard pcb pinout arduino raspberry rpi esp32 "
    "esp8266 stm32 mcu microcontroller chip sensor relay servo motor button pwm adc dac analog digital i2c spi "
    "uart sda scl miso mosi sck cs tx rx gnd vcc 3v3 5v reset jumper connector data clock power ground input "
    "output signal enable interrupt irq pullup pulldown".split()))
#: red17: what a keypad code opens ('the door code is 4471', 'my alarm code: 4471'); not 'exit', 'status', 'zip'
PIN_CODE_OWNERS = ("door", "gate", "garage", "alarm", "safe", "lock", "lockbox", "keypad", "entry", "building",
                   "locker", "padlock", "combination", "combo", "atm", "sim", "voicemail", "unlock", "phone",
                   "card", "bank", "vault", "access")     # pin42 (test41 T27): 'access code 4471'


def hardware_pin(word: str) -> bool:
    """Whether ``word`` (lower case) names a hardware pin or a board's part
    (:data:`HARDWARE_WORDS`, or a pin's name: ``gpio17``, ``pa15``, ``d13``)."""
    return word in HARDWARE_WORDS or _HW_PIN_RE.fullmatch(word) is not None


def pin_digits_ok(v: str) -> bool:
    """A PIN with no verb before it (``pin 4471``, ``door code 4471``):
    4 to 12 digits only (``pin py311`` pins a Python)."""
    return _PHRASE_PIN_RE.fullmatch(v) is not None


def pin_ok(v: str) -> bool:
    """``my pin is 4821``: a PIN is 4 to 12 digits; or (red17) a short
    PIN-like token of letters and digits, 4-8 characters with two or more
    of each (``kq77``), that names no hardware pin (``gpio17``, ``pa15``:
    :func:`hardware_pin`) nor a scheme (``sha256``)."""
    if _PHRASE_PIN_RE.fullmatch(v) is not None:
        return True
    low = v.lower()
    return _PIN_MIXED_RE.fullmatch(low) is not None and not hardware_pin(low) and low not in _TECH_TOKENS


def mysql_password_ok(v: str) -> bool:
    """``-p$MYSQL_PWD`` / ``-p<password>`` / ``-p****`` are placeholders."""
    return not (v.startswith(("$", "%", "<", "{", "*")) or _PLACEHOLDER_RE.search(v))


_OPENSSL_SOURCES = ("env:", "file:", "fd:", "stdin")


def cli_secret_ok(v: str) -> bool:
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


def bare_password_ok(v: str) -> bool:
    """``I'll use password UpstreamPw777`` (no ``is``, no ``=``): only a token
    that cannot be a word of prose: 8+ characters, letters with digits, and a
    capital or a symbol; not an identifier in snake_case, not a placeholder."""
    return (len(v) >= 8 and any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
            and any(c.isupper() or not c.isalnum() for c in v) and not _SNAKE_RE.fullmatch(v.lower())
            and cli_secret_ok(v))


def quoted_phrase_ok(v: str) -> bool:
    """``the passphrase is "purple monkey dishwasher"``: any quoted value of 4+
    characters that is not a placeholder or a type word (``"required"``)."""
    v = v.strip()
    return len(v) >= 4 and v.lower() not in _NOT_VALUES and not _PLACEHOLDER_RE.search(v) \
        and not v.startswith(("$", "%", "{"))


# ---- more passwords on command lines, in here-strings, in SQL and in chat (redact6) ------------
def net_secret_ok(v: str) -> bool:
    """``net user bob <password>``: not an option (``/add``, ``/delete``,
    ``/domain``) and not ``*`` (prompt), nor a reference or a placeholder."""
    return not v.startswith("/") and cli_secret_ok(v)


def pair_password_ok(v: str) -> bool:
    """The password of ``login admin / Pw!2024x``: looks like a password
    (:func:`phrase_secret`; a trailing ``!`` is taken with the token, red10:
    ``admin / P@ssw0rd!`` loses the whole of it, but does not make a word
    one: ``login as admin / whatever!``) and is not a path, an option or a
    reference (``/``, ``-``, ``$``)."""
    return "/" not in v and not v.startswith("-") and phrase_secret_bang_ok(v) and cli_secret_ok(v)


def sql_literal_ok(v: str) -> bool:
    """A password string literal in SQL: 3+ characters, not a placeholder, a
    reference (``$1``, ``:pw``, ``%s``, ``?``) or a stored hash (``*6BB4…``)."""
    return (len(v) >= 3 and not v.startswith(("$", "%", "<", "{", "*", ":", "?"))
            and v.lower() not in _NOT_VALUES and not _PLACEHOLDER_RE.search(v))


def sql_bare_ok(v: str) -> bool:
    """Oracle's unquoted ``IDENTIFIED BY <password>``: only a token that cannot
    be prose (``identified by email`` is a sentence): :func:`phrase_secret`
    and not a keyword (``VALUES``, ``PASSWORD``, ``RANDOM``)."""
    return v.lower() not in ("values", "password", "random", "externally", "globally") and \
        phrase_secret(v) and cli_secret_ok(v)


#: words of prose or configuration docs: a 'passphrase: ...' holding one is not a passphrase
_PROSE_WORDS = frozenset((
    "a an the is are was were be been not no none null nil set unset empty required optional see use used "
    "using in on of for to from by with without and or but if then when it its this that these those your "
    "my our their his her you we they stored kept read taken given env envvar variable file vault "
    "keychain keyring prompt prompted ask asked same as above below here there default blank yes true "
    "false todo tbd needed must should will can may".split()))


def mixed_case(v: str) -> bool:
    """A random token has both letter cases (``hf_`` + 34 random letters);
    an identifier such as ``hf_downloadconfigurationresolver...`` has one."""
    return any(c.isupper() for c in v) and any(c.islower() for c in v)


def hf_token_ok(v: str) -> bool:
    """``hf_`` + 34..40 letters and digits is a Hugging Face token when it
    reads as random: both letter cases, or, in one case, few vowels (under a
    third of its letters, where English words and identifiers such as
    ``hf_downloadconfigurationresolver`` have ~40%; random letters ~19%) and
    no alphabet run (``abcdefgh...``, ``qwerty...`` is random enough)."""
    return mixed_case(v) or random_letters(v[3:].lower())


def random_letters(body: str) -> bool:
    """``body`` (lower case letters, maybe digits) reads as random rather
    than as words or an identifier: 8+ letters, few vowels (under a third of
    its letters, where English words and identifiers such as
    ``downloadconfigurationresolver`` have ~40%; random letters ~19%), no
    alphabet run (8+ steps of one letter to the next; ``qwerty...`` is
    random enough) and 3.5+ bits of character entropy.  Shared by
    :func:`hf_token_ok` and (red26) a keyword's value of lower-case letters
    alone (``APP_SECRET=qwrtzpkdmfghjlxcvbnm``)."""
    letters = [c for c in body if c in _LOWER]
    if len(letters) < 8:
        return False
    if sum(c in "aeiou" for c in letters) * 3 >= len(letters):
        return False
    return sum(ord(b) - ord(a) == 1 for a, b in zip(body, body[1:])) < 8 and _entropy(body) >= 3.5


#: words of sentences about a password ('the password is reset every ninety days'): an unquoted
#: 'password is <words>' holding one is prose, not a passphrase
_PASSWORD_TALK = frozenset((
    "reset resets rotated rotate changed change changes expired expires expire wrong incorrect invalid "
    "too very every each days day weeks months hours minutes hashed hashing encrypted saved sent generated "
    "shown printed visible displayed logged masked hidden managed handled checked validated verified "
    "long short weak strong secure insecure case sensitive length characters chars letters digits "
    "symbols numbers only also just still now never always then than what which who how where why".split()))


def unquoted_passphrase_ok(v: str) -> bool:
    """``the password is correct horse battery staple`` (unquoted words):
    :func:`word_passphrase_ok`, and no word of a sentence about a password
    (``the password is reset every ninety days``)."""
    return word_passphrase_ok(v) and not any(w in _PASSWORD_TALK for w in v.lower().split())


def phrase_secret_bang_ok(v: str) -> bool:
    """:func:`phrase_secret` of the token without a trailing ``!`` (German
    ``das Passwort lautet Geheim123!``: the ``!`` goes with the password,
    while ``das Passwort ist falsch!`` is still prose)."""
    return phrase_secret(v.rstrip("!"))


def sas_sig_ok(v: str) -> bool:
    """A SAS signature is URL-encoded base64 of 32 bytes: long, random
    (a digit or ``%``, both cases), not a reference (``$SIG``) or a placeholder."""
    return (len(v) >= 30 and any(c.isdigit() or c == "%" for c in v) and mixed_case(v)
            and not _PLACEHOLDER_RE.search(v))


def pair_slash_ok(v: str) -> bool:
    """The password of ``login admin/Pw!2024x`` (no blanks around the
    slash, so a path is likelier than with them): 6+ characters, letters
    and digits, no ``.`` or ``/`` (``users/groups.py``, ``api/v2/login``),
    and a password by :func:`pair_password_ok`."""
    return (len(v) >= 6 and "." not in v and any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
            and pair_password_ok(v))


#: red26: "password" in the languages a translation file holds it in (a quoted ``"password": "mot de passe"`` is
#: a label's translation, not a passphrase), and words of a sentence that tells where a password is
_PASSPHRASE_NOT_WORDS = frozenset((
    "mot de passe passwort kennwort wachtwoord contrasena senha parola heslo haslo salasana adgangskode passord "
    "losenord jelszo sifre geslo lozinka parool via plain plaintext cleartext encrypted hashed salted masked redacted omitted removed hidden "
    "unknown missing disabled enabled interactive keyring keychain vault config configured provided supplied "
    "boolean integer number object array char varchar field input value column".split()))
#: red26: words of a UI text or a help line (``Please contact admin``, ``Confirm current``); red34 (test33 T9): after
#: an explicit label a passphrase may hold some (``Password: open sesame pretty please``), not half its words
_UI_WORDS = frozenset((
    "please contact check get got send email mail login account user username admin ask look find call click show "
    "hide forgot forgotten confirm confirmation current old repeat retype type".split()))
_PASSPHRASE_NOT_WORDS |= _UI_WORDS
_UI_WORDS -= _NOT_VALUES | _PROSE_WORDS | _PASSWORD_TALK   # 'ask' is prose all the same
#: red28 (test27b X1): the function words of German and French prose and UI texts after a ``Passwort:``,
#: ``Kennwort:`` or ``mot de passe :`` label (``nicht gesetzt``, ``siehe den Tresor``, ``voir le coffre``), and
#: words of a heading or a form about passwords (``Password: Storage Best Practices``): a value holding one is
#: no passphrase
_PROSE_DE_FR = frozenset((
    "der die das den dem des ein eine einen einem einer ist sind war nicht kein keine bitte siehe im am an auf "
    "aus bei mit nach von zu zum zur und oder aber wird werden wurde ihr ihre dein deine mein meine unser "
    "gesetzt gespeichert vergessen eingeben \u00e4ndern ge\u00e4ndert falsch leer hier dort noch schon nur auch "
    "wie was wo le la les un une du est sont pas ne voir dans en sur avec pour par et ou mais votre vos mon ma "
    "mes notre ici encore aussi comme d\u00e9fini oubli\u00e9 saisir saisissez entrez modifier vide incorrect "
    "invalide policy policies requirements rules manager management storage recovery strength overview guide "
    "guidelines best practices settings options hint hints protection security authentication lorem ipsum".split()))
#: red26: the most words and characters a multi-word password value may have (a passphrase of 2-6 words)
PASSPHRASE_MAX_WORDS = 6
_PASSPHRASE_MAX = 96


def passphrase_words_ok(v: str, *, quoted: bool, title: bool = False) -> bool:
    """red26 (test25b U4): a password value of several words, read whole:
    ``"correct horse battery staple"``, a Google app password as Google
    shows it (``vbqk lmzt yhrw pxne``, 4 groups of 4 letters).  2 to
    :data:`PASSPHRASE_MAX_WORDS` words (3+ unquoted: a value that runs on to
    its line's end) of 2-16 lower-case ASCII letters joined by single
    blanks, at most 96 characters; no word of prose, of talk about
    passwords, of a type or of where a password is kept (``not set``,
    ``see the vault``, ``reset every day``, ``string or null``; a single
    word's list, :data:`_LABEL_NOT_VALUES`, would refuse ``correct horse
    battery staple`` for ``correct``), no placeholder or
    filler word (``enter new password``, ``your token``), no word of a UI
    text or of "password" in another language (``forgot password``, ``mot de
    passe``).  Capitalised words (``Enter Password``, a UI label) are not
    taken; values with digits or symbols are :func:`looks_assigned`'s.
    ``title=True`` (red28, test27b X1: the words after an explicit password
    label, ``Password: Correct Horse Battery Staple``, ``Passwort: grüner
    Baum blauer Himmel``): a word may also be capitalised or in capitals
    (not mixed inside: ``McDonald``, ``iPhone``) and hold letters beyond
    ASCII; it is judged lowered; red34 (test33 T9): words of a UI text
    (:data:`_UI_WORDS`: ``please``, ``admin``) are kept in under half its
    words (``open sesame pretty please``; not ``Please Contact Admin``)."""
    if len(v) > _PASSPHRASE_MAX:
        return False
    words = v.split(" ")
    if not (2 if quoted else 3) <= len(words) <= PASSPHRASE_MAX_WORDS:
        return False
    ui = 0
    for w in words:
        if title and 2 <= len(w) and w.isalpha() and (w.islower() or w.isupper() or w[1:].islower()):
            w = w.lower()
        if not (2 <= len(w) <= 16 and (title or w.isascii()) and w.isalpha() and w.islower()):
            return False
        if title and w in _UI_WORDS:
            ui += 1
        elif prose_word(w) or w in _PLACEHOLDER_MARKERS or w in _PLACEHOLDER_FILLER:
            return False
    return 2 * ui < len(words)


def prose_word(w: str) -> bool:
    """``w`` (one lower-case word) is a word of prose, of talk about
    passwords, of a type or of where a password is kept, or "password" in
    another language (``the``, ``see``, ``reset``, ``string``, ``vault``,
    ``mot``): a value of several words holding one reads as a sentence or
    a UI text, not a passphrase (red26's :func:`passphrase_words_ok`;
    red27: a settings file's unquoted value, ``password: see the vault``)."""
    return (w in _NOT_VALUES or w in _PROSE_WORDS or w in _PASSWORD_TALK or w in _PASSPHRASE_NOT_WORDS
            or w in _PROSE_DE_FR)


def word_passphrase_ok(v: str) -> bool:
    """``passphrase: correct horse battery staple``: 3+ words, none a word
    of prose or docs (``not set``, ``see the vault``, ``stored in the
    keychain``) nor a placeholder."""
    words = v.lower().replace("-", " ").split()
    return len(words) >= 3 and not any(w in _PROSE_WORDS for w in words) and not _PLACEHOLDER_RE.search(v)



# ---- a value after an explicit password label, and under a credential name (red9) ------------------
#: words that are no password when they stand alone after a password label: types and schema words
#: ('password: string'), states and places ('Password: incorrect', 'password: keychain'), and the
#: words of :data:`_NOT_VALUES`, :data:`_PROSE_WORDS` and :data:`_PASSWORD_TALK`
_LABEL_NOT_VALUES = _NOT_VALUES | _PROSE_WORDS | _PASSWORD_TALK | frozenset((
    "boolean integer number object array any char varchar field input value values column type optional "
    "mandatory sensitive private secure protected plain plaintext cleartext encrypted hashed salted "
    "masked redacted omitted removed hidden unknown missing disabled enabled inherit inherited prompt "
    "interactive keyring keychain vault config configured provided supplied updated accepted "
    "rejected denied matched mismatch correct ok okay fine good bad none passwords secrets tokens "
    "anonymous nobody forgotten forgot lost locked unlocked blocked unchanged different temporary random "
    "automatic manual whatever".split()))
_LABEL_WORD_RE = Lazy(r"(?:[a-z]+|[A-Z][a-z]+)(?:-(?:[a-z]+|[A-Z][a-z]+)){0,9}", FLAGS)


def labelled_password_ok(v: str) -> bool:
    """A value made of letters alone (``correcthorsebattery``, ``Hunter``,
    ``correct-horse-battery``) after an explicit password label
    (``Password:``, ``passwd=``, ``pwd:``, ``DB_PASS=``) with nothing after
    it on its line: a password whatever its shape, unless it reads as code or
    prose.  6+ characters; each word (``-`` joins them) all lower case or
    capitalised (camelCase and PascalCase are identifiers and types in code:
    ``password: hashedPassword``, ``password: SecretStr``; all capitals a
    placeholder or a constant's name); not a whole placeholder
    (:func:`is_placeholder`: ``changeme``, ``your-password``; ``samplepass`` is
    a password); one word: not one
    of :data:`_LABEL_NOT_VALUES` (``password: string``, ``Password:
    incorrect``); several: none a word of prose or of talk about passwords
    (``password: read-only`` is prose, ``correct-horse-battery-staple`` a
    password).  Values with digits or symbols are
    :func:`looks_assigned`'s."""
    if not (6 <= len(v) <= 128 and _LABEL_WORD_RE.fullmatch(v) is not None and not is_placeholder(v)):
        return False
    words = v.lower().split("-")
    if len(words) == 1:
        return words[0] not in _LABEL_NOT_VALUES
    return not any(w in _PROSE_WORDS or w in _PASSWORD_TALK for w in words)


#: the fewest characters of a value :func:`short_labelled_ok` takes after a label
SHORT_LABELLED_MIN = 4


def short_labelled_ok(v: str) -> bool:
    """A short value (``Zq7mm``, ``ab12``, ``pa$$``) alone after an
    explicit password or secret label with nothing after it on its line
    (``Password: Zq7mm``, ``pwd=Zq7mm``, ``secret - Kx9mm``, or on the
    label's next line; scan12): a password, though shorter than the 6
    characters a password needs elsewhere, when it has letters with digits
    or symbols: a word of prose has neither (``password: see below``,
    ``Password: hello``, ``secret: none``: a value of letters alone keeps
    :func:`labelled_password_ok`'s 6-character floor and word lists).
    :data:`SHORT_LABELLED_MIN` (4) characters at least; not digits alone
    (``Password: 1234`` can be a count or a port as well as a PIN), a
    reference, path or URL (``$PW``, ``~/x``, ``a/b``), nor a whole
    placeholder (:func:`is_placeholder`: ``****``, ``<pw>``, ``${PW}``)."""
    if not (SHORT_LABELLED_MIN <= len(v) <= 128) or v[0] in "$%/~.#{<*" or "/" in v or v.isdigit():
        return False
    chars = set(v)
    if chars.isdisjoint(_LETTERS) or chars <= _LETTERS | {"_", "-", "."} or is_placeholder(v):
        return False
    return v.lower() not in _LABEL_NOT_VALUES


#: tokens with letters and digits that name a scheme, encoding or version, not a password
#: ('password sha256', 'password utf8', 'password oauth2'): :func:`prose_token_ok` skips them
_TECH_TOKENS = frozenset((
    "sha1 sha224 sha256 sha384 sha512 sha-1 sha-256 sha-512 md4 md5 utf8 utf-8 utf16 utf-16 base32 base64 "
    "base64url pbkdf2 argon2 argon2i argon2d argon2id scrypt bcrypt ntlmv2 oauth1 oauth2 http2 http3 ipv4 "
    "ipv6 x509 pkcs1 pkcs8 pkcs12 aes128 aes256 aes-128 aes-256 rsa2048 rsa4096 ed25519 2fa mfa totp "
    "v1 v2 v3 s3".split()))
_VERSIONISH_RE = Lazy(r"[a-z]{0,3}[0-9][0-9.\-]*", FLAGS)


#: opening and closing typographic quotes and guillemets (red31b; as in scanners.QUALIFIER)
_TYPO_OPEN = "\u201c\u201e\u2018\u201a\u00ab\u00bb\u2039\u203a\u300c\u300e"
_TYPO_CLOSE = "\u201c\u201d\u2018\u2019\u00bb\u00ab\u203a\u2039\u300d\u300f"


def prose_token_ok(v: str) -> bool:
    """The token right after the word password in prose (``use password
    hunter2x9``, ``noted the password hunter2x9 for staging``; red13b): a
    password when :func:`short_labelled_ok` takes it (letters with digits or
    symbols, 4+ characters, not a prose word, a reference or a placeholder)
    and it reads as no code or tech word: no bracket, ``=``, ``<``, ``>``,
    ``,`` or backslash (``password VARCHAR(255)``, ``password=>x``, a JSON
    line's ``x.\\n-`` escape), not a version or
    number (``v1.2``, ``2.0``) nor a scheme (``sha256``, ``utf8``:
    :data:`_TECH_TOKENS`), nor a word of :data:`_LABEL_NOT_VALUES` with
    a mark (ftplib's ``passwd anonymous@``) or with digits after it
    (``password reset2024``).  Words of letters alone never
    pass: ``password reset``, ``password hashing`` are prose, nor one that
    closes Markdown emphasis (``**Password policy**:``; md21)."""
    v = v.rstrip("!")
    if v[:1] in _TYPO_OPEN and v[-1:] in _TYPO_CLOSE and v[1:-1].replace("-", "").isalpha():
        return False   # red31b (test31 U2): a qualifier in typographic quotes ('DB password “prod”: X')
    if v[-1:] in ("*", "_") and v.rstrip("*_").isalpha():   # md21: a word closing Markdown emphasis ('**Password policy**:')
        return False
    low = v.lower()
    if low.strip("@#*?.-_") in _LABEL_NOT_VALUES:   # a word with a mark ('passwd anonymous@'): prose
        return False
    if low.rstrip("0123456789") in _LABEL_NOT_VALUES:   # a prose word and a number ('password reset2024'): prose
        return False
    return (short_labelled_ok(v) and not any(c in "()[]{}=<>,\\" for c in v) and low not in _TECH_TOKENS
            and _VERSIONISH_RE.fullmatch(low) is None)


def named_value_ok(v: str, *, password: bool) -> bool:
    """``v`` (stripped) is the whole of a value stored under a name that says
    it is a credential (``project/api/staging-password``): a password or a
    key whatever its shape, when it is one token (``hunter2``,
    ``correcthorsebattery``, ``4821``) or a passphrase of 3-10 words of
    letters alone (:func:`unquoted_passphrase_ok`: ``correct horse battery
    staple``).  Not: a note about the credential (``stored in 1Password``,
    ``rotate every ninety days``, ``packed canary-58813 one``), a
    reference, path or URL (``$DB_PASSWORD``,
    ``~/.ssh/id_ed25519``, ``https://vault/…``), a whole placeholder
    (:func:`is_placeholder`: ``changeme``, ``your_password_here``, ``<pw>``;
    not ``Example#2024`` or ``hunter2EXAMPLE``: red10) or a word
    such as ``none``, ``unset`` or ``vault``, a value already redacted;
    and, unless ``password`` (the name says password, passphrase or pin),
    a number (``max-token`` = ``4096``)."""
    if not v or len(v) > 4096 or "[REDACTED:" in v:
        return False
    if any(c.isspace() for c in v):
        words = v.split()
        return (len(words) <= 10 and "\n" not in v and all(w.isascii() and w.isalpha() for w in words)
                and unquoted_passphrase_ok(v))
    low = v.lower()
    return (len(v) >= 4 and "://" not in v and not v.startswith(("$", "%", "{", "<", "/", "~", "*"))
            and low not in _LABEL_NOT_VALUES and low not in _URL_PW_WORDS and not is_placeholder(v)
            and (password or not v.isdigit()))


# ---- vendor tokens that were stored in the clear (red16, tester F9) ------------------------------

def vault_token_ok(v: str) -> bool:
    """A HashiCorp Vault token (``hvs.…``, ``s.…`` after ``vault login``):
    its random base62 / base64url body has both letter cases (24 random
    characters are all one case once in ~10^7), so a lowercase word or
    identifier after the prefix (``hvs.some_module_name_here``) is kept; not
    a whole placeholder (``s.XXXXXXXXXXXXXXXXXXXXXXXX``)."""
    return mixed_case(v[v.index(".") + 1:]) and not is_placeholder(v)


def discord_bot_token_ok(v: str) -> bool:
    """A Discord bot token (``<id>.<time>.<hmac>``, three base64url parts):
    its first part is the bot's user id, a snowflake of 17-20 decimal digits,
    in base64 (``MTIz…`` for ``123…``); it decodes to digits alone, the first
    not 0, and the last part is random (both letter cases).  Anything else of
    that shape (a dotted identifier, a version) is kept."""
    import base64
    import binascii
    first, _mid, last = v.split(".", 2)
    try:
        uid = base64.urlsafe_b64decode(first + "=" * (-len(first) % 4))
    except (binascii.Error, ValueError):
        return False
    return 17 <= len(uid) <= 20 and uid.isdigit() and uid[:1] != b"0" and mixed_case(last)


# ---- cred20: base64-wrapped keys and Kubernetes Secret values ------------------------------------
#: the armor line of a private key (RFC 7468 s2 label, as ``pem.PEM_BODY`` reads it) at the start of a decoded value
_PEM_PRIVATE_HEAD = compile_pattern(rb"-----BEGIN (?:[A-Z0-9]{1,16} ){0,3}PRIVATE KEY(?: BLOCK)?-----")
_B64_BREAKS = Lazy(r"\\{1,3}r|\\{1,3}n|\s", FLAGS)


def _b64_head(v: str, chars: int) -> bytes | None:
    """The bytes the first ``chars`` base64 characters of ``v`` (line breaks, raw or
    escaped, removed; a whole number of 4-character groups) decode to, or None."""
    import base64
    import binascii
    s = _B64_BREAKS.sub("", v[:chars + chars // 2])[:chars]
    try:
        return base64.b64decode(s[:len(s) // 4 * 4], validate=True)
    except (binascii.Error, ValueError):
        return None


def b64_private_key_ok(v: str) -> bool:
    """``v`` (base64 starting ``LS0tLS1CRUdJTi``, which is ``-----BEGIN``) is a
    PEM private key in base64 (a kubeconfig's ``client-key-data``, a Secret's
    ``tls.key``): its first 96 characters decode to an RFC 7468 armor line
    whose label ends ``PRIVATE KEY`` (RSA, EC, OPENSSH, ENCRYPTED, PGP ``...
    BLOCK``).  A certificate (``-----BEGIN CERTIFICATE-----``) or a public
    key is public and kept."""
    head = _b64_head(v, 96)
    return head is not None and _PEM_PRIVATE_HEAD.match(head) is not None


def docker_auth_ok(v: str) -> bool:
    """The ``auth`` of a Docker client's ``config.json`` registry entry (also
    a Kubernetes ``.dockerconfigjson``): base64 (RFC 4648 s4, padded) of
    ``username:password``, both parts non-empty and printable (docker/cli
    ``configfile`` decodeAuth; Docker "docker login": credentials stored in
    the config file are base64-encoded
    https://docs.docker.com/reference/cli/docker/login/).  Any other value
    (an empty ``auth``, a word, base64 of no ``user:pass``) is kept."""
    if len(v) < 8 or len(v) % 4 or len(v) > 4096:
        return False
    raw = _b64_head(v, len(v))
    if raw is None:
        return False
    try:
        s = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    user, sep, pw = s.partition(":")
    return bool(sep and user and pw and s.isprintable())


def k8s_secret_value_ok(v: str) -> bool:
    """The value of a Kubernetes Secret entry named for a key file (``tls.key``,
    ``ssh-privatekey``, ``.dockerconfigjson``): base64 (a ``data:`` entry,
    Kubernetes 'Secrets': values are base64) of 16+ characters that decodes,
    or (a ``stringData:`` entry, a plain value) one that looks random
    (:func:`looks_secret`); not a whole placeholder."""
    if is_placeholder(v):
        return False
    if len(v) >= 16 and len(v) % 4 == 0 and _b64_head(v, len(v) if len(v) <= 4096 else 4096) is not None:
        return True
    return looks_secret(v[:4096], labelled=True)
