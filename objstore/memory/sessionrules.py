"""A session's withheld values: a credential the capture withheld from a
turn is withheld in the session's later turns too (test34b T15: the agent
fetched ``printenv DB_PASSWORD``, its output was stored as
``[REDACTED:fetched-secret]``, and its next reply, "Got it: `V`. Connecting
with psql now.", was stored, indexed and served in the clear; so was a reply
quoting the password a prompt's password rule had redacted).

The values are those a capture reader withheld from the turn
(``CapturedTurn.withheld``: a fetched secret's output,
``objstore.core.redact.fetched.fetched_values``) and those the turn writer's
redaction replaced under one of :data:`CARRIED_RULES` (a password stated in
prose, which no later shape rule finds again).  Never the value itself in a
file: :data:`SESSION_RULES_FILE` holds, as the seal rules do
(``objstore.memory.sealrules``, the same format under another head line), a
keyed BLAKE2b-256 of each normalized form (at least ``MIN_TEXT_CHARS``
characters) under a random 32-byte key kept in the file, with its length
and its session id; mode 0600, local to this store (no object, no ref: never
pushed, backed up or exported), at most :data:`SESSION_RULES_MAX` lines (the
oldest go first).  The turn writer (``objstore.memory.appender``) replaces a
span matching one of its session's rules by ``[REDACTED:sealed-value]``.
docs/format.md, "Session withheld values".
"""

from __future__ import annotations

import os

from objstore.core.objects import normalize_value
from objstore.core.text import normalized_form
from objstore.core.textwindows import dotless, match_weight
from objstore.core.store import Store
from objstore.memory.sealrules import SealRules, load, rule_digest, save, withhold_sealed_values
from objstore.memory.tombstones import MIN_TEXT_CHARS

#: the file, under the store's root (docs/format.md, "Session withheld values")
SESSION_RULES_FILE = "session-rules"
_HEAD = "mem-session-rules 1"
#: the most lines the file keeps (about 100 bytes each); past it the oldest go
SESSION_RULES_MAX = 4096
#: the redaction rules whose values the session's later turns withhold: a password stated in prose
#: (its later quote has no label a rule reads) and a fetched secret (``objstore.core.redact.fetched``)
CARRIED_RULES = frozenset(("password-phrase", "fetched-secret"))
#: red37: the shortest value a session's later turns withhold (a 4-digit PIN); one shorter than ``MIN_TEXT_CHARS``
#: only in its own session, as a whole word (a project's other sessions would lose ordinary words)
SHORT_MIN = 4
#: a carried rule's marker (:data:`CARRIED_RULES`), what tells the turn writer to read a text's hits
CARRIED_MARKS = tuple(f"[REDACTED:{r}]" for r in sorted(CARRIED_RULES))


def load_session_rules(store: Store) -> SealRules | None:
    """The store's session rules (:data:`SESSION_RULES_FILE`; each line's key
    is its session id), or None when it has none or cannot be read."""
    return load(store, SESSION_RULES_FILE, _HEAD)


def project_scope(key: bytes, project: str) -> str:
    """The scope field of project ``project``'s lines (red36: a later
    session of the same project quoting the value): ``project:`` and 16 hex
    digits of the project name's keyed digest under the file's ``key`` (the
    name is not written; no session id holds a ``:``); "" for no project."""
    return "project:" + rule_digest(key, "project\0" + project)[:8].hex() if project else ""


def for_session(rules: SealRules | None, sid: str, project: str = "") -> SealRules | None:
    """The rules of session ``sid`` of ``rules`` and (red36) those of the
    sessions of ``project`` (:func:`project_scope`; "": none) (None: none)."""
    if rules is None:
        return None
    scopes = {sid, project_scope(rules.key, project)} - {""}
    lines = [ln for ln in rules.lines if ln[0] in scopes]
    return SealRules(rules.key, lines) if lines else None


def year_shaped(form: str) -> bool:
    """red38 (test37b T19.4): whether ``form`` (a normalized value) is a year of this era, 4 digits from 1900 to
    2099: a short PIN of that shape is withheld where it is stated (the redaction's PIN rules), not carried to the
    session's later turns, where the same word is most often the year ('planned for 2024 Q3', 'the 2024
    changelog') and nothing tells the two apart."""
    return len(form) == 4 and form.isdigit() and form[:2] in ("19", "20")


def carried_forms(values, short: bool = False) -> list[str]:
    """The normalized forms of ``values`` (an iterable of str) a rule is
    kept for, distinct and sorted: at least ``MIN_TEXT_CHARS`` characters,
    not a lone word of letters (``postgres`` under ``POSTGRES_PASSWORD=``
    would withhold the word everywhere).  ``short``: instead, the forms of
    :data:`SHORT_MIN` to ``MIN_TEXT_CHARS - 1`` characters of one word holding
    a digit or a symbol (``4471``, ``Zq7mm``: red37), kept for their own
    session only (:func:`add_session_rules`), not a year (:func:`year_shaped`:
    ``2024``, red38)."""
    if short:
        return sorted({norm for v in values if not v.isalpha() and " " not in (norm := normalize_value(v))
                       and SHORT_MIN <= len(norm) < MIN_TEXT_CHARS and not year_shaped(norm)})
    return sorted({norm for v in values if not v.isalpha() and match_weight(norm := normalize_value(v)) >= MIN_TEXT_CHARS})


def value_rules(values) -> SealRules | None:
    """Rules in memory only (a random key, never written) for ``values``
    (:func:`carried_forms`), for ``sealrules.withhold_sealed_values``: a
    capture that sees the whole conversation at once (``mem proxy``) withholds
    a fetched value in its later turns without a file.  None: no value kept."""
    forms = carried_forms(values) + carried_forms(values, short=True)   # (one conversation: short ones too, red37)
    if not forms:
        return None
    key = os.urandom(32)
    return SealRules(key, [("", rule_digest(key, x), len(x)) for x in forms])


def add_session_rules(store: Store, sid: str, values: list[str] | tuple[str, ...],
                      have: SealRules | None, project: str = "") -> SealRules | None:
    """Add to ``have`` (the file as read, None: none yet) the rule of each
    of ``values`` (normalized; shorter than ``MIN_TEXT_CHARS``: for session
    ``sid`` alone, red37, from :data:`SHORT_MIN` characters, one word with a
    digit or a symbol: :func:`carried_forms`) for
    session ``sid`` and (red36) for project ``project`` ("": none), write the
    file when one is new (its oldest lines dropped past
    :data:`SESSION_RULES_MAX`) and return the rules now (None: still none).
    Caller holds the store lock.  Raises OSError."""
    forms, short = carried_forms(values), carried_forms(values, short=True)
    if not forms and not short:
        return have
    have = have or SealRules(os.urandom(32), [])
    known = set(have.lines)
    scopes = [sid] + ([project_scope(have.key, project)] if project else [])
    new = [ln for x in forms for k in scopes if (ln := (k, rule_digest(have.key, x), len(x))) not in known]
    new += [ln for x in short if (ln := (sid, rule_digest(have.key, x), len(x))) not in known]
    if not new:
        return have
    got = SealRules(have.key, [*have.lines, *new][-SESSION_RULES_MAX:])
    save(store, got, SESSION_RULES_FILE, _HEAD, ordered=True)
    return got


def carried_values(text: str, hits) -> list[str]:
    """The values of ``text`` (a turn's text as given to the redaction)
    that its redaction ``hits`` (``Hit(rule, start, end)``) replaced under
    one of :data:`CARRIED_RULES`."""
    return [text[h.start:h.end] for h in hits if h.rule in CARRIED_RULES]


class SessionValues:
    """The turn writer's view of :data:`SESSION_RULES_FILE` (read once, per
    session filtered once): :meth:`apply` on each turn it writes."""

    __slots__ = ("store", "rules", "mine", "named", "forms", "known")

    def __init__(self, store: Store) -> None:
        self.store = store
        self.rules: SealRules | None | bool = False      # False: not read yet
        self.mine: dict[tuple[str, str], SealRules | None] = {}
        #: session id -> the values its turns named (in memory only): for its earlier turns
        #: (``objstore.memory.sessionearlier``, test37b T7)
        self.named: dict[str, list[str]] = {}
        #: (the rules' key, digest) -> the normalized form it is the rule of, for each rule this object
        #: added (in memory only, as :attr:`named`): what :meth:`apply`'s exact test reads
        self.known: dict[tuple[bytes, bytes], str] = {}
        #: (session id, project) -> the forms of every rule of ``mine[...]``, or None when one of them was
        #: read from the file (not added here: its form is unknown)
        self.forms: dict[tuple[str, str], tuple[str, ...] | None] = {}

    def _may_match(self, sid: str, project: str, text: str) -> bool:
        """False only when no rule of ``mine[sid, project]`` can match ``text``: every rule's form is
        known (:attr:`known`) and none is a substring of ``text``'s normalized form or its dotless
        reading (a window ``find_matches`` reports equals a rule's form, up to a BLAKE2b collision).
        The corpus import's session rules: 0.60 -> 0.19 s CPU on its main thread, which hashed every
        word-start window of each later turn of a session with a withheld value (idx44,
        ``bench/session_values_ab.py``)."""
        if (sid, project) not in self.forms:
            rules = self.mine[sid, project]
            got = [self.known.get((rules.key, d)) for _k, d, _n in rules.lines] if rules is not None else []
            self.forms[sid, project] = None if None in got else tuple(set(got))
        forms = self.forms[sid, project]
        if forms is None:
            return True
        norm = normalized_form(text)
        read = dotless(norm)
        return any(x in norm or x in read for x in forms)

    def apply(self, sid: str, text: str, raw: str, withheld: tuple[str, ...], project: str = "") -> tuple[str, int]:
        """``text`` (a turn of session ``sid`` as stored so far; ``raw``: its
        text before redaction, capped; ``project``: its project's name, "":
        none) with each span matching one of the session's rules or (red36)
        one of its project's (values withheld in an earlier session of that
        project) replaced by ``[REDACTED:sealed-value]``, and how many
        spans; then the values of this turn join the session's and the project's rules: those
        given (``withheld``: ``CapturedTurn.withheld``) and those its
        redaction replaced under :data:`CARRIED_RULES` (read again only when
        ``text`` holds one of :data:`CARRIED_MARKS`; noted in :attr:`named`).
        Caller holds the store lock.  Raises OSError."""
        if self.rules is False:
            self.rules = load_session_rules(self.store)
        if (sid, project) not in self.mine:
            self.mine[sid, project] = for_session(self.rules, sid, project)
        n = 0
        if self.mine[sid, project] is not None and self._may_match(sid, project, text):
            text, n = withhold_sealed_values(text, self.mine[sid, project], folded=False)   # (no folded forms)
        values = list(withheld)
        if raw and any(m in text for m in CARRIED_MARKS):
            from objstore.core.redact import redact  # defer: a text holding a password's marker only
            values += carried_values(raw, redact(raw).hits)
        if values:
            self.named.setdefault(sid, []).extend(values)
            got = add_session_rules(self.store, sid, values, self.rules, project)
            if got is not None:   # (a value's rule read from the file is known from now on too)
                self.known.update(((got.key, rule_digest(got.key, x)), x)
                                  for x in carried_forms(values) + carried_forms(values, short=True))
                self.forms = {}
            if got is not self.rules:
                self.rules, self.mine = got, {}
        return text, n
