"""Output and input helpers shared by the click commands and the lean path
(:mod:`cmds.lean`): no click here, so a new process that only recalls,
reads or writes one fact does not pay for importing it.

``echo``/``style`` behave like ``click.echo``/``click.style`` for what mem
uses: ANSI styles are dropped when the stream is not a terminal.
"""

from __future__ import annotations

import os
import sys

_ANSI = None


def style(text: str, fg: str | None = None, dim: bool = False) -> str:
    """``text`` wrapped in ANSI codes (the subset of ``click.style`` mem uses)."""
    codes = []
    if fg:
        codes.append(str(30 + ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white").index(fg)))
    if dim:
        codes.append("2")
    if not codes:
        return text
    return "".join(f"\x1b[{c}m" for c in codes) + text + "\x1b[0m"


def echo(text: str = "", err: bool = False, nl: bool = True) -> None:
    """Write ``text`` (and a newline) to stdout or stderr and flush; ANSI
    escape sequences are removed when the stream is not a terminal or
    ``NO_COLOR`` is set (https://no-color.org)."""
    global _ANSI
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    if "\x1b" in text and (not _isatty(stream) or os.environ.get("NO_COLOR")):
        if _ANSI is None:
            import re
            _ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")
        text = _ANSI.sub("", text)
    stream.write(text + "\n" if nl else text)
    stream.flush()


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


#: set by ``--plain`` (cmds._common.json_option), reset for each command line (cmds.main.cli)
PLAIN = False

#: the usage error (exit 2) of a reading command given both ``--json`` and
#: ``--plain`` (test34 T12.4: one was silently dropped), on both entry paths
TWO_FORMATS = "--json and --plain are two output formats: give one of them"


def redacted_lines(n: int) -> list[str]:
    """The lines of :func:`warn_redacted` (the review shell shows them in
    its reply: test39 m4); ``[]`` when ``n`` is 0."""
    if not n:
        return []
    return [f"warning: {n} credential(s) in the value were replaced by [REDACTED:<rule>] before writing",
            "hint: to keep a secret, seal it: --sensitivity secret (see docs/vault.md)"]


def warn_redacted(n: int) -> None:
    """The warning of a write whose value lost ``n`` credentials to
    ``[REDACTED:<rule>]`` (``remember``, ``memory add|replace``, ``queue
    accept --value``), with the way to keep a secret, on stderr; nothing
    when ``n`` is 0."""
    for line in redacted_lines(n):
        echo(line, err=True)


def warn_set_back(store, keys) -> dict:
    """Say once on stderr, for a command serving the values of ``keys``
    (``mem recall``, ``keys``, ``search``, ``context``), that one of them
    was set back to an older version than its reflog's last move
    (``objstore.set_back_note``; test39b B6).  The values served are
    unchanged; the hook's injected text says nothing (``mem fsck`` and
    ``mem doctor`` do).  Returns ``{key: its "set_back" field}`` of the
    keys set back, for ``--json`` (``objstore.set_back_of``; test40 T23)."""
    from objstore import set_back_note
    found: dict = {}
    if note := set_back_note(store, keys, found):
        echo(f"warning: {safe(note)}", err=True)
    return found


def emit_json(obj) -> None:
    """Print one JSON document on stdout (or, after ``--plain``, its
    :func:`plain_lines`)."""
    import json
    if PLAIN:
        for line in plain_lines(obj):
            echo(line)
        return
    echo(json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=False))


def _plain_field(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(_plain_field(x) for x in v)
    if isinstance(v, dict):
        import json
        v = json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    return str(v).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def plain_lines(obj) -> list[str]:
    """The ``--plain`` form of a JSON document: a list of records (or the
    first list of records inside an object, e.g. recall's ``hits``), one
    line each, fields tab-separated in the JSON's order with ``id`` first;
    tabs, newlines and backslashes in values escaped (``\\t``, ``\\n``,
    ``\\\\``)."""
    if isinstance(obj, dict):
        inner = next((v for v in obj.values() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)),
                     None)
        if inner is None and any(obj.get(k) == [] for k in ("hits", "turns", "findings", "items")):
            inner = []  # a result list that came back empty: no records
        rows = inner if inner is not None else [obj]
    elif isinstance(obj, list):
        rows = obj
    else:
        rows = [{"value": obj}]
    out = []
    for r in rows:
        if not isinstance(r, dict):
            out.append(_plain_field(r))
            continue
        keys = (["id"] if "id" in r else []) + [k for k in r if k != "id"]
        out.append("\t".join(_plain_field(r[k]) for k in keys))
    return out


def fmt_time(ms: int) -> str:
    """ms since epoch -> ``2026-11-29T14:00:00Z`` (UTC); ``-`` for 0."""
    if not ms:
        return "-"
    import time
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms / 1000))
    except (ValueError, OverflowError, OSError):
        return f"{ms}ms"


def parse_time(text: str) -> int:
    """``now``, ISO 8601 date or date-time (UTC unless an offset is given), or
    ``@MS`` (milliseconds since the epoch) -> ms since epoch, within 1970..9999.
    Raises ValueError with the message to show."""
    import re
    t = text.strip()
    bad = ValueError(f"{text!r} is not a time between 1970 and 9999 (use ISO 8601 like "
                     "2026-03-01 or 2026-03-01T12:00Z, '@<ms since epoch>', or 'now')")
    if t.lower() == "now":
        from objstore import now_ms
        return now_ms()
    if re.fullmatch(r"@[0-9]{1,15}", t):
        ms = int(t[1:])
    elif not t.isascii() or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.,]+)?(Z|[+-][0-9:]+)?", t):
        raise bad
    else:
        import datetime as _dt
        try:
            d = _dt.datetime.fromisoformat(t.replace("Z", "+00:00") if t.endswith("Z") else t)
        except ValueError:   # the shape of a date, but none ("2026-02-30": fresh43 F16)
            raise ValueError(f"{text!r} is not a valid date or time (use ISO 8601 like 2026-03-01 or "
                             "2026-03-01T12:00Z, '@<ms since epoch>', or 'now')") from None
        if d.tzinfo is None:
            d = d.replace(tzinfo=_dt.timezone.utc)
        ms = int(d.timestamp() * 1000)
    from objstore import MAX_TIME_MS
    if not 0 <= ms <= MAX_TIME_MS:
        raise bad
    return ms


def short(text: str, width: int = 72) -> str:
    """One line of at most ``width`` characters."""
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"


def size(n: float) -> str:
    """Bytes for people: ``512 B``, ``1.5 KiB``, ``27.0 MiB`` (binary units)."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def plural(n: int, word: str) -> str:
    """``plural(1, "turn") == "1 turn"``, ``plural(2, "turn") == "2 turns"``,
    ``plural(2, "entry") == "2 entries"``."""
    if n == 1:
        return f"{n} {word}"
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "o", "u", ""):
        return f"{n} {word[:-1]}ies"
    return f"{n} {word}s"


def refill_summary(gaps: int, verified: int) -> str:
    """How many runs of ``fsck --repair``'s lost placeholders an import or a
    pull filled and how many of them were rebuilt byte for byte (verified),
    with why the others are not (docs/format.md, "Lost placeholders")."""
    out = f"{verified} of {plural(gaps, 'gap')} verified: ids as before the damage"
    if gaps > verified:
        out += (f"; {gaps - verified} not: a turn there differs from its first writing (one emptied at "
                "capture by a mem before session 11 has that capture's time), so the turns above have new ids")
    return out


def safe(text: str) -> str:
    """Text for a terminal: control characters (escape sequences, carriage
    returns, NUL, C1 controls) shown as ``\\xNN`` and bidirectional controls
    and invisible spaces as ``\\uNNNN`` (``objstore.escape_invisible``), so stored
    content can neither drive the user's terminal nor reorder what it shows.
    Tabs and newlines are kept.  A lone surrogate (a name read from a
    file name that is not UTF-8) is shown as ``\\udcff``, as stderr and
    ``mem fsck``'s problems show it (test22 X13: not a raw replacement
    character)."""
    from objstore import escape_invisible
    text = escape_invisible(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def shown_key(key: str) -> str:
    """A key as every listing shows it: a segment that reads as another
    (Cyrillic letters in a Latin name, a whole-script look-alike) with its
    non-ASCII characters as ``\\uNNNN`` (``objstore.escape_lookalike``,
    UTS #39), so two keys that look alike never look the same; an ASCII key
    as it is.  ``--json`` keeps the key as stored."""
    if key.isascii():
        return key
    from objstore import escape_lookalike
    return escape_lookalike(key)


def refuse_output_in_store(store, out: str | None) -> None:
    """Refuse an ``-o`` path inside ``store``'s folder (symlinks resolved):
    writing there would replace one of the store's own files (its
    ``config.toml`` and with it the capture exclusions, its ``config``, a
    ref; test25 T18); or inside a folder remote's folder (its manifest, or
    plain memory where the provider sees only encrypted files; fresh42
    F16).  Raises ``click.BadParameter`` (exit 2) naming the
    store; ``None`` and ``-`` (standard output) pass."""
    if not out or out == "-":
        return
    root = os.path.realpath(store.root)
    real = os.path.realpath(out)
    if real == root or real.startswith(os.path.join(root, "")):
        import click
        raise click.BadParameter(f"{out} is inside the store at {store.root}; write it elsewhere",
                                 param_hint="-o")
    from objstore import IntegrityError, list_remotes
    try:
        remotes = list_remotes(store)
    except IntegrityError:
        return   # (a damaged remotes.json is named by the commands that use it)
    for r in remotes:   # a folder remote holds only what leaves the machine encrypted (fresh42 F16)
        if "://" not in r.url:
            folder = os.path.realpath(r.url)
            if real == folder or real.startswith(os.path.join(folder, "")):
                import click
                raise click.BadParameter(f"{out} is inside the folder of remote {r.name} ({r.url}); "
                                         "write it elsewhere", param_hint="-o")


def refuse_existing_file(out: str | None, force: bool) -> None:
    """Refuse an ``-o FILE`` that exists unless ``force`` (fresh42 F16: an
    export or a sync key replaced a person's file, a remote's manifest
    included, without a word).  Raises ``click.BadParameter`` (exit 2);
    ``None``, ``-`` and a path that does not exist pass."""
    if not out or out == "-" or force or not os.path.lexists(out):
        return
    import click
    raise click.BadParameter(f"{out} exists; nothing was written (--force replaces it)", param_hint="-o")


def refuse_missing_folder(out: str | None) -> None:
    """Refuse an ``-o FILE`` whose folder does not exist or is not a folder
    (minor39, test39 m5; fresh41 F8 for ``mem sealed export``: it said "no
    such file" and exited 4, as for a key).  Raises ``click.BadParameter``
    (exit 2); ``None`` and ``-`` pass."""
    if not out or out == "-":
        return
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        import click
        what = "is not a folder" if os.path.exists(parent) else "does not exist"
        raise click.BadParameter(f"cannot write {out}: {parent} {what} (mem creates the file, never the "
                                 "folders above it)", param_hint="-o")


def missing_path(e: FileNotFoundError) -> str:
    """The path a ``FileNotFoundError`` names, for its message: never one
    holding a credential (``objstore.shown_path``)."""
    from objstore import shown_path
    return shown_path(os.fsdecode(e.filename)) if e.filename is not None else str(e)


def _unechoed(text: str) -> str:
    """``text`` with every credential the value rule finds replaced
    (``objstore.redact_value``); the rules are compiled only when ``text``
    holds a word of 12 or more characters that could be one."""
    import re
    if not re.search(r"[\w+/=.~-]{12,}", text):
        return text
    from objstore import redact_value   # deferred: only an error with a long word compiles the rules
    return redact_value(text)


def report_error(message: str, hint: str | None, code: int, as_json: bool) -> None:
    """The error every command prints on stderr, once (``docs/exit-codes.md``):
    ``Error: …`` and an optional ``hint: …``, or with ``--json`` only one JSON
    line ``{"message_type": "exit_error", "code", "message"[, "hint"]}``;
    after ``--plain`` (which runs a command as ``--json`` and prints its
    records) the plain ``Error:`` lines (fresh37 F5), but for the usage error
    of both formats given.
    A credential in either (a word the person typed, quoted back: ``not an
    object id: 'ghp_…'``, ``no sub-agent sk-…``) is replaced by
    ``[REDACTED:<rule>]``, as in a usage error (test32 X12)."""
    message, hint = _unechoed(message), hint and _unechoed(hint)
    if as_json and (not PLAIN or message == TWO_FORMATS):
        import json
        doc = {"message_type": "exit_error", "code": code, "message": message}
        if hint:
            doc["hint"] = hint
        echo(json.dumps(doc, ensure_ascii=False), err=True)
        return
    echo(f"Error: {message}", err=True)
    if hint:
        echo(f"hint: {hint}", err=True)


def _stdout_fails() -> bool:
    """Whether a "no space" error with no file name is standard output's:
    it is a character device that is no terminal (``> /dev/full``), where
    a store file never is; a terminal never runs out of space."""
    import stat
    try:
        return stat.S_ISCHR(os.fstat(1).st_mode) and not os.isatty(1)
    except (OSError, ValueError):
        return False


def unexpected_error(e: BaseException) -> tuple[str, str]:
    """Message and hint for an exception no handler knew (exit 1): a full disk,
    a quota (``ENOSPC``/``EDQUOT``) or a file size limit (``EFBIG``) is the
    machine's state, not a bug, and so is a permission refused (``EACCES``,
    ``EPERM``: a store file of another owner, or immutable), and
    what was stored before is intact (every write is atomic); anything else is
    an internal error to report (a decoding error by its type and position
    only: its repr holds the bytes read, which may be key material)."""
    import errno
    if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT) and not e.filename \
            and _stdout_fails():   # `> /dev/full`: the disk is fine, the output is what failed (fresh41 F18)
        return (f"standard output could not be written ({(e.strerror or 'write failed').lower()}): the command's "
                "output was lost", "what it stored before it printed is kept: check with 'mem log' or 'mem get'")
    if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT):
        where = f" writing {e.filename}" if e.filename else ""
        return (f"no space left on device{where}",
                "free some space and run the command again; nothing already stored was lost")
    if isinstance(e, OSError) and e.errno == errno.EFBIG:   # test26 V8: a file size limit (ulimit -f)
        where = f" writing {e.filename}" if e.filename else ""
        return (f"file size limit reached{where} (the shell's 'ulimit -f', or the file system's largest file)",
                "raise the limit and run the command again; nothing already stored was lost")
    if isinstance(e, OSError) and e.errno in (errno.EACCES, errno.EPERM):   # fresh39 F15: an unwritable store file
        where = f" {e.filename}" if e.filename else ""
        return (f"permission denied{where} ({(e.strerror or 'not permitted').lower()}): a file or folder of the store "
                "cannot be written or read by this user",
                "fix its owner, mode or attributes (ls -l, lsattr) and run the command again; nothing already stored "
                "was lost")
    if isinstance(e, OSError) and (e.errno in (errno.EISDIR, errno.ENOTDIR, errno.EEXIST) or e.errno == errno.EINVAL
                                   and e.strerror == "not a regular file") and (e.filename2 or e.filename):
        # a folder where the store keeps a file or the other way round, on a path no check named yet (fresh44
        # F13, F15, F16: push, pull, setup ended in "internal error")
        where = e.filename2 or e.filename   # (os.replace(tmp, path): the path is the second)
        return (f"{where}: {(e.strerror or 'not a file').lower()}: a folder stands where the store keeps a file, or a "
                "file where it keeps a folder", f"move {where} out of the way ('mem fsck' names what it knows; "
                "'mem fsck --repair' sets it aside), then run the command again; nothing already stored was lost")
    if isinstance(e, UnicodeError):   # its repr holds the bytes it read (a key file's, say): never echoed
        return (f"internal error: {type(e).__name__}: {getattr(e, 'encoding', '')} {getattr(e, 'reason', '')} "
                f"at byte {getattr(e, 'start', '?')}", "run with MEM_DEBUG=1 for the traceback, and report it")
    return f"internal error: {e!r}", "run with MEM_DEBUG=1 for the traceback, and report it"


#: exit code when standard output is closed early (``mem log KEY | head -1``):
#: 128 + SIGPIPE, what a Unix tool killed by SIGPIPE reports (git, cat)
EXIT_BROKEN_PIPE = 141

#: exit code when a write to standard output failed otherwise (``ENOSPC``,
#: ``EDQUOT``, ``EIO``: ``mem forget KEY --yes > /dev/full``) and a write
#: command finished its work all the same (``_common.finishes_when_stdout_closes``):
#: sysexits.h's ``EX_IOERR``, distinct from 1 (the command failed)
EXIT_OUTPUT_LOST = 74


def broken_pipe() -> int:
    """Standard output was closed by the reader: point it at ``/dev/null``
    so the interpreter's flush at exit prints nothing, and return
    :data:`EXIT_BROKEN_PIPE` (docs/exit-codes.md)."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError):
        pass
    return EXIT_BROKEN_PIPE


def hint_of(e, root=None) -> str | None:
    """The hint of the MemError ``e`` for this process's caller: an agent
    (``objstore.agent_of``) is never told how to pass a person-only gate
    (``MemError.hint_for``).  Damage's default hint, "'mem fsck --repair'
    sets it aside", or none of a missing object (exit 4), is the sentence naming the store at
    ``root``'s pack folder or packs moved away, when they are, as fsck names
    them: the repair changes nothing then (test43 T16)."""
    from objstore import IntegrityError, agent_of
    if root is not None and (e.hint == IntegrityError.default_hint or e.hint is None and e.exit_code == 4):
        from objstore import pack_dir_problem_at
        if why := pack_dir_problem_at(root):
            return why
    return e.hint_for(agent_of(os.environ) is not None)


def wants_json(argv: list[str]) -> bool:
    """True when ``--json`` is among the options (before a ``--``)."""
    return "--json" in (argv[:argv.index("--")] if "--" in argv else argv)


#: the variables whose values are text a command uses (a project name, an agent's name, a session id)
TEXT_VARIABLES = ("MEM_PROJECT", "MEM_AGENT", "MEM_SESSION")


def _undecodable(text: str) -> bool:
    """True when ``text`` holds bytes that were not UTF-8 (lone surrogates)."""
    return any("\udc80" <= c <= "\udcff" for c in text)


def _shown(text: str) -> str:
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _command_index(argv: list[str]) -> int | None:
    """The index in ``argv`` of the command of ``mem ARGV`` (the first word
    after the root options), None when there is none."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--home", "--lock-timeout"):
            i += 2
        elif a.startswith("-"):
            i += 1
        else:
            return i
    return None


def _command_word(argv: list[str]) -> str | None:
    """The command of ``mem ARGV`` (the first word after the root options)."""
    i = _command_index(argv)
    return None if i is None else argv[i]


def _argument_name(argv: list[str], i: int) -> str:
    """``argv[i]`` named as the person typed it (test34 T12.3: the KEY of
    ``mem remember KEY VALUE`` is not "argument 2"): ``argument N of 'mem
    CMD'``, N counted from the first word after the command (options too),
    else ``word N of the command line`` (the command word or a root option)."""
    c = _command_index(argv)
    if c is None or i <= c or _undecodable(argv[c]):
        return f"word {i + 1} of the command line"
    return f"argument {i - c} of 'mem {argv[c]}'"


def refuse_bad_utf8(argv: list[str]) -> int | None:
    """Exit status 2, after the error, when an argument, or one of the
    :data:`TEXT_VARIABLES`, was not valid UTF-8 (Python hands such bytes
    over as lone surrogates, which nothing can store or match); None when
    all is text.  Both entry paths (:mod:`cmds.lean`, :mod:`cmds.main`) call
    it before parsing.  ``mem hook`` is left to fail open."""
    for i, a in enumerate(argv):
        if _undecodable(a):
            report_error(f"{_argument_name(argv, i)} is not valid UTF-8: '{_shown(a)}'", "arguments are text: pass UTF-8",
                         2, wants_json(argv))
            return 2
    if _command_word(argv) == "hook":
        return None
    for name in TEXT_VARIABLES:
        v = os.environ.get(name)
        if v and _undecodable(v):
            report_error(f"${name} is not valid UTF-8: '{_shown(v)}'", f"set {name} to UTF-8 text, or unset it",
                         2, wants_json(argv))
            return 2
    return None


def project_override(project: str | None) -> str | None:
    """The project named for this invocation: ``--project``, else
    ``$MEM_PROJECT`` (empty: unset), else None (the working directory's).
    Raises ``InvalidInput`` (exit 2) for ``--project ''`` (test34 T12.5: it
    silently meant the working directory's project)."""
    if project == "":
        from objstore import InvalidInput
        raise InvalidInput("--project is empty", hint="give a project name, or leave --project out for the "
                                                      "working directory's project")
    return project or os.environ.get("MEM_PROJECT") or None


def working_dir() -> str | None:
    """The working directory (None when it is gone), for the project it names.
    Raises ``InvalidInput`` (exit 2) when its path is not valid UTF-8: no
    project name can be made of it."""
    try:
        cwd = os.getcwd()
    except OSError:
        return None
    if _undecodable(cwd):
        from objstore import InvalidInput
        raise InvalidInput(f"the working directory is not valid UTF-8: '{_shown(cwd)}'",
                           hint="name the project with --project NAME (or $MEM_PROJECT), or run mem from a "
                                "directory whose path is UTF-8")
    return cwd


def warn_damage(store) -> None:
    """One stderr warning when the command met damaged objects and went on
    without them (``store.damaged``)."""
    from objstore import damage_advice, damage_causes, lost_keys, lost_keys_warning
    text = lost_keys_warning(lost_keys(store.damaged))
    if text:   # mem fsck --repair kept the place of a lost current value: nothing more to repair
        echo(safe(f"warning: {text}"), err=True)
    if any(not k.startswith("lost ") for k in store.damaged):
        refs = [k[4:] for k in store.damaged if k.startswith("ref ")]
        objs = [k for k in store.damaged if not k.startswith(("ref ", "lost "))]
        what = ([f"{plural(len(objs), 'damaged object')} (first: {objs[0][:12]})"] if objs else []) + \
               ([f"{plural(len(refs), 'damaged ref')} ({refs[0]}{', …' if len(refs) > 1 else ''})"] if refs else [])
        # each cause in its own words, with what --repair truly does (test33 T17, test34 T2/T3); the pack
        # folder moved away, as fsck says it: nothing else holds while it is away (test43 T16)
        from objstore import pack_dir_problem_at
        away = pack_dir_problem_at(store.root)
        advice = f"{away} ('mem fsck --repair' changes nothing while it is away)" if away else \
            damage_advice(damage_causes(store))
        echo(safe(f"warning: {' and '.join(what)} skipped; {advice}"), err=True)


def warn_config(root) -> None:
    """One stderr warning when the store's config.toml cannot be used
    (``objstore.config_problem``: cheap when it did not change), so the
    person learns that capture stopped (or runs on defaults) from any
    command, not only from 'mem doctor'."""
    from objstore import config_known_good
    if config_known_good(root):   # absent or unchanged: nothing to say (the settings module is not loaded)
        return
    from objstore import config_problem
    try:
        p = config_problem(root)
    except Exception:  # noqa: BLE001 - a warning never fails the command
        return
    if p is not None:
        echo(safe(f"warning: {p.message()}"), err=True)


DEFAULT_HOME = "~/.mem"


def home_from_env(home: str | None = None) -> str:
    """The store directory: ``home`` (``--home``), else ``$MEM_HOME``, else
    ``~/.mem``.  Raises InvalidInput (exit 2) when the one given is blank
    (``cmds._helperclient.blank_home``: ``--home ''``, ``MEM_HOME=' '``;
    an empty ``$MEM_HOME`` is unset)."""
    from ._helperclient import blank_home
    if why := blank_home(home):
        from objstore import InvalidInput
        raise InvalidInput(f"{why}; nothing was read or written", hint="give --home / MEM_HOME the store's folder, or leave both out for ~/.mem")
    return os.path.expanduser(home or os.environ.get("MEM_HOME") or DEFAULT_HOME)


def store_lock_timeout(store, value: float | None = None) -> None:
    """Set ``store``'s lock wait from ``value`` (``--lock-timeout``) or
    ``$MEM_LOCK_TIMEOUT`` (:func:`lock_timeout_from_env`); a bad variable
    is warned about on stderr and kept as ``store.lock_refused``, raised
    when a write takes the lock (exit 2): a read takes none and goes on
    (test41 T25: ``mem get`` exited 2)."""
    from objstore import InvalidInput
    try:
        store.lock_timeout = lock_timeout_from_env(value)
    except InvalidInput as e:
        store.lock_refused = e
        sys.stderr.write(f"warning: {e.message}: a read goes on, a write is refused\n")


def lock_timeout_from_env(value: float | None = None) -> float:
    """Seconds to wait for the store lock: ``value`` (``--lock-timeout``), else
    ``$MEM_LOCK_TIMEOUT``, else 10.  One rule for both (fresh40 F10: the
    variable's ``banana``, ``-5``, ``99999`` were taken as 10 silently):
    a number from 0 to 3600, else InvalidInput (exit 2, as ``--lock-timeout
    abc`` is); an empty variable is unset."""
    if value is not None:
        return value
    raw = os.environ.get("MEM_LOCK_TIMEOUT", "").strip()
    if not raw:
        return 10.0
    try:
        v = float(raw)
    except ValueError:
        v = float("nan")
    if not 0 <= v <= 3600:   # nan, inf, negative, above an hour
        from objstore import InvalidInput
        raise InvalidInput(f"$MEM_LOCK_TIMEOUT={raw[:40]!r} is not a number of seconds from 0 to 3600",
                           hint="set it to seconds (e.g. MEM_LOCK_TIMEOUT=30), or unset it (default 10)")
    return v


def version_json(v, *, current: bool) -> dict:
    """The stable JSON shape of one fact version."""
    f = v.fact
    return {"id": v.id, "key": f.key, "version": f.version, "body": f.body, "kind": f.kind,
            "valid_from": f.valid_from, "recorded_at": f.recorded_at, "trust": f.trust,
            "sensitivity": f.sensitivity, "owner": f.owner, "sources": list(f.sources),
            "pinned": f.pinned, "dormant": f.dormant, "parent": f.parent, "current": current,
            "edges": edges_json(f.edges), "namespace": f.namespace}


def edges_json(edges) -> dict:
    """A fact's edges as JSON: ``{relation: [target, ...]}`` (targets sorted;
    the same shape as the object's ``edges`` field)."""
    out: dict = {}
    for rel, target in edges:
        out.setdefault(rel, []).append(target)
    return out


def edge_lines(edges, describe=None) -> list[str]:
    """A fact's edges for people: one ``relation  target`` line each, an id
    shortened to 12 hex digits (ids hold no ``/``; keys always do) and,
    given ``describe`` (id -> text), followed by what it names."""
    return [f"{rel:<13}{t}" if "/" in t else f"{rel:<13}{t[:12]}" + (f"  ({describe(t)})" if describe else "")
            for rel, t in edges]


def body_text(obj) -> str:
    """What to print as the value of a fact version or the text of a turn:
    the text made safe for the terminal, or ``(forgotten at <time>)`` for an
    object ``mem forget`` emptied (its ``forgotten`` field, ms since epoch),
    or ``(lost: …)`` for one ``mem fsck --repair`` could not recover."""
    if getattr(obj, "forgotten", 0):
        from objstore import is_lost_stub
        if is_lost_stub(obj):  # emptied by mem fsck --repair, not by forget
            return f"(lost: mem fsck --repair could not recover this {'version' if hasattr(obj, 'body') else 'turn'})"
        return f"(forgotten at {fmt_time(obj.forgotten)})"
    return safe(obj.body if hasattr(obj, "body") else obj.text)


def rebuild_missing_index(store) -> None:
    """Rebuild the search index now if it is missing while the store holds
    memory (``objstore.ensure_index``), so a search never answers "nothing"
    from a deleted index: a counter on stderr when it is a terminal, and one
    line on stderr saying what was done."""
    from objstore import ensure_index
    label = "rebuilding the missing search index"
    tty = _isatty(sys.stderr)
    n = ensure_index(store, progress=(lambda done: echo(f"\r{label}: {done}", err=True, nl=False)) if tty else None)
    if n is not None:
        if tty:
            echo("", err=True)
        echo(f"the search index was missing: rebuilt it ({n} documents)", err=True)


#: our own glyphs and their ASCII forms (--ascii)
GLYPHS = {"…": "...", "•": "*", "→": "->", "←": "<-", "—": "-", "–": "-", "✓": "ok", "✗": "x", "·": "-",
          "“": '"', "”": '"', "‘": "'", "’": "'"}
_GLYPH_TABLE = str.maketrans(GLYPHS)


class _AsciiText:
    """A text stream wrapper: our glyphs become ASCII, and any other
    character the stream cannot encode is written as a backslash escape."""

    encoding = "utf-8"   # what we accept: click must not re-wrap the binary buffer behind us
    errors = "strict"

    def __init__(self, stream) -> None:
        self._s = stream

    def write(self, text: str) -> int:
        t = text.translate(_GLYPH_TABLE).encode("ascii", "backslashreplace").decode("ascii")
        return self._s.write(t)

    def __getattr__(self, name):
        if name == "buffer":
            raise AttributeError(name)
        return getattr(self._s, name)


def needs_ascii() -> bool:
    """True when stdout's encoding is not UTF-8 (a C/POSIX or Latin-1 locale)."""
    enc = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    return bool(enc) and enc != "utf8"


def ascii_streams() -> None:
    """Route stdout and stderr through :class:`_AsciiText` (``--ascii``)."""
    if not isinstance(sys.stdout, _AsciiText):
        sys.stdout = _AsciiText(sys.stdout)  # type: ignore[assignment]
    if not isinstance(sys.stderr, _AsciiText):
        sys.stderr = _AsciiText(sys.stderr)  # type: ignore[assignment]
