"""The Markdown rules of :mod:`objstore.core.redact`'s table (``MARKDOWN_RULES``, after
``PASSWORD_RULES`` in ``rules.RULES``; md21, tester finding W1): a credential whose label or
value is set in Markdown markup (``**Password:** X``, ``- **DB password**: `X```), a value in a
fenced code block right after its label (``Password:`` LF ```` ``` ```` LF ``X``), and a
Markdown or CSV table whose column is headed by a credential word (``| user | password |``)."""

from __future__ import annotations

import itertools

from objstore.core.redact.checks import (labelled_password_ok, looks_assigned, looks_secret, passphrase_words_ok,
                                         short_labelled_ok)
from objstore.core.redact.passphrases import ABROAD_NAMES, CJK_JOIN, CJK_JOINS, CJK_NAMES, QUOTED_PHRASE_MAX, THAI_IS, quoted_passphrase_ok
from objstore.core.redact.pinlabels import DIGIT, pin_token_ok
from objstore.core.redact.rule import FLAGS, Lazy, Rule, make_rule
from objstore.core.redact.scanners import KEY_NEXT_LINE_MIN, QUALIFIER, VALUE, anchor_offsets

#: the credential words of a label (lowercased); a password's (judged as one), then a key's or a token's
#: and (W1) the word in German, French and Spanish (Kennwort; mot de passe; contrase\u00f1a; Passwort is
#: ``passw(or)?t``): the translations of 'password' in Wiktionary https://en.wiktionary.org/wiki/password
#: red26b (test26 V2): Portuguese senha, Dutch wachtwoord, Russian/Ukrainian \u043f\u0430\u0440\u043e\u043b\u044c, Polish has\u0142o,
#: Czech heslo, Swedish l\u00f6senord, Norwegian passord, Danish adgangskode, Finnish salasana, and the CJK
#: words of :data:`_CJK` (the text is lowercased with str.lower, so '\u041f\u0430\u0440\u043e\u043b\u044c', 'SENHA' match too)
_CJK = "|".join(CJK_NAMES)
#: red29 (test29 P5): also as a shell variable's name writes them ('MOT_DE_PASSE=X', 'DB_HASLO=X': '_' for the
#: blanks, ASCII 'l' for '\u0142')
_FOREIGN = (r"kennwort|mot[ _]de[ _]passe|contrase(?:\u00f1|n)a|senha|wachtwoord|\u043f\u0430\u0440\u043e\u043b\u044c|has(?:\u0142|l)o|heslo|"
            r"l\u00f6senord|passord|adgangskode|salasana|" + "|".join(ABROAD_NAMES) + "|" + _CJK)
_PW_WORDS = r"passw(?:or)?[dt]|passphrase|pwd|secret|" + _FOREIGN
#: redb22 (tester finding X9): 'pass' and 'PIN' as a label or a column's header (``**pass**: `X```, ``| PIN |``),
#: their values held to :func:`_weak_value_ok` (a bare 'pass' is also a test's result, a 'pin' a board's pin)
_WEAK_WORDS = ("pass", "pin")
_WORD = r"(?P<w>" + _PW_WORDS + r"|api[ _-]?key|access[ _-]?key|token|pass|pin)(?![a-z0-9_])"
#: a line break, raw or JSON-escaped, and the end of a line; red22: or the end of the JSON string that holds the
#: text (its closing quote, raw or escaped: a transcript's tool output or a tool call's argument)
_BREAK = r"(?:\r?\n|\\{1,3}(?:r\\{1,3})?n)"
_EOL = r"(?=[ \t]{0,8}(?:\r|\n|\\{1,3}[rn]|\\{0,3}\"|$))"
#: the closing emphasis or code span of a label (CommonMark 0.31.2 6.1 'Code spans', 6.2 'Emphasis and strong
#: emphasis'), one ':' inside or after it, blanks, the value (in its own emphasis or code span) ending its line
#: red27 (W7): the value one run of 4+ characters, or words joined by single blanks (a passphrase, judged by
#: :func:`_phrase_ok`: ``**Password:** correct horse battery staple``, ``**Password**: `Winter 2025 pass```)
_SECRET = (r"(?P<secret>" + VALUE + r"{4,256}+|" + VALUE + r"{1,64}+(?: " + VALUE + r"{1,64}+){1,%d}+)"
           % (QUOTED_PHRASE_MAX // 8))
_MARKED_RE = (_WORD + r"(?P<c>:)?(?P<m>\*{1,2}|`)(?(c)|:)[ \t]{1,8}(?P<q>\*{1,2}|`)?"
              + _SECRET + r"(?(q)(?P=q))" + _EOL)
_MARKED = Lazy(_MARKED_RE, FLAGS)
#: a label ending its line (markup around it or not), then a fenced code block (CommonMark 0.31.2 4.5 'Fenced
#: code blocks': 3+ backticks or tildes, an info string) holding one line, the value
_FENCED = Lazy(_WORD + r"[*_`]{0,2}[ \t]{0,4}:[*_`]{0,2}[ \t]{0,8}" + _BREAK + r"[ \t]{0,3}(?P<f>`{3,8}|~{3,8})"
               r"[a-z0-9_+\-]{0,16}[ \t]{0,4}" + _BREAK + r"[ \t]{0,16}(?P<secret>" + VALUE + r"{4,4096}+)[ \t]{0,8}"
               + _BREAK + r"[ \t]{0,3}(?P=f)", FLAGS)
#: a header cell: markup, up to two owner words ('db password'), the word, markup, the cell's end
#: redb22 (X9): the word may end in 'key' / 'token' / 'value' (``Secret Key``) and be followed by a qualifier in
#: parentheses (``Password (prod)``)
#: fp22: a word so suffixed names its value by :func:`_head_word` (``secret+key``), held to :func:`_shaped`
_HEAD_CELL = Lazy(r"[ \t]*[*_`]{0,2}(?:[a-z0-9.\-]{1,24}[ _])?" + _WORD + r"(?:[ _-](?P<sfx>key|token|value))?[*_`]{0,2}"
                  r"(?:[ \t]{1,4}\([a-z0-9 _.,/\-]{1,32}\))?[*_`]{0,2}[ \t]*\Z", FLAGS)
#: a GitHub Flavored Markdown table's delimiter row (GFM 0.29 4.10 'Tables (extension)'); red23 (Y11): an org-mode
#: table's ('|---+---|', https://orgmode.org/manual/Built_002din-Table-Editor.html ) and a grid table's border
#: ('+---+---+', '+===+===+': Pandoc "Grid tables" https://pandoc.org/MANUAL.html#tables ), ``+`` between columns
_DELIM_ROW = Lazy(r"[ \t]*[|+]?(?:[ \t]*:?(?:-{3,}|={3,}):?[ \t]*[|+])+(?:[ \t]*:?-{3,}:?[ \t]*)?\Z", FLAGS)
#: red23 (Y11): a definition list's term alone on its line, its definition on the next after ': ' (Pandoc
#: "Definition lists" https://pandoc.org/MANUAL.html#definition-lists , PHP Markdown Extra): ``Password`` LF ``: X``
_DEFINITION = Lazy(_WORD + r"[*_`]{0,2}[ \t]{0,4}" + _BREAK + r"[ \t]{0,3}:[ \t]{1,4}(?P<q>`)?(?P<secret>" + VALUE
                   + r"{4,256}+)(?(q)`)" + _EOL, FLAGS)
#: a label and an arrow for its verb ('Password \u2192 X', 'API key => X'), or a word of :data:`_FOREIGN`
#: and ':' ('Kennwort: X', 'mot de passe : X'; red28, test28 Y1: or '=', ' = ', ':=', the .env and ini form,
#: 'senha=X', and '=' after a CJK word); the value (or its code span) ends its line; v4r23 (tester V4):
#: an org-mode description list's ' :: ' ('- password :: X', https://orgmode.org/manual/Plain-Lists.html )
#: red26b (test26 V2): after a CJK word also a full-width colon (U+FF1A) or ':' with no blank after it, or the
#: copula or topic particle that joins it to its value (Chinese \u662f/\u4e3a/\u70ba 'is', Japanese \u306f, Korean \ub294/\uc740:
#: '\u6570\u636e\u5e93\u5bc6\u7801\u662f X', '\u30d1\u30b9\u30ef\u30fc\u30c9\u306f X'), the value then ending its line as after ':'
#: a value after a CJK word holds no CJK character (U+3000-9FFF: punctuation, kana, ideographs; Hangul syllables;
#: compatibility ideographs and full-width forms) and may end at CJK or full-width punctuation ('\u5bc6\u7801\uff1aX\uff0c\u8bf7\u4fdd\u7ba1'):
#: a run of CJK text after the word is not read 256 characters deep at every word (a line of '\u5bc6\u7801\uff1a' repeated)
_CJK_CHARS = "\u0e00-\u0e7f\u3000-\u9fff\uac00-\ud7af\uf900-\uffff"   # pin41: and Thai's (U+0E00-0E7F)
_CJK_VALUE = "[^\\s\"'`\\\\,;&<>(){}\\[\\]|" + _CJK_CHARS + "]"
#: pin40 (test39b B9): or at the kana, Hangul or Han that goes on after it ('\u30d1\u30b9\u30ef\u30fc\u30c9\u306fX\u3067\u3059',
#: '\u5bc6\u7801\u662fX\u8bf7\u8bb0\u4f4f'), not a counter after a number ('\u5bc6\u7801\u662f2024\u5e74\u6539\u7684': a year, a length)
_CJK_EOL = ("(?=[\u0e00-\u0e7f\u3000-\u30ff\uac00-\ud7af\uff00-\uffef]|(?![\u5e74\u6708\u65e5\u4f4d\u4e2a\u500b\u6b21\u5929\u5b57\u53f7\u865f\u6841])"
            "[\u3400-\u9fff]|" + _EOL[3:])
#: pin41 (test40 T5): or blanks alone before a PIN's digits ('\u6697\u8a3c\u756a\u53f7 4471'), 4-12 of them ending the value
_CJK_BARE = r"[ \t]{1,4}(?=" + DIGIT + "{4,12}(?!" + DIGIT + r"|[A-Za-z_\-]))"
#: red29 (test29 P5): what the password opens between the word and its sign, a preposition and 1-4 words
#: ('\u043f\u0430\u0440\u043e\u043b\u044c \u043e\u0442 \u0431\u0430\u0437\u044b: X', 'senha do banco: X', 'Kennwort f\u00fcr die DB: X')
_OWNER = (r"[ \t]{1,4}(?:\u043e\u0442|\u0434\u043b\u044f|f\u00fcr|von|de|del|do|da|di|van|voor)"
          r"(?:[ \t]{1,4}[^\s:=\"'`]{1,32}){1,4}?")
#: red29 (test29 P5): a word of :data:`_FOREIGN` as a quoted (JSON) key and its value quoted ('kennwort="X"',
#: '{"contrase\u00f1a": "X"}', raw or JSON-escaped): the closing quote ends the value as the line's end does
#: red30: a quoted value after a word of :data:`_FOREIGN` may hold blanks (a passphrase: 'wachtwoord: "Zq7 mm
#: horse"'), judged by :func:`~.passphrases.quoted_passphrase_ok` (:func:`_phrase_ok`)
_QUOTED_WORDS = r"[^\s\"'`\\](?:[^\"'`\\\r\n]{2,%d}+)" % QUOTED_PHRASE_MAX
_ARROW = Lazy(r"(?:(?:" + _WORD + r"[*`]{0,2}[ \t]{0,4}(?:\u2192|\u21d2|=>|->|::)|(?P<f>" + _FOREIGN
              + r")(?:" + _OWNER + r")?(?:[ \t]{0,4}" + QUALIFIER + r"){0,2}(?:\\{0,3}[\"'])?[*`]{0,2}[ \t]{0,4}(?::(?!=)|(?P<eq>:?=)))[*`]{0,2}(?(eq)[ \t]{0,8}|(?:[ \t]{1,8}|(?=\\{0,3}[\"'])))"
              r"|(?P<j>" + _CJK + r")[*`]{0,2}(?:[ \t]{0,4}" + CJK_JOINS + r"[*`]{0,2}[ \t]{0,8}|" + _CJK_BARE + "))"
              r"(?:(?P<q>`)|(?(f)(?P<vq>\\{0,3}[\"'])))?(?P<secret>(?(j)" + _CJK_VALUE + r"{4,256}+|(?(vq)"
              + _QUOTED_WORDS + r"|" + VALUE + r"{4,256}+)))(?(q)`)(?(vq)(?P=vq))(?(j)" + _CJK_EOL + "|(?(vq)|" + _EOL + "))", FLAGS)
#: a key's or token's word alone on its line (markup around it or not), the value alone on the next
_BARE_KEY = Lazy(r"(?P<w>token|api[ _-]?key|access[ _-]?key)(?![a-z0-9_])[*`]{0,2}[ \t]{0,8}" + _BREAK
                 + r"[ \t]{0,16}(?P<secret>" + VALUE + r"{8,4096}+)" + _EOL, FLAGS)
#: v4r23 (tester V4): a table row of two cells with no header, the label's and the value's ('|password|X|', a
#: key/value table's body row); the row ends its line; red31 (test30c T14): the label qualified and named
#: ('| db password (prod) | X |': one word before it in the cell, :data:`_PAIR_LEAD`)
_PAIR_ROW = Lazy(_WORD + r"[*_`]{0,2}(?:[ \t]{0,4}" + QUALIFIER + r"){0,2}[ \t]{0,8}\|[ \t]{0,8}(?P<q>`)?" + _SECRET + r"(?(q)`)[ \t]{0,8}\|"
                 + _EOL, FLAGS)
#: red31: what may stand before the label's word in a pair row's first cell: the pipe and one word ('| db password')
_PAIR_LEAD = Lazy(r"\|[ \t*_`]*(?:[a-z0-9.\-]{1,24})?\Z", FLAGS)
_WORD_RE = Lazy(_WORD, FLAGS)
#: red31: what follows a table's last row when the table is a JSON string's text (its closing quote, raw or escaped)
_JSON_END = Lazy(r"\\{0,3}\"[ \t}\],]*", FLAGS)
_JSON_TAIL = Lazy(r"\\{0,3}\"[ \t}\],]*\Z", FLAGS)
#: the literals every word of :data:`_WORD` and :data:`_FOREIGN` starts with (found with ``str.find``: a
#: pattern that starts with an alternation has no literal prefix, and ``re`` would try it at every offset)
_FOREIGN_STARTS = ("kennwort", "mot de passe", "mot_de_passe", "contrase", "senha", "wachtwoord",
                   "\u043f\u0430\u0440\u043e\u043b\u044c", "has\u0142o", "haslo", "heslo", "l\u00f6senord", "passord",
                   "adgangskode", "salasana", *ABROAD_NAMES, *_CJK.split("|"))
_ARROWS = ("\u2192", "\u21d2", "=>", "->")
_STARTS = ("passw", "passphrase", "pwd", "secret", *_FOREIGN_STARTS, "api", "access", "token")
#: red26b: those an ASCII window (``str.isascii``, a flag CPython keeps) can hold: a hook's prompt scan (no
#: matcher) looks for no CJK or Cyrillic word in English text
_FOREIGN_ASCII = tuple(w for w in _FOREIGN_STARTS if w.isascii())
_STARTS_ASCII = tuple(w for w in _STARTS if w.isascii())
#: redb22: where 'pass' or a 'pin' header cell may start (anchors of the rule below), and the whole word there
#: (one 'pin' anchor: the stdlib prefilter tests anchors sharing a prefix as that prefix, and 'pin' is in
#: 'mapping'; a header '|pin|' without blanks is missed)
_WEAK_ANCHORS = ("pass", "pin |")
_WEAK_START = Lazy(r"p(?:ass|in)(?![a-z0-9_])", FLAGS)
_VALUE_RUN = Lazy(VALUE + "+", FLAGS)
_LINE_BREAK = Lazy(r"\r?\n|\\{1,3}(?:r\\{1,3})?n", FLAGS)
#: red33 (red32's left-out): every body row of a table is read (a table was read to its 200th row, the rest stored
#: in the clear); linear, as each row is read once (``done`` in :func:`_scan_table`) and one window bounds a table
#: red33: a header row of a table with neither outer pipes nor a delimiter row, or of a tab-separated paste, is
#: one of column names: each cell up to 40 characters of at most 4 words (not a sentence nor a shell pipeline's)
_NAME_CELL = Lazy(r"[ \t]*[^\s|,]{1,40}(?:[ \t]{1,2}[^\s|,]{1,40}){0,3}[ \t]*\Z", FLAGS)
#: red32 (test31c W13): what a tool puts before each line of a file the agent reads, a pipe row after it: Claude
#: Code's Read tool ('     3\u2192| host |', its line number and an arrow), ``cat -n`` (a tab), grep and ripgrep
#: ('docs/servers.md:5:| db1 |', 'docs/servers.md-4-' for a context line), a unified diff's ' ', '+' or '-'
#: (POSIX diff -u), a Markdown blockquote's '>' (CommonMark 0.31.2 5.1); raw or JSON-escaped
_ROW_PREFIX = Lazy(r"(?:[ \t]{0,8}[0-9]{1,9}(?:\u2192|\t|\\{1,3}t|\\{1,3}u2192)|[^\s|\\]{1,256}?[:\-][0-9]{1,9}[:\-]"
                   r"|[+\- ]|(?:[ \t]{0,3}>){1,8})(?=[ \t]{0,8}\|)", FLAGS)
#: red32 (test31c W3): a cell that makes its column a feature matrix's or a checklist's, not a credential's
_MATRIX_WORDS = frozenset(("yes", "no", "true", "false", "supported", "unsupported", "planned", "partial", "n/a", "none",
                           "enabled", "disabled", "required", "optional", "\u2713", "\u2714", "\u2717", "\u2718", "x", "-"))


def _unprefixed(low: str, s: int, e: int) -> int:
    """red32 (W13): where the row ``low[s:e]`` starts past a tool's line prefix (:data:`_ROW_PREFIX`: a line
    number and an arrow or a tab, a grep match's file and line, a diff's marker, a blockquote), else ``s``."""
    m = _ROW_PREFIX.match(low, s, e)
    return s if m is None else m.end()


def _value_ok(word: str, v: str) -> bool:
    """A value after a Markdown-marked label or in a credential column:
    after a password's word (or ``secret``) the checks of a value after
    ``Password:`` ending its line (:func:`looks_secret`,
    :func:`looks_assigned`, :func:`labelled_password_ok`,
    :func:`short_labelled_ok`: ``Bold9pwXY``, ``correcthorse``; not
    ``string``, ``see below``); after the word in German, French or
    Spanish, not letters alone (``mot de passe : oublie``: no word lists of
    those languages); after a key's or a token's, a key's shape
    (random-looking, or :data:`~.scanners.KEY_NEXT_LINE_MIN` characters
    with letters and digits or symbols); after ``pass`` or ``pin``:
    :func:`_weak_value_ok`; after a word with a suffix (``secret+key``, a
    ``Secret Key`` header cell, :func:`_head_word`): also :func:`_shaped`."""
    if word in _WEAK_WORDS:
        return _weak_value_ok(word, v)
    if "+" in word:                        # fp22: a 'Secret Key' column also names keys (``stripe-webhook``)
        return _shaped(v) and _value_ok(word.partition("+")[0], v)
    if word.startswith(_FOREIGN_STARTS):    # no word list of those languages: not letters alone
        if not v.isascii() and not any(c.isdigit() for c in v):   # red26b: that language's words ('obrigat\u00f3ria')
            return False
        return (looks_secret(v, labelled=True) or looks_assigned(v, password=True, quoted=False) or short_labelled_ok(v)
                or word >= "\u3000" and pin_token_ok(v))    # pin40 (test39b B9): '\u94f6\u884c\u5361\u5bc6\u7801\u662f4471'
    if word.startswith(("pass", "pwd", "secret")):
        return (looks_secret(v, labelled=True) or looks_assigned(v, password=True, quoted=False, labelled=True)
                or labelled_password_ok(v) or short_labelled_ok(v))
    return looks_secret(v, labelled=True) or (len(v) >= KEY_NEXT_LINE_MIN and short_labelled_ok(v))


#: a PIN: 4 to 12 digits, in groups joined by '-' or blanks ('4471', '4471-9902'; ISO 9564-1: 4 to 12 digits)
_PIN = Lazy(r"[0-9]{2,12}(?:[ \-][0-9]{2,12}){0,3}", FLAGS)


def _weak_value_ok(word: str, v: str) -> bool:
    """redb22 (X9): a value after a bare ``pass`` or ``pin`` label or in a
    column so headed.  ``pass``: a password's value with letters and digits
    or symbols (:func:`looks_secret`, :func:`looks_assigned`,
    :func:`short_labelled_ok`) of a credential's shape (fp22, :func:`_shaped`:
    not a build's hash or name), never letters alone (``| Pass |`` of a test
    report holds ``passed``, ``yes``).  ``pin``: a personal identification
    number, 4 to 12 digits (ISO 9564-1; ``4471``, ``4471-9902``), or a
    random-looking value; not a board's pin (``13``, ``GPIO4``)."""
    if word == "pin":
        return (_PIN.fullmatch(v) is not None and 4 <= sum(c.isdigit() for c in v) <= 12) or looks_secret(
            v, labelled=True)
    return _shaped(v) and (looks_secret(v, labelled=True) or looks_assigned(v, password=True, quoted=False,
                                                                             labelled=True) or short_labelled_ok(v))


#: fp22: the symbols a name, a build or a ticket id holds (``build-7788a``, ``#8812``, ``v1.2``)
_NAME_SYMBOLS = "-_.#"
#: fp22: how long a random-looking value of one letter case must be to count (a short hex run is a build's hash)
_SHAPED_RANDOM_MIN = 20


def _shaped(v: str) -> bool:
    """fp22: a value with a credential's shape, for a label that also heads
    a name or a result (``pass``, ``Secret Key``): upper and lower case
    letters and a digit (``Zq7mmPl0x``); or letters, digits and an ASCII
    symbol other than :data:`_NAME_SYMBOLS` (``hunter2!``); or random-looking
    (:func:`looks_secret`), :data:`_SHAPED_RANDOM_MIN` characters or more and
    not hex alone (a commit id or a build hash, ``3f9a0c1e7b2d4a6f``).  Not
    ``build-7788a``, ``stripe-webhook``, ``n/a``, ``100%``: a credential that
    has none of these shapes is kept rather than a name destroyed."""
    letters, digit = any(c.isalpha() for c in v), any(c.isdigit() for c in v)
    if digit and any(c.isupper() for c in v) and any(c.islower() for c in v):
        return True
    if letters and digit and any(c.isascii() and not c.isalnum() and c not in _NAME_SYMBOLS for c in v):
        return True
    return (len(v) >= _SHAPED_RANDOM_MIN and looks_secret(v, labelled=True)
            and not all(c in "0123456789abcdefABCDEF" for c in v))


def _head_word(m) -> str:
    """The credential word of a :data:`_HEAD_CELL` match ``m``, joined by ``+`` to its suffix when it has one
    (``Secret Key`` -> ``secret+key``), as :func:`_value_ok` takes it."""
    return m.group("w") + ("+" + m.group("sfx").lower() if m.group("sfx") else "")


def _line_head(low: str, s0: int, p: int) -> str:
    """What stands before offset ``p`` on its line (from ``s0`` at most); mend24: a JSON string's opening
    quote, after ``:``, ``[`` or ``,``, starts a line too (``{"text": "|password|X|"}``, ``"password\\n: X"``:
    the text a tool call or a transcript holds JSON-escaped)."""
    h = low[max(s0, _line_start(low, p)):p]
    q = h.rfind('"')
    if q >= 0 and h[:q].rstrip(" \t")[-1:] in (":", "[", ","):
        return h[q + 1:]
    return h


def _line_start(low: str, p: int) -> int:
    """Where the line holding offset ``p`` starts (after a raw or JSON-escaped break)."""
    i = max(low.rfind("\n", 0, p), low.rfind("\r", 0, p)) + 1
    j = low.rfind("\\n", i, p)
    return j + 2 if j >= 0 else i


def scan_markdown(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """The scan of the Markdown ``markdown-secret`` rule over the lowercased window: each
    :data:`_MARKED` label whose opening markup stands before it on its line
    (``**Password:** X``, ``**DB password**: `X```, ```password`: X``);
    each :data:`_FENCED` label and block; each table header cell of
    :data:`_HEAD_CELL` (:func:`_scan_table`).  A value is kept when
    :func:`_value_ok` takes it; its span (offsets of ``text``) is
    appended to ``out``."""
    s0, e0 = ws - off, we - off
    # what each form needs somewhere in the window, one-character tests first (a multi-character
    # str.find costs ~10 times one of a single character): a text with none of it costs no more
    f = low.find
    asc = low.isascii()
    marked = f("*", s0, e0) >= 0 or f("`", s0, e0) >= 0
    broken = f("\n", s0, e0) >= 0 or f("\r", s0, e0) >= 0 or (f("\\", s0, e0) >= 0 and f("\\n", s0, e0) >= 0)
    fenced = broken and (marked and f("```", s0, e0) >= 0 or f("~", s0, e0) >= 0 and f("~~~", s0, e0) >= 0)
    arrow = (f("\u2192", s0, e0) >= 0 or f("\u21d2", s0, e0) >= 0
             or f(">", s0, e0) >= 0 and (f("=>", s0, e0) >= 0 or f("->", s0, e0) >= 0)
             or f(":", s0, e0) >= 0 and f("::", s0, e0) >= 0
             or bool(anchor_offsets(at, low, _FOREIGN_ASCII if asc else _FOREIGN_STARTS, s0, e0)))
    piped = f("|", s0, e0) >= 0
    # redb22: the offsets of '<th', 'pass' and a 'pin' header are the prefilter's (anchors: with the matcher no
    # scan; a find of its own over every window cost ~3 % of a transcript's CPU each)
    if anchor_offsets(at, low, ("<th",), s0, e0):
        _scan_html_table(rule, text, s0, e0, out, low, off)
    for p in anchor_offsets(at, low, ("<dt",), s0, e0):       # red23 (Y11): '<dt>Password</dt><dd>X</dd>'
        if (m := _HTML_DEF.match(low, p, e0)) is not None and (h := _HEAD_CELL.match(m.group("h"))) is not None \
                and (w := _head_word(h)) is not None:
            _html_value(rule, text, m, w, off, out)
    if not (marked or broken or arrow or piped):
        return
    # imp26: the words' offsets are the prefilter's too (the matcher tracks every scanner's starts): a
    # str.find pass per word per window was ~1/8 of the redaction's CPU in an import
    starts = sorted([p for p in anchor_offsets(at, low, _STARTS_ASCII if asc else _STARTS, s0, e0)
                     if p == 0 or not low[p - 1].isalnum() or low[p] >= "\u3000"]   # on a word boundary (CJK: none)
                    + [p for p in anchor_offsets(at, low, _WEAK_ANCHORS, s0, e0)
                       if (p == 0 or not low[p - 1].isalnum()) and _WEAK_START.match(low, p, e0) is not None])
    for p in starts:
        if (w := _WORD_RE.match(low, p, e0)) is None:
            continue
        c = low[w.end():w.end() + 1]
        if marked and c in "*`:" and (m := _MARKED.match(low, p, e0)) is not None:
            mk = m.group("m")
            o = low.rfind(mk, max(s0, _line_start(low, p)), p)
            if o >= 0 and low[o + len(mk):o + len(mk) + 1] not in (" ", "\t", ""):
                _keep(rule, text, m, off, out)
        elif (fenced and c in "*_`: \t" and (m := _FENCED.match(low, p, e0)) is not None
              or arrow and c in " \t*`=\"'\\" + CJK_JOIN + THAI_IS[0]
              and (m := _ARROW.match(low, p, e0)) is not None
              and (low.find("::", w.end(), m.start("secret")) < 0          # org's '::': the term opens its item
                   or not low[max(s0, _line_start(low, p)):p].strip(" \t-+*"))):
            _keep(rule, text, m, off, out)
        elif (broken and c in "*_` \t\r\n\\" and (m := _DEFINITION.match(low, p, e0)) is not None
              and not _line_head(low, s0, p).strip(" \t*_`")):
            _keep(rule, text, m, off, out)
        elif (broken and c in "*` \t\r\n\\" and (m := _BARE_KEY.match(low, p, e0)) is not None
              and not low[max(s0, _line_start(low, p)):p].strip(" \t*`")):
            s, e = m.span("secret")
            if looks_secret(text[s + off:e + off], labelled=True):
                out.append((s + off, e + off, rule.priority, rule.name))
        elif (piped and c in "*_` \t|" and (m := _PAIR_ROW.match(low, p, e0)) is not None
              and _PAIR_LEAD.match(_line_head(low, s0, p).strip(" \t*_`")) is not None):
            _keep(rule, text, m, off, out)
    if starts and broken:
        for sep in ("|", ",", "\t"):
            if low.find(sep, s0, e0) >= 0:
                _scan_table(rule, text, starts, s0, e0, out, low, off, sep)


scan_markdown.starts = _STARTS   # type: ignore[attr-defined]  # the matcher finds them (prefilter.Plan.literals)


def _keep(rule: Rule, text: str, m, off: int, out: list) -> None:
    """Append the span of ``m``'s ``secret`` group (offsets of the lowercased window, ``off`` before the
    text's) to ``out`` when :func:`_value_ok` takes it after ``m``'s word."""
    s, e = m.span("secret")
    g = m.re.groupindex
    w, v = m.group("w") or ("f" in g and m.group("f")) or ("j" in g and m.group("j")) or "", text[s + off:e + off]
    quoted = "q" in g and m.group("q") == "`" or "vq" in g and m.group("vq") is not None
    if _phrase_ok(w, v, quoted) if " " in v else _value_ok(w, v):
        out.append((s + off, e + off, rule.priority, rule.name))


def _phrase_ok(word: str, v: str, code: bool) -> bool:
    """red27 (W7): a value of several words after a password's, a
    passphrase's or a secret's label in Markdown (``word``: bold, a table's
    header or pair cell; not ``pass``, a key's or a token's, another
    language's): in a code span (``code``), whatever its words
    (:func:`~.passphrases.quoted_passphrase_ok`); bare, lower-case words of
    no prose (:func:`~.checks.passphrase_words_ok`: ``correct horse battery
    staple``, not ``see the vault``); red28 (test27b X1): in Title Case too
    (``**Password:** Correct Horse Battery Staple``), as after a plain label."""
    if word.startswith(_FOREIGN_STARTS):     # red30: another language's label, its value quoted (no word lists)
        return code and quoted_passphrase_ok(v)
    if word in _WEAK_WORDS or "+" in word or not word.startswith(("passw", "passp", "pwd", "secret")):
        return False
    return quoted_passphrase_ok(v) if code else passphrase_words_ok(v, quoted=False, title=True)



def _lines(low: str, p: int, e0: int):
    """The lines of ``low[p:e0]``: (start, end) pairs, raw or JSON-escaped breaks."""
    while p <= e0:
        b = _LINE_BREAK.search(low, p, e0)
        if b is None:
            yield p, e0
            return
        yield p, b.start()
        p = b.end()


def _cells(low: str, s: int, e: int, sep: str) -> list[tuple[int, int]]:
    """The cells of the row ``low[s:e]`` split at ``sep`` (a Markdown row's
    leading and trailing pipes dropped): (start, end) pairs."""
    out, p = [], s
    while True:
        q = low.find(sep, p, e)
        while q > p and low[q - 1] == "\\" and sep == "|":     # red23 (Y11): '\|' is a pipe inside a cell (GFM 4.10)
            q = low.find(sep, q + 1, e)
        out.append((p, e if q < 0 else q))
        if q < 0:
            break
        p = q + 1
    if sep == "|":
        if out and not low[out[0][0]:out[0][1]].strip():
            out.pop(0)
        if out and (not (t := low[out[-1][0]:out[-1][1]].strip()) or _JSON_END.fullmatch(t)):
            out.pop()     # red31: or the JSON string's end after a table's last row ('| root | X |"}')
    if sep != "," and out and (j := _JSON_TAIL.search(low, *out[-1])) is not None and j.start() > out[-1][0]:
        out[-1] = (out[-1][0], j.start())     # red33: a row with no closing pipe ends before it ('root | X"}')
    return out


def _scan_table(rule: Rule, text: str, starts: list[int], s0: int, e0: int, out: list, low: str, off: int,
                sep: str) -> None:
    """A column headed by a credential word: a GitHub Flavored Markdown table
    (``sep`` ``|``: a header row, its delimiter row, body rows; GFM 0.29
    4.10 https://github.github.com/gfm/#tables-extension-) or a CSV file
    (``sep`` ``,``: a header record of 2+ fields, then records of as many;
    RFC 4180 s2); red33: a tab-separated paste (``sep`` tab, IANA
    text/tab-separated-values) and a pipe table with neither outer pipes nor
    a delimiter row, both read as a CSV file whose header cells are column
    names (:data:`_NAME_CELL`); in each body row the cell of that column, stripped of
    blanks and of a code span or emphasis around it, when :func:`_value_ok`
    takes it.  Unquoted CSV fields only (a quoted field is left)."""
    done = -1
    for p in starts:                    # a header is a line holding a credential word (at ``starts``), read once
        if (w := _WORD_RE.match(low, p, e0)) is None:
            continue
        hs = max(s0, _line_start(low, p))
        if hs <= done:
            continue
        hs = p - len(_line_head(low, s0, p))     # red31: after a JSON string's opening quote ('{"content": "| user |')
        hs = _unprefixed(low, hs, p)             # red32 (W13): past a Read tool's, grep's or diff's line prefix
        br = _LINE_BREAK.search(low, w.end(), e0)
        he = done = e0 if br is None else br.start()
        if br is None or sep not in low[hs:he]:
            continue
        rows = iter(_lines(low, br.end(), e0))
        head = _cells(low, hs, he, sep)
        if len(head) < 2:
            continue
        cols = [(i, _head_word(m)) for i, (a, b) in enumerate(head) if (m := _HEAD_CELL.match(low[a:b])) is not None]
        if not cols:
            continue
        bare = sep == "\t"        # red33: a tab-separated paste ('user<TAB>password' LF 'root<TAB>X'): as a CSV file
        if sep == "|":
            rows = ((_unprefixed(low, a, b), b) for a, b in rows)
            d = next(rows, None)
            if d is None:
                continue
            if _DELIM_ROW.match(low[d[0]:d[1]]) is None:
                # red31 (test30c T14): a pipe table typed without its delimiter row ('| user | password |' LF
                # '| root | X |'): both rows framed by pipes, the second read as the first body row; red33: or
                # neither ('user | password' LF 'root | X'), its header one of column names, read as a CSV file
                framed = low[hs:he].lstrip(" \t").startswith("|"), low[d[0]:d[1]].lstrip(" \t").startswith("|")
                if framed == (False, False):
                    bare = True
                elif framed != (True, True):
                    continue
                rows = itertools.chain((d,), rows)
        if bare and not all(_NAME_CELL.match(low, a, b) for a, b in head):
            continue
        found: list[tuple[int, int, int]] = []   # (column, start, end) of each value, kept unless its column is a matrix's
        matrix: set[int] = set()
        for rs, re_ in rows:
            if sep == "|" and low[rs:re_].lstrip(" \t").startswith("+") and _DELIM_ROW.match(low[rs:re_]):
                continue                # red23 (Y11): a grid table's border between its rows
            row = _cells(low, rs, re_, sep)
            if sep not in low[rs:re_] or len(row) != len(head):
                break
            done = max(done, re_)       # a body row is read once: never again as a header (test31c W15: rows
            # that each read as a header were each read with every row after them, 70x the time)
            for i, word in cols:
                a, b = row[i]
                v = text[a + off:b + off]
                lead = len(v) - len(v.lstrip(" \t*_`"))
                c = v.strip(" \t*_")
                code = len(c) > 2 and c[0] == c[-1] == "`" and "`" not in c[1:-1]    # the whole cell one code span
                v = v.strip(" \t*_`")
                if v.lower() in _MATRIX_WORDS:
                    matrix.add(i)               # red32 (W3): '| Login | Yes | No |': a feature matrix's column
                elif v and (sep == "|" and not bare and _phrase_ok(word, v, code) if " " in v else (
                        _VALUE_RUN.fullmatch(v.replace("\\|", "")) is not None and _value_ok(word, v))):
                    found.append((i, a + lead + off, a + lead + len(v) + off))
        out.extend((a, b, rule.priority, rule.name) for i, a, b in found if i not in matrix)


#: redb22 (X9): an HTML table cell, ``<th>`` or ``<td>`` (attributes allowed), its text with at most one inline
#: element around it (``<td><code>X</code></td>``); the end tag required (HTML lets it be omitted: such a table is
#: left)
_HTML_CELL = Lazy(r"<t(?P<k>[hd])(?:[ \t\r\n][^<>]{0,256})?>[ \t\r\n]{0,16}(?:<(?P<i>code|b|strong|em|kbd|samp|tt)>)?"
                  r"(?P<v>[^<>]{0,256})(?(i)</(?P=i)>)[ \t\r\n]{0,16}</t(?P=k)>", FLAGS)
#: red23 (Y11): an HTML description list's term and its description (WHATWG HTML 4.4.9 "The dl element"):
#: ``<dt>Password</dt><dd>X</dd>`` (the term judged as a table's header cell, the description as its value);
#: mend24: a JSON-escaped line break between the term and its description
_HTML_DEF = Lazy(r"<dt(?:[ \t\r\n][^<>]{0,256})?>[ \t\r\n]{0,16}(?P<h>[^<>]{1,64})</dt>(?:[ \t\r\n]|\\{1,3}[rnt]){0,16}"
                 r"<dd(?:[ \t\r\n][^<>]{0,256})?>[ \t\r\n]{0,16}(?:<(?P<i>code|b|strong|em|kbd|samp|tt)>)?"
                 r"(?P<v>[^<>]{0,256})(?(i)</(?P=i)>)[ \t\r\n]{0,16}</dd>", FLAGS)
#: how far after a '<th' a table's rows are read (bytes)
_HTML_TABLE_MAX = 65536


def _scan_html_table(rule: Rule, text: str, s0: int, e0: int, out: list, low: str, off: int) -> None:
    """redb22 (tester finding X9): an HTML table whose header cell holds a
    credential word (``<th>password</th>``, :data:`_HEAD_CELL`): in each
    later row (``<tr>``, up to the table's end or :data:`_HTML_TABLE_MAX` characters) the ``<td>`` of that
    column; in a row headed by such a ``<th>``
    (``<tr><th>Password</th><td>X</td></tr>``) the ``<td>`` after it; each
    when :func:`_value_ok` takes its text (WHATWG HTML 4.9 "Tabular data":
    a ``tr`` holds ``th`` / ``td`` cells in column order; ``colspan`` is not
    followed: a table holding one is left).  A bounded regex scan rather
    than :mod:`html.parser`: it must give the value's offsets in the text,
    raw or JSON-escaped, and cost nothing on a text with no ``<th``."""
    p = _html_th(low, s0, e0)
    tend = -1          # the next '</table' at or after p (looked for again only once p is past it: linear), or e0
    while p >= 0:
        lim = min(e0, p + _HTML_TABLE_MAX)
        hs = low.rfind("<tr", max(s0, p - 4096), p)                # the header row's start
        q = low.find("<tr", p, lim)                                 # the next row's
        if tend < p:
            tend = low.find("</table", p, e0)
            tend = e0 if tend < 0 else tend
        end = min(tend, lim)
        row_end = q if 0 <= q < end else end
        head = list(_HTML_CELL.finditer(low, p if hs < 0 else hs, row_end))
        words = [_HEAD_CELL.match(c.group("v")) if c.group("k") == "h" else None for c in head]
        if any(c.group("k") == "d" for c in head):                  # a row headed by its <th>
            for i, m in enumerate(words[:-1]):
                if m is not None and head[i + 1].group("k") == "d":
                    _html_value(rule, text, head[i + 1], _head_word(m), off, out)
            p = _html_th(low, max(p + 3, row_end), e0)
            continue
        cols = [(i, _head_word(m)) for i, m in enumerate(words) if m is not None]
        if cols and 0 <= q < end and "colspan" not in low[p:end]:
            r = q
            while 0 <= r < end:
                nxt = low.find("<tr", r + 3, end)
                cells = list(_HTML_CELL.finditer(low, r, end if nxt < 0 else nxt))
                if len(cells) == len(head):
                    for i, word in cols:
                        _html_value(rule, text, cells[i], word, off, out)
                r = nxt
        p = _html_th(low, max(p + 3, end), e0)


def _html_value(rule: Rule, text: str, cell, word: str, off: int, out: list) -> None:
    """Append the span of the text of ``cell`` (an :data:`_HTML_CELL` match over the lowercased window,
    ``off`` before the text's), blanks stripped, when it is one value :func:`_value_ok` takes after ``word``."""
    a, b = cell.span("v")
    v = text[a + off:b + off]
    lead = len(v) - len(v.lstrip())
    v = v.strip()
    if v and _VALUE_RUN.fullmatch(v) is not None and _value_ok(word, v):
        out.append((a + lead + off, a + lead + len(v) + off, rule.priority, rule.name))


def _html_th(low: str, s: int, e: int) -> int:
    """The offset of the next ``<th>`` or ``<th …>`` start tag in ``low[s:e]`` (not ``<thead>``), or -1."""
    p = low.find("<th", s, e)
    while p >= 0 and low[p + 3:p + 4] not in (">", " ", "\t", "\r", "\n"):
        p = low.find("<th", p + 3, e)
    return p


MARKDOWN_RULES: list[Rule] = [
    make_rule("markdown-secret",
              "CommonMark 0.31.2 (6.1 code spans, 6.2 emphasis, 4.5 fenced code blocks) "
              "https://spec.commonmark.org/0.31.2/ , GFM 0.29 tables https://github.github.com/gfm/#tables-extension- "
              "and RFC 4180 CSV: a password, secret, API key or token label in emphasis or a code span, its value "
              "in a fenced block after it, or in a table column headed by it",
              _MARKED_RE, ci=True, priority=52, scan=scan_markdown,
              # 'pin' only as a table's header cell (a 'pin' anchor ran this rule on every 'mapping' or 'typing')
              # or a description list's term (mend24: '<dt>PIN</dt><dd>X</dd>'; '<dt>pin', not 'pin</dt': the gate
              # of anchors sharing a prefix is that prefix, and 'pin' would run it on every 'mapping')
              # red26b: 'enha' for 'senha' (with 'secret' it would make the gate 'se', in most English windows)
              anchors=("pwd", "secret", "key", "token", *(w if w != "senha" else "enha" for w in _FOREIGN_STARTS),
                       "<th", "<dt>pin",
                       *_WEAK_ANCHORS)),
]
