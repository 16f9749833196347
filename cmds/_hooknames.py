"""The one name rule asked of the names a hook event (or a shell command)
carries, before any of them is written: the session id and sub-agent id
(:func:`holds_credential`), the working directory and the transcript paths
(:func:`cwd_holds_credential`).  Each would be stored in the clear (ref
files, reflogs, the hook log, the project registry, cursors and ledgers), so
:mod:`cmds._hookrun` skips an event where one of them holds a credential.
No click; the rules are imported when first asked.
"""

from __future__ import annotations


def holds_credential(sid: str, agent_id: str = "") -> bool:
    """Whether a hook event's ``session_id`` (or its ``agent_id``) holds a
    credential by the one name rule
    (:func:`objstore.memory.writechecks.check_key_credentials`): such an id would
    name a session ref file, its reflog, the audit log, the index and the
    hook log, none of which is redacted.  The event is then skipped whole
    (nothing captured, nothing injected; one hook-log line without the id):
    the hook fails open, and the next event of a sound session is served."""
    from objstore import InvalidInput, check_key_credentials
    try:
        check_key_credentials(sid, "namespace")
        if agent_id:
            check_key_credentials(agent_id, "agent")
    except InvalidInput:
        return True
    return False


def cwd_holds_credential(cwd: str) -> bool:
    """Whether a hook event's (or a shell command's) working directory holds
    a credential (``/home/dev/AKIA…``) by the one path rule
    (:func:`objstore.core.redact.path_holds_credential`, the path's ``/``
    and ``.`` read as blanks): the path would name a project in
    ``projects.json``, ``cache/activity.json`` and the turns, none of which
    is redacted.  The event is then skipped like one whose session id holds
    a credential (one hook-log line, ``cwd-credential``, without the path);
    so is one whose ``transcript_path`` or ``agent_transcript_path`` holds
    one (``transcript-path-credential``: a cursor and the ledgers name the
    file)."""
    from objstore import path_holds_credential  # the one path rule (turns, registry, import)
    return path_holds_credential(cwd)
