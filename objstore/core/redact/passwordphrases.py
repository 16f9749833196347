"""The English phrase fragments the password rules of :mod:`.passwords` share (the verb after a label, what a
password opens, the token that ends before sentence punctuation), and the verb-phrase rules that use them beyond
'is|was' (red30b, test30b S13): 'the db password has been changed to X', 'got rotated to X', 'my github password,
it is X', 'the db password (it is X)', 'the password that I use is X', 'the password would be X', 'stays X',
'became X'. Split from :mod:`.passwords` (39,234 B, near the 40,960-byte module limit); the rules are spliced into
``PASSWORD_RULES`` after its first rule, so the table's order is the one place that decides a tie."""

from __future__ import annotations

from collections.abc import Callable

from objstore.core.redact.checks import (is_placeholder, labelled_phrase_ok, looks_secret, phrase_secret_bang_ok, pin_ok,
                                         prose_word, quoted_phrase_ok, unquoted_passphrase_ok)
from objstore.core.redact.pinlabels import PIN_LABEL as _PIN_LABEL, PIN_TOKEN, off_board, pin_token_ok
from objstore.core.redact.rule import FLAGS, Lazy, Rule, make_rule
from objstore.core.redact.scanners import QUALIFIER, find_each, scan_at
from objstore.core.rxcache import escape

# ``password is X``, ``my db passphrase was X``, ``the password is now: X``, over the lowercased
# text; the token ends before trailing sentence punctuation (``... is hunter2024.``).
# red16b (test16b B8): an arrow stands for the verb ('prod password -> X'), and 'is the same as staging: X'
# names the value after the other owner's
PHRASE_VERB_BARE = (r"[ \t]{0,4}(?:(?<=[ \t])(?:is|was)(?:[ \t]{1,4}(?:now|still|set[ \t]{1,4}to|changed[ \t]{1,4}to))?"
                     r"[ \t]{0,4}:?|->)[ \t]{1,4}"
                     r"(?:(?:the[ \t]{1,4})?same[ \t]{1,4}as(?:[ \t]{1,4}[^\s,;:!?]{1,64}){1,4}[ \t]{0,4}:[ \t]{1,4})?")
PHRASE_VERB = PHRASE_VERB_BARE + r"[\"'`]?"
# what a password opens, between it and its verb: 'for|of|to|on|at|in|from' and 1-5 words ('the password for the
# staging box is X', 'the password of db.example.com was X'); a word does not end a sentence or a clause
PHRASE_OWNER = r"[ \t]{1,4}(?:for|of|to|on|at|in|from|del|de|di|f\u00fcr)(?:[ \t]{1,4}[^\s,;:!?]{0,63}[^\s.,;:!?]){1,5}"
# red16b: the owner of a token, api key, secret or pin: 'for|of' and 1-5 words ('the api key for stripe is X'; not
# 'token at shard use like upload_record is id=…' in a log line)
PHRASE_OWNER_FOR = r"[ \t]{1,4}(?:for|of)(?:[ \t]{1,4}[^\s,;:!?=]{0,63}[^\s.,;:!?=]){1,5}"
#: pin40 (red39's left-out): or '=' between blanks ('passphrase for root = X'; not a log's 'token of to id=X'), or
#: ':' with no blank after it ('Passphrase for root:X'; not a scheme's '://', nor a marker's '[REDACTED:')
PHRASE_COLON = r"[ \t]{0,4}(?::(?<!redacted:)(?![/\\])[ \t]{0,4}|(?<=[ \t])=[ \t]{1,4})[\"'`]?"     # 'the password for the staging box: X'
PHRASE_TOKEN = r"[^\s\"'`]{0,127}?[^\s\"'`.,;:!?)\]]" + r"(?=[.,;:!?)\]]*(?:[\s\"'`]|$))"
# the same, greedy, and a trailing ``!`` kept with the token (German ``... lautet Geheim123!``)
PHRASE_TOKEN_BANG = r"[^\s\"'`]{0,127}[^\s\"'`.,;:?)\]]" + r"(?=[.,;:?)\]]*(?:[\s\"'`]|$))"

#: the accounts whose 'X pass is <token>' is a password ('the vpn pass is ...'), not a pass of a program (moved
#: from :mod:`.passwords`, red31: the verb rules below take 'the db pass has been changed to X' too)
PASS_OWNERS = ("vpn", "wifi", "wi-fi", "wlan", "my", "admin", "root", "login", "account", "db", "database",
               "ssh", "sudo", "server", "router", "email", "mail", "portal", "user", "app", "vault", "ftp",
               "sftp", "smtp", "imap", "laptop", "bios", "door", "alarm", "master")

#: red30b: a password label ('password', 'passwd', 'passphrase', plural too), each alternative starting with its
#: literal (searched in C), not the tail of a longer name ('db_password', 'x-password'); red31 (test30c T6): 'passcode'
#: and a named account's 'pass' ('the db pass has been changed to X', :data:`PASS_OWNERS`)
_PW_LABEL = (r"(?:passw(?<![A-Za-z0-9_\-\]]passw)(?:or)?d|passphrase(?<![A-Za-z0-9_\-\]]passphrase)"
             r"|passcode(?<![A-Za-z0-9_\-\]]passcode)"
             r"|pass(?:" + "|".join(f"(?<={escape(w)} pass)" for w in PASS_OWNERS) + r")(?![a-z0-9_])"
             r"|cred(?<![A-Za-z0-9_\-\]]cred)(?:ential)?s(?![a-z0-9_]))s?")    # red38 (T4): 'the root credentials are now X'
#: red31 (T14, red30's left-out): a qualifier between the label and its verb ('The db password (prod) is X',
#: 'Password（prod） is X'), as before a sign (:data:`~.scanners.QUALIFIER`)
_QUALIFIED = r"(?:[ \t]{0,4}" + QUALIFIER + r"){0,2}"
#: red31 (T6): a clause saying the password changed, before the clause that gives it ('the password has changed,
#: it's X now', 'the password has been reset; the new one is X')
_CHANGED = (r"[ \t]{1,4}(?:has|have|had|was|were|got|just)(?:[ \t]{1,4}been)?[ \t]{1,4}"
            r"(?:changed|rotated|reset|updated|regenerated)")
#: red30b: what may stand between the label and its verb: a comma, '?' or '(' and 'it|which|that' ('my github
#: password, it is X', 'the root password? it is X', 'the db password (it is X)'), or a relative clause of a
#: pronoun and one or two words ('the password that I use is X', 'the password we picked was X'); red31: also
#: ';', ':' or a dash, 'the new one' ('...; the new one is X'), after a changed-clause (:data:`_CHANGED`)
_VERB_BETWEEN = (r"(?:[ \t]{0,4},(?:[ \t]{1,4}[a-z]{1,12}){1,4}[ \t]{0,4},"     # red31: 'the password, by the way, is X'
                 r"|(?:" + _CHANGED + r")?[ \t]{0,4}[,?(;:\-\u2014][ \t]{0,4}"
                 r"(?:it|which|that|the[ \t]{1,4}new[ \t]{1,4}(?:one|value))"
                 r"|[ \t]{1,4}(?:(?:that|which)[ \t]{1,4})?(?:i|we|you|they|he|she)(?:[ \t]{1,4}[a-z]{2,12}){1,2})")
#: red30b: the verbs beyond PHRASE_VERB's 'is|was': 'be|being|became|becomes|stays|stayed|remains', a modal and
#: 'be' ('would be', 'will be', 'should be'), and '(has been|was|is|got|gets|been) (changed|rotated|reset|set|
#: updated) to'; then an optional ',' or ':' ('the db password is, X'); red31 (T6): an adverb before the participle
#: ('is now set to X'), the participle alone ('changed to X', 'changed -> X', 'rotated: X'), 'now|still' after the
#: copula ('(prod) is now X'), "it's" after 'it' ("my password? it's X", the apostrophe typographic too), "the
#: password's now X", 'password now: X', 'is going to be X' / 'is gonna be X'
#: red32 (test31c W1): an adverb between 'has' and 'been' or before the participle ('has now been changed to X',
#: 'has just been', 'has since been', 'has finally been')
_ADVERB = r"(?:now|just|already|recently|finally|since|then|also)"
#: red32 (W1): 'changed from OLD to NEW' (the usual way to tell a rotation): the old value read past here, taken by
#: :func:`scan_changed_from`
#: red38 (test37b T4): 'changed the password from the default to X' (an article before OLD)
_FROM_OLD = r"[ \t]{1,4}from[ \t]{1,4}(?:the[ \t]{1,4})?[\"'`]?[^\s\"'`]{1,128}+[\"'`]?[ \t]{1,4}to"


#: red38 (test37b T4): what else follows the participle: ', now X' ('the password got reset, now X'), an arrow
#: ('rotated \u2192 X'), 'over to X' ('switched over to X'), and ', X is live' ('db password rotated, X is live')
_LIVE = (r"[ \t]{0,4},(?=[ \t]{1,4}[\"'`]?[^\s\"'`]{1,128}[\"'`]?[ \t]{1,4}is[ \t]{1,4}(?:now[ \t]{1,4})?"
         r"(?:live|active|current|in[ \t]{1,4}use|deployed)(?![a-z0-9_]))")


def _verb_wide(copulas: str, modals: str) -> str:
    """The verb pattern after a label and what stands between (see above): ``copulas`` the bare verbs ('is|was|be'),
    ``modals`` those before 'be' ('would|will')."""
    return (r"(?:[ \t]{1,4}(?:(?:(?:(?:has|have|had)(?:[ \t]{1,4}" + _ADVERB + r")?[ \t]{1,4}been|was|were|is|are|got|gets|been"
            r"|has|have|had)[ \t]{1,4})?(?:" + _ADVERB + r"[ \t]{1,4})?"
            r"(?:changed|rotated|reset|set|updated|switched|regenerated|upgraded|renamed|migrated|bumped)"   # first: a check refuses 'reset', not backtracks
            r"(?:[ \t]{1,4}again)?(?:[ \t]{1,4}(?:over[ \t]{1,4})?to|[ \t]{0,4}(?:->|=>|\u2192|:)|" + _FROM_OLD
            + r"|[ \t]{0,4},?[ \t]{1,4}now|" + _LIVE + r")"
            r"|(?:(?:" + modals + r")(?:[ \t]{1,4}(?:now|still|also))?|(?:is|are|was)[ \t]{1,4}(?:going[ \t]{1,4}to|gonna)"
            r"|used[ \t]{1,4}to)[ \t]{1,4}be|(?:has|have)[ \t]{1,4}(?:now[ \t]{1,4})?become"
            r"|(?:(?:now|still|currently)[ \t]{1,4})?(?:" + copulas + r")"
            r"(?:[ \t]{1,4}(?:now|still|currently|just|simply)"    # red35 (test34b T8): 'is just X'
            r"|[ \t]{0,4},[ \t]{0,4}as[ \t]{1,4}of[ \t]{1,4}[a-z]{1,12})?)"
            r"|(?<=it)['\u2019]s(?:[ \t]{1,4}(?:now|still))?|['\u2019]s[ \t]{1,4}(?:now|still)|[ \t]{1,4}(?:now|update|change)[ \t]{0,4}:"
            r"|['\u2019]s(?=[ \t]{1,4}[^\s\"'`]{1,128}[ \t]{1,4}now(?![a-z0-9_])))"
            r"[ \t]{0,4}[,:]?[ \t]{1,4}")


#: red31: what may follow a label where one of the heads below goes on (a qualifier's bracket or quote, punctuation, or
#: the first word of an owner, a clause or a verb): a cheap look-ahead, so a label followed by anything else (most of
#: them: 'token = ...', 'password the') costs one test, not every alternative of the head (2 KB prompt: the rules'
#: share 61 -> 45 us)
_NEXT = (r"(?=[ \t]{0,4}+(?:[,?(;:\-\u2014\[{<\"'`\uff08\\\u2019]|(?:for|of|to|on|at|in|from|del|de|di|f\u00fcr|that|which"
         r"|i|we|you|they|he|she|has|have|had|was|were|is|are|got|gets|been|now|just|already|recently|finally|since"
         r"|then|also|changed|rotated|reset|set|updated|switched|regenerated|update|change|would|will|should|shall|must|could|might"
         r"|can|may|be|being|became|becomes|stays|stayed|remains|remained|going|gonna|used)(?![a-z0-9_])))")
_VERB_WIDE = _verb_wide("is|was|are|were|be|being|became|becomes|stays|stayed|remains|remained",
                        "would|will|should|shall|must|could|might|can|may")
#: red31: after a secret's or token's label not a bare 'be' (a log line's word salad, 'cache token be ensure_helm'),
#: nor a hedge ('the encoded word tokens of this part may be RFC2047': the stdlib's email parser), and what it opens
#: only after 'for|of' (:data:`PHRASE_OWNER_FOR`, as the 'the token is X' rule reads it)
#: red31 (red30b's left-out): the tail the secret/token/api key rule of :mod:`.passwords` tries first ('the api token
#: has been changed to X', 'the webhook secret, it is X', 'API key (prod) is X', 'the token was regenerated: X'), one
#: rule's match at each such word rather than a second rule's; a bare 'is|was' only after what stands between or a
#: qualifier (the rule's own 'is|was' alternatives read the rest: 'is the same as staging: X')
_TOKEN_MODALS = "would|will|should|shall|must"
TOKEN_VERB_TAIL = (_NEXT + r"(?:(?:" + PHRASE_OWNER_FOR + r")?(?:" + _VERB_BETWEEN + r"|(?:[ \t]{0,4}" + QUALIFIER
                   + r"){1,2})" + _verb_wide("is|was|being|became|becomes|stays|stayed|remains|remained", _TOKEN_MODALS)
                   + r"|(?:" + PHRASE_OWNER_FOR + r")?"
                   + _verb_wide("being|became|becomes|stays|stayed|remains|remained", _TOKEN_MODALS) + r")[\"'`]?")
#: red32 (test31c W3): what a verb phrase names that is no password: a log line's field ('password changed ->
#: user_id=4521') or a compound adjective of two words ('the api token has been changed to read-only scope')
_NOT_CHANGED_TO = Lazy(r"[a-z_]{2,32}=[^=]{0,64}|[a-z]{2,10}-[a-z]{2,10}", FLAGS)


def changed_token_ok(v: str) -> bool:
    """red32: the token after a password's, a secret's or a token's verb phrase (:func:`~.checks.phrase_secret_bang_ok`),
    not a log field nor a two-word compound (:data:`_NOT_CHANGED_TO`)."""
    return phrase_secret_bang_ok(v) and _NOT_CHANGED_TO.fullmatch(v) is None


#: red32 (W1): the old value before a taken one ('changed from OLD to [NEW]'), read back from the new value's start
_OLD_BEFORE = Lazy(r"[ \t]from[ \t]{1,4}[\"'`]?(?P<v>[^\s\"'`]{1,128})[\"'`]?[ \t]{1,4}to[ \t]{1,4}[\"'`]?\Z", FLAGS)
#: red32 (W1): the new value after a taken one and an arrow ('db password [OLD] -> NEW')
#: test32b Y7: or the new value after a take-back ('password is OLD. Correction: NEW', '… OLD -- no wait, NEW',
#: '… OLD. Actually no, make it NEW', '… OLD, my mistake: NEW'): the statement the capture reads as the value
#: cue33 (test32b Y7): also 'Actually, it's NEW' and the take-back opening the next line ('… OLD.' LF 'Correction: NEW')
#: cue33c (test33b T8): also 'Sorry, I mean NEW', 'Wait, it's NEW', 'Er, NEW', '(sorry, NEW)', 'Actually, make that NEW',
#: 'Actually, the new one is NEW', 'Hmm, no, NEW', 'Typo: NEW', 'Let me correct that: NEW', 'Korrektur: NEW' (a phrase,
#: then up to one more: 'Sorry, I mean'), and 'NEW I mean' opening the next line
#: seal34 (test33b T8's rest): also 'No, NEW', 'Nope, NEW', 'Oh wait, NEW', 'Err, NEW', 'Ugh, NEW', 'Whoops, NEW',
#: 'Update: NEW', 'Rather, NEW', ', or rather NEW', 'I meant to say NEW'; the take-back after a blank line ('… OLD.' LF LF
#: 'Sorry, I mean NEW'); a new sentence opened by what says the new value ('Make that NEW', "It's now NEW", 'Should be
#: NEW', 'Changed it to NEW', 'New one is NEW'); 'NEW actually' after an ellipsis ('OLD... NEW actually')
_TB_PHRASE = (r"(?:correction|korrektur|typo|no[ \t,]{1,3}wait|(?:oh[ \t]{1,3})?wait(?:[ \t,]{1,3}no)?|actually(?:[ \t,]{1,3}no)?"
              r"|my[ \t]{1,3}(?:mistake|bad)|scratch[ \t]{1,3}that|(?:wh)?oops|sorry|i[ \t]{1,3}meant?(?:[ \t]{1,3}to[ \t]{1,3}say)?"
              r"|err?|erm|uh|um|ugh|nope|no(?=[ \t]{0,3}[,:])|update|(?:or[ \t]{1,3})?rather|hmm(?:[ \t,]{1,3}no)?"
              r"|let[ \t]{1,3}me[ \t]{1,3}correct[ \t]{1,3}(?:that|this))")
#: seal34: what opens a sentence that says the new value without a take-back phrase before it ('Make that NEW')
_NEW_LEAD = (r"(?:make[ \t]{1,3}(?:it|that)|it(?:[\u2019']s|[ \t]{1,3}is)[ \t]{1,3}now|(?:it[ \t]{1,3})?should[ \t]{1,3}be"
             r"|changed[ \t]{1,3}it[ \t]{1,3}to|(?:the[ \t]{1,3})?(?:new|correct|right)[ \t]{1,3}one[ \t]{1,3}is)[ \t]{1,3}")
_TAKE_BACK_NEW = (r"[.;!][ \t]{0,4}(?:\r?\n[ \t]{0,4}){0,2}" + _NEW_LEAD
                  + r"|[.…]{2,3}[ \t]{1,4}(?=[^\s\"'`]{1,128}[ \t]{1,3}actually\b)"
                  + r"|[.,;:!]?[ \t]{0,4}(?:\r?\n[ \t]{0,4}){0,2}(?:--?|\u2014|\u2013|\()?[ \t]{0,4}" + _TB_PHRASE
                  + r"(?:[ \t]{0,4}[,:.!\u2014\u2013-]{0,3}[ \t]{0,4}" + _TB_PHRASE + r"\b)?"
                  r"[ \t]{0,4}[,:.!\u2014\u2013-]{0,3}[ \t]{0,4}(?:(?:make|call)[ \t]{1,3}(?:it|that)[ \t]{1,3}|it(?:[\u2019']s|[ \t]{1,3}is)"
                  r"[ \t]{1,3}|should[ \t]{1,3}be[ \t]{1,3}|the[ \t]{1,3}new[ \t]{1,3}one[ \t]{1,3}is[ \t]{1,3})?"
                  r"|[.,;:!]?[ \t]{0,4}(?:\r?\n[ \t]{0,4}){1,2}(?=[^\s\"'`]{1,128}[ \t]{1,3}i[ \t]{1,3}meant?\b)")
#: seal34 (test33b T8): or quoted words after a take-back ('Actually, it's "open sesame please now"', :func:`quoted_phrase_ok`)
_NEW_AFTER = Lazy(r"[\"'`]?(?:[ \t]{1,4}(?:->|=>|\u2192)[ \t]{1,4}|" + _TAKE_BACK_NEW + r")(?:(?:(?P<q>[\"'`])|\u201c|\u2018)"
                  r"(?P<p>[^\"'`\n\r\u201c\u201d\u2018\u2019]{4,128})(?(q)(?P=q)|[\u201d\u2019])|[\"'`]?(?P<v>" + PHRASE_TOKEN_BANG + "))",
                  FLAGS)
#: cue33c (test33b T8): the old value named after a taken one and a comma, a semicolon, a dash or a parenthesis ('… it's
#: NEW, not OLD', '… NEW (not OLD)'), which is the same kind of secret (not a bare 'not': a code line's 'if not x:')
_NOT_OLD = Lazy(r"[\"'`]?[ \t]{0,4}[,;(\u2014\u2013][ \t]{0,4}(?:and[ \t]{1,3})?not[ \t]{1,4}(?:the[ \t]{1,3}old[ \t]{1,3}one[ \t,:]{1,4})?"
                r"[\"'`]?(?P<v>" + PHRASE_TOKEN_BANG + ")", FLAGS)
#: how far before a taken value its 'from OLD to' is looked for
_OLD_SPAN = 160


def _repeated(low: str, s: int, e: int, at: int) -> int | None:
    """seal34 (test33b T8): where the old value ``low[s:e]`` is named again after a take-back's new value ending at
    ``at`` ('… it's NEW not OLD', 'NEW instead of OLD', 'NEW, OLD was the old one'): its first whole occurrence
    within :data:`_OLD_SPAN` characters on the same line, or None."""
    old = low[s:e]
    end = low.find("\n", at, at + _OLD_SPAN)
    i = low.find(old, at, end if end >= 0 else at + _OLD_SPAN)
    if i < 0 or (i and (low[i - 1].isalnum() or low[i - 1] in "_-")) or (low[i + len(old):i + len(old) + 1].isalnum()):
        return None
    return i


def with_old_and_new(inner: Callable[..., None], ok: Callable[[str], bool] = changed_token_ok) -> Callable[..., None]:
    """red32 (test31c W1): a rule's ``scan`` that runs ``inner`` (a scan of the same signature), then, for each
    value it took, also the other value of a change told around it: the old one in 'changed from OLD to X'
    (:data:`_OLD_BEFORE`) and the new one in 'password X -> NEW' (:data:`_NEW_AFTER`), each when
    ``ok`` (default :func:`changed_token_ok`; a PIN's rules :func:`~.checks.pin_ok`) takes it (the two values are
    the same kind of secret)."""
    def scan(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
        n = len(out)
        inner(rule, text, ws, we, out, low, off, at)
        for s, e, prio, name in out[n:]:
            if (m := _OLD_BEFORE.search(low, max(ws - off, s - off - _OLD_SPAN), s - off)) is not None:
                a, b = m.span("v")
                if ok(text[a + off:b + off]):
                    out.append((a + off, b + off, prio, name))
            if (m := _NEW_AFTER.match(low, e - off, we - off)) is not None:
                quoted = m.group("p") is not None
                a, b = m.span("p" if quoted else "v")
                if (quoted_phrase_ok if quoted else ok)(text[a + off:b + off]):
                    out.append((a + off, b + off, prio, name))
                    old = _repeated(low, s - off, e - off, b)     # 'Actually it's NEW not OLD' (seal34)
                    if old is not None:
                        out.append((old + off, old + off + e - s, prio, name))
                    e = b + off
            if (m := _NOT_OLD.match(low, e - off, we - off)) is not None:
                a, b = m.span("v")
                if ok(text[a + off:b + off]):
                    out.append((a + off, b + off, prio, name))
    scan.leftmost, scan.starts = getattr(inner, "leftmost", False), getattr(inner, "starts", ())
    return scan


#: a passphrase's value after a verb: quoted words ('is "correct horse battery"', quoted_phrase_ok) or 4-10 plain
#: words to the end of the line or sentence ('is correct horse battery staple', unquoted_passphrase_ok)
QUOTED_WORDS = r"(?P<q>[\"'`])(?P<secret>[^\"'`\n\r]{4,128})(?P=q)"
#: (red35, test34b T8: 3 words, as unquoted_passphrase_ok reads them, 'is purple monkey dishwasher'; ended by a dash
#: between blanks too, 'is correct horse battery staple - please put it in the config')
PLAIN_WORDS = (r"(?P<secret>[a-z0-9]{2,24}+(?:[ \t]{1,2}[a-z0-9]{2,24}+){2,9})"
               r"(?=[ \t]{0,4}(?:[\"'`,;.!?]|\r|\n|\\[rn]|$)|[ \t]{1,4}[\-\u2013\u2014]{1,2}[ \t])")
_WIDE_TAIL = r"(?:" + PHRASE_OWNER + r")?(?:" + _VERB_BETWEEN + r")?" + _VERB_WIDE
_WIDE_HEAD = _PW_LABEL + _NEXT + _QUALIFIED + _WIDE_TAIL

#: red32: where the rule of a verb before a token's label starts ('rotated the api token to X')
_VERB_STARTS = ("changed", "rotated", "reset", "updated", "regenerated")
#: red31: where a match of the rules below may start (the labels' literals; 'pass' holds passw, passphrase, passcode)
_PW_STARTS = ("pass", "cred")

#: red37 (test36b T10): a verb of change, a determiner and up to 2 words before a password's label ('we set the db
#: password to X', 'changed the admin pass to X', 'reset the pwd to X'), and 'to' or 'from OLD to' after it
_SET_VERBS = ("set", "changed", "change", "rotated", "reset", "updated", "switched", "moved")
_SET_HEAD = (r"(?:" + "|".join(f"{v}(?<![a-z0-9_\\-]{v})" for v in _SET_VERBS) + r")[ \t]{1,4}"
             r"(?:(?:the|our|my|its|their|his|her|your)[ \t]{1,4}(?:[a-z0-9_.\-]{1,24}[ \t]{1,4}){0,2}|(?=pw|pass))")
#: red38 (test37b T4): no determiner before 'pw' or a password word ('Changed pw to X'), an owner after the label
#: ('changed PW for vault to X'), 'over to' ('switched my password over to X')
_SET_TO = (r"(?:[ \t]{1,4}for[ \t]{1,4}[a-z0-9_.@\-]{1,32})?(?:[ \t]{1,4}(?:over[ \t]{1,4})?to|" + _FROM_OLD
           + r")[ \t]{1,4}")
#: (a program's 'pass' is no password: only a named account's, 'the admin pass', :data:`PASS_OWNERS`)
_SET_PW_HEAD = (_SET_HEAD + r"(?:passw(?:or)?d|passphrase|pwd?|cred(?:ential)?s|pass(?:" + "|".join(f"(?<={escape(w)} pass)" for w in PASS_OWNERS)
                + r")(?![a-z0-9_]))s?" + _SET_TO)
_SET_ANCHORS = ("pass", "pw", "cred")


def _set_value_ok(v: str, ok: Callable[[str], bool] = changed_token_ok) -> bool:
    """red37: a value after 'set|changed the … password|pwd to': ``ok``'s (a password's shape) and no folder
    ('set the pwd to ~/src/app', '/tmp/build2', './out', '$HOME/src': the shell's working folder)."""
    return ok(v) and not v.lstrip("\"'`").startswith(("/", "~", "./", "../", "$", "%"))


def _set_quoted_ok(v: str) -> bool:
    """red37: a quoted value there (:func:`~.checks.quoted_phrase_ok`), no folder (:func:`_set_value_ok`)."""
    return _set_value_ok(v, quoted_phrase_ok)

#: red31 (red29's and red30's left-out, test30c T14): a plural password label and a list of its pairs ('Passwords: root
#: = X, admin = Y', 'DB passwords: prod X, staging Y', 'passwords - prod: X / staging: Y'): the head, then each pair
#: red32 (test31c W2): a list item's indentation on its own line, or a YAML block sequence's dash ('passwords:' LF
#: '  - root: X', YAML 1.2 s8.2.1), which may stand at the line's start
_ITEM_INDENT = r"[ \t]{0,16}(?:-[ \t]{1,4}|(?<=[ \t]))"
_LIST_HEAD = (r"(?:passw(?<![a-z0-9_\-\]]passw)(?:or)?(?:ds|d[ \t]list)|credentials(?<![a-z0-9_\-\]]credentials)"
              r"|creds(?<![a-z0-9_\-\]]creds)|logins(?<![a-z0-9_\-\]]logins)|tokens(?<![a-z0-9_\-\]]tokens))(?:[ \t]{0,4}" + QUALIFIER
              + r")?[ \t]{0,4}(?::|-{1,2}|=|[\u2013\u2014])[ \t]{0,8}(?:(?:\r?\n|\\n)" + _ITEM_INDENT + ")?")
#: a pair: a user or scope, a sign ('=', ':', '->') or blanks, the value, then a list separator or the line's end
_LIST_PAIR = (r"[a-z0-9_.@\-]{1,32}(?P<sign>[ \t]{0,4}(?:=|:|->|/)[ \t]{0,4}|[ \t]{1,4})(?P<oq>[\"'`])?"
              r"(?P<secret>[^\s\"'`,;/|\\]{1,128}?)(?(oq)(?P=oq))"
              r"(?:[ \t]{0,4}(?:[,;/|]|[ \t]and(?=[ \t]))[ \t]{0,4}|[ \t]{0,8}(?:\r?\n|\\n)" + _ITEM_INDENT + r"(?=[a-z0-9_.@\-]{1,32}:)"
              r"|(?P<end>(?=[.!?]?[ \t]{0,8}(?:\r|\n|\\[rn]|\\{0,3}\"|$))))")     # or a JSON string's end
_LIST_HEAD_RE = Lazy(_LIST_HEAD, FLAGS)
#: red32 (test31c W2): the literals a list's head starts with ('Password list:', 'Credentials:', 'Logins:', 'Tokens:')
_LIST_STARTS = ("passwords", "passwds", "password list", "credentials", "creds", "logins", "tokens")


def _listed_key_ok(v: str) -> bool:
    """red32 (W2): a value in a ``Credentials:``, ``Logins:`` or ``Tokens:`` list: a password's shape
    (:func:`~.checks.labelled_phrase_ok`) with a digit or a symbol and 6+ characters, or random-looking (not
    ``Tokens: input=1523, output=377``, a model's usage line: digits alone)."""
    return (len(v) >= 6 and not v.isdigit() and any(not c.isalpha() for c in v) and labelled_phrase_ok(v)) or looks_secret(
        v, labelled=True)
_LIST_PAIR_RE = Lazy(_LIST_PAIR, FLAGS)
#: red33b (test33 T3): what stands before a list's head on its line when the head opens a list of its own lines
#: ('Credentials:' LF '  bob: X', '- DB logins:'), not a loop's ('for token in tokens:'): a bullet and up to 2 words
_HEAD_LINE = Lazy(r"(?:^|(?<=\n)|(?<=\\n))[ \t#*>\-]{0,8}(?:[a-z0-9_.\-]{1,24}[ \t]{1,4}){0,2}\Z", FLAGS)
_LOOP_WORDS = frozenset(("for", "in", "of", "if", "while", "from", "each", "all", "the", "my", "see", "use", "via"))


def _heads_line(low: str, p: int) -> bool:
    """red33b: whether the list head at ``p`` of ``low`` starts its line or a JSON string (after a bullet and up to 2
    words, none of :data:`_LOOP_WORDS`: 'DB credentials:' LF …, not 'for token in tokens:' LF …)."""
    a = max(low.rfind("\n", 0, p), low.rfind("\\n", 0, p) + 1, low.rfind('"', 0, p), -1) + 1   # or a JSON string's
    return _HEAD_LINE.search(low[a:p]) is not None and not _LOOP_WORDS.intersection(low[a:p].split())


def _lone_pair_ok(low: str, q: int, v: str) -> bool:
    """red33b (test33 T3): a ``Credentials:``/``Logins:`` list of one unsigned pair ('Credentials: bob X'): its user
    (at ``q`` of ``low``) is not a word that says where the value is ('see 1Password', 'in vault') and the value
    ``v`` mixes letters and digits (not a product or a place named in words)."""
    user = low[q:q + 33].split(None, 1)[0] if low[q:q + 33].strip() else ""
    return (user not in _LOOP_WORDS and user not in ("at", "on", "stored", "ask", "check", "read", "is", "are", "none")
            and any(c.isdigit() for c in v) and any(c.isalpha() for c in v) and not v.lower().endswith("password"))
_LIST_MAX = 16      # pairs read after one head


def scan_pair_list(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """red31: each value of a plural password label's list of pairs (``Passwords: root = X, admin = Y``,
    ``DB passwords: prod X, staging Y``; the generic rule took only the first pair's): at each ``passwords`` or
    ``passwds`` of the
    lowercased window ``low`` (``off``: its offset in ``text``; ``ws``/``we``: the window in ``text``) where
    :data:`_LIST_HEAD` matches, up to :data:`_LIST_MAX` pairs of :data:`_LIST_PAIR` in a row, each value judged by
    :func:`~.checks.labelled_phrase_ok` (a password's shape, not a whole placeholder); a pair with no sign
    ('prod X') only in a list of two or more (not 'Passwords: see 1Password'). Appends ``(start, end, priority,
    name)`` spans of ``text`` to ``out``; raises nothing."""
    s0, e0 = ws - off, we - off
    head, pair = _LIST_HEAD_RE.match, _LIST_PAIR_RE.match
    for p in (p for lit in _LIST_STARTS for p in find_each(low, lit, s0, e0)):   # not every 'passw'
        if (m := head(low, p, e0)) is None:
            continue
        ok = labelled_phrase_ok if low.startswith("passw", p) else _listed_key_ok
        if ok is _listed_key_ok and ("\n" in m.group() or "\\n" in m.group()) and not _heads_line(low, p):
            continue     # red32: 'for token in tokens:' LF '    token_type = token.type' is code, not a list
        q, found = m.end(), []
        for _n in range(_LIST_MAX):
            if (pm := pair(low, q, e0)) is None:
                break
            s, e = pm.span("secret")
            if ok(text[s + off:e + off]):
                found.append((s, e, pm.group("sign").strip(" \t") != ""))
            if pm.group("end") is not None or pm.end() == q:
                break
            q = pm.end()
        lone = ok is _listed_key_ok and len(found) == 1 and _lone_pair_ok(low, m.end(), text[found[0][0] + off:found[0][1] + off])
        for s, e, signed in found:
            if signed or len(found) > 1 or lone:
                out.append((s + off, e + off, rule.priority, rule.name))


#: red33b (test33 T15): a keypad's code with its '#' or '*' key ('the garage code is 2580#', '*1234'), and a safe's
#: or a lock's combination: 3 to 5 numbers of 1-3 digits joined by '-' ('the safe combination is 12-34-56')
#: red38 (test37b T4): or groups of 4-6 digits ('the door code 5520-1199-3377')
_KEYPAD_RE = Lazy(r"[*#]?[0-9]{4,12}[*#]{0,2}|[0-9]{1,3}(?:-[0-9]{1,3}){2,4}|[0-9]{4,6}(?:-[0-9]{4,6}){1,3}", FLAGS)
COMBINATION_OWNERS = ("safe", "lock", "padlock", "locker", "vault", "lockbox")


def keypad_code_ok(v: str) -> bool:
    """The value after a keypad's or a safe's label (``door code``, ``safe combination``): a PIN
    (:func:`~.checks.pin_ok`), digits with a ``#``/``*`` key, or a combination (``12-34-56``)."""
    return pin_token_ok(v) or _KEYPAD_RE.fullmatch(v) is not None


#: red38 (test37b T19.4): a password named by one or two common words ('the wifi password is python', 'the staging
#: login password is admin', 'the new pw is tulip rain'): the person typed it as the password, so it is withheld as a
#: phrase's value; what says how a password is (an adjective, a participle, an adverb) is no value
_WORD_VALUE = (r"(?P<secret>[a-z]{3,16}+(?:[ \t][a-z]{3,16}+)?)"
               r"(?=[ \t]{0,4}(?:[.,;!?)]|\\{0,3}[\"'`]|\r|\n|\\[rn]|$)|[ \t]{1,4}(?:[\-\u2013\u2014]{1,2}|and|but)[ \t])")
_NOT_WORD_VALUES = frozenset((
    "correct valid weak strong long short fine good bad great okay ready gone available present absent broken right "
    "safe unsafe public plain different random temporary permanent static dynamic unique common obvious simple complex "
    "easy hard known old new current latest previous original generic global local shared personal important special "
    "stale fresh bogus fake dummy real actual ignored optional needed wrong same default blank secret private secure "
    "sensitive attached included below above here there inside elsewhere somewhere nowhere unchanged identical "
    "unused useless mandatory compromised leaked exposed public visible invisible".split()))
#: the default passwords that are also words of a login UI (prose_word's): 'the staging login password is admin'
_DEFAULT_WORDS = frozenset(("admin", "root", "guest", "user", "administrator", "welcome"))
_NOT_WORD_ENDS = ("ed", "ly", "ing", "able", "ible", "ful", "less", "ous", "ive")


def common_word_ok(v: str) -> bool:
    """red38 (T19.4): one or two words after 'the … password is' that name the password (``admin``, ``python``,
    ``tulip rain``): lower case or capitalised letters, no word of prose or of talk about passwords
    (:func:`~.checks.prose_word`: ``reset``, ``required``, ``the``), none saying how the password is
    (:data:`_NOT_WORD_VALUES`: ``correct``, ``weak``; a participle, an adverb or an adjective by its ending:
    ``expired``, ``missing``, ``incorrectly``, ``unusable``), not a placeholder (``changeme``); a default password
    that is also a word of a login UI (:data:`_DEFAULT_WORDS`: ``admin``, ``root``) is one."""
    words = v.split()
    if not 1 <= len(words) <= 2 or is_placeholder(v):
        return False
    for w in words:
        low = w.lower()
        if low in _DEFAULT_WORDS:
            continue
        if not (w.islower() or w[1:].islower()) or prose_word(low) or low in _NOT_WORD_VALUES or low.endswith(
                _NOT_WORD_ENDS):
            return False
    return True


#: a clause of a condition or a question ('If the password is external, …', 'whether the password is clean'): the
#: words that open one, searched in the clause before a common word's label (its start: '.', ';', ':', '!', '?', a line)
_CONDITION = Lazy(r"(?:^|[^a-z0-9_])(?:if|when|whenever|whether|unless|once|until|while|before|after|in[ \t]case)"
                  r"[ \t][^.;:!?\r\n]{0,64}\Z", FLAGS)
_scan_words = scan_at("passw", "passphrase", "pw")


def _scan_stated_word(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """red38: the common-word rule's scan (``scan_at`` of its labels), each match kept only where no word opening a
    condition stands before it in its clause (:data:`_CONDITION`: 'If the password is external, …' describes a
    case, it states no password)."""
    found: list = []
    _scan_words(rule, text, ws, we, found, low, off, at)
    for hit in found:
        p = hit[0] - off
        b = max(0, p - 80)
        if _CONDITION.search(low[b:p].rsplit("\\n", 1)[-1]) is None:
            out.append(hit)


#: red30b (test30b S13): the verb-phrase rules, in table order (spliced into ``passwords.PASSWORD_RULES``)
VERB_PHRASE_RULES: list[Rule] = [
    make_rule("password-phrase",
              "keyword heuristics (no vendor format): a password label, then within a few words a verb beyond "
              "is|was ('the db password has been changed to <token>', 'got rotated to', 'would be', 'stays', "
              "'became', 'being'), with a comma, '?' or '(' and 'it|which' between ('my github password, it is "
              "<token>', 'the db password (it is <token>)') or a relative clause ('the password that I use is "
              "<token>', 'we picked was'; red30b, test30b S13), where the token looks like a password "
              "(phrase_secret: not 'changed to meet the policy', 'would be reset by IT'); red31 (test30c T6, T14): "
              "'is now set to', 'changed -> X', \"it's X\", 'has been reset; the new one is X', a qualifier "
              "('The db password (prod) is X'), a named account's 'pass', and the secret, token and api key labels",
              _WIDE_HEAD + r"[\"'`]?(?P<secret>" + PHRASE_TOKEN_BANG + ")",
              ci=True, priority=51, check=changed_token_ok, anchors=_PW_STARTS,
              scan=with_old_and_new(scan_at(*_PW_STARTS))),
    make_rule("password-phrase",
              "keyword heuristics (no vendor format): the same heads with a quoted passphrase ('my ssh passphrase, "
              "it is \"correct horse battery\"'; red30b; quoted_phrase_ok, as after 'is|was')",
              _WIDE_HEAD + QUOTED_WORDS,
              ci=True, priority=51, check=quoted_phrase_ok, anchors=_PW_STARTS,
              scan=with_old_and_new(scan_at(*_PW_STARTS), quoted_phrase_ok)),   # (a take-back's NEW: seal34)
    make_rule("password-phrase",
              "keyword heuristics (no vendor format): the same heads with 4+ plain words to the end of the line or "
              "sentence ('the wifi password, it is correct horse battery staple'; red30b; unquoted_passphrase_ok: "
              "no word of prose, docs or talk about passwords, as after 'is|was')",
              _WIDE_HEAD + PLAIN_WORDS,
              ci=True, priority=51, check=unquoted_passphrase_ok, anchors=_PW_STARTS, scan=scan_at(*_PW_STARTS)),
    make_rule("password-phrase",
              "keyword heuristics (no vendor format): a PIN's label and the same verbs ('my pin became 4711', 'the "
              "pin code has been changed to 482913', 'the alarm passcode was reset to 482913'; red31, test30c T6), "
              "where the token is a PIN (pin_ok: 4-12 digits, or a short run of letters and digits, no GPIO pin); pin41b "
              "(test41 T4): not a board's pin nor a measure ('the pin is 4471 mm long': pinlabels.off_board)",
              _PIN_LABEL + _NEXT + _QUALIFIED + _WIDE_TAIL + r"[\"'`]?(?P<secret>" + PIN_TOKEN + ")",
              ci=True, priority=51, check=pin_ok, anchors=("pin", "passcode"),
              scan=with_old_and_new(off_board(scan_at("pin", "passcode")), pin_ok)),   # pin41b: not a measure
    make_rule("password-phrase",
              "keyword heuristics (no vendor format): the verb before a token's, a secret's or an API key's label "
              "('we rotated the api token to <token>', 'I changed the webhook secret to <token>'; red32, test31c "
              "W1), where the token looks like a password (changed_token_ok)",
              r"(?:changed|rotated|reset|updated|regenerated)[ \t]{1,4}(?:the|our|my|its|their)[ \t]{1,4}"
              r"(?:[a-z0-9_.\-]{1,24}[ \t]{1,4}){0,2}(?:api[ _-]?key|token|secret)(?:[ \t]{1,4}to|" + _FROM_OLD + r")[ \t]{1,4}[\"'`]?"
              r"(?P<secret>" + PHRASE_TOKEN_BANG + ")", ci=True, priority=51, check=changed_token_ok,
              anchors=_VERB_STARTS, scan=with_old_and_new(scan_at(*_VERB_STARTS))),
    make_rule("password-phrase",
              "keyword heuristics (no vendor format): each value of a plural password label's list of pairs "
              "('Passwords: root = X, admin = Y', 'DB passwords: prod X, staging Y'; red31: the second pair was "
              "kept), where the value looks like a password (labelled_phrase_ok)",
              _LIST_HEAD + _LIST_PAIR, ci=True, priority=51, anchors=_LIST_STARTS, scan=scan_pair_list),
    make_rule("password-phrase",
              "keyword heuristics (no vendor format): a verb of change before a password's label, 'pwd' and 'pass' "
              "too, and a quoted value of words ('we set the db password to \"blue whale 42\"'; red37, test36b "
              "T10; quoted_phrase_ok)",
              _SET_PW_HEAD + QUOTED_WORDS, ci=True, priority=51, check=_set_quoted_ok, anchors=_SET_ANCHORS,
              scan=with_old_and_new(scan_at(*_SET_VERBS), _set_quoted_ok)),
    make_rule("password-phrase",
              "keyword heuristics (no vendor format): the same with a token ('we changed the admin pass to X', 'we "
              "reset the pwd to X'; red37, test36b T10), where the token looks like a password (changed_token_ok)",
              _SET_PW_HEAD + r"[\"'`]?(?P<secret>" + PHRASE_TOKEN_BANG + ")", ci=True, priority=51,
              check=_set_value_ok, anchors=_SET_ANCHORS, scan=with_old_and_new(scan_at(*_SET_VERBS), _set_value_ok)),
    make_rule("password-phrase",
              "keyword heuristics (no vendor format): a verb of change before a PIN's label ('we set the passcode to "
              "4471', 'I changed my card pin to 4471'; red37, test36b T10), where the token is a PIN (pin_ok)",
              _SET_HEAD + _PIN_LABEL + _SET_TO + r"[\"'`]?(?P<secret>" + PIN_TOKEN + ")", ci=True, priority=51,
              check=pin_ok, anchors=("pin", "passcode"), scan=with_old_and_new(scan_at(*_SET_VERBS), pin_ok)),
    make_rule("password-phrase",
              "keyword heuristics (no vendor format): 'the pwd is \"<quoted words>\"' (red37, test36b T12: as after "
              "'password'; quoted_phrase_ok)",
              r"pwd(?<![a-z0-9_\-\]]pwd)" + PHRASE_VERB_BARE + QUOTED_WORDS, ci=True, priority=51,
              check=_set_quoted_ok, anchors=("pwd",)),
    make_rule("password-phrase",
              "keyword heuristics (no vendor format): a password named by one or two common words ('the wifi password "
              "is python', 'the staging login password is admin', 'the new pw is tulip rain'; red38, test37b T19.4) "
              "to the end of the clause, no word of prose or of how a password is (common_word_ok)",
              r"(?:passw(?<![A-Za-z0-9_\-\]]passw)(?:or)?d|passphrase(?<![A-Za-z0-9_\-\]]passphrase)|pwd?(?<![A-Za-z0-9_\-\]]pw)"
              r"(?<![A-Za-z0-9_\-\]]pwd))[ \t]{1,4}(?:is|was)(?:[ \t]{1,4}(?:now|still))?[ \t]{1,4}[\"'`]?" + _WORD_VALUE,
              ci=True, priority=51, check=common_word_ok, anchors=("passw", "passphrase", "pw"),
              scan=_scan_stated_word),
]
