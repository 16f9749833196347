"""The password rules of :mod:`objstore.core.redact`'s table (``PASSWORD_RULES``, the tail of
``rules.RULES``): a value after a password label or in a phrase about one ('the password for the
staging box is X', 'Password - X', 'login admin / X'), with the regex fragments they share; at their
places in the table, the passwords on a command line or in SQL (``mysql -pX``, ``sshpass -p X``,
``IDENTIFIED BY 'X'``, :mod:`.commandline`) and mem's own command lines (:mod:`.memcommand`).
The token formats (vendor prefixes, protocol fields, ``key=value``) are in :mod:`.rules`."""

from __future__ import annotations

from functools import partial

from objstore.core.redact.checks import (PIN_CODE_OWNERS, bare_password_ok, cli_secret_ok, hardware_pin,
                                         labelled_phrase_ok, pair_password_ok, pair_slash_ok, phrase_secret_bang_ok,
                                         pin_ok, prose_token_ok, quoted_phrase_ok, short_labelled_ok,
                                         passphrase_words_ok, unquoted_passphrase_ok, word_passphrase_ok)
from objstore.core.redact.commandline import COMMAND_LINE_RULES
from objstore.core.redact.heredocs import HEREDOC_RULES
from objstore.core.redact.memcommand import MEM_COMMAND_RULES
from objstore.core.redact.passwordphrases import (PHRASE_COLON as _PHRASE_COLON, PHRASE_OWNER as _PHRASE_OWNER,
                                                  PHRASE_OWNER_FOR as _PHRASE_OWNER_FOR, PHRASE_TOKEN as _PHRASE_TOKEN,
                                                  PHRASE_TOKEN_BANG as _PHRASE_TOKEN_BANG, PHRASE_VERB as _PHRASE_VERB,
                                                  PHRASE_VERB_BARE as _PHRASE_VERB_BARE, PIN_TOKEN as _PIN_TOKEN,
                                                  PIN_ASSIGN as _PIN_ASSIGN, PIN_WORD, PLAIN_WORDS, QUOTED_WORDS, PASS_OWNERS as _PASS_OWNERS,
                                                  TOKEN_VERB_TAIL, VERB_PHRASE_RULES, changed_token_ok,
                                                  with_old_and_new, COMBINATION_OWNERS as _COMBINATION_OWNERS,
                                                  keypad_code_ok)
from objstore.core.redact.rule import FLAGS, Lazy, Rule, make_rule
from objstore.core.redact.scanners import QUALIFIER, find_each, scan_at, scan_plain
from objstore.core.redact.symbolpasswords import SYMBOL_PASSWORD_RULES
from objstore.core.rxcache import escape


#: red16b: a run right after 'token', 'secret', 'api key' with no verb ('deploy bot token <40 hex>', test16b B8):
#: 20+ letters and digits, both (in the one rule of those words: a rule of its own cost +3% of a prompt's scan)
_RANDOM_RUN = (r"s?[ \t]{1,4}[\"'`]?(?=[a-z0-9]{0,255}?[0-9])(?=[a-z0-9]{0,255}?[a-z])"
               r"(?=[a-z0-9]{20,256}+(?![a-z0-9_\-.\[]))")
#: red17: the code of a keypad ('door code', 'alarm code': :data:`~.checks.PIN_CODE_OWNERS`), and its anchors
#: (each phrase, not 'code': a literal that most transcript lines hold costs the matcher a Python step per
#: occurrence, and every rule it gates a run)
_CODE_WORD = r"(?:code(?:" + "|".join(f"(?<={escape(w)} code)" for w in PIN_CODE_OWNERS) + ")|combination(?:" + "|".join(
    f"(?<={w} combination)" for w in _COMBINATION_OWNERS) + "))"     # red33b (T15): 'the safe combination is 12-34-56'
_CODE_ANCHORS = tuple(f"{w} code" for w in PIN_CODE_OWNERS) + tuple(f"{w} combination" for w in _COMBINATION_OWNERS)
#: red17: a PIN right after its word with no verb ('my pin 4471', 'door code 4471'): 4-12 digits alone
#: and where the clause ends ('pin 2024 release' is no PIN)
_PIN_BARE = r"[ \t]{1,4}(?=[0-9]{4,12}(?:[\"'`.,;!?)\]}]|[ \t]*(?:\r|\n|\\[rn]|$)))"
# a dash label ('Password - X', 'password \u2013 X': red10) and what follows it: blanks, or the end of
# its line and the next line's indentation ('Password -' LF 'X', scan12); the labels: password, passwd,
# passwort, passphrase, pwd, secret (each alternative starts with its literal: _DASH_LABELS)
_DASH_LABELS = ("passw", "passphrase", "pwd", "secret")
_DASH_HEAD = (r"(?:passw(?<![A-Za-z0-9_\-\]]passw)(?:or[dt]|d)|passphrase(?<![A-Za-z0-9_\-\]]passphrase)"
              r"|pwd(?<![A-Za-z0-9_\-\]]pwd)|secret(?<![A-Za-z0-9_\-\]]secret))"
              r"(?:[ \t]{0,4}" + QUALIFIER + r"){0,2}"     # red30: 'Password (staging) - X', '-- X'; red31: '（prod）'
              r"(?:[ \t]{1,4}for[ \t]{1,4}[a-z0-9_.@\-]{1,32})?"     # red31 (T14): 'DB password for prod - X'
              r"[ \t]{1,4}(?:--?|[\u2013\u2014])(?:[ \t]{1,4}|[ \t]{0,8}(?:\r?\n|\\{1,3}(?:r\\{1,3})?n)[ \t]{0,16})[\"'`]?")
# Credential words that introduce a 'user / password' pair in chat ('login admin / Pw!2024x',
# 'creds: admin / Pw!2024x'), over the lowercased text; each alternative starts on a word boundary.
_PAIR_WORDS = ("login", "log in", "log-in", "logon", "sign in", "signin", "sign-in", "creds", "cred",
               "credentials", "credential", "user/pass", "user / pass", "username/password",
               "username / password", "user/password")
#: literals every _PAIR_WORDS word starts with (the stdlib prefilter tests them as log, sign, cred, user)
_PAIR_STARTS = ("login", "log in", "log-in", "logon", "sign in", "signin", "sign-in", "cred", "user/pass",
                "user / pass", "username")
_PAIR_COARSE = ("log", "sign", "cred", "user")   # without the matcher: 4 scans, not 11
_PAIR_HEAD = ("(?:" + "|".join(f"{escape(w)}(?<![a-z0-9_\\-\\]]{escape(w)})" for w in _PAIR_WORDS)
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

#: red30 (test29 P5): a secret of a named account is a password ('our vpn secret is correct horse battery staple');
#: 'the secret is to keep it simple' names none
_SECRET_OWNERS = "|".join(f"(?<={escape(w)} secret)" for w in _PASS_OWNERS)


# ---- a password named next to the word, not after a verb (test16 F12) ------------------------
#: the words of a password (each with its boundary look-behind after the literal: re's fast search)
_PW_WORD = (r"(?:passw(?<![A-Za-z0-9_\-\]]passw)(?:or)?d|passphrase(?<![A-Za-z0-9_\-\]]passphrase)"
            r"|passcode(?<![A-Za-z0-9_\-\]]passcode))")
_PW_STARTS = ("passw", "passphrase", "passcode")
#: 'the', 'my' ... and up to three words naming whose password it is ('the admin', 'our new wifi')
_PW_OWNER_WORDS = (r"(?:(?:the|my|our|your|his|her|their|its|a|an|this|that)[ \t]{1,4})?"
                   r"(?:[a-z0-9_.\-]{1,32}[ \t]{1,4}){0,3}")
#: ' is|was the admin ' of '<token> is|was the admin password', over the lowercased text before a password
#: word, to its end (the token is the run before it: :func:`_scan_before`)
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
_LOGIN_WORDS = ("login", "log in", "log-in", "logon", "sign in", "signin", "sign-in")
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


def _scan_before(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None,
                 starts: tuple[str, ...] = _PW_STARTS, ok=None, pin: bool = False) -> None:
    """The scan of '<token> is the admin password': at each password word
    (``str.find`` of :data:`_PW_STARTS` over the lowercased window) whose
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


def _scan_use_after(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
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
            e = i
            while e > s0 and low[e - 1] in " \t":
                e -= 1
            if e > s0 and low[e - 1] in "\"'`":
                e -= 1
            s = e
            while s > s0 and e - s <= 128 and low[s - 1] not in _PW_TOKEN_STOP:
                s -= 1
            if 4 <= e - s <= 128 and (s == 0 or low[s - 1] in _PW_TOKEN_STOP) and password_token_ok(text[s + off:e + off]):
                out.append((s + off, e + off, rule.priority, rule.name))
        p = low.find(" what ", p + 1, e0)


# ---- red17: a 'user / password' pair before 'is the login' (test16b B1 addendum) ------------------------
#: ' is|are the admin ' before a credential word, to its end (as :data:`_PW_BEFORE`, with are/were)
_PAIR_BEFORE = Lazy(r"(?<=[^\s\"'`])[\"'`]?[ \t]{1,4}(?:is|was|are|were)[ \t]{1,4}" + _PW_OWNER_WORDS + r"\Z", FLAGS)
#: the user and the '/' of 'admin / <password>' (blanks around it) before the password, to its end
_PAIR_USER_BEFORE = Lazy(r"(?<![^\s\"'`(])[\"'`]?[a-z][a-z0-9_.@+\-]{0,63}[\"'`]?[ \t]{1,4}/[ \t]{1,4}[\"'`]?\Z", FLAGS)
#: a user that is a noun of the login UI or of a bug report ('the login page / Dashboard2024 is the login')
_PAIR_NOT_USER_RE = Lazy(r"[\"'`]?(?:" + "|".join(_PAIR_NOT_USER) + r")(?:s|es|ed|ing)?[\"'`]?[ \t/:]", FLAGS)
#: a glued pair 'admin/<password>' or 'admin:<password>' (the user, the separator)
_PAIR_GLUED = Lazy(r"[\"'`]?[a-z][a-z0-9_.@+\-]{0,63}[\"'`]?[/:]", FLAGS)


def _pair_ok(v: str) -> bool:
    """The password of 'admin / <token> is the login': a pair's password
    (:func:`pair_password_ok`) that reads as no code (:func:`password_token_ok`: not
    a log line's ``\\nLedgerError:``)."""
    return pair_password_ok(v) and password_token_ok(v)


def _scan_pair_before(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
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
    is a noun of a login UI (``page``, ``form``: :data:`_PAIR_NOT_USER`) is none."""
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


def _label_words_ok(v: str) -> bool:
    """red27b (test27 V6): the words after a password label are a passphrase
    (:func:`~.checks.passphrase_words_ok` unquoted: 3+ lower-case words, none
    of prose), and no adverb of 7+ letters in ``-ly`` (a status message after a
    form's label: ``Password: incorrectly typed three times``, ``successfully
    changed``), so ``Password: see the vault`` stays too."""
    return (passphrase_words_ok(v, quoted=False, title=True)
            and not any(len(w) >= 7 and w.lower().endswith("ly") for w in v.split(" ")))


#: red28 (test27b X1): the labels :func:`_label_words_ok`'s rule reads words after, one rule each (a pattern
#: that starts with one literal is searched by ``re`` in C): English ``password``/``passwd``, German
#: ``Passwort``/``Kennwort``, French ``mot de passe`` (also with the French blank before ``:``); red34: ``pw:``, ``pwd=``
_WORDS_LABELS = ((r"passw(?<![A-Za-z0-9_\-\]]passw)(?:or[dt]|d)", ("passw",)),
                 (r"kennwort(?<![A-Za-z0-9_\-\]]kennwort)", ("kennwort",)),
                 (r"mot de passe(?<![A-Za-z0-9_\-\]]mot de passe)", ("mot de passe",)),
                 (r"pw(?<![A-Za-z0-9_\-\]]pw)d?(?=[ \t]{0,4}[:=])", ("pw",)))   # red34 (test33 T9): 'Admin pw: X Y Z'
#: the word for 'password' in German, Spanish and French prose, the verbs that join it to its value ('is',
#: 'was', German 'lautet'), the adverbs between ('now', 'still'), and its anchors
#: red31: the changed-to forms first (a check that refuses a value does not backtrack), 'wurde auf X ge\u00e4ndert',
#: 'cambi\u00f3 a X', 'a \u00e9t\u00e9 chang\u00e9 en X', 'is gewijzigd naar X'; and a qualifier after the word ('Passwort (prod) lautet X')
_COPULAS = ((r"passwort(?<![a-z0-9_\-\]]passwort)", "wurde[ \t]{1,4}(?:ge\u00e4ndert[ \t]{1,4})?(?:auf|zu)|ist|lautet|war", "jetzt|noch", ("passwort",)),
            (r"contrase(?:\u00f1|n)a(?<![a-z0-9_\-\]]contrase\u00f1a)(?<![a-z0-9_\-\]]contrasena)", "cambi\u00f3[ \t]{1,4}a|ha[ \t]{1,4}cambiado[ \t]{1,4}a|es|era|ser\u00e1",
             "ahora|todav\u00eda", ("contrase",)),
            (r"mot de passe(?<![a-z0-9_\-\]]mot de passe)", "a[ \t]{1,4}\u00e9t\u00e9[ \t]{1,4}(?:chang\u00e9|modifi\u00e9)[ \t]{1,4}(?:en|pour|\u00e0)|est|\u00e9tait|sera", "maintenant|toujours",
             ("mot de passe",)),
            # red29 (test29 P5): Portuguese 'a senha \u00e9 X', Dutch 'het wachtwoord is X', Italian and Portuguese
            # with the English word ('la password \u00e8 X', 'o password \u00e9 X')
            (r"senha(?<![a-z0-9_\-\]]senha)", "\u00e9|era", "agora|ainda", ("senha",)),
            (r"wachtwoord(?<![a-z0-9_\-\]]wachtwoord)", "is[ \t]{1,4}(?:gewijzigd|veranderd)[ \t]{1,4}(?:naar|in)|is|was", "nu|nog", ("wachtwoord",)),
            (r"passw(?<![a-z0-9_\-\]]passw)(?:or)?d", "\u00e8|\u00e9", "ora|ancora|agora|ainda", ("passw",)),
            # red30 (test29 P5): Polish 'has\u0142o to|jest X', Czech 'heslo je X', Swedish 'l\u00f6senordet \u00e4r X',
            # Norwegian 'passordet er X', Danish 'adgangskoden|kodeordet er X', Finnish 'salasana on X'
            (r"has(?:\u0142|l)o(?<![a-z0-9_\-\]]has\u0142o)(?<![a-z0-9_\-\]]haslo)", "to|jest|by\u0142o",
             "teraz|nadal|wci\u0105\u017c", ("has\u0142o", "haslo")),
            (r"heslo(?<![a-z0-9_\-\]]heslo)", "je|bylo", "te\u010f|nyn\u00ed|st\u00e1le|po\u0159\u00e1d", ("heslo",)),
            (r"l\u00f6senord(?<![a-z0-9_\-\]]l\u00f6senord)(?:et)?", "\u00e4r|var", "nu|fortfarande|fortsatt",
             ("l\u00f6senord",)),
            (r"passord(?<![a-z0-9_\-\]]passord)(?:et)?", "er|var", "n\u00e5|fortsatt|stadig", ("passord",)),
            (r"(?:adgangskode(?<![a-z0-9_\-\]]adgangskode)|kodeord(?<![a-z0-9_\-\]]kodeord))(?:e?[nt])?", "er|var",
             "nu|stadig|fortsat", ("adgangskode", "kodeord")),
            (r"salasana(?<![a-z0-9_\-\]]salasana)(?:ni|mme|si)?", "on|oli", "nyt|yh\u00e4|edelleen", ("salasana",)))
#: red29 (test29 P5): what the password opens, between the word and its verb ('das Passwort f\u00fcr die DB lautet X',
#: 'la contrase\u00f1a de la base de datos es X'): a preposition and 1-5 words; red30: Polish, Czech and Nordic ones
#: ('has\u0142o do bazy to X', 'heslo k datab\u00e1zi je X', 'passordet til databasen er X')
_COPULA_OWNER = (r"(?:[ \t]{1,4}(?:f\u00fcr|von|de|del|da|do|di|della|van|voor|k|ke|till|til|f\u00f6r|for)(?:[ \t]{1,4}[^\s,;:!?]{1,63}){1,5}?)?")
#: a word of a passphrase after such a label: letters, any script's (``grüner``), 2-16
_LABEL_WORD = r"(?u:[^\W\d_]{2,16}+)"


def _plain(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """:func:`~.scanners.scan_plain` with the scanners' signature (red32: wrapped by ``with_old_and_new``)."""
    scan_plain(rule, text, ws, we, out, low, off)


_r = make_rule   # the table below is aligned to this short name

#: the rules after ``rules.RULES``'s token formats, in table order (a tie in priority goes to the earlier)
PASSWORD_RULES: list[Rule] = [
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'my password/passwd is|was <token>' in plain words, also "
       "with what it opens between ('the password for the staging box is <token>', 'the password of "
       "the admin account: <token>'), where the token looks like a password (phrase_secret)",
       r"(?:passw(?<![A-Za-z0-9_\-\]]passw)(?:or)?d|(?P<pwd>pwd(?<![A-Za-z0-9_\-\]]pwd)|pass[ \t]phrase)|(?P<pass>pass(?<![A-Za-z0-9_\-\]]pass)))(?:" + _PHRASE_OWNER + r"(?:" + _PHRASE_VERB + r"|" + _PHRASE_COLON
       + r")|" + _PHRASE_VERB + r")(?(pwd)(?![/~.]|[A-Za-z]:[\\/]))(?(pass)(?=[^\s\-]*[0-9!@#$%^&*+=?]))(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       # test36 T3: 'pwd is', 'pass for X is' (a working folder after 'pwd' is not one); test36b T1, T13: 'the pass
       # is X', 'pass phrase', a bare 'pass' only before a token with a digit or symbol ('flaky-ci-run' is none)
       ci=True, priority=51, check=phrase_secret_bang_ok, anchors=("passw", "pwd", "pass"), scan=with_old_and_new(_plain)),
    *VERB_PHRASE_RULES,     # red30b: 'has been changed to X', 'my password, it is X' (passwordphrases.py)
    _r("password-phrase",
       "keyword heuristics (no vendor format): a dash label 'Password - <token>' (red10; also passwd, "
       "passwort, passphrase, pwd, secret, and the token alone on the next line: scan12; red30: a qualifier "
       "between, 'Password (staging) - X', and '--'), where the token "
       "looks like a password and is not a whole placeholder (labelled_phrase_ok)",
       _DASH_HEAD + r"(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       ci=True, priority=51, check=labelled_phrase_ok, anchors=_DASH_LABELS, scan=scan_at(*_DASH_LABELS)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): a dash label with a short token that ends its line "
       "('secret - Kx9mm', 'Password -' LF 'Zq7mm'; scan12), letters with digits or symbols "
       "(short_labelled_ok)",
       _DASH_HEAD + r"(?P<secret>[^\s\"'`]{4,128}+)(?=[\"'`]?[ \t]{0,8}(?:\r|\n|\\{1,3}[rn]|$))",
       ci=True, priority=51, check=short_labelled_ok, anchors=_DASH_LABELS, scan=scan_at(*_DASH_LABELS)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): a token right after the word password or passphrase in "
       "prose ('noted the password hunter2x9 for staging', 'use password hunter2x9', 'the password "
       "hunter2x9 works'; red13b; 'the wifi passphrase Tiger99xx': test16 F5), where the token passes the "
       "short-value rule and is no code or tech word (prose_token_ok)",
       r"(?:passw(?<![A-Za-z0-9_\-\]]passw)(?:or)?d|passphrase(?<![A-Za-z0-9_\-\]]passphrase))[ \t]{1,4}"
       r"(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       ci=True, priority=51, check=prose_token_ok, anchors=("passw", "passphrase"),
       scan=with_old_and_new(_plain)),   # red32 (W1): 'db password OLD -> NEW' took OLD only
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'my passphrase|passcode is <token>' (passcode: test16 F5)",
       r"(?:passphrase(?<![A-Za-z0-9_\-\]]passphrase)|passcode(?<![A-Za-z0-9_\-\]]passcode))" + _PHRASE_VERB
       + r"(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       ci=True, priority=51, check=phrase_secret_bang_ok, anchors=("passphrase", "passcode")),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'my pin|passcode is <4-12 digits>', 'my PIN: <digits>', 'the pin "
       "for the door is <digits>' (red16b); red23: 'pincode: 4471', 'pin_code', 'pin-number' (one word); mend24: "
       "'pin_code = 4471' (an assignment to a name ending code or number); red34: 'CARD_PIN=4711'",
       r"(?:" + PIN_WORD + r"(?:(?:[ \t]{1,4}|[_\-]?)(?:code|number))?|passcode(?<![A-Za-z0-9_\-\]]passcode))"
       + r"(?:" + _PHRASE_OWNER_FOR + r"(?:" + _PHRASE_VERB + r"|" + _PHRASE_COLON + r")|" + _PHRASE_VERB + r"|"
       + _PHRASE_COLON + r"|" + _PIN_BARE + r"|" + _PIN_ASSIGN + r"|(?<=passcode)[ \t]{1,4}(?=[0-9]{4,12}(?![0-9A-Za-z]))"
       + r")(?P<secret>" + _PIN_TOKEN + ")",   # test36 T3: 'use passcode 884213 for the door'

       ci=True, priority=51, check=pin_ok, anchors=("pin", "passcode"), scan=with_old_and_new(_plain, pin_ok)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'the door|alarm|gate|safe... code is <4-12 digits or a short "
       "PIN-like token>', 'my alarm code: <token>', 'door code 4471' (red17: a keypad's code, not 'the exit "
       "code is 1', 'the status code: 404'); red33b: '2580#' (keypad_code_ok), 'the safe combination is 12-34-56'",
       _CODE_WORD + r"s?(?![a-z0-9_])"
       + r"(?:" + _PHRASE_OWNER_FOR + r"(?:" + _PHRASE_VERB + r"|" + _PHRASE_COLON + r")|" + _PHRASE_VERB + r"|"
       + _PHRASE_COLON + r"|" + _PIN_BARE + r")(?P<secret>" + _PHRASE_TOKEN + ")",
       ci=True, priority=51, check=keypad_code_ok, anchors=_CODE_ANCHORS),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'the secret/token/api key is <token>', also with what it opens "
       "between ('the api key for stripe is <token>', 'the token for the deploy bot: <token>'), or a random run "
       "right after the word ('deploy bot token <40 hex>': 20+ letters and digits, both; test16b B8); v4r23 "
       "(tester V4): 'the rails master key is <token>' (Rails' config/master.key, \"Custom Credentials\" "
       "https://guides.rubyonrails.org/security.html#custom-credentials ), and 'Application key [base64:<key>] set "
       "successfully.' (the output of Laravel's 'php artisan key:generate' before Laravel 5.5; its APP_KEY "
       "https://laravel.com/docs/11.x/encryption ); red31: the verbs beyond is|was after it ('the api token has been "
       "changed to <token>', 'the webhook secret, it is <token>', passwordphrases.TOKEN_VERB_TAIL)",
       r"(?:secret(?<![A-Za-z0-9_\-\]]secret)|token(?<![A-Za-z0-9_\-\]]token)"
       r"|api[ _-]?key(?<![A-Za-z0-9_\-\]]api[ _-]key)|access[ _-]?key"
       r"|master[ _-]?key(?<![A-Za-z0-9_\-\]]master[ _-]key)|application[ _-]key)"
       + r"(?:" + TOKEN_VERB_TAIL + r"|" + _PHRASE_OWNER_FOR + r"(?:" + _PHRASE_VERB + r"|" + _PHRASE_COLON + r")|"
       + _PHRASE_VERB + r"|" + _RANDOM_RUN + r"|[ \t]{1,4}\[(?=base64:))(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       ci=True, priority=52, check=changed_token_ok, anchors=("secret", "token", "key"),
       scan=scan_at("secret", "token", "api", "access", "master", "application", leftmost=True)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'the password/passphrase/secret is \"<quoted words>\"'",
       r"(?:passw(?:or)?d|passphrase|secret)" + _PHRASE_VERB_BARE
       + QUOTED_WORDS,
       ci=True, priority=51, check=quoted_phrase_ok, anchors=("passw", "passphrase", "secret"),   # (a take-back's
       scan=with_old_and_new(scan_at("passw", "passphrase", "secret", leftmost=True), quoted_phrase_ok)),  # NEW: seal34)
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'use password <token>' with no verb, only for a token "
       "that cannot be prose (bare_password_ok)",
       r"passw(?<![A-Za-z0-9_\-\]]passw)(?:or)?d[ \t]{1,4}(?P<secret>[A-Za-z0-9][^\s\"'`]{6,126}?"
       r"[^\s\"'`.,;:!?)\]])(?=[.,;:!?)\]]*(?:[\s\"'`]|$))",
       priority=53, check=bare_password_ok, anchors=("passw",)),
    *SYMBOL_PASSWORD_RULES,
    *COMMAND_LINE_RULES,
    *HEREDOC_RULES,
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'my pw is <token>', 'the pw was <token>'",
       r"pw(?<![a-z0-9_\-\]]pw)" + _PHRASE_VERB + r"(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       ci=True, priority=51, check=phrase_secret_bang_ok, anchors=("pw",)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): a 'user / password' pair after a credential word "
       "('login admin / Pw!2024x', 'creds: admin / Pw!2024x', 'log in as admin:Pw!2024x'); a path, a "
       "fraction or 'the user / group split' has no credential word before it",
       _PAIR_HEAD + _PAIR_USER + r"(?:[ \t]{1,4}/[ \t]{1,4}|:)[\"'`]?(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       ci=True, priority=51, check=pair_password_ok, anchors=_PAIR_STARTS,
       scan=scan_at(*_PAIR_STARTS, coarse=_PAIR_COARSE)),
    # ---- redact7: phrases that were stored in clear ----
    _r("password-phrase",
       "keyword heuristics (no vendor format): a 'user/password' pair with no blanks after a credential word "
       "('login admin/Pw!2024x', 'creds admin/hunter2x9'); only a password with letters and digits and no "
       "'.' or '/' (not 'login users/groups.py')",
       _PAIR_HEAD + _PAIR_USER + r"/[\"'`]?(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       ci=True, priority=51, check=pair_slash_ok, anchors=_PAIR_STARTS,
       scan=scan_at(*_PAIR_STARTS, coarse=_PAIR_COARSE)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'the vpn|wifi|admin|root|db... pass is <token>' (a pass of a "
       "named account, not 'the second pass is 2x faster')",
       r"pass(?:" + "|".join(f"(?<={escape(w)} pass)" for w in _PASS_OWNERS) + r")(?![a-z0-9_])"
       + _PHRASE_VERB + r"(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       ci=True, priority=51, check=phrase_secret_bang_ok, anchors=("pass",)),
    *(_r("password-phrase",
         "keyword heuristics (no vendor format): German 'das Passwort ist|lautet|war <token>'; red28 (test28 Y1): "
         "Spanish 'la contrase\u00f1a es|era <token>', French 'le mot de passe est|\u00e9tait <token>'; red29, red30: "
         "Portuguese, Dutch, Italian, Polish, Czech, Swedish, Norwegian, Danish, Finnish",
         word + r"(?:[ \t]{0,4}" + QUALIFIER + r"){0,2}" + _COPULA_OWNER + r"[ \t]{1,4}(?:" + verbs + r")(?:[ \t]{1,4}(?:" + adverbs + r"))?[ \t]{0,4}:?[ \t]{1,4}[\"'`]?"
         r"(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
         ci=True, priority=51, check=phrase_secret_bang_ok, anchors=anchors, scan=with_old_and_new(_plain))
      for word, verbs, adverbs, anchors in _COPULAS),   # cue33c (test33b T8): 'Korrektur: NEW' after it
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'passphrase: <several words>' to the end of the line "
       "('passphrase: correct horse battery staple', 'passphrase=correct-horse-battery-staple'), not prose "
       "('passphrase: not set', 'passphrase: see the vault') (word_passphrase_ok)",
       r"passphrase(?<![a-z0-9_\-\]]passphrase)(?:\\{0,3}[\"'])?[ \t]{0,4}[:=][ \t]{0,4}(?:\\{0,3}[\"'`])?"
       r"(?P<secret>[a-z0-9]{2,24}+(?:(?:-|[ \t]{1,2})[a-z0-9]{2,24}+){2,9})"
       r"(?=[ \t]{0,4}(?:[\"'`,;.!?]|\r|\n|\\[rn]|$))",   # a sentence's end too ('... lamp.')
       ci=True, priority=51, check=word_passphrase_ok, anchors=("passphrase",)),
    *(_r("password-phrase",
         "red27b (test27 V6): a passphrase of 3-6 words after an explicit password label ('Password: correct horse "
         "battery staple', 'WiFi password = tulip river amber', 'Password -', the words alone on the next line) to "
         "the end of the line or sentence, no word of prose, talk or placeholder (passphrase_words_ok); red28 "
         "(test27b X1): words in Title Case ('Password: Correct Horse Battery Staple'), letters beyond ASCII, and "
         "the German and French labels ('Passwort:', 'Kennwort:', 'mot de passe :')",
         label + r"(?:[ \t]{1,4}for[ \t]{1,4}[^\s:=]{1,32})?[ \t]{0,4}(?:[:=]|-(?=[ \t]))[ \t]{0,4}(?:(?:\r?\n|(?:\\r)?\\n)[ \t]{0,8})?"
         r"(?P<secret>" + _LABEL_WORD + r"(?:[ \t]{1,2}" + _LABEL_WORD + r"){2,5})"
         r"(?=[ \t]{0,4}(?:\\{0,3}[\"'`,;.!?]|\r|\n|\\[rn]|$)|[ \t]{1,4}[\-\u2013\u2014]{1,2}[ \t])",   # red35: ' - …'
         ci=True, priority=51, check=_label_words_ok, anchors=anchors)
      for label, anchors in _WORDS_LABELS),
    # ---- redact8: phrases that were stored in clear (fresh7 F5) ----
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'db pw <token>' with no verb, only for a token that cannot be "
       "prose (bare_password_ok: 8+ characters, letters with digits, a capital or a symbol)",
       r"pw(?<![a-z0-9_\-\]]pw)[ \t]{1,4}(?P<secret>[a-z0-9][^\s\"'`]{6,126}?[^\s\"'`.,;:!?)\]])"
       r"(?=[.,;:!?)\]]*(?:[\s\"'`]|$))",
       ci=True, priority=53, check=bare_password_ok, anchors=("pw",)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'sign in|log in as <user> with|using [password] <token>' (a "
       "credential word, a user, then the password; pair_password_ok)",
       _PAIR_HEAD + _PAIR_USER + r"[ \t]{1,4}(?:with|using)(?:[ \t]{1,4}(?:the[ \t]{1,4})?(?:passw(?:or)?d|pw|pass))?"
       r"[ \t]{0,4}:?[ \t]{1,4}[\"'`]?(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       ci=True, priority=51, check=pair_password_ok, anchors=_PAIR_STARTS,
       scan=scan_at(*_PAIR_STARTS, coarse=_PAIR_COARSE)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'the password|passphrase is <4+ words>' unquoted to the end "
       "of the line or sentence ('the password is correct horse battery staple'; red30: 'our vpn secret is ...', "
       "a secret of a named account), not prose "
       "(unquoted_passphrase_ok: no word of prose, docs or talk about passwords)",
       r"(?:passw(?:or)?d|passphrase|secret(?:" + _SECRET_OWNERS + r")|pw(?<![a-z0-9_\-\]]pw)d?)" + _PHRASE_VERB_BARE
       + PLAIN_WORDS,   # red35 (test34b T8): 'the wifi pwd is purple monkey dishwasher'
       ci=True, priority=51, check=unquoted_passphrase_ok,
       anchors=("passw", "passphrase", "secret is", "secret was", "pw"),
       scan=scan_at("passw", "passphrase", "secret is", "secret was", "pw")),   # not at every 'secret': +1 % of 10 MB    # ---- fix16d: a password next to the word, not after a verb (test16 F12) ----
    _r("password-phrase",
       "keyword heuristics (no vendor format): '<token> is|was the [admin|db ...] password|passphrase|passcode' "
       "(the token before the word; test16 F12), where the clause ends at the word and the token looks like "
       "a password (password_token_ok)",
       _PW_WORD, ci=True, priority=51, anchors=_PW_STARTS, scan=_scan_before),
    _r("password-phrase",
       "keyword heuristics (no vendor format): a token set off after the word, 'the admin password, <token>, "
       "must rotate', 'admin password (<token>) rotates' (test16 F12; password_token_ok)",
       _PW_WORD + r"[ \t]{0,4}[,(][ \t]{0,4}[\"'`]?(?P<secret>" + _PHRASE_TOKEN_BANG + r")(?=[\"'`]?[ \t]{0,4}[,)])",
       ci=True, priority=51, check=password_token_ok, anchors=_PW_STARTS, scan=scan_at(*_PW_STARTS)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'set|reset|changed the password to|as <token>' (test16 F12; "
       "password_token_ok)",
       _PW_WORD + r"(?:[ \t]{1,4}from[ \t]{1,4}[\"'`]?[^\s\"'`]{1,128}+[\"'`]?)?[ \t]{1,4}(?:to|as)[ \t]{1,4}[\"'`]?"
       r"(?P<secret>" + _PHRASE_TOKEN_BANG + ")",   # red32 (W1): 'changed the password from OLD to X'
       ci=True, priority=51, check=password_token_ok, anchors=_PW_STARTS, scan=with_old_and_new(scan_at(*_PW_STARTS))),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'login with <user> and <token>' (a credential word, a user, "
       "'and' and a token that cannot be prose: bare_password_ok; test16 F12)",
       "(?:" + "|".join(f"{escape(w)}(?<![a-z0-9_\\-\\]]{escape(w)})" for w in _LOGIN_WORDS) + r")"
       r"[ \t]{1,4}(?:with|as|using)[ \t]{1,4}" + _PAIR_USER
       + r"[ \t]{1,4}and[ \t]{1,4}(?:(?:the[ \t]{1,4})?(?:passw(?:or)?d|pw|pass)[ \t]{1,4})?"
       r"[\"'`]?(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       ci=True, priority=51, check=lambda v: bare_password_ok(v.rstrip("!")) and password_token_ok(v),
       anchors=_LOGIN_WORDS, scan=scan_at(*_LOGIN_WORDS)),
    # ---- red16b: phrasings that were stored in clear (test16b B8, B1) ----
    _r("password-phrase",
       "keyword heuristics (no vendor format): '<token> is|was the root|admin ... pass' (the word pass alone; "
       "test16b B1), where the clause ends at the word and the token looks like a password (password_token_ok)",
       r"pass(?<![A-Za-z0-9_\-\]]pass)(?![a-z0-9_])", ci=True, priority=51, anchors=("pass",),
       scan=partial(_scan_before, starts=())),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'user admin pass <token>', 'the root pass <token>' with no verb "
       "(a pass of a named account; test16b B8), only a token shaped like a password (password_token_ok)",
       r"pass[ \t](?:" + "|".join(f"(?<={escape(w)} pass[ \t])" for w in _PASS_OWNERS) + r")"
       r"[ \t]{0,3}[\"'`]?(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       ci=True, priority=51, check=password_token_ok, anchors=("pass",)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): '<token> is what I log in with', '<token> is what we use for the "
       "admin account' (test16b B1), where the token looks like a password (password_token_ok)",
       r"is[ \t]", ci=True, priority=51, anchors=(" what ",), scan=_scan_use_after),
    *MEM_COMMAND_RULES,
    # ---- red17: phrasings that were stored in clear (test16b B1 addendum, B8 left-outs) ----
    # (one rule per word: a pattern that starts with one literal is searched by re in C; an alternation of
    # words, or str.find of 'code' / 'log', is tried at every such word of a transcript)
    *(_r("password-phrase",
         "keyword heuristics (no vendor format): '<PIN> is my door pin', '4471 is the alarm code' (the token "
         "before the word; red17), a PIN-sized token (pin_ok: 4-12 digits, or 4-8 letters and digits) where no "
         "word names hardware ('1234 is the LED pin', 'GPIO17 is the header pin')",
         word + r"(?![a-z0-9_])", ci=True, priority=51, anchors=anchors,
         scan=partial(_scan_before, starts=(), ok=pin_ok, pin=True))
      for word, anchors in ((r"pin(?<![A-Za-z0-9_\-\]]pin)", ("pin",)), (_CODE_WORD, _CODE_ANCHORS))),
    *(_r("password-phrase",
         "keyword heuristics (no vendor format): 'admin / <token> is the login', 'admin:<token> are the creds' "
         "(a user / password pair before a credential word; red17, test16b B1), where the password looks like "
         "one (_pair_ok)",
         word + r"s?(?![a-z0-9_])", ci=True, priority=51, anchors=anchors, scan=_scan_pair_before)
      for word, anchors in ((r"log(?<![a-z0-9_\-\]]log)(?:in|on|-in)", ("login", "logon", "log-in")),
                            (r"cred(?<![a-z0-9_\-\]]cred)(?:ential)?", ("cred",)))),
]
