"""The password rules of :mod:`objstore.core.redact`'s table (``PASSWORD_RULES``, the tail of
``rules.RULES``): a value after a password label or in a phrase about one ('the password for the
staging box is X', 'Password - X', 'login admin / X'), with the regex fragments they share; at their
places in the table, the passwords on a command line or in SQL (``mysql -pX``, ``sshpass -p X``,
``IDENTIFIED BY 'X'``, :mod:`.commandline`) and mem's own command lines (:mod:`.memcommand`).
The token formats (vendor prefixes, protocol fields, ``key=value``) are in :mod:`.rules`."""

from __future__ import annotations

from functools import partial

from objstore.core.redact.beforeword import (LOGIN_WORDS, NOTE_AFTER, PAIR_NOT_USER, PW_STARTS, PW_WORD,
                                             password_token_ok, scan_before, scan_note_after, scan_pair_before,
                                             scan_use_after)
from objstore.core.redact.checks import (PIN_CODE_OWNERS, bare_password_ok,
                                         labelled_phrase_ok, pair_password_ok, pair_slash_ok, phrase_secret_bang_ok,
                                         pin_ok, prose_token_ok, quoted_phrase_ok, short_labelled_ok,
                                         passphrase_words_ok, unquoted_passphrase_ok, word_passphrase_ok)
from objstore.core.redact.commandline import COMMAND_LINE_RULES
from objstore.core.redact.heredocs import HEREDOC_RULES
from objstore.core.redact.memcommand import MEM_COMMAND_RULES
from objstore.core.redact.passwordphrases import (PHRASE_COLON as _PHRASE_COLON, PHRASE_OWNER as _PHRASE_OWNER,
                                                  PHRASE_OWNER_FOR as _PHRASE_OWNER_FOR,
                                                  PHRASE_TOKEN_BANG as _PHRASE_TOKEN_BANG, PHRASE_VERB as _PHRASE_VERB,
                                                  PHRASE_VERB_BARE as _PHRASE_VERB_BARE, PLAIN_WORDS, QUOTED_WORDS, PASS_OWNERS as _PASS_OWNERS,
                                                  TOKEN_VERB_TAIL, VERB_PHRASE_RULES, changed_token_ok,
                                                  with_old_and_new, COMBINATION_OWNERS as _COMBINATION_OWNERS,
                                                  keypad_code_ok)
from objstore.core.redact.pinlabels import (PIN_ABROAD, PIN_ABROAD_STARTS, PIN_ASSIGN as _PIN_ASSIGN, PIN_ENDS, PIN_IN_TAG, PIN_JOIN, PIN_KEYED, PIN_MORE, PIN_OWNER,
                                            PIN_SPACED, PIN_SUFFIX, PIN_TOKEN as _PIN_TOKEN, PIN_WORD, off_board, pin_token_ok)
from objstore.core.redact.rule import Rule, make_rule
from objstore.core.redact.scanners import QUALIFIER, scan_at, scan_plain
from objstore.core.redact.symbolpasswords import SYMBOL_PASSWORD_RULES
from objstore.core.rxcache import escape


#: red16b: a run right after 'token', 'secret', 'api key' with no verb ('deploy bot token <40 hex>', test16b B8):
#: 20+ letters and digits, both (in the one rule of those words: a rule of its own cost +3% of a prompt's scan)
_RANDOM_RUN = (r"s?[ \t]{1,4}[\"'`]?(?=[a-z0-9]{0,255}?[0-9])(?=[a-z0-9]{0,255}?[a-z])"
               r"(?=[a-z0-9]{20,256}+(?![a-z0-9_\-.\[]))")
#: red17: the code of a keypad ('door code', 'alarm code': :data:`~.checks.PIN_CODE_OWNERS`), and its anchors
#: (each phrase, not 'code': a literal that most transcript lines hold costs the matcher a Python step per
#: occurrence, and every rule it gates a run)
_CODE_WORD = r"(?:code(?:" + "|".join(f"(?<={escape(w)}[ _-]code)" for w in PIN_CODE_OWNERS) + ")|combination(?:" + "|".join(
    f"(?<={w} combination)" for w in _COMBINATION_OWNERS) + "))"     # red33b (T15): 'the safe combination is 12-34-56'
#: pin42 (test41 T19): also a key's spelling ('DOOR_CODE=4471', '{"access-code": "4471"}')
_CODE_ANCHORS = tuple(f"{w}{sep}code" for w in PIN_CODE_OWNERS for sep in " _-") + tuple(f"{w} combination" for w in _COMBINATION_OWNERS)
#: red17: a PIN right after its word with no verb ('my pin 4471', 'door code 4471'): 4-12 digits alone
#: and where the clause ends ('pin 2024 release' is no PIN); red38 (test37b T4): after a comma ('my bank PIN, 4471'),
#: and groups of 4-6 digits ('the door code 5520-1199-3377'); pin42 (test41 T19): or a word going on about the PIN
#: follows (pinlabels.PIN_ENDS: 'PIN 4471 for the door lock', 'PIN 4471 works')
#: cma43 (test42 T4): or groups of 2-4 digits one blank apart ('PIN 44 71', pinlabels.PIN_GROUPS)
_PIN_BARE = (r"(?:[ \t]{0,4},)?[ \t]{1,4}(?=(?:[0-9]{4,12}(?:-[0-9]{4,6}){0,3}|[0-9]{2,4}(?:[ \t][0-9]{2,4}){1,5})"
             + PIN_ENDS + ")")
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
              + r")(?:word)?s?(?![a-z0-9_])(?:[ \t]{1,4}(?:for|to|on)[ \t]{1,4}[a-z0-9_.\-]{1,32}(?=[ \t]{1,4}(?:is|was)[ \t]))?"
              r"(?:[ \t]{0,4}(?::|=|is|are|was|were|with|as|using)(?![a-z0-9_])){0,2}[ \t]{0,4}")   # red38: 'login for X is'

_PAIR_USER = (r"(?!(?:" + "|".join(PAIR_NOT_USER) + r")(?:s|es|ed|ing)?[ \t/:])"
              r"[\"'`]?[a-z][a-z0-9_.@+\\\-]{0,63}+[\"'`]?")

#: red30 (test29 P5): a secret of a named account is a password ('our vpn secret is correct horse battery staple');
#: 'the secret is to keep it simple' names none
_SECRET_OWNERS = "|".join(f"(?<={escape(w)} secret)" for w in _PASS_OWNERS)



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
            (r"salasana(?<![a-z0-9_\-\]]salasana)(?:ni|mme|si)?", "on|oli", "nyt|yh\u00e4|edelleen", ("salasana",)),
            # pin41 (test40 T5): Vietnamese 'm\u1eadt kh\u1ea9u l\u00e0 X', Indonesian 'kata sandi adalah X', Arabic '\u0643\u0644\u0645\u0629 \u0627\u0644\u0645\u0631\u0648\u0631 \u0647\u064a X'
            (r"m\u1eadt kh\u1ea9u(?<![a-z0-9_\-\]]m\u1eadt kh\u1ea9u)(?:[ \t]{1,4}c\u1ee7a[ \t]{1,4}[^\s,;:!?]{1,16})?", "l\u00e0", "b\u00e2y gi\u1edd|v\u1eabn",
             ("m\u1eadt kh\u1ea9u",)),
            (r"kata sandi(?<![a-z0-9_\-\]]kata sandi)(?:[ \t]{1,4}(?:saya|aku|anda|kamu))?", "adalah|ialah", "sekarang|masih",
             ("kata sandi",)),
            (r"\u0643\u0644\u0645\u0629 (?:\u0627\u0644\u0645\u0631\u0648\u0631|\u0627\u0644\u0633\u0631)", "\u0647\u064a", "\u0627\u0644\u0622\u0646",
             ("\u0643\u0644\u0645\u0629 \u0627\u0644",)))
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
       "keyword heuristics (no vendor format): 'my passphrase|passcode is <token>' (passcode: test16 F5); red39: with what it opens "
       "between ('the passphrase for root: <token>', 'passphrase for the key is <token>')",
       r"(?:passphrase(?<![A-Za-z0-9_\-\]]passphrase)|passcode(?<![A-Za-z0-9_\-\]]passcode))(?:" + _PHRASE_OWNER
       + r"(?:" + _PHRASE_VERB + r"|" + _PHRASE_COLON + r")|" + _PHRASE_VERB   # red39 (test39 T2): 'passphrase for root: X'
       + r")(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       ci=True, priority=51, check=phrase_secret_bang_ok, anchors=("passphrase", "passcode")),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'my pin|passcode is <4-12 digits>', 'my PIN: <digits>', 'the pin "
       "for the door is <digits>' (red16b); red23: 'pincode: 4471', 'pin_code', 'pin-number' (one word); mend24: "
       "'pin_code = 4471' (an assignment to a name ending code or number); red34: 'CARD_PIN=4711'; pin40 (test39b B9): "
       "'PIN=4471', 'PIN\uff1a4471', '\u94f6\u884c\u5361PIN\u662f4471', 'my PIN is 4 4 7 1', other scripts' digits ('PIN: \u0664\u0664\u0667\u0661'); "
       "pin41 (test40 T5): 'PIN-Nummer: 4471', 'PIN\u756a\u53f7\u306f4471', 'PIN \u2192 4471', 'PIN #4471', 'PIN=\'4471\'', \"my pin's 4471\", "
       "'mi PIN es 4471', '4-4-7-1'; (test40 T6) not a board's pin ('GPIO PIN=4471 drives the relay': pinlabels.on_board); "
       "pin41b (test41 T3): 'PIN do cart\u00e3o: 4471', 'PIN (4471)', 'PIN = \"4 4 7 1\"', 'SIM PUK 12345678', 'PIN-kode: 4471', "
       "'pinkoden \u00e4r 4471'; (T4) not a measure ('the pin is 4471 mm long': pinlabels.measured)",
       r"(?:" + PIN_WORD + PIN_SUFFIX + r"|passcode(?<![A-Za-z0-9_\-\]]passcode))"
       + r"(?:" + _PHRASE_OWNER_FOR + r"(?:" + _PHRASE_VERB + r"|" + _PHRASE_COLON + r")|" + _PHRASE_VERB + r"|"
       + r"[ \t]{0,4}:[ \t]{1,4}[\"'`]?|" + _PIN_BARE + r"|" + _PIN_ASSIGN + r"|" + PIN_JOIN + r"|" + PIN_KEYED   # pin40: 'PIN=4471', 'PIN\u662f4471'   # pin42: '"pin": "4471"', '<pin>4471</pin>'
       # (':' alone, not PHRASE_COLON's ' = ': mend24's 'pin = 448812' is a board's)
       + r"|(?<=passcode)[ \t]{1,4}(?=[0-9]{4,12}(?![0-9A-Za-z]))|" + PIN_MORE   # pin41: 'PIN \u2192 4471', 'PIN ist 4471'
       + r"|" + PIN_OWNER + r"(?:" + PIN_MORE + r"|" + _PHRASE_VERB + r"|[ \t]{0,4}:[ \t]{1,4}[\"'`]?|" + _PIN_BARE
       + r")"   # pin41b (test41 T3): 'PIN do cart\u00e3o: 4471'
       + r")(?P<secret>" + PIN_SPACED + "|" + PIN_IN_TAG + "|" + _PIN_TOKEN + ")",   # test36 T3: 'use passcode 884213 for the door'
       ci=True, priority=51, check=pin_token_ok, anchors=("pin", "puk", "passcode"),
       scan=with_old_and_new(off_board(_plain), pin_token_ok)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): pin41 (test40 T5): a PIN's word of another language with no 'PIN' in it "
       "(pinlabels.PIN_WORDS_ABROAD: 'Geheimzahl ist 4471', '\u041f\u0418\u041d-\u043a\u043e\u0434 4471', 'code secret : 4471', '\u015fifrem 4471'), "
       "its digits after a sign, a copula or blanks; not a board's pin (pinlabels.on_board); pin41b: '\u043a\u043e\u0434 \u043a\u0430\u0440\u0442\u044b 4471', "
       "'clave de la tarjeta: 4471' (pinlabels.PIN_OWNER)",
       PIN_ABROAD + r"(?P<secret>" + PIN_SPACED + "|" + _PIN_TOKEN + ")",
       ci=True, priority=51, check=pin_token_ok, anchors=PIN_ABROAD_STARTS,
       scan=off_board(scan_at(*PIN_ABROAD_STARTS))),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'the door|alarm|gate|safe... code is <4-12 digits or a short "
       "PIN-like token>', 'my alarm code: <token>', 'door code 4471' (red17: a keypad's code, not 'the exit "
       "code is 1', 'the status code: 404'); red33b: '2580#' (keypad_code_ok), 'the safe combination is 12-34-56'; "
       "pin40: 'my door code is 4 4 7 1'",
       _CODE_WORD + r"s?(?![a-z0-9_])"     # red38 (test37b T4): 'the keypad code for the office 77341'
       + r"(?:" + _PHRASE_OWNER_FOR + r"(?:" + _PHRASE_VERB + r"|" + _PHRASE_COLON + r"|" + _PIN_BARE + r")|" + _PHRASE_VERB + r"|"
       + _PHRASE_COLON + r"|" + _PIN_BARE + r"|" + _PIN_ASSIGN + r"|" + PIN_KEYED   # pin42: 'ACCESS_CODE=4471', '<door_code>'
       + r")(?P<secret>" + PIN_SPACED + "|" + PIN_IN_TAG + "|" + _PIN_TOKEN + ")",   # pin40: '4 4 7 1'
       ci=True, priority=51, check=keypad_code_ok, anchors=_CODE_ANCHORS,
       scan=off_board(_plain)),   # pin42b (test42 T5): not "access code 2024 for the conference" (pinlabels.named_else)
    _r("password-phrase",
       "keyword heuristics (no vendor format): pin42b (test42 T3): a password's key of JSON, a Python dict, a PHP array "
       "or XML holding a number, 4-12 digits, wherever it sits ('{\"password\": 84471923}', '{\"db_password\": 84471923, "
       "\"x\": 1}', '<password>84471923</password>'): the key says the number is a password (a number after a password's "
       "word in text or an assignment stays: checks.looks_assigned)",
       r"(?:passw(?:or[dt]|d)|passphrase|pwd)" + PIN_KEYED + r"(?P<secret>" + PIN_IN_TAG + "|" + _PIN_TOKEN + ")",
       ci=True, priority=51, check=pin_token_ok, anchors=("passw", "passphrase", "pwd")),
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
       PW_WORD, ci=True, priority=51, anchors=PW_STARTS, scan=scan_before),
    _r("password-phrase",
       "keyword heuristics (no vendor format): a token set off after the word, 'the admin password, <token>, "
       "must rotate', 'admin password (<token>) rotates' (test16 F12; password_token_ok)",
       PW_WORD + r"[ \t]{0,4}[,(][ \t]{0,4}[\"'`]?(?P<secret>" + _PHRASE_TOKEN_BANG + r")(?=[\"'`]?[ \t]{0,4}[,)])",
       ci=True, priority=51, check=password_token_ok, anchors=PW_STARTS, scan=scan_at(*PW_STARTS)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'set|reset|changed the password to|as <token>' (test16 F12; "
       "password_token_ok)",
       PW_WORD + r"(?:[ \t]{1,4}from[ \t]{1,4}[\"'`]?[^\s\"'`]{1,128}+[\"'`]?)?[ \t]{1,4}(?:to|as)[ \t]{1,4}[\"'`]?"
       r"(?P<secret>" + _PHRASE_TOKEN_BANG + ")",   # red32 (W1): 'changed the password from OLD to X'
       ci=True, priority=51, check=password_token_ok, anchors=PW_STARTS, scan=with_old_and_new(scan_at(*PW_STARTS))),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'login with <user> and <token>' (a credential word, a user, "
       "'and' and a token that cannot be prose: bare_password_ok; test16 F12)",
       "(?:" + "|".join(f"{escape(w)}(?<![a-z0-9_\\-\\]]{escape(w)})" for w in LOGIN_WORDS) + r")"
       r"[ \t]{1,4}(?:with|as|using)[ \t]{1,4}" + _PAIR_USER
       + r"[ \t]{1,4}and[ \t]{1,4}(?:(?:the[ \t]{1,4})?(?:passw(?:or)?d|pw|pass)[ \t]{1,4})?"
       r"[\"'`]?(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       ci=True, priority=51, check=lambda v: bare_password_ok(v.rstrip("!")) and password_token_ok(v),
       anchors=LOGIN_WORDS, scan=scan_at(*LOGIN_WORDS)),
    # ---- red16b: phrasings that were stored in clear (test16b B8, B1) ----
    _r("password-phrase",
       "keyword heuristics (no vendor format): '<token> is|was the root|admin ... pass' (the word pass alone; "
       "test16b B1), where the clause ends at the word and the token looks like a password (password_token_ok)",
       r"pass(?<![A-Za-z0-9_\-\]]pass)(?![a-z0-9_])", ci=True, priority=51, anchors=("pass",),
       scan=partial(scan_before, starts=())),
    _r("password-phrase",
       "keyword heuristics (no vendor format): 'user admin pass <token>', 'the root pass <token>' with no verb "
       "(a pass of a named account; test16b B8), only a token shaped like a password (password_token_ok)",
       r"pass[ \t](?:" + "|".join(f"(?<={escape(w)} pass[ \t])" for w in _PASS_OWNERS) + r")"
       r"[ \t]{0,3}[\"'`]?(?P<secret>" + _PHRASE_TOKEN_BANG + ")",
       ci=True, priority=51, check=password_token_ok, anchors=("pass",)),
    _r("password-phrase",
       "keyword heuristics (no vendor format): '<token> is what I log in with', '<token> is what we use for the "
       "admin account' (test16b B1), where the token looks like a password (password_token_ok)",
       r"is[ \t]", ci=True, priority=51, anchors=(" what ",), scan=scan_use_after),
    _r("password-phrase",
       "keyword heuristics (no vendor format): '<token> (password for grafana)', '<token> (the admin pw)' (red38, "
       "test37b T4: the token before a bracketed note naming it a password), where the token looks like a password "
       "(password_token_ok)",
       NOTE_AFTER, ci=True, priority=51, anchors=("passw", "passphrase", "pw"),
       scan=scan_note_after),
    *MEM_COMMAND_RULES,
    # ---- red17: phrasings that were stored in clear (test16b B1 addendum, B8 left-outs) ----
    # (one rule per word: a pattern that starts with one literal is searched by re in C; an alternation of
    # words, or str.find of 'code' / 'log', is tried at every such word of a transcript)
    *(_r("password-phrase",
         "keyword heuristics (no vendor format): '<PIN> is my door pin', '4471 is the alarm code' (the token "
         "before the word; red17), a PIN-sized token (pin_ok: 4-12 digits, or 4-8 letters and digits) where no "
         "word names hardware ('1234 is the LED pin', 'GPIO17 is the header pin')",
         word + r"(?![a-z0-9_])", ci=True, priority=51, anchors=anchors,
         scan=partial(scan_before, starts=(), ok=pin_ok, pin=True))
      for word, anchors in ((r"pin(?<![A-Za-z0-9_\-\]]pin)", ("pin",)), (_CODE_WORD, _CODE_ANCHORS))),
    *(_r("password-phrase",
         "keyword heuristics (no vendor format): 'admin / <token> is the login', 'admin:<token> are the creds' "
         "(a user / password pair before a credential word; red17, test16b B1), where the password looks like "
         "one (_pair_ok)",
         word + r"s?(?![a-z0-9_])", ci=True, priority=51, anchors=anchors, scan=scan_pair_before)
      for word, anchors in ((r"log(?<![a-z0-9_\-\]]log)(?:in|on|-in)", ("login", "logon", "log-in")),
                            (r"cred(?<![a-z0-9_\-\]]cred)(?:ential)?", ("cred",)))),
]
