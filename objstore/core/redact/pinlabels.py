"""The pieces of a PIN's label the PIN rules of :mod:`.passwords` and :mod:`.passwordphrases` share: the owners that
make ``pin`` a PIN's word (``card pin``, ``CARD_PIN``), the word itself, an assignment to a PIN's name, the PIN's
label before a verb, and the token a PIN reads as. Split from :mod:`.passwordphrases` (39,860 B, near the
40,960-byte module limit; pin40)."""

from __future__ import annotations

from objstore.core.redact.checks import HARDWARE_WORDS, PIN_CODE_OWNERS, hardware_pin, pin_ok
from objstore.core.redact.passphrases import CJK_JOIN, THAI_IS
from objstore.core.redact.rule import FLAGS, Lazy

#: pin40: a character of a script written without spaces that ends a PIN's token ('4471\u3067\u3059'): CJK punctuation,
#: kana, Han, Hangul, full-width punctuation (not a full-width digit or letter: the token's own)
UNSPACED_END = "\u3000-\u9fff\uac00-\ud7af\uff01-\uff0f\uff1a-\uff20"

#: mend24: an assignment to a name ending ``code`` or ``number`` (``pin_code = 4471``, ``pincode="4471"``,
#: ``pin_number = 4471``, ``passcode = 4471``); a bare ``pin = 13`` is a GPIO pin's number, not taken
#: mend25: also a quoted key, its value quoted, raw or JSON-escaped inside a JSON string (``"pincode": "4471"``,
#: ``{\\"PINCODE\\": \\"4471\\"}``, ``PINCODE=\\"4471\\"``); moved from :mod:`.passwords` (red33)
#: red33 (red32's left-out): or to the PIN of a card, a SIM, a bank account, a phone, a door (``card pin = 4711``,
#: ``sim pin: 1234``; red34: ``card_pin = 4711``), whose owner says it is no board's pin
PIN_OWNERS = ("card", "sim", "bank", "atm", "phone", "debit", "credit", "voicemail", "door", "alarm", "garage",
               "gate", "keypad", "vault", "unlock", "account")
PIN_ASSIGN = (r"(?:(?<=code|mber)" + "".join(f"|(?<={w}[ _-]pin)" for w in PIN_OWNERS)
              + r")(?:\\{0,3}[\"'])?[ \t]{0,4}[=:][ \t]{0,4}(?:\\{0,3}[\"'`])?")
#: red34 (red33's left-out): the word ``pin``, not the tail of a longer name, or joined to its owner by ``_`` or ``-``
#: (``CARD_PIN=4711``, ``sim-pin: 1234``); a GPIO ``led_pin = 17`` stays
PIN_WORD = (r"(?:pin(?:(?<![A-Za-z0-9_\-\]]pin)" + "".join(f"|(?<={w}[_-]pin)" for w in PIN_OWNERS) + ")"
            + r"|puk(?<![A-Za-z0-9_\-\]]puk)2?)")
#: pin41b (test41 T3): a SIM's PUK (its unlock key, as secret as its PIN: 'SIM PUK 12345678', 'PUK: 12345678') is a PIN's
#: word too, read as 'pin' (PUK2 as well)
#: mend25: a PIN's token (:data:`PHRASE_TOKEN`) also ends before a JSON-escaped quote (``\\"4471\\"``); moved from
#: :mod:`.passwords` (red31: the PIN's verb rule below reads it too)
#: pin42b (test42 T3): or before a closing brace ('{"pin": 4471}', the last member of a JSON object or a dict)
#: pin40 (test39b B9): or before a character of a script written without spaces ('\u6697\u8a3c\u756a\u53f7\u306f4471\u3067\u3059')
PIN_TOKEN = (r"[^\s\"'`]{0,127}?[^\s\"'`.,;:!?)\]}\\]" + r"(?=[.,;:!?)\]}]*(?:[\s\"'`]|\\{1,3}[\"'`]|$|["
             + UNSPACED_END + "]))")
#: red31 (test30c T6, red30b's left-out): a PIN's label ('my pin became 4711', 'the pin code has been changed to
#: 482913'), its token a PIN (4-12 digits, or a short one of letters and digits: pin_ok)
PIN_LABEL = (r"(?:pin(?<![A-Za-z0-9_\-\]]pin)(?:(?:[ \t]{1,4}|[_\-]?)(?:code|number))?"
              r"|passcode(?<![A-Za-z0-9_\-\]]passcode))s?")
#: pin40 (test39b B3/B9): a decimal digit of the scripts a PIN is typed in: ASCII, Arabic-Indic and its Persian form,
#: Devanagari, Bengali, Thai, full-width (the rules are ``re.ASCII``: ``[0-9]`` is ASCII's alone)
DIGIT = "[0-9\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\u09e6-\u09ef\u0e50-\u0e59\uff10-\uff19]"
#: pin40 (test39b B9): a PIN's word joined to its code by '=' or ':' with no blank ('PIN=4471', 'PIN:4471'; mend24's
#: 'pin = 448812' is a board's, and stays), a
#: full-width sign ('PIN\uff1a4471'), or the copula or topic particle of a script written without spaces
#: (:data:`~.passphrases.CJK_JOIN`: '\u94f6\u884c\u5361PIN\u662f4471', 'PIN\u306f4471'), when 4-12 digits follow
#: pin41 (test40 T5): or such a copula between blanks ('\u94f6\u884c\u5361 PIN \u662f 4471')
PIN_JOIN = (r"(?:[=:\uff1d" + CJK_JOIN + r"]|[ \t]{0,4}[" + "".join(c for c in CJK_JOIN if c not in ":=\uff1a")
            + r"][ \t]{1,4}|[ \t]{1,4}[" + "".join(c for c in CJK_JOIN if c not in ":=\uff1a") + r"])(?=" + DIGIT
            + "{4,12}(?!" + DIGIT + r"|[A-Za-z_\-]))")
#: pin40 (test39b B9): a PIN typed digit by digit ('my door code is 4 4 7 1'), 4-12 single digits one blank apart,
#: ending its clause (as a PIN with no verb does: 'pin 2 of 4' is none)
#: pin41 (test40 T5): or one '-' or '.' apart ('my PIN is 4-4-7-1', '4.4.7.1'), the same sign throughout
#: cma43 (test42 T4): or in groups of 2-4 one blank apart ('PIN 44 71', 'PIN 4471 2290'; :func:`pin_token_ok` counts 4-12)
PIN_GROUPS = DIGIT + "{2,4}(?:[ \t]" + DIGIT + "{2,4}){1,5}"
PIN_SPACED = ("(?:" + "|".join(DIGIT + "(?:" + sep + DIGIT + "){3,11}" for sep in (r"[ \t]", "-", r"\.")) + "|" + PIN_GROUPS
              + r")(?=[ \t]{0,4}"
              r"(?:[\"'`.,;!?)\]}]|\r|\n|\\[rn]|$|[" + UNSPACED_END + "]))")
#: pin41 (test40 T5): what a PIN's word may carry before its join: the word for 'code' or 'number' of the languages
#: that write it after 'PIN' (German 'PIN-Nummer', Russian 'PIN-\u043a\u043e\u0434', Polish and Turkish 'kod', 'kodu', Japanese
#: 'PIN\u756a\u53f7', 'PIN\u30b3\u30fc\u30c9', Korean 'PIN \ubc88\ud638'; Chinese 'PIN\u7801', pin40's), over the lowercased text
#: pin41b (test41 T3): and the Nordic ones, with their definite '-en' ('PIN-kode', 'PIN-koodi', 'pinkoden', 'PIN-numero')
PIN_SUFFIX = (r"(?:(?:[ \t]{1,4}|[_\-]?)(?:code|number|nummer|numero|\u043a\u043e\u0434|koden|kode|koodi|kodu|kod)|\u7801|\u78bc|\u756a\u53f7"
              r"|\u30b3\u30fc\u30c9|[ \t]{0,4}\ubc88\ud638)?")
#: pin41 (test40 T5): the copula that joins a PIN's word to its digits in the other languages of mem's password rules,
#: a table (language, its copulas): 'PIN ist 4471', 'mi PIN es 4471', 'le code PIN est 4471', 'il PIN \u00e8 4471',
#: 'o PIN \u00e9 4471', 'PIN to 4471', 'm\u00e3 PIN l\u00e0 4471', 'PIN saya adalah 4471', '\u0440\u0438\u043d PIN \u044d\u0442\u043e 4471', Thai 'PIN \u0e04\u0e37\u0e2d 4471'
PIN_COPULAS = (("de", "ist|lautet|war"), ("fr", "est|\u00e9tait"), ("es", "es|era"), ("pt", "\u00e9|era"), ("it", "\u00e8|era"),
               ("pl", "to|jest"), ("nl", "is|was"), ("vi", "l\u00e0"), ("id", "adalah|ialah"), ("ru", "\u044d\u0442\u043e"),
               ("th", THAI_IS), ("tr", "\u015fu"), ("ar", "\u0647\u0648|\u0647\u064a"), ("hi", "\u0939\u0948"),
               ("da", "er|var"), ("no", "er|var"), ("sv", "\u00e4r|var"), ("fi", "on|oli"))   # pin41b (test41 T3)
_COPULA = "|".join(dict.fromkeys(v for _lang, verbs in PIN_COPULAS for v in verbs.split("|")))
#: pin41: the possessive that follows the noun, before the copula or the digits ('PIN saya adalah 4471', 'PIN saya
#: 4471', Vietnamese 'm\u00e3 PIN c\u1ee7a t\u00f4i l\u00e0 4471'), as (language, words)
PIN_MINE = (("id", "saya|aku|anda|kamu"), ("vi", "c\u1ee7a t\u00f4i|c\u1ee7a b\u1ea1n|c\u1ee7a anh|c\u1ee7a em"))
_MINE = "|".join(w for _lang, words in PIN_MINE for w in words.split("|"))
#: pin41 (test40 T5): the other signs a PIN's digits follow its word by: an arrow ('PIN \u2192 4471', 'PIN => 4471'), a
#: dash between blanks ('PIN - 4471', Russian '\u041f\u0418\u041d-\u043a\u043e\u0434 \u2014 4471'), '#' ('PIN #4471'), a quote ('PIN "4471"',
#: "PIN='4471'"), "'s" ("my pin's 4471"), a copula of :data:`PIN_COPULAS` between blanks; the digits must follow
#: pin41b (test41 T3): or a bracket ('PIN (4471)', 'PIN[4471]'), a quote after '=' or ':' between blanks ('PIN = "4 4 7 1"':
#: a quoted string, not a board's 'pin = 13')
PIN_MORE = (r"(?:[ \t]{0,4}(?:\u2192|\u21d2|=>|->)[ \t]{0,4}[\"'`]?|[ \t]{1,4}[\-\u2013\u2014][ \t]{1,4}|[ \t]{0,4}#"
            r"|[ \t]{0,4}[(\[][ \t]{0,4}[\"'`]?|[ \t]{1,4}[\"'`]|[ \t]{0,4}[=:\uff1a\uff1d][ \t]{0,4}[\"'`]|['\u2019]s[ \t]{1,4}|[ \t]{1,4}(?:" + _COPULA + r")[ \t]{1,4}[\"'`]?"
            r"|[ \t]{1,4}(?:" + _MINE + r")(?:[ \t]{1,4}(?:" + _COPULA + r"))?[ \t]{0,4}:?[ \t]{1,4})(?="
            + DIGIT + ")")
#: pin42 (test41 T19): the words after a PIN's digits that go on about the PIN, so the digits are its value, as (kind,
#: words): a preposition saying what it opens ('PIN 4471 for the door lock', 'enter PIN 4471 on the keypad'), a verb,
#: an adverb or a conjunction ('PIN 4471 works', 'PIN 4471 is for the front door', 'PIN 4471 please'); a noun is none
#: ('PIN 2024 release notes'), and a board's word in the clause still keeps the digits (:func:`on_board`: 'PIN 4471
#: on the GPIO header')
PIN_THEN = (("preposition", "for|on|to|at|in|into|from|with|of|via|inside"),
            ("verb", "is|was|works|worked|opens|opened|unlocks|unlocked|should|will|would|does|did|doesn't|didn't|"
                     "isn't|wasn't|won't|please|again|too|also|now|still|and|or|but|then"))
_THEN = "|".join(w for _kind, words in PIN_THEN for w in words.split("|"))
#: pin42: a PIN's digits with no verb before them end their clause, or (:data:`PIN_THEN`) a word going on about them follows
#: cma43 (test42 T4): or a note about them in brackets or after a dash between blanks ('PIN 4471 (door lock)', 'PIN 4471 -
#: door lock'), as after a comma; :func:`named_else` reads that note too ('PIN 2024 (release notes)' stays)
PIN_ENDS = (r"(?:[\"'`.,;!?)\]}]|[ \t]*(?:\r|\n|\\[rn]|$)|[ \t]{1,4}(?:" + _THEN + r")(?![a-z0-9_])"
            r"|[ \t]{1,4}(?:\(|[\-\u2013\u2014][ \t]))")
#: pin42 (test41 T19): a PIN's word as a key of JSON, a Python dict or a PHP array ('{"pin": "4471"}', '"pin":4471',
#: "'pin' => '4471'", JSON-escaped '\\"pin\\": 4471') or an XML element ('<pin>4471</pin>'), its value 4-12 digits
PIN_KEYED = (r"(?:\\{0,3}[\"'][ \t]{0,4}(?::|=>?)[ \t]{0,4}(?:\\{0,3}[\"'])?(?=" + DIGIT + r"{4,12}(?!" + DIGIT
             + r"|[A-Za-z_\-]))|>(?=[0-9]{4,12}</))")
#: pin42: the value of such an XML element, 4-12 digits between its tags (a PIN's token would run on into '</pin>')
PIN_IN_TAG = r"(?<=>)[0-9]{4,12}(?=</)"
#: pin41 (test40 T5): a PIN's word of another language, with no 'PIN' in it: German Geheimzahl, Geheimnummer; Russian
#: \u041f\u0418\u041d (and -\u043a\u043e\u0434); French 'code secret'; Spanish 'clave', 'n\u00famero secreto'; Portuguese 'c\u00f3digo secreto'; Italian
#: 'codice segreto'; Turkish \u015fifre ('password', a card's PIN too: \u015fifrem, \u015fifresi); Arabic \u0627\u0644\u0631\u0642\u0645 \u0627\u0644\u0633\u0631\u064a ('the secret
#: number'); Hindi \u092a\u093f\u0928 ('PIN'); as (language, words); lowercased
#: pin41b (test41 T3): Russian 'the card's code' and the other keypads' ('\u043a\u043e\u0434 \u043a\u0430\u0440\u0442\u044b 4471', '\u043a\u043e\u0434 \u0434\u043e\u043c\u043e\u0444\u043e\u043d\u0430':
#: the intercom's; :data:`~.checks.PIN_CODE_OWNERS` in English), not a bare '\u043a\u043e\u0434' ('\u043a\u043e\u0434 \u043e\u0448\u0438\u0431\u043a\u0438 4471', an error's)
#: pin42 (test41 T27): German keypads' codes ('Zugangscode 4471', 'T\u00fcrcode ist 4471'; 'Fehlercode 4471' is an error's)
PIN_WORDS_ABROAD = (("de", ("geheimzahl", "geheimnummer", "zugangscode", "t\u00fcrcode", "tuercode", "torcode", "alarmcode",
                            "tresorcode")),
                    ("fr", ("code secret", "code d'acc\u00e8s", "code d'acces", "code d\u2019acc\u00e8s", "code de la porte",
                            "code de porte", "code d'entr\u00e9e", "code d\u2019entr\u00e9e", "code de l'alarme", "digicode")),
                    ("ru", ("\u043f\u0438\u043d", "\u043a\u043e\u0434 \u043a\u0430\u0440\u0442\u044b", "\u043a\u043e\u0434 \u043a\u0430\u0440\u0442\u043e\u0447\u043a\u0438", "\u043a\u043e\u0434 \u043e\u0442 \u043a\u0430\u0440\u0442\u044b",
                            "\u043a\u043e\u0434 \u0434\u0432\u0435\u0440\u0438", "\u043a\u043e\u0434 \u0434\u043e\u043c\u043e\u0444\u043e\u043d\u0430", "\u043a\u043e\u0434 \u0441\u0435\u0439\u0444\u0430", "\u043a\u043e\u0434 \u0441\u0438\u0433\u043d\u0430\u043b\u0438\u0437\u0430\u0446\u0438\u0438")),
                    ("es", ("clave", "n\u00famero secreto", "numero secreto", "c\u00f3digo de acceso", "codigo de acceso",
                            "c\u00f3digo de la puerta", "codigo de la puerta", "c\u00f3digo de la alarma", "codigo de la alarma",
                            "c\u00f3digo del portal", "codigo del portal")), ("pt", ("c\u00f3digo secreto", "codigo secreto")),
                    ("it", ("codice segreto",)), ("tr", ("\u015fifre",)),
                    ("ar", ("\u0627\u0644\u0631\u0642\u0645 \u0627\u0644\u0633\u0631\u064a",)), ("hi", ("\u092a\u093f\u0928",)))
PIN_ABROAD_STARTS = tuple(w for _lang, words in PIN_WORDS_ABROAD for w in words)
#: pin41b (test41 T3): whose PIN it is, after its word, in the languages that say it so: a preposition of the table
#: (language, prepositions) and 1-3 words ('PIN do cart\u00e3o: 4471', 'PIN de la carte est 4471', 'PIN der Karte: 4471',
#: 'PIN della carta', 'PIN van de kaart'), or a genitive of the table (language, nouns) ('PIN-\u043a\u043e\u0434 \u043a\u0430\u0440\u0442\u044b 4471')
PIN_OF = (("pt", "do|da|dos|das|de|no|na"), ("es", "de|del|de la"), ("fr", "de|du|des|de la|de l'"),
          ("de", "der|des|vom|von|von der|f\u00fcr|f\u00fcr die|f\u00fcr den|f\u00fcrs"), ("it", "di|del|della|dello|dell'"),
          ("nl", "van|van de|van het|voor|voor de|voor het"))
PIN_OF_NOUNS = (("ru", "\u043a\u0430\u0440\u0442\u044b|\u043a\u0430\u0440\u0442\u043e\u0447\u043a\u0438|\u0442\u0435\u043b\u0435\u0444\u043e\u043d\u0430|\u0441\u0438\u043c-\u043a\u0430\u0440\u0442\u044b"), ("pl", "karty|telefonu"))
_OF_WORD = r"(?u:[^\W\d_]){2,32}"
PIN_OWNER = (r"[ \t]{1,4}(?:(?:" + "|".join(sorted({p for _lang, ps in PIN_OF for p in ps.split("|")}, key=lambda p: (-len(p), p)))
             + r")(?:[ \t]{1,4}|(?<='))" + _OF_WORD + r"(?:[ \t]{1,4}" + _OF_WORD + r"){0,2}|(?:"
             + "|".join(n for _lang, ns in PIN_OF_NOUNS for n in ns.split("|")) + r")(?!(?u:\w)))")
#: pin41: such a word (not inside a longer word of its script: Turkish '\u015fifrem' is one, '\u015fifreleme', 'encryption', is
#: not), then ':' or '=', a copula, a dash between blanks or blanks alone before the PIN's 4-12 digits
#: pin42 (test41 T27): the words around a PIN's word of :data:`PIN_WORDS_ABROAD` that give it its other sense, as
#: (language, words before, words after): Spanish 'palabra clave' ('keyword'), 'clave de b\u00fasqueda' ('search key'),
#: 'la clave del \u00e9xito' ('the key to success'), a database's 'clave primaria'/'for\u00e1nea'/'p\u00fablica'
PIN_WORD_NOT = (("es", "palabra|palabras", "de b\u00fasqueda|de busqueda|del \u00e9xito|del exito|primaria|for\u00e1nea|foranea"
                 "|p\u00fablica|publica"),)
_NOT_BEFORE = "".join(f"(?<!{w} )" for _lang, ws, _a in PIN_WORD_NOT for w in ws.split("|"))
_NOT_AFTER = r"(?![ \t]{1,4}(?:" + "|".join(a for _lang, _b, a in PIN_WORD_NOT) + r")(?!(?u:\w)))"
PIN_ABROAD = (r"(?<!(?u:[\w\-]))" + _NOT_BEFORE + "(?:" + "|".join(PIN_ABROAD_STARTS) + r")(?:-?\u043a\u043e\u0434|m|si|niz|in)?(?!(?u:\w))"
              + _NOT_AFTER + "(?:" + PIN_OWNER + ")?(?:"
              + PIN_MORE + r"|[ \t]{0,4}[:=\uff1a\uff1d][ \t]{0,4}|[ \t]{1,4}(?=" + DIGIT + "{4,12}(?!" + DIGIT
              + r"|[A-Za-z_\-])))")


def pin_token_ok(v: str) -> bool:
    """The token after a PIN's or a keypad's label is a PIN: :func:`~.checks.pin_ok` (``4471``, ``kq77``), or
    4-12 decimal digits of any script (``\uff14\uff14\uff17\uff11``, ``\u0664\u0664\u0667\u0661``) or typed one blank apart
    (``4 4 7 1``, :data:`PIN_SPACED`), or one ``-`` or ``.`` apart (``4-4-7-1``), or in groups of 2-4 one blank apart
    (``44 71``, cma43); not ``13``."""
    if pin_ok(v):
        return True
    digits = v.replace(" ", "").replace("\t", "")
    if v[1:2] in ("-", "."):      # pin41: '4-4-7-1', '4.4.7.1'
        digits = v[::2]
        return 4 <= len(digits) <= 12 and digits.isdecimal() and v[1::2] == v[1] * (len(digits) - 1)
    return 4 <= len(digits) <= 12 and digits.isdecimal() and (digits == v or v[1::2].strip(" \t") == ""
                                                                or all(2 <= len(g) <= 4 for g in v.split()))


#: pin41 (test40 T6): the words of :data:`~.checks.HARDWARE_WORDS` that also name a PIN's things ('reset my PIN', 'input
#: your PIN', 'the card's chip', 'press the button', an HTTP header, a database's connector): not a board's by
#: themselves; before 'line' they are ('the reset line')
_BOTH_WAYS = frozenset("reset data clock power ground input output signal enable interrupt button board boards chip "
                       "digital analog sensor motor cs tx rx header headers connector".split())
#: pin41: what holds a board's pins, after 'pin' ('the pin header', 'a 2x20 pin connector')
_PIN_HOLDERS = frozenset(("header", "headers", "connector", "connectors", "socket", "sockets"))
#: pin41 (test40 T6): a word of these in a PIN's clause makes it a board's pin: :data:`~.checks.HARDWARE_WORDS` but
#: :data:`_BOTH_WAYS`, and more of a board's parts and buses (an FPGA, a BGA package, JTAG)
BOARD_WORDS = (HARDWARE_WORDS - _BOTH_WAYS) | frozenset("fpga fpgas bga cpld jtag swd asic qfn qfp tqfp lqfp soic".split())
#: pin41 (test40 T6): the words for a chip's pin in Chinese (\u5f15\u811a, \u7ba1\u811a, \u9488\u811a; traditional too) and Japanese (\u30d4\u30f3)
BOARD_CJK = ("\u5f15\u811a", "\u5f15\u8173", "\u7ba1\u811a", "\u7ba1\u8173", "\u9488\u811a", "\u91dd\u8173", "\u30d4\u30f3")
#: how far a PIN's clause is read on each side of its digits for those words (characters; a clause ends before)
BOARD_SPAN = 48
_CLAUSE_END = Lazy(r"[.;!?,\r\n\u3002\uff0c\uff1b\uff01\uff1f\u3001]|\\[rn]|(?<![a-z0-9_])(?:and|but|so|then|or|while|because)"
                   r"(?![a-z0-9_])", FLAGS)
_RUN = Lazy(r"[a-z0-9]+", FLAGS)


def on_board(low: str, s: int, e: int, lo: int, hi: int) -> bool:
    """pin41 (test40 T6): whether the PIN-shaped digits at ``low[s:e]`` (``low`` lowercased, read within ``lo:hi``)
    are a board's pin: a word of :data:`BOARD_WORDS` (``gpio``, ``pinout``, ``fpga``, ``relay``), a pin's name
    (``gpio17``, ``pa15``: :func:`~.checks.hardware_pin`) or a word of :data:`_BOTH_WAYS` before ``line`` (``the reset
    line``, ``pin header``) stands in its clause (up to :data:`BOARD_SPAN` characters each side, to a clause's end: ``.``, ``,``, ``;``,
    a line break, ``and``, ``but`` ...), or a Chinese or Japanese word for a chip's pin (:data:`BOARD_CJK`: ``\u5f15\u811a``)
    does; not when the word right before ``pin`` says whose PIN it is (``SIM PIN``, ``card pin``). ``GPIO PIN=4471
    drives the relay``, ``PIN:2048 on the FPGA header``, ``\u5f15\u811aPIN\u662f4471``, (pin42) a holder of pins
    (:data:`_PIN_HOLDERS`) right after the digits' ``on``/``of``/``at`` (``PIN 4471 on the header``): True; ``set PIN=1024 in the config``,
    ``my PIN is 4471 and the LED blinks``: False."""
    a, b = max(lo, s - BOARD_SPAN), min(hi, e + BOARD_SPAN)
    for m in _CLAUSE_END.finditer(low, a, s):
        a = m.end()
    if (m := _CLAUSE_END.search(low, e, b)) is not None:
        b = m.start()
    before, after = low[a:s], low[e:b]
    if any(w in before or w in after for w in BOARD_CJK):
        return True
    words = _RUN.findall(before)
    if "pin" in words and (i := len(words) - 1 - words[::-1].index("pin")) > 0 \
            and (words[i - 1] in PIN_CODE_OWNERS or words[i - 1] in PIN_OWNERS):
        return False
    aw = _RUN.findall(after)
    held = aw[1:3] if aw[:1] in (["on"], ["of"], ["at"]) else []     # pin42 (test41 T19): 'PIN 4471 on the header'
    if held[:1] in (["the"], ["a"], ["its"], ["this"]):
        held = held[1:]
    if held and held[0] in _PIN_HOLDERS:
        return True
    words += aw
    return any(w in BOARD_WORDS or (w not in HARDWARE_WORDS and hardware_pin(w))
               or (w in _BOTH_WAYS and nxt in ("line", "lines")) or (w in ("pin", "pins") and nxt in _PIN_HOLDERS)
               for w, nxt in zip(words, words[1:] + [""]))


#: pin41b (test41 T4): a unit after a number says it is a measure ('the pin is 4471 mm long', '2540 um', '3300 mV',
#: '85 \u00b0C', '40 %'), not a PIN; 'in' and 'm' are not read as units ('my PIN is 4471 in the app')
#: pin42 (test41 T4): the nouns after a number that make it a year, an edition or a count, as (language, nouns):
#: 'the pin: 2024 edition', '\u041f\u0418\u041d 2024 \u0433\u043e\u0434\u0430 \u0432\u044b\u043f\u0443\u0441\u043a\u0430' (of the 2024 release), read as :data:`_UNIT`'s
PIN_NOT_AFTER = (("en", "edition|editions|release|releases|model|version|year|years|times"),
                 ("ru", "\u0433\u043e\u0434\u0430|\u0433\u043e\u0434\u0443|\u0433\u043e\u0434|\u0433\u043e\u0434\u043e\u0432"),
                 ("es", "a\u00f1o|a\u00f1os"), ("de", "jahr|jahre|ausgabe"))
_YEARS = "(?:" + "|".join(w for _lang, ws in PIN_NOT_AFTER for w in ws.split("|")) + ")"
_UNIT = Lazy(r"[ \t]{0,2}(?:[mcn\u00b5\u03bcu]m|mils?|inch(?:es)?|[mk\u00b5u]?[va]|k?ohms?|k?\u03c9|\u2126|\u00b0[cfk]?|[\u2103%]|[kmg]?hz"
             r"|[pnu\u00b5]f|[mk]?w|px|[mun]s|[ \t]" + _YEARS + r")(?![a-z0-9_\u00b5\u03bc\u0430-\u044f])", FLAGS)


def measured(low: str, s: int, e: int, hi: int) -> bool:
    """pin41b (test41 T4): whether the PIN-shaped digits at ``low[s:e]`` (``low`` lowercased, read up to ``hi``) are
    followed by a unit (:data:`_UNIT`), right after them or a blank on, so a measure: ``the pin is 4471 mm long``,
    ``pin: 3300mV``: True; ``pin: 4471``, ``my PIN is 4471 in the app``: False."""
    i = s
    while i < e and (low[i].isdecimal() or low[i] in " \t.-"):
        i += 1
    m = _UNIT.match(low, i, hi)
    return m is not None and m.end() >= e


#: pin42b (test42 T5): the nouns that, later in the clause a word of :data:`PIN_THEN` opens after the digits, say the number
#: is something else: a year, a port, a page ('PIN 2024 is the year the feature shipped', 'pin 8080 for the proxy', 'pin
#: 3000 is the port'), as (language, nouns); 'PIN 4471 for the door lock' names no such noun and stays withheld
PIN_THEN_NOT = (("en", "year|years|port|ports|proxy|conference|page|chapter|version|release|edition"),)
_THEN_NOT = Lazy(r"[ \t]{1,4}(?:(?:" + _THEN + r")(?![a-z0-9_])|\(|[\-\u2013\u2014][ \t])[^.;!?\n]{0,40}?(?<![a-z0-9_])(?:"
                 + "|".join(w for _lang, ws in PIN_THEN_NOT for w in ws.split("|")) + r")(?![a-z0-9_])", FLAGS)


def named_else(low: str, e: int, hi: int) -> bool:
    """pin42b (test42 T5): whether the words after the PIN-shaped digits ending at ``low[:e]`` (``low`` lowercased, read
    up to ``hi``) go on to name the number as something else (:data:`PIN_THEN_NOT`): ``PIN 2024 is the year the
    feature shipped``, ``pin 8080 for the proxy``: True; ``PIN 4471 for the door lock``: False."""
    return _THEN_NOT.match(low, e, hi) is not None


def off_board(inner):
    """pin41 (test40 T6): a rule's ``scan`` (the scanners' signature) that runs ``inner`` and drops each value it took
    that :func:`on_board` reads as a board's pin, or (pin41b) :func:`measured` as a measure, or (pin42b)
    :func:`named_else` as a year or a port."""
    def scan(rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
        n = len(out)
        inner(rule, text, ws, we, out, low, off, at)
        if len(out) > n:
            out[n:] = [h for h in out[n:] if not on_board(low, h[0] - off, h[1] - off, ws - off, we - off)
                       and not measured(low, h[0] - off, h[1] - off, we - off)
                       and not named_else(low, h[1] - off, we - off)]
    scan.leftmost, scan.starts = getattr(inner, "leftmost", False), getattr(inner, "starts", ())
    return scan
