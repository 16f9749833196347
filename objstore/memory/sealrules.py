"""The local seal rules: a sealed value withheld in every turn captured
after the seal (test34 T4: the session the seal rewrote went on, its next
Stop sync stored the agent's reply and a tool output quoting the sealed
value in the clear, and search/recall served them).

``mem seal KEY`` writes no tombstone (``sealsources``: a hash of a short
secret is as good as the secret, and tombstones travel to remotes).  It
writes instead, for each form of each sealed value
(``sealsources.quoted_forms``, at least ``MIN_TEXT_CHARS`` once
normalized), a line in :data:`RULES_FILE`: a keyed BLAKE2b-256 (RFC 7693 keyed
mode, a MAC) of the normalized form under a random 32-byte key kept in the same file, and its
length.  The file is mode 0600, local to this store: no object, no ref, so
``mem push``, ``mem backup`` and ``mem export`` never carry it, and
without the key a digest cannot be tried against guesses.  The turn writer
(``objstore.memory.appender``) stores every later turn with a span whose
normalized form matches a rule replaced by ``[REDACTED:sealed-value]``,
in any session.  ``mem unseal KEY`` removes the key's rules.
``mem forget KEY`` writes its forgotten values' rules in the same file
under the label ``forgotten:KEY`` (:data:`FORGOTTEN_LABEL`; test34b T17: a
later session quoting a forgotten value stored it in the clear); their
spans are replaced by ``[REDACTED:forgotten-value]``, and ``mem unseal``
never drops them.  ``mem pull`` applies the rules to the turns it takes in
(``objstore.remote.fetch``; test34b T22).
docs/vault.md, "Sealing"; the file's format in docs/format.md.
"""

from __future__ import annotations

import os

from objstore.core.codec import object_id
from objstore.core.objects import Turn, normalize_value
from objstore.core.store import Store
from objstore.core.storeperms import denied
from objstore.core.text import normalized_form, normalized_map, replace_spans
from objstore.core.textwindows import dotless, fold_worth, match_weight
from objstore.core.webescapes import escapes_read, may_hold_escapes
from objstore.memory.sealrulefile import FORGOTTEN_LABEL, RULES_FILE, SealRules, any_sealed, damage_said, load, rule_digest, save, window_digests  # noqa: F401
from objstore.memory.sessions import FORGOTTEN, WITHHELD
from objstore.memory.tombdigests import all_tombstones
from objstore.memory.tombstones import MIN_TEXT_CHARS, find_matches
from objstore.memory.withdrawals import VERSION_RECORDS
from objstore.core.atomic import read_regular

def add_rules(store: Store, key: str, texts: list[str]) -> int:
    """Add the rule of each of ``texts`` (normalized; fewer than
    ``MIN_TEXT_CHARS`` characters: none), and of its separator-folded form
    (``core.textwindows.fold_worth``: "maple otter" -> "mapleotter", which
    a later "maple-otter" or "maple_otter" matches too), and of its dotless form
    (``core.textwindows.dotless``: "İstanbul42" -> "istanbul42"), for the sealed ``key``; the file
    and its random key are made on the first.  Returns how many rules
    were added.  Caller holds the store lock.  Raises OSError."""
    forms = {f for x in texts if match_weight(norm := normalize_value(x)) >= MIN_TEXT_CHARS
             for f in (norm, dotless(norm))}   # "i̇stanbul42", "istanbul42" (cjk39)
    forms = sorted(forms | {f for x in forms if (f := fold_worth(x))})   # "maple-otter", "mapleotter" (seal38)
    have = load(store)
    if not forms:   # a sealed key's short value: the file (no line) says the rules are whole (rules_problem)
        if have is None and not key.startswith(FORGOTTEN_LABEL) and not (store.root / RULES_FILE).exists():
            save(store, SealRules(os.urandom(32), []))
        return 0
    have = have or SealRules(os.urandom(32), [])
    lines = set(have.lines)
    new = {(key, rule_digest(have.key, x), len(x)) for x in forms} - lines
    if new:
        save(store, SealRules(have.key, [*lines, *new], have.more))
    return len(new)


def drop_rules(store: Store, key: str) -> int:
    """Remove the rules of the sealed ``key`` (``mem unseal``); the file
    goes when none is left.  Returns how many were removed.  Caller holds
    the store lock.  Raises OSError."""
    have = load(store)
    if have is None:
        return 0
    keep = [ln for ln in have.lines if ln[0] != key]
    if keep or have.count() > len(have.lines) or \
            any(n != f"sealed/{key}" for n, _h in store.refs.iter("sealed", damaged=[])):   # (an import's section)
        if len(keep) != len(have.lines):   # (another sealed key keeps the file, lines or none: rules_problem)
            save(store, SealRules(have.key, keep, have.more))
    else:
        (store.root / RULES_FILE).unlink(missing_ok=True)
    return len(have.lines) - len(keep)


def forget_rules(store: Store, key: str) -> int:
    """The rules of the sealed ``key`` relabelled ``forgotten:KEY``
    (:data:`FORGOTTEN_LABEL`), for ``mem forget KEY`` of a sealed key: a
    turn captured later quoting a value withholds it as a forgotten value,
    and a write quoting it is refused as forgotten text, never "holds the
    sealed value of KEY" once the key is gone (test38 T9.6).  Returns how
    many were relabelled.  Caller holds the store lock.  Raises OSError."""
    have = load(store)
    if have is None:
        return 0
    lines = {(FORGOTTEN_LABEL + k if k == key else k, d, n) for k, d, n in have.lines}
    n = sum(1 for k, _d, _n in have.lines if k == key)
    if n:
        save(store, SealRules(have.key, sorted(lines), have.more))
    return n


def rules_problem(store: Store) -> str | None:
    """Why the store's seal rules cannot withhold its sealed values, or
    None: with a sealed key, :data:`RULES_FILE` missing (deleted, a store
    copied without it, or sealed before session 34); with a sealed key or
    without (the file then holds forgotten values' rules, test35b T2),
    unreadable, or damaged (its first line does not parse, a line does
    not, or it is cut short);
    what ``mem fsck``, ``mem doctor`` and the hooks name (test34b T23:
    silent, and the next turns stored the sealed value in the clear).  A
    message naming the way to rebuild it; when :func:`rules_refused`, one
    saying every write is refused.  Reads only."""
    folders: list[str] = []   # a file in place of refs/sealed/<scope> (test40 T9): fsck names it; its keys count
    sealed = sum(1 for _n, _h in store.refs.iter("sealed", damaged=[], folders=folders)) + len(folders)
    try:
        read_regular(store.root / RULES_FILE, 1 << 31)   # (whether it reads: the errors below)
    except PermissionError:   # not damage: core.storeperms names it (fresh41 F7)
        return None
    except FileNotFoundError:
        if not sealed:
            return None   # (no seal, no forget KEY since session 35: no rules)
        what = "is missing"
    except OSError as e:
        what = f"cannot be read ({e.strerror or type(e).__name__})"
    else:
        rules = load(store)
        if rules is None:
            what = "is damaged (its first line does not parse)"
        elif rules.damaged:
            what = f"is damaged ({damage_said(store)})"
        else:
            return None
    if rules_refused(store) and what == "is missing":   # (test43 T11: it said "stored in the clear", and was)
        return (f"{RULES_FILE} is missing while {sealed} key{'s are' if sealed != 1 else ' is'} sealed: every write "
                "and every captured turn is refused (exit 13) until 'mem sealed rebuild-rules' writes it again from "
                "the sealed values (it asks for the vault passphrase; the rules of values 'mem forget KEY' withheld "
                "cannot be rebuilt)")
    if rules_refused(store):   # every write refuses (``sealrulefile.refuse_unreadable``): fresh41 F6 said "stored in the clear"
        return (f"{RULES_FILE} {what}: every write and every captured turn is refused (exit 13) until it reads "
                "again (no sealed or forgotten value can be told from any other); 'mem sealed rebuild-rules' writes "
                "it again from the sealed values (it asks for the vault passphrase; the rules of values 'mem forget "
                f"KEY' withheld cannot be rebuilt); with no vault, move it away (mv {RULES_FILE} {RULES_FILE}.bad): "
                "the writes then work, and a sealed value quoted later is stored in the clear")
    held = f"while {sealed} key{'s are' if sealed != 1 else ' is'} sealed: a sealed value" if sealed else \
        "while it holds the rules of forgotten values (mem forget KEY): a forgotten value"   # (test35b T2)
    if "garbage" in what:   # no rule need be lost: said as it may be (test42 T25)
        held += " whose rule was on the line that does not parse,"
    return (f"{RULES_FILE} {what} {held} "
            "quoted in a turn captured or pulled from now on is stored in the clear; 'mem sealed rebuild-rules' "
            "writes it again from the sealed values (it asks for the vault passphrase; the rules of values "
            "'mem forget KEY' withheld cannot be rebuilt)")


def rules_refused(store: Store) -> bool:
    """Whether :data:`RULES_FILE` is there but reads as no rules (a folder,
    an unreadable file, a damaged head) or is damaged while a key is sealed
    (``sealrulefile.load_checked``): then every write and captured turn
    is refused, exit 13 (``sealrulefile.refuse_unreadable``), and ``mem
    fsck`` and ``mem doctor`` call :func:`rules_problem` an error, not a
    warning (fresh41 F6: "ok").  One read of the file."""
    p = store.root / RULES_FILE
    rules = load(store)
    if rules is not None:   # damaged while a key is sealed: refused as well (test42 T25, ``load_checked``)
        return rules.damaged and any_sealed(store)
    if not (p.exists() or p.is_symlink()):   # missing while a key is sealed: refused too (test43 T11)
        return any_sealed(store)
    return not denied(p)


def withhold_sealed_values(text: str, rules: SealRules, folded: bool = True) -> tuple[str, int]:
    """``text`` with every span (starting at a word start:
    and ending at a word end: ``tombstones.find_matches`` with the key)
    whose normalized form matches one of ``rules`` replaced by
    ``[REDACTED:sealed-value]`` (``[REDACTED:forgotten-value]`` when only a
    forgotten key's rule matches it), and how many spans.  ``folded``
    (``find_matches``): runs of words joined by separators are tried too
    (the store's rules hold folded forms: :func:`add_rules`; a session's
    rules, ``sessionrules``, hold none).  A text that may hold a URL, HTML
    or JSON escape is also read with them read (:func:`_withhold_escaped`).
    Cost: one keyed BLAKE2b per word start whose window of a rule's length
    ends a word."""
    if not text:
        return text, 0
    if rules.more:   # sections under other keys (an import's, test41 T23): one pass each, the store's own first
        n = 0
        for sec in rules.sections():
            text, got = withhold_sealed_values(text, sec, folded)
            n += got
        return text, n
    if not rules.lines:
        return text, 0
    text, n = _withhold_written(text, rules, folded)
    if may_hold_escapes(text):   # as a URL, a web page, a JSON string in a JSON string spell it (test43 T13)
        text, m = _withhold_escaped(text, rules, folded)
        n += m
    return text, n


def _withhold_escaped(text: str, rules: SealRules, folded: bool) -> tuple[str, int]:
    """:func:`withhold_sealed_values` of one section in ``text`` read with its escapes read
    (``core.webescapes.escapes_read``: "maple%20otter", "maple&nbsp;otter"; val44): each span found there
    replaced whole, escapes and all, by ``[REDACTED:sealed-value]`` (``[REDACTED:forgotten-value]`` when
    only forgotten keys' rules match); ``(text, spans)``."""
    read = escapes_read(text)
    if read is None:
        return text, 0
    got, st, en = read
    norm = normalized_form(got)
    found = find_matches(norm, rules.rules(), word_starts=True, key=rules.key, folded=folded)
    if not found:
        return text, 0
    _norm, starts, ends = normalized_map(got)
    sealed = {d for k, d, _n in rules.lines if not k.startswith(FORGOTTEN_LABEL)}
    mark = WITHHELD if any(window_digests(rules.key, norm[s:e]) & sealed for s, e in found) else FORGOTTEN
    return replace_spans(text, [(st[starts[s]], en[ends[e - 1] - 1]) for s, e in found], mark), len(found)


def _withhold_written(text: str, rules: SealRules, folded: bool) -> tuple[str, int]:
    """:func:`withhold_sealed_values` of one section (``rules.lines`` not empty) in ``text`` as written."""
    norm = normalized_form(text)
    found = find_matches(norm, rules.rules(), word_starts=True, key=rules.key, folded=folded)
    if not found:
        return text, 0
    _norm, starts, ends = normalized_map(text)   # (the maps only for a text that holds a value)
    sealed = {d for k, d, _n in rules.lines if not k.startswith(FORGOTTEN_LABEL)}
    spans = [(starts[s], ends[e - 1]) for s, e in found]
    if len(sealed) == len({d for _k, d, _n in rules.lines}):   # (one value under two keys: one digest)
        return replace_spans(text, spans, WITHHELD), len(found)
    forgot = [sp for sp, (s, e) in zip(spans, found)
              if not window_digests(rules.key, norm[s:e]) & sealed]
    if len(forgot) == len(spans):
        return replace_spans(text, spans, FORGOTTEN), len(found)
    # both kinds: the forgotten spans first, then the sealed ones among what is left
    # (a sealed span overlapping a forgotten one is inside the forgotten marker already)
    kept = replace_spans(text, forgot, FORGOTTEN)
    left, _n = withhold_sealed_values(kept, SealRules(rules.key, [ln for ln in rules.lines if ln[1] in sealed]), folded)
    return left, len(found)


def withhold_in_chain(chain: list[tuple[str, Turn]], rules: SealRules | None
                      ) -> tuple[list[tuple[str, Turn]], dict[str, Turn]]:
    """A session chain (``[(id, turn)]``, oldest first) with each turn
    holding a span one of ``rules`` matches rewritten in its place
    (:func:`withhold_sealed_values`; the same id, parent and place: the
    caller re-links what follows, as ``remote.merge.merge_chain`` does),
    and the rewritten turns by their new ids.  What ``mem pull`` applies
    to the turns it takes in (test34b T22: a session captured on a machine
    without the rules, quoting a value sealed here, was stored and served
    here in the clear).  Reads and writes nothing."""
    if rules is None or not rules.count():
        return chain, {}
    out, new = [], {}
    for oid, t in chain:
        kept, n = withhold_sealed_values(t.text, rules) if t.text and not t.forgotten else (t.text, 0)
        if n:
            t = t.replace(text=kept)
            oid = object_id(t)
            new[oid] = t
        out.append((oid, t))
    return out, new


def forgets_unruled(store: Store) -> list[str]:
    """The keys a ``mem forget KEY`` of this store forgot (a fact key's
    tombstone, not a queue rejection or a version record) whose value has
    no ``forgotten:KEY`` line in :data:`RULES_FILE` (any section): after
    the file was deleted, cut short or damaged, the rules that withheld
    those values in later turns were lost with it, and none can be
    rebuilt (the value is gone); a value under ``MIN_TEXT_CHARS`` never
    had one (fresh43 F7: ``mem sealed rebuild-rules`` said nothing of
    them).  Sorted.  Reads the tombstones and the file."""
    have = load(store)
    ruled = {k[len(FORGOTTEN_LABEL):] for s in ([have, *have.more] if have else ()) for k, _d, _n in s.lines
             if k.startswith(FORGOTTEN_LABEL)}
    return sorted({t.key for t in all_tombstones(store) if t.key.split("/", 1)[0] in ("user", "global", "project")
                   and "/key-sha256:" not in t.key and t.reason != "rejected" and t.reason not in VERSION_RECORDS}
                  - ruled)
