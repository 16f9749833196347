"""The English phrase fragments the password rules of :mod:`.passwords` share (the verb after a label, what a
password opens, the token that ends before sentence punctuation). Split from :mod:`.passwords` (39,234 B, near the
40,960-byte module limit)."""

from __future__ import annotations

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
