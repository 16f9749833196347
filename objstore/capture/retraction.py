"""A "remember that …" taken back by the person's NEXT prompt (test34 T9):
"forget that", "don't remember that", "never mind, don't remember that",
"scratch that, don't save it", "undo that last remember", "please forget
what I said about the db port".  Within the prompt, a take-back after the
statement already stores nothing ("… 5432. Forget it.",
``capture.statements``, the phrases: ``core.takeback.TAKE_BACK_PHRASES``); as
the next prompt the fact is already written, so ``capture.takeback`` takes
back the version that prompt filed (session 35, lane cue35).

Only a wording that names the memory acts (``Retraction.strong``): "revert
that", "undo that", "ignore that", "scratch that", "forget it", "never
mind, thanks!" are as often said of the agent's work (test34b T14) and are
read as weak: the hook names ``mem forget KEY`` and changes nothing.  A
prompt that says anything besides the retraction ("scratch that idea about
redis, let's use postgres", "forget the cache, focus on the db") is no
retraction (:func:`retraction_of`).
"""

from __future__ import annotations


from objstore.capture.statements import next_take_back, statement_of
from objstore.core.objects import Turn
from objstore.core.record import Frozen, set_fields
from objstore.core.refs import session_ref
from objstore.core.store import Store
from objstore.core.takeback import DENIAL, TAKE_BACK_PHRASES
from objstore.core.text import LazyPattern

_LEAD = r"(?:(?:oh|ok(?:ay)?|so|well|hmm+|um|uh|actually|please|no|wait|sorry|oops|and|just|hey|yeah)\s+)*"
_DONT = r"(?:don'?t|do\s+not|never)\s+(?:remember|save|store|keep|record|note|memorize)"
_SAID = r"what\s+i\s+(?:just\s+)?(?:said|told\s+you|wrote|typed)"
#: one clause of a retraction that names the memory (it acts); a clause naming its subject in ``subj``
_STRONG = LazyPattern(
    rf"{_LEAD}(?:"
    rf"forget\s+(?:that|this)(?:\s+please)?"
    rf"|{_DONT}(?:\s+(?:that|this|it))(?:\s+(?:down|after\s+all|then|please|either))*"
    rf"|(?:undo|revert|take\s+back)\s+(?:that|this|it|the)\s+(?:last\s+)?(?:remember|memory|note|fact)"
    rf"(?:\s+please)?"
    rf"|forget\s+(?:{_SAID}|that)\s+(?:about|regarding|on)\s+(?P<subj>[\w\s'-]+)"
    rf"|{_DONT}\s+(?P<subj2>(?:the|my|our)\s+[\w\s'-]+)"
    rf")", 2)   # re.I
#: a clause that takes back something, but is as often said of the agent's work ("revert that", "undo
#: that", "ignore that", "never mind", "scratch that", "forget it": test34b T14): it never acts alone
_WEAK = LazyPattern(
    rf"{_LEAD}(?:(?:{'|'.join(TAKE_BACK_PHRASES)})|(?:undo|revert|cancel|drop)\s+(?:that|this|it))"
    rf"(?:\s+please)?", 2)   # re.I
#: what may stand beside a retraction: a reason, a closing, a lead word alone
_BESIDE = LazyPattern(
    rf"(?:{DENIAL}"
    r"|i\s+(?:was\s+wrong|misspoke|got\s+it\s+wrong)|wrong\s+(?:one|value|port|host)"
    r"|thanks|thank\s+you|thx|cheers|(?:(?:oh|ok(?:ay)?|so|well|hmm+|um|uh|actually|please|no|wait|sorry|oops|and|just|hey|yeah)\s*)+)",
    2)   # re.I
_CLAUSES = LazyPattern(r"[,.;:!?\u2014\u2013]+|\s-+\s")
_WORD = LazyPattern(r"[a-z0-9]+")
_STOP = frozenset(("the", "a", "an", "my", "our", "of", "value", "about", "that", "this", "its"))


class Retraction(Frozen):
    """A prompt read as a retraction: ``subject`` the words it names ("the
    db port" -> ``("db", "port")``), or () for "that"/"it"; ``strong``: it
    names the memory ("forget that", "don't remember that", "undo that last
    remember"), so it may act; False for a wording as often said of the
    agent's work ("revert that", "never mind, thanks!"), which never does.
    ``fix``: "" for a retraction; for a correction of what was just said
    (:func:`correction_of`: "Actually, it's debian 12", "Correction: 6543")
    the prompt's line, read after the previous prompt's statement."""

    __slots__ = ("subject", "strong", "fix")

    def __init__(self, subject: tuple[str, ...], strong: bool, fix: str = "") -> None:
        set_fields(self, subject, strong, fix)


def correction_of(prompt: str) -> Retraction | None:
    """The prompt read as a correction of the value the previous prompt
    stated (test36 T4: "Actually, it's debian 12", "Correction: debian 12",
    "no wait, debian 12, not ubuntu 22", "sorry, I meant debian 12"), or
    None: one line of at most 200 characters opening with a take-back
    (``statements.next_take_back``, the phrase a second line of one prompt
    is read with) that states nothing itself and is no retraction.  Whether
    it says a new value is read against that statement
    (``capture.takeback``): "Actually, use the other file" corrects none."""
    text = prompt.replace("\u2019", "'").strip()
    if not text or len(text) > 200 or "\n" in text or statement_of(text) is not None \
            or next_take_back(f".\n{text}") is None:
        return None
    return Retraction((), True, text)


def retraction_of(prompt: str) -> Retraction | None:
    """The prompt read as a whole retraction of what was just said, or None:
    every clause (split at , . ; : ! ? dashes) is a "forget that", a
    "don't remember/save that", an "undo that last remember", a "forget
    what I said about X" (strong: :class:`Retraction`), a take-back phrase
    of ``core.takeback.TAKE_BACK_PHRASES`` or an "undo/revert that" (weak), or
    stands beside one (a reason "it was wrong", "thanks", "actually"); at
    least one is a retraction; at most 200 characters."""
    text = prompt.replace("\u2019", "'").strip()
    if not text or len(text) > 200 or "\n" in text.strip():
        return None
    subject: tuple[str, ...] = ()
    strong = weak = False
    for clause in _CLAUSES.split(text):
        clause = " ".join(clause.split())
        if not clause:
            continue
        m = _STRONG.fullmatch(clause)
        if m is not None:
            strong = True
            named = m.group("subj") or m.group("subj2")
            if named:
                subject = tuple(w for w in _WORD.findall(named.casefold()) if w not in _STOP)
            continue
        if _WEAK.fullmatch(clause) is not None:
            weak = True
        elif _BESIDE.fullmatch(clause) is None:
            return None
    return Retraction(subject, strong) if strong or weak else None


def follows_statement(store: Store, session: str) -> bool:
    """Whether the newest stored user turn of ``session`` states a fact
    (``statements.statement_of``), read past up to 4 corrections said since
    it (test37b T14): what a correction as the next prompt may correct (the
    prompt hook reads it before it stores an "Actually, …" prompt
    in-process; a few turns walked, no lock)."""
    head = store.refs.read(session_ref(session))
    fixes = 0
    for n, (_tid, t) in enumerate(store.walk_chain(head, Turn, "turn") if head else ()):
        if t.role == "user":
            if fixes < 4 and retraction_of(t.text) is None and correction_of(t.text) is not None:
                fixes += 1   # (a correction said since: a further one corrects it, test37b T14)
                continue
            return statement_of(t.text) is not None
        if n >= 50:
            break
    return False


def takes_back(prompt: str) -> Retraction | None:
    """:func:`retraction_of`, else :func:`correction_of`: a prompt that
    takes back or corrects what the previous one stated (what the hooks,
    the transcript sync and ``mem import`` hand to ``capture.takeback``)."""
    return retraction_of(prompt) or correction_of(prompt)
