"""The lean start-up path: the commands an agent or a hook runs in a new
process (``get``, ``recall``, ``search``, ``remember``, ``context`` and
``mem --help``) without importing click.

:func:`main` parses the common, valid command lines of those commands and
runs the same bodies the click commands run (:func:`get`, :func:`recall`,
…).  Anything it does not fully understand (``--help`` of a command, an
unknown or malformed option, a missing argument, a value out of range, shell
completion) returns None and the caller runs click, which gives the one
canonical help text and usage error.  So the lean path can only be faster,
never different: ``tests/cmds/test_lean.py`` checks that its options are
exactly the click commands' and that both paths print the same.

Where each millisecond goes: ``docs/benchmarks.md``, "Start-up".
"""

from __future__ import annotations

import os
import sys
import unicodedata

from ._out import TWO_FORMATS, broken_pipe, project_override, warn_redacted, warn_set_back, hint_of, rebuild_missing_index, refuse_bad_utf8, unexpected_error, warn_config, warn_damage, wants_json, working_dir
from ._out import (ascii_streams, needs_ascii, echo, emit_json, fmt_time, home_from_env, store_lock_timeout, missing_path, parse_time, report_error,
                   safe, style, version_json, edges_json, shown_key)

EXIT_INTERRUPTED = 130


class UsageProblem(Exception):
    """A combination of options the command refuses (click: a UsageError, exit 2)."""


# --------------------------------------------------------------------------- the bodies

def get(store, key: str, as_json: bool, as_of: int | None = None, session: str | None = None,
        agent: str | None = None) -> int:
    """``mem get KEY [--as-of TIME] [--session ID [--agent NAME]]``: print the
    current value, or the one current at ``as_of`` (exactly the stored bytes
    when stdout is not a terminal), as the namespace of ``session``/``agent``
    reads it (:func:`namespace_of`, as ``recall`` does).  Raises NotFound
    when nothing was current at ``as_of``, IntegrityError when the current
    value was lost to damage (or the whole key: ``lostrefs.lost_ref_error``), InvalidInput for ``agent`` without a session."""
    from objstore import NotFound, current, refuse_if_sealed
    reader = namespace_of(session, agent)
    refuse_if_sealed(store, key)
    try:
        v = current(store, key, as_of, fmt_time(as_of) if as_of else
                    ("" if as_of is None else "1970-01-01T00:00:00Z"), reader)
    except NotFound as e:   # a key 'mem fsck --repair' removed is not "no key" (test34 T2)
        from objstore import fact_ref, lost_ref_error
        lost = lost_ref_error(store.root, fact_ref(key))
        if lost is None:
            raise
        raise lost from e
    from objstore import set_back_of
    back = set_back_of(store, key)   # (test40 T23: an agent reads --json, not stderr)
    if as_json:
        emit_json({**version_json(v, current=True), **({"set_back": back} if back else {})})
    elif sys.stdout.isatty():
        echo(safe(v.fact.body))
    else:  # exactly the stored value (echo would strip escape sequences)
        sys.stdout.write(v.fact.body + "\n")
        sys.stdout.flush()
    if back:   # (test38: said by fsck and doctor only)
        echo(f"warning: {safe(back['warning'])}", err=True)
    return 0


def project_scope(project: str | None, all_projects: bool, store=None):
    """The project aliases of this invocation (``--project``, else
    ``$MEM_PROJECT``, else the working directory), or None for every project."""
    from objstore import project_aliases
    if all_projects:
        return None
    override = project_override(project)
    cwd = None if override else working_dir()
    return project_aliases(cwd, override=override, store_root=store.root if store is not None else None) or None


def namespace_of(session: str | None, agent: str | None) -> str | None:
    """The namespace of this invocation: ``--session`` (else
    ``$MEM_SESSION``), or with ``--agent NAME`` its sub-agent's
    ``<session>.agent-NAME``; None for none.  Raises InvalidInput for
    ``--agent`` without a session or a bad session id or agent name."""
    session = session or os.environ.get("MEM_SESSION") or None
    if session:
        from objstore import validate_session_id   # (core.refs: loaded with the store)
        session = validate_session_id(session)
    if agent is not None:   # "" is a bad name (exit 2), never "no agent"
        from objstore import child_namespace   # (only then: mem get loads no scope module)
        return child_namespace(session or "", agent)
    return session


def recall(store, queries, what: str, limit: int, project: str | None, all_projects: bool, as_json: bool,
           as_of: int | None = None, include_directives: bool = False, session: str | None = None,
           agent: str | None = None, from_agent: str | None = None) -> int:
    """``mem recall QUERY…``: current facts and turn passages, fused over
    phrasings, dated, passages a later statement changed marked so; with
    ``as_of`` the store as it stood then.  ``session``/``agent``: read as
    that namespace; ``from_agent``: only what that sub-agent recorded."""
    from objstore import recall as _recall
    projects = project_scope(project, all_projects, store)
    rebuild_missing_index(store)
    reader = namespace_of(session, agent)
    within = None
    if from_agent is not None:  # "" names no sub-agent: refused, not read as no filter (objstore.memory.sessions is imported only then)
        from objstore import agent_namespace
        within = agent_namespace(store, from_agent, session or os.environ.get("MEM_SESSION") or None,
                                 reader if agent is not None else None)
    res = _recall(store, list(queries), what=what, projects=projects, limit=limit, as_of=as_of,
                  include_directives=include_directives, namespace=reader, within=within)
    back = warn_set_back(store, [h.key for h in res.hits if h.kind == "fact"])   # (test39b B6)
    from objstore import sealed_in_scope, sealed_named, sealed_over
    scoped = sealed_in_scope(store, projects) if as_of is None else []   # (any words: test30b S3, S4; not --as-of)
    over = sealed_over([h.key for h in res.hits if h.kind == "fact" and h.key], scoped) if scoped else {}
    if scoped:   # (sealedmarks: loaded only then)
        from objstore import sealed_newer
    newer = sealed_newer(store, res.hits, scoped) if scoped else {}
    sealed = sealed_named(store, queries, projects) if scoped and what != "turns" else []
    if as_json:
        emit_json({"queries": res.queries, "project": projects[0] if projects else None,
                   "projects": list(projects) if projects else None, "resolved": res.resolved,
                   "superseded": res.superseded, "as_of": as_of, "sealed": sealed,
                   "hits": [{**h.to_json(), **({"overridden_by": over[h.key]} if h.key in over else {}),
                             **({"sealed_later": newer[h.id]} if h.id in newer else {}),
                             **({"set_back": back[h.key]} if h.kind == "fact" and h.key in back else {})} for h in res.hits]})
        return 0
    for key in sealed:   # never recalled: say so rather than "nothing recalled" alone
        from objstore import sealed_message   # (for a sealed key named only)
        echo(safe(f"note: {sealed_message(key)}"), err=True)
    if not res.hits:
        scope = f" in project {projects[0]} (from {'--project' if project else 'the working directory'})" \
            if projects else ""
        hint = ""
        if projects:  # say where the hits are, if anywhere: a project is a scope, not a filter people expect
            wide = _recall(store, list(queries), what=what, projects=None, limit=limit,
                           include_directives=include_directives)
            others = sorted({h.project for h in wide.hits if h.project} - {projects[0]})
            if others:
                hint = (f"; other projects have hits: {', '.join(others[:5])} "
                        f"(--project {others[0]}, or --all-projects)")
            else:
                hint = " (try --all-projects)"
        echo(f"nothing recalled{scope}{hint}", err=True)
        return 0
    from ._hitnotes import namespace_label, older_note   # (the text's notes: not for --json)
    for h in res.hits:
        ns = namespace_label(h.namespace, with_session=h.kind == "fact")  # a turn's session is shown already
        ns = style(safe(f"  {ns}"), fg="blue") if ns else ""
        if h.kind == "fact":
            flags = "".join([" pinned" if h.pinned else "", " dormant" if h.dormant else ""])
            echo(style(safe(f"fact  {shown_key(h.key)}"), fg="yellow")
                 + safe(f"  v{h.version}  {fmt_time(h.valid_from or 0)}  {h.trust}{flags}  {h.id[:12]}") + ns)
            body = h.text if len(h.text) <= 800 else h.text[:799] + f"… (mem get {h.key})"
            echo("    " + safe(body).replace("\n", "\n    "))
            if h.resolved_from:
                echo(older_note(h.resolved_from))
            if h.key in over:   # a narrower sealed value of the name is the one in force there (rule 5)
                echo(style(safe(f"    (overridden in project {over[h.key].split('/')[1]} by {over[h.key]}, sealed: "
                                f"mem sealed show {over[h.key]})" if over[h.key].startswith("project/") else
                                f"    (overridden by {over[h.key]}, sealed: mem sealed show {over[h.key]})"),
                           fg="magenta"))
        else:
            where = f"{h.session}#{h.seq}"
            who = h.author if h.author in ("parent_agent",) else h.role  # a sub-agent's prompt is not the person's
            echo(style(safe(f"turn  {where}"), fg="cyan")
                 + safe(f"  {who}  {fmt_time(h.time)}  {h.project or '-'}  {h.trust}  {h.id[:12]}") + ns
                 + (style("  untrusted", fg="red") if h.untrusted else ""))
            echo("    " + safe(h.text))
            if h.id in newer and not h.updated_later:
                echo(style(safe(f"    (a newer sealed value of {newer[h.id]} may replace this: "
                                f"mem sealed show {newer[h.id]})"), fg="magenta"))
        if h.updated_later:
            u = h.updated_later
            where = u.get("key") or f"{u.get('session')}#{u.get('seq')}"
            by_turn = h.kind == "fact" and u.get("kind") == "turn"   # a fact changes only by a version
            said = "a later turn says" if by_turn else "updated later"   # (a person's later fact: test36 T20)
            echo(style(safe(f"    {said} ({fmt_time(u['time'])}, {where}): "
                            + " ".join(u["text"].split())[:160]), fg="magenta"))
            if by_turn:
                echo(style(safe(f"    (the fact is unchanged until a new version: mem remember {h.key} …)"), dim=True))
        if h.duplicates:
            echo(style(f"    (+{h.duplicates} identical)", dim=True))
    return 0


def search(store, query, limit: int, what: str, exit_code: bool, as_json: bool,
           include_directives: bool = False) -> int:
    """``mem search QUERY…``: BM25 over current facts and turns; returns 1 when
    ``exit_code`` and nothing matched."""
    from objstore import InvalidInput
    from objstore import search as _search
    text = " ".join(query)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("the query is not valid UTF-8 text") from None
    kinds = {"all": ("fact", "turn"), "facts": ("fact",), "turns": ("turn",)}[what]
    rebuild_missing_index(store)
    hits = _search(store, text, limit=limit, kinds=kinds, include_directives=include_directives)
    back = warn_set_back(store, [h.ref for h in hits if h.kind == "fact"])   # (test39b B6)
    if as_json:
        emit_json([{"kind": h.kind, "id": h.id, "key" if h.kind == "fact" else "session": h.ref,
                    "time": h.time, "role": h.role, "project": h.project, "score": round(h.score, 4),
                    "snippet": h.snippet, "resolved_from": h.resolved_from,
                    "matched_namespace": h.matched_namespace,
                    **({"set_back": back[h.ref]} if h.kind == "fact" and h.ref in back else {})} for h in hits])
    else:
        from ._hitnotes import older_note, other_namespace_note
        for h in hits:
            label = "fact" if h.kind == "fact" else f"turn/{h.role}"
            echo(style(safe(f"{label}  {shown_key(h.ref) if h.kind == 'fact' else h.ref}"), fg="yellow")
                 + f"  {fmt_time(h.time)}  {h.id[:12]}  score {h.score:.2f}")
            echo(f"    {safe(h.snippet)}")
            if h.resolved_from:
                echo(older_note(h.resolved_from))
            elif h.matched_namespace:
                echo(other_namespace_note(h.matched_namespace))
    return 1 if exit_code and not hits else 0


def read_value_stdin() -> str:
    """The value of ``mem remember KEY -``: standard input with every CRLF
    read as LF (a file saved on Windows, a CRLF heredoc: test25 T20,
    test26b W6; as git's ``core.autocrlf`` reads a text file), less one
    final line end.  A lone CR stays.  Reads at most
    ``2 * MAX_BODY_CHARS + 2`` characters (a value of CRLF lines is up to
    twice its length): a longer input is refused (InvalidInput, exit 2)
    before the rest is read, so a 200 MB input costs what the limit costs,
    not its size in memory."""
    from objstore import MAX_BODY_CHARS, InvalidInput, file_value
    raw = sys.stdin.read(2 * MAX_BODY_CHARS + 2)
    text = file_value(raw)
    if len(text) > MAX_BODY_CHARS or len(raw) > 2 * MAX_BODY_CHARS + 1:
        raise InvalidInput(f"the value is longer than {MAX_BODY_CHARS} characters (standard input was not read further)")
    return text


def remember(store, key: str, text: str, kind, trust: str, sensitivity: str, valid_from, expect, pin,
             as_json: bool, relates_to=(), contradicts=(), derived_from=(), rollup_of=(),
             session: str | None = None, agent: str | None = None) -> int:
    """``mem remember KEY TEXT``: write a new version (``TEXT`` ``-`` reads stdin),
    in the namespace of ``session``/``agent`` (:func:`namespace_of`).
    Raises UsageProblem for ``--pin`` with ``--sensitivity secret``, or for
    edges or a namespace on a secret."""
    from objstore import default_trust, now_ms, writing_agent
    from objstore import remember as _remember
    sub_agent = agent
    agent = writing_agent(os.environ)   # the owner the version stores: no credential (exit 2)
    if agent is not None and (trust == "user_stated" or pin is not None):  # at most agent_observed, as MCP
        from objstore import require_person
        require_person(os.environ, "mem remember --trust user_stated" if trust == "user_stated"
                       else "mem remember --pin/--no-pin",
                       instead="leave it off: the value is written agent_observed and queued for review "
                               "where it would replace what the user stated")
    if agent is not None:
        from objstore import is_memory_file_key
        if is_memory_file_key(unicodedata.normalize("NFC", key)):  # soul.md, memory.md, user.md: the person's
            from objstore import require_person
            require_person(os.environ, f"mem remember {key} (a memory file)",
                           instead="propose an edit for review: mem memory propose add memory TEXT "
                                   "(soul.md is the user's alone)")
    trust = trust or default_trust(os.environ)  # by who is calling: an agent's write goes through review
    if text == "-":
        text = read_value_stdin()
    namespace = namespace_of(session, sub_agent) or ""
    edges = [(rel, t) for rel, ts in (("relates_to", relates_to), ("contradicts", contradicts),
                                      ("derived_from", derived_from), ("rollup_of", rollup_of)) for t in ts]
    if sensitivity == "secret":
        if edges:
            raise UsageProblem("a sealed value holds no edges")
        if namespace:
            raise UsageProblem("a sealed value has no namespace: drop --session/--agent")
        if pin:
            raise UsageProblem("a sealed value is never injected, so it cannot be pinned")
        from ._vault import remember_sealed_value   # (a sealed write only)
        return remember_sealed_value(store, key, text, kind, trust, valid_from, expect, as_json, owner=agent or "user")
    if _helper_jobs() is None and not (OWN_PROCESS and _index_in_place(store.root)):
        r = _remember(store, key, text, kind=kind, trust=trust, valid_from=valid_from, expect=expect,
                      sensitivity=sensitivity, pinned=pin, owner=agent or "user", edges=edges, namespace=namespace)
    else:  # the answer once the version, its ref and reflog are durable, the index after (helper or detached child)
        store, r = _remember_then_index(store, key, text, kind=kind, trust=trust, valid_from=valid_from,
                                        expect=expect, sensitivity=sensitivity, pinned=pin, owner=agent or "user",
                                        edges=edges, namespace=namespace)
    if contradicts and r.written:  # a contradicts edge puts both facts in the review queue
        from objstore import flag_contradictions
        for item in flag_contradictions(store, r, owner=agent or "user"):
            if not as_json:
                echo(f"queued for review: {item[:12]} ({r.key} contradicts another key: keep which? "
                     f"mem queue show {item[:12]})", err=True)
    if r.queued:  # parked for review instead of overruling a user_stated value (mem queue)
        if as_json:
            emit_json({"key": r.key, "written": False, "queued": r.queued, "id": r.version and r.version.id,
                       "previous": r.previous, "current": r.current, "redacted": r.redacted})
        else:
            echo(f"queued for review: {r.queued[:12]} (" + (f"the value of {shown_key(r.key)} is unchanged" if  # (fresh39
                 r.previous else f"nothing written to {shown_key(r.key)}") + "; see mem queue)")   # F3: a new key)
            if agent and trust != "user_stated":
                echo(f"note: written from {agent} (an agent), so as {trust}; a person accepts it with "
                     f"mem queue accept {r.queued[:12]}", err=True)
        return 0
    f = r.version.fact
    warn_redacted(r.redacted)
    if r.index_error:
        echo(f"warning: written, but the search index was not updated: {r.index_error}\n"
             "hint: run 'mem reindex'", err=True)
    if as_json:
        emit_json({"key": r.key, "written": r.written, "id": r.version.id, "version": f.version,
                   "previous": r.previous, "current": r.current, "edges": edges_json(f.edges),
                   **({"namespace": f.namespace} if f.namespace else {})})
        return 0
    if not r.written:
        echo(f"unchanged: {r.key} v{f.version} already holds this value ({r.version.id[:12]})")
    elif r.current != r.version.id and f.valid_from > now_ms():
        echo(f"wrote {r.key} v{f.version} {r.version.id[:12]} (valid from {fmt_time(f.valid_from)}, "
             "in the future: " + (f"until then the current value stays {r.current[:12]})" if r.current
                                  else "no current value until then)"))
    elif r.current != r.version.id and f.namespace:
        echo(f"wrote {r.key} v{f.version} {r.version.id[:12]} (current for sub-agent {f.namespace} and its "
             "children only" + (f": the parent's value stays {r.current[:12]})" if r.current else ")"))
    elif r.current != r.version.id:
        echo(f"wrote {r.key} v{f.version} {r.version.id[:12]} (backfill: the current value "
             f"is still {r.current[:12]}, valid from later)")
    else:
        echo(f"wrote {shown_key(r.key)} v{f.version} {r.version.id[:12]}")
    if r.written and r.current == r.version.id:
        from objstore import takeover_note
        if note := takeover_note(store, r.key, r.version.id):   # test32 X15
            echo(note, err=True)
    return 0


#: True in the ``mem`` console script's own process (``cmds.entry``), which
#: leaves by ``os._exit`` right after the command: a ``remember`` answers
#: first and commits its index in a detached child
#: (:func:`_index_after_answer`), and a reader leaves its open index to the
#: exit (``Store.close(keep_index=True)``).  False when :func:`main` is
#: called in another program's process (a test), which commits and closes
#: before it returns
OWN_PROCESS = False
#: the index commits of this process's ``remember`` that wait for the answer
#: (:func:`_remember_then_index` outside the resident helper)
AFTER: list = []
#: In the resident helper: ``submit(jobs, done)``, which hands a
#: ``remember``'s index commits (``objstore.remember(later=...)``) and the
#: closing of its store to the helper's commit thread
#: (:class:`cmds._helperserve.Committer`), so that the next request does not
#: wait for them; None elsewhere
COMMIT_LATER = None


def _helper_jobs() -> list | None:
    """``cmds._hookrun.DEFERRED``: the resident helper's jobs for after the
    answer, or None outside the helper.  Read from ``sys.modules``: the
    helper imports ``_hookrun`` when it starts, and a new process's
    ``remember`` need not import it (with ``select`` and ``signal``) to
    learn that it is None."""
    hookrun = sys.modules.get(f"{__package__}._hookrun")
    return None if hookrun is None else hookrun.DEFERRED


def _index_in_place(root) -> bool:
    """True when the store's search index has its facts sub-index (one
    ``stat``): then a new process's ``remember`` may commit it after the
    answer.  Otherwise (no index yet, or something else where it belongs)
    it commits before answering, so that an error reaches the person with
    the answer ("written, but the search index was not updated")."""
    return os.path.isfile(os.path.join(root, "index", "facts", "CURRENT"))


def _remember_then_index(store, key: str, text: str, **kw):
    """``remember`` in the resident helper, or in the console script's own
    process (:data:`OWN_PROCESS`): ``(store, RememberResult)``.

    The write (object, owned journal entry, ref and reflog, all durable) is
    made on a store of its own whose lock is held until the answer is
    written; then the lock is released and the index commit
    (``objstore.remember(later=...)``, under the facts sub-index's own
    lock) runs: in the helper, from ``cmds._hookrun.DEFERRED``; in a new
    process, in a child forked once the answer is written
    (:func:`_index_after_answer`), which inherits the entry's ``flock``.
    So the next writer does not wait for this commit.  In the helper the
    commit runs in its commit thread (:data:`COMMIT_LATER`), so the next
    request is not held by it either (the store is then opened by its
    absolute path: the request thread changes directory per request).
    Meanwhile a reader waits for the commit on that ``flock``
    (``Store.try_recover``; in the helper's request thread too: a ``flock``
    belongs to the open file description), and a crash leaves the entry for
    the next holder of the store lock to replay (docs/format.md, "Owned
    entries").  The caller goes on with the store returned (a flagged
    contradiction is written under the same lock)."""
    from objstore import open_store
    from objstore import remember as _remember
    submit = COMMIT_LATER if _helper_jobs() is not None else None
    own = open_store(os.path.abspath(store.root) if submit is not None else store.root,
                     lock_timeout=store.lock_timeout)
    own.lock_refused = store.lock_refused   # (a bad $MEM_LOCK_TIMEOUT)
    later: list = []
    try:
        own.lock("remember").acquire()
        r = _remember(own, key, text, later=later, **kw)
    except BaseException:
        own.close()
        raise

    def index() -> None:
        """After the answer: the lock goes, then the index commit (here, or
        handed to the helper's commit thread, which closes the store)."""
        handed = False
        try:
            own.release_lock()
            if submit is not None and later:
                handed = submit(later, own.close)
            if not handed:
                for job in later:
                    job()   # an error leaves the owned entry: the next holder of the lock replays it
        finally:
            if not handed:
                own.close()
    deferred = _helper_jobs()
    if deferred is not None:
        deferred.append(index)
    else:
        AFTER.append((index, own, bool(later)))
    return own, r


def _index_after_answer() -> None:
    """Run the index commits :data:`AFTER` holds, once the answer is
    written: in a child forked for them (a new session, stdio on
    ``/dev/null``), so that the caller of ``mem remember`` does not wait for
    a tantivy commit and its ``fdatasync``s (docs/benchmarks.md, "Session
    8 (branch `lean8`)").  The store lock is released before the fork: the
    child commits under the facts sub-index's lock and holds the owned
    journal entry's ``flock`` (an ``flock`` belongs to the open file
    description, which the fork shares; this process's copy closes at its
    exit) until its commit is done.  The write itself was durable before
    the answer (the version, its ref and reflog, the owned ``F`` entry), and
    a child that dies leaves that entry for the next holder of the lock.
    Runs them here instead when there is nothing to commit, ``fork`` does
    not exist or fails, or tantivy is loaded already (its threads are not
    carried into a forked child)."""
    jobs, AFTER[:] = list(AFTER), []
    for _job, own, _work in jobs:
        own.release_lock()    # the next writer need not wait for this commit
    if not any(work for _job, _own, work in jobs) or not hasattr(os, "fork") or "tantivy" in sys.modules:
        for job, _own, _work in jobs:
            job()
        return
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except (OSError, ValueError):
            pass
    try:
        pid = os.fork()
    except OSError:
        pid = None
    if pid is None:
        for job, _own, _work in jobs:
            job()
        return
    if pid == 0:
        try:
            os.setsid()
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            for job, _own, _work in jobs:
                try:
                    job()
                except BaseException:  # noqa: BLE001 - nobody reads this child's output: the journal stays
                    pass
        finally:
            os._exit(0)
    for _job, own, _work in jobs:
        own.close()   # the child commits; the owned entry's flock stays with its copy of the descriptor


def context(store, project, budget: int | None, session_id, source: str, prompt, previous_assistant, tool_output,
            as_json: bool, prompt_budget: int | None = None, agent: str | None = None) -> int:
    """``mem context`` (:func:`cmds._leancontext.context`)."""
    from ._leancontext import context as run
    return run(store, project, budget, session_id, source, prompt, previous_assistant, tool_output, as_json,
               prompt_budget=prompt_budget, agent=agent)


# --------------------------------------------------------------------------- the parser

def _choice(*values):
    def conv(v: str):
        if v not in values:
            raise ValueError(v)
        return v
    conv.choices = values
    return conv


def _int_range(lo: int, hi: int):
    def conv(v: str):
        n = int(v.strip())
        if not lo <= n <= hi:
            raise ValueError(v)
        return n
    conv.range = (lo, hi)
    return conv


def _float_range(lo: float, hi: float):
    def conv(v: str):
        n = float(v.strip())
        if not lo <= n <= hi:
            raise ValueError(v)
        return n
    conv.range = (lo, hi)
    return conv


FLAG = "flag"
_str = str


def _many(conv):
    """A repeatable option: each use adds ``conv(value)`` to a tuple."""
    def many(v):
        return conv(v)
    many.multiple = True
    return many
_WHAT = _choice("all", "facts", "turns")

#: command -> (body, positionals [(name, nargs: 1 or -1)], options {flag: (param, converter | FLAG | (param, value))},
#:             defaults, creates the store)
#: Keep in step with the click commands: tests/cmds/test_lean.py compares them.
SPECS: dict[str, tuple] = {
    "get": (get, [("key", 1)], {"--as-of": ("as_of", parse_time), "--session": ("session", _str),
                                "--agent": ("agent", _str), "--json": ("as_json", FLAG), "--plain": ("plain", FLAG)},
            {"as_json": False, "as_of": None, "session": None, "agent": None, "plain": False}, False),
    "recall": (recall, [("queries", -1)], {
        "--what": ("what", _WHAT), "-n": ("limit", _int_range(1, 200)), "--limit": ("limit", _int_range(1, 200)),
        "--project": ("project", _str), "--all-projects": ("all_projects", FLAG), "--as-of": ("as_of", parse_time),
        "--include-directives": ("include_directives", FLAG),
        "--session": ("session", _str), "--agent": ("agent", _str), "--from-agent": ("from_agent", _str),
        "--json": ("as_json", FLAG), "--plain": ("plain", FLAG)},
        {"what": "all", "limit": 10, "project": None, "all_projects": False, "as_of": None, "include_directives": False,
         "session": None, "agent": None, "from_agent": None, "as_json": False, "plain": False}, False),
    "search": (search, [("query", -1)], {
        "-n": ("limit", _int_range(1, 1000)), "--limit": ("limit", _int_range(1, 1000)), "--what": ("what", _WHAT),
        "--exit-code": ("exit_code", FLAG), "--include-directives": ("include_directives", FLAG),
        "--json": ("as_json", FLAG), "--plain": ("plain", FLAG)},
        {"limit": 10, "what": "all", "exit_code": False, "include_directives": False, "as_json": False, "plain": False},
        False),
    "remember": (remember, [("key", 1), ("text", 1)], {
        "--kind": ("kind", _choice("user", "feedback", "project", "reference", "directive")),
        "--trust": ("trust", _choice("user_stated", "agent_observed", "derived")),
        "--sensitivity": ("sensitivity", _choice("public", "private", "secret")),
        "--valid-from": ("valid_from", parse_time), "--expect": ("expect", _str),
        "--pin": ("pin", (FLAG, True)), "--no-pin": ("pin", (FLAG, False)), "--json": ("as_json", FLAG), "--plain": ("plain", FLAG),
        "--relates-to": ("relates_to", _many(_str)), "--contradicts": ("contradicts", _many(_str)),
        "--derived-from": ("derived_from", _many(_str)), "--rollup-of": ("rollup_of", _many(_str)),
        "--session": ("session", _str), "--agent": ("agent", _str)},
        {"kind": None, "trust": None, "sensitivity": "private", "valid_from": None, "expect": None,
         "pin": None, "as_json": False, "plain": False, "relates_to": (), "contradicts": (), "derived_from": (),
         "rollup_of": (), "session": None, "agent": None}, True),
    "context": (context, [], {
        "--project": ("project", _str), "--budget": ("budget", _int_range(1, 100_000)),
        "--prompt-budget": ("prompt_budget", _int_range(1, 100_000)), "--session": ("session_id", _str),
        "--source": ("source", _choice("startup", "resume", "clear", "compact", "fork")),
        "--prompt": ("prompt", _str), "--previous-assistant": ("previous_assistant", _str),
        "--tool-output": ("tool_output", _str), "--agent": ("agent", _str), "--json": ("as_json", FLAG),
        "--plain": ("plain", FLAG)},
        {"project": None, "budget": None, "prompt_budget": None, "session_id": None, "source": "startup",
         "prompt": None, "previous_assistant": None, "tool_output": None, "agent": None, "as_json": False,
         "plain": False}, False),
}

#: the root group's options
ROOT_OPTIONS = {"--home": ("home", _str), "--lock-timeout": ("lock_timeout", _float_range(0, 3600))}


def _options(argv: list[str], i: int, opts: dict, params: dict, stop_at_arg: bool) -> tuple[int, list[str]] | None:
    """Read options from ``argv[i:]`` into ``params``; return (index reached,
    positional arguments) or None when anything is not understood."""
    args: list[str] = []
    only_args = False
    while i < len(argv):
        a = argv[i]
        if only_args or a == "-" or not a.startswith("-"):
            if stop_at_arg:
                return i, args
            args.append(a)
            i += 1
            continue
        if a == "--":
            only_args = True
            i += 1
            continue
        name, eq, value = a.partition("=") if a.startswith("--") else (a[:2], "", a[2:])
        if not eq and not value:
            value = None
        spec = opts.get(name)
        if spec is None:
            return None
        param, conv = spec
        if conv == FLAG or isinstance(conv, tuple):
            if value is not None:
                return None
            params[param] = True if conv == FLAG else conv[1]
            i += 1
            continue
        if value is None:
            if i + 1 >= len(argv):
                return None
            value = argv[i + 1]
            i += 1
        try:
            params[param] = (*params[param], conv(value)) if getattr(conv, "multiple", False) else conv(value)
        except ValueError:
            return None
        i += 1
    return i, args


def parse(argv: list[str]):
    """``argv`` (without the program name) -> (command, params, home,
    lock_timeout), or None when click must handle it."""
    if "_MEM_COMPLETE" in os.environ:
        return None
    try:
        "\0".join(argv).encode("utf-8")
    except UnicodeEncodeError:
        return None                   # undecodable bytes: click's path says what is wrong
    if any(a in ("-h", "--help") for a in argv):
        return None
    root: dict = {}
    got = _options(argv, 0, ROOT_OPTIONS, root, stop_at_arg=True)
    if got is None or got[0] >= len(argv):
        return None
    i = got[0]
    name = argv[i]
    if name not in SPECS:
        return None
    _body, positionals, opts, defaults, _create = SPECS[name]
    params = dict(defaults)
    got = _options(argv, i + 1, opts, params, stop_at_arg=False)
    if got is None:
        return None
    args = got[1]
    for pname, nargs in positionals:
        if nargs == -1:
            if not args:
                return None
            params[pname] = tuple(args)
            args = []
        else:
            if not args:
                return None
            params[pname] = args.pop(0)
    if args:
        return None
    if name == "remember" and params["pin"] and params["sensitivity"] == "secret":
        return None                   # click's usage error
    return name, params, root.get("home"), root.get("lock_timeout")


# --------------------------------------------------------------------------- running

def main(argv: list[str]) -> int | None:
    """Run ``mem ARGV`` on the lean path; None when click must run it."""
    if argv in (["--help"], ["-h"]):
        from ._leanhelp import help_text
        text = help_text()
        if text is None:
            return None
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0
    bad = refuse_bad_utf8(argv)
    if bad is not None:
        return bad
    parsed = parse(argv)
    if parsed is None:
        return None
    name, params, home, lock_timeout = parsed
    if needs_ascii():  # as the click path does (cmds.main.cli)
        ascii_streams()
    if params.get("plain") and params.get("as_json"):
        report_error(TWO_FORMATS, None, 2, wants_json(argv))
        return 2
    if params.pop("plain", False):  # --plain: the --json record as tab-separated lines (cmds._out.plain_lines)
        import cmds._out
        cmds._out.PLAIN = True
        params["as_json"] = True
    body, _pos, _opts, _defaults, create = SPECS[name]
    os.umask(0o077)  # the store holds private text: files and folders are the owner's only
    from objstore import MemError
    root = None   # (the store's folder, once known: the hint of damage names its moved pack folder)
    try:
        try:
            from objstore import open_store
            root = home_from_env(home)
            fresh = create and not os.path.exists(os.path.join(root, "config"))
            root_existed = os.path.exists(root)
            store = open_store(root, create=create)
            store_lock_timeout(store, lock_timeout)   # a bad $MEM_LOCK_TIMEOUT: a read goes on (test41 T25)
            try:
                return body(store, **params)
            finally:
                warn_damage(store)
                warn_config(store.root)
                store.close(keep_index=OWN_PROCESS)
                if fresh:  # a first command that stored nothing (refused, failed) leaves no store
                    store.discard_if_unused(remove_root=not root_existed)
        except MemError as e:
            report_error(e.message, hint_of(e, root), e.exit_code, params.get("as_json", False))
            return e.exit_code
        except UsageProblem as e:
            report_error(str(e), None, 2, wants_json(argv))
            return 2
        except FileNotFoundError as e:
            report_error(f"no such file or directory: {missing_path(e)}", None, 4, params.get("as_json", False))
            return 4
        except BrokenPipeError:
            return broken_pipe()
        except KeyboardInterrupt:
            raise
        except Exception as e:  # noqa: BLE001 - the last line of defence
            report_error(*unexpected_error(e), 1, params.get("as_json", False))
            if os.environ.get("MEM_DEBUG"):
                import traceback
                traceback.print_exc()
            return 1
        finally:
            if AFTER:   # a remember's index commit, once its answer is out
                _index_after_answer()
    except KeyboardInterrupt:
        echo("Interrupted.", err=True)
        return EXIT_INTERRUPTED
