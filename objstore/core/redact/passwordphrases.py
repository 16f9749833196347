"""The English phrase fragments the password rules of :mod:`.passwords` share (the verb after a label, what a
password opens, the token that ends before sentence punctuation), and the verb-phrase rules that use them beyond
'is|was' (red30b, test30b S13): 'the db password has been changed to X', 'got rotated to X', 'my github password,
it is X', 'the db password (it is X)', 'the password that I use is X', 'the password would be X', 'stays X',
'became X'. Split from :mod:`.passwords` (39,234 B, near the 40,960-byte module limit); the rules are spliced into
``PASSWORD_RULES`` after its first rule, so the table's order is the one place that decides a tie."""

from __future__ import annotations

from objstore.core.redact.checks import phrase_secret_bang_ok, quoted_phrase_ok, unquoted_passphrase_ok
from objstore.core.redact.rule import Rule, make_rule
from objstore.core.redact.scanners import scan_at

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
PHRASE_COLON = r"[ \t]{0,4}:[ \t]{1,4}[\"'`]?"     # 'the password for the staging box: X'
PHRASE_TOKEN = r"[^\s\"'`]{0,127}?[^\s\"'`.,;:!?)\]]" + r"(?=[.,;:!?)\]]*(?:[\s\"'`]|$))"
# the same, greedy, and a trailing ``!`` kept with the token (German ``... lautet Geheim123!``)
PHRASE_TOKEN_BANG = r"[^\s\"'`]{0,127}[^\s\"'`.,;:?)\]]" + r"(?=[.,;:?)\]]*(?:[\s\"'`]|$))"

#: red30b: a password label ('password', 'passwd', 'passphrase', plural too), each alternative starting with its
#: literal (searched in C), not the tail of a longer name ('db_password', 'x-password')
_VERB_LABEL = (r"(?:passw(?<![A-Za-z0-9_\-\]]passw)(?:or)?d|passphrase(?<![A-Za-z0-9_\-\]]passphrase))s?")
#: red30b: what may stand between the label and its verb: a comma, '?' or '(' and 'it|which|that' ('my github
#: password, it is X', 'the root password? it is X', 'the db password (it is X)'), or a relative clause of a
#: pronoun and one or two words ('the password that I use is X', 'the password we picked was X')
_VERB_BETWEEN = (r"(?:[ \t]{0,4}[,?(][ \t]{0,4}(?:it|which|that)"
                 r"|[ \t]{1,4}(?:(?:that|which)[ \t]{1,4})?(?:i|we|you|they|he|she)(?:[ \t]{1,4}[a-z]{2,12}){1,2})")
#: red30b: the verbs beyond PHRASE_VERB's 'is|was': 'be|being|became|becomes|stays|stayed|remains', a modal and
#: 'be' ('would be', 'will be', 'should be'), and '(has been|was|is|got|gets|been) (changed|rotated|reset|set|
#: updated) to'; then an optional ',' or ':' ('the db password is, X')
_VERB_WIDE = (r"[ \t]{1,4}(?:(?:(?:has|have|had)[ \t]{1,4}been|was|were|is|are|got|gets|been)[ \t]{1,4}"
              r"(?:changed|rotated|reset|set|updated)[ \t]{1,4}to"     # first: a check refuses 'reset', not backtracks
              r"|(?:would|will|should|shall|must|could|might|can|may)[ \t]{1,4}be"
              r"|is|was|be|being|became|becomes|stays|stayed|remains|remained)"
              r"[ \t]{0,4}[,:]?[ \t]{1,4}")
#: a passphrase's value after a verb: quoted words ('is "correct horse battery"', quoted_phrase_ok) or 4-10 plain
#: words to the end of the line or sentence ('is correct horse battery staple', unquoted_passphrase_ok)
QUOTED_WORDS = r"(?P<q>[\"'`])(?P<secret>[^\"'`\n\r]{4,128})(?P=q)"
PLAIN_WORDS = (r"(?P<secret>[a-z0-9]{2,24}+(?:[ \t]{1,2}[a-z0-9]{2,24}+){3,9})"
               r"(?=[ \t]{0,4}(?:[\"'`,;.!?]|\r|\n|\\[rn]|$))")
_WIDE_HEAD = _VERB_LABEL + r"(?:" + PHRASE_OWNER + r")?(?:" + _VERB_BETWEEN + r")?" + _VERB_WIDE

#: red30b (test30b S13): the verb-phrase rules, in table order (spliced into ``passwords.PASSWORD_RULES``)
VERB_PHRASE_RULES: list[Rule] = [
    make_rule("password-phrase",
              "keyword heuristics (no vendor format): a password label, then within a few words a verb beyond "
              "is|was ('the db password has been changed to <token>', 'got rotated to', 'would be', 'stays', "
              "'became', 'being'), with a comma, '?' or '(' and 'it|which' between ('my github password, it is "
              "<token>', 'the db password (it is <token>)') or a relative clause ('the password that I use is "
              "<token>', 'we picked was'; red30b, test30b S13), where the token looks like a password "
              "(phrase_secret: not 'changed to meet the policy', 'would be reset by IT')",
              _WIDE_HEAD + r"[\"'`]?(?P<secret>" + PHRASE_TOKEN_BANG + ")",
              ci=True, priority=51, check=phrase_secret_bang_ok, anchors=("passw", "passphrase"),
              scan=scan_at("passw", "passphrase")),
    make_rule("password-phrase",
              "keyword heuristics (no vendor format): the same heads with a quoted passphrase ('my ssh passphrase, "
              "it is \"correct horse battery\"'; red30b; quoted_phrase_ok, as after 'is|was')",
              _WIDE_HEAD + QUOTED_WORDS,
              ci=True, priority=51, check=quoted_phrase_ok, anchors=("passw", "passphrase"),
              scan=scan_at("passw", "passphrase")),
    make_rule("password-phrase",
              "keyword heuristics (no vendor format): the same heads with 4+ plain words to the end of the line or "
              "sentence ('the wifi password, it is correct horse battery staple'; red30b; unquoted_passphrase_ok: "
              "no word of prose, docs or talk about passwords, as after 'is|was')",
              _WIDE_HEAD + PLAIN_WORDS,
              ci=True, priority=51, check=unquoted_passphrase_ok, anchors=("passw", "passphrase"),
              scan=scan_at("passw", "passphrase")),
]
