"""Pure completion logic: what to offer for the text before the cursor.

``suggest(text, catalog)`` knows nothing of prompt_toolkit or the store: the
:class:`Catalog` is a snapshot of names (commands with their argument kinds,
keys, head version numbers, queued item ids) taken by
``commands.build_catalog`` and refreshed by the completer in the background.
Matching ignores case; prefix matches come first (sorted), then other
substring matches (sorted), like litecli's fuzzy matching without the
scoring.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_SUGGESTIONS = 200


@dataclass(frozen=True)
class Counts:
    """What the toolbar shows: queued items, dormant facts, keys, sessions."""

    queue: int = 0
    dormant: int = 0
    facts: int = 0
    sessions: int = 0


@dataclass(frozen=True)
class Catalog:
    """A snapshot of the names the completer offers.

    Attributes:
        commands: ``{word: argument kinds}`` (names and aliases, see ``meta``).
        summaries: ``{name: one-line summary}`` (shown beside commands).
        keys: every key.  versions: ``{key: head version number}``.
        items: ``(item id, description)`` of queued items.
        counts: the toolbar's :class:`Counts`.
    """

    commands: dict[str, tuple[str, ...]] = field(default_factory=dict)
    summaries: dict[str, str] = field(default_factory=dict)
    keys: tuple[str, ...] = ()
    versions: dict[str, int] = field(default_factory=dict)
    items: tuple[tuple[str, str], ...] = ()
    counts: Counts = field(default_factory=Counts)


@dataclass(frozen=True)
class Suggestion:
    """One completion: replace the last ``-start`` characters with ``text``.

    Attributes:
        text: the completion.  start: offset (<= 0) from the cursor where
            the replaced word begins.  kind: ``command``, ``key``, ``id`` or
            ``version``.  meta: a description shown beside it.
    """

    text: str
    start: int
    kind: str
    meta: str = ""


ID_CHARS = 12  # how much of an item id is offered (unique in any real queue)


def _match(word: str, cands: list[tuple[str, str]]) -> list[tuple[str, str]]:
    w = word.casefold()
    pre = sorted((c for c in cands if c[0].casefold().startswith(w)), key=lambda c: c[0])
    if not w:
        return pre
    rest = sorted((c for c in cands if w in c[0].casefold() and not c[0].casefold().startswith(w)),
                  key=lambda c: c[0])
    return pre + rest


def split_line(text: str) -> tuple[list[str], str, int]:
    """``(words before the current one, current word, its index)``.

    ``split_line("show proj") == (["show"], "proj", 1)``;
    ``split_line("diff user/a ") == (["diff", "user/a"], "", 2)``.
    """
    words = text.split()
    if not text or text[-1].isspace():
        return words, "", len(words)
    return words[:-1], words[-1], len(words) - 1


def suggest(text_before_cursor: str, catalog: Catalog) -> list[Suggestion]:
    """Completions for ``text_before_cursor`` (see the module doc)."""
    done, word, index = split_line(text_before_cursor.lstrip())
    start = -len(word)
    if index == 0:
        names = [(n, catalog.summaries.get(n, "")) for n in catalog.commands]
        return [Suggestion(n, start, "command", m) for n, m in _match(word, names)][:MAX_SUGGESTIONS]
    kinds = catalog.commands.get(done[0].lower())
    if not kinds or index - 1 >= len(kinds):
        return []
    kind = kinds[index - 1]
    out: list[Suggestion] = []
    if kind in ("id", "key_or_id"):
        ids = [(i[:ID_CHARS], meta) for i, meta in catalog.items]
        out += [Suggestion(t, start, "id", m) for t, m in _match(word, ids)]
    if kind in ("key", "key_or_id"):
        keys = [(k, f"v{catalog.versions[k]}" if k in catalog.versions else "") for k in catalog.keys]
        out += [Suggestion(t, start, "key", m) for t, m in _match(word, keys)]
    if kind == "version" and len(done) >= 2:
        n = catalog.versions.get(done[1], 0)
        vs = [(f"v{i}", "") for i in range(n, 0, -1)]
        w = word.casefold()
        out += [Suggestion(t, start, "version") for t, _ in vs if t.startswith(w) or t[1:].startswith(w)]
    if kind == "command":
        names = [(n, catalog.summaries.get(n, "")) for n in catalog.commands]
        out += [Suggestion(n, start, "command", m) for n, m in _match(word, names)]
    return out[:MAX_SUGGESTIONS]
