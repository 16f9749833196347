"""The take-back of a "remember that …" by the next prompt (test34 T9): the
version that prompt filed, forgotten as ``mem forget`` forgets it.  How a
prompt is read as a retraction: ``capture.retraction`` (kept apart so the
prompt hook reads every prompt without loading forget).

One rule for the prompt hook and ``mem import`` (test34b T28): both call
:func:`take_back_turn` with the retraction's stored turn.  It acts only when

- the retraction names the memory (``Retraction.strong``; test34b T14);
- the session's stored user turn right before it states a fact
  (``statement_of``) and is no retraction itself (T2: "scratch that" said
  twice takes nothing the second time), said at most :data:`WINDOW_MS`
  before it;
- the key that statement names under the project of *that* turn's cwd (T27:
  not the current cwd's) has a current version citing that very turn (its
  first source): the version that prompt filed.  A key moved on since (a
  later write by anyone: T1), or a prompt that filed no version (its value
  was current already: T3), is left as it is;
- a subject it names ("forget what I said about the db port") is among the
  key's name words (T16).

Then that version is forgotten by ``mem forget KEY@vN``'s path (a key of one
version: ``mem forget KEY``'s), its value withheld in the turns it was said
and quoted in (T19); the version before it is current again as it was, its
own trust, owner and sources (T20): nothing new is written.

Every statement that prompt made is read so (its first and each further
one, ``statements.further_statements``: "the db port is 5432 and the deploy
day is Tuesday" files two keys; fresh35 F6: only the first was taken back
and the answer said nothing of the second), each key on its own: one
moved on since is "kept" while the others are taken back.
"""

from __future__ import annotations

import re

from objstore.capture.retraction import correction_of, retraction_of, takes_back
from objstore.capture.statements import TAKE_BACK_RE, further_statements, restated_after, statement_key, statement_of
from objstore.capture.statementkey import own_value
from objstore.capture.statementwords import MARKER
from objstore.core.errors import MemError, NotFound
from objstore.core.objects import Turn
from objstore.core.record import Frozen, set_fields
from objstore.core.refs import session_ref
from objstore.core.store import Store
from objstore.memory.facts import remember, versions
from objstore.memory.forget import forget
from objstore.memory.scope import project_aliases
from objstore.memory.sessions import FORGOTTEN
from objstore.memory.sealsources import plan_forget_turns_too, rule_source_values

#: the most time between the "remember that" and its take-back (ms, the two turns' timestamps): 30 minutes
WINDOW_MS = 30 * 60 * 1000
#: the most turns walked back from the session's newest to the retraction and the prompt before it
WALK_TURNS = 2000
#: the most user turns read before a take-back: the statement and the corrections said right after it
#: ("Actually, it's 50052", "sorry, I meant 50053", then "forget that": test37b T14)
BEFORE_TURNS = 5


class TakenBack(Frozen):
    """What :func:`take_back_turn` found: ``key``, its current ``body``, and
    ``how``: ``"forgotten"`` (the key held only the version taken back),
    ``"restored"`` (``restored``, the version before, is current again),
    ``"kept"`` (the key's current version is not the one that prompt filed:
    nothing done) or ``"weak"`` (a wording as often said of the agent's
    work: nothing done); ``selector``: the forget's ``KEY`` or ``KEY@vN``
    ("" when nothing is to be done).  A correction ("Actually, it's
    debian 12": ``_corrections``): ``"corrected"`` (``restored`` the new
    statement, written as the key's next version citing the turn
    ``selector``), ``"moved"`` (the key was written since: nothing done) or
    ``"untied"`` (no new value read: nothing done)."""

    __slots__ = ("key", "body", "how", "restored", "selector")

    def __init__(self, key: str, body: str, how: str, restored: str | None, selector: str = "") -> None:
        set_fields(self, key, body, how, restored, selector)


def _turn_and_previous(store: Store, session: str, source: str | None):
    """``((id, Turn) of the user turn of ``session`` whose source is
    ``source``, [(id, Turn) of the user turns before it, newest first, at
    most :data:`BEFORE_TURNS`])``, or None when it is not among the newest :data:`WALK_TURNS`.
    ``source`` None: a prompt not stored yet (``(None, [the session's
    newest user turns])``)."""
    head = store.refs.read(session_ref(session))
    found = None if source is not None else (None, None)
    before: list = []
    for n, (tid, t) in enumerate(store.walk_chain(head, Turn, "turn") if head else ()):
        if n >= WALK_TURNS:
            break
        if t.role != "user":
            continue
        if found is not None:
            before.append((tid, t))
            if len(before) == BEFORE_TURNS:
                break
        elif t.source == source:
            found = (tid, t)
    return (found, before) if found is not None else None


def take_back_turn(store: Store, session: str, source: str, *, act: bool = True) -> list[TakenBack]:
    """Take back the facts the prompt before the stored user turn of
    ``session`` whose source (record alias) is ``source`` filed, when that
    turn is a retraction and the rules of the module doc hold; what was
    found for each key that prompt's statements name (:class:`TakenBack`,
    in the order stated), or [] (no retraction, the turn not found, the
    previous prompt stated nothing or is a retraction, no key holds a
    value, another subject named).  ``act=False``: only what it would do,
    read without the lock (the prompt hook's answer; its detached child
    acts, the forget being longer than the hook's budget).  With ``act``,
    found and forgotten under one store lock, key by key: raises
    StoreLocked, MemError and OSError as ``memory.forget.forget``."""
    if not act:
        return _found(store, session, source)
    with store.lock("hook take back"):
        done = _found(store, session, source)
        for one in done:
            if one.how == "corrected":
                try:
                    remember(store, one.key, one.restored or "", trust="user_stated", owner="user",
                             sources=(one.selector,), command="hook correct")
                except MemError:   # a sealed key: its value stands
                    continue
            else:
                for what in one.selector.split():   # (newest first: a correction's version, then the statement's)
                    plan = plan_forget_turns_too(store, what=what)
                    rule_source_values(store, plan)
                    forget(store, what=what, plan=plan)
    return done


def take_back_said(store: Store, session: str, prompt: str, time_ms: int) -> list[TakenBack]:
    """What :func:`take_back_turn` will do once ``prompt`` (said at
    ``time_ms``, ms since the epoch, not stored yet) is stored as the next
    user turn of ``session``, read now (the proxy's answer: it stores a
    request's turns only once the upstream took it, test36 T13); a
    correction's ``selector`` is "" (its turn id is not known yet).  Nothing
    written, no lock.  [] as :func:`take_back_turn`."""
    said = takes_back(prompt)
    pair = _turn_and_previous(store, session, None) if said is not None else None
    return _read(store, said, time_ms, "", pair[1]) if pair is not None and pair[1] else []


def _found(store: Store, session: str, source: str) -> list[TakenBack]:
    """:func:`take_back_turn`'s reading: what it does, nothing done yet."""
    pair = _turn_and_previous(store, session, source)
    said = takes_back(pair[0][1].text) if pair is not None else None
    if said is None or not pair[1]:
        return []
    return _read(store, said, pair[0][1].timestamp, pair[0][0], pair[1])


def _read(store: Store, said, at: int, cid: str, before: list) -> list[TakenBack]:
    """What the take-back or correction ``said`` (a ``Retraction``; said at
    ``at`` ms, its turn ``cid``) does to what the user turns ``before`` it
    (newest first) filed: :func:`_found`'s rule.  Corrections said right
    before it ("Actually, it's 50052") are read past to the statement they
    corrected: a "forget that" takes back what the statement and they filed,
    a further correction corrects the value they filed (test37b T14)."""
    back = retraction_of(before[0][1].text)
    if back is not None and not back.strong and len(before) > 1 and not said.fix \
            and statement_of(before[1][1].text) is not None:   # "undo that" answered "Not taken back … say
        before = before[1:]      # 'forget that'": that "forget that" reads past it (test36 T16)
        back = retraction_of(before[0][1].text)
    n = 0
    while n + 1 < len(before) and _corrects(before[n][1].text):
        n += 1     # (the corrections said since the statement, newest first)
    pid, prev = before[n]
    what = statement_of(prev.text)
    if what is None or retraction_of(prev.text) is not None or correction_of(prev.text) is not None \
            or any(FORGOTTEN in t.text for _i, t in before[:n + 1]):
        return []   # (a statement already taken back or forgotten: its prompt holds the marker, and its next
        #             statement would read as the first; a hook delivered again, the import's catch-up: test35b T7)
    said_at = [at, *(t.timestamp for _i, t in before[:n + 1])]
    if any(a and b and not 0 <= a - b <= WINDOW_MS for a, b in zip(said_at, said_at[1:])):
        return []
    fixed = {x for i, t in before[:n] for x in (i, t.source)}   # (what the corrections' versions cite)
    mine = fixed | {pid, prev.source}
    aliases = project_aliases(prev.cwd, store_root=store.root) if prev.cwd else ()
    if prev.harness == "proxy":   # (the proxy files a statement under its turn's project: proxyspool)
        aliases = (prev.project,) if prev.project else ()
    stated = [what, *further_statements(prev.text)]
    project = aliases[0] if aliases else None
    keys = [statement_key(one, project, store) for one in stated]
    if said.fix:
        heads = [_head(store, key) for key in keys]
        now = [_said_now(store, key, one, h.body) if h is not None and set(h.sources[:1]) & fixed else one
               for key, one, h in zip(keys, stated, heads)]
        first = prev.text.lstrip().split("\n", 1)[0] if now == stated else "remember that " + " and ".join(now)
        return _corrections(store, now, keys, first, said.fix, (mine, cid), project)
    out: list[TakenBack] = []
    for key in keys:
        if said.subject and not set(said.subject) <= set(key.rpartition("/")[2].split("-")) \
                or any(t.key == key for t in out):
            continue
        try:
            chain = versions(store, key)
        except NotFound:
            continue
        head = chain[0].fact
        live = [v.fact for v in chain if not v.fact.forgotten]
        filed = 0
        while filed < len(live) and set(live[filed].sources[:1]) & mine:
            filed += 1   # (the statement's version, and each correction's after it)
        if not set(head.sources[:1]) & mine:
            out.append(TakenBack(key, head.body, "kept", None))
        elif not said.strong:
            out.append(TakenBack(key, head.body, "weak", None))
        elif filed >= len(live):
            out.append(TakenBack(key, head.body, "forgotten", None, key))
        else:
            out.append(TakenBack(key, head.body, "restored" if filed == 1 else "undone", live[filed].body,
                                 " ".join(f"{key}@v{f.version}" for f in live[:filed])))
    return out


def _said_now(store: Store, key: str, stated: str, body: str) -> str:
    """The statement a correction's version ``body`` of ``key`` says, which a further correction reads (test37b
    T14): ``body``; pin39 (corr38's limit): under a ``user/`` key holding a value alone (``own_value``: "CET" for
    "my tz is CET"), the first statement ``stated`` ("my tz is UTC") with its value made ``body`` ("my tz is
    CET"): the bare value read as a statement was another subject, so "no, I meant EET" wrote nothing."""
    value = own_value(store, key, stated) if key.startswith("user/") else stated
    if value == stated or value not in stated:
        return body
    i = stated.rindex(value)
    return stated[:i] + body + stated[i + len(value):]


def _corrects(text: str) -> bool:
    """Whether a user turn is a correction of the statement before it (and no retraction)."""
    return correction_of(text) is not None and retraction_of(text) is None


def _head(store: Store, key: str):
    """``key``'s current version (a ``Fact``), or None (no such key)."""
    try:
        return versions(store, key)[0].fact
    except NotFound:
        return None


def _corrections(store: Store, stated: list[str], keys: list[str], first: str, fix: str, ids: tuple[set, str],
                 project: str | None) -> list[TakenBack]:
    """What a correction as the next prompt (``fix``: "Actually, it's
    debian 12") does to the statements ``stated`` (filed under ``keys``;
    said in the prompt whose first line is ``first``; ``ids``: (the ids and
    sources of that prompt's turn and of the corrections after it, the
    correction's turn id)): read as the second line of that prompt
    (``statements.statement_of``'s take-back reading, test36 T4), each
    statement it changes is its key's next version, citing the correction's
    turn ("corrected", ``restored`` the new statement, ``selector`` that
    turn's id); a key written since is "moved" (nothing done); a statement
    whose value was a credential (redacted) is "withheld": its next value is
    one too, never written (the proxy reads the prompt as typed).  When it
    changes none of them, nothing is done and the person is told why: the
    new value is a credential, redacted ("withheld", test37b T1: "Actually,
    it's Zebra-Quill-4471" was silent); it states another subject ("the
    staging api host is api-stg-2" after "the api host is api-1":
    "elsewhere", test37b T19.8); it opens with a hard take-back
    ("Correction: hmm", "no wait, debian") or denies the value ("Actually,
    it's not ruff"): "untied" for the first key.  A softer one that says no
    new value ("Actually, it's fine") is no correction: []."""
    said = first + "\n" + fix
    now = [s for s in (statement_of(said), *further_statements(said)) if s]
    out: list[TakenBack] = []
    for new in now:
        if new in stated:
            continue
        key = statement_key(new, project, store)
        if key not in keys or any(t.key == key for t in out):
            continue
        head = _head(store, key)
        if head is None:
            continue
        if MARKER.search(stated[keys.index(key)]):   # a credential's next value (the proxy reads the prompt as
            out.append(TakenBack(key, head.body, "withheld", None))   # typed: never written, nor said, test37b T1)
        elif not set(head.sources[:1]) & ids[0]:
            out.append(TakenBack(key, head.body, "moved", new))
        else:
            out.append(TakenBack(key, head.body, "corrected",   # (a user key holding a value alone: the value)
                                 own_value(store, key, new) if key.startswith("user/") else new, ids[1]))
    if out or not keys:
        return out
    heads = [(key, h) for key in keys if (h := _head(store, key)) is not None]
    if not heads:
        return out
    key, head = next(((k, h) for k, h in heads if MARKER.search(h.body)), heads[0])
    other = restated_after(fix)
    if MARKER.search(fix):
        out.append(TakenBack(key, head.body, "withheld", None))
    elif other is not None and statement_key(other, project, store) not in keys:
        out.append(TakenBack(key, head.body, "elsewhere", other))
    elif TAKE_BACK_RE.match(f". {fix}") is not None or _denies(fix, head.body):
        out.append(TakenBack(key, head.body, "untied", None))
    return out


#: a negation and the words after it, in a correction ("Actually, it's not ruff")
_DENIAL = re.compile(r"\b(?:not|isn't|isnt|aren't|no\s+longer|never)\b(?P<rest>.*)", re.IGNORECASE | re.DOTALL)


def _denies(fix: str, body: str) -> bool:
    """Whether a softer take-back ``fix`` denies the value ``body`` held
    ("Actually, it's not ruff" after "the lint tool is ruff"): a word of 3+
    characters after its negation is a word of the value (test37b T1: the
    denied value stayed current and nothing was said)."""
    m = _DENIAL.search(fix)
    if m is None:
        return False
    said = {w for w in re.findall(r"[\w.-]{3,}", body.casefold())}
    return any(w.strip(".-") in said for w in re.findall(r"[\w.-]{3,}", m.group("rest").casefold()))


def take_back_stated(store: Store, stated: list) -> list[TakenBack]:
    """``mem import``'s take-backs (test34b T28): for each ``(turn id,
    CapturedTurn)`` of ``stated`` (``sync.states_fact``'s prompts the import
    added, in order) that is a retraction naming the memory, its
    :func:`take_back_turn` (its session, its record alias).  Run once the
    import's turns are published and its statements written.  What was
    found, in order.  Raises as :func:`take_back_turn`."""
    out = []
    for _oid, ct in stated:
        said = takes_back(ct.text) if ct.role == "user" else None
        if said is not None and said.strong:
            out.extend(take_back_turn(store, ct.session, ct.alias or ct.source))
    return out


#: :func:`takeback_lines`' wording of each ``TakenBack.how`` (``new``: its ``restored``)
_LINES = {
    "forgotten": "Taken back as you asked: {key} is forgotten (it held: {body}); to keep it after all, say it again "
                 "(remember that …) or run: mem remember {key} VALUE",
    "restored": "Taken back as you asked: {key}'s newest value is forgotten ({body}); its earlier value is current "
                "again: {new}; its history: mem log {key}",
    "weak": "Not taken back ({key} = {body} stays remembered): if the person meant that remembered fact, they can "
            "say \"forget that\" or run: mem forget {key}",
    "kept": "Not taken back: {key} now holds a value that prompt did not file ({body}); to forget it by hand: "
            "mem forget {key}",
    "undone": "Taken back as you asked: {key}'s corrected value ({body}) and the value it corrected are forgotten; "
              "its earlier value is current again: {new}; its history: mem log {key}",
    "corrected": "Corrected as you asked: {key} = {new} (it held: {body}); its history: mem log {key}",
    "moved": "Not corrected: {key} now holds a value that prompt did not file ({body}); to correct it by hand: "
             "mem remember {key} VALUE",
    "withheld": "Not stored: the corrected value of {key} is a credential, kept out of the store (the prompt is "
                "kept with it redacted); {key} still holds: {body}; to keep the new one sealed: mem remember {key} "
                "VALUE --sensitivity secret",
    "elsewhere": "Not stored: the correction states another subject than {key} ({new}); {key} still holds: {body}; "
                 "to store it, say it again (remember that …); to correct {key}: mem remember {key} VALUE",
    "untied": "Not stored: the correction names no one new value of {key} (it holds: {body}); to correct it: "
              "mem remember {key} VALUE",
}


def takeback_lines(done: list, esc) -> list[str]:
    """For each ``TakenBack`` of ``done``: what was forgotten and how to undo
    it, or why nothing was and the command that would; keys and values
    through ``esc`` (the context's escape, or the terminal's ``safe``).  The
    prompt hook's answer, the proxy's and ``mem import``'s lines (one wording)."""
    return [_LINES.get(d.how, _LINES["kept"]).format(key=esc(d.key), body=esc(d.body), new=esc(d.restored or ""))
            for d in done]
