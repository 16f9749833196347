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


from objstore.core.objects import normalize_value
from objstore.core.text import STATEMENT_COPULA, LazyPattern

#: the words never in a statement key's name
STOP_WORDS = frozenset("a an the is are was were be our my we i to of on in at for and that this it "
                        "there here they these those now currently still".split())   # ("there are 3 replicas", test30c T15)
#: a redaction marker in a statement
MARKER = LazyPattern(r"\[REDACTED:[^\]]*\]")
#: a statement's words, its runs of non-blank characters, the blank after a sentence's end: kept programs (a
#: prompt hook imports no ``re``: docs/benchmarks.md, "Session 39 (branch `lat39`)")
WORD_RUN = LazyPattern(r"\w+")
NONBLANK_RUN = LazyPattern(r"\S+")
SENTENCE_BREAK = LazyPattern(r"(?<=[.!?])\s")
#: a word judging a value, no new one ("Actually, it's fine / correct / deprecated" after a statement stored "the
#: timeout is fine": test33b T2)
JUDGED = LazyPattern(r"^(?:correct|right|wrong|true|false|accurate|deprecated|obsolete|outdated|stale|unused|broken|"
                     r"fixed|done|same|unchanged|wip|tbd|todo|unknown|irrelevant)$", 2)   # re.I


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
    pred = WORD_RUN.findall(normalize_value(statement[m.end() - 1:]))
    pred = [w for w in pred[:next((i for i, w in enumerate(pred) if w in _OWNER_WORDS), len(pred))]
            if w not in STOP_WORDS]
    if not pred or not (pred[-1] in _SECRET_WORDS or (pred[-1] == "code" and len(pred) > 1
                                                      and pred[-2] in PIN_CODE_OWNERS)):
        return statement, False
    if pred[-1] == "pin" and any(map(hardware_pin, WORD_RUN.findall(normalize_value(statement)))):
        return statement, False     # a board's pin, not a PIN: 'GPIO17 is the LED pin' (red17)
    subject = NONBLANK_RUN.sub(lambda t: _SECRET_MARK if _shaped(t.group()) and MARKER.search(t.group()) is None
                               else t.group(), statement[:cut])
    return subject + statement[cut:], True


def content_words(statement: str) -> list[str]:
    """The statement's content words (NFC + casefold, stop words dropped),
    with every credential and redaction marker removed first."""
    from objstore.core.redact import remove_credentials  # defer: the rules (module doc)
    text = MARKER.sub(" ", remove_credentials(statement))
    return [w for w in WORD_RUN.findall(unpossessive(normalize_value(text))) if w not in STOP_WORDS]


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
    second restates the first); an old value named after the new one aside
    (:func:`without_old`: "… postgres 16, not 15" restates "… postgres 15", test33b T14).  Both need a value, the values differ and
    some other word is shared; stop words, case and a possessive aside."""
    a, b = content_words(without_old(held)), content_words(without_old(statement))
    words_a = [w for w in a if not any(c.isdigit() for c in w)]
    words_b = [w for w in b if not any(c.isdigit() for c in w)]
    vals_a, vals_b = [w for w in a if w not in words_a], [w for w in b if w not in words_b]
    return bool(words_a) and words_a == words_b and bool(vals_a) and bool(vals_b) and vals_a != vals_b


#: the old value named after a statement's new one ("…, not 8080", "— not prod", "(not 15)", "instead of 15"):
#: no part of the value (test33b T1, T14)
_NOT_OLD = LazyPattern(r"(?:\s*[,;(]|\s+-+|\s*[\u2014\u2013])\s*(?:and\s+)?(?:not|instead\s+of|rather\s+than)\s+"
                       r"[^\s,;.!?()]+(?:\s+[^\s,;.!?()]+)?\s*\)?[\s.!]*$", 2)   # re.I
#: a request after a statement's value ("… 8080 and update the config", ", then run the tests", "; please restart
#: the worker", " so use that in the mailer", " if that's ok"), read in its predicate only (test33b T7)
#: a request's separator and asking words after a statement (", can you", "; please", " and could you", " - also
#: please": test37b T1): one
#: prefix for :data:`_REQUEST` and ``statements._ASK_AFTER``
ASK_LEAD = (r"(?:\s*[,;]|\s+-+|\s*[\u2014\u2013]|\s+(?=and\s))\s*(?:(?:and|so|then|now)\s+)?(?:also\s+)?"
            r"(?:(?:can|could|would|will)\s+you|please|pls)\b")
_REQUEST = LazyPattern(r"(?:" + ASK_LEAD +
                       r"|(?:\s*,)?\s+(?:and\s+(?:then\s+)?|then\s+|so\s+)(?:please\s+)?(?:update|run|fix|restart|use|add|change|"
                       r"set|make|deploy|commit|push|check|rebuild|bump|edit|write|remove|delete|create|install|reload|"
                       r"rerun|apply)\b(?!\s+(?:is|are|was|were|=)\b)"
                       r"|\s+if\s+that[\u2019']?s\s+(?:ok|okay|fine|alright|all\s+right)\b).*$", 18)   # re.I | re.S
#: what a take-back's new value says after it ("q2 now", "emacs, sorry", "b2 actually"), and the old one taken back
#: before it ("it's not ruff, it's flake8")
_AFTER_NEW = LazyPattern(r"(?:\s*,?\s+(?:now|sorry|then|instead|actually|though|i\s+mean(?:t)?))+[\s.!]*$", 2)   # re.I
_NOT_FIRST = LazyPattern(r"^\s*(?:it[\u2019']s\s+|it\s+is\s+)?not\s+[^\s,;]+\s*[,;]\s*", 2)   # re.I
#: a correction with the value first ("Correction: mq2 is the host", "10.0.0.2 for the lb ip": test33b T17)
_INVERTED = LazyPattern(r"^\s*(?P<v>[^\s,;]+)\s+(?:is|are|was|for|as)\s+(?P<s>[^.!?;,]+?)[\s.!]*$", 2)   # re.I


def without_old(statement: str) -> str:
    """``statement`` without an old value named after its new one (:data:`_NOT_OLD`: "the db runs postgres
    16, not 15" -> "the db runs postgres 16")."""
    return _NOT_OLD.sub("", statement, count=1) if "not" in statement or "instead" in statement \
        or "rather" in statement else statement


def without_request(statement: str) -> str:
    """``statement`` without a request after its value (:data:`_REQUEST`: "the api port is 8080 and update the
    config" -> "the api port is 8080"), looked for after its first copula only (:data:`STATEMENT_COPULA`)."""
    m = STATEMENT_COPULA.search(f" {statement} ")
    if m is None:
        return statement
    at = max(m.end() - 2, 0)
    return statement[:at] + _REQUEST.sub("", statement[at:], count=1)


def taken_value(statement: str, fix: str, *backs) -> str:
    """What a take-back after ``statement`` says as the new value, for
    ``statements._corrected``: the last of several take-backs (``backs``,
    the patterns that find one: "it's 200. Actually, it's 300" -> "it's
    300"), its first sentence, without the old value named again ("8081, not
    8080", "not ruff, it's flake8"), a request or a word after it ("q2 now",
    "emacs, sorry"); or, said value first, the value when the rest names the
    statement's subject ("mq2 is the host" after "the mq host is mq1" ->
    "mq2"), test33b T1, T15, T17.  A string, maybe ``fix`` itself."""
    for _ in range(4):
        m = next((m for b in backs if (m := b.search(fix, 1)) is not None), None)
        if m is None:
            break
        after = fix[m.end():].strip()
        fix = after if after else fix[:m.start()]
    fix = SENTENCE_BREAK.split(fix.strip(), maxsplit=1)[0]
    fix = _AFTER_NEW.sub("", without_old(_NOT_FIRST.sub("", fix, count=1)), count=1)
    fix = _REQUEST.sub("", fix, count=1)
    if (inv := _INVERTED.match(fix)) is not None and (c := STATEMENT_COPULA.search(f" {statement} ")) is not None:
        said = set(content_words(inv.group("s")))
        if said and said <= set(content_words(statement[:max(c.start() - 1, 0)])):
            return inv.group("v")
    return fix
