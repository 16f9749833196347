"""The words of a "remember that" statement, split from
:mod:`objstore.capture.statements` (its size), whose key rules use them: its
content words (:func:`content_words`), a possessive dropped
(:func:`unpossessive`), two statements the same but for their values
(:func:`same_but_values`), and a statement that names a secret ("Hunter2x9!
is the admin password", "4821 is my door pin": its subject is the secret,
never a key's name, test16 F12; :func:`guard_secret_subject`).

The redaction rules are imported where a statement is read, not with this
module (as ``statements``)."""

from __future__ import annotations

import re

from objstore.core.objects import normalize_value
from objstore.core.text import STATEMENT_COPULA, LazyPattern

#: the words never in a statement key's name
STOP_WORDS = frozenset("a an the is are was were be our my we i to of on in at for and that this it "
                        "there here they these those now currently still".split())   # ("there are 3 replicas", test30c T15)
#: a redaction marker in a statement
MARKER = LazyPattern(r"\[REDACTED:[^\]]*\]")
#: a word judging a value, no new one ("Actually, it's fine / correct / deprecated" after a statement stored "the
#: timeout is fine": test33b T2)
JUDGED = LazyPattern(r"^(?:correct|right|wrong|true|false|accurate|deprecated|obsolete|outdated|stale|unused|broken|"
                     r"fixed|done|same|unchanged|wip|tbd|todo|unknown|irrelevant)$", re.I)


#: the head nouns of a predicate that names a secret ("… is the admin password", "… was our door pin")
_SECRET_WORDS = frozenset("password passwd pwd pw pass passphrase passcode pin token secret key login credential "
                          "credentials".split())
#: what ends a predicate's noun phrase: an owner ("the admin password for staging")
_OWNER_WORDS = frozenset("for of on at in to from".split())
#: the marker a password-shaped subject token is replaced with (the password rules' name)
_SECRET_MARK = "[REDACTED:password-phrase]"
_TRIM = "\"'`()[]{}<>,;:.!?"


def _shaped(token: str) -> bool:
    """A token shaped like a password or a PIN: a digit, or a symbol other
    than ``-``/``_``/``.``/``'`` (``Hunter2x9!``, ``Tr0ub4dor&3``, ``4821``,
    ``pa$$word``); a word of letters (``the``, ``deploy-host``) is not."""
    t = token.strip(_TRIM)
    return bool(t) and any(c.isdigit() or not (c.isalnum() or c in "-_.'") for c in t)


def strong_token(token: str) -> bool:
    """A token that can only be a password, whatever the statement says of it:
    letters, digits and a symbol other than ``-``/``_``/``.``/``'`` together
    (``Wombat#4471``, ``Lark#5521``; not ``python3``, ``v1.2``, ``k8s``)."""
    t = token.strip(_TRIM)
    return (any(c.isalpha() for c in t) and any(c.isdigit() for c in t)
            and any(not (c.isalnum() or c in "-_.'") for c in t))


def guard_secret_subject(statement: str) -> tuple[str, bool]:
    """``(statement, named)``: a statement whose predicate's head noun names a
    secret (:data:`_SECRET_WORDS`: "Hunter2x9! is the admin password", "4821
    is my door pin"; a keypad's code, "4471 is the alarm code": red17) with every password-shaped token of its subject
    (:func:`_shaped`) replaced by ``[REDACTED:password-phrase]``, and True:
    its key is then named from the predicate (test16 F12: such a subject is
    the secret, never a key's name, and the value keeps it redacted even when
    no redaction rule takes it: ``hunter22`` alone).  Any other statement as
    it is, and False, also a pin of a board (a word of the statement names
    hardware, :func:`~objstore.core.redact.hardware_pin`: "GPIO17 is the LED
    pin", red17).  Over the statement's first copula (:data:`STATEMENT_COPULA`)."""
    m = STATEMENT_COPULA.search(f" {statement} ")
    if m is None:
        return statement, False
    cut = max(m.start() - 1, 0)
    from objstore.core.redact import PIN_CODE_OWNERS, hardware_pin  # deferred: the rules (module doc)
    pred = re.findall(r"\w+", normalize_value(statement[m.end() - 1:]))
    pred = [w for w in pred[:next((i for i, w in enumerate(pred) if w in _OWNER_WORDS), len(pred))]
            if w not in STOP_WORDS]
    if not pred or not (pred[-1] in _SECRET_WORDS or (pred[-1] == "code" and len(pred) > 1
                                                      and pred[-2] in PIN_CODE_OWNERS)):
        return statement, False
    if pred[-1] == "pin" and any(map(hardware_pin, re.findall(r"\w+", normalize_value(statement)))):
        return statement, False     # a board's pin, not a PIN: 'GPIO17 is the LED pin' (red17)
    subject = re.sub(r"\S+", lambda t: _SECRET_MARK if _shaped(t.group()) and MARKER.search(t.group()) is None
                     else t.group(), statement[:cut])
    return subject + statement[cut:], True


def content_words(statement: str) -> list[str]:
    """The statement's content words (NFC + casefold, stop words dropped),
    with every credential and redaction marker removed first."""
    from objstore.core.redact import remove_credentials  # defer: the rules (module doc)
    text = MARKER.sub(" ", remove_credentials(statement))
    return [w for w in re.findall(r"\w+", unpossessive(normalize_value(text))) if w not in STOP_WORDS]


#: a possessive ``'s`` (or ``’s``) after a word: "the api's port" names what "the api port" names (test30 R5)
POSSESSIVE = LazyPattern(r"(?<=\w)['\u2019]s\b")


def unpossessive(text: str) -> str:
    """``text`` with every possessive ``'s`` removed ("the api's port" ->
    "the api port"), so a subject said with and without it is one key."""
    return POSSESSIVE.sub("", text) if "s" in text else text


def same_but_values(held: str, statement: str) -> bool:
    """True when two statements say the same words but for their values
    (tokens holding a digit): "the api listens on port 8080" and "the api
    listens on port 9090" (test30 R5: no copula names the subject, yet the
    second restates the first).  Both need a value, the values differ and
    some other word is shared; stop words, case and a possessive aside."""
    a, b = content_words(held), content_words(statement)
    words_a = [w for w in a if not any(c.isdigit() for c in w)]
    words_b = [w for w in b if not any(c.isdigit() for c in w)]
    vals_a, vals_b = [w for w in a if w not in words_a], [w for w in b if w not in words_b]
    return bool(words_a) and words_a == words_b and bool(vals_a) and bool(vals_b) and vals_a != vals_b
