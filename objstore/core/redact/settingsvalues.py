"""Where a settings file or a command line puts a password that the keyword scan
(:func:`~.scanners.scan_generic`) would otherwise leave (red26, tester finding test25b U4 and
next to it): a value of several words running to its line's end (``APP_PASSWORD=vbqk lmzt yhrw
pxne`` in a .env), and letters alone after ``=`` mid-line (``--password=X URL``, ``PGPASSWORD=X
psql``, ``Password=X;``) or under a dotted properties key (``spring.datasource.password=X``)."""

from __future__ import annotations

from objstore.core.redact.checks import (PASSPHRASE_MAX_WORDS, cli_secret_ok, labelled_password_ok,
                                         passphrase_words_ok, random_letters)
from objstore.core.redact.literals import LINE_END
from objstore.core.redact.rule import FLAGS, Lazy

#: the words after a password value's first one up to its line's end (a multi-word value, unquoted), or to
#: a connection string field's ``;``, to the end of the JSON string that holds the line, or to a comment after
#: a blank (``PASSWORD=vbqk lmzt yhrw pxne # gmail``: a .env's unquoted value ends there)
#: (possessive: fewer words than the run never end it, so no backtracking)
WORDS_TO_END = Lazy(r"(?: [a-z]{2,16}+){1,%d}+" % (PASSPHRASE_MAX_WORDS - 1)
                    + r"(?=[ \t]{0,8}(?:\r|\n|\\{1,3}[rn]|$|;|\\{0,3}\"[ \t]{0,8}[,}\]])|[ \t]{1,8}#)", FLAGS)
#: the characters of a settings key's name (``MYSQL_``, ``spring.mail.``, ``db-``, ``--http-``) before its
#: credential keyword
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")
#: red26: the roots of a dotted name that is an object's attribute in code, not a settings key
_CODE_ROOTS = ("self.", "this.", "cls.", "obj.", "ctx.", "req.", "request.", "user.", "form.", "args.", "opts.",
               "options.", "config.", "settings.", "app.")


def settings_assign(text: str, k: int, s: int, e: int, v: str) -> bool:
    """red26: a password keyword's (at ``k`` of ``text``) value ``v`` of
    letters alone (``plumtree``, ``text[s:e]``) after ``=`` with no blank around it, where a settings file or a command
    line puts it rather than code, though the value does not end its line:
    a command's option (``wget --password=plumtree URL``,
    ``mysqldump --password=plumtree db``: :func:`cli_secret_ok`); a
    shell variable's prefix to a command (``PGPASSWORD=plumtree psql``:
    a name in capitals, the value followed by a blank); a connection
    string's field ending at ``;`` (``User Id=sa;Password=plumtree;``); a
    dotted settings key alone on its line (``spring.datasource.password=
    plumtree`` in a Java ``.properties`` file: two dots or more, not an
    object's attribute, ``self.db.password=x``).  Values with digits or
    symbols are :func:`looks_assigned`'s; letters alone ending the line
    after a plain label :func:`labelled_password_ok`'s already."""
    if text[s - 1] != "=" or text[s - 2] in " \t\"'" or not text[k:k + 6].lower().startswith(
            ("pass", "pw", "secret")):
        return False
    name = key_name(text, k, s)
    i = s - 1 - len(name)
    if name.startswith("--"):
        return len(v) >= 4 and cli_secret_ok(v)
    if not labelled_password_ok(v):
        return False
    c = text[e:e + 1]
    if c == ";":
        return "." not in name
    if c and c in " \t":
        return "." not in name and text[i:s - 1].isupper() and (
            i == 0 or text[i - 1] in " \t\r\n;(\"'" or text[i - 2:i] == "\\n")
    return settings_key(name) and LINE_END.match(text, e) is not None


def words_to_end(text: str, s: int, e: int, we: int) -> int:
    """red26: where an unquoted value of words that starts at ``s`` ends,
    when its first word's run stopped at a blank at ``e`` and the words
    (:data:`WORDS_TO_END`) run to its line's end and read as a
    passphrase (:func:`passphrase_words_ok`); else -1."""
    if e >= we or text[e] != " " or not (text[s:e].isalpha() and text[s:e].islower()):
        return -1
    w = WORDS_TO_END.match(text, e, we)
    return w.end() if w is not None and passphrase_words_ok(text[s:w.end()], quoted=False) else -1


#: a Google app password as Google shows it: 4 groups of 4 lower-case letters
_APP_PASSWORD = Lazy(r"[a-z]{4}(?: [a-z]{4}){3}", FLAGS)


def words_owner_ok(text: str, p: int, s: int, w: int) -> bool:
    """red26: an unquoted value of words (``text[s:w]``) after the keyword
    at ``p`` is a setting's, not prose after a label (``Password: incorrectly
    typed three times``): ``=`` right before it (``APP_PASSWORD=…``), or a
    name that is a settings key, the keyword after ``_``, ``-`` or ``.``
    (``MYSQL_PASSWORD: …``, ``db-password: …``) or in capitals
    (``PASSWORD: …``); or the value is a Google app password's 4 groups of 4
    letters that read as random (:func:`random_letters`: ``Password: vbqk
    lmzt yhrw pxne``, not ``must have four char``)."""
    if text[s - 1] == "=" or text[p - 1:p] in ("_", "-", ".") and text[p - 2:p - 1] in _NAME_CHARS:
        return True
    if text[p:p + 4].isupper():
        return True
    v = text[s:w]
    return _APP_PASSWORD.fullmatch(v) is not None and random_letters(v.replace(" ", ""))


def key_name(text: str, k: int, s: int) -> str:
    """The whole name (up to 64 identifier characters and dots before the
    keyword at ``k``) whose value starts at ``s`` after ``=``, lowercased."""
    i = k
    while i > 0 and k - i < 64 and text[i - 1] in _NAME_CHARS:
        i -= 1
    return text[i:s - 1].lower()


def settings_key(name: str) -> bool:
    """red26: ``name`` (lowercased, up to the ``=`` after it) is a dotted
    settings key, ``spring.datasource.password`` (two dots or more, none
    of :data:`_CODE_ROOTS`), not an object's attribute in code."""
    return name.count(".") >= 2 and not name.startswith(_CODE_ROOTS)
