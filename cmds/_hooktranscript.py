"""The session's transcript for a Claude Code hook event
(:func:`resolve_transcript`), and where each harness keeps its transcripts
(:func:`harness_folders`: the hook's and ``mem import``'s one rule).  Moved
out of :mod:`cmds._hookrun` (session 42) to keep it under the module size
limit; imported from there."""

from __future__ import annotations

import os
from pathlib import Path


def resolve_transcript(data: dict, env) -> Path | None:
    """The session's transcript.  ``transcript_path`` can be stale after
    ``/clear`` or a resume (it names the previous session's file) or missing:
    prefer ``<its folder>/<session_id>.jsonl``, then search
    ``$CLAUDE_CONFIG_DIR/projects/*/<session_id>.jsonl``.  The caller skips
    the event when the file found holds a credential in its path
    (``objstore.transcript_refused``, the rule of the given path).  A file
    that is no transcript (``objstore.is_transcript_file``: outside the
    harnesses' folders and not parsing as one) is None: an event may name any
    file, and a synced one becomes a source scan reads and --scrub-sources
    rewrites (fresh42 F13)."""
    path = _resolve(data, env)
    from objstore import is_transcript_file
    return path if path is not None and is_transcript_file(path, harness_folders(env).values()) else None


def agent_transcript(data: dict, env) -> str:
    """A SubagentStop's ``agent_transcript_path`` when it names a transcript
    (``objstore.is_transcript_file``, as :func:`resolve_transcript`), else ""."""
    from objstore import is_transcript_file
    agent = data.get("agent_transcript_path")
    ok = isinstance(agent, str) and agent and is_transcript_file(agent, harness_folders(env).values())
    return agent if ok else ""


def _resolve(data: dict, env) -> Path | None:
    sid, p = (v if isinstance(v, str) else "" for v in (data.get("session_id"), data.get("transcript_path")))
    safe_sid = bool(sid) and "/" not in sid and "\\" not in sid and sid not in (".", "..")
    if p:
        path = Path(p).expanduser()
        if safe_sid and path.stem != sid:
            sib = path.parent / f"{sid}.jsonl"
            if sib.is_file():
                return sib
        if path.is_file():
            return path
    if not safe_sid:
        return None
    projects = Path(harness_folders(env)["claude-code"])
    try:
        for d in sorted(os.listdir(projects)):
            cand = projects / d / f"{sid}.jsonl"
            if cand.is_file():
                return cand
    except OSError:
        pass
    return None


def harness_folders(env) -> dict[str, str]:
    """Where each harness keeps its transcripts, by the environment ``env`` (a
    mapping: ``os.environ``, or a hook's): ``{"claude-code":
    "$CLAUDE_CONFIG_DIR/projects", "codex": "$CODEX_HOME/sessions"}``, each
    variable unset or empty meaning ``~/.claude`` or ``~/.codex`` (``~``:
    ``env``'s ``HOME``).  Absolute paths, not checked to exist.  Only these
    folders, not the harnesses' whole folders: those hold settings and
    credentials (``settings.json``, ``auth.json``), never a transcript."""
    home = env.get("HOME") or os.path.expanduser("~")

    def folder(var: str, default: str, sub: str) -> str:
        base = env.get(var) or default
        base = home + base[1:] if base == "~" or base.startswith("~/") else os.path.expanduser(base)
        return os.path.join(os.path.abspath(base), sub)
    return {"claude-code": folder("CLAUDE_CONFIG_DIR", "~/.claude", "projects"),
            "codex": folder("CODEX_HOME", "~/.codex", "sessions")}
