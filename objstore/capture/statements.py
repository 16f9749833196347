""""Remember that …" in a prompt: the person states a fact, so it is written
at once as ``user_stated`` (issue: derive, item 6).

:func:`statement_of` recognises a prompt (or a sentence of it) that starts
with ``remember that``, ``remember this``, ``remember:``, ``remember,``, ``remember -``,
``remember the following:``, ``remember for later:`` (``for next time``, ``for
the record``, a label in brackets: ``remember (for later):``), ``don't
forget:``, ``note to self:``, a bracket label ``[note]`` or ``(remember)``, ``can/could/would/will you remember that …?``
(test31 U9; a form with no "that"/"this" whose statement is a task,
``_TODO``/``_TASK``, states nothing),
``please remember X is Y`` (a bare "remember" after "please" or "pls",
followed by one statement: a copula or an assignment, no question, no
exclamation, no second clause; never a bare "Remember the api is on fire,
fix it now!": test30b S15; "Remember X is Y" without "please" since
session 36, its copula in the present tense, test35 T9), each also after ``please``/``pls``, ``note
that`` or ``keep in mind that`` (a bare statement only, :func:`_note_statement`,
test33 T11) or ``don't forget that``, and returns the statement.
Only the person's own words count: the cue must open the prompt's first
non-blank line or a sentence of it, and the statement ends at that line's
end.  A cue on a later line (a pasted log, README or issue), in a quoted
(``>``) or fenced (```` ``` ````) line is not a statement, unless the lines
before it down to the first are each the person's statements
(:func:`further_statements`, test33 T13: every one is written).
:func:`remember_statement` writes it under a deterministic key,
``<scope>/remembered/<the content words of the statement's subject>``
(``statementkey.named``: what comes before its first ``is``/``=``/``:``, so
the value is in the body, which ``forget --match`` empties, not in a name;
a ``remembered/`` key whose name holds a ``--match`` text is forgotten whole
and tombstoned by hash, ``objstore.memory.forgetplan``), scope being
the project of the working directory (else ``user``), with the prompt's
source as the evidence, and returns the result the caller confirms in the
injected context.  A statement holding a credential is redacted by
``remember``; one over :data:`MAX_CHARS` is cut at a sentence end.

A statement that names a secret ("Hunter2x9! is the admin password", "4821 is
my door pin": the head noun of what follows its copula is a password,
passphrase, passcode, pin, token, secret or key) has every password-shaped
token of its subject (a digit, or a symbol) replaced by a redaction marker and
is keyed from that predicate (``…/remembered/admin-password``;
:func:`guard_secret_subject`, test16 F12): the secret is never a key's name,
even when no redaction rule takes it.

The key is made from the statement with every credential removed
(``redact.remove_credentials``), so no part of a secret, nor a redaction
marker, is ever in a key, a ref file name, the audit log or a tombstone.
Distinct statements get distinct keys: when the key of the subject
already holds a different statement (its content words differ), the
new one is written under that key plus ``-`` and the first 8 hex digits of
the SHA-256 of its content words, so it never supersedes the other.  The
same statement again (case, punctuation and stop words aside) keeps its
key.  A new value of the same subject (both statements named by the same
words before their copula: "the shop deploy day is Thursday" after "… is
Friday", test29 P16) is the key's next version: the person restated it,
and the earlier value stays in the key's history (``mem log``).  So is a
statement that says the same words but for its values ("the api listens on
port 9090" after "… on port 8080", no copula: test30 R5), and a possessive
``'s`` names what the word alone names ("the api's port" is "the api port").  A
statement written late (below) supersedes only a value said before its
prompt (test31 U11).

A statement is never lost: the prompt hook writes it with the prompt's turn
under one store lock (``capture.live.capture_prompt``); when the hook could
not (the store was locked, its budget ran out, it was killed), the
transcript sync that later stores the prompt's turn writes it
(:func:`write_statement` with ``late=True``): once, since only a turn the
sync adds leads to a write, as the hook would have (a restated value the
key's next version), but never over a value said after the prompt
(the value's cited turn's time, else its ``recorded_at``) nor one forgotten
since.

The redaction rules (:mod:`objstore.core.redact`) are imported where a
statement is read, not with this module: the import's catch-up loads it
(through ``sync``) and, with nothing new, writes no statement (~4 ms).
"""

from __future__ import annotations


from objstore.core.errors import MemError, Refused
from objstore.core.objects import normalize_value
from objstore.core.refs import fact_ref
from objstore.capture.statementkey import clauses, name_before, named as _named, own_value, statement_key
from objstore.capture.statementwords import (ASK_LEAD, JUDGED, SENTENCE_BREAK, STOP_WORDS, WORD_RUN,
                                             content_words as _content_words, guard_secret_subject,
                                             taken_value, without_request)
from objstore.core.takeback import SOFT_TAKE_BACK_PHRASES, TAKE_BACK_PHRASES
from objstore.core.text import STATEMENT_COPULA, LazyPattern
from objstore.core.store import Store, now_ms
from objstore.memory.scope import project_aliases
from objstore.memory.served import hider

MAX_CHARS = 600
#: compiled on first use: most prompts are ASCII and hold none of :data:`CUE_WORDS`
#: (the prompt hook of a new process need not compile it, ~0.3 ms)
#: a cue opens the prompt's line or a sentence of it, after lead-in words ("Also, remember that …", "btw
#: remember that …", "FYI: remember that …", "Make sure to remember that …") or mid-sentence as "… and
#: remember that …" (test32 X1: those stored nothing and said nothing; test36 T20: "Hey, remember that …");
#: each lead-in's separator is read one way
#: only (two optional blanks around an optional comma gave every blank two ways: "ok " * 25 + "remember" took
#: seconds, each word doubling it, test32b Y12)
STATEMENT_CUE = LazyPattern(r"(?:^|(?<=[.!?])|(?<=\s)(?=and\s+(?:also\s+)?remember\s+(?:that|this)\b))\s*"
                   r"(?:(?:also|and|ok(?:ay)?|btw|by\s+the\s+way|fyi|oh|so|plus|but|then"
                   r"|(?:hey|hi|hello)(?:[ \t]+(?:claude|codex|there))?)(?:[ \t]*[:,][ \t]*|[ \t]+))*"
                   r"(?:(?:make|be)\s+sure\s+(?:to|you)\s+(?=remember\b))?(?:(?P<ask>(?:can|could|would|will)\s+you\s+(?:please\s+)?)"
                   r"(?=remember\s+(?:that|this)\b)|(?P<please>(?:please|pls|plz)\s*,?\s+))?"
                   r"(?:remember(?:\s+(?:that|this)\s*[:,\-\u2013\u2014]?|\s*[:,]|\s+[-\u2013\u2014]"
                   r"|\s+(?:the\s+following|for\s+(?:later|now|next\s+time|(?:the\s+)?future(?:\s+reference)?"
                   r"|the\s+record|reference))\s*[:,\-\u2013\u2014]|\s*\((?:for\s+)?[\w ]{1,24}\)\s*[:,\-\u2013\u2014]?"
                   r"|(?P<bare>\s))"
                   r"|(?P<note>note\s+that)|note\s+to\s+self\s*[:,\-\u2013\u2014]|(?P<label>[\[(](?:note|remember)[\])])\s*[:,\-\u2013\u2014]?"
                   r"|(?P<mind>keep\s+in\s+mind\s+that)|(?:don'?t|do\s+not)\s+forget(?:\s+that|\s*[:,]|\s+[-\u2013\u2014]))"
                   r"\s*(?P<what>.+)", 18)   # re.I | re.S
#: what a bare "remember X" (no "that", no colon) may not start with: a plan or a question, not a statement
_NOT_STATED = LazyPattern(r"(?:to|when|what|how|if|why|where|who|whether|me|us|you|him|her|them|the\s+following)\b",
                          2)   # re.I: ("remember the following files are generated": a list's opening, no fact)
#: what the asked form's statement may not be ("can you remember that for me?", "… that too?")
_NOT_ASKED = LazyPattern(r"(?:for\s+(?:me|us|later|now)|too|as\s+well|please|ok(?:ay)?)?\s*$", 2)   # re.I
#: a task's opening verb after a cue with no "that"/"this" ("don't forget: push the tag"): a to-do, not a fact
_TODO = LazyPattern(r"(?:to\s+)?(?:run|fix|push|deploy|merge|commit|check|call|email|send|buy|ping|tell|ask|"
                    r"review|update|bump|release|tag|rebase|start|stop|skip|pick|book|pay|renew)\b"
                    r"|(?:to\s+)?(?P<copula_free>clean|remove|delete|add|write|install|upgrade|migrate|rename|refactor|"
                    r"finish|submit|cancel|reply|follow\s+up|investigate|look\s+into|ship|rerun|retry|revert|restart|"
                    r"reboot|rotate|grab|pull|rewrite|remind|text|message|order|return|collect|print|sign|clear|"
                    r"backport|document|water|feed|walk|pack)\b"
                    r"(?=\s+(?:the|a|an|up|out|all|my|our|your|this|that|these|those|it|them|some)\b)"
                    r"(?!.*(?:\s(?:is|are|was|were)\s|[=:]))", 2)   # re.I
#: (the second list: verbs that also name a thing, "upgrade path is …", "order ids are …": a to-do only with
#: an object or particle right after them and no copula; cue31's left-out "note to self: clean up the cache dir";
#: "order of migrations matters", "clean build takes 20 minutes" are facts, test32b Y5)
#: a word every match of :data:`STATEMENT_CUE` holds
CUE_WORDS = ("remember", "note", "keep", "forget")
_STOP = STOP_WORDS
#: what ends a statement's subject (:data:`objstore.core.text.STATEMENT_COPULA`)
_COPULA = STATEMENT_COPULA


#: a short label before a colon that opens a bare cue's statement ("for later:", "important:", "fyi:"):
#: not its subject (the key was named "later" and the next such prompt replaced the value: test30b S20)
_LABEL = LazyPattern(r"^(?:(?:that|this)\s+)?(?:for\s+(?:later|now|(?:the\s+)?future|next\s+\w+|the\s+record)|"
                     r"important|fyi|note|heads\s+up|btw|(?:as\s+a\s+)?reminder|key\s+point|"
                     r"(?:(?:this|a|one)\s+)?(?:fact|thing))"
                     r"\s*[:,\-\u2013\u2014]\s+(?=\S)", 2)   # re.I
#: an instruction after a bare cue's statement ("… so run only the unit ones", "… and don't push"): a task
_TASK = LazyPattern(r"\b(?:so|then|and|but)\s+(?:please\s+)?(?:run|do|don'?t|never|always|fix|use|make|push|"
                    r"deploy|skip|stop|start)\b|\bdo\s+not\b|\bdon'?t\b", 2)   # re.I
#: thanks or please closing a statement ("…, thanks!"): not part of it (test30c T3)
_THANKS = LazyPattern(r"[\s,;.!]*\b(?:thanks|thank\s+you|thx|ty|please|pls)\b[\s.!]*$", 2)   # re.I


#: a clause's mark after a bare statement's copula; "that"/"this" in a statement's cue
_CLAUSE_MARK = LazyPattern(r"[,;]")
_THAT_THIS = LazyPattern(r"\b(?:that|this)\b", 2)   # re.I


def _bare_statement(what: str, present: bool = False) -> bool:
    """Whether the words after a bare "remember" (no "that", "this" nor a
    colon) state a fact: a subject holding a content word, then a copula
    or an assignment; never a plan ("to …"), a question word's clause, an
    object pronoun ("remember me"), nor a question ("… was down?", test30b
    S2).  ``present``: the copula may not be "was"/"were" ("Remember the db
    was down last week" recalls a time: the bare cue without "please",
    session 36, test35 T9)."""
    if _NOT_STATED.match(what):
        return False
    first = SENTENCE_BREAK.split(what.split("\n", 1)[0].strip(), maxsplit=1)[0]   # its first sentence
    m = _COPULA.search(f" {first} ")
    if m is None or first.rstrip().endswith(("?", "!")) or _CLAUSE_MARK.search(first[m.end() - 1:]) \
            or _TASK.search(first) or present and m.group(0).strip() in ("was", "were"):
        return False   # a question, an exclamation, a clause after it ("…, so run only the unit ones"): a task
    return any(w not in _STOP for w in WORD_RUN.findall(normalize_value(first[:max(m.start() - 1, 0)])))


#: a second cue in a statement's sentence ("… is 60s and remember that the queue is sqs")
_AND_CUE = LazyPattern(r"\s+and\s+(?:also\s+)?remember\s+(?:that|this)\b", 2)   # re.I
#: a standing rule opening what follows an explicit cue ("remember: don't push to main", "… do not use tabs")
_RULE = LazyPattern(r"(?:don[\u2019']?t|do\s+not|never|always)\s+(?=\w)", 2)   # re.I
#: what makes a "note that …" context of the task at hand, not a fact to keep: a word pointing at it ("this
#: function", "for this test", "right now"), the agent addressed ("when you write the client"), the person's
#: own doing ("I'm using …")
_HERE_AND_NOW = LazyPattern(r"\b(?:this|these|here|you|your|i|i[\u2019']m|we[\u2019']re)\b|\bright\s+now\b", 2)   # re.I


def _note_statement(what: str) -> bool:
    """Whether the words after "note that" / "keep in mind that" state a
    fact to keep: one bare statement (:func:`_bare_statement`) alone on its
    line (a take-back aside), none of :data:`_HERE_AND_NOW`'s words; never
    "the build is broken right now. Fix it please." nor "this function is
    O(n^2), can you make it faster" (test33 T11: served as stored truth in
    every later session)."""
    line = _THANKS.sub("", what.split("\n", 1)[0]).strip()
    if not _bare_statement(line) or _HERE_AND_NOW.search(line):
        return False
    end = _SENTENCE_END.search(line)
    rest = line[end.end():].strip() if end else ""
    return not rest or bool(TAKE_BACK_RE.match(f". {rest}") or _SOFT_BACK.match(f". {rest}"))


def statement_of(prompt: str) -> str | None:
    """The stated fact of a "remember that …" prompt, or None; a secret
    named by its predicate ("X is the admin password") already replaced by
    a redaction marker (:func:`guard_secret_subject`).  A statement joining
    two of their own subjects ("… runs on port 5432 and the deploy day is
    Tuesday") states its first here, the others in
    :func:`further_statements` (``statementkey.clauses``: test35 T1)."""
    what = _whole_statement(prompt)
    return clauses(what)[0] if what is not None else None


#: a word opening a statement that says it corrects an earlier one, no part of it ("remember: actually the
#: staging db port is 6543 now": ``staging-db-port``'s next version, not ``actually-staging-db-port``, test35 T2);
#: "in fact", "indeed", "really" with a comma after them ("in fact tables …" is about fact tables, test35b T13)
_CORRECTING = LazyPattern(r"^(?:actually\b[\s,:;\u2014\u2013-]*|(?:in\s+fact|indeed|really)\s*[,:;\u2014\u2013-]\s*)(?=\w)",
                          2)   # re.I


def _whole_statement(prompt: str) -> str | None:
    """:func:`statement_of` before it is split into its clauses."""
    first = (prompt or "").lstrip().split("\n", 1)[0]   # the person's own line, not a pasted block
    if first.lstrip().startswith((">", "```", "~~~")):
        return None
    if first.isascii() and not any(w in first.lower() for w in CUE_WORDS):
        return None   # (re.I also folds a few non-ASCII letters onto k and s: those prompts run the pattern)
    m = STATEMENT_CUE.search(first)
    if not m:
        return None
    what = _AND_CUE.split(m.group("what"), 1)[0].strip()   # "A and remember that B": A, then B (test33 T13)
    if (nxt := next_take_back(prompt)) is not None:   # "… 5432." LF "Actually, 6543." (test32b Y2, Y7)
        what = f"{what}{'' if what.endswith(('.', '!', '?', ';', ',')) else '.'} {nxt}"
    what = _LABEL.sub("", what, count=1)   # "please remember for later: X" states X (test30b S20, test30c T2)
    what = _CORRECTING.sub("", what.lstrip(), count=1)
    if m.group("ask") is not None:   # "can you remember that X?": X, without the question mark (test31 U9)
        what = _THANKS.sub("", what.split("\n", 1)[0]).rstrip().rstrip("?").rstrip()
        if _NOT_ASKED.match(what):
            return None   # "can you remember that for me?": no statement
    rule = _RULE.match(what)   # "remember: don't push to main" is a standing rule, as "… never push" (test33 T12)
    if m.group("bare") is None and not _THAT_THIS.search(m.group(0)[:m.start("what") - m.start()]) \
            and ((rule is None and _TODO.match(what)) or _TASK.search(what.split("\n", 1)[0][rule.end() if rule else 0:])):
        return None   # "don't forget: push the tag", "note to self: run the tests": a task, no fact (test31 U9)
    if m.group("bare") is not None:
        what = _THANKS.sub("", what)
        if not _bare_statement(what, m.group("please") is None):
            return None   # "remember to run the tests", "remember when …": no statement of a fact (test30 R11)
    elif m.group("label") is not None and not _bare_statement(what):
        return None   # "[note] see the README", "(remember) this PR touches auth, review it": no fact (test32b Y5)
    elif (m.group("note") or m.group("mind")) is not None and not _note_statement(what):
        return None   # "Note that the build is broken. Fix it please.": context for the task at hand (test33 T11)
    back = TAKE_BACK_RE.search(what.split("\n", 1)[0], 3)
    if back is not None and _SAID_BEFORE.search(what[back.end():].split("\n", 1)[0]):
        back = None   # "… 5432. My mistake, I told you 5433 yesterday.": the earlier value taken back (test32b Y1)
    if back is not None and (first_end := _SENTENCE_END.search(what)) is not None and back.start() >= first_end.start():
        back = None   # a take-back of a later sentence ("… 6543. The cache is lime-3, no wait, lime-4": test32b Y15)
    fix = soft = None
    if back is None and (soft := _SOFT_BACK.search(what.split("\n", 1)[0], 3)) is not None \
            and (first_end := _SENTENCE_END.search(what)) is not None and soft.start() >= first_end.start():
        soft = None   # "… 5432. The cache is lime-3, I mean lime-4": a later sentence's
    if soft is not None:   # "Actually, it's 6543", "I mean 6543", "Sorry, 6543": a take-back only with a new value
        head = without_request(what[:soft.start()].strip().rstrip(".!").strip())   # (test33b T7)
        rest = what[soft.end():].split("\n", 1)[0]
        if (got := _corrected(head, rest) or _in_clauses(head, rest) or _restated(rest, head)) is not None:
            return _guarded(got)
    if back is not None:   # "… fig-9. Scratch that, remember that …", "… 5433 — no wait, 5434" (test31c W16)
        rest = what[back.end():].split("\n", 1)[0]
        again = STATEMENT_CUE.search(rest)
        if again is not None:
            return _whole_statement(rest[again.start():].lstrip(" ,;:.!\u2014\u2013-"))   # the restated one wins
        what, fix = what[:back.start()], rest
    # a sentence ends at . ! ? and a blank, not before a copula: "Hunter2x9! is the admin password" (test16 F12)
    end = _SENTENCE_END.search(what)
    what = what[: end.start()] if end else what
    what = without_request(what.strip().rstrip(".!").strip())   # "… 8080 and update the config" (test33b T7)
    # a whole statement after "Correction:" is what the person meant, after another take-back ("Never mind, the
    # docs are wrong") only the same subject's
    said = "" if back is not None and "correction" in back.group(0).casefold() else what
    if fix is not None and (what := _corrected(what, fix) or _in_clauses(what, fix) or _restated(fix, said)) is None:
        return None   # taken back with no new value said ("… kiwi-17. Just kidding."): nothing to remember
    if what.endswith("?") and (ask := _ASK_AFTER.search(what)) is not None and ask.start() > 2:
        what = what[:ask.start()].rstrip(" ,;.!")   # "… pg-3, can you update the config?": the statement (Y6)
    if what.endswith("?"):
        return None   # "… and remember that the db was reset?", "Oh, remember that bug?": a question (test32b Y6)
    return _guarded(what)


def _guarded(what: str) -> str | None:
    """A read statement as stored: None under 3 characters, cut at
    :data:`MAX_CHARS`, a secret subject redacted (:func:`guard_secret_subject`)."""
    if len(what) < 3:
        return None
    if len(what) > MAX_CHARS:   # cut before a credential crossing it, at a word's end (T19)
        from objstore.core.redact import redact_cut   # deferred, as every use of the rules here (module doc)
        what = redact_cut(what, MAX_CHARS)[0].rstrip()
    return guard_secret_subject(what)[0]


def next_take_back(prompt: str) -> str | None:
    """The prompt's second line when it opens with a take-back (:data:`TAKE_BACK_RE`,
    :data:`_SOFT_BACK`: "Actually, it's 6543.", "Correction: 4712."), stripped, else None: the
    person took back their first line on the next (test32b Y2)."""
    lines = (prompt or "").lstrip().split("\n", 2)
    nxt = lines[1].strip() if len(lines) > 1 else ""
    if nxt and (TAKE_BACK_RE.match(f". {nxt}") or _SOFT_BACK.match(f". {nxt}")):
        return nxt
    return None


def taken_back_in(sentence: str) -> tuple[str, str, str | None] | None:
    """A sentence that takes its own value back, read as the prompt hook reads
    a statement's (test39b B15: "The db port is 5432 - wait, no, 6543."):
    ``(what it took back, what follows the take-back, the statement with the
    new value or None)`` ("The db port is 5432", "6543.", "The db port is
    6543"), else None: no take-back phrase (:data:`TAKE_BACK_RE`) after its
    first words, one of a value said before ("… 5432, my mistake, I told
    you 5433 yesterday": test32b Y1), or a softer one (:data:`_SOFT_BACK`,
    "…, I mean 6543") no new value follows."""
    back = TAKE_BACK_RE.search(sentence, 3)
    if back is not None and _SAID_BEFORE.search(sentence[back.end():]):
        return None
    soft = _SOFT_BACK.search(sentence, 3) if back is None else None
    at = back or soft
    if at is None:
        return None
    head, rest = sentence[:at.start()], sentence[at.end():]
    said = without_request(head.strip().rstrip(".!").strip())
    new = _corrected(said, rest) or _in_clauses(said, rest) or _restated(rest, said)
    return None if soft is not None and new is None else (head, rest, new)


def _restated(fix: str, said: str = "") -> str | None:
    """The first sentence of what follows a take-back when it is a whole
    statement (a copula, a subject of content words: "Correction: the db
    port is 6543."), else None; with ``said`` (a softer take-back,
    "Actually, the db port is 6543") only one naming the same subject (test32b Y2)."""
    new = fix.strip().lstrip(" ,;:.!\u2014\u2013-")
    end = _SENTENCE_END.search(new)
    new = (new[:end.start()] if end else new).strip().rstrip(".!").strip()
    if not new or new.endswith("?") or _COPULA.search(f" {new} ") is None:
        return None
    words, of_subject = _named(new)
    return new if of_subject and (not said or _named(said) == (words, True)) else None


def restated_after(fix: str) -> str | None:
    """The whole statement a take-back line says after its phrase and an "I
    meant" (:func:`_restated`: "sorry, I meant the staging api host is
    api-stg-2" -> "the staging api host is api-stg-2"), else None ("Correction:
    6543", a line opening with no take-back)."""
    m = TAKE_BACK_RE.match(f". {fix}") or _SOFT_BACK.match(f". {fix}")
    return _restated(_FIX_LEAD.sub("", f". {fix}"[m.end():].strip(), count=1)) if m is not None else None


#: the person taking back what they just said, opening the next sentence or after a dash or comma in the
#: statement's own ("Scratch that", "Just kidding.", "Never mind.", "— no wait, 5434", "Correction: 6543",
#: "Actually no, make it 6000"); not "never mind the docs" (the phrase is followed by a stop, a comma or a
#: dash); :func:`_corrected` reads what follows (test31c W16; recall's rule 8 reads the same phrases,
#: ``restated.WRONG_NEXT_RE``; the phrases: ``core.takeback.TAKE_BACK_PHRASES``)
TAKE_BACK_RE = LazyPattern(r"(?:[.!?;,\u2014\u2013]|\s--?)\s*(?:" + "|".join(TAKE_BACK_PHRASES) +
                         r")(?=\s*(?:[.!,;:\u2014\u2013-]|$))[.!,;:\u2014\u2013-]*", 2)   # re.I
#: a softer take-back ("Actually, it's 6543", "I mean 6543", "Sorry, 6543", "or rather 6543"): one only when a new
#: value or the same subject's statement follows (:func:`_corrected`, :func:`_restated`), else no take-back ("… is
#: ok, sorry for the noise"; "Actually, the cache is lime-3" states another subject: test32b Y2)
_SOFT_BACK = LazyPattern(r"(?:(?:[.!?;,\u2014\u2013]|\s--?)\s*(?:" + "|".join(SOFT_TAKE_BACK_PHRASES) + r"|err?|erm|uh|um)\b"
                         r"|\s*\(\s*(?:no|sorry)\s*,"   # ("… -- actually make it X", "…, er, bob", "… 3 (no, 5)": test33 T1)
                         r"|(?:\.{2,}|\u2026)(?=\s*[^\s.\u2026]+\s+actually\b))"   # ("b1... b2 actually": test33b T15)
                         r"[\s,;:.!\u2014\u2013-]*", 2)   # re.I
#: a request closing a statement ("… pg-3, can you update the config?", "… and could you restart it?"): the
#: statement before it is said (test32b Y6), a question of the statement's own ("… the db was reset?") none
_ASK_AFTER = LazyPattern(ASK_LEAD + r"[^?]*\?[\s?!]*$", 2)   # re.I
#: what opens a take-back's new value ("make it 6000", "it is 6000", "I mean 6000", "should be 6000"); re.I
_FIX_LEAD = LazyPattern(r"^(?:(?:make|call)\s+(?:it|that)|(?:it|that)(?:[\u2019']s|\s+is|\s+should\s+be)|"
                        r"i\s+mean(?:t)?|should\s+be|(?:it\s+)?(?:was|is))?\s*(?:(?:still|actually|really)\s+)?", 2)


#: where a statement's first sentence ends: . ! ? and a blank, not before a copula ("Hunter2x9! is the admin
#: password", test16 F12); a take-back counts only within it or opening the next one (test32b Y15)
_SENTENCE_END = LazyPattern(r"(?<=[.!?])\s(?!\s*(?:is|was|are|were)\s)", 2)   # re.I
#: closing words after a take-back, no new value ("Never mind, thanks!", "Scratch that, that's all": test32b Y1
#: stored "the deploy day is thanks")
_CLOSING = LazyPattern(r"^(?:[\s,;.!]*\b(?:thanks|thank\s+you|thx|ty|please|pls|that[\u2019']?s\s+(?:all|it)|ok(?:ay)?|"
                       r"sorry|cheers|all\s+good|great|cool|perfect|nice|good|fine|awesome|got\s+it|no\s+worries)\b)+"
                       r"[\s.!]*$", 2)   # re.I: ("Never mind, great.": a closing, no new value, test32b Y1)
#: a take-back of a value said BEFORE this prompt ("My mistake, I told you 5433 yesterday"): the statement stands
_SAID_BEFORE = LazyPattern(r"\b(?:i|we)\s+(?:told|said|wrote|gave|sent)\b|\b(?:yesterday|earlier|before|last\s+time)\b",
                           2)   # re.I


def _corrected(statement: str, fix: str) -> str | None:
    """``statement`` with its value replaced by the one a take-back says
    after it ("the db port is 5432" + "6543." -> "the db port is 6543"), or
    None (nothing to remember) when the take-back says no single new value
    (nothing, "I'll check later", a stop word: "I mean it") or the statement has no one value to
    replace: its whole predicate (after :data:`_COPULA`) a token, else its
    one token with a digit ("the api listens on port 9090, no wait, 9091"),
    test31c W16."""
    fix = taken_value(statement, fix, _SOFT_BACK, TAKE_BACK_RE)   # "8081, not 8080", "q2 now", "mq2 is the host"
    new = _FIX_LEAD.sub("", _CLOSING.sub("", fix.strip()), count=1).strip().rstrip(".!)").strip()
    m = _COPULA.search(f" {statement} ")
    head, pred = (statement[:m.end() - 1], statement[m.end() - 1:]) if m else ("", statement)
    if m is not None and 1 < len(new.split()) == len(pred.split()) <= 3 and any(c.isdigit() for c in new) \
            and any(c.isdigit() for c in pred) and TAKE_BACK_RE.search(f". {new}") is None:
        return head + new   # "the gpu box os is ubuntu 22" + "debian 12": a value of words and a number (test36 T4)
    if not new or len(new.split()) != 1 or TAKE_BACK_RE.search(f". {new}") is not None or new.casefold() in _STOP \
            or _CLOSING.match(new) or JUDGED.match(new):    # "Actually, it's fine": no new value (test33b T2)
        return None
    if m is not None and len(pred.split()) == 1:
        return head + new
    held = [t for t in pred.split() if any(c.isdigit() for c in t)]
    if len(held) != 1 or not any(c.isdigit() for c in new):
        return None
    import re   # (a pattern of the statement's own value)
    return head + re.sub(rf"(?<!\S){re.escape(held[0])}(?!\S)", lambda _m: new, pred, count=1)


def _in_clauses(statement: str, fix: str) -> str | None:
    """A take-back after a statement of several facts ("the api port is
    8080 and the db port is 5432. Correction: 5433", "… Scratch that, the
    queue is rabbitmq", "…, sorry, I mean the api port is 9090": test36
    T10, which stored nothing or the stale value): the statement with the
    one fact the take-back names replaced by the restated one (its subject
    said again), else with its last fact's value replaced by the one new
    value said (:func:`_corrected`); its facts joined by "and" again (split
    by ``statementkey.clauses``), or None (one fact; nothing read)."""
    parts = clauses(statement)
    if len(parts) < 2:
        return None
    new = _restated(_FIX_LEAD.sub("", fix.strip().lstrip(" ,;:.!\u2014\u2013-"), count=1))
    subject = _named(new)[0] if new is not None else None
    at = next((i for i, p in enumerate(parts) if subject and _named(p)[0] == subject), None)
    if at is None and (new := _corrected(parts[-1], fix)) is not None:
        at = len(parts) - 1
    if at is None or new is None:
        return None
    return " and ".join([*parts[:at], new, *parts[at + 1:]])


def remember_statement(store: Store, prompt: str, *, project: str | None, source: str = "",
                       command: str = "hook remember", update: bool = True, later: list | None = None,
                       said_at: int = 0):
    """Write the statement of a "remember that …" prompt as ``user_stated``,
    and each further one it states (:func:`further_statements`; one refused,
    a sealed key, is skipped); returns the first's ``facts.RememberResult``
    or None when the prompt states nothing.
    ``update``: a new value of a subject already stated is its key's next
    version (:func:`statement_key`).  ``later``: as ``facts.remember``'s.
    ``said_at``: when the prompt was said (ms since the epoch; 0 unknown):
    a key whose value was said after it (:func:`_said_at`, and not after
    now: a clock running ahead said nothing since) keeps that value, as
    the late write does (test36 T19: two sessions' prompts stored by their
    hooks' children in the order they won the store lock).
    Raises as ``facts.remember`` (StoreLocked, Refused for a sealed key) for the first."""
    what = statement_of(prompt)
    if what is None:
        return None
    try:
        first = _remember(store, what, project, source, command, update, later=later, said_at=said_at)
    except MemError as e:
        first = e
    for more in further_statements(prompt):
        _remember(store, more, project, source, command, update, skip_refused=True, later=later,
                  said_at=said_at)
    if isinstance(first, MemError):
        raise first
    return first


def _remember(store: Store, what: str, project: str | None, source: str, command: str, update: bool = True,
              skip_refused: bool = False, later: list | None = None, said_at: int = 0):
    """Write one statement under its key (:func:`statement_key`), and (``update``) as the next version of each
    other key of its subject holding another value (``statement_key``'s ``stale``: a store that filed
    one subject under two keys, test33b T12; one sealed is left as it is); returns the first write's result,
    None when ``skip_refused`` and it was refused (``MemError``: a sealed key), or when the key holds
    another value said after ``said_at`` (:func:`remember_statement`).  ``later``: as
    ``facts.remember``'s."""
    from objstore.memory.facts import remember  # defer: a prompt that states something (most state nothing)
    stale: list[str] = []
    key = statement_key(what, project, store, update, stale)
    if said_at and _said_since(store, key, what, said_at):
        return None
    try:   # (a statement about the person in their user key: its value alone when that is how the key holds it)
        done = remember(store, key, own_value(store, key, what) if key.startswith("user/") else what,
                        trust="user_stated", owner="user", sources=(source,) if source else (), command=command,
                        later=later)
    except MemError:
        if not skip_refused:
            raise
        return None
    for other in stale:   # (test33b T12)
        try:
            remember(store, other, what, trust="user_stated", owner="user", sources=(source,) if source else (),
                     command=command, later=later)
        except MemError:   # a sealed key: its value stands
            pass
    return done


class ForgottenTextStatement(Refused):
    """A "remember that …" prompt holding a ``forget --match`` text: its
    turn is kept with the text withheld, no fact is written (exit 6)."""


def forgotten_text_refusal() -> ForgottenTextStatement:
    """The refusal a "remember that …" prompt holding a ``forget --match``
    text gets (``sync.write_stated`` skips it, :func:`write_statement`
    raises it), for the prompt hook to say in words, as its other
    refusals (test42 T23: it was dropped without a word, so the agent
    answered as if stored, or the hook wrote it in the clear when the
    transcript sync had stored the turn first).  Never quotes the text."""
    return ForgottenTextStatement("it holds a text you forgot (mem forget --match); this prompt is kept with that text withheld",
                   hint="to keep it anyway, run 'mem remember KEY VALUE' yourself (your own write is allowed "
                        "after a forget)")


def further_statements(prompt: str) -> list[str]:
    """The statements a prompt states after its first (:func:`statement_of`),
    in order, each once and none equal to the first: a later sentence of the
    first line opening with a cue ("… is 60s. Also remember that the queue is
    sqs."), and each line right after it that opens with a cue (the person
    typed a list: "remember that A\nremember that B"), up to the first line
    that does not (a paste); test33 T13: only the first was kept.  Each
    statement's further clauses of their own subject too ("… and the deploy
    day is Tuesday": ``statementkey.clauses``, test35 T1).  [] for most
    prompts (no cue word, or one statement)."""
    text = (prompt or "").lstrip()
    first, _nl, rest = text.partition("\n")
    if first.isascii() and not any(w in first.lower() for w in CUE_WORDS):
        return []
    whole = _whole_statement(text)
    if whole is None:
        return []
    said, *out = clauses(whole)   # "… 5432 and the deploy day is Tuesday" (test35 T1)
    out = [c for i, c in enumerate(out) if c != said and c not in out[:i]]
    lines = [line.strip() for line in text.split("\n")]
    for i, line in enumerate(lines):
        cue = STATEMENT_CUE.match(line) if i else STATEMENT_CUE.search(line)
        if i and cue is None or line.startswith((">", "```", "~~~")):
            break   # a line that is not the person's next statement: the rest is theirs to paste
        while cue is not None:
            if i or out or cue.start("what") != STATEMENT_CUE.search(line).start("what"):   # (the first: ``said``)
                got = _whole_statement("\n".join(lines[i:]) if cue.start() == 0 else line[cue.start():])
                for part in clauses(got) if got is not None else ():
                    if part != said and part not in out:
                        out.append(part)
            cue = STATEMENT_CUE.search(line, cue.start("what"))
    return out


def _said_at(store: Store, fact) -> int:
    """When the statement held by ``fact`` (a version of a ``remembered/``
    key) was said, ms since the epoch: the time of the turn it cites (the
    prompt) when that is earlier than its ``recorded_at`` (a late write is
    recorded after its prompt), else its ``recorded_at``."""
    at = fact.recorded_at
    for src in (getattr(fact, "sources", None) or ())[:1]:
        try:
            turn = store.get(src)
        except (MemError, ValueError):   # a source that is a file, a URI, gone or lost ("lost:…"): the time written
            continue
        ts = getattr(turn, "timestamp", 0) or 0
        if getattr(turn, "role", "") == "user" and 0 < ts < at:
            at = ts
    return at


def _said_since(store: Store, key: str, what: str, said_at: int) -> bool:
    """Whether ``key`` holds a value other than statement ``what`` said
    after ``said_at`` (ms) and not in the future (:func:`remember_statement`)."""
    head = store.refs.read(fact_ref(key))
    if head is None:
        return False
    try:
        held = store.get(head)
    except (MemError, ValueError):   # a head lost to damage (fsck --repair's placeholder): the statement is its next
        return False
    at = _said_at(store, held)
    return said_at < at <= now_ms() \
        and _content_words(getattr(held, "body", "") or "") != _content_words(what)


def write_statement(store: Store, prompt: str, *, cwd: str = "", source: str = "",
                    command: str = "hook remember", late: bool = False, said_at: int = 0,
                    later: list | None = None):
    """Write the statement of a "remember that …" prompt typed in ``cwd``
    (its project: ``project_aliases(cwd, store_root=store.root)[0]``, as
    the hooks name it),
    citing ``source``; returns ``facts.RememberResult`` or None.

    ``late``: the prompt was typed earlier, at ``said_at`` (ms since the
    epoch, 0 unknown), and its hook did not write the statement (a
    transcript sync stores its turn now): written as the hook would have
    written it (:func:`statement_key`, a restated value its key's next
    version: test31 U11) when its key holds no value or the key's value was
    said before ``said_at`` (:func:`_said_at`); a value said at or after
    the prompt (the hook's write, a value the person set since) stands, as
    does the same statement, and nothing is written when ``said_at`` is
    unknown and the key holds a value, or the value was forgotten since (a
    tombstone).
    A prompt that states nothing (most of them) returns None before its
    project is looked up (the registry read, the identity and path rules:
    the prompt hook runs this on every prompt).  ``later``: as
    ``facts.remember``'s.  Raises as ``facts.remember``; a prompt typed now
    (not ``late``) holding a ``forget --match`` text of the store raises
    :class:`ForgottenTextStatement` (:func:`forgotten_text_refusal`)."""
    what = statement_of(prompt)
    if what is None:
        return None
    aliases = project_aliases(cwd or None, store_root=store.root) if cwd else ()
    project = aliases[0] if aliases else None
    if not late:
        if (h := hider(store)) is not None and h.spans(prompt):   # (test42 T23: written in the clear)
            raise forgotten_text_refusal()
        from objstore.memory.sealrulefile import FORGOTTEN_LABEL, rule_labels_in   # defer: a statement's (test44 T9)
        key = statement_key(what, project, store)   # checked as typed: the redaction took a part, the rest went clear
        if sealed := sorted(x for x in rule_labels_in(store, prompt) if not x.startswith(FORGOTTEN_LABEL) and x != key):
            raise Refused(f"{key}: this statement holds the sealed value of {sealed[0]}; a sealed value is never "
                          "written in the clear", hint=f"write it sealed: mem remember {key} - --sensitivity secret")
        return remember_statement(store, prompt, project=project, source=source, command=command, later=later,
                                  said_at=said_at)
    first = _late(store, what, project, source, command, said_at, later=later)
    for more in further_statements(prompt):   # (each as the first, test33 T13)
        _late(store, more, project, source, command, said_at, skip_refused=True, later=later)
    return first


def _late(store: Store, what: str, project: str | None, source: str, command: str, said_at: int,
          skip_refused: bool = False, later: list | None = None):
    """:func:`write_statement`'s late write of one statement (its doc), or None."""
    key = statement_key(what, project, store)
    head = store.refs.read(fact_ref(key))
    from objstore.memory.tombstones import all_tombstones, forgotten_in  # defer: a late statement only
    if forgotten_in(all_tombstones(store), key, what):
        return None
    if head is not None:
        held = store.get(head)
        if not said_at or _said_at(store, held) >= said_at \
                or _content_words(getattr(held, "body", "") or "") == _content_words(what):
            return None   # said since (or the same statement): it stands
    return _remember(store, what, project, source, command, skip_refused=skip_refused, later=later)
