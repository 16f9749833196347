"""The take-back of a "remember that …" by the next prompt (test34 T9): the
previous prompt found in the transcript, and its fact forgotten or its
earlier value restored.  How a prompt is read as a retraction, and the
window: ``capture.retraction`` (kept apart so the prompt hook reads every
prompt without loading forget)."""

from __future__ import annotations

import time
from pathlib import Path

from objstore.capture.promptscan import prompt_texts
from objstore.capture.retraction import retraction_of
from objstore.capture.statements import statement_key, statement_of
from objstore.core.errors import NotFound
from objstore.core.record import Frozen, set_fields
from objstore.core.store import Store
from objstore.memory.facts import remember, versions
from objstore.memory.forget import forget_key
from objstore.memory.scope import project_aliases

#: how long after the "remember that" its take-back is honoured (ms): 30 minutes
WINDOW_MS = 30 * 60 * 1000
#: how much of the transcript's end is read for the previous prompt (bytes)
TAIL_BYTES = 256 * 1024


class TakenBack(Frozen):
    """What :func:`take_back_previous` did: ``key``, the ``body`` taken back,
    ``how`` ``"forgotten"`` (the key held only it) or ``"restored"`` (its
    earlier value ``restored`` is current again)."""

    __slots__ = ("key", "body", "how", "restored")

    def __init__(self, key: str, body: str, how: str, restored: str | None) -> None:
        set_fields(self, key, body, how, restored)


def previous_prompt(transcript: Path, prompt: str) -> str | None:
    """The user prompt before ``prompt`` in the transcript's last
    :data:`TAIL_BYTES` (``prompt`` itself is the last one when the agent has
    written it already), or None (none, unreadable)."""
    try:
        start = max(0, transcript.stat().st_size - TAIL_BYTES)
        texts = [t for _uid, t in prompt_texts(transcript, start=start)]
    except OSError:
        return None
    if texts and texts[-1].strip() == prompt.strip():
        texts.pop()
    return texts[-1] if texts else None


def take_back_previous(store: Store, prompt: str, transcript: Path | None, *, cwd: str = "",
                       now_ms: int | None = None, window_ms: int = WINDOW_MS) -> TakenBack | None:
    """Honour ``prompt`` as the take-back of the fact the session's previous
    prompt (in ``transcript``) filed by "remember that …" (module doc), or
    None when it is no retraction, the previous prompt stated nothing, its
    key holds another value now or one recorded more than ``window_ms`` ms
    before ``now_ms`` (ms since the epoch, default now), or the subject it
    names is not the key's.  Raises StoreLocked, MemError (as
    ``memory.forget.forget_key`` and ``memory.facts.remember``)."""
    said = retraction_of(prompt) if transcript is not None else None
    prev = previous_prompt(transcript, prompt) if said is not None else None
    what = statement_of(prev) if prev else None
    if what is None:
        return None
    aliases = project_aliases(cwd or None, store_root=store.root) if cwd else ()
    key = statement_key(what, aliases[0] if aliases else None, store)
    if said.subject:
        name = [w for w in key.rpartition("/")[2].split("-") if w]
        if not set(name) <= set(said.subject) and not set(said.subject) <= set(name):
            return None
    try:
        chain = versions(store, key)
    except NotFound:
        return None
    head = chain[0].fact
    now = int(time.time() * 1000) if now_ms is None else now_ms
    if head.trust != "user_stated" or now - head.recorded_at > window_ms:
        return None
    if len(chain) == 1:
        forget_key(store, key)
        return TakenBack(key, head.body, "forgotten", None)
    remember(store, key, chain[1].fact.body, kind=chain[1].fact.kind, expect=chain[0].id, command="hook take back")
    return TakenBack(key, head.body, "restored", chain[1].fact.body)
