"""A payment card's number and security code, and a Wi-Fi network's key in prose, for
:mod:`objstore.core.redact` (red33b, test33 T15).

A card's number with its expiry and CVV is enough to pay with it ("nothing written holds a credential"):
the number after a card's word (``my credit card is 4111 1111 1111 1111``, ``visa: 4111-…``) when its digits
pass the Luhn check (ISO/IEC 7812-1: 13 to 19 digits), and the 3 or 4 digits after ``cvv``/``cvc``
(``cvv 123``, ``CVC2: 1234``).  A Wi-Fi network's key is its password (WPA2-PSK's passphrase): ``the wifi key
is X``, and ``the wifi is called Tulip and its key is X`` (a ``key`` after ``wifi``/``wlan``/``ssid`` on the
same line, within 60 characters), where the value is shaped like a password
(:func:`~.passwords.password_token_ok`: not ``the wifi key is in the drawer``)."""

from __future__ import annotations

from objstore.core.cardnumber import card_number_ok
from objstore.core.redact.beforeword import password_token_ok
from objstore.core.redact.rule import Rule, make_rule
from objstore.core.redact.scanners import scan_at

_CARD_WORDS = ("card", "visa", "mastercard", "amex")
#: a card's word, an optional 'number'/'no'/'#', a verb or sign, then 13-19 digits in groups of 2-7 split by
#: a blank or '-' (4-4-4-4, Amex's 4-6-5)
_CARD = (r"(?:card|visa|mastercard|amex)(?![a-z0-9_])(?:[ \t]{1,4}(?:number|num|no\.?|#))?"
         r"(?:[ \t]{1,4}(?:is|was)|[ \t]{0,4}[:=#])?[ \t]{1,4}"
         r"(?P<secret>[0-9]{4}(?:[ \-]?[0-9]{2,7}){1,4}|[0-9]{13,19})(?![0-9a-z_\-])")
#: pin42 (test41 T27): the words of a card's security code, as (word, anchor): CVV/CVC, and the name printed on the
#: card's back and asked by shops ('the card's security code 447', 'SECURITY_CODE=447'; Amex's CID is 4 digits)
CVV_WORDS = ((r"cvv2?", "cvv"), (r"cvc2?", "cvc"), (r"(?<![a-z0-9])security[ _\-]?code", "security"))
#: pin42 (test41 T19): also as a key of JSON or XML ('{"cvv": "447"}', '"cvv":447', '<cvv>447</cvv>')
_CVV = (r"(?:" + "|".join(w for w, _a in CVV_WORDS) + r")(?![a-z0-9_])(?:\\{0,3}[\"'])?"
        r"(?:[ \t]{1,4}(?:code|is)|[ \t]{0,4}(?::|=>?|#|>))?[ \t]{0,4}(?:\\{0,3}[\"'])?"
        r"(?P<secret>[0-9]{3,4})(?![0-9])")
_WIFI = (r"(?:wi-?fi|wlan|ssid)(?![a-z0-9_])[^\n\r.;]{0,60}?(?<![a-z0-9_])key(?:[ \t]{1,4}(?:is|was)|[ \t]{0,4}[:=])"
         r"[ \t]{1,4}[\"'`]?(?P<secret>[^\s\"'`]{0,127}[^\s\"'`.,;:!?)\]])(?=[.,;:!?)\]]*(?:[\s\"'`]|$))")


#: the rules, placed in ``rules.RULES``
CARD_RULES: list[Rule] = [
    make_rule("payment-card",
              "a payment card's number after a card's word ('my credit card is 4111 1111 1111 1111', 'visa: "
              "4111-…'): 13-19 digits passing the Luhn check (ISO/IEC 7812-1 https://www.iso.org/standard/70484.html ; "
              "red33b, test33 T15)",
              _CARD, ci=True, priority=50, check=card_number_ok, anchors=_CARD_WORDS, scan=scan_at(*_CARD_WORDS)),
    make_rule("payment-card",
              "a card's security code after cvv/cvc ('cvv 123', 'CVC2: 1234'; pin42: 'security code 447', '{\"cvv\": \"447\"}'), which PCI DSS forbids storing "
              "https://www.pcisecuritystandards.org/ (red33b, test33 T15)",
              _CVV, ci=True, priority=50, anchors=tuple(a for _w, a in CVV_WORDS), scan=scan_at(*(a for _w, a in CVV_WORDS))),
    make_rule("password-phrase",
              "a Wi-Fi network's key ('the wifi key is X', 'the wifi is called Tulip and its key is X': 'key' after "
              "wifi|wlan|ssid within 60 characters of its line), shaped like a password (password_token_ok; red33b, "
              "test33 T15)",
              _WIFI, ci=True, priority=51, check=password_token_ok, anchors=("wifi", "wi-fi", "wlan", "ssid"),
              scan=scan_at("wifi", "wi-fi", "wlan", "ssid")),
]
