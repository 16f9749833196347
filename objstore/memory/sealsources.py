"""The turns a key being sealed cites as its source (U7): the "remember
that …" prompt a ``remember`` fact came from holds the value in the clear.
``mem seal`` (``objstore.vault.sealed.seal_key``) and the recovery of a
stopped seal (``objstore.memory.sealstop.finish_seal``) rewrite those turns
in their place with the value withheld, by the mechanism ``mem forget
--credentials`` uses (``ForgetPlan.redacted`` / ``texts``, ``forget``'s
history rewrite, index purge, derived files), before the plain versions go.
Other turns quoting the value (an agent's "Noted: …" reply, a later
question; seal31's left-out) are found with the turn index's substring
prefilter (``forgetplan.match_sessions``, every session when it cannot
answer) and rewritten the same way: the value, and a "remember that"
statement's one value-shaped word ("pg-zqx-alpha" of "the db host is
pg-zqx-alpha"), where they stand as whole words.
No tombstone is written: a hash of a short secret's turn is as good as the
secret.  docs/vault.md, "Sealing".  ``mem forget KEY`` rewrites the same
turns (:func:`add_source_turns`; docs/forget.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from objstore.core.cardnumber import card_number_ok
from objstore.core.errors import IntegrityError, NotFound
from objstore.core.ids import is_full_id
from objstore.core.objects import Fact, Tombstone, Turn, normalize_value, value_digest
from objstore.core.text import STATEMENT_COPULA
from objstore.core.textwindows import match_weight
from objstore.core.refs import session_ref
from objstore.core.store import Store, now_ms
from objstore.memory import forget
from objstore.memory.forgetplan import ForgetPlan, match_sessions
from objstore.memory.sealrules import FORGOTTEN_LABEL, add_rules
from objstore.memory.sessions import FORGOTTEN, walk_turns, withhold_value
from objstore.memory.tombstones import MIN_TEXT_CHARS, all_tombstones, put_tombstone

#: the letters a name before a word's digits is made of (:func:`_secret_word`)
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def plan_source_turns(store: Store, facts: Iterable[Fact], marker: str = "",
                      sourced_only: bool = False) -> tuple[ForgetPlan, int]:
    """A forget plan rewriting, in its place, each turn of this store that
    one of ``facts`` cites in ``sources`` and whose text holds that fact's
    value, with the value withheld (``sessions.withhold_value``), and each
    other turn quoting a form of it (:func:`quoted_forms` ``said_secret``: the person seals it, test41 T17;
    whole words),
    and how many of its turns are such other turns.  A source that
    is not a turn of this store (a file, a lost placeholder, a turn gone or
    damaged, one no longer in its session's chain) is skipped.  ``marker``:
    what stands in the value's place (``sessions.withhold_value``'s).
    ``sourced_only`` (``mem forget KEY``): the other turns are searched for
    every form of the values of facts citing a captured turn, or one a
    forget took, and for the value-shaped forms (:func:`_value_shaped`) of
    the other facts a person or an agent wrote (test34 T6: a value typed
    with ``mem remember`` stayed in the turns quoting it); a typed value of
    ordinary words and a derived fact's value stay in the turns saying them
    (derive's evidence, ``tests/derive/test_derive_guards.py``).  Reads
    only; raises OSError."""
    facts = list(facts)
    plan = ForgetPlan()
    chains: dict[str, dict[str, object]] = {}
    held: set[str] = set()     # the values of facts citing a captured turn
    for f in facts:
        if not f.body or f.forgotten:
            continue
        for src in f.sources:
            if src.startswith("forgotten:"):   # a turn a forget stopped midway took (test33b T6): it was cited
                held.add(f.body)
            if not is_full_id(src):   # a file, a URI, a lost placeholder's mark
                continue
            held.add(f.body)
            try:
                t = store.get(src, Turn)
            except (IntegrityError, NotFound):   # gone, damaged, or not a turn
                continue
            if chains.get(t.session) is None:
                try:
                    chains[t.session] = {tv.id: tv for tv in walk_turns(store, store.refs.read(session_ref(t.session)))}
                except IntegrityError:
                    chains[t.session] = {}
            tv = chains[t.session].get(src)
            if tv is None:
                continue
            old = plan.texts.get(src, tv.turn.text)
            new, n = withhold_value(old, f.body, marker=marker)
            if n:
                if src not in plan.texts:
                    plan.redacted.setdefault(t.session, []).append(tv)
                plan.texts[src] = new
    cited = set(plan.texts)
    needles = sorted(forgotten_forms(facts, held) if sourced_only else
                     {n for f in facts if f.body and not f.forgotten for n in quoted_forms(f.body, said_secret=True)},
                     key=len, reverse=True)
    _plan_quoting(store, plan, chains, needles, marker)
    return plan, len(set(plan.texts) - cited)


def _plan_quoting(store: Store, plan: ForgetPlan, chains: dict, needles: list[str], marker: str) -> None:
    """Add to ``plan`` each turn quoting one of ``needles`` (longest first) as a whole word, with it withheld
    (:func:`plan_source_turns`' other turns); ``chains``: ``{session: {turn id: TurnVersion}}`` read so far."""
    heads = {name[len("sessions/"):]: head for name, head in store.refs.iter("sessions")} if needles else {}
    for needle in needles:
        only = match_sessions(store, needle, heads)
        for sid, head in heads.items():
            if only is not None and sid not in only:
                continue
            if chains.get(sid) is None:
                try:
                    chains[sid] = {tv.id: tv for tv in walk_turns(store, head)}
                except IntegrityError:
                    chains[sid] = {}
            for tid, tv in chains[sid].items():
                if tv.turn.forgotten:
                    continue
                old = plan.texts.get(tid, tv.turn.text)
                new, n = withhold_value(old, needle, whole=True, marker=marker)
                if n:
                    if tid not in plan.texts:
                        plan.redacted.setdefault(sid, []).append(tv)
                    plan.texts[tid] = new
    for tvs in plan.redacted.values():   # newest first, as a plan holds turns
        tvs.sort(key=lambda tv: -tv.turn.seq)


def withhold_quoting_turns(store: Store, body: str) -> int:
    """Rewrite every turn of this store quoting a form of ``body``, a value
    written sealed (``mem remember --sensitivity secret``:
    :func:`quoted_forms` ``said_secret``), with it withheld in its place,
    as ``mem seal KEY`` of a plain key rewrites the turns quoting its value
    (:func:`withhold_source_turns`; test37b T20: a turn said before the
    value was sealed kept it, search served it and derive sent it to the
    provider).  Returns how many turns were rewritten.  Caller holds the
    store lock.  Raises MemError, OSError."""
    plan = ForgetPlan()
    _plan_quoting(store, plan, {}, sorted(quoted_forms(body, said_secret=True), key=len, reverse=True), "")
    n = len(plan.texts)
    if n:
        forget.forget(store, plan=plan, reason="seal", tombstones=False)
    return n




def forgotten_forms(facts: Iterable[Fact], held: set[str] | None = None) -> set[str]:
    """The forms of ``facts``' values a ``mem forget KEY`` withholds in the
    turns quoting them: every :func:`quoted_forms` form of a value whose
    fact cites a captured turn (or one a forget took: ``held``, the values
    so cited; None: read from ``facts``' sources), the value-shaped forms
    (:func:`_value_shaped`) of a value a person or an agent typed, and every
    form of one holding a secret word (:func:`secret_parts`: the whole of
    "gate 7731-4402 north" too, in any spacing, test42 T12), none of a
    derived fact's value (derive's evidence).  Reads nothing."""
    facts = [f for f in facts if f.body and not f.forgotten]
    if held is None:
        held = {f.body for f in facts if any(s.startswith("forgotten:") or is_full_id(s) for s in f.sources)}
    return {n for f in facts if f.body in held or f.trust != "derived"
            for whole in (f.body in held or bool(secret_parts(f.body)),)
            for n in quoted_forms(f.body) if whole or _value_shaped(n)}


def add_source_turns(store: Store, plan: ForgetPlan) -> int:
    """Add to a ``mem forget KEY`` / ``KEY@vN`` / version-id plan the
    rewrite of the turns its fact versions were remembered from (and of the
    other turns quoting their values), with the values withheld, as
    :func:`plan_source_turns` makes it for a seal (test33 T7: the "remember
    that …" prompt kept the forgotten value, served by search and recall);
    the quoting turns as ``sourced_only`` there says.
    A turn the plan forgets whole or blanks is left to that.  Returns how
    many turns were added.  Reads only; raises OSError."""
    facts = [v.fact for vs in (*plan.keys.values(), *plan.versions.values()) for v in vs]
    if not facts:
        return 0
    extra, _quoting = plan_source_turns(store, facts, FORGOTTEN, sourced_only=True)
    gone = {tv.id for tvs in (*plan.sessions.values(), *plan.turns.values()) for tv in tvs}
    added = 0
    for sid, tvs in extra.redacted.items():
        have = {tv.id for tv in plan.redacted.get(sid, ())}
        new = [tv for tv in tvs if tv.id not in gone and tv.id not in have]
        if new:
            plan.redacted[sid] = sorted([*plan.redacted.get(sid, ()), *new], key=lambda tv: -tv.turn.seq)
            plan.texts.update({tv.id: extra.texts[tv.id] for tv in new})
            added += len(new)
    return added


def plan_forget_turns_too(store: Store, *, what: str | None = None, match: str | None = None,
                          session: str | None = None) -> ForgetPlan:
    """``forget.plan_forget`` of the selector; for a key, a version or an
    object id, with the turns its values were remembered from and quoted in
    (:func:`add_source_turns`).  What ``mem forget`` and the MCP ``forget``
    tool plan.  Raises as ``plan_forget``, OSError."""
    plan = forget.plan_forget(store, what=what, match=match, session=session)
    if what is not None:
        add_source_turns(store, plan)
    return plan


def rule_source_values(store: Store, plan: ForgetPlan) -> int:
    """After a forget whose plan withheld values in their source turns
    (:func:`add_source_turns`): the text rule of each form of each
    forgotten value (:func:`quoted_forms`; ``forget.text_rule_ahead``: a
    hash, at least ``MIN_TEXT_CHARS``), so a turn the transcript sync
    captures later holding it (the agent's "Noted: …", already in the
    transcript at the forget) is never served with it (test33b T4).
    For a key, a version or an object id (no ``--match``), first the local
    seal rules of the forms it withholds (:func:`forgotten_forms`;
    ``sealrules.add_rules`` under ``forgotten:KEY``), so a turn captured or
    pulled later, in any session, is stored with the value withheld
    (test34b T17: a new session quoting it stored it in the clear).
    Returns how many rules were written.  Takes the store lock; raises
    StoreLocked, OSError."""
    n = 0
    if plan.match is None:
        with store.lock("forget"):
            for key, vs in [*plan.keys.items(), *plan.versions.items()]:
                n += add_rules(store, FORGOTTEN_LABEL + key, sorted(forgotten_forms(v.fact for v in vs)))
    if not plan.redacted:
        return n
    forms = {x for vs in (*plan.keys.values(), *plan.versions.values()) for v in vs
             if v.fact.body and not v.fact.forgotten for x in quoted_forms(v.fact.body)}
    n += sum(1 for x in sorted(forms) if forget.text_rule_ahead(store, x))
    return n + session_rules(store, sorted(plan.redacted), sorted(forms))


def session_rules(store: Store, sessions: list[str], texts: list[str]) -> int:
    """The ``match:<session>`` rule (``tombstones.match_text_rule``: a hash
    and a length, never the text) of each of ``texts`` (normalized, at
    least ``MIN_TEXT_CHARS``) for each of ``sessions``: what a ``forget
    --match`` writes for the sessions it touched, so the turn writer stores
    their later turns with the text withheld (``appender``: the session's
    next prompt or Stop sync quoting a value ``mem forget KEY`` withheld in
    its earlier turns; test34 T1: stored in the clear, only masked when
    served).  A rule already there is not written again.  Returns how many
    were written.  Takes the store lock; raises StoreLocked, OSError."""
    rules = {(value_digest(norm), len(norm)) for x in texts if match_weight(norm := normalize_value(x)) >= MIN_TEXT_CHARS}
    if not rules or not sessions:
        return 0
    n = 0
    with store.lock("forget"):
        have = {(t.key, t.value_sha256, t.reason) for t in all_tombstones(store) if t.key.startswith("match:")}
        for sid in sessions:
            for digest, length in sorted(rules):
                t = Tombstone(key=f"match:{sid}", value_sha256=digest, time=now_ms(), reason=f"match:{length}")
                if (t.key, t.value_sha256, t.reason) not in have:
                    put_tombstone(store, t)
                    n += 1
    return n


def quoted_forms(body: str, said_secret: bool = False) -> list[str]:
    """The forms of a sealed value another turn quotes: the body itself, and
    for a statement ("the db host is pg-zqx-alpha") its predicate when that
    is one word shaped as a value (6+ characters with a digit, a symbol or a
    hyphen: "pg-zqx-alpha", "Kp9vvLm44y"; not "Tuesday"), so an agent's
    "Noted: pg-zqx-alpha." is found; a body of fewer than 4 characters
    (after normalizing) is none (it would withhold ordinary words); a body
    of two words one of which is shaped as a value ("8841-2290 rowan",
    "PIN 7731-0042": test36 T8) is, and so is that word; so is a body of two
    words one of which is a number of 4+ digits ("rowan 8841": red37,
    test36b T3; not "postgres 16"), and a statement's predicate of two words
    read the same way ("the vendor code is 4410-7788 maple": the predicate
    and "4410-7788", test36b T14); a body of one or
    two words none shaped as a value is none: sealing "main"
    withheld that word in 53 unrelated turns of every project (test32b Y4,
    a regression of the quoting turns' rewrite); the cited source turns
    are rewritten whatever the body.  ``said_secret``: the person wrote the
    value as a secret (``mem remember --sensitivity secret``): a body or a
    statement's predicate of two ordinary words is a form too ("maple
    otter", red37, test36b T3; "wifi pass: otter maple", test37b T8; each
    rule is at least ``MIN_TEXT_CHARS`` long once normalized,
    ``sealrules.add_rules``, which adds each form's separator-folded one).
    A form of two words is a form said the other way round too ("otter
    maple", "8841 rowan": test37b T15).  A code after a label of words
    and no copula ("door code 5520-1199-3377") is a form too
    (:func:`_labelled_code`, test37 T3).  So is each word of a body of two
    words or more shaped as its secret (:func:`secret_parts`: "7731-4402"
    of "gate 7731-4402 north"; val43).  The one derivation of a value's
    rules for ``mem seal`` and ``mem forget KEY`` (:func:`forgotten_forms`)."""
    out = _two_words(body, said_secret, whole=True)
    padded = f" {body} "   # the statement's copula, the capture's reading (a verb of change too: test32b Y10)
    m = STATEMENT_COPULA.search(padded)
    pred = padded[m.end():].strip().rstrip(".!") if m else ""
    if _value_shaped(pred):
        out.append(pred)
    elif len(pred.split()) == 2:   # said as a secret: "wifi pass: otter maple" (test37b T8)
        out += _two_words(pred, said_secret, whole=False)
    elif not m:
        out += _labelled_code(body)
    return list(dict.fromkeys(out + secret_parts(body, said_secret)))


def secret_parts(body: str, said_secret: bool = False) -> list[str]:
    """The words of a value of two words or more that are shaped as its
    secret, each a form of its own (:func:`quoted_forms`, so the same for
    ``mem forget KEY`` and ``mem seal``; val43: test42 T12, fresh42 F17/F18:
    "gate 7731-4402 north", "router admin at 10.0.0.1, code Osprey-6621"
    had a rule of the whole value only, or none, and a later turn quoting
    the code kept it): a word stripped of the marks around it, of 8 or more
    characters (``MIN_TEXT_CHARS``) holding a digit (:func:`_secret_word`:
    a code, a word and digits, an address); a word of letters only never
    ("use the north gate": no word of it is a form), nor a number, a date, a
    time, a version or a port.  ``said_secret`` (the person sealed the
    value: :func:`quoted_forms`): also each word :func:`_said_secret_word`
    reads as a password, a code or a card's number ("hunter22", "Heron-88",
    "4111111111111111": test43 T15).  In the body's order, each once.
    Reads nothing."""
    words = [w.strip(".,;:!?\"'()[]{}<>") for w in body.split()]
    if len(words) < 2:
        return []
    return list(dict.fromkeys(w for i, w in enumerate(words) if _secret_word(w)
                              or (said_secret and _said_secret_word(w, words[max(0, i - 2):i]))))


#: the words a secret is said after in a value sealed as secret ("admin password hunter22", "the safe is
#: Heron-88", "card 4111111111111111"): a word after one (or after one and "is") is read as that secret
#: whatever its shape (:func:`_said_secret_word`; test43 T15)
SECRET_LABELS = frozenset(("password", "passwd", "pass", "passphrase", "passcode", "pw", "pwd", "pin", "code",
                           "combination", "combo", "safe", "lock", "card", "key", "secret", "token", "account",
                           "acct", "iban", "login"))
#: the names a number of one or two digits follows in an ordinary technical word, not a secret, even in a
#: value sealed as secret (:func:`_said_secret_word`; test43 T1: "server01", "python27", "ubuntu22", "windows10"
#: are a host, a tool or a platform): hosts and their roles, operating systems, languages, databases, models,
#: encodings and protocols, and the numbered parts of a text or a plan
TECH_NAMES = frozenset((
    "server", "srv", "host", "node", "worker", "replica", "shard", "master", "primary", "secondary", "backend",
    "frontend", "database", "cluster", "router", "switch", "gateway", "proxy", "runner", "builder", "agent",
    "broker", "bastion", "jumpbox", "webserver", "web", "app", "api", "cache", "queue", "storage", "compute",
    "instance", "machine", "container", "desktop", "laptop", "printer", "mailserver", "dbserver", "appserver",
    "python", "ubuntu", "debian", "centos", "rocky", "fedora", "windows", "macos", "android", "office", "rhel",
    "alpine", "linux", "kernel", "freebsd", "postgres", "postgresql", "mysql", "mariadb", "redis", "mongodb",
    "sqlite", "nodejs", "java", "openjdk", "jdk", "ruby", "perl", "php", "dotnet", "angular", "react", "gcc",
    "clang", "llvm", "cuda", "gpt", "claude", "llama", "gemini", "mistral", "utf", "latin", "iso", "ipv", "sha",
    "http", "tls", "ssl", "oauth", "html", "ecmascript", "es", "level", "phase", "stage", "step", "sprint",
    "week", "room", "floor", "page", "chapter", "section", "table", "figure", "item", "version", "release",
    "build", "revision", "test", "tests", "case", "region", "zone", "rack", "slot", "port", "disk", "volume",
    "partition", "channel", "team", "group", "batch", "session", "lesson", "episode", "season", "model"))


def _said_secret_word(word: str, before: list[str]) -> bool:
    """:func:`secret_parts`' test of a word (marks around it stripped) of a
    value the person sealed as secret, beside :func:`_secret_word`: 8 or
    more characters once normalized (``MIN_TEXT_CHARS``) and either a word
    of letters, one mark and one group of one or two digits ("Heron-88",
    "dragon_99") whose letters are no ordinary technical name
    (:data:`TECH_NAMES`: "server-01", "python-27" stay; without the mark,
    "jenkins02", "iphone15", "tomcat10" are names, not secrets: test44 T3,
    and "hunter22" is a part when said after a secret's word), or
    digits alone that are a card's number (13 to 19 passing the Luhn check,
    ``core.cardnumber.card_number_ok``), or a word holding a digit or a mark
    said after a secret's word (:data:`SECRET_LABELS`, ``before``: the one
    or two words before it, "password hunter22", "the safe is Heron-88",
    "password server01", "account 12345678").  Words of letters alone never
    ("the password is stored in the vault")."""
    if len(normalize_value(word)) < MIN_TEXT_CHARS or word.isalpha():
        return False
    labels = [w.strip(".,;:!?\"'()[]{}<>=").lower() for w in before]
    if labels and (labels[-1] in SECRET_LABELS or (labels[-1] in ("is", "was", "") and len(labels) == 2
                                                   and labels[0] in SECRET_LABELS)):
        return True
    if word.isdigit():
        return card_number_ok(word)
    name = len(word) - len(word.lstrip(_LETTERS))
    rest = word[name:]
    digits = rest.lstrip("-_.")
    return 0 < name and digits.isdigit() and len(digits) <= 2 and len(rest) - len(digits) == 1 \
        and word[:name].lower() not in TECH_NAMES


def _secret_word(word: str) -> bool:
    """:func:`secret_parts`' test of one word (no space): 8 or more
    characters once normalized and a digit: "7731-4402", "Osprey-6621",
    "10.0.0.1", "db-7781-prod.internal" are (letters and digits mixed:
    :func:`_mixed_secret`, 4 digits or more); not digits
    alone ("12345678": a count, an id, a time stamp; a PIN said with its
    label is :func:`_labelled_code`'s), a number ("10,000,000"), a date
    ("2024-01-05", "05/01/2024"), a time ("12:30:45"), a version after a
    name ("python3.11", "ubuntu-22.04", "server01": groups of at most 2
    digits, or 1 group of 2 after a name), a port ("localhost:8080"), the
    loopback address ("127.0.0.1")."""
    if len(normalize_value(word)) < MIN_TEXT_CHARS or not any(c.isdigit() for c in word) or word.isdigit() \
            or word.startswith("127."):
        return False
    name = len(word) - len(word.lstrip(_LETTERS))   # a name before the digits: "python", "ubuntu-", "Heron-"
    rest = word[name:].lstrip("-_")
    if any(c.isalpha() for c in rest):   # letters and digits mixed past the name: "Zq81-xx19-pp04", "7781-prod.internal"
        return _mixed_secret(word.lower(), rest.lower())
    groups = "".join(c if c.isdigit() else " " for c in rest).split()
    seps = {c for c in rest if not c.isdigit()}
    if name and len(groups) == 1:   # a name and a number: "Heron-8812" is, "server01", "localhost:8080" are not
        return len(groups[0]) >= 3 and rest[0].isdigit()
    if seps <= set(".:") and len(groups) <= 3 and all(len(g) <= 2 for g in groups):   # "3.11", "12:30:45"
        return False
    if word[:name] in ("v", "V") and seps <= {"."}:   # a version: "v1.2.3.4" (test43 T1; "10.0.0.1" is an address)
        return False
    if seps <= set("-/.") and len(groups) == 3 and sorted(map(len, groups)) in ([1, 1, 4], [1, 2, 4], [2, 2, 4]):
        return False   # a date: 2024-01-05, 5.1.2024
    return not (seps == {","} and all(len(g) == 3 for g in groups[1:]))   # a number: 10,000,000


#: words of letters and digits that name a platform, an architecture or a build, not a secret (test43 T1)
_PLATFORMS = ("x86_64", "x86-64", "aarch64", "arm64", "amd64", "i686", "win32", "win64")


def _mixed_secret(word: str, rest: str) -> bool:
    """:func:`_secret_word` of a word (lower case) whose part past its name
    (``rest``) mixes letters and digits: a secret when that part holds 4
    or more digits ("zq81-xx19-pp04", "db-7781-prod.internal"), unless it is
    shaped as a version ("v18.17.0", "v2.14.3-rc1"), a size or a range with
    its unit ("300x250px", "100-200ms"), a time stamp ("2024-01-05t10:00")
    or a platform (:data:`_PLATFORMS`).  Fewer digits is a name, not a
    secret (test43 T1: "oauth2-proxy", "k8s-cluster", "utf8mb4_unicode_ci",
    "e2e-tests", "gpt-4o-mini", "ipv6-only" were withheld in every later
    turn once a value holding them was forgotten)."""
    if sum(c.isdigit() for c in rest) < 4 or word.startswith(_PLATFORMS):
        return False
    head = rest.split("-", 1)[0].split("+", 1)[0].lstrip("v")
    if "." in head and all(p.isdigit() for p in head.split(".")):   # a version
        return False
    bare = rest.rstrip("abcdefghijklmnopqrstuvwxyz")
    if len(rest) - len(bare) <= 3 and any(all(p.isdigit() for p in bare.split(sep)) for sep in "x-"):
        return False   # "300x250px", "100-200ms", "1920x1080"
    return not (len(rest) >= 16 and rest[4] == rest[7] == "-" and rest[10] == "t" and rest[:4].isdigit())


def _labelled_code(text: str) -> list[str]:
    """:func:`quoted_forms`' form of a code written after a label of one to
    four words, no copula ("door code 5520-1199-3377", "vendor portal pin
    8841-2290-5573": test37 T3, only the whole text had a rule, which no
    later turn repeats): the code, when it is one word of 8+ characters with
    a digit after two or more label words, or two or three words holding a
    group of 4+ digits ("alarm 4410 9921", "locker 3391 blue": test37b T8),
    and the label words hold no digit; else none."""
    words = text.split()
    at = next((i for i, w in enumerate(words) if any(c.isdigit() for c in w)), len(words))
    code = [w.strip(".,;:!?\"'()[]{}<>") for w in words[at:]]
    if not 1 <= at <= 4 or not 1 <= len(code) <= 3:
        return []
    if len(code) == 1:
        return [code[0]] if at >= 2 and len(code[0]) >= 8 else []
    joined = " ".join(code)
    return [joined] if len(joined) >= 8 and any(len(w) >= 4 and w.isdigit() for w in code) else []


def _two_words(text: str, said_secret: bool, whole: bool) -> list[str]:
    """:func:`quoted_forms`' forms of ``text`` alone: itself when it is 3+ words (``whole``), one word shaped as a
    value, or two words one of which is shaped as a value or a number of 4+ digits (or any two, or one word of
    4+ characters of a script written without spaces, ``said_secret``);
    and the value-shaped word of two."""
    words = text.split()
    bare = [w.strip(".,;:!?\"'()[]{}<>") for w in words] if len(words) == 2 else []
    shaped = [w for w in bare if _value_shaped(w)]
    pin = [w for w in bare if len(w.replace("-", "")) >= 4 and w.replace("-", "").isdigit()]
    out = [text] if len(normalize_value(text)) >= 4 and ((whole and (len(words) >= 3 or _value_shaped(text)))
                                                         or shaped or pin or (bare and said_secret)
                                                         or (said_secret and _unspaced_phrase(words))) else []
    if out and bare:   # said the other way round: "otter maple", "8841 rowan" (test37b T15)
        out.append(f"{bare[1]} {bare[0]}")
    return out + shaped   # "8841-2290 rowan", "PIN 7731-0042": a PIN or passphrase with its label (test36 T8)


def _unspaced_phrase(words: list[str]) -> bool:
    """One word of 4 or more characters all of a script written without spaces ("北京上海", "코끼리구번"):
    weighing 8 (``core.textwindows.match_weight``), as two ordinary words; a form when said as a secret
    (han41, test40 T21: a sealed value of 4 or 5 such characters had no rule and was stored as written)."""
    return len(words) == 1 and match_weight(words[0]) >= 2 * len(words[0]) >= 8


def _value_shaped(text: str) -> bool:
    """One word of 6 or more characters holding a digit, a symbol or a
    hyphen ("pg-zqx-alpha", "Kp9vvLm44y"; not "Tuesday", not "main"), or
    of a script written without spaces weighing 12 or more
    (``core.textwindows.match_weight``: "红色大象九号", a phrase of
    several words; cjk39)."""
    return len(text.split()) == 1 and len(text) >= 6 and (any(not c.isalpha() for c in text)
                                                          or match_weight(text) >= 2 * len(text) >= 12)


def withhold_source_turns(store: Store, facts: Iterable[Fact]) -> tuple[int, int]:
    """Rewrite the source turns of ``facts`` that hold their values, and the
    other turns quoting them, with the values withheld
    (:func:`plan_source_turns`; ``forget.forget`` with that plan, reason
    ``seal``, no tombstone), after writing each value's local seal rules
    (``sealrules.add_rules``: the turns captured later); returns how many turns were rewritten: ``(cited
    sources, other turns quoting the value)``.  Facts citing a rewritten turn follow its new id.  Caller
    holds the store lock.  Idempotent: a rerun finds the value in no cited
    turn.  Raises MemError, OSError."""
    facts = list(facts)
    for f in facts:   # first: a turn captured from now on is stored with the value withheld (test34 T4)
        if f.body and not f.forgotten:
            add_rules(store, f.key, quoted_forms(f.body, said_secret=True))   # the person seals it (test41 T17)
    plan, quoting = plan_source_turns(store, facts)
    n = sum(map(len, plan.redacted.values()))
    if n:
        forget.forget(store, plan=plan, reason="seal", tombstones=False)
    return n - quoting, quoting
