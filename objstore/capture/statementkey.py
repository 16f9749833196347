"""The key a "remember that …" statement is written under
(:func:`statement_key`; ``objstore.capture.statements``' module doc says
how a key is named and when a statement is its key's next version).
Split from ``statements`` (session 34) with the subject rules it grew."""

from __future__ import annotations

import os
import unicodedata

from objstore.core.ids import sha256   # not hashlib: OpenSSL's load costs the prompt hook 2.5-4 ms
from objstore.core.objects import is_lost_stub, normalize_value
from objstore.core.refnames import unescape_name
from objstore.core.refs import PACKED_FACTS, fact_ref, sealed_ref
from objstore.core.store import Store
from objstore.core.text import KEY_ABBREVIATIONS, STATEMENT_CHANGED_TO, STATEMENT_COPULA, LazyPattern
from objstore.capture.statementwords import (MARKER as _MARKER, NONBLANK_RUN, STOP_WORDS as _STOP, WORD_RUN,
                                             content_words as _content_words, guard_secret_subject,
                                             same_but_values as _same_but_values, strong_token,
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


def named(statement: str, stop: frozenset = _STOP, verbs: bool = True) -> tuple[list[str], bool]:
    """``(words, of its subject)``: the words a statement's key is named from
    and whether they are its subject's (the copula case, not a secret's
    predicate nor the first three words).  The words: the content words of its
    subject, the part before its first ``is``/``are``/``was``/``were``,
    ``=`` or ``:`` ("the deploy host is walrus-orchid-77": ``deploy``,
    ``host``), at most six; a statement with no such word, or with no
    content word before it ("ghp_… is the deploy token", the credential
    removed), its first three content words.  A token only a password has the
    shape of (:func:`_strong`) is never one of them (test16b B1).  ``stop``: the
    words never in a name (:data:`_STOP_BEFORE`: as keys were named before).
    A statement with no copula is named by its subject and verb
    (:func:`_verb_named`), unless ``verbs`` is False (as before session 34).
    Since session 35 (not with ``verbs`` False nor another ``stop``): a
    change said by who made it by the thing changed
    (:func:`_changed_subject`), a name-first statement of a role by the
    role (:func:`_role_named`)."""
    statement, secret = guard_secret_subject(statement)
    said = statement
    # never a key's name
    statement = NONBLANK_RUN.sub(lambda t: " " if strong_token(t.group()) else t.group(), statement)
    from objstore.core.redact import remove_credentials  # deferred: the rules (module doc)
    text = _unpossessive(normalize_value(_MARKER.sub(" ", cleaned := remove_credentials(statement))))
    if verbs and stop is _STOP and not secret:   # (named so since session 35; keys of older stores go on: _STOP_BEFORE)
        if (changed := _changed_subject(text, stop)) is not None or (
                (statement != said or cleaned is not statement or _MARKER.search(cleaned))
                and (changed := _changed_subject(_SECRET_VALUE_RE.sub(r"to 0secret\1", text), stop)) is not None):
            # ("we set the db password to <secret>": the value removed is the password's next one, test35b T11)
            return changed, True   # "we upgraded node to 20": node version (test35 T4)
        if (role := _role_named(statement, stop)) is not None:
            return role, True      # "Bob is the on-call engineer now": the on-call engineer (test35 T8)
    m = _COPULA.search(f" {text} ")
    if m is not None and secret:
        return [w for w in WORD_RUN.findall(text[m.end() - 1:]) if w not in stop][:6], False
    if m is not None:
        subject = [w for w in WORD_RUN.findall(text[:max(m.start() - 1, 0)]) if w not in stop]
        if subject:
            return subject[:6], True
    elif verbs and stop is _STOP and (verb := _verb_named(WORD_RUN.findall(text))) is not None:
        return verb, True   # "the db runs postgres 15": db, runs (test33b T3; before session 34 db-runs-postgres)
    return [w for w in WORD_RUN.findall(text) if w not in stop and not w.isdigit()][:3], False


#: a statement that ends at "to" once its credential is removed ("we rotated the db password to  .")
_SECRET_VALUE_RE = LazyPattern(r"\bto\s*([.!]?)\s*$")


#: where a statement goes on with another of its own subject: "… on port 5432 and the deploy day is Tuesday",
#: "…; the cache is redis", "…, and we deploy on Fridays" (a determiner or a pronoun opens the second)
_JOIN = LazyPattern(r"(?:\s*;\s*|,?\s+and\s+(?:also\s+)?|,\s+(?:also\s+)?)(?=(?i:the|our|my|their|your|its|we)\s"
                    r"|[A-Z][^\W\d_]*(?:\s+[A-Z][^\W\d_]*)?\s+(?:is|are)\s+(?:the|our)\s)")
#: a word making what follows it a condition or a reason, not a statement of its own ("… if the flag is set and
#: the cache is warm")
_CONDITION = frozenset("if when unless because while whether since until once after before as so".split())


def clauses(statement: str) -> list[str]:
    """The statements ``statement`` joins, in order: split where a part
    naming its subject (:func:`named`: a copula, a verb of
    :data:`_VERBS`, a change said by who made it) is followed by ``and``,
    ``;`` or ``,`` and another part naming its own ("our staging database
    runs on port 5432 and the deploy day is Tuesday": two facts, each
    under its key, not one named after the first one's value: test35 T1,
    T5); ``[statement]`` when it states one thing ("we use pnpm and
    vitest", "the db host and the cache host are pg-3", "… if the flag is
    set and the cache is warm")."""
    out: list[str] = []
    start = 0
    for m in _JOIN.finditer(statement):
        if m.start() <= start:
            continue
        left, right = statement[start:m.start()], statement[m.end():]
        if _quoted(statement, m.start()):
            continue
        if _CONDITION.intersection(WORD_RUN.findall(left.casefold())) or not _states(left) \
                or not _states(_JOIN.split(right, 1)[0]):
            continue
        out.append(left.strip())
        start = m.end()
    return [*out, statement[start:].strip()] if out else _changes(statement)


#: where a change said by who made it goes on with another thing changed: "… Node to 20 and Python to 3.12"
_CHANGE_NEXT = LazyPattern(r",\s*(?:and\s+)?|\s+and\s+")


def _changes(statement: str) -> list[str]:
    """The changes one "we <verb> …" statement lists, each said whole:
    "we upgraded Node to 20 and Python to 3.12" -> "we upgraded Node to
    20", "we upgraded Python to 3.12" (test35b T12: one fact
    ``upgraded-node-python`` moved neither version); ``[statement]`` unless
    every part is a change of its own (:func:`_changed_subject`: "we bumped
    the replica count to 5 and the timeout to 30" is two, "we set the
    timeout to 30 and restarted it" one), none inside quotes."""
    parts = [x for x in _CHANGE_NEXT.split(statement) if x]
    if len(parts) < 2 or len(parts) > 8 or (m := STATEMENT_CHANGED_TO.match(normalize_value(parts[0]))) is None \
            or any(_quoted(statement, at.start()) for at in _CHANGE_NEXT.finditer(statement)):
        return [statement]
    head = parts[0][:m.end("verb")]
    out = [parts[0].strip(), *(f"{head} {x.strip()}" for x in parts[1:])]
    return out if all(_changed_subject(normalize_value(x), _STOP) for x in out) else [statement]


#: a quote opening a word (``'``, ``‘`` after a blank or at the start), and one closing it (``'``, ``’``)
_QUOTE_OPENS = LazyPattern(r"(?:^|\s)['\u2018]\w")
_QUOTE_CLOSES = LazyPattern(r"\w['\u2019](?:\s|$|[,.;:!?])")


def _quoted(text: str, at: int) -> bool:
    """Whether position ``at`` of ``text`` is inside quotes (an odd count of
    ``"`` or a backtick before it, an opening curly quote not closed, or a
    single quote opening a word not closed)."""
    before = text[:at]
    if before.count('"') % 2 or before.count("`") % 2 or before.count("\u201c") > before.count("\u201d"):
        return True
    return len(_QUOTE_OPENS.findall(before)) > len(_QUOTE_CLOSES.findall(before))


def _states(part: str) -> bool:
    """Whether ``part`` states a fact of its own subject (:func:`named`), or is a
    "we/I <verb> …" statement of a verb of :data:`_VERBS`."""
    if named(part)[1]:
        return True
    words = WORD_RUN.findall(part.casefold())
    return len(words) > 2 and words[0] in _PRONOUNS and words[1] in _VERB_FORMS


#: a statement naming who or what holds a role, the name first ("Bob is the on-call engineer now", "Postgres is
#: our database"): the role is what it is about, as in "the on-call engineer is Alice" (test35 T8); a name of
#: letters only ("GPIO17 is the LED pin" keeps its key, gpio17)
_ROLE = LazyPattern(r"^\s*(?P<name>[A-Z][^\W\d_]*(?:['\u2019-][^\W\d_]+)*(?:\s+[A-Z][^\W\d_]*)?)\s+(?:is|are)\s+"
                    r"(?:(?:now|currently|still)\s+)?(?:the|our)\s+(?P<role>[^\d,;:=()]+?)"
                    r"(?:\s+(?:now|currently|still|again|these\s+days|from\s+now\s+on))?[.!]?\s*$")
#: what opens a sentence without naming anyone ("It is the default", "This is the api")
_NOT_NAMES = frozenset("the our my this their your its a an we i they you it that there here he she these those what "
                       "who".split())


def _role_named(statement: str, stop: frozenset) -> list[str] | None:
    """The words of the role a name-first statement gives (:data:`_ROLE`:
    ``on, call, engineer`` less ``stop``), at most five, or None (another
    statement, a role holding a copula)."""
    m = _ROLE.match(statement)
    if m is None or m.group("name").split()[0].casefold() in _NOT_NAMES:
        return None
    role = normalize_value(m.group("role"))
    if _COPULA.search(f" {role} ") is not None:
        return None
    words = [w for w in WORD_RUN.findall(_unpossessive(role)) if w not in stop]
    return words if 0 < len(words) <= 5 else None


def _changed_subject(text: str, stop: frozenset) -> list[str] | None:
    """The subject of a change said by who made it (``core.text.STATEMENT_CHANGED_TO``:
    "we bumped the replica count to 5" -> ``replica, count``), with
    ``version`` after an upgrade or a downgrade ("we upgraded node to 20" ->
    ``node, version``: what "the node version is 18" names); a new value
    of another verb holds a number ("… to 5", "… to 50 mb"; "we switched
    the db to read-only" sets a mode, test35b T8); None for another
    statement.  ``text``: normalized (NFC + casefold)."""
    m = STATEMENT_CHANGED_TO.match(text)
    if m is None:
        return None
    if m.group("verb") not in ("upgraded", "downgraded") and not any(c.isdigit() for c in text[m.end("what"):]):
        return None   # "we switched the db to read-only": a mode, another attribute of the db (test35b T8)
    what = [w for w in WORD_RUN.findall(m.group("what")) if w not in stop]
    if not what:
        return None
    if m.group("verb") in ("upgraded", "downgraded") and what[-1] != "version":
        what.append("version")
    return what[:6]


#: the verbs a statement without a copula names its subject by ("the db runs postgres 15", "the api listens on
#: port 8080", "we deploy on Thursdays"): its key is the subject and the verb, not the value (test33b T3)
_VERBS = ("run use listen live sit point talk connect deploy ship host serve store target depend require need "
          "support read write send call return expire take start end own handle build release prefer speak log "
          "publish push pull hold keep rotate default expect accept bind resolve route meet work go back cost "
          "contain mean stand happen sync fetch load lock timeout retry").split()
#: a verb's form -> True for the third person ("runs"), False for the bare form ("run")
_VERB_FORMS: dict[str, bool] = {**{v: False for v in _VERBS},
                                **{v + ("es" if v.endswith(("sh", "ch", "s", "x", "o")) else "s"): True for v in _VERBS}}
#: verbs of which one subject holds many values at once ("the api uses fastapi" and "… uses redis", "we use pnpm" and
#: "… vitest", "I prefer tabs" and "… dark mode"): a second value is another fact, so the value stays in the key
#: (the key is named as before session 34); a verb of :data:`_VERBS` not here holds one value ("the db runs mysql 8"
#: replaces "… postgres 15")
_MANY = frozenset(("use need require support depend prefer speak contain take handle own build read write send call "
                   "return publish push pull hold keep expect accept mean stand happen work fetch load talk store log "
                   "lock serve host connect").split())
_PRONOUNS = frozenset("we i they you".split())
_DETERMINERS = frozenset("the our my this their your its a an".split())
#: words between a subject and its verb that are no part of either ("the db now runs …")
_ADVERBS = frozenset("now currently still also only always usually mostly all just".split())
#: where a fact holds, named after "in" ("the api listens on port 9090 in staging"): another fact than the same
#: statement without it, so part of its key
_WHERE = frozenset("staging stage prod production dev development test testing qa local preview sandbox".split())
#: what no subject holds: a statement whose verb comes after one is not read by its verb
_NOT_SUBJECT = frozenset("and or if when that which who whose where because but so then".split())


def _base(verb: str) -> str:
    """The bare form of a verb of :data:`_VERB_FORMS` ("runs" -> "run", "pushes" -> "push", "run" -> "run")."""
    if _VERB_FORMS.get(verb) is not True:
        return verb
    return verb[:-2] if verb.endswith("es") and verb[:-2] in _VERB_FORMS else verb[:-1]


def _verb_named(words: list[str]) -> list[str] | None:
    """A copula-free statement's name by its subject and verb (:data:`_VERBS`,
    the word as said): ``the db (now) runs postgres 15`` -> ``db, runs``; ``we
    deploy on Thursdays`` -> ``we, deploy``; with the purpose a "for"/"as"
    after the value names (``we use black for formatting`` -> ``we, use,
    formatting``: another purpose is another fact), and where it holds
    (:data:`_WHERE`: ``… on port 9090 in staging`` -> ``api, listens, staging``).  ``words``: the
    statement's words, normalized.  None when no verb follows a subject of
    at most six words (the first three content words name it, as before)."""
    i = 0
    while i < len(words) and words[i] in _DETERMINERS:
        i += 1
    if i >= len(words):
        return None
    pronoun = words[i] in _PRONOUNS
    subject = [words[i]] if pronoun else []
    for k in range(i + 1 if pronoun else i, min(len(words), i + 8)):
        w = words[k]
        if w in _ADVERBS and (subject or pronoun):
            continue
        third = _VERB_FORMS.get(w)
        if third is not None and subject and (third or pronoun or subject[-1].endswith("s")):
            if pronoun or _base(w) in _MANY:   # "we deploy to fly" and "we deploy on Thursdays"; "uses": many values
                return None
            name = [x for x in subject if pronoun or x not in _STOP] + [w]
            rest = words[k + 1:]
            for at, x in enumerate(rest):
                if x in ("for", "as"):
                    name += [y for y in rest[at + 1:at + 4] if y not in _STOP and not any(c.isdigit() for c in y)]
                    break
            name += [y for x, y in zip(rest, rest[1:]) if x == "in" and y in _WHERE][:1]
            return name[:6] if len(name) > 1 else None
        if pronoun or w in _NOT_SUBJECT or any(c.isdigit() for c in w) or len(subject) >= 6:
            return None
        subject.append(w)
    return None


#: a predicate naming an attribute of its subject, not its value: "is written in go", "was built with bazel"
#: (a participle and a preposition); a statement of another attribute ("the api has moved to k8s") is no next
#: version of it (test32b Y10); where a thing is (hosted, deployed, located, run on …) is its value
_ATTRIBUTE = LazyPattern(r"\s(?:is|are|was|were)\s+(?:(?:also|now|still|currently|mostly|all|entirely)\s+)?"
                         r"(?!(?:hosted|deployed|located|based|stored|served|installed|mounted|moved|migrated)\s)"
                         r"(?P<verb>\w+(?:ed|en)|built|made|kept|held|run|written|sold)\s+"
                         r"(?:in|with|by|under|using|against|for)\s", 2)   # re.I


def attribute(statement: str) -> str:
    """The attribute a statement's predicate names (:data:`_ATTRIBUTE`'s
    participle, casefolded: "written"), "" for its value."""
    padded = f" {statement} "
    m = _COPULA.search(padded)
    a = _ATTRIBUTE.match(padded, m.start()) if m is not None else None
    return a.group("verb").casefold() if a is not None else ""


#: a statement about the person ("my timezone is …", "my editor is emacs now"): an existing ``user/`` key of its
#: subject is its key, whatever the project it is said in (test36 T17)
_MINE = LazyPattern(r"\s*my\s+\w", 2)   # re.I


#: the person's own setting said by its use ("I use emacs as my editor now", test37b T2): ``v`` its value, ``s`` the
#: setting (the name of their ``user/`` key)
_I_USE = LazyPattern(r"\s*i\s+(?:use|prefer)\s+(?P<v>\S+(?:\s+\S+)?)\s+as\s+my\s+(?P<s>[\w -]+?)"
                     r"(?P<now>\s+(?:now|these\s+days|from\s+now\s+on))?[\s.!]*$", 2)   # re.I
#: a setting said in other words than its ``user/`` key's name ("my tz is UTC": ``user/timezone``, test37b T2)
_MINE_NAMES = {"tz": "timezone"}
#: "now" and its like closing a statement's value ("my editor is emacs now"): no part of the value
_NOW_AFTER = LazyPattern(r"(?:\s*,?\s+(?:now|these\s+days|from\s+now\s+on|as\s+well))+[\s.!]*$", 2)   # re.I


def _mine_key(store: Store, statement: str, name: list[str], of_subject: bool) -> str:
    """The person's own ``user/`` key a statement about them is the next
    version of, "" when none holds a value: a statement "my X is Y" (of its
    subject ``name``) or "I use Y as my X" names the setting X, whose key is
    ``user/<X>``, ``user/remembered/<X>`` or a ``user/`` key in a folder of
    its own whose last part is X (``user/prefs/shell``), X spelled as
    :func:`_spellings` spells it, its words run together ("time zone":
    ``timezone``) or by :data:`_MINE_NAMES` ("tz"): test36 T17, test37b T2.
    Lists the ``user/`` keys only when neither of the first two holds one."""
    use = _I_USE.match(statement)
    if use is not None:
        name = _content_words(use.group("s"))
    elif not (of_subject and _MINE.match(statement)):
        return ""
    spelled = [*_spellings(name), "".join(name)] if name else []
    spelled = list(dict.fromkeys(n[:120] for n in [*spelled, *(_MINE_NAMES[n] for n in spelled if n in _MINE_NAMES)]))
    for one in spelled:
        for mine in (f"user/{one}", f"user/remembered/{one}"):
            if store.refs.read(fact_ref(mine)) is not None:
                return mine
    keys = [r[len("facts/"):] for r in _scope_refs(store, "user", [], "") if r.startswith("facts/user/")]
    return next((k for one in spelled for k in sorted(keys) if k.rpartition("/")[2] == one), "")


def own_value(store: Store, key: str, statement: str) -> str:
    """What a statement about the person is written as in their ``user/``
    key ``key`` (:func:`_mine_key`): its value alone when the key's current
    value is a value alone, as ``mem remember user/timezone Europe/Berlin``
    wrote it ("America/New_York" for "my timezone is America/New_York",
    "emacs" for "I use emacs as my editor now": ``mem get`` and recall go
    on answering with a zone, test37b T19.5), else the statement itself (a
    key of statements goes on as one, as every statement is stored)."""
    held = _body(store, key)
    if not held or STATEMENT_COPULA.search(f" {held} ") is not None:
        return statement
    if (use := _I_USE.match(statement)) is not None:
        value = use.group("v")
    elif (m := STATEMENT_COPULA.search(f" {statement} ")) is not None:
        value = f" {statement} "[m.end():]
    else:
        return statement
    return _NOW_AFTER.sub("", value).strip().rstrip(".!").strip() or statement


def statement_key(statement: str, project: str | None, store: Store | None = None, update: bool = True,
                  stale: list | None = None) -> str:
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
    ``mem get`` and recall's first hit kept serving).  Else it goes on in
    the newest key of the scope whose value states its subject in other
    words (:func:`same_subject_keys`: test33b T3, T12, test33 T8; a listing
    of the store's keys, ~9 ms CPU at 4,000 keys, paid only by a statement
    whose own key holds nothing), and a key sealed under the name an older
    version gave it refuses it (:func:`sealed_before`).  A key whose
    current value was lost to damage (``mem fsck --repair``'s 'lost'
    placeholder: its words are unknown) is the key itself (``update``):
    the statement is its next version (test34b T21).
    A statement about the person ("my timezone is X") whose own key holds
    nothing is the next version of ``user/<its name>`` or
    ``user/remembered/<its name>`` when that holds a value (test36 T17: it
    was filed under the project and the person's user-level value stayed
    current everywhere else).
    ``stale``: a list, extended with the other keys of the statement's
    subject (:func:`same_subject_keys`) holding another value when the
    statement goes on in one of several (a store that filed one subject
    under two keys before session 34: "the db currently runs postgres 15"
    as ``db-currently-runs``, "the db runs postgres 16" as
    ``db-runs-postgres``, test33b T12); the caller writes the statement as
    their next version too, so no older value stays current.
    """
    words = _content_words(statement)
    scope = f"project/{project}" if project else "user"
    name, of_subject = named(statement)
    key = f"{scope}/remembered/{'-'.join(name or ['note'])[:120]}"
    if store is None:
        return key
    if (sealed := sealed_before(store, statement, scope, key)) is not None:
        return sealed   # a key sealed under the name an older version gave the statement: refused, never beside it
    head = store.refs.read(fact_ref(key))
    if head is None and update and of_subject:
        for spelled in _spellings(name):   # ("the database port" and project/acme/db-port: test35 T11)
            plain = f"{scope}/{spelled[:120]}"
            if store.refs.read(fact_ref(plain)) is not None:
                return plain             # the scope's own key of that name: the statement its next version
    if head is None and update and scope != "user" and (mine := _mine_key(store, statement, name, of_subject)):
        return mine   # "my timezone is X": the person's own user-level key, its next version in every project
    if head is None:
        before, of_before = named(statement, _STOP_BEFORE)
        old = f"{scope}/remembered/{'-'.join(before or ['note'])[:120]}"
        was = store.refs.read(fact_ref(old)) if old != key else None
        if not update:
            return key
        chosen = None
        if was is not None:
            held = getattr(store.get(was), "body", "") or ""
            if _content_words(held) == words or (of_before and named(held, _STOP_BEFORE) == (before, True)) \
                    or _same_but_values(held, statement):
                chosen = old
        if not of_subject:
            return chosen or key
        same = same_subject_keys(store, scope, name, statement)
        chosen = chosen or (same[0] if same else key)   # the subject said before in other words (T3, T12, T8)
        if stale is not None:   # a subject an older store filed under two keys: the caller writes each (T12)
            stale.extend(k for k in same if k != chosen and _content_words(_body(store, k)) != words)
        return chosen
    obj = store.get(head)
    if update and is_lost_stub(obj):   # its value lost to damage (fsck --repair's placeholder): the person's
        return key                     # new word is its next version and ends the lost state (test34b T21)
    held = getattr(obj, "body", "") or ""
    if _content_words(held) == words:
        return key                       # the same statement again: its key
    if update and of_subject and _same_subject(named(held), name) and attribute(held) == attribute(statement):
        return key                       # a new value of the same subject: its next version
    if update and _same_but_values(held, statement):
        return key                       # the same words, another value ("… listens on port 9090"): its next version
    return f"{key}-{sha256(' '.join(words).encode('utf-8')).hexdigest()[:8]}"


#: the words a key of a store written before session 32 held ("db-currently-runs", "cache-currently",
#: "team-still"): no part of its subject (test33b T12)
_CHANGE_WORDS = frozenset({"now", "currently", "still"})
_SPELLING: dict[str, str] = {}   # a spelling of KEY_ABBREVIATIONS -> its group's first (built on first use)
_SPELLINGS: dict[str, tuple[str, ...]] = {}   # a group's first spelling -> the group


def one_subject(words) -> tuple[str, ...]:
    """A subject's words in one form for matching: each in its group's first
    spelling (``core.text.KEY_ABBREVIATIONS``: ``database`` -> ``db``), in
    sorted order ("the db port for the shop" names what "the shop db port"
    names), without :data:`_CHANGE_WORDS`.  ``words``: normalized words
    (NFC + casefold, :func:`named`'s)."""
    if not _SPELLING:
        _SPELLING.update({w: g[0] for g in KEY_ABBREVIATIONS for w in g})
        _SPELLINGS.update({g[0]: g for g in KEY_ABBREVIATIONS})
    return tuple(sorted(_SPELLING.get(w, w) for w in words if w not in _CHANGE_WORDS))


def _spellings(name: list[str], most: int = 12) -> list[str]:
    """The names ``name`` (words) is spelled as with the words of a
    ``core.text.KEY_ABBREVIATIONS`` group in each other's place
    (``database, port`` -> ``database-port``, ``db-port``, ``dbs-port``),
    itself first, one word changed at a time, then every word in its
    group's first spelling; at most ``most``."""
    one_subject(())   # (builds the tables)
    out = ["-".join(name)]
    for i, w in enumerate(name):
        for alt in _SPELLINGS.get(_SPELLING.get(w, w), ()):
            out.append("-".join([*name[:i], alt, *name[i + 1:]]))
    out.append("-".join(_SPELLING.get(w, w) for w in name))
    return list(dict.fromkeys(out))[:most]


def same_subject_keys(store: Store, scope: str, name: list[str], statement: str) -> list[str]:
    """The ``<scope>/remembered/`` keys, newest value first, whose current
    value states the subject ``name`` (:func:`named`'s words of
    ``statement``) of the same attribute (:func:`attribute`), said in other
    words: another spelling or order (:func:`one_subject`: "the shop
    database port", "the db port for the shop" after "the shop db port",
    test33 T8), with "now"/"currently"/"still" (a key of a store written
    before session 32, ``db-currently-runs``, test33b T12), or a key named
    with its value's words before session 34 (``db-runs-postgres``, test33b
    T3).  Reads the scope's key names (one listing) and the value of each
    whose name holds every word of the subject; [] when none.  Raises
    OSError."""
    want = one_subject(name)
    prefix = f"facts/{scope}/remembered/"
    found = []
    spelled = [{w, *_SPELLINGS.get(w, ())} for w in set(want)]   # (a name holding no spelling of a word: skipped)
    for ref in _scope_refs(store, scope, spelled):
        if not ref.startswith(prefix) or not all(any(x in ref for x in sp) for sp in spelled) \
                or not set(want) <= set(one_subject(ref[len(prefix):].split("-"))):
            continue
        oid = store.refs.read(ref)
        fact = store.get(oid) if oid is not None else None
        body = getattr(fact, "body", "") or ""
        words, of_subject = named(body)
        if of_subject and one_subject(words) == want and attribute(body) == attribute(statement):
            found.append((getattr(fact, "recorded_at", 0) or 0, ref[len("facts/"):]))
    return [k for _at, k in sorted(found, reverse=True)]


def _same_subject(held: tuple[list[str], bool], name: list[str]) -> bool:
    """Whether :func:`named`'s ``held`` names the subject ``name`` (:func:`one_subject`)."""
    return held[1] and one_subject(held[0]) == one_subject(name)


def name_before(statement: str) -> str:
    """The name (the part after ``remembered/``) a version before session 34
    gave ``statement`` (a copula-free statement's first three content words:
    ``db-runs-postgres``), "" when that is its name today."""
    old = "-".join(named(statement, verbs=False)[0] or ["note"])[:120]
    return old if old != "-".join(named(statement)[0] or ["note"])[:120] else ""


def sealed_before(store: Store, statement: str, scope: str, key: str) -> str | None:
    """``<scope>/remembered/<name_before(statement)>`` when that key is sealed
    and ``key`` is not (the person sealed the statement's key as an older
    version named it: the statement is refused there, never written in the
    clear under its new name), else None."""
    old = name_before(statement)
    if not old or store.refs.read(sealed_ref(key)) is not None:
        return None
    before = f"{scope}/remembered/{old}"
    return before if store.refs.read(sealed_ref(before)) is not None else None


def _body(store: Store, key: str) -> str:
    """The current value of ``key`` ("" none)."""
    oid = store.refs.read(fact_ref(key))
    return (getattr(store.get(oid), "body", "") or "") if oid is not None else ""


def _scope_refs(store: Store, scope: str, spelled: list, under: str = "remembered%2F") -> list[str]:
    """The ref names of ``scope``'s ``remembered/`` keys (``under``: its
    keys whose escaped name starts so; "": all of them) whose file name
    holds a spelling of each word (``spelled``: sets of spellings; a word
    is its file name's as it is, escaping aside, which changes no lower-case
    letter): its directory's listing alone when the store has no packed fact
    refs (every scope's listing, ``refs.names``, cost 9 ms CPU at 4,000
    keys in 51 scopes), else ``refs.names("facts")`` (all of them)."""
    if (store.refs.root / PACKED_FACTS).exists():
        return store.refs.names("facts")
    folder = store.refs.path(fact_ref(f"{scope}/x")).parent
    try:
        files = os.listdir(folder)
    except FileNotFoundError:
        return []
    return [f"facts/{scope}/{unicodedata.normalize('NFC', unescape_name(f))}" for f in files
            if f.startswith(under) and not f.endswith(".lock")
            and all(any(x in f for x in sp) for sp in spelled)]
