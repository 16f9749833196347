"""The key a "remember that …" statement is written under
(:func:`statement_key`; ``objstore.capture.statements``' module doc says
how a key is named and when a statement is its key's next version).
Split from ``statements`` (session 34) with the subject rules it grew."""

from __future__ import annotations

import re

from objstore.core.ids import sha256   # not hashlib: OpenSSL's load costs the prompt hook 2.5-4 ms
from objstore.core.objects import normalize_value
from objstore.core.refs import fact_ref
from objstore.core.store import Store
from objstore.core.text import STATEMENT_COPULA, LazyPattern
from objstore.capture.statementwords import (MARKER as _MARKER, STOP_WORDS as _STOP, content_words as _content_words,
                                             guard_secret_subject, same_but_values as _same_but_values, strong_token,
                                             unpossessive as _unpossessive)

# ("now", "currently", "still": "the db password now is X" was keyed db-password-now, a credential's key
#  the key-name rule did not know: test32b Y3)
#: the stop words of the keys stores written before session 32 hold ("the db now runs postgres 15" was keyed
#: db-now-runs): a statement of the same subject said after the upgrade goes on in that key (test32b Y18)
_STOP_BEFORE = _STOP - {"now", "currently", "still"}


#: what ends a statement's subject: a copula or an assignment ("the deploy host is …", "port = …"), or a verb
#: of change ("… has (just) been changed to …", "… has changed to …", "… changed from O to …", "… has become …":
#: the subject is the thing changed, never "deploy host has", test31c W11)
_COPULA = STATEMENT_COPULA


def named(statement: str, stop: frozenset = _STOP) -> tuple[list[str], bool]:
    """``(words, of its subject)``: the words a statement's key is named from
    and whether they are its subject's (the copula case, not a secret's
    predicate nor the first three words).  The words: the content words of its
    subject, the part before its first ``is``/``are``/``was``/``were``,
    ``=`` or ``:`` ("the deploy host is walrus-orchid-77": ``deploy``,
    ``host``), at most six; a statement with no such word, or with no
    content word before it ("ghp_… is the deploy token", the credential
    removed), its first three content words.  A token only a password has the
    shape of (:func:`_strong`) is never one of them (test16b B1).  ``stop``: the
    words never in a name (:data:`_STOP_BEFORE`: as keys were named before)."""
    statement, secret = guard_secret_subject(statement)
    statement = re.sub(r"\S+", lambda t: " " if strong_token(t.group()) else t.group(), statement)   # never a key's name
    from objstore.core.redact import remove_credentials  # deferred: the rules (module doc)
    text = _unpossessive(normalize_value(_MARKER.sub(" ", remove_credentials(statement))))
    m = _COPULA.search(f" {text} ")
    if m is not None and secret:
        return [w for w in re.findall(r"\w+", text[m.end() - 1:]) if w not in stop][:6], False
    if m is not None:
        subject = [w for w in re.findall(r"\w+", text[:max(m.start() - 1, 0)]) if w not in stop]
        if subject:
            return subject[:6], True
    return [w for w in re.findall(r"\w+", text) if w not in stop and not w.isdigit()][:3], False


#: a predicate naming an attribute of its subject, not its value: "is written in go", "was built with bazel"
#: (a participle and a preposition); a statement of another attribute ("the api has moved to k8s") is no next
#: version of it (test32b Y10); where a thing is (hosted, deployed, located, run on …) is its value
_ATTRIBUTE = LazyPattern(r"\s(?:is|are|was|were)\s+(?:(?:also|now|still|currently|mostly|all|entirely)\s+)?"
                         r"(?!(?:hosted|deployed|located|based|stored|served|installed|mounted|moved|migrated)\s)"
                         r"(?P<verb>\w+(?:ed|en)|built|made|kept|held|run|written|sold)\s+"
                         r"(?:in|with|by|under|using|against|for)\s", re.I)


def attribute(statement: str) -> str:
    """The attribute a statement's predicate names (:data:`_ATTRIBUTE`'s
    participle, casefolded: "written"), "" for its value."""
    padded = f" {statement} "
    m = _COPULA.search(padded)
    a = _ATTRIBUTE.match(padded, m.start()) if m is not None else None
    return a.group("verb").casefold() if a is not None else ""


def statement_key(statement: str, project: str | None, store: Store | None = None, update: bool = True) -> str:
    """The key a statement is written under (module doc): named from its
    subject (:func:`named`), never holds a credential.  With
    ``store``: when that key holds a different statement, the key with a
    hash suffix (distinct statements, distinct keys), unless ``update`` and
    both statements name the same subject (:func:`named`: "the shop deploy
    day is Thursday" after "… is Friday", test29 P16) or say the same words
    but for their values (:func:`_same_but_values`): then the key itself,
    the new statement its next version.  A statement whose key holds
    nothing goes on in the key a store written before session 32 named it
    (:data:`_STOP_BEFORE`), when that key holds the same subject or the same
    words (test32b Y18: the old value stayed current beside the new).
    A statement of a subject whose ``remembered/`` key holds nothing, in a
    scope whose key of that name (``project/acme/db-port`` for "the db
    port is 6543") holds a value, is that key's next version (``update``;
    design.md "Ranking facts" rule 5 treats both keys as one name; test33
    T22: the person's later word was written beside the older value, which
    ``mem get`` and recall's first hit kept serving)."""
    words = _content_words(statement)
    scope = f"project/{project}" if project else "user"
    name, of_subject = named(statement)
    key = f"{scope}/remembered/{'-'.join(name or ['note'])[:120]}"
    if store is None:
        return key
    head = store.refs.read(fact_ref(key))
    if head is None and update and of_subject:
        plain = f"{scope}/{'-'.join(name)[:120]}"
        if store.refs.read(fact_ref(plain)) is not None:
            return plain                 # the scope's own key of that name: the statement its next version
    if head is None:
        before, of_before = named(statement, _STOP_BEFORE)
        old = f"{scope}/remembered/{'-'.join(before or ['note'])[:120]}"
        was = store.refs.read(fact_ref(old)) if old != key else None
        if was is None or not update:
            return key
        held = getattr(store.get(was), "body", "") or ""
        if _content_words(held) == words or (of_before and named(held, _STOP_BEFORE) == (before, True)) \
                or _same_but_values(held, statement):
            return old
        return key
    held = getattr(store.get(head), "body", "") or ""
    if _content_words(held) == words:
        return key                       # the same statement again: its key
    if update and of_subject and named(held) == (name, True) and attribute(held) == attribute(statement):
        return key                       # a new value of the same subject: its next version
    if update and _same_but_values(held, statement):
        return key                       # the same words, another value ("… listens on port 9090"): its next version
    return f"{key}-{sha256(' '.join(words).encode('utf-8')).hexdigest()[:8]}"
