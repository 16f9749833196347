"""Tombstones: what was forgotten or rejected, and the filter that keeps it
from coming back.

A tombstone (``objstore.core.objects.Tombstone``, under
``refs/tombstones/<id>``) names a key and the SHA-256 of a normalized value
(a forgotten or rejected fact value), a turn's source record id or, for a
text-derived source, ``turn:<session>/<source>`` (a forgotten turn: which
turns it forgets is :class:`TurnForgets`), ``session:<id>`` (a forgotten session) or ``match:<id>`` (a
``forget --match`` rule of a session: the hash and length of the match text,
never the text) or :data:`TEXT_KEY` (a forgotten text that may not come back
inside any other value: the hash and length of a ``--match`` text or of a
forgotten fact value of at least :data:`MIN_TEXT_CHARS` characters).
``facts.remember`` refuses a lower-trust write of a tombstoned value
(:func:`forgotten_in`: the value of that key, any forgotten fact value, or a
value holding a forgotten text); every turn writer (``appender.TurnAppender``:
import, hooks, evaluations) applies the :class:`CaptureFilter`, so a
forgotten session or record is never captured again, nor a ``--match``
text, in any session (:meth:`CaptureFilter.withhold`; txt42: a session the
forget did not touch was stored with it: docs/forget.md, "No resurrection").  The matching
rules are written down in ``docs/format.md`` ("Tombstone") and
``docs/forget.md`` ("No resurrection").
"""

from __future__ import annotations


from objstore.core.atomic import atomic_write
from objstore.core.errors import CorruptObject, LostTombstone, NotFound
from objstore.core.ids import sha256   # not hashlib: OpenSSL's load costs the prompt hook 2.5-4 ms
from objstore.core.objects import Fact, Tombstone, Turn, value_digest
from objstore.core.record import Record, set_fields
from objstore.core.store import Store, now_ms
from objstore.core.text import confusable_fold, normalized_form, replace_spans
from objstore.core.textwindows import find_matches, fold_worth, text_spans  # noqa: F401  (find_matches: re-exported)
from objstore.core.wordwindows import word_starts
from objstore.memory.tombdigests import all_tombstones, put_tombstone  # noqa: F401  (their home)
from objstore.memory.withdrawals import SEAL_WITHDRAW, Withdrawals, unsealed_at, withdrawal_digest, withdrawal_tombstone


#: what a fact key's tombstone written by hash holds after the key's scope (:func:`hidden_key`)
HIDDEN_MARK = "/key-sha256:"


def hidden_key(key: str) -> str:
    """The ``key`` of a tombstone that names the fact ``key`` by hash, not
    by name: its scope (the first ``/``-part: ``user``, ``global`` or
    ``project``), ``/key-sha256:`` and the SHA-256 (64 lowercase hex) of
    the UTF-8 of ``key`` (``project/key-sha256:9f…`` for
    ``project/x/remembered/deploy-host-walrus-orchid-77``).  ``forget
    --match TEXT`` writes it for a key whose name holds TEXT
    (docs/format.md, "Tombstone"): the scope kept, so it counts as a fact
    key's tombstone everywhere (an older mem too: a key no fact has, whose
    forgotten value is refused under any other key)."""
    return f"{key.partition('/')[0]}{HIDDEN_MARK}{sha256(key.encode('utf-8')).hexdigest()}"


def names_key_in_clear(t: Tombstone) -> bool:
    """True when ``t`` is the tombstone of a fact key that names the key
    by name, not by hash (:func:`hidden_key`)."""
    return t.key.startswith(_FACT_SCOPES) and HIDDEN_MARK not in t.key


def key_names(key: str) -> tuple[str, str]:
    """The two ``key`` fields a tombstone of the fact ``key`` can hold: the
    key itself and :func:`hidden_key`."""
    return (key, hidden_key(key))


def tombstones_for(store: Store, key: str) -> list[Tombstone]:
    """Tombstones recorded for ``key`` (by name or by hash: :func:`key_names`)."""
    names = key_names(key)
    return [t for t in all_tombstones(store) if t.key in names]


def is_rejected(store: Store, key: str, body: str) -> bool:
    """True when a tombstone of ``key`` (a forget or a rejection) matches
    the normalized ``body``."""
    digest = value_digest(body)
    return any(t.value_sha256 == digest for t in tombstones_for(store, key))


#: the key of a text tombstone (no ':' and no scope, so an older mem, which
#: knows only key, ``session:``, ``match:`` and source tombstones, ignores it)
TEXT_KEY = "text"
#: a forgotten fact value this long (normalized) or longer also gets a text
#: tombstone; a shorter one ("vim", "8080") is a common word, refused only
#: as a whole value
MIN_TEXT_CHARS = 8
_FACT_SCOPES = ("user/", "global/", "project/")


def text_tombstone(digest: bytes, length: int, time: int, of_value: bool = False) -> Tombstone:
    """The :data:`TEXT_KEY` tombstone of a forgotten text whose normalized
    form (``objstore.core.text.normalize_value``) is ``length`` characters
    long and hashes to ``digest``: reason ``text:<length>`` for a ``forget
    --match`` text, ``value:<length>`` for a forgotten fact value
    (``of_value``; docs/format.md, "Tombstone")."""
    return Tombstone(key=TEXT_KEY, value_sha256=digest, time=time,
                     reason=f"{'value' if of_value else 'text'}:{length}")


def _rule(t: Tombstone) -> tuple[bytes, int] | None:
    """``(sha256, length)`` of a ``match:`` or :data:`TEXT_KEY` tombstone."""
    try:
        n = int(t.reason.rsplit(":", 1)[1])
    except (IndexError, ValueError):
        return None
    return (t.value_sha256, n) if n > 0 else None


def forgotten_in(tombstones: list[Tombstone], key: str, body: str, recorded_at: int | None = None) -> str | None:
    """Why a lower-trust write of ``body`` under ``key`` must be refused,
    or None.  ``tombstones``: :func:`all_tombstones`.

    * ``"key"``: a tombstone of ``key`` (by name or by hash, :func:`key_names`;
      a forget or a rejection) names the normalized ``body`` (SHA-256 equality);
    * ``"value"``: ``body`` equals a fact value forgotten under another key
      (a tombstone of a ``user/``, ``global/`` or ``project/`` key whose
      reason is not ``rejected``: a rejection is about that key only);
    * ``"text"``: the normalized ``body`` contains a forgotten text (a
      :data:`TEXT_KEY` tombstone, or a ``match:`` rule of any session)
      starting where a word starts (:func:`find_matches` ``word_starts``).

    Each check is made on ``body`` and on its
    :func:`objstore.core.text.confusable_fold` (NFKC, default-ignorable
    characters removed), so fullwidth letters or a zero-width space do not
    hide a forgotten value.

    ``recorded_at``: asked of a version that exists (a sync's merge, an
    import), recorded then: a version forget's tombstone (``version:<ms>``,
    :func:`version_exact`) forgets only the version recorded at ``<ms>``
    under its key, and no other key's (the forget left those live where it
    ran: test29 P1, test29b Q9); asked of a write (None), it refuses the
    value under its key as a value forget does.  Under another key a
    version forget's tombstone never refuses (the value may well be live
    there, as the forget left it: test29 helper).

    Cost: one SHA-256 of ``body``, and with text rules one SHA-256 per
    word start of the normalized ``body`` and distinct rule length (50
    forgotten texts of distinct lengths and a 540-character body: ~5 ms);
    nothing without tombstones (an import's summaries in a new store)."""
    if not tombstones:
        return None
    seen = confusable_fold(body)
    digests = {value_digest(body), value_digest(seen)}
    rules: list[tuple[bytes, int]] = []
    other = False
    names = key_names(key)
    for t in tombstones:
        exact = version_exact(t) if recorded_at is not None else None
        if t.key in names:
            if t.value_sha256 in digests and (exact is None or exact == recorded_at):
                return "key"
        elif t.key == TEXT_KEY or t.key.startswith("match:"):
            r = _rule(t)
            if r is not None:
                rules.append(r)
        elif t.key.startswith(_FACT_SCOPES) and t.reason != "rejected" and t.value_sha256 in digests \
                and version_exact(t) is None:   # a version forget is of that key's version alone
            other = True
    if other:
        return "value"
    if rules and holds_text(body, rules):
        return "text"
    return None


def text_rule(t: Tombstone) -> tuple[bytes, int] | None:
    """``(sha256, length)`` of a forgotten text's rule (a :data:`TEXT_KEY`
    or ``match:`` tombstone; not a rejection), else None."""
    if t.reason == "rejected" or not (t.key == TEXT_KEY or t.key.startswith("match:")):
        return None
    return _rule(t)


def fact_value_digests(tombs) -> set[bytes]:
    """The value digests of the fact tombstones (a ``user/``, ``global/`` or
    ``project/`` key, by name or by hash) among ``tombs`` (an iterable of
    ``Tombstone``) that no ``value:`` text tombstone names: what
    :func:`match_text_rule` tells an older mem's text tombstone of a
    forgotten value by (it wrote ``text:`` for both kinds)."""
    tombs = list(tombs)
    marked = {t.value_sha256 for t in tombs if t.key == TEXT_KEY and t.reason.startswith("value:")}
    return {t.value_sha256 for t in tombs if t.key.startswith(_FACT_SCOPES)} - marked


def match_text_rule(t: Tombstone, values: set[bytes]) -> tuple[bytes, int] | None:
    """``(sha256, length)`` when ``t`` names a ``mem forget --match`` text
    (a ``match:`` rule, or a :data:`TEXT_KEY` tombstone of reason ``text:``
    that is no forgotten fact value's: a forget writes ``value:`` for a
    value; ``values``, :func:`fact_value_digests` of the store's tombstones,
    tells an older mem's ``text:`` of a value, never shorter than
    :data:`MIN_TEXT_CHARS`: test28b Z1b), else None.  A
    forgotten value's text only refuses lower-trust writes
    (:func:`forgotten_in`); a ``--match`` text is also redacted wherever a
    turn is served (:func:`served_rules`) and forgets, at a pull, any value
    written where that forget had not arrived (``merge.ForgetIndex.unseen_time``)."""
    r = text_rule(t)
    if r is None or (t.key == TEXT_KEY and (t.reason.startswith("value:")
                                            or (t.value_sha256 in values and r[1] >= MIN_TEXT_CHARS))):
        return None
    return r


def match_forms(norm: str | None) -> list[str]:
    """The normalized texts a ``forget --match`` of ``norm`` (normalized) writes a rule of: ``norm``, and
    its separator-folded form when distinct enough (``core.textwindows.fold_worth``: "kestrel-harbor-204"
    -> "kestrelharbor204", which a later "kestrel harbor 204", "kestrel_harbor_204" or "kestrel、harbor、204"
    matches as a run of joined words; han40, test39b B11); ``[]`` for None or ``""``.  Two ordinary words
    fold too: a forgotten name comes back joined ("Marco Rossi" -> "marco.rossi@…", "MarcoRossi": test41
    T35), which weighs more than "over night" withholding "overnight" (test40 T22, kept as the cost).
    A text of two words is also said the other way round, and each order across one comma ("rossi marco",
    "marco,rossi", "rossi,marco": ``textwindows.folded_runs`` reads "Rossi, Marco" or "Marco; Rossi" so;
    val44, test43 T17: a directory's or a citation's "Quillborough, Zephyrine"), the same lengths."""
    if not norm:
        return []
    w = norm.split(" ")
    said = [norm] if len(w) != 2 else [norm, f"{w[1]} {w[0]}", f"{w[0]},{w[1]}", f"{w[1]},{w[0]}"]
    return list(dict.fromkeys(f for x in said for f in (x, fold_worth(x)) if f))


def holds_text(body: str, rules: list[tuple[bytes, int]]) -> bool:
    """True when ``body`` holds a forgotten text of ``rules``
    (``[(sha256, length)]``: :func:`text_rule`) starting where a word starts,
    in a form :func:`match_spans` reads (``core.textwindows.text_spans``: as
    written, as it reads, with its JSON, URL and HTML escapes read; val44,
    test43 T13: an agent's "Zephyrine%20Quillborough" was written): the
    test :func:`forgotten_in` makes for ``"text"``.  Cost: one SHA-256 per
    word start of the normalized ``body`` and distinct rule length."""
    return bool(rules and body and text_spans(body, rules, word_starts=True))


def text_windows(body: str, n: int) -> set[str]:
    """The normalized windows of ``n`` characters of ``body`` that
    :func:`holds_text` hashes (from the start of a word, as written and as
    it reads): a ``forget --match`` text of length ``n`` that ``body``
    holds is one of them (``fetch.blind_rules``)."""
    out: set[str] = set()
    for text in {body, confusable_fold(body)}:
        norm = normalized_form(text)
        out |= {norm[s:s + n] for s in word_starts(norm) if s + n <= len(norm)}
    return out


# -- turn tombstones: the one rule ---------------------------------------------

#: turn sources derived from the turn's text (and its place), not from a record id:
#: a Claude Code prompt's alias ``cc:p:<hash>:<n>`` (``capture.claude_code.prompt_alias``),
#: a Codex message ``cx:u:<hash>[:<n>]`` / ``cx:a:<hash>[:<n>]``, a proxy turn
#: ``px:<hash of the first message>:<index>:<part>``, an evaluation's ``eval:<n>``.  Two
#: sessions hold the same one for two records ("[Request interrupted by user]" in each)
TEXT_DERIVED_SOURCES = ("cc:p:", "cx:u:", "cx:a:", "px:", "eval:")
#: the key prefix of a tombstone scoped to one session: ``turn:<session id>/<source>``
#: (a session id holds no ``/``, so the first ``/`` ends it)
SCOPED_PREFIX = "turn:"
#: the key prefix of a scrubbed-record tombstone: ``scrubbed:<session id>/<stored source>``
#: (:func:`scrubbed_tombstone`)
SCRUBBED_PREFIX = "scrubbed:"
_NOT_TURN = ("session:", "match:", SCRUBBED_PREFIX, *_FACT_SCOPES)


def session_scoped(source: str) -> bool:
    """True when a turn's ``source`` is text-derived (:data:`TEXT_DERIVED_SOURCES`),
    so its tombstone is scoped to its session (:func:`turn_tombstone_key`)."""
    return source.startswith(TEXT_DERIVED_SOURCES)


def turn_tombstone_key(session: str, source: str) -> str:
    """The ``key`` of the tombstone of a forgotten turn of ``session`` with
    ``source``: ``turn:<session>/<source>`` when the source is text-derived
    (:data:`TEXT_DERIVED_SOURCES`: it names a text, not a record, so the
    tombstone forgets that session's turn only), else the source itself (a
    record id: the same record with the same text is forgotten in any
    session, e.g. a resumed session's copy)."""
    return f"{SCOPED_PREFIX}{session}/{source}" if session_scoped(source) else source


def source_digest(source: str) -> bytes:
    """SHA-256 of a record's source as a transcript reader gives it (UTF-8):
    what a scrubbed-record tombstone holds (:func:`scrubbed_tombstone`)."""
    return sha256(source.encode("utf-8", "surrogatepass")).digest()


def scrubbed_tombstone(session: str, stored: str, read_as: str, time: int) -> Tombstone:
    """The tombstone that keeps a transcript record whose text ``mem forget
    --scrub-sources`` rewrote from being captured again as a new turn: the
    record of ``session`` that a reader now gives the source ``read_as``
    (``CapturedTurn.source``, e.g. ``cc:<uuid>``, or a Codex message's
    ``cx:u:<hash of the scrubbed text>``) is the stored turn whose source is
    ``stored`` (its alias or source when it was captured, before the
    scrub).  ``time``: when that turn was forgotten (its ``forgotten``), or
    the scrub's time when it was not.  Key ``scrubbed:<session>/<stored>``,
    ``value_sha256`` :func:`source_digest` of ``read_as`` (never a text),
    reason ``scrubbed`` (docs/format.md, "Tombstone")."""
    return Tombstone(key=f"{SCRUBBED_PREFIX}{session}/{stored}", value_sha256=source_digest(read_as), time=time,
                     reason="scrubbed")


def turn_target(t: Tombstone) -> tuple[str | None, str] | None:
    """``(session or None, source)`` that a turn tombstone names, None for
    a tombstone of anything else (a fact key, ``session:``, ``match:``,
    ``text``, a rejection).  The session is None for an unscoped one (a
    record id, or a text-derived source forgotten by an older mem)."""
    k = t.key
    if t.reason == "rejected" or ":" not in k or k.startswith(_NOT_TURN):
        return None
    if k.startswith(SCOPED_PREFIX):
        sid, sep, source = k[len(SCOPED_PREFIX):].partition("/")
        return (sid, source) if sep and sid and source else None
    return (None, k)


def withdraw_plain(store: Store, key: str, facts: list[Fact]) -> int:
    """Write the withdrawal record (:func:`withdrawal_tombstone`) of every
    version of ``facts`` (plain versions of ``key``) that holds a value,
    unless one written after its last unseal (:func:`unsealed_at`) is
    here already (a rerun of the same seal); returns how many were
    written.  Called by a seal, and by the finish of a stopped one
    (``objstore.memory.sealstop``), before the plain versions are removed.
    Caller holds the lock."""
    have: dict[bytes, int] = {}
    for t in tombstones_for(store, key):
        if t.reason == SEAL_WITHDRAW:
            have[t.value_sha256] = max(have.get(t.value_sha256, 0), t.time)
    now, n = now_ms(), 0
    for f in facts:
        if f.body and not f.forgotten and have.get(withdrawal_digest(f), -1) <= unsealed_at(f):
            put_tombstone(store, withdrawal_tombstone(f, now))
            n += 1
    return n


class TurnForgets:
    """Which turns the turn tombstones forget: **the one rule**, used by
    local forget (``forgetresume.resume_forget``, gc's ``forgotten_check``),
    capture (:class:`CaptureFilter`) and push/pull
    (``objstore.remote.merge.ForgetIndex``) alike.

    A turn tombstone forgets a turn when its source is the turn's source,
    its ``value_sha256`` is the SHA-256 of the turn's normalized text, and,
    when it is scoped (``turn:<session>/<source>``), the turn is of that
    session.  An unscoped tombstone of a text-derived source (written by an
    older mem) is read as scoped to the sessions of its forget when that
    forget was a session forget (a ``session:`` tombstone with the same
    ``time`` and ``reason``: its turns were that forget's sessions' turns,
    which the ``session:`` tombstones forget whole); otherwise it is read
    as unscoped, as that mem meant it.

    Memory: one dict entry per turn tombstone.
    """

    __slots__ = ("_pairs", "_scoped", "_legacy", "_companions", "_settled", "_any")

    def __init__(self) -> None:
        self._pairs: dict[tuple[str, bytes], int] = {}              # (source, sha256) -> time
        self._scoped: dict[tuple[str, str, bytes], int] = {}       # (session, source, sha256) -> time
        self._legacy: list[Tombstone] = []                         # old unscoped text-derived ones
        self._companions: dict[tuple[int, str], set[str]] = {}     # (time, reason) -> forgotten sessions
        self._settled: tuple[dict, dict] | None = ({}, {})
        self._any = False

    def add(self, t: Tombstone) -> bool:
        """Take one tombstone of any kind; True when it is a turn tombstone."""
        if t.key.startswith("session:") and t.reason != "rejected":
            self._companions.setdefault((t.time, t.reason), set()).add(t.key[len("session:"):])
            if self._legacy:
                self._settled = None
            return False
        target = turn_target(t)
        if target is None:
            return False
        self._any = True
        sid, source = target
        if sid is not None:
            _earliest(self._scoped, (sid, source, t.value_sha256), t.time)
        elif session_scoped(source):
            self._legacy.append(t)
            self._settled = None
        else:
            _earliest(self._pairs, (source, t.value_sha256), t.time)
        return True

    def __bool__(self) -> bool:
        return self._any

    def when(self, session: str, source: str, text: str, digest: bytes | None = None) -> int | None:
        """The earliest time (ms) of a tombstone that forgets the turn of
        ``session`` with ``source`` and ``text`` (``digest``: its
        ``value_digest``, when the caller has it), else None.  An empty
        text is never forgotten again."""
        if not self._any or not text:
            return None
        d = value_digest(text) if digest is None else digest
        pairs, scoped = self._legacy_read()
        found = [x for x in (self._pairs.get((source, d)), self._scoped.get((session, source, d)),
                             pairs.get((source, d)), scoped.get((session, source, d))) if x is not None]
        return min(found) if found else None

    def _legacy_read(self) -> tuple[dict, dict]:
        if self._settled is None:
            pairs: dict = {}
            scoped: dict = {}
            for t in self._legacy:
                sids = self._companions.get((t.time, t.reason))
                if sids:
                    for sid in sids:
                        _earliest(scoped, (sid, t.key, t.value_sha256), t.time)
                else:
                    _earliest(pairs, (t.key, t.value_sha256), t.time)
            self._settled = (pairs, scoped)
        return self._settled


def _earliest(d: dict, k, when: int) -> None:
    d[k] = min(d.get(k, when), when)


# -- no resurrection -----------------------------------------------------------

class CaptureFilter(Record):
    """What capture must not bring back, built from the tombstones.

    Attributes:
        sessions: forgotten whole sessions (their records are skipped).
        turns: the forgotten turns (:class:`TurnForgets`): a record is
            captured emptied when :meth:`forgets` says so.
        rules: session id -> [(sha256, length)] of ``--match`` texts to redact.
        text: [(sha256, length)] of every ``--match`` text of the store
            (:func:`served_rules`' set: a ``text:`` rule a forget wrote
            ahead or beside its ``match:`` rules), withheld in every
            session (:meth:`withhold`; txt42).
        scrubbed: ``(session, source_digest(source as read))`` -> ``(stored
            source, time)`` of the scrubbed-record tombstones
            (:func:`scrubbed_tombstone`; :meth:`as_stored`).
    """

    __slots__ = ("sessions", "turns", "rules", "scrubbed", "text")

    def __init__(self, sessions: set[str] | None = None, turns: TurnForgets | None = None,
                 rules: dict[str, list[tuple[bytes, int]]] | None = None,
                 scrubbed: dict[tuple[str, bytes], tuple[str, int]] | None = None,
                 text: list[tuple[bytes, int]] | None = None) -> None:
        set_fields(self, set() if sessions is None else sessions, TurnForgets() if turns is None else turns,
                   {} if rules is None else rules, {} if scrubbed is None else scrubbed,
                   [] if text is None else text)

    def __bool__(self) -> bool:
        return bool(self.sessions or self.turns or self.rules or self.scrubbed or self.text)

    def withhold(self, session: str, text: str) -> tuple[str, int]:
        """``text`` of a turn of ``session`` as capture stores it, and how
        many spans it withheld: each span of the session's ``match:`` rules
        (:func:`redact_matches`, any position) and of every ``--match`` text
        of the store (:attr:`text`, from the start of a word, as serving
        hides it: :func:`served_spans`) replaced by ``[forgotten]``, so a
        text forgotten before it was said (``forget.text_rule_ahead``) or
        said in a session the forget did not touch is never stored in the
        clear by a turn writer (hook, import, proxy, MCP; txt42).  Cost:
        nothing without rules; else :func:`served_spans`' (one SHA-256 per
        word start and distinct rule length)."""
        n = 0
        mine = self.rules.get(session)
        if mine:
            text, n = redact_matches(text, mine)
        if self.text and text:
            spans = served_spans(text, self.text)
            if spans:
                text, n = replace_spans(text, spans, REDACTED), n + len(spans)
        return text, n

    def holds(self, session: str | None, value: str) -> bool:
        """True when :meth:`withhold` would change ``value`` (a ``cwd``, a
        project name, a transcript's path): capture stores it empty."""
        mine = self.rules.get(session) if session is not None else None
        return bool(value) and (bool(mine and match_spans(value, mine))
                                or bool(self.text and served_spans(value, self.text)))

    def as_stored(self, session: str, source: str) -> tuple[str, int] | None:
        """``(stored source, time)`` when a scrubbed-record tombstone names
        the record of ``session`` read with ``source`` (a record ``mem
        forget --scrub-sources`` rewrote after it was captured): it is the
        stored turn with that source, never a new one; if the chain no
        longer holds it, it is written emptied, ``forgotten`` = ``time``.
        None otherwise."""
        return self.scrubbed.get((session, source_digest(source))) if self.scrubbed else None

    def forgets(self, session: str, sources: tuple[str, ...], texts: tuple[str, ...]) -> int | None:
        """When a captured record of ``session`` must be stored emptied (a
        turn tombstone forgets it under one of its ``sources``: the source
        stored, and the record's own id when that differs, a prompt stored
        under its alias; with one of its ``texts``: as read, and as stored,
        credentials redacted): the earliest such tombstone's time (ms),
        which the turn's ``forgotten`` takes, as ``mem forget`` and a
        pull's merge write it, so a record captured again is the object it
        was (``objstore.memory.refill``: a refilled run holding it
        verifies).  None when it is kept."""
        if not self.turns:
            return None
        digests = {value_digest(x): x for x in texts if x}
        times = [w for s in set(sources) if s for d, x in digests.items()
                 if (w := self.turns.when(session, s, x, d)) is not None]
        return min(times) if times else None


def capture_filter(store: Store, *, strict: bool = True) -> CaptureFilter:
    """The :class:`CaptureFilter` of ``store`` (one pass over its tombstones).
    ``strict`` False (finishing a stopped forget): a lost tombstone is
    skipped.

    Raises:
        LostTombstone: ``strict`` and a tombstone ref names an object that
            cannot be read, or (LostTextRule) a text rule lost its digest:
            capture fails closed (:func:`all_tombstones`)."""
    return _filter(all_tombstones(store, strict=strict, guard=strict))


def _filter(tombstones: list[Tombstone]) -> CaptureFilter:
    flt = CaptureFilter()
    texts = False
    for t in tombstones:
        if flt.turns.add(t):
            continue
        if t.key == TEXT_KEY:
            texts = True
        elif t.key.startswith("session:"):
            flt.sessions.add(t.key[len("session:"):])
        elif t.key.startswith("match:"):
            r = _rule(t)
            if r is not None:
                flt.rules.setdefault(t.key[len("match:"):], []).append(r)
        elif t.key.startswith(SCRUBBED_PREFIX) and t.reason != "rejected":
            sid, sep, stored = t.key[len(SCRUBBED_PREFIX):].partition("/")
            if sep and sid and stored:
                flt.scrubbed[(sid, t.value_sha256)] = (stored, t.time)
    if texts or flt.rules:   # the rules serving redacts (served_rules), withheld at capture too (txt42)
        flt.text = match_texts(tombstones)
    return flt


def match_texts(tombstones: list[Tombstone]) -> list[tuple[bytes, int]]:
    """``[(sha256, length)]`` of every ``mem forget --match`` text named by
    ``tombstones`` (:func:`match_text_rule`), distinct, sorted: what
    serving redacts (:func:`served_rules`), capture withholds in every
    session (:meth:`CaptureFilter.withhold`) and ``mem import jsonl``
    does not bring back in a turn.  Reads nothing."""
    values = fact_value_digests(tombstones)
    return sorted({r for t in tombstones if (r := match_text_rule(t, values)) is not None})


#: the ``reason`` prefix of the fact key's tombstone a forget of chosen versions writes (``mem forget
#: KEY@vN``, a ``--match`` that leaves the key other values): ``version:<ms>``, ``<ms>`` the forgotten
#: version's ``recorded_at`` in decimal: it forgets that version and its copies, not another version
#: of the key stating the same value (the forget left it live: test29 P1)
VERSION_REASON = "version:"


def version_exact(t: Tombstone) -> int | None:
    """The ``recorded_at`` (ms) of the one version the fact key's tombstone
    ``t`` forgets (reason ``version:<ms>``: :data:`VERSION_REASON`), or None
    for a tombstone of the value (``forget``, ``rejected``, any other)."""
    if t.reason.startswith(VERSION_REASON) and t.reason[len(VERSION_REASON):].isdigit():
        return int(t.reason[len(VERSION_REASON):])
    return None


def named_forget_time(times: list[tuple[int, int | None]], f: Fact) -> int | None:
    """The forget time (ms) of the live version ``f`` by the tombstones
    naming its key and value, ``times`` (``(time, exact)`` each, by time
    ascending; ``exact``: :func:`version_exact`): the earliest that forgets
    it.  A tombstone of one version (``exact`` set) forgets the version
    recorded at ``exact`` only — a copy of it; another version of the key
    with the same value stays, as the forget left it live where it ran
    (test29 P1).  A tombstone of the value forgets any version below
    ``user_stated``, and a ``user_stated`` one recorded at or before the
    forget: a person who wrote the value back after it keeps it
    (``facts.remember`` allows it), here and through a sync (test27 V14).
    The one rule of :func:`forgotten_check` (a resumed forget, gc) and of
    the push/pull merge (``objstore.remote.merge.ForgetIndex``)."""
    for t, exact in times:
        if exact is not None:
            if exact == f.recorded_at:
                return t
        elif f.trust != "user_stated" or t >= f.recorded_at:
            return t
    return None


def forgotten_check(store: Store, *, strict: bool = False, rejections: bool = True):
    """``check(obj) -> bool``: True for a fact version or turn whose value
    a tombstone of ``store`` forgets (a turn of a forgotten session, a turn
    whose source or text a tombstone names, a version whose key + value
    digest a tombstone names: :func:`named_forget_time`).  gc deletes unreachable objects it marks at
    once (``objstore.core.gc.plan_gc`` ``forgotten``).  ``strict``: as
    :func:`all_tombstones` (raises LostTombstone); otherwise a lost
    tombstone marks nothing (gc and forget still run: gc then keeps those
    objects the usual time).  ``rejections`` False: a ``rejected``
    tombstone (``mem queue reject``: a value refused below ``user_stated``,
    which the person may still state) marks nothing (``fsck --repair``
    rebuilding a ref).  A ``rejected`` tombstone never marks a
    ``user_stated`` version: an accept (or a remember) is the person's word,
    on whichever machine it was made (test37 T14)."""
    tombs = all_tombstones(store, strict=strict)
    if not rejections:
        tombs = [t for t in tombs if t.reason != "rejected"]
    flt = _filter(tombs)
    seals = Withdrawals()
    facts: dict[tuple[str, bytes], list[tuple[int, int | None]]] = {}
    stated: dict[tuple[str, bytes], list[tuple[int, int | None]]] = {}   # (without the rejections)
    for t in tombs:
        if t.key.startswith(_FACT_SCOPES) and not seals.add(t):
            facts.setdefault((t.key, t.value_sha256), []).append((t.time, version_exact(t)))
            if t.reason != "rejected":
                stated.setdefault((t.key, t.value_sha256), []).append((t.time, version_exact(t)))
    for times in (*facts.values(), *stated.values()):
        times.sort(key=lambda e: e[0])
    hidden = any(HIDDEN_MARK in k for k, _d in facts)   # (a hash per fact only then)

    def check(obj) -> bool:
        if isinstance(obj, Turn):
            return obj.session in flt.sessions or flt.turns.when(obj.session, obj.source, obj.text) is not None
        if isinstance(obj, Fact):
            if not obj.body:
                return False
            digest = value_digest(obj.body)
            named = stated if obj.trust == "user_stated" else facts
            return named_forget_time(named.get((obj.key, digest), []), obj) is not None or \
                (hidden and named_forget_time(named.get((hidden_key(obj.key), digest), []), obj) is not None) or \
                (bool(seals) and seals.when(obj) is not None)   # a plain copy a seal withdrew
        return False
    return check


REDACTED = "[forgotten]"


def redact_matches(text: str, rules: list[tuple[bytes, int]]) -> tuple[str, int]:
    """Replace every span of ``text`` whose normalized form
    (``objstore.core.text.normalize_value``: NFC, case-folded, whitespace
    runs as one space) hashes to a rule's SHA-256, with ``[forgotten]``; the
    characters around the spans are kept as they are.  The rule holds only the hash and the normalized
    length, never the text.  Cost: one SHA-256 per position and rule.

    Returns ``(text, spans redacted)``.
    """
    spans = match_spans(text, rules)
    if not spans:
        return text, 0
    return replace_spans(text, spans, REDACTED), len(spans)


def match_spans(text: str, rules: list[tuple[bytes, int]], *, word_starts: bool = False) -> list[tuple[int, int]]:
    """``(start, end)`` offsets into ``text`` (sorted; they may overlap) of
    every span whose normalized form hashes to a rule of ``rules``
    (``[(sha256, length)]``), found by :func:`find_matches` (``word_starts``
    as there), as written or as it reads (its ``confusable_fold``: other
    dashes, fullwidth forms, invisible characters; test39 T5, as
    :func:`holds_text` reads a fact's value): what :func:`redact_matches` replaces.  A text with a
    backslash is also read with its JSON string escapes decoded (a tool
    call's input is stored as its JSON text; ``core.text.find_spans``,
    test27 V29): such a span covers whole escapes."""
    return text_spans(text, rules, word_starts=word_starts)   # (maps made only for a form with a hit: imp43)


def match_late_capture(store: Store, names: list[str], session: str, time_ms: int, texts: tuple[str, ...]) -> int:
    """Give ``session`` the ``match:<session>`` rule of every ``mem forget
    --match`` text that ran after ``time_ms`` (ms since the epoch: when the
    turn being captured was said, e.g. the prompt hook's clock) and that one
    of ``texts`` (the turn's text, cwd, project) holds (:func:`match_spans`,
    as the turn writer redacts): the rule that forget would have written
    had the turn been stored before it ran (same key, digest, time and
    reason: the same object), so the turn writer then stores the turn as
    forget left the others (text redacted, cwd/project emptied) and the
    session's later turns too.  Closes the race of a prompt captured by the
    hook's detached child after a forget that started once the hook had
    returned (docs/forget.md, "No resurrection").  ``names``: the store's
    tombstone ref names (``objstore.memory.served.tombstone_names``).
    Returns how many rules were written.  Caller holds the store lock.
    Cost: nothing more when no ``--match`` ever ran (:func:`served_rules`
    of ``names``: its cache file); else a read of every tombstone."""
    if not served_rules(store, names):
        return 0
    tombs = all_tombstones(store)
    values = fact_value_digests(tombs)
    have = {(t.value_sha256, t.reason) for t in tombs if t.key == f"match:{session}"}
    n = 0
    for t in tombs:
        r = match_text_rule(t, values) if t.time > time_ms and t.key == TEXT_KEY else None
        reason = f"match:{r[1]}" if r is not None else ""
        if r is None or (r[0], reason) in have or not any(match_spans(x, [r]) for x in texts if x):
            continue
        put_tombstone(store, Tombstone(key=f"match:{session}", value_sha256=r[0], time=t.time, reason=reason))
        have.add((r[0], reason))
        n += 1
    return n


# -- serving: a --match text in a session the forget did not touch --------------

#: the derived file of :func:`served_rules` (docs/format.md, "Derived files under cache/")
SERVED_RULES_FILE = "cache/match-rules"


def served_rules(store: Store, names: list[str]) -> list[tuple[bytes, int]]:
    """``[(sha256, length)]`` of every ``mem forget --match`` text of
    ``store`` (:func:`match_text_rule`: a forgotten value's text is not
    redacted from turns), distinct, sorted.  What every path that serves a
    turn's text redacts (:class:`Hider`), so a session imported after the
    forget, which capture does not check (docs/forget.md, "No
    resurrection"), never shows the text.  A lost tombstone is skipped.

    Kept in :data:`SERVED_RULES_FILE` under the SHA-256 of the sorted
    tombstone ids (the names under ``refs/tombstones/``), so a search or a
    prompt hook lists that folder instead of reading every tombstone (a
    ``--match`` over many turns writes one per turn: ~20 us each).  The
    file is written when it is stale and the store can be written (an error
    is ignored: it is derived).  Cost: nothing without tombstones; a
    listing, one SHA-256 and a small read when the file is fresh.

    ``names``: the sorted names of the tombstone refs, as the caller listed
    them (:func:`objstore.memory.served.tombstone_names`: the one listing
    and name filter; the gate in front of this module, which therefore
    does not import it)."""
    if not names:
        return []
    key = sha256("\n".join(names).encode("utf-8", "surrogateescape")).hexdigest()
    path = store.root / SERVED_RULES_FILE
    try:
        head, *lines = path.read_text(encoding="ascii").splitlines()
        if head == key:
            return [(bytes.fromhex(d), int(n)) for d, n in (ln.split(" ") for ln in lines)]
    except (OSError, ValueError):
        pass
    rules = match_texts(all_tombstones(store))
    try:
        atomic_write(path, "".join(f"{x}\n" for x in [key, *(f"{d.hex()} {n}" for d, n in rules)]).encode("ascii"),
                     durable=False)
    except OSError:
        pass
    return rules


def served_spans(text: str, rules: list[tuple[bytes, int]]) -> list[tuple[int, int]]:
    """The spans of ``text`` that serving redacts: :func:`match_spans` of
    :func:`served_rules` at word starts (as :func:`holds_text` finds a
    forgotten text).  Cost: one SHA-256 per word start of ``text`` and
    distinct rule length (a 400-character passage and 20 lengths: ~1,400
    hashes, ~0.6 ms), so a caller checks the passage it shows, not the
    whole turn (``objstore.index.snippets.make_snippet`` ``hide``)."""
    return match_spans(text, rules, word_starts=True)


class Hider:
    """What a snippet must not show (``objstore.index.snippets.make_snippet``
    ``hide``): the spans of :func:`served_spans` for ``rules``
    (:func:`served_rules`), replaced by ``mark`` (``[forgotten]``);
    ``reach``: the longest rule's length, how far beyond a window a span
    that reaches into it can start.  None from :func:`hider` when the store
    has no ``--match`` text."""

    __slots__ = ("rules", "reach", "mark")

    def __init__(self, rules: list[tuple[bytes, int]]) -> None:
        self.rules = rules
        self.reach = max((n for _d, n in rules), default=0)
        self.mark = REDACTED

    def spans(self, text: str) -> list[tuple[int, int]]:
        """:func:`served_spans` of ``text``."""
        return served_spans(text, self.rules)

    def text(self, text: str) -> str:
        """:func:`served_text` of ``text`` (a whole text, served as it is)."""
        return served_text(text, self.rules)


def hider(store: Store, names: list[str]) -> Hider | None:
    """The :class:`Hider` of ``store``'s :func:`served_rules` (``names`` as
    there), or None when it has none (the served text is then shown as
    stored).  Called through :func:`objstore.memory.served.hider`."""
    rules = served_rules(store, names)
    return Hider(rules) if rules else None


def served_text(text: str, rules: list[tuple[bytes, int]]) -> str:
    """``text`` with each span :func:`served_spans` finds replaced by
    ``[forgotten]`` (a turn's whole text, served without a snippet)."""
    spans = served_spans(text, rules)
    return replace_spans(text, spans, REDACTED) if spans else text
