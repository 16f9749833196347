"""Capture as it happens: one prompt (the UserPromptSubmit hook) stored as a
user turn at once, under the store lock, through the one turn appender
(one shell command, ``mem hook shell``: :mod:`objstore.capture.shellcap`).

Split from :mod:`objstore.capture.sync` (the incremental transcript sync,
whose cursor, lineage and filters the prompt path shares).  Keys and
idempotence: ``docs/hooks.md``, ``docs/design.md`` (the prompt key
``cc:p:<hash>:<n>``, :func:`prompt_snapshot`, which lives in
:mod:`objstore.capture.snapshot` so that the prompt hook's process need not
import this chain, and is re-exported here).
"""

from __future__ import annotations

import os
from pathlib import Path

from objstore.capture.promptscan import keyed_hash, prompt_hash
from objstore.capture.cursors import load_cursor, save_cursor
from objstore.capture.policy import (CaptureConfig, has_marker, load_config, no_capture_of,
                                    no_capture_sessions, path_excluded)
from objstore.capture.promptorder import drop_ticket, wait_earlier
from objstore.capture.sealedprompt import withhold_sealed
from objstore.capture.statements import forgotten_text_refusal, statement_of
from objstore.capture.snapshot import SNAPSHOT_MAX_BYTES, PromptSnapshot, is_subagent, prompt_snapshot
from objstore.capture.sync import (PRE_SYNC_MAX_BYTES, hide_forgotten_paths, project_namer, sync_one,
                                   valid_text, write_stated)
from objstore.capture.transcript import project_of, strip_mem_context
from objstore.core.record import Record, set_fields
from objstore.core.refs import validate_session_id
from objstore.core.errors import StoreLocked
from objstore.core.hashkey import store_key
from objstore.core.store import Store, now_ms
from objstore.memory.appender import TurnAppender
from objstore.memory.facts import commit_later
from objstore.memory.served import tombstone_names
from objstore.memory.sessions import CapturedTurn
from objstore.memory.tombstones import match_late_capture

__all__ = ["PromptResult", "PromptSnapshot", "SNAPSHOT_MAX_BYTES", "capture_prompt", "prompt_snapshot"]



# --------------------------------------------------------------------------- prompt capture

class PromptResult(Record):
    """Outcome of :func:`capture_prompt`: ``status`` is ``captured``,
    ``known`` (already stored, e.g. read from the transcript first),
    ``deferred`` (too much of the transcript unread to fix the key: the
    sync stores it), ``excluded`` (path glob), ``no-capture``, ``marked``
    (ignore marker) or ``empty`` (nothing left once ``<mem-context>`` is
    removed).  ``stated``: with ``statement=True``, the ``RememberResult``
    of the prompt's "remember that …" statement written with its turn
    (None: no statement, or not written with it)."""

    __slots__ = ("status", "id", "source", "synced", "stated")

    def __init__(self, status: str, id: str | None = None, source: str = "", synced: int = 0,
                 stated=None) -> None:
        set_fields(self, status, id, source, synced, stated)


def capture_prompt(store: Store, *, session_id: str, prompt: str, cwd: str = "",
                   transcript: Path | None = None, cfg: CaptureConfig | None = None,
                   command: str = "hook UserPromptSubmit", index: bool = False,
                   time_ms: int | None = None, snapshot: PromptSnapshot | None = None,
                   entrypoint: str = "", statement: bool = False, guard=None, ticket: str = "") -> PromptResult:
    """Store a prompt as a user turn of ``session_id`` at once (``entrypoint``:
    the agent's ``CLAUDE_CODE_ENTRYPOINT``, recorded on the turn).

    The key is ``snapshot.key`` (:func:`prompt_snapshot`, taken now when not
    given): the one the transcript reader gives the record that holds this
    prompt.  Under the store lock, the session's transcript is first read
    from its cursor when little is new (so the previous answer lands before
    this prompt; its trailing message too when a Stop hook marked the
    answer finished, see :func:`sync_files` ``stopped``), then the turn is written unless its key is already in the
    session: check and write under one lock, so concurrent deliveries store
    it once.  When the snapshot has no key although a transcript is given
    (too much unread), nothing is written (``deferred``): the transcript
    sync stores the prompt.  Without a transcript, ``n`` is one more than
    the session's prompts of this text, unless its newest turn is this very
    prompt.  The text is redacted; ``index=False`` leaves indexing to the
    next writer (the Stop hook) through the index journal.  Takes the store
    lock (StoreLocked propagates).  Raises InvalidInput for a bad session id.
    ``time_ms`` (when the prompt was said; the hook's clock): a ``forget
    --match`` that ran since (the hook's detached child may store the prompt
    after it) and whose text the prompt, cwd or project holds gives this
    session its rule first (``tombstones.match_late_capture``), so the turn
    is stored as forget left the others and its cwd is not registered.

    ``statement``: a "remember that …" prompt's fact
    (``objstore.capture.statements``) is written under the same lock, after
    the turn object and before the turn is published, citing the turn
    (``stated`` in the result): a hook stopped at any point leaves both
    unwritten (the transcript sync then writes both) or the fact written.
    Statements of earlier prompts the pre-read of the transcript adds are
    written too (late, as by :func:`sync_files`).

    ``guard``: a context manager class (or None) whose instance the turn's
    write, its statement's and the session ref's move run in, as one step:
    the prompt hook's ``cmds._hookrun.BudgetHold``, so its budget running
    out cannot leave the turn stored with no session ref naming it
    (test33b T16).  The facts' index commit, which may wait for the facts
    sub-index (a gc, another writer), is made after that step, once the
    store lock is released (``facts.remember`` ``later``: a stop before it
    leaves it to the next holder of the store lock).  A new session's ref
    is noted in the index journal before it moves
    (``TurnAppender.publish``): a process killed between leaves it to the
    next holder of the store lock to set.

    ``ticket`` (red36): the prompt's place in its session's order, taken by
    the prompt hook before it forked (``promptorder.take_ticket``): the
    capture first waits, at most ``store.lock_timeout`` seconds, until the
    captures of the session's earlier prompts are done, so the turns are
    written in the order the prompts were said (a password corrected in the
    next prompt is read after it, whichever hook child runs first); one
    still not done by then raises StoreLocked (as the lock would: it holds
    the session's next turn).  The ticket is dropped when this call returns
    or raises (a hook that hands the prompt to a child takes a new one).
    """
    if not ticket:
        return _capture(store, session_id, prompt, cwd, transcript, cfg, command, index, time_ms, snapshot,
                        entrypoint, statement, guard)
    try:
        if wait_earlier(store.root, session_id, ticket, store.lock_timeout):
            raise StoreLocked("an earlier prompt of the session is still being stored",
                              hint="its capture holds the session's next turn; the transcript sync stores this one")
        return _capture(store, session_id, prompt, cwd, transcript, cfg, command, index, time_ms, snapshot,
                        entrypoint, statement, guard)
    finally:
        drop_ticket(store.root, ticket)


def _capture(store: Store, session_id: str, prompt: str, cwd: str, transcript: Path | None,
             cfg: CaptureConfig | None, command: str, index: bool, time_ms: int | None,
             snapshot: PromptSnapshot | None, entrypoint: str, statement: bool, guard) -> PromptResult:
    """:func:`capture_prompt` once its turn in the session's order came."""
    cfg = cfg if cfg is not None else load_config(store.root)
    sid = validate_session_id(session_id)
    if has_marker(cfg, prompt):
        return PromptResult("marked")
    prompt = strip_mem_context(valid_text(prompt))   # mem's own injections never come back as evidence
    if not prompt.strip():
        return PromptResult("empty")
    if path_excluded(cfg, cwd):
        return PromptResult("excluded")
    snap = snapshot if snapshot is not None else prompt_snapshot(store.root, transcript, prompt)
    plain = prompt_hash(prompt)
    h = keyed_hash(plain, store_key(store.root))    # the stored alias's (test34b T10); ``plain``: an older mem's
    with store.lock(command) as held:
        if no_capture_of(sid, no_capture_sessions(store)):
            return PromptResult("no-capture")
        if transcript is not None and not snap.key and not is_subagent(transcript):
            return PromptResult("deferred")
        if time_ms is not None:   # a forget --match that ran since the prompt was said: as if it was stored
            match_late_capture(store, tombstone_names(store), sid, _said_before(time_ms, held.waited_for),
                               (prompt, cwd, project_of(cwd)))
        w = TurnAppender(store, command=command, withhold=withhold_sealed)
        sid = w.valid_sid(sid) or sid   # its hidden id when it holds a --match text (memory.hiddenids)
        synced = 0
        cur = None
        stated: list = []
        if transcript is not None and not is_subagent(transcript):
            try:
                fst = os.stat(transcript)
                cur0 = load_cursor(store, transcript, with_state=False)
                done = cur0.offset if cur0 and (cur0.dev, cur0.ino) == (fst.st_dev, fst.st_ino) else 0
                if fst.st_size - done <= PRE_SYNC_MAX_BYTES:
                    # after a Stop the answer is finished: read it whole, so it lands before this
                    # prompt; else an assistant message at the end may still be streaming (the
                    # prompt was typed mid-answer) and cutting it now would split it in two turns
                    stopped = bool(cur0 and done and cur0.stopped)
                    res, cur = sync_one(store, w, transcript, final=stopped, cfg=cfg,
                                        no_capture=no_capture_sessions(store), max_bytes=PRE_SYNC_MAX_BYTES,
                                        stated=stated)
                    synced = res.turns_added
                    if cur is not None:
                        cur.stopped = False         # the next answer is not finished yet
            except OSError:
                pass
        st = w.state(sid)
        key = snap.key
        if not key and st.head_role == "user" and st.head_source.startswith((f"cc:p:{h}:", f"cc:p:{plain}:")):
            key = st.head_source        # no transcript: the newest turn is this very prompt
        if not key:
            key = f"cc:p:{h}:" + str(1 + max((int(x.rsplit(":", 1)[1]) for x in st.sources
                                              if x.startswith((f"cc:p:{h}:", f"cc:p:{plain}:"))
                                              and x.rsplit(":", 1)[1].isdigit()), default=0))
        gone = w.filter().holds(sid, cwd)   # the writer empties it: not registered either
        ct = CapturedTurn(sid, key, "user", prompt, time_ms if time_ms is not None else now_ms(),
                          cwd, "" if gone else project_namer(store)(cwd, project_of(cwd)), entrypoint=entrypoint[:40],
                          legacy=f"cc:p:{plain}:{key.rsplit(':', 1)[1]}")
        later: list = []    # the facts' index commits: after the turn's session ref is set
        try:
            with guard() if guard is not None else _Unguarded():
                oid = w.add(ct)
                if statement and oid and statement_of(prompt) is not None:
                    stated.append((oid, ct.replace(alias=key)))
                mine = write_stated(store, stated, command, own=key if statement else "", rules=w.filter(),
                                    later=later)
                if mine is None and statement and oid and statement_of(prompt) is not None \
                        and w.filter().holds(sid, prompt):   # said, not dropped (test42 T23)
                    mine = forgotten_text_refusal()
                w.publish(index=index)
            status = "captured" if oid else "known"
            if cur is not None:
                hide_forgotten_paths(store, w, [cur])
        except BaseException:
            for c in later:
                c.owned.abandon()   # the next holder of the store lock indexes them
            raise
        finally:
            w.close()
        if cur is not None:
            save_cursor(store, cur)
    commit_later(later)   # the store lock released: the next prompt's hook does not wait for this commit
    if w.named_values:    # a password or PIN named now: withheld from the session's earlier turns (test37b T7)
        from objstore.memory.sessionearlier import withhold_earlier_after  # defer: forget; a password named only
        withhold_earlier_after(store, w.named_values)
    return PromptResult(status, oid, key, synced, mine)


class _Unguarded:
    """:func:`capture_prompt`'s ``guard`` when none is given: nothing."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *_a) -> None:
        return None


def _said_before(time_ms: int, waited_for: list[dict]) -> int:
    """The time (ms) a ``forget --match`` must have started after for a
    prompt said at ``time_ms`` to be stored as that forget left the others
    (``tombstones.match_late_capture``): ``time_ms``, or earlier when this
    capture waited for the store lock behind a ``forget`` (``waited_for``,
    ``StoreLock.waited_for``: ``time`` in whole seconds, when it took the
    lock), which therefore ran on after the prompt was said and never saw
    it: its start, less a millisecond (session 23 Y5: a prompt said while
    the forget ran, after its tombstones' time, was stored in the clear).
    A forget that ended before this capture first tried the lock is not
    seen here (the hook's child tries it at once)."""
    starts = [int(h["time"]) * 1000 - 1 for h in waited_for
              if h.get("command") == "forget" and isinstance(h.get("time"), int)]
    return min([time_ms, *starts])
