"""The pieces of a PIN's label the PIN rules of :mod:`.passwords` and :mod:`.passwordphrases` share: the owners that
make ``pin`` a PIN's word (``card pin``, ``CARD_PIN``), the word itself, an assignment to a PIN's name, the PIN's
label before a verb, and the token a PIN reads as. Split from :mod:`.passwordphrases` (39,860 B, near the
40,960-byte module limit; pin40)."""

from __future__ import annotations

from objstore.core.redact.checks import pin_ok
from objstore.core.redact.passphrases import CJK_JOIN

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
PIN_WORD = r"pin(?:(?<![A-Za-z0-9_\-\]]pin)" + "".join(f"|(?<={w}[_-]pin)" for w in PIN_OWNERS) + ")"
#: mend25: a PIN's token (:data:`PHRASE_TOKEN`) also ends before a JSON-escaped quote (``\\"4471\\"``); moved from
#: :mod:`.passwords` (red31: the PIN's verb rule below reads it too)
#: pin40 (test39b B9): or before a character of a script written without spaces ('\u6697\u8a3c\u756a\u53f7\u306f4471\u3067\u3059')
PIN_TOKEN = (r"[^\s\"'`]{0,127}?[^\s\"'`.,;:!?)\]\\]" + r"(?=[.,;:!?)\]]*(?:[\s\"'`]|\\{1,3}[\"'`]|$|["
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
PIN_JOIN = (r"(?:[=:\uff1d" + CJK_JOIN + r"]|[" + "".join(c for c in CJK_JOIN if c not in ":=\uff1a") + r"][ \t]{1,4})(?=" + DIGIT + "{4,12}(?!" + DIGIT + r"|[A-Za-z_\-]))")
#: pin40 (test39b B9): a PIN typed digit by digit ('my door code is 4 4 7 1'), 4-12 single digits one blank apart,
#: ending its clause (as a PIN with no verb does: 'pin 2 of 4' is none)
PIN_SPACED = (DIGIT + r"(?:[ \t]" + DIGIT + r"){3,11}(?=[ \t]{0,4}(?:[\"'`.,;!?)\]}]|\r|\n|\\[rn]|$|["
              + UNSPACED_END + "]))")


def pin_token_ok(v: str) -> bool:
    """The token after a PIN's or a keypad's label is a PIN: :func:`~.checks.pin_ok` (``4471``, ``kq77``), or
    4-12 decimal digits of any script (``\uff14\uff14\uff17\uff11``, ``\u0664\u0664\u0667\u0661``) or typed one blank apart
    (``4 4 7 1``, :data:`PIN_SPACED`); not ``13``."""
    if pin_ok(v):
        return True
    digits = v.replace(" ", "").replace("\t", "")
    return 4 <= len(digits) <= 12 and digits.isdecimal() and (digits == v or v[1::2].strip(" \t") == "")
