"""Whether a file is an agent's transcript (:func:`is_transcript_file`):
the check a path must pass before a hook syncs it (its cursor makes it a
source of ``mem scan`` and ``--scrub-sources``), before ``imported_sources``
lists a hook's path (an older mem's cursors included), and before
``--scrub-sources`` rewrites a file.  A hook event's ``transcript_path`` is
not authenticated: any process that can run ``mem hook claude-code`` can name
any file (fresh42 F13: /etc/shadow was scanned, a config file scrubbed)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from objstore.core.atomic import open_regular

__all__ = ["harness_roots", "is_transcript_file"]

#: bytes and non-blank lines read from a file outside the harnesses' folders to tell a transcript
SNIFF_BYTES = 1 << 16
SNIFF_LINES = 20


def harness_roots(env: Mapping[str, str] | None = None) -> list[str]:
    """The harnesses' transcript folders (absolute, links resolved):
    ``~/.claude/projects``, ``$CLAUDE_CONFIG_DIR``, ``~/.codex/sessions``,
    ``$CODEX_HOME``; ``env`` defaults to ``os.environ`` (HOME, the two
    variables)."""
    env = os.environ if env is None else env
    home = env.get("HOME") or os.path.expanduser("~")
    roots = [os.path.join(home, ".claude", "projects"), os.path.join(home, ".codex", "sessions")]
    roots += [os.path.expanduser(env[v]) for v in ("CLAUDE_CONFIG_DIR", "CODEX_HOME") if env.get(v)]
    return [os.path.realpath(r) for r in roots if os.path.isabs(os.path.expanduser(r))]


def is_transcript_file(path: str | os.PathLike, env: Mapping[str, str] | None = None) -> bool:
    """Whether ``path`` may be read and rewritten as a transcript: a regular
    file (a link followed) under one of :func:`harness_roots`, or elsewhere
    one whose first records (up to :data:`SNIFF_LINES` non-blank lines in
    its first :data:`SNIFF_BYTES` bytes; a last line without its newline is
    not judged) are all Claude Code records or all Codex rollout records
    (``claude_code.is_record``, ``codex.is_record``).  An empty or unreadable
    file, a FIFO or a device, a path holding a NUL is not.  Never raises."""
    try:
        p = os.fsdecode(path)
        if "\0" in p:
            return False
        real = os.path.realpath(p)
        if not os.path.isfile(real):
            return False
        if any(real.startswith(r.rstrip(os.sep) + os.sep) for r in harness_roots(env)):
            return True
        with open_regular(real) as f:
            data = f.read(SNIFF_BYTES)
    except (OSError, ValueError):
        return False
    return _records_of_one_harness(data)


def _records_of_one_harness(data: bytes) -> bool:
    from objstore.capture import claude_code
    from objstore.capture.transcript import decode_record
    lines = [ln for ln in data.split(b"\n")[:-1] if ln.strip()][:SNIFF_LINES]
    recs = [decode_record(ln) for ln in lines]
    if not recs or any(r is None for r in recs):
        return False
    if all(claude_code.is_record(r) for r in recs):
        return True
    from objstore.capture import codex   # only for a file that is no Claude Code transcript
    return all(codex.is_record(r) for r in recs)
