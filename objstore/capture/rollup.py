"""Rollups: what a sub-agent leaves its parent.

When a sub-agent ends, its parent gets one ``summary`` fact in the parent's
namespace (``objstore.memory.scope``): the sub-agent's final message, with
``rollup_of`` edges (``Fact.edges``, ``docs/format.md`` "Edges") to the
sub-agent's turns.  A parent reads its children's conclusions at full
rank and their raw exploration demoted, so a question the sub-agent
answered is answered by its conclusion first.

A sub-agent that ends without a final message (a crash, a kill, an
interrupt), noticed at ``SubagentStop`` (no ``last_assistant_message``),
at ``Stop`` (its transcript idle for :data:`IDLE_S`), at ``SessionEnd``,
or at the next catch-up or import, leaves a summary that says it did not
complete (:data:`INCOMPLETE`) instead of nothing.

The summary's key is ``project/<p>/summary/<child namespace>`` (``<p>``: the
project its turns name, else its parent session's, else its cwd's; ``global/…``
when none is known): one key per sub-agent, so a
repeated ``SubagentStop`` or a re-import writes nothing new (the value is
unchanged), a real final message supersedes an earlier "did not complete",
and a "did not complete" never replaces a final message.

A sub-agent of a session that must not be captured (``MEM_NO_CAPTURE``, an
excluded folder) or was forgotten (``mem forget --session``: a ``session:``
tombstone) gets no summary, then or ever: its final message is that
session's text.  ``forget --session`` forgets the summaries it has.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from objstore.capture.claude_code import ReaderState, parse_file, tree_may_print_secret
from objstore.capture.claude_subagents import subagent_outcome
from objstore.capture.policy import capture_refused, load_config, no_capture_sessions
from objstore.capture.transcript import ParseStats, project_of
from objstore.capture.withhold import PrintedTrail, redact_printed
from objstore.core.errors import IntegrityError, MemError, NotFound
from objstore.core.record import Frozen, set_fields
from objstore.core.refs import session_ref, validate_session_id
from objstore.core.store import Store
from objstore.memory.facts import RememberResult, current_of, remember, walk
from objstore.memory.indexbatch import IndexBatch
from objstore.memory.scope import parent_namespace, register_project
from objstore.core.text import replace_spans
from objstore.memory.sealrules import load as load_seal_rules, withhold_sealed_values
from objstore.memory.sessions import FORGOTTEN, ChainNotes, session_turns
from objstore.memory.tombstones import all_tombstones, match_spans, text_rule

if TYPE_CHECKING:
    from objstore.memory.citations import FactCites

#: how a "did not complete" summary starts
INCOMPLETE = "did not complete"
#: a sub-agent transcript without a final message, idle this long (seconds), is taken as ended at Stop
IDLE_S = 60.0
#: characters of a final message kept in its summary
MAX_SUMMARY_CHARS = 20_000
#: characters of a sub-agent's withheld results read for the values its summary must not repeat
#: (:func:`printed_values`; a huge withheld ``cat`` beyond them is not looked for)
MAX_PRINTED_CHARS = 1 << 20
#: most ``rollup_of`` edges one summary holds (the newest turns)
MAX_EDGES = 1000
OWNER = "rollup"


#: :func:`rollup_files` puts the summaries into one pack when there are at
#: least this many: in a batch (an import: this many sub-agent files) each is
#: written into the pack (``IndexBatch.pack``), else the loose ones written are
#: packed after; a hook's few stay loose until gc
PACK_ROLLUPS_AT = 32
#: summaries a batch of rollups (``mem import``) keeps before it moves their refs and
#: indexes them: an import of a million turns has ~8,000 sub-agents, whose summaries
#: (~5 KB each) and their index write all at its end were ~100 MB of its peak memory
FLUSH_DOCS = 1000


class RollupResult(Frozen):
    """What :func:`rollup` did for one sub-agent.

    Attributes:
        child: the sub-agent's namespace.  parent: its parent's.
        key: the summary's key.  status: ``written``, ``unchanged``,
        ``kept`` (a final summary exists: a later "did not complete" is
        not written over it), ``queued`` (parked for review, e.g. an
        instruction-shaped final message) or ``skipped`` (not a sub-agent).
        complete: whether the summary holds a final message.
        edges: the turn ids it rolls up.  id: the summary version's id.
        chain: when this rollup wrote the key's head, its whole chain
            (``facts.Version``, newest first, as ``facts.walk`` reads it
            from ``id``), for the fact-citations memo (``citations.note_chains``);
            else ``()``.
    """

    __slots__ = ("child", "parent", "key", "status", "complete", "edges", "id", "chain")

    def __init__(self, child: str, parent: str, key: str, status: str, complete: bool, edges: tuple[str, ...] = (),
                 id: str | None = None, chain: tuple = ()) -> None:
        set_fields(self, child, parent, key, status, complete, edges, id, chain)


def summary_key(child: str, project: str) -> str:
    """The key of sub-agent ``child``'s summary (module doc)."""
    return f"project/{project}/summary/{child}" if project else f"global/summary/{child}"


def rollup_edges(fact) -> tuple[str, ...]:
    """The ids of the turns a summary fact rolls up (its ``rollup_of``
    edges)."""
    return fact.edges_of("rollup_of")


def is_incomplete(body: str) -> bool:
    """Whether a summary body is a "did not complete" one."""
    return body.startswith(INCOMPLETE)


def _parent_project(store: Store, parent: str, cwd: str) -> str:
    """The project of a sub-agent whose turns name none (its transcript was
    unreadable, or it wrote no turn yet): its parent session's newest turn's,
    else ``cwd``'s as capture names a turn's (:func:`cwd_project`), else
    ``""`` (then the summary is a ``global/`` key, served to every project)."""
    try:
        head = store.refs.read(session_ref(parent))
        turn = store.get(head) if head else None
    except MemError:      # a bad id or a damaged head: the cwd still says
        turn = None
    if turn is not None and getattr(turn, "project", ""):
        return turn.project
    return cwd_project(store, cwd, project_of(cwd)) if cwd else ""


def cwd_project(store: Store, cwd: str, fallback: str) -> str:
    """The project of working directory ``cwd`` as capture names a turn's:
    by its identity (``objstore.memory.scope.register_project``: worktrees
    and sub-agents map to their repository; registered in the store's
    project registry), or ``fallback`` when ``cwd`` is not a directory here
    or names none."""
    try:
        name = register_project(store, cwd) if os.path.isdir(cwd) else ""
    except (OSError, ValueError):
        name = ""
    return name or fallback


def printed_values(path: Path, session: str = "") -> tuple[str, ...]:
    """The raw bodies of the tool results withheld in Claude Code sub-agent
    transcript ``path`` (``agent-<id>.jsonl``), read as capture reads it
    (``claude_code.parse_file``: its calls and its session tree's trail) with a
    :class:`~objstore.capture.withhold.PrintedTrail`; in reading order, at most
    :data:`MAX_PRINTED_CHARS` characters in all; kept in memory only, for
    :func:`rollup`'s ``printed`` (test23b V3).  ``()`` without parsing when no
    file of its session tree may print secret material
    (``claude_code.tree_may_print_secret``; ``session``: the main session's
    id when the path does not name it): a hook's SubagentStop pays ~3 ms of
    byte search instead of a second parse (14 ms for 650 KB).  OSError
    propagates."""
    if not tree_may_print_secret(Path(path), session):
        return ()
    trail = PrintedTrail()
    for _turn in parse_file(Path(path), ParseStats(), state=ReaderState(secret_calls=trail)):
        pass
    out, left = [], MAX_PRINTED_CHARS
    for body in trail.printed:
        if left <= 0:
            break
        out.append(body[:left])
        left -= len(body)
    return tuple(out)


def rollup(store: Store, child: str, final: str | None, *, project: str = "", agent_type: str = "",
           description: str = "", command: str = "rollup", index_batch: IndexBatch | None = None,
           cwd: str = "", refused: str | None | bool = False, chain: ChainNotes | None = None,
           printed: Iterable[str] = ()) -> RollupResult:
    """Write (once) the summary of sub-agent namespace ``child`` into its
    parent's namespace.

    Args:
        child: ``<session>.agent-<id>`` (also the session id of its turns).
        final: its final message (``last_assistant_message``), or None /
            blank when it ended without one: then a "did not complete"
            summary naming how far it got.
        project: the project when its turns name none.
        agent_type, description: shown in a "did not complete" summary.
        index_batch: the index write is kept there (``indexbatch.IndexBatch``).
        cwd: the sub-agent's working directory (else its turns').
        refused: ``sync.capture_refused`` of it when the caller asked
            already (None: allowed); by default asked here.  A sub-agent
            of a forgotten, excluded or no-capture session gets no summary
            (status ``skipped``): its final message is that session's text.
        chain: the :class:`~objstore.memory.sessions.ChainNotes` of
            ``child``'s whole chain when the caller has them (an import
            that wrote it: ``TurnAppender.subagent_chains``); else its
            turns are read from the store.
        printed: the raw bodies of its withheld tool results
            (:func:`printed_values` of its transcript): every value
            they hold is :data:`~objstore.capture.withhold.SECRET_OUTPUT` in
            the summary, complete or not (``withhold.redact_printed``, test23b V3).
    The summary is valid from the time of the sub-agent's last turn (its
    chain's :attr:`~objstore.memory.sessions.ChainNotes.last_time`) when
    known and later than its key's versions, else from now.  A body equal
    to the current version's is not written again (status ``unchanged``):
    edges alone never make a new version (test33b T5).
    Returns:
        :class:`RollupResult`.
    Raises:
        InvalidInput: ``child`` is not a usable session id.  StoreLocked.
    """
    child = validate_session_id(child)
    parent = parent_namespace(child)
    if parent is None:
        return RollupResult(child, "", "", "skipped", False)
    if chain is None:
        try:
            chain = ChainNotes.of(session_turns(store, child))
        except (NotFound, IntegrityError):
            chain = ChainNotes()
    project = chain.project or project or _parent_project(store, parent, cwd)
    if refused is False:
        refused = capture_refused(store, child, cwd or chain.cwd)
    if refused:
        return RollupResult(child, parent, "", "skipped", False)
    key = summary_key(child, project)
    edges = chain.kept_ids(MAX_EDGES)  # forget dropped the others
    final = redact_printed((final or "").strip(), printed)
    complete = bool(final)
    if complete:
        if len(final) <= MAX_SUMMARY_CHARS:
            body = final
        else:   # cut before a credential crossing it, at a word's end: no prefix kept (T19)
            from objstore.core.redact import redact_cut  # deferred: the redaction rules compile at import
            head, over = redact_cut(final, MAX_SUMMARY_CHARS - 1)
            body = head + "…" if over else head
    else:
        what = " ".join(x for x in (agent_type, f"({description})" if description else "") if x)
        n = len(chain)
        tail = ""
        if n:
            tail = f" Its last turn ({chain.last_role}): {chain.last_snippet()}"
        body = (f"{INCOMPLETE}: sub-agent {child}{' ' + what if what else ''} ended without a final message "
                f"(crash, kill or interrupt) after {n} turn{'s' if n != 1 else ''}.{tail}")
        body = redact_printed(body, printed)
    body = withhold_forgotten(store, body)
    with store.lock(command):
        if index_batch is not None:
            index_batch.before(key)  # a version of it the batch holds: its ref moves first
        head = store.refs.read("facts/" + key)
        old = list(walk(store, head)) if head else []
        cur = current_of(old, reader=parent) if head else None
        if cur is not None and not complete and not is_incomplete(cur.fact.body):
            return RollupResult(child, parent, key, "kept", True, rollup_edges(cur.fact), cur.id)
        if cur is not None and cur.fact.body == body:
            # the same summary: no version saying it again, dated now, for edges alone (test33b T5: after
            # 'fsck --repair' dropped an edge to a lost turn, 'import --reread' wrote an identical v2)
            return RollupResult(child, parent, key, "unchanged", complete, rollup_edges(cur.fact), cur.id)
        # valid from the sub-agent's last turn, not from now (an import or catch-up of an old transcript
        # writes it long after: an old report dated now outranked what was said since, test32 X20); a
        # version that time would not make current over the key's own versions is written as any other
        said = chain.last_time if 0 < chain.last_time <= time.time() * 1000 else 0
        r: RememberResult = remember(store, key, body, kind="summary", trust="agent_observed", owner=OWNER,
                                     valid_from=said if said and all(said > v.fact.valid_from for v in old)
                                     else None,
                                     edges=[("rollup_of", t) for t in edges], replace_edges=True,
                                     namespace=parent, command=command, index_batch=index_batch,
                                     known_turns=frozenset(edges),  # just read from its chain
                                     named_by_mem=True)  # summary_key: no agent picks it
    if r.queued:
        return RollupResult(child, parent, key, "queued", complete, edges)
    # the chain now, known without reading it again: the new head on the one just walked
    new = r.written and r.previous == head and r.version.fact.parent == head
    return RollupResult(child, parent, key, "written" if r.written else "unchanged", complete,
                        rollup_edges(r.version.fact), r.version.id, (r.version, *old) if new else ())


def withhold_forgotten(store: Store, body: str) -> str:
    """``body`` with what the store forgot or sealed withheld as the turn
    writer withholds it in a turn: each span a local seal rule matches
    (``sealrules.withhold_sealed_values``: a sealed value, a forgotten key's
    value-shaped forms) and each forgotten text (a ``mem forget --match``
    text, a forgotten value: the tombstones' text rules) replaced by its
    marker (``[REDACTED:forgotten-value]``).  So a sub-agent's final message
    quoting a forgotten value still leaves its summary (test37 T4: the
    tombstone check refused the whole summary and the refusal was
    swallowed).  Reads the seal rules and the tombstones; nothing when there
    are none."""
    rules = load_seal_rules(store)
    if rules is not None:
        body, _n = withhold_sealed_values(body, rules)
    texts = [r for t in all_tombstones(store) if (r := text_rule(t)) is not None]
    spans = match_spans(body, texts, word_starts=True) if texts else []
    return replace_spans(body, spans, FORGOTTEN) if spans else body


#: rollups between two :meth:`PackSet.drop_pages` in :func:`rollup_files`
DROP_PAGES_EVERY = 16  # 256 left ~73 MB of pack-index pages resident at 1M turns


def rollup_files(store: Store, paths: Iterable[str | os.PathLike], *, final: bool, idle_s: float = IDLE_S,
                 command: str = "rollup", batch: bool = False,
                 chains: dict[str, ChainNotes] | None = None,
                 index_batch: IndexBatch | None = None, cites: "FactCites | None" = None) -> list[RollupResult]:
    """Roll up the Claude Code subagent transcripts among ``paths``
    (``agent-*.jsonl``; others are ignored) after their turns were captured.

    A file that ends with a final message gets a summary of it; one that
    does not gets a "did not complete" summary when ``final`` (the session
    ended, an import, a catch-up of an idle file) or when it has not been
    written for ``idle_s`` seconds; else it is left for later (it may still
    be running).  Errors on one file (unreadable, a damaged chain) skip it.
    ``batch`` (``mem import``'s hundreds of rollups): the store lock is held
    throughout, and the summaries' refs are moved and they are indexed in one
    write at the end, or every FLUSH_DOCS summaries (``indexbatch.IndexBatch(defer_refs=True)``:
    a few syncs for all instead of six fsyncs each; until then they are not
    visible, and a crash before leaves the files to be read again by the next
    import); with PACK_ROLLUPS_AT sub-agent files or more, the summaries are
    written into one pack (``IndexBatch.pack``), finished before their refs move.
    ``chains``: sub-agent namespace -> its :class:`ChainNotes`, for those the
    caller wrote whole (``TurnAppender.subagent_chains``): not read again,
    and each taken out of ``chains`` when its rollup starts.
    ``index_batch`` (with ``batch``): the :class:`~objstore.memory.indexbatch.IndexBatch`
    to use (``defer_refs``; ``mem import`` keeps the journal for its last
    turns: ``clear_journal=False``) instead of a new one; flushed here too.
    ``cites``: the fact-citations memo (``citations.FactCites``, loaded by
    the caller, who saves it: ``citations.note_chains(memo=)``) in which the
    chain of each summary written is noted as it is written; the results
    then keep neither ``chain`` nor ``edges`` (``()``): an import's thousands
    of results, each with its summary's text and edges, held until the last
    rollup were ~10 KB a sub-agent of its peak memory (8,333 at a million turns).
    """
    if batch:
        with store.lock(command):
            # the refs move in one batch at its flush
            ib = index_batch if index_batch is not None else IndexBatch(store, defer_refs=True)
            paths = list(paths)
            # many summaries: written into one pack as they come, not loose files packed afterwards
            ib.pack = sum(1 for p in paths if Path(p).name.startswith("agent-")) >= PACK_ROLLUPS_AT
            try:
                return _rollup_files(store, paths, final, idle_s, command, ib, chains or {}, cites)
            finally:
                ib.flush()  # an index error leaves the journal: the next writer replays it
    return _rollup_files(store, paths, final, idle_s, command, None, chains or {}, cites)


def _rollup_files(store: Store, paths: Iterable[str | os.PathLike], final: bool, idle_s: float, command: str,
                  ib: IndexBatch | None, chains: dict[str, ChainNotes],
                  cites: "FactCites | None" = None) -> list[RollupResult]:
    out = []
    now = time.time()
    seen: dict = {}   # what capture_refused reads, read once for all the files
    for p in paths:
        p = Path(p)
        if not p.name.startswith("agent-"):
            continue
        try:
            oc = subagent_outcome(p)
            if oc is None:
                continue
            if oc.final is None and not final and now - os.stat(p).st_mtime < idle_s:
                continue
            if not seen:
                seen.update(cfg=load_config(store.root), no_capture=no_capture_sessions(store),
                            tombstones=all_tombstones(store))
            chain = chains.pop(oc.session, None)  # its one use: freed as the rollups go
            if chain is None:
                try:
                    chain = ChainNotes.of(session_turns(store, oc.session))
                except (NotFound, IntegrityError):
                    chain = ChainNotes()
            # its transcript read again only when a result was withheld (test23b V3)
            printed = printed_values(p) if chain.withheld else ()
            r = rollup(store, oc.session, oc.final, agent_type=oc.agent_type,
                       description=oc.description, command=command, index_batch=ib, cwd=oc.cwd,
                       refused=capture_refused(store, oc.session, oc.cwd, **seen), chain=chain, printed=printed)
            if cites is not None:   # noted now: the result keeps only what names the summary
                if r.id and r.chain:
                    cites.note(r.id, list(r.chain))
                r = RollupResult(r.child, r.parent, r.key, r.status, r.complete, (), r.id)
            out.append(r)
            if ib is not None and ib.kept >= FLUSH_DOCS:  # bounded memory: the summaries' text, and
                ib.flush()                                  # one writer's heap for their index
            if len(out) % DROP_PAGES_EVERY == 0:  # an import's thousands of rollups read chains in every
                store.packs.drop_pages()          # pack: keep their index pages from piling up in memory
        except (OSError, MemError):
            continue
    written = [r.id for r in out if r.status == "written" and r.id]
    if len(written) >= PACK_ROLLUPS_AT and not (ib is not None and ib.pack):
        # many summaries written loose (not in a batch): one pack, not a loose file (and dir) each
        try:
            with store.lock(command):
                store.pack_loose(written)
        except MemError:  # they stay loose; gc packs them
            pass
    return out
