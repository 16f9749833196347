"""Scanners of :mod:`objstore.core.redact`: a rule's ``scan`` that replaces the plain
``finditer`` pass (keyword assignments, AWS key pairs, and :func:`scan_at`: a pattern
tried only where one of its start literals occurs; PEM blocks read from both ends are
:mod:`.pem`'s, split from here by red30 for the module size limit; the keywords and the
key-name rule :mod:`.keywords`', by red32)."""

from __future__ import annotations

from collections.abc import Callable

from objstore.core.redact.checks import (labelled_password_ok, looks_assigned, looks_secret, named_value_ok,
                                         random_letters, short_labelled_ok)
from objstore.core.redact.keywords import GEN_ANCHORS, KW, credential_name, pin_code_ok
from objstore.core.redact.literals import LINE_END, json_unescape, literal_end, quoted_literal_end, whole_json_value
from objstore.core.redact.passphrases import quoted_passphrase_ok, settings_words_end
from objstore.core.redact.rule import FLAGS, Lazy, Rule
from objstore.core.redact.settingsvalues import (key_name, settings_assign, settings_key, words_owner_ok,
                                                 words_to_end)


def scan_plain(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int) -> None:
    """One ``finditer`` pass of ``rule`` over ``text[ws:we]`` (over ``low``, the window lowercased from
    ``off``, for a case-insensitive rule): each match's ``secret`` group (or the whole match) that
    ``rule.check`` takes is appended to ``out`` as (start, end, priority, name)."""
    if rule.lowered is not None:
        matches = rule.lowered.finditer(low, ws - off, we - off)
    else:
        matches, off = rule.pattern.finditer(text, ws, we), 0
    check = rule.check
    grouped = "secret" in rule.groupindex
    for m in matches:
        s, e = m.span("secret") if grouped else m.span()
        if s < 0 or s == e:
            continue
        s += off
        e += off
        if check is not None and not check(text[s:e]):
            continue
        out.append((s, e, rule.priority, rule.name))


# ---- generic keyword assignments (their keywords, KW, are :mod:`.keywords`') --------------
#: test25 T12: also a subscript's closing ``']`` (Flask's ``app.config['SECRET_KEY'] = …``, ``env["TOKEN"] = …``)
#: red29 (test29 P5): or a bracketed qualifier before the sign ('DB password (prod): X', 'Password [staging] = X'),
#: or a plural label and the user the value is for ('passwords: admin=X'); red30: the qualifier in any bracket
#: or quotes ('{prod}', '<prod>', '"prod"', "'prod'", '`prod`'), two of them, after a plural label too
#: (``QUALIFIER``: the dash and foreign labels take it too), inside a quoted key ('{"password (prod)": "X"}'),
#: and 'pwd for root: X' (the user it is for); red31: up to 48 characters ('(production eu-west-1 primary)'), and in
#: fullwidth parentheses ('Password\uff08prod\uff09: X', a CJK keyboard's); red32 (test31c W2): fullwidth square and
#: lenticular brackets ('DB password\uff3bprod\uff3d: X', '\u3010prod\u3011')
QUALIFIER = (r"(?:\([q]{1,48}\)|\[[q]{1,48}\]|\{[q]{1,48}\}|<[q]{1,48}>|\\{0,3}\"[q]{1,48}\\{0,3}\"|'[q]{1,48}'|`[q]{1,48}`"
             r"|\uff08[q]{1,48}\uff09|\uff3b[q]{1,48}\uff3d|\u3010[q]{1,48}\u3011|[\u201c\u201e\u2018\u201a\u00ab\u00bb\u2039\u203a\u300c\u300e][q]{1,48}[\u201c\u201d\u2018\u2019\u00bb\u00ab\u203a\u2039\u300d\u300f])")
QUALIFIER = QUALIFIER.replace("q", r"a-z0-9 _.,/\-")
ASSIGN = (r"(?:\\{0,3}[\"']\]?|(?:(?<=[dt])s)?[ \t]{0,4}" + QUALIFIER + r"(?:[ \t]{0,4}" + QUALIFIER + r")?(?:\\{0,3}[\"'])?"
          r"|(?<=pw|wd)[ \t]{1,4}for[ \t]{1,4}[a-z0-9_.@\-]{1,32}"
          r"|(?<=[dt])s[ \t]{0,4}:[ \t]{0,8}[a-z0-9_.@\-]{1,32}(?=[ \t]{0,4}=))?(?:(?<!self\))(?<=[)\]}>\"'`\uff09\u201c\u201d\u2019\u00ab\u00bb\u2039\u203a\u300d\u300f])[ \t]{0,4}:?[ \t]{0,4}(?:->|\u2192)"
          r"|[ \t]{0,8}(?:=>|:=|=|:))[ \t]{0,8}(?:\\{0,3}[\"'`])?")
VALUE = r"(?:[^\s\"'`\\,;&<>(){}\[\]|]|&(?![&\s]|$|[A-Za-z_][A-Za-z0-9_.\-]{0,64}=))"   # ``&`` inside a value (``Tr0ub4dor&3``), not ``&&`` or ``&next=``
VALUE_END = r"(?=[\s\"'`\\,;&)}\]>|]|$)"
# over the lowercased text: the head alone, and head and value in one match
# (group 1 the value run, group 2 set when a delimiter or the end follows it)
#: red32 (test31b V9): or blanks and an opening quote, the name's value quoted after it with no sign (Gradle's
#: ``storePassword "X"`` https://developer.android.com/build/building-cmdline#gradle_signing , Tcl's ``set
#: password "X"``, HCL-ish ``db_password "X"``): the generic scan's own (rules' other users of ASSIGN keep theirs)
_GEN_SIGN = r"(?:" + ASSIGN + r"|(?<=word|sswd)[ \t]{1,4}\\{0,3}[\"'](?=[^\s\"'`\\]))"   # not a closing quote
_GEN_HEAD = Lazy(KW + _GEN_SIGN, FLAGS)
#: the longest value run ``_GEN_HV`` reads (a longer run is read to its end by ``_GEN_RUN``: cred20)
_GEN_MAX = 4096
_GEN_HV = Lazy(KW + _GEN_SIGN + r"(" + VALUE + r"{0,%d}+)(" % _GEN_MAX + VALUE_END + r")?", FLAGS)
_GEN_RUN = Lazy(VALUE + r"*+", FLAGS)
_GEN_END = Lazy(VALUE_END, FLAGS)
#: how much of a value longer than _GEN_MAX the checks read (cred20)
_LONG_SAMPLE = 128


def _password_label(low: str, p: int, *, secret: bool = False) -> bool:
    """The keyword at ``p`` of the lowercased text is an explicit password
    label: ``password``, ``passwd``, ``passwort``, ``passphrase``, ``pwd`` or
    a name ending ``_pass`` (``DB_PASS``); with ``secret``, also ``secret``
    (``secret:``, ``client_secret=``: a label whose value ending its line
    is judged as a password's, :func:`short_labelled_ok`, and read on the
    next line); not ``pw`` nor a bare ``pass``
    (``pw: playwright``, a compiler's ``pass: parse``), nor a name in code:
    an attribute or a variable (``self.password = account``,
    ``$password = input``, ``obj->password``, ``@password``)."""
    if not (low.startswith(("passw", "passphrase", "pwd"), p) or (low.startswith("pass", p) and low[p - 1:p] == "_")
            or (secret and low.startswith("secret", p))):
        return False
    i = p
    while i > 0 and i > p - 64 and (low[i - 1].isalnum() or low[i - 1] == "_"):
        i -= 1
    return low[i - 1:i] not in (".", "$", ">", "@")


def _phrase_label(low: str, p: int, text: str, off: int) -> bool:
    """red27 (W7): the keyword at ``p`` of the lowercased window (``off``
    before the text's) labels a passphrase read whole when quoted: a
    password or secret label (:func:`_password_label`), or ``PASS`` in
    capitals (``PASS="correct horse battery staple"``, a shell variable)."""
    return _password_label(low, p, secret=True) or (
        text.startswith("PASS", p + off) and not low[p + 4:p + 5].isalpha())


def _outside_code_span(text: str, k: int) -> bool:
    """red27: the label at ``k`` of ``text`` stands outside a Markdown code span: an even number of backticks
    before it on its line (looked for 256 characters back at most), so a backtick after it opens its value's
    span rather than closing the label's (```JWT_SECRET=`, `COOKIE_SECRET=```)."""
    lo = max(0, k - 256)
    return text.count("`", max(lo, text.rfind("\n", lo, k) + 1), k) % 2 == 0


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


def anchor_offsets(at, low: str, lits: tuple[str, ...], start: int, end: int) -> list[int]:
    """The sorted offsets in the lowercased window ``low`` where one of the
    lowercase literals ``lits`` starts, within [start, end): the prefilter's
    own (``at``, :func:`_occurrences`: an anchor the matcher looked for costs
    no scan), or one ``str.find`` pass per literal per window (redb22)."""
    return _occurrences(at, low, 0, lits, start, end)


_URL_BREAK = Lazy(r"[\s\"'`<>]", FLAGS)


def _in_url(text: str, hs: int, ws: int) -> bool:
    """True when the keyword at ``hs`` sits in the userinfo of a URL (a ``://``
    before it with no blank or quote in between)."""
    i = text.rfind("://", max(ws, hs - 256), hs)
    return i >= 0 and _URL_BREAK.search(text, i, hs) is None


# a line break right after a password label (raw, or escaped in JSON once or more), then the
#: the fewest characters of a key's or token's value alone on its label's next line (test18 U7: 'api_key:' LF
#: 'Zq7mm9xQ…'); a password's may be 4 (:func:`short_labelled_ok`)
KEY_NEXT_LINE_MIN = 8
# next line's indentation and an optional opening quote: where a value alone on that line starts; a shell's
# line continuation before the break ('API_KEY=\\' LF 'Zq7mm…': sec20); red21: or one blank line between
# ('Password:' LF LF 'hunter2-…': a chat or Markdown answer sets the value apart as its own paragraph).  One at
# most: past a second blank line the next line starts another section (a heading, prose, the next field), and
# the value is judged by its shape alone, so each further line read is one more chance of taking a word
_BREAK = r"(?:\r?\n|\\{1,3}(?:r\\{1,3})?n)"
_NEXT_LINE = Lazy(r"[ \t]{0,8}(?:\\[ \t]{0,8}\r?\n|" + _BREAK + r"(?:[ \t]{0,16}" + _BREAK + r")?)"
                  r"[ \t]{0,16}(?:\\{0,3}[\"'`])?", FLAGS)
# a label in a sentence that ends its line: 'Your password is:', 'Your API key is:', 'the token was now:' (sec20)
_PHRASE_LABEL = Lazy(KW + r"[ \t]{1,4}(?:is|are|was)(?:[ \t]{1,4}(?:now|still))?[ \t]{0,4}:[ \t]{0,8}"
                     r"(?=(?:\\[ \t]{0,8})?(?:\r?\n|\\{1,3}(?:r\\{1,3})?n))", FLAGS)


# after the first token of a label's next line: a blank and the start of a word (a letter, an opening
# bracket or quote, a '#' comment, a non-ASCII character), not an operator ('pw2 = x', 'a1b2 += 1')
_PROSE_AFTER = Lazy(r"[,;.]?[ \t]{1,8}(?:[A-Za-z(\"'`#]|[^\x00-\x7f])", FLAGS)
# a date or a time (a log line's stamp: '2026-02-27T01:24:49.093Z INFO ...'), not a password
_STAMP = Lazy(r"[0-9]{1,4}[-:./][0-9]{1,4}(?:[-:./T][0-9]{1,4}){0,6}(?:\.[0-9]{1,9})?(?:Z|[+-][0-9:]{2,5})?", FLAGS)
#: red34 (test33 T10): a line that is itself an assignment, ``NAME=value`` (a .env's next variable, also after a
#: ``Read`` tool's line number, ``    10\u2192DB_HOST=…``): never the value of an empty ``REDIS_PASSWORD=`` above it
_ASSIGNMENT = Lazy(r"(?:[0-9]{1,7}\u2192)?(?:export[ \t]{1,4})?(?:[A-Z][A-Z0-9_]{1,63}|[a-z_][a-z0-9_]{1,63})=(?!=)", FLAGS)
# a label alone on its line (no ':' or '='): password, passwd, passwort, passphrase, pwd, then the line's end
_BARE_STARTS = ("passw", "passp", "pwd")   # what it starts with: most anchors (token, key, secret) are no label
_BARE_LABEL = Lazy(r"(?:passw(?:or)?[dt]|passwd|passphrase|pwd)[ \t]{0,8}(?=\r?\n|\\{1,3}(?:r\\{1,3})?n)", FLAGS)


def _bare_label(low: str, p: int, end: int, off: int) -> int:
    """The end of a password label at ``p`` of the lowercased window that is
    alone on its line (``Password`` LF ``PlumTree#77``: a form or a table
    read out, red13), else -1.  Its line starts at the text's start, after a
    line break (raw or escaped) or at a string's opening quote, then
    indentation; ``off``: where ``low`` starts in the text."""
    m = _BARE_LABEL.match(low, p, end)
    if m is None:
        return -1
    i = p
    while i > 0 and low[i - 1] in " \t":
        i -= 1
    if (i == 0 and off == 0) or (i > 0 and low[i - 1] in "\n\r\"'`") or (i > 1 and low[i - 2:i] in ("\\n", "\\r")):
        return m.end()
    return -1


def _next_line_value(rule: Rule, text: str, e: int, we: int, out: list, *, bare: bool = False,
                     key: bool = False) -> None:
    """After an explicit password label that ends its line (``Password:``,
    ``passwd =``), the value on the next line (rob10): ``Password:``
    LF ``  hunter2xyz``; or (red21) on the line after one blank line
    (``Password:`` LF LF ``hunter2-…``: an answer in Markdown sets the value
    apart as a paragraph of its own, CommonMark 0.31.2 "Paragraphs"
    https://spec.commonmark.org/0.31.2/#paragraphs), never past a second
    (:data:`_NEXT_LINE`).  Taken when it is the whole of that line and a
    password by the shapes a value on the label's own line is judged by
    (:func:`looks_secret`, :func:`looks_assigned`, :func:`labelled_password_ok`);
    or (red13) when it is that line's first token and prose follows it
    (``Password:`` LF ``PlumTree#77 is set for the db``: the token, not the
    prose) and it has letters with digits or symbols (the short-value rule,
    :func:`short_labelled_ok`) or reads as random (:func:`looks_secret`); a
    full stop ending the token is the sentence's.  ``bare``: the label
    has no ``:`` or ``=`` (``password`` alone on its line,
    :func:`_bare_label`), so a value of letters alone (a list of field
    names: ``password`` LF ``username``) is not taken.  ``key``: the label
    is a key's or a token's (``api_key:``, ``API key:``, ``token:``; test18
    U7), whose value is a key's shape: random-looking (:func:`looks_secret`)
    or :data:`KEY_NEXT_LINE_MIN` characters or more with letters and digits
    or symbols (:func:`short_labelled_ok`), not a password's word.  Never a
    label, list item or heading (``Username:``, ``- item``, ``# Notes``), an
    assignment (``DB_HOST=db9``: :data:`_ASSIGNMENT`), a
    word of prose (``Enter it below``), nor code (``type: string``, ``pw2 =
    x``: an operator follows the token)."""
    nl = _NEXT_LINE.match(text, e, we)
    if nl is None or _ASSIGNMENT.match(text, nl.end(), we) is not None:
        return
    s = nl.end()
    e = _GEN_RUN.match(text, s, we).end()
    v = text[s:e]
    if (len(v) < 4 or v[-1] == ":" or v[0] in "-*#>+=!?"
            or text[s - 1] in "\"'`" and text[e:e + 1] != text[s - 1]):
        return
    if (bare or key or LINE_END.match(text, e) is None) and _STAMP.fullmatch(v.rstrip(".")) is not None:
        return                                     # 'password' LF '2026-02-27T01:24:49Z INFO ...'
    if LINE_END.match(text, e) is not None:       # the whole line
        if key:
            ok = looks_secret(v, labelled=True) or (len(v) >= KEY_NEXT_LINE_MIN and short_labelled_ok(v))
        else:
            ok = (looks_secret(v, labelled=True) or looks_assigned(v, password=True, quoted=False, labelled=True)
                  or (not bare and labelled_password_ok(v)) or short_labelled_ok(v))
        if v[-1] != "." and ok:
            out.append((s, e, rule.priority, rule.name))
        return
    if text[s - 1] in "\"'`":
        after = e + 1                              # a quoted value is the whole of its quotes
    elif v[-1] == ".":
        e = after = e - 1
        v = v[:-1]
    else:
        after = e
    if (_PROSE_AFTER.match(text, after) is not None and len(v) >= (KEY_NEXT_LINE_MIN if key else 4)
            and (short_labelled_ok(v) or looks_secret(v, labelled=True))):
        out.append((s, e, rule.priority, rule.name))


def _label_next_line(rule: Rule, low: str, p: int, text: str, e: int, we: int, out: list) -> bool:
    """After a label that ends its line (the keyword at ``p`` of the
    lowercased window, the label's end at ``e`` of the text), the value on
    the next line (:func:`_next_line_value`) when the keyword is a
    password's or a secret's (``Password:``, ``secret:``, ``Your password
    is:``) or a key's or a token's (``api_key:``, ``token:``, ``Your API key
    is:``, ``API_KEY=\\``); returns whether it was such a label."""
    if _password_label(low, p, secret=True):
        _next_line_value(rule, text, e, we, out)   # 'Password:' LF '  hunter2xyz', 'secret:' LF '  Kx9mm'
        return True
    if low.startswith(("token", "key"), p) and low[p - 1:p] not in (".", "$", ">", "@"):
        _next_line_value(rule, text, e, we, out, key=True)   # 'api_key:' LF 'Zq7mm9xQ…', 'token:' LF …
        return True
    return False


#: red23 (tester finding Y3): the words before a secret's keyword that say its value is the key itself, never the
#: name of a stored Secret (``IMAGE_PULL_SECRET=regcred`` names a Kubernetes Secret): a JWT's signing secret
#: (RFC 7518 s3.2, HS256's shared key), a master key
_KEY_ITSELF = ("jwt", "master")
#: mend24: the names of a web framework's signing secret for its session cookies (Express's ``SESSION_SECRET``,
#: ``COOKIE_SECRET``, Flask's ``session_secret``): the word right before ``secret``, the value the key itself
_SIGNING_SECRET = ("session_", "session-", "session", "cookie_", "cookie-", "cookie")
#: redb24 (tester finding U2): Django's and Flask's ``SECRET_KEY`` (``app.secret_key``): the keyword itself names
#: the signing key, so its value is the key
_SECRET_KEY = ("secret_key", "secret-key", "secretkey")
#: redb24: an identifier's words split at its case changes (``HTTPSServer`` -> ``HTTPS``, ``Server``)
_CAMEL_WORD_RE = Lazy(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+", FLAGS)
#: redb24: the fewest letters a key-itself value of capitals or mixed case needs to be taken as random
_RANDOM_CASE_MIN = 16
#: redb24: words that make a long letters-only value a placeholder (``YOURSECRETKEYHERE``, ``ChangeThisSecret``)
#: (mend25: those of the other keywords too, now that any keyword's value is judged so: ``MYGITHUBTOKENVALUE``)
_PLACEHOLDER_WORDS = ("your", "change", "replace", "example", "secret", "insert", "sample", "token", "password",
                      "placeholder", "dummy", "default")


def _random_case(v: str) -> bool:
    """redb24 (U2): ``v``, letters alone, reads as a random key, not an
    identifier: :data:`_RANDOM_CASE_MIN` (16)+ ASCII letters, all capitals
    (``QWERTYUIOPASDFGHJKLZXCVBNM``) or mixed case whose camel-case words
    (:data:`_CAMEL_WORD_RE`) average under 3 letters
    (``KjHgFdSaQwErTyUi``: a random mix changes case every other letter;
    ``ChangeThisSecretValue`` and ``HTTPSServerConfig`` are names), holding
    none of :data:`_PLACEHOLDER_WORDS`; red26 (test25b U4): or all lower
    case that reads as random letters (:func:`random_letters`: few vowels,
    ``qwrtzpkdmfghjlxcvbnm``; ``refreshaccesstokenifexpired`` is words)."""
    if len(v) < _RANDOM_CASE_MIN or not (v.isascii() and v.isalpha()):
        return False
    low = v.lower()
    if any(w in low for w in _PLACEHOLDER_WORDS):
        return False
    if v.islower():
        return random_letters(v)
    if v.isupper():
        return True
    return len(v) < 3 * len(_CAMEL_WORD_RE.findall(v))


#: an identifier's characters, lowercased, before the keyword (``rails_master_``, ``jwt``)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")


def _key_itself(low: str, p: int, v: str, quoted: bool, text: str, e: int) -> bool:
    """red23 (Y3): the keyword at ``p`` of the lowercased window ends a name
    holding ``jwt`` or ``master`` (``JWT_SECRET``, ``jwtSecret``,
    ``RAILS_MASTER_KEY``, ``jwt_signing_key``), or (mend24) is ``secret``
    right after ``session`` or ``cookie`` (``SESSION_SECRET``,
    ``COOKIE_SECRET``: a session cookie's signing key): its value ``v`` is the key
    itself, so a literal of letters alone is one too (``JWT_SECRET="supersecretvalue"``,
    ``jwt_secret: supersecretvalue``) when quoted or alone at its line's end
    (``text`` at ``e``, the value's end), 8+ characters, not a whole placeholder or reference
    (``changeme``, ``${JWT_SECRET}``), not a word of :func:`labelled_password_ok`'s
    lists (``required``); unquoted, a Kubernetes name of words joined by
    ``-`` (``jwt-signing-secret``) stays (a Secret's name).  Values with
    digits or symbols are the other checks'."""
    if len(v) < 8:
        return False
    near = low[max(0, p - 32):p]
    signing = (near.endswith(_SIGNING_SECRET) and low.startswith("secret", p)   # mend24: SESSION_SECRET=
               or low.startswith(_SECRET_KEY, p))                           # redb24: SECRET_KEY=
    if not signing and "jwt" not in near and "master" not in near:   # two finds first: most keywords have neither
        return False
    if not quoted and LINE_END.match(text, e) is None:
        return False
    i = p
    while i > 0 and p - i < 32 and low[i - 1] in _NAME_CHARS:
        i -= 1
    name = low[i:p]
    if not signing and not any(w in name for w in _KEY_ITSELF):
        return False
    if not quoted and "-" in v:
        return False
    return labelled_password_ok(v) or _random_case(v)


def scan_generic(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """Keyword heads, then the value after each.  A head is tried only where
    ``str.find`` saw an anchor word in the lowercased window (faster than
    letting ``re`` try every p/s/t/k), with one match for head and value.  A
    head whose value would start inside the value of an earlier head
    (accepted, rejected or unterminated) is skipped, so each value run is read
    once and ``password=password=...`` stays linear; a head that starts inside
    an earlier value but whose own value starts after it
    (``password=PASSWORD: s3cr3t...``) is still looked at."""
    cands = _occurrences(at, low, 0, GEN_ANCHORS, ws - off, we - off)
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
            if low.startswith(_BARE_STARTS, p) and (b := _bare_label(low, p, end, off)) >= 0:
                last = b
                _next_line_value(rule, text, b + off, we, out, bare=True)   # 'password' LF 'PlumTree#77'
            elif (ph := _PHRASE_LABEL.match(low, p, end)) is not None:     # 'Your API key is:' LF 'Zq7mm…'
                last = ph.end()
                _label_next_line(rule, low, p, text, ph.end() + off, we, out)
            continue
        s, e = m.span(1)
        last = s
        s += off
        e += off
        if (q := quoted_literal_end(text, s, e, we)) > 0:
            # test25 T12: a quoted literal the run stopped inside at a symbol ('SECRET_KEY =
            # 'django-insecure-k7#m2(r6)t0…''): the whole literal, judged as a quoted value
            v = text[s:q]
            if looks_secret(v, labelled=_password_label(low, p)) or _key_itself(low, p, v, True, text, q):
                vend = q - off
                out.append((s, q, rule.priority, rule.name))
                continue
        if m.group(2) is None:                     # not followed by a delimiter: not a value
            if q > 0:
                vend = q - off
                continue
            if e - s < _GEN_MAX:
                vend = e - off
                continue
            # cred20: a value longer than the run the pattern reads (``password: <5000 chars>``, ``API_KEY=…``):
            # its whole run, when a delimiter ends it, if its first _LONG_SAMPLE characters read as a value
            # after a label (only a whole placeholder is none: a long random run holds 'xxx' or 'test' by chance)
            e = _GEN_RUN.match(text, s, we).end()
            vend = e - off
            v = text[s:s + _LONG_SAMPLE]
            if _GEN_END.match(text, e) is not None and (
                    looks_secret(v, labelled=True)
                    or looks_assigned(v, password=low.startswith(("pass", "pw"), p), quoted=False, labelled=True)):
                out.append((s, e, rule.priority, rule.name))
            continue
        vend = e - off
        if (qc := text[s - 1]) in "\"'`" and e < we and text[e] != qc and (c := literal_end(text, s, e, we)) > e:
            # red22: the run stopped inside a JSON string ('"a\\"b c"'); red26: or a single-quoted literal, and
            # words after a password or secret label ('"correct horse battery staple"'): the whole literal, or the
            # run as before; red27 (W7): or a code span, and whatever the words' case (quoted_passphrase_ok)
            password = low.startswith(("pass", "pw"), p)
            v = json_unescape(text[s:c], s, text) if qc == '"' else text[s:c]
            if whole_json_value(v, password, _password_label(low, p)) or (
                    _phrase_label(low, p, text, off) and quoted_passphrase_ok(v)
                    and (qc != "`" or _outside_code_span(text, p + off))):
                vend = c - off
                out.append((s, c, rule.priority, rule.name))
                continue
        elif e < we and text[e] == " " and text[e - 1].islower() and (w := words_to_end(text, s, e, we)) > 0 \
                and words_owner_ok(text, p + off, s, w) and (
                    _password_label(low, p, secret=True) or (qc == "=" and settings_key(key_name(text, p + off, s)))):
            # red26 (test25b U4): an unquoted value of words running to its line's end after a password or
            # secret label ('APP_PASSWORD=vbqk lmzt yhrw pxne' in a .env, 'password: correct horse battery')
            vend = w - off
            out.append((s, w, rule.priority, rule.name))
            continue
        elif e < we and text[e] == " " and _password_label(low, p, secret=True) and (
                w := settings_words_end(text, p + off, s, e, we)) > 0:
            # red27 (W7): a settings file's value of words after a password key that starts its line
            # ('  password: Correct Horse Battery Staple' in YAML) or in a connection string ('Password=Str0ng Pass 1;')
            vend = w - off
            out.append((s, w, rule.priority, rule.name))
            continue
        if e == s and _label_next_line(rule, low, p, text, e, we, out):
            continue
        if e - s < 4:
            continue
        at = text.find("@", s, e)
        if at >= 0 and _in_url(text, p + off, ws):
            e = at                         # ``scheme://token:SECRET@host``: the host is not the secret
        v = text[s:e]
        quoted = s > 0 and text[s - 1] in "\"'`"
        label = _password_label(low, p)    # only a whole placeholder is kept after one (red10)
        # 'secret: hunter2' (red10): an unquoted secret is held to a password's length, not a token's
        # (quoted, a password keyword takes any literal: 'SECRET_KEY = "AWS_SECRET_ACCESS_KEY"' is a name;
        # 'secret: secret: ...' a label, not a value)
        # red34 (test33 T9): a name's ``_CREDENTIAL`` (``MY_APP_CREDENTIAL=Zt5#wq``) is held to a password's length too
        password = low.startswith(("pass", "pw", "credential"), p) or (not quoted and low.startswith("secret", p)
                                                                      and not low[p - 1:p].isalnum() and v[-1] != ":")
        if looks_secret(v, labelled=label) or looks_assigned(v, password=password, quoted=quoted, labelled=label) or (
                not quoted and (label or _password_label(low, p, secret=True)) and LINE_END.match(text, e) is not None
                and ((label and labelled_password_ok(v)) or short_labelled_ok(v))) or (
                _key_itself(low, p, v, quoted, text, e)) or (
                len(v) >= _RANDOM_CASE_MIN and _random_case(v) and (quoted or LINE_END.match(text, e) is not None)) or (
                text[s - 1] == "=" and settings_assign(text, p + off, s, e, v)):
            # mend25: letters alone that read as random (_random_case) after any keyword, not only a key-itself
            # name's (APP_SECRET=, CLIENT_SECRET=, API_TOKEN=): no identifier has that shape
            out.append((s, e, rule.priority, rule.name))


#: how far (characters) from an AWS access key id an unlabelled secret access key is looked for
_AWS_PAIR_SPAN = 256
_AWS_SECRET_RE = Lazy(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])", FLAGS)


def _aws_secret_like(v: str) -> bool:
    """A 40-character token that can be an AWS secret access key and not a
    hex digest (a git commit id, a SHA-1): base64 with both letter cases and
    a digit or ``/`` / ``+``."""
    return (any(c.isupper() for c in v) and any(c.islower() for c in v)
            and any(c.isdigit() or c in "/+" for c in v))


def scan_aws_pair(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """An unlabelled secret access key beside its key id (``AKIA… wJalr…``,
    a CSV row of the IAM console's ``accessKeys.csv``, two env values on one
    line): every secret-shaped 40-character token within
    :data:`_AWS_PAIR_SPAN` characters of an access key id."""
    for m in rule.pattern.finditer(text, ws, we):
        lo, hi = max(0, m.start() - _AWS_PAIR_SPAN), min(len(text), m.end() + _AWS_PAIR_SPAN)
        for t in _AWS_SECRET_RE.finditer(text, lo, hi):
            if _aws_secret_like(t.group()):
                out.append((t.start(), t.end(), rule.priority, rule.name))


def scan_at(*starts: str, leftmost: bool = False, coarse: tuple[str, ...] | None = None) -> Callable[..., None]:
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
        hay, o = (low, off) if rule.ci else (text, 0)   # a case-insensitive rule runs its twin on the lowercased
        s0, e0 = ws - o, we - o
        if coarse and (at is None or at[1] is None):
            # only where a start begins (no match begins elsewhere): a window with none compiles no pattern
            # (a long alternation's is ~1 ms: "user/memory/soul.md", which every session block checks)
            cands = [p for p in _occurrences(at, hay, off - o, coarse, s0, e0)
                     if any(hay.startswith(s, p) for s in starts)]
        else:
            cands = _occurrences(at, hay, off - o, starts, s0, e0)
        if not cands:
            return
        match = (rule.lowered if rule.ci else rule.pattern).match
        grouped = "secret" in rule.groupindex
        check = rule.check
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



def scan_named(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """A value given to a variable whose name says it holds a credential
    (cred20: fish ``set -x API_KEY X``, Terraform ``variable "db_password" {
    default = "X" }``): each match of the rule's pattern (its ``name`` and
    ``secret`` groups) whose name is a credential's by the one name rule
    (:func:`credential_name`, the generic rule's keywords, as ``export
    API_KEY=X`` and ``mem remember …/api-key X`` are judged) and whose value
    is one by the rule for a value stored under such a name
    (:func:`~.checks.named_value_ok`: not ``$OTHER``, a path, a placeholder;
    under a PIN's name, :func:`~.keywords.pin_code_ok`).
    A pattern with a ``flags`` group: where it is empty (``set NAME X`` with
    no option), only a name in capitals (``set API_KEY X``; the POSIX
    convention for exported names), not prose ('to set token layout')."""
    if rule.lowered is not None:
        matches, o = rule.lowered.finditer(low, ws - off, we - off), off
    else:
        matches, o = rule.pattern.finditer(text, ws, we), 0
    flagged = "flags" in rule.groupindex
    for m in matches:
        kind = credential_name(m.group("name"))
        if kind is None:
            continue
        if flagged and not m.group("flags"):
            ns, ne = m.span("name")
            if not text[ns + o:ne + o].isupper():
                continue
        s, e = m.span("secret")
        s, e = s + o, e + o
        if kind == "password" and e < we and text[e] == " ":
            # red26: a password of words (k8s 'value: "correct horse battery staple"'): the whole value
            if text[s - 1] in "\"'":
                c = literal_end(text, s, e, we)
                if c > e and quoted_passphrase_ok(text[s:c]):
                    e = c
            elif (c := words_to_end(text, s, e, we)) > 0:
                e = c
        if pin_code_ok(text[s:e]) if kind == "pin" else named_value_ok(text[s:e], password=kind == "password"):
            out.append((s, e, rule.priority, rule.name))


#: where a command's arguments end: a line break (raw or escaped), or a ; | & between commands
_COMMAND_END = Lazy(r"[\r\n;|&]|\\[rn]", FLAGS)


def scan_command_options(options: Lazy, rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int,
                         at=None, *, check: Callable[[str], bool]) -> None:
    """Every match of ``options`` (a password option and its ``secret`` value)
    among the arguments of each command the rule's pattern names, up to the
    command's end (:data:`_COMMAND_END`), where ``commandline._ARGS_BEFORE`` + one option
    finds only the first (``keytool -storepass A -keypass B``: both), whose
    value passes ``check``.  Each
    character is read once: a command's arguments up to its end, then the
    search for the next command name from there."""
    pos = ws
    while (m := rule.pattern.search(text, pos, we)) is not None:
        stop = _COMMAND_END.search(text, m.end(), we)
        pos = stop.start() if stop else we      # a second name in the same command is read with the first's
        for o in options.finditer(text, m.end(), pos):
            s, e = o.span("secret")
            if check(text[s:e]):
                out.append((s, e, rule.priority, rule.name))


def find_each(low: str, lit: str, s0: int, e0: int):
    """Each offset of ``lit`` in ``low[s0:e0]`` (overlapping), in order:
    the word starts the keyword scans try their patterns at (``str.find``
    runs in C; a pattern led by alternatives would be tried at every
    offset)."""
    p = low.find(lit, s0, e0)
    while p >= 0:
        yield p
        p = low.find(lit, p + 1, e0)
