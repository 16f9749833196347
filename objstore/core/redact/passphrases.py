"""A passphrase after an explicit password label, read whole (red27, tester finding test26b W7):
red26 read a value of several words after a password label only when each word was a lower-case
word of no prose (:func:`~.checks.passphrase_words_ok`), so a Diceware/xkcd passphrase in Title
Case (``password="Correct Horse Battery Staple"``), one holding a common word (``"open sesame
please"``), of 7+ words, in backticks or after ``PASS=`` kept every word after its first.  Here:

* :func:`quoted_passphrase_ok`: once a password, passphrase or secret label stands before it and a
  quote (``"``, ``'`` or a backtick) closes it, the quoted value is the secret whatever its words or
  case, up to :data:`QUOTED_PHRASE_MAX` characters; only a UI text or a translation of the label
  (it names a password: ``"Enter your password"``, ``"mot de passe"``), a validation message, a
  prompt (``"Password?"``) or a placeholder (``"{{ vault_pw }}"``) is not;
* :func:`settings_words_end`: a YAML or settings file's unquoted value after a password key that
  starts its line (``  password: correct horse battery staple`` in a Kubernetes ``stringData``,
  ``MYSQL_ROOT_PASSWORD: Correct Horse Battery Staple``), or a connection string's field
  (``;Password=Str0ng Pass 1;``), read to the line's (or the field's) end.
"""

from __future__ import annotations

from objstore.core.redact.checks import is_placeholder, prose_word
from objstore.core.redact.rule import FLAGS, Lazy

#: the most characters a quoted passphrase read whole may have (a longer quoted text after a label is help text)
QUOTED_PHRASE_MAX = 128
#: the most words an unquoted settings value read to its line's end may have
_SETTINGS_MAX_WORDS = 12
#: words that name a password or a secret, in English and in the languages a translation file holds the label in
#: (Wiktionary 'password' https://en.wiktionary.org/wiki/password , translations): a quoted value holding one
#: is a UI text or the label's translation ("Forgot password?", "Mot de passe", "Client secret"), not the secret
_NAMES_A_PASSWORD = frozenset((
    "password passwords passwort passphrase passphrases secret secrets passcode kennwort passe "
    "contrasena contrase\u00f1a senha wachtwoord parola heslo haslo has\u0142o salasana adgangskode passord "
    "losenord l\u00f6senord jelszo jelsz\u00f3 sifre \u015fifre geslo lozinka parool "
    "\u043f\u0430\u0440\u043e\u043b\u044c".split()))
#: words of a form's validation message under a password key (``password: "Must be at least 8 characters"``,
#: ``"This field is required"``)
_VALIDATION = frozenset("characters chars required invalid".split())
#: the CJK words for 'password' (a value holding one is the label's translation; :mod:`.markdown` reads a label of
#: them); pin40 (test39b B9): and Japanese 'PIN' (\u6697\u8a3c\u756a\u53f7, 'secret identification number')
#: pin41 (test40 T5): and Chinese '\u53e3\u4ee4' ('password', '\u53e3\u4ee4\u662fX'), Thai '\u0e23\u0e2b\u0e31\u0e2a\u0e1c\u0e48\u0e32\u0e19' ('password', a script
#: written without spaces too: '\u0e23\u0e2b\u0e31\u0e2a\u0e1c\u0e48\u0e32\u0e19\u0e04\u0e37\u0e2d X')
CJK_NAMES = ("\u5bc6\u7801", "\u5bc6\u78bc", "\u30d1\u30b9\u30ef\u30fc\u30c9", "\ube44\ubc00\ubc88\ud638",
             "\ud328\uc2a4\uc6cc\ub4dc", "\u6697\u8a3c\u756a\u53f7", "\u53e3\u4ee4", "\u0e23\u0e2b\u0e31\u0e2a\u0e1c\u0e48\u0e32\u0e19")
#: pin41 (test40 T5): the word for 'password' in Turkish, Vietnamese, Indonesian, Arabic and Hindi (Wiktionary
#: 'password', translations), read as the other languages' words are (:mod:`.markdown`'s label and ':'; the copulas
#: of :mod:`.passwords`); lowercased
ABROAD_NAMES = ("\u015fifre", "m\u1eadt kh\u1ea9u", "kata sandi", "\u0643\u0644\u0645\u0629 \u0627\u0644\u0645\u0631\u0648\u0631",
                "\u0643\u0644\u0645\u0629 \u0627\u0644\u0633\u0631", "\u092a\u093e\u0938\u0935\u0930\u094d\u0921")
#: red26b (test26 V2): what joins a CJK label to its value: a full-width colon (U+FF1A), ':' or '=' with no blank
#: after it, or the copula or topic particle (Chinese \u662f/\u4e3a/\u70ba 'is', Japanese \u306f, Korean \ub294/\uc740);
#: moved from :mod:`.markdown` (pin40: a PIN's rule reads it too, :data:`~.pinlabels.PIN_JOIN`)
#: pin41 (test40 T5): and the Korean subject particle (\uac00/\uc774: '\ube44\ubc00\ubc88\ud638\uac00 4471')
CJK_JOIN = "\uff1a:=\u662f\u4e3a\u70ba\u306f\ub294\uc740\uac00\uc774"
#: pin41 (test40 T5): a join of more than one character: the Thai copula \u0e04\u0e37\u0e2d ('is')
THAI_IS = "\u0e04\u0e37\u0e2d"
#: what joins a CJK label to its value, as a regex: a character of :data:`CJK_JOIN` or :data:`THAI_IS`
CJK_JOINS = "(?:[" + CJK_JOIN + "]|" + THAI_IS + ")"
#: a template or a reference inside a value (``"{{ lookup('env', 'PW') }}"``, ``"${USER} ${PASS}"``, ``"%(pw)s"``)
_TEMPLATE = ("{{", "${", "%(", "{%", "<%")


def quoted_passphrase_ok(v: str) -> bool:
    """red27 (W7): ``v``, the whole content of a quoted literal (quotes and
    JSON escapes removed) after an explicit password, passphrase or secret
    label, holding a blank: the secret whatever its words or case
    (``Correct Horse Battery Staple``, ``open sesame please``, ``Winter 2025
    pass``, 7+ words), unless it is longer than :data:`QUOTED_PHRASE_MAX`
    characters, holds a line break or starts or ends with a blank (a
    closing quote read as an opening one: ``JWT_SECRET=` and more `x``); a word naming a password or a secret
    in any language of :data:`_NAMES_A_PASSWORD` or a CJK one (a UI text or
    a translation: ``Enter your password``, ``mot de passe``, ``Client
    secret``); a word of a validation message (:data:`_VALIDATION`: ``Must
    be at least 8 characters``); ends as a prompt or a label (``?``, ``:``,
    ``...``); holds a template or a reference (``{{ vault_pw }}``,
    ``${USER} ${PASS}``); or is a whole placeholder
    (:func:`~.checks.is_placeholder`: ``your password here``, ``xxx xxx``).
    Values with no blank are the other checks'."""
    if not 3 <= len(v) <= QUOTED_PHRASE_MAX or " " not in v or v != v.strip() or "\n" in v or "\r" in v:
        return False
    t = v.rstrip()
    if t.endswith(("?", ":", "...", "\u2026")) or any(m in v for m in _TEMPLATE) or is_placeholder(v):
        return False
    words = _letter_words(v)
    if not words or any(w in _NAMES_A_PASSWORD or w in _VALIDATION for w in words):
        return False
    return v.isascii() or not any(c in v for c in CJK_NAMES)


#: where a settings file's unquoted value ends: a line break (raw or JSON-escaped), the end of the JSON string
#: that holds the text, or a comment after a blank (``# …``: YAML 1.2.2 6.6, a .env)
_SETTINGS_END = Lazy(r"[ \t]{0,8}(?:\r|\n|\\{1,3}[rn]|\\{0,3}\"[ \t]{0,8}[,}\]]|$|[ \t]#)", FLAGS)
#: the characters of a settings key's name before its password keyword (``MYSQL_ROOT_``, ``db-``, ``smtp.``)
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")
#: YAML's indicators that open a value that is no plain scalar (YAML 1.2.2 5.3: a block scalar, a tag, an anchor,
#: an alias, a flow collection, a quote, a comment, reserved), and a reference's start
_NOT_PLAIN = frozenset("|>!&*[{\"'`#%@$<")


def settings_words_end(text: str, p: int, s: int, e: int, we: int) -> int:
    """red27 (W7): where the unquoted value of several words after the
    password keyword at ``p`` of ``text`` ends, when it is a settings
    file's: read from ``s`` (its first word's run stopped at a blank at
    ``e``) to its line's end or a ``# comment`` (:data:`_SETTINGS_END`),
    when the key starts its line (blanks or a YAML sequence's ``- `` before
    its name) and ``:`` follows it, the name in lower case or in capitals
    (``password:``, ``db_password:``, ``MYSQL_ROOT_PASSWORD:``; not
    ``Password:``, a form's or a chat's label); or when the key is a
    connection string's field (``;`` before its name, ``=`` after it) and
    the value ends at the field's ``;`` (``User Id=sa;Password=Str0ng Pass
    1;``).  The value: 2 to 12 words of any case, digits and symbols, at
    most :data:`QUOTED_PHRASE_MAX` characters, not a YAML indicator or a
    reference first (``|``, ``!vault``, ``${PW}``), not a placeholder, no
    word naming a password, and no word of prose (:func:`~.checks.prose_word`:
    ``password: see the vault``, ``password: not set``).  Else -1."""
    if e >= we or text[e] != " " or text[s] in _NOT_PLAIN:
        return -1
    i = p
    while i > 0 and p - i < 64 and text[i - 1] in _KEY_CHARS:
        i -= 1
    j = p
    while j < s and text[j] not in ":=":
        j += 1
    if j >= s or text[j + 1:s].strip(" \t"):
        return -1
    key = text[i:j]
    if text[j] == ":" and j + 1 < s:
        if not (key.islower() or key.isupper()) or not _line_start(text, i):
            return -1
        lim = min(we, s + QUOTED_PHRASE_MAX + 1)
        m = _SETTINGS_END.search(text, e, lim)
        if m is None or (lim < we and m.end() == lim and not m.group().strip()):   # '$' at the cap: no line end
            return -1
        end = m.start()
    elif text[j] == "=" and j + 1 == s and i > 0 and text[i - 1] == ";":
        end = text.find(";", e, min(we, s + QUOTED_PHRASE_MAX + 1))
        if end < 0 or "\n" in text[e:end] or "=" in text[e:end]:
            return -1
    else:
        return -1
    v = text[s:end]
    words = v.split()
    if not 2 <= len(words) <= _SETTINGS_MAX_WORDS or any(m in v for m in _TEMPLATE) or is_placeholder(v):
        return -1
    if any(w in _NAMES_A_PASSWORD for w in _letter_words(v)) or any(
            prose_word(w.strip(".,!")) for w in v.lower().split()):
        return -1
    return end


def _letter_words(v: str) -> list[str]:
    """The runs of letters of ``v`` (any script), lowercased: ``Str0ng Pass`` -> ``str``, ``ng``, ``pass``."""
    return "".join(c if c.isalpha() else " " for c in v.lower()).split()


def _line_start(text: str, i: int) -> bool:
    """Only blanks, or a YAML sequence entry's ``-`` and blanks, stand before offset ``i`` on its line
    (a raw or JSON-escaped line break, or the start of the text or of the JSON string that holds it)."""
    k = i
    while k > 0 and text[k - 1] in " \t":
        k -= 1
    if k > 0 and text[k - 1] == "-":
        k -= 1
        while k > 0 and text[k - 1] in " \t":
            k -= 1
    return k == 0 or text[k - 1] in "\r\n\"" or (text[k - 1] == "n" and text[k - 2:k - 1] == "\\")


