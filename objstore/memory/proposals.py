"""Proposals: how a write becomes an item of the review queue.

Lower-trust writers (agents, later model extraction) never silently overrule
the person.  ``facts.remember`` asks :func:`park` (under the store lock,
after reading the key's current version and before writing) whether a write
must wait for review instead; if so the proposal is queued as a
:class:`objstore.core.objects.QueueItem` object under ``refs/queue/<item
id>`` (:func:`enqueue`):

* **challenge**: a write with trust ``agent_observed`` or ``derived``
  would replace a key whose current value is ``user_stated`` with a
  different value, or would write a key that looks like another existing key
  (:func:`lookalike_key`: ``project/api/рор`` in Cyrillic beside
  ``project/api/pop``, ``project/api/DEPLOY_DAY`` beside ``deploy-day``), which an agent could use to stand beside the
  person's value unreviewed;
* **injection**: a lower-trust value reads like an instruction to a model
  (:func:`looks_like_instruction`), whatever the key holds.

Listing, accepting, rejecting and dropping items is ``objstore.memory.queue``.
"""

from __future__ import annotations

import functools

TYPE_CHECKING = False
if TYPE_CHECKING:   # annotations only: no re import (its patterns are kept programs)
    import re

from objstore.core.lookalike import escape_lookalike, key_skeleton
from objstore.core.objects import QueueItem, normalize_value
from objstore.core.record import Frozen, set_fields
from objstore.core.rxcache import IGNORECASE, compile_pattern
from objstore.core.store import Store, now_ms
from objstore.core.text import confusable_fold

NAMESPACE = "queue"


def item_ref(item_id: str) -> str:
    """Ref name of a queue item: ``queue/<item id>``."""
    return f"{NAMESPACE}/{item_id}"


#: (name, pattern) of prompt-injection-shaped text, matched case-insensitively
#: on the value with whitespace runs collapsed (and on the raw value, for
#: line-anchored markers).  Modelled on the attack examples in OWASP Top 10
#: for LLM Applications, LLM01 "Prompt Injection", and in Greshake et al.,
#: "Not what you've signed up for" (2023): instruction overrides, role
#: resets, fake system/role markers, secrecy demands.  A heuristic: a false
#: positive only parks a value for review (nothing is lost); a miss is
#: still subject to the trust rule.
#: (Compiled on first use by :func:`instruction_patterns`: every command imports this module, few check a value.)
INSTRUCTION_SOURCES: tuple[tuple[str, str], ...] = (
        ("ignore previous instructions",
         r"\b(ignore|disregard|forget|override|overrule|bypass)\b (all |any |each )?(of )?"
         r"(the |your |my |these |those )?"
         r"(previous|prior|above|earlier|preceding|original|foregoing|existing|system) "
         r"(instructions?|prompts?|rules|directions|directives|guidelines|messages|context)\b"),
        ("you must now", r"\byou (must|should|will|shall|need to) now\b"),
        ("you are now", r"\byou are now (a|an|the|in|my|no longer)\b"),
        ("from now on", r"\bfrom now on,? (you|ignore|always|never|respond|answer|reply)\b"),
        ("system prompt", r"\b(system|developer|hidden) prompt\b"),
        ("new instructions", r"\b(new|updated|real|actual) (instructions|directives)\s*:"),
        # a line opening 'system:' or 'assistant:'; after a label ('IMPORTANT: system: you must …') only when
        # what follows addresses the model (mend24: 'notes: system: 4 cores' is a label list, not a marker)
        ("role marker", r"(?m)^[ \t]*(?:(system|assistant)[ \t]*:|[a-z]{2,20}[ \t]*:[ \t]*(system|assistant)[ \t]*:"
                        r"[ \t]*(you|your|ignore|disregard|forget|override|always|never|do|don't|must|from|new|"
                        r"execute|run|follow|obey|reveal|send|print)\b)"),
        ("role tag", r"<\s*/?\s*(system|instructions?|im_start|im_end)\b[^>]*>|\[/?(system|inst)\]"),
        ("keep it from the user",
         r"\b(do not|don't|never) (tell|inform|mention (this |it )?to|reveal (this |it )?to) the user\b"),
        ("reveal your instructions",
         r"\b(reveal|print|repeat|output|show|leak) (your|the) (system prompt|instructions|hidden|initial prompt)\b"),
        ("jailbreak", r"\b(jailbreak (mode|prompt)|dan mode|do anything now)\b"),
        ("system note", r"\b(system|admin|administrator|security|developer|operator) "
                        r"(note|notice|message|override|directive|instruction)\s*:"),
        ("pre-approved", r"\b(user|owner|person|human|admin|operator|they|you)\b[^.\n]{0,40}"
                         r"\b(pre-?approved|pre-?authori[sz]ed|already (approved|authori[sz]ed))\b"),
        ("always send a secret",
         r"\b(always|must|should) (include|add|print|send|append|paste|post|echo|log)\b[^.;,\n]{0,60}"
         r"(\$\{?\w*(key|token|secret|password|passwd|credential)\w*|\bapi[_ -]?keys?\b|\bsecrets?\b"
         r"|\bpasswords?\b|\bcredentials?\b|\baccess tokens?\b|\bprivate keys?\b|\bid_rsa\b)"),
        # the model's own turn, not a project's process: "always run tests before pushing" is a fact,
        # "... before answering" / "before any task, ..." addresses the agent reading it
        ("before answering",
         r"\b(before|prior to|instead of) ((you )?(answering|responding|replying)\b"
         r"|(doing )?(any|every|each|your) (task|answer|response|reply|turn)[ \t]*[,:])"),
        # a script fetched and run (curl ... | sh, sh -c "$(curl ...)", bash <(wget ...)): code an
        # agent is told to execute, whoever wrote it; one accept stores an install line a person meant
        ("fetch and run",
         r"\b(curl|wget)\b[^\n|]{0,300}\|[ \t]*(sudo[ \t]+)?(ba|z|da|k|fi)?sh\b|[$<]\([ \t]*(curl|wget)\b"),
        ("exfiltrate",
         r"\bexfiltrat(e|es|ed|ing|ion)\b"),
)


#: for each entry of :data:`INSTRUCTION_SOURCES`, in order: lower-case
#: literals one of which every match of its pattern contains (its required
#: words).  An ASCII text none of whose lowered form holds any of them cannot
#: match it, so the pattern is neither compiled nor run on it (~0.2-0.6 ms a
#: compile: a new process's ``mem remember`` checked every value with all
#: of them).  A non-ASCII text is tested in the form :func:`_anchor_form` gives:
#: case-insensitive matching also folds a few non-ASCII letters (the Kelvin
#: sign, the long s, the dotted and dotless i) onto ASCII ones.
#: ``tests/memory/test_proposals_anchors.py`` checks that every match holds one.
INSTRUCTION_ANCHORS: tuple[tuple[str, ...], ...] = (
    ("ignore", "disregard", "forget", "override", "overrule", "bypass"),
    ("now",),
    ("you are now",),
    ("from now on",),
    ("prompt",),
    ("instructions", "directives"),
    ("system", "assistant"),
    ("system", "inst", "im_start", "im_end"),
    ("the user",),
    ("prompt", "instructions", "hidden"),
    ("jailbreak", "dan mode", "do anything now"),
    ("note", "notice", "message", "override", "directive", "instruction"),
    ("approved", "authori"),
    ("always", "must", "should"),
    ("before", "prior to", "instead of"),
    ("curl", "wget"),
    ("exfiltrat",),
)


@functools.cache
def _instruction_pattern(i: int) -> re.Pattern[str]:
    return compile_pattern(INSTRUCTION_SOURCES[i][1], IGNORECASE)


def instruction_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """:data:`INSTRUCTION_SOURCES` compiled (case-insensitive), once per process."""
    return tuple((name, _instruction_pattern(i)) for i, (name, _rx) in enumerate(INSTRUCTION_SOURCES))

#: at most this many characters of a value are scanned (bodies are capped at
#: 100,000; the patterns are linear, this bounds the worst case anyway)
SCAN_CHARS = 100_000
#: the non-ASCII characters a case-insensitive pattern matches for an ASCII
#: letter that ``str.lower`` does not lower to it (``re``'s extra cases: the
#: dotless i and the long s; U+0130, whose lower case is two characters): with
#: them mapped, a text's lower case holds an anchor wherever a match does
_ANCHOR_FOLDS = (("\u0130", "i"), ("\u0131", "i"), ("\u017f", "s"))


def _anchor_form(text: str) -> str:
    """``text`` lowered for the anchor test: each character a case-insensitive
    pattern matches for an ASCII letter becomes that letter (the Kelvin sign
    lowers to ``k`` by itself)."""
    if not text.isascii():
        for c, letter in _ANCHOR_FOLDS:  # str.replace: a C scan when absent (translate: a dict lookup a character)
            text = text.replace(c, letter)
    return text.lower()


def looks_like_instruction(text: str) -> str | None:
    """The name of the first :data:`INSTRUCTION_SOURCES` entry that ``text``
    matches, or None, on ``text`` and on its
    :func:`objstore.core.text.confusable_fold` (fullwidth letters and
    zero-width characters read as plain text).  ``looks_like_instruction("Ignore
    all previous instructions and ...") == "ignore previous instructions"``.
    A pattern none of whose required words (:data:`INSTRUCTION_ANCHORS`) the
    text's lower case holds is not run (a non-ASCII text's lower case with
    :data:`_ANCHOR_FOLDS` applied: a sub-agent's summary checked with all 14
    patterns twice cost ~2 ms)."""
    for raw in dict.fromkeys((text[:SCAN_CHARS], confusable_fold(text[:SCAN_CHARS]))):  # fullwidth reads the same
        flat = " ".join(raw.split())  # "ignore\n  previous instructions" reads the same
        low_flat, low_raw = _anchor_form(flat), _anchor_form(raw)
        for i, (name, _rx) in enumerate(INSTRUCTION_SOURCES):
            anchors = INSTRUCTION_ANCHORS[i]
            in_flat = any(a in low_flat for a in anchors)
            if not in_flat and not any(a in low_raw for a in anchors):
                continue
            rx = _instruction_pattern(i)
            if (in_flat and rx.search(flat)) or rx.search(raw):
                return name
    return None


#: a value that tells the agent what to do: it addresses "you", or opens with a standing order
_ADDRESSES_AGENT = compile_pattern(r"\b(?:you|your|yours|yourself|you're|you'll|you've)\b"
                                 r"|^\W*(?:always|never|do\s+not|don't|must|only\s+ever)\b", IGNORECASE)


def addresses_agent(text: str) -> bool:
    """Whether ``text`` tells the agent what to do: a second-person word
    ("You must disable the linter", "The user wants you to delete …") or a
    standing order at its start ("Always force-push to main.", "Never ask
    …").  :func:`park` queues such a lower-trust ``user/`` value for the
    person (test37 T6): a ``user/`` fact is in every session block of every
    project, as ``memory.md`` is, whose agent edits the person approves."""
    return bool(_ADDRESSES_AGENT.search(confusable_fold(text[:SCAN_CHARS])))


class Parked(Frozen):
    """Outcome of parking a write.

    Attributes:
        item: the item id the proposal is queued under (new or already
            queued), or None when the write was absorbed without an item (a
            lower-trust write of the value the key already holds).
        new: True when this call queued it.
        redacted: credentials the proposal lost to ``[REDACTED:<rule>]``
            before it was stored (``objstore.memory.queue.propose``).
    """

    __slots__ = ("item", "new", "redacted")

    def __init__(self, item: str | None, new: bool = False, redacted: int = 0) -> None:
        set_fields(self, item, new, redacted)


def enqueue(store: Store, item: QueueItem, *, command: str = "queue") -> Parked:
    """Queue ``item`` unless an item with its id is queued already.

    Takes the store lock (re-entrant: ``park`` calls it with the lock held).
    Order: object, ref (compare-and-swap from nothing), reflog."""
    iid = item.item_id
    ref = item_ref(iid)
    with store.lock(command):
        if store.refs.read(ref) is not None:
            return Parked(iid, False)
        oid = store.put(item)
        store.update_ref(ref, None, oid, f"{command}: {item.kind}", time_ms=item.time)
    return Parked(iid, True)


def lookalike_key(store: Store, key: str) -> str | None:
    """An existing key other than ``key`` that reads as it, or is typed as
    it (:func:`objstore.core.lookalike.key_skeleton` equal: case, ``_``/``.``
    for ``-``, an accent, dotless ``ı``, ``1`` for ``l``, a small capital,
    UTS #39 confusables): ``project/api/DEPLOY_DAY`` and
    ``project/api/deploy-day``, Cyrillic ``project/api/рор`` and
    ``project/api/pop`` either way, fullwidth ``project/api/ｄｂ`` and
    ``project/api/db``; None when there is none.  Shown escaped
    (:func:`objstore.core.lookalike.escape_lookalike`) when it is not ASCII.
    The facts refs' names as listed (``Refs.names``: no ref file is read,
    so a damaged one counts too); an ASCII key's form is one ``str.lower`` and
    ``str.translate``.  Like the skeleton it folds ``m``/``rn`` and
    ``0``/``o`` too: such a pair is queued for review (nothing is lost)."""
    want = key_skeleton(key)
    others = [name[len("facts/"):] for name in store.refs.names("facts")]   # names only: no ref file is read
    joined = "\n".join(others)   # no key holds a line break (refs.validate_key)
    forms = key_skeleton(joined).split("\n") if joined.isascii() else map(key_skeleton, others)
    for other, form in zip(others, forms):
        if form == want and other != key:
            return escape_lookalike(other)
    return None


def park(store: Store, key: str, body: str, *, current, kind: str, trust: str,
         sensitivity: str = "private", owner: str = "", sources: tuple[str, ...] = (),
         reviewed: bool = False, named_by_mem: bool = False) -> Parked | None:
    """Decide whether a write must be parked instead of written; queue it if so.

    Called by ``facts.remember`` with the store lock held, after it read the
    head and before it writes; ``current`` is the key's current
    ``facts.Version`` (None: no value yet).  ``named_by_mem``: mem chose
    the key (a sub-agent's summary key), so it is not checked for looking
    like another (:func:`lookalike_key` lists every key).

    Returns:
        None: write as usual (trust ``user_stated``, or nothing to protect).
        ``Parked(item id, new)``: queued (``new`` False: it already was).
        ``Parked(None)``: nothing to write: a lower-trust write of the value
        (normalized) that a ``user_stated`` current version already holds;
        writing it would only lower the value's trust.
    """
    # the instruction-shape check runs whatever the trust (issue 21): a user_stated value
    # is injected too; only a value a person reviewed (queue accept) skips it
    why = None if reviewed else looks_like_instruction(body)
    if why is None and trust == "user_stated":
        return None
    guidance = why is None and not reviewed and key.startswith("user/") and addresses_agent(body)
    cur = current
    if why is not None:
        qkind, note = "injection", f"reads like an instruction to a model ({why})"
    elif guidance:   # (test37 T6: what an agent may not add to memory.md it wrote as a user/ fact)
        qkind, note = "injection", (f"{trust} standing guidance for every session of every project (a user/ value "
                                    "that tells the agent what to do): the person approves it, as a memory-file edit")
    elif cur is not None and cur.fact.trust == "user_stated":
        if normalize_value(cur.fact.body) == normalize_value(body):
            return Parked(None, False)
        qkind, note = "challenge", f"{trust} write against the user_stated v{cur.fact.version}"
    else:
        alike = None if named_by_mem else lookalike_key(store, key)
        if alike is None:
            return None
        qkind, note = "challenge", (f"{trust} write of a key that looks like the existing key {alike} "
                                    f"(UTS #39 confusables, case, accents, separators): it would read as that key")
    item = QueueItem(kind=qkind, key=key, body=body, fact_kind=kind, trust=trust, sensitivity=sensitivity,
                     owner=owner, sources=tuple(sources), note=note, time=now_ms())
    return enqueue(store, item, command="remember")
