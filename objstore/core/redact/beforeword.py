"""The password rules' scans that read a value *before* its word (split from :mod:`.passwords`, red38, as that
neared the 40,960-byte module limit): '<token> is the admin password' (test16 F12), '<token> is what I log in
with' (test16b B1), 'admin / <token> is the login' (red17), and the words and checks they share with the table
(:data:`PW_WORD`, :func:`password_token_ok`, :data:`PAIR_NOT_USER`)."""

from __future__ import annotations

from objstore.core.redact.checks import cli_secret_ok, hardware_pin, pair_password_ok, pair_slash_ok, phrase_secret_bang_ok, prose_token_ok
from objstore.core.redact.rule import FLAGS, Lazy, Rule
from objstore.core.redact.scanners import find_each

# the user: starts with a letter (a fraction's '1 / 2' is not a pair), no blank, slash or colon
# and is not a noun of the login UI or of a bug report ('the login page / Dashboard2024 view')
PAIR_NOT_USER = ("page", "screen", "form", "button", "flow", "url", "link", "view", "prompt", "box", "field",
                  "endpoint", "route", "api", "handler", "logic", "code", "test", "module", "service", "step",
                  "issue", "bug", "error", "fail", "work", "success", "attempt", "request", "session", "token",
                  "method", "option", "dialog", "modal", "window", "component", "feature", "check", "and", "or")

# ---- a password named next to the word, not after a verb (test16 F12) ------------------------
#: the words of a password (each with its boundary look-behind after the literal: re's fast search)
PW_WORD = (r"(?:passw(?<![A-Za-z0-9_\-\]]passw)(?:or)?d|passphrase(?<![A-Za-z0-9_\-\]]passphrase)"
            r"|passcode(?<![A-Za-z0-9_\-\]]passcode))")
PW_STARTS = ("passw", "passphrase", "passcode")
#: 'the', 'my' ... and up to three words naming whose password it is ('the admin', 'our new wifi')
_PW_OWNER_WORDS = (r"(?:(?:the|my|our|your|his|her|their|its|a|an|this|that)[ \t]{1,4})?"
                   r"(?:[a-z0-9_.\-]{1,32}[ \t]{1,4}){0,3}")
#: ' is|was the admin ' of '<token> is|was the admin password', over the lowercased text before a password
#: word, to its end (the token is the run before it: :func:`scan_before`)
_PW_BEFORE = Lazy(r"(?<=[^\s\"'`])[\"'`]?[ \t]{1,4}(?:is|was|=)[ \t]{1,4}" + _PW_OWNER_WORDS + r"\Z", FLAGS)
_PW_TOKEN_STOP = frozenset(" \t\r\n\"'`([")
#: what may follow the password word of '<token> is the admin password': the clause ends there ('.', ',', a JSON
#: string's end '"}' (red17),
#: the line's end) or goes on with a word that is no noun the word qualifies ('... password for staging',
#: not '... password hashing scheme', '... password field')
_PW_CLAUSE_END = Lazy(r"[\"'`]?(?:[.,;:!?)\]}]|[ \t]*(?:\r|\n|\\[rn]|$)|[ \t]{1,4}(?:for|of|on|at|in|to|from|and|but|so|now"
                      r"|here|there|again|too|also|we|i|you|they|that|which|until|since|when|btw|today)(?![a-z0-9_]))",
                      FLAGS)
#: the verbs of 'login with admin and <token>' (a user, 'and', the password)
LOGIN_WORDS = ("login", "log in", "log-in", "logon", "sign in", "signin", "sign-in")
_PW_BEFORE_SPAN = 200    # how far before the word its token and '... is the <owner>' are looked for


def password_token_ok(v: str) -> bool:
    """A token named a password with no verb after the word (test16 F12:
    ``Hunter2x9! is the admin password``, ``the admin password,
    Hunter2x9!, must rotate``, ``I set the password to Hunter2x9!``): shaped
    like one (:func:`phrase_secret_bang_ok`: 6+ characters, a digit, a symbol
    or an inner capital) and no code or tech word (:func:`prose_token_ok`:
    letters with digits or symbols, no bracket or ``=``, not ``sha256``, a
    version, a snake_case name or a placeholder)."""
    return phrase_secret_bang_ok(v) and prose_token_ok(v) and cli_secret_ok(v)


def scan_before(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None,
                 starts: tuple[str, ...] = PW_STARTS, ok=None, pin: bool = False) -> None:
    """The scan of '<token> is the admin password': at each password word
    (``str.find`` of :data:`PW_STARTS` over the lowercased window) whose
    clause ends after it (:data:`_PW_CLAUSE_END`), :data:`_PW_BEFORE`
    searched in the :data:`_PW_BEFORE_SPAN` characters before the word, up
    to it, and the token the run of characters before that (up to a blank,
    a quote or an opening bracket).  ``starts``: the literals the rule's
    words begin with; none: the rule's pattern starts with a literal and
    ``finditer`` finds each word ('<token> is the root pass', red16b).  A
    regex has no variable-width look-behind, and one that starts with a
    free token would be tried at every offset of the window.  ``ok``: the
    token's check (default :func:`password_token_ok`); ``pin`` (red17: '<token> is
    my door pin'): tokens from 4 characters on go to ``ok`` (PIN-sized), and
    none where a word of the owner or of the 48 characters after the word
    names hardware ('1234 is the LED pin': :func:`hardware_pin`)."""
    ok = ok or password_token_ok
    s0, e0 = ws - off, we - off
    word = rule.lowered
    if starts:
        found = (word.match(low, p, e0) for lit in starts for p in find_each(low, lit, s0, e0))
    else:                           # a word with one literal prefix: re's own search, in C
        found = word.finditer(low, s0, e0)
    for m in found:
        if m is None or _PW_CLAUSE_END.match(low, m.end(), e0) is None:
            continue
        p = m.start()
        lo = max(s0, p - _PW_BEFORE_SPAN)
        b = _PW_BEFORE.search(low, lo, p)
        if b is not None:
            e = s = b.start()
            while s > lo and low[s - 1] not in _PW_TOKEN_STOP:
                s -= 1
            if (s > lo or s == 0 or low[s - 1] in _PW_TOKEN_STOP) and 4 <= e - s <= 128 \
                    and ok(text[s + off:e + off]) \
                    and not (pin and any(map(hardware_pin, _WORDS.findall(low, b.start(), min(e0, m.end() + 48))))):
                out.append((s + off, e + off, rule.priority, rule.name))


_WORDS = Lazy(r"[a-z0-9]+", FLAGS)



# ---- red16b: a password before 'is what I log in with' (test16b B1) ------------------------------
#: ' is what I log in with', ' is what we use for the admin account', at an ``is`` of the lowercased text
_USE_AFTER = Lazy(r"is[ \t]{1,4}what[ \t]{1,4}(?:i|we|you|they)[ \t]{1,4}(?:use[ \t]{1,4}to[ \t]{1,4})?"
                  r"(?:(?:log|sign)(?:[ \t]?|-)(?:in|on)|login|logon|signin)(?:[ \t]{1,4}(?:with|as))?(?![a-z0-9_])"
                  r"|is[ \t]{1,4}what[ \t]{1,4}(?:i|we|you|they)[ \t]{1,4}use[ \t]{1,4}(?:for|on)[ \t]{1,4}"
                  r"(?:(?:the|my|our)[ \t]{1,4})?(?:[a-z0-9_.\-]{1,32}[ \t]{1,4}){0,2}"
                  r"(?:account|login|logins|vpn|wifi|server|box|db|database|admin|root)(?![a-z0-9_])", FLAGS)


def _take_token_before(rule: Rule, text: str, low: str, off: int, s0: int, e: int, out: list,
                       quoted: bool = False) -> None:
    """The run of ``low`` (lowercased ``text`` from ``off``) before the blanks (and, ``quoted``, a quote) that end at
    ``e``, not before ``s0``, up to a blank, a quote or an opening bracket: appended to ``out`` as ``(start, end,
    priority, name)`` of ``text`` when it is 4-128 characters that look like a password (:func:`password_token_ok`)."""
    while e > s0 and low[e - 1] in " \t":
        e -= 1
    if quoted and e > s0 and low[e - 1] in "\"'`":
        e -= 1
    s = e
    while s > s0 and e - s <= 128 and low[s - 1] not in _PW_TOKEN_STOP:
        s -= 1
    if 4 <= e - s <= 128 and (s == 0 or low[s - 1] in _PW_TOKEN_STOP) and password_token_ok(text[s + off:e + off]):
        out.append((s + off, e + off, rule.priority, rule.name))


def scan_use_after(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """The scan of '<token> is what I log in with' (test16b B1): at each
    `` is what `` of the lowercased window that :data:`_USE_AFTER` matches,
    the token is the run of characters before the blanks (and a quote)
    before ``is``, up to a blank, a quote or an opening bracket, kept when
    it looks like a password (:func:`password_token_ok`)."""
    s0, e0 = ws - off, we - off
    p = low.find(" what ", s0, e0)
    while p >= 0:
        i = p - 2                                  # the 'is' of ' is what '
        if i - 1 >= s0 and low.startswith("is", i) and low[i - 1] in " \t" and _USE_AFTER.match(low, i, e0):
            _take_token_before(rule, text, low, off, s0, i, out, quoted=True)
        p = low.find(" what ", p + 1, e0)


# ---- red17: a 'user / password' pair before 'is the login' (test16b B1 addendum) ------------------------
#: ' is|are the admin ' before a credential word, to its end (as :data:`_PW_BEFORE`, with are/were)
_PAIR_BEFORE = Lazy(r"(?<=[^\s\"'`])[\"'`]?[ \t]{1,4}(?:is|was|are|were)[ \t]{1,4}" + _PW_OWNER_WORDS + r"\Z", FLAGS)
#: the user and the '/' of 'admin / <password>' (blanks around it) before the password, to its end
_PAIR_USER_BEFORE = Lazy(r"(?<![^\s\"'`(])[\"'`]?[a-z][a-z0-9_.@+\-]{0,63}[\"'`]?[ \t]{1,4}/[ \t]{1,4}[\"'`]?\Z", FLAGS)
#: a user that is a noun of the login UI or of a bug report ('the login page / Dashboard2024 is the login')
_PAIR_NOT_USER_RE = Lazy(r"[\"'`]?(?:" + "|".join(PAIR_NOT_USER) + r")(?:s|es|ed|ing)?[\"'`]?[ \t/:]", FLAGS)
#: a glued pair 'admin/<password>' or 'admin:<password>' (the user, the separator)
_PAIR_GLUED = Lazy(r"[\"'`]?[a-z][a-z0-9_.@+\-]{0,63}[\"'`]?[/:]", FLAGS)


def _pair_ok(v: str) -> bool:
    """The password of 'admin / <token> is the login': a pair's password
    (:func:`pair_password_ok`) that reads as no code (:func:`password_token_ok`: not
    a log line's ``\\nLedgerError:``)."""
    return pair_password_ok(v) and password_token_ok(v)


def scan_pair_before(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """The scan of 'admin / <password> is the login' (red17, test16b B1):
    at each credential word (``login``, ``logon``, ``creds``,
    ``credentials``: the rule's pattern, which starts with a literal that
    ``re`` searches for) whose clause ends
    after it (:data:`_PW_CLAUSE_END`), :data:`_PAIR_BEFORE` (' is the
    admin ') searched in the :data:`_PW_BEFORE_SPAN` characters before it;
    the run before that is the password when a user and a blank-separated
    ``/`` stand before it (:data:`_PAIR_USER_BEFORE`;
    :func:`_pair_ok`), or the part after the first ``:`` or ``/`` of a run
    ``user:password`` / ``user/password`` (:data:`_PAIR_GLUED`;
    :func:`_pair_ok`, and :func:`pair_slash_ok` after a ``/``); a user that
    is a noun of a login UI (``page``, ``form``: :data:`PAIR_NOT_USER`) is none."""
    s0, e0 = ws - off, we - off
    for m in rule.lowered.finditer(low, s0, e0):
        if _PW_CLAUSE_END.match(low, m.end(), e0) is None:
            continue
        p = m.start()
        lo = max(s0, p - _PW_BEFORE_SPAN)
        b = _PAIR_BEFORE.search(low, lo, p)
        if b is None:
            continue
        e = s = b.start()
        while s > lo and low[s - 1] not in _PW_TOKEN_STOP:
            s -= 1
        if not (s > lo or s == 0 or low[s - 1] in _PW_TOKEN_STOP) or e - s > 128 or (s and low[s - 1] == "[") \
                or "]" in low[s:e]:
            continue                # (a redaction marker is no password: a second pass takes nothing)
        u = _PAIR_USER_BEFORE.search(low, max(lo, s - 80), s)
        if u is not None:
            if _PAIR_NOT_USER_RE.match(low, u.start()) is None and _pair_ok(text[s + off:e + off]):
                out.append((s + off, e + off, rule.priority, rule.name))
            continue
        g = _PAIR_GLUED.match(low, s, e)
        if g is not None and g.end() < e and _PAIR_NOT_USER_RE.match(low, s) is None:
            v = text[g.end() + off:e + off]
            if _pair_ok(v) and (low[g.end() - 1] == ":" or pair_slash_ok(v)):
                out.append((g.end() + off, e + off, rule.priority, rule.name))


# ---- red38: a token before '(password for grafana)' (test37b T4) ------------------------------------------------
#: the bracketed note after a token that names it a password: '(password for grafana)', '(the admin pw)', '(db
#: passphrase)', over the lowercased text from its '(' (a blank before it): the rule's pattern, which starts with the
#: literal '(' that ``re`` searches for in C (a scan that tried each '(' or each password word in Python cost more)
NOTE_AFTER = (r"\((?<=[ \t]\()(?:the[ \t]{1,4}|my[ \t]{1,4}|our[ \t]{1,4})?(?:[a-z0-9_.\-]{1,32}[ \t]{1,4}){0,2}"
              r"(?:passw(?:or)?d|passphrase|pwd?)(?:[ \t]{1,4}(?:for|of|to|on)[ \t]{1,4}[^()\r\n]{1,64})?\)")


def scan_note_after(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """The scan of '<token> (password for grafana)' (red38, test37b T4: 'the new one is X (password for grafana)'):
    at each note naming a password (:data:`NOTE_AFTER`, the rule's pattern) of the lowercased window ``low``
    (``off``: its offset in ``text``), the run before the blanks before it, up to a blank, a quote or an opening
    bracket, kept when it looks like a password (:func:`password_token_ok`).  Appends ``(start, end, priority,
    name)`` spans of ``text`` to ``out``; raises nothing."""
    s0 = ws - off
    for m in rule.lowered.finditer(low, s0, we - off):
        _take_token_before(rule, text, low, off, s0, m.start(), out)
