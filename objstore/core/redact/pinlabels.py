"""The pieces of a PIN's label the PIN rules of :mod:`.passwords` and :mod:`.passwordphrases` share: the owners that
make ``pin`` a PIN's word (``card pin``, ``CARD_PIN``), the word itself, an assignment to a PIN's name, the PIN's
label before a verb, and the token a PIN reads as. Split from :mod:`.passwordphrases` (39,860 B, near the
40,960-byte module limit; pin40)."""

from __future__ import annotations

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
PIN_TOKEN = r"[^\s\"'`]{0,127}?[^\s\"'`.,;:!?)\]\\]" + r"(?=[.,;:!?)\]]*(?:[\s\"'`]|\\{1,3}[\"'`]|$))"
#: red31 (test30c T6, red30b's left-out): a PIN's label ('my pin became 4711', 'the pin code has been changed to
#: 482913'), its token a PIN (4-12 digits, or a short one of letters and digits: pin_ok)
PIN_LABEL = (r"(?:pin(?<![A-Za-z0-9_\-\]]pin)(?:(?:[ \t]{1,4}|[_\-]?)(?:code|number))?"
              r"|passcode(?<![A-Za-z0-9_\-\]]passcode))s?")
