"""What every transcript reader (``claude_code``, ``codex``) shares: the
parse counters, bounded line reading, record decoding, and the small value
helpers (timestamps, project names, cutting long tool output, removing mem's
own injected context).  Formats: ``docs/agent-formats.md``.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

from objstore.capture.trail import (WORD, WORD_RE, expand, folder_at, home_form, plain, reads_folder, resolve,
                                    session_ids, unfold, unquote)
from objstore.core.record import Record, set_fields
from objstore.core.text import LazyPattern

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path (docs/benchmarks.md, session 16)
if TYPE_CHECKING:
    from typing import Any


TOOL_RESULT_MAX_CHARS = 4000        # tool results and tool_use input JSON are cut to this
MAX_LINE_BYTES = 64 * 1024 * 1024   # longer lines are skipped (and counted) without being held
#: the readers' file buffer: a record is often longer than the default 8 KiB, which makes
#: ``readline`` assemble it from several reads (a third of the line reading's CPU)
READ_BUFFER = 256 * 1024
_CHUNK = 1 << 20

# Our own hook injection tag: must never be re-imported.  Tolerant: attributes,
# any case, spans lines, an unclosed block runs to the end of the text.
_MEM_CONTEXT_RE = LazyPattern(r"<mem-context\b[^>]*>.*?(?:</mem-context\s*>|\Z)", re.I | re.S)
# Whether a text may hold one: finds what ``"<mem-context" in text.lower()`` finds (no
# non-ASCII letter lowers or case-folds onto these letters), without a lowered copy of
# every text (a fifth of the CPU).
_MEM_CONTEXT_START_RE = LazyPattern(r"<mem-context", re.I)
# JSON escapes that may decode to a lone surrogate or NUL; only then walk the value.
_SUSPECT_ESCAPE_RE = LazyPattern(rb"\\u(?:[dD][89a-fA-F]|0000)")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MS = timedelta(milliseconds=1)


class ParseStats(Record):
    """Counters accumulated over ``parse_file`` calls.  Every line read is either skipped
    (bad), ignored (valid record carrying no turn), or contributes to a turn.
    ``files``: parse_file calls; ``lines``: lines read, blank ones included;
    ``lines_skipped``: bad lines (see parse_file); ``records_ignored``: valid
    JSON objects that gave no turn; ``records_foreign``: of those, the objects
    that are no record the harness writes (``{"x": 1}``: no record type of
    agent-formats §2.2 / §3.1), so a file of only such lines (and bad ones) is
    no transcript."""

    __slots__ = ("files", "lines", "lines_skipped", "records_ignored", "records_foreign")

    def __init__(self, files: int = 0, lines: int = 0, lines_skipped: int = 0, records_ignored: int = 0,
                 records_foreign: int = 0) -> None:
        set_fields(self, files, lines, lines_skipped, records_ignored, records_foreign)


def as_str(v: Any) -> str:
    """The value if it is a str, else "" (wrong types count as absent)."""
    return v if isinstance(v, str) else ""


def cut_text(text: str) -> str:
    """``text`` when it has at most :data:`TOOL_RESULT_MAX_CHARS` characters;
    else its head, cut before any credential that crosses the cut and at a
    word's end (``redact.redact_cut``: no prefix of a credential survives,
    T19), then ``…[cut N chars]`` (N: characters left out).  Not redacted
    here: the turn writer redacts (and counts) what the head holds."""
    if len(text) <= TOOL_RESULT_MAX_CHARS:
        return text
    from objstore.core.redact import redact_cut  # deferred: the redaction rules compile at import
    head, over = redact_cut(text, TOOL_RESULT_MAX_CHARS)
    return f"{head}…[cut {over} chars]" if over else head


def strip_mem_context(text: str) -> str:
    """Remove <mem-context ...>...</mem-context> blocks (then trim) if any are present."""
    return _MEM_CONTEXT_RE.sub("", text).strip() if _MEM_CONTEXT_START_RE.search(text) else text


#: what a tool call's result becomes when the call prints a sealed value or a secret key
#: (:func:`prints_secret`): the turn keeps its place, the material is not stored
SECRET_OUTPUT = "[REDACTED:sealed-value]"
#: between two words of a command as a tool call's input holds it: blanks, a JSON argv's
#: ``", "`` (Codex ``["mem", "sealed", ...]``), JSON-escaped tabs/newlines/quotes
_ARG_SEP = r"(?:[ \t\"',]|\\[nt\"]){1,16}"
_ARG = r"[^\s\"',|;&]{1,256}"
#: ``mem [--home DIR] [--lock-timeout S] [--ascii] sealed show|export`` / ``remote key export``
#: (also ``…/bin/mem``, ``python -m cmds``, ``mem`` after a JSON-escaped newline or tab, and mem
#: through a variable or a substitution: ``$m``, ``${M}``, ``$(which mem)``; trailb21; a backquoted one,
#: ``` `which mem` ```: test22 X7): the commands
#: that write a decrypted sealed value, a sealed age file or the sync key to standard output
#: (cmds/sealed.py, cmds/remote.py)
_MEM_LAUNCHER = (rf"(?:mem(?<![\w.\-]mem)|mem(?<=\\[nt]mem)|-m{_ARG_SEP}cmds|\$\{{?[A-Za-z_]\w{{0,63}}\}}?"
                 r"|\$\([^)]{0,64}mem\)|`[^`]{0,64}mem`)")
#: what follows the launcher (or an alias of mem: :func:`mem_aliases`): its options, then the command
_MEM_SECRET_TAIL = (rf"(?:{_ARG_SEP}--(?:home|lock-timeout)(?:={_ARG}|{_ARG_SEP}{_ARG})"
                    rf"|{_ARG_SEP}--ascii){{0,4}}{_ARG_SEP}(?:sealed{_ARG_SEP}(?:show|export)|remote{_ARG_SEP}key"
                    rf"{_ARG_SEP}export)(?![\w\-])")
_MEM_SECRET_RE = LazyPattern(_MEM_LAUNCHER + _MEM_SECRET_TAIL)
#: mend22: ``alias NAME=VALUE …`` (bash, zsh; ``alias -g`` too), each definition (:data:`_ALIAS_PAIR_RE`)
_ALIAS_RE = LazyPattern(r"(?<![\w.\-])alias(?:[ \t]+-[A-Za-z]{1,4})*((?:[ \t]+[\w.:+@%\-]{1,64}="
                        r"(?:'[^']*'|\"[^\"]*\"|[^\s;|&()<>'\"]*))+)")
_ALIAS_PAIR_RE = LazyPattern(r"([\w.:+@%\-]{1,64})=('[^']*'|\"[^\"]*\"|[^\s;|&()<>'\"]*)")
#: an alias's value that runs mem: its first word mem or memvcs (a path's last part), a variable or
#: substitution (as :data:`_MEM_LAUNCHER` reads ``$m``), or ``-m cmds`` / ``memvcs`` anywhere in it
_ALIAS_MEM_RE = LazyPattern(r"[ \t]*(?:(?:\S*/)?mem(?:vcs)?(?![\w.\-])|\$)|.*(?:(?<![\w.\-])memvcs(?![\w.\-])"
                            r"|[ \t]-m[ \t]+cmds(?![\w.\-]))")


def mem_aliases(call: str, known: Iterable[str] = ()) -> list[str]:
    """The names ``call`` defines as aliases of mem (mend22): ``alias m=mem``,
    ``alias m='mem --home ~/s'``, ``alias m=/usr/local/bin/mem``, ``alias
    m='$MEM'``, ``alias m='python -m cmds'``, ``alias mm=m`` with ``m`` in
    ``known`` or defined before it in ``call``; JSON-escaped quotes and
    blanks (a tool call's input) read as the shell reads them.  Bash
    expands an alias only in a later line, with ``expand_aliases`` (an
    interactive shell: Codex's ``exec_command`` session, ``!`` bash mode, a
    shell snapshot); zsh in any later line.  Read wider: a definition
    anywhere in ``call`` counts for all of it.  Cost: nothing without
    ``alias`` in ``call``."""
    if "alias" not in call:
        return []
    if "\\" in call:
        call = call.replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t")
    names = list(known)
    out: list[str] = []
    for m in _ALIAS_RE.finditer(call):
        for name, value in _ALIAS_PAIR_RE.findall(m.group(1)):
            value = value[1:-1] if value[:1] in "'\"" and len(value) > 1 else value
            first = value.split(None, 1)[0] if value.strip() else ""
            if (_ALIAS_MEM_RE.match(value) is not None or first in names) and name not in names:
                names.append(name)
                out.append(name)
    return out


@functools.lru_cache(maxsize=64)
def _alias_secret_re(names: tuple[str, ...]) -> re.Pattern:
    """:data:`_MEM_SECRET_RE` with the aliases ``names`` as the launcher (``m sealed show K``, also after
    a quote: ``eval "m sealed show K"``, or a JSON-escaped newline or tab)."""
    alt = "|".join(re.escape(n) for n in names)
    return re.compile(rf"(?:(?<![\w.\-/$])|(?<=\\[nt]))(?:{alt}){_MEM_SECRET_TAIL}")
#: ``age … -d|--decrypt``: the stock tool decrypting (docs/vault.md:
#: ``mem sealed export KEY | age -d -i <store>/vault/identity.age``)
_AGE_DECRYPT_RE = LazyPattern(rf"(?:age(?<![\w.\-]age)|age(?<=\\[nt]age))(?:{_ARG_SEP}{_ARG}){{0,12}}?{_ARG_SEP}"
                              r"(?:-d|--decrypt)(?![\w\-])")


def prints_secret(call: str, aliases: Iterable[str] = ()) -> bool:
    """Whether a tool call prints secret material, so its result must not be
    stored (tester U9: the decrypted sealed value came back as a plain,
    searchable, pushable turn).  ``call``: the call's input as a capture
    renders it (the JSON of Claude Code's ``input``, Codex's ``arguments`` /
    ``action``), or a command line.  True when it runs ``mem sealed show``,
    ``mem sealed export``, ``mem remote key export`` (whatever the output
    option: the whole result is withheld) or ``age -d`` / ``--decrypt``,
    anywhere in the command (a pipeline, ``&&``, a subshell).  A command that
    only names one (``grep 'mem sealed show' docs``) also matches: its result
    is withheld too, which loses a search result, never a secret.  The
    readers pair the call with its result by id (Claude Code
    ``tool_use.id`` / ``tool_result.tool_use_id``, Codex ``call_id``, the
    proxy's request) and store :data:`SECRET_OUTPUT` in its place.
    ``aliases``: names known to run mem (``alias m=mem`` earlier in the
    transcript: :func:`withholds`); an alias of mem ``call`` defines
    itself (:func:`mem_aliases`) counts too, so ``m sealed show K`` and
    ``eval "m sealed show K"`` after it are read as ``mem sealed show K``.
    A line continuation is read as the shell reads it (``mem \\⏎ sealed
    show``: ``trail.unfold``)."""
    return _prints_secret(unfold(call), aliases)


def _prints_secret(call: str, aliases: Iterable[str] = ()) -> bool:
    """:func:`prints_secret` of a call :func:`~objstore.capture.trail.unfold` gave."""
    if "sealed" in call or "remote" in call:
        if _MEM_SECRET_RE.search(call) is not None:
            return True
        names = (*aliases, *mem_aliases(call, aliases))
        if names and _alias_secret_re(tuple(sorted(set(names)))).search(call) is not None:
            return True
    return "age" in call and ("-d" in call or "--decrypt" in call) and _AGE_DECRYPT_RE.search(call) is not None


#: ``age`` as a word (:func:`may_print_secret`)
_AGE_WORD_RE = LazyPattern(rb"(?:^|[\s\"'`;|&(/]|\\[nt])age[\s\"',\\]")
#: the bytes :func:`may_print_secret` reads before and after a hit
_HIT_BEFORE, _HIT_AFTER = 1200, 80


def may_print_secret(data: bytes) -> bool:
    """Whether a transcript's bytes ``data`` may hold a call
    :func:`prints_secret` matches: each ``sealed``, ``remote`` with ``key``
    after it, and ``-d`` / ``--decrypt`` with the word ``age`` before it is
    read with the text around it (:data:`_HIT_BEFORE`, :data:`_HIT_AFTER`
    bytes) by :func:`prints_secret`.  The cheap test (three passes of
    ``bytes.find``: 0.18 s of CPU over the bench corpus's 76 MB of sessions
    with sub-agents) before a parent session is read for the trail its
    sub-agents inherit (``claude_code.parse_file``): False is never wrong
    for a call on one line of the file."""
    def hit(i: int, n: int) -> bool:
        return prints_secret(data[max(0, i - _HIT_BEFORE):i + n + _HIT_AFTER].decode("utf-8", "replace"))

    for word in (b"sealed", b"remote"):
        i = data.find(word)
        while i >= 0:
            if (word == b"sealed" or b"key" in data[i + 6:i + 48]) and hit(i, 6):
                return True
            i = data.find(word, i + 6)
    i = data.find(b"-d")                # ``-d``, and ``--decrypt`` (its ``-d``) in the same pass
    while i >= 0:
        n = 9 if data[i - 1:i] == b"-" and data[i + 2:i + 8] == b"ecrypt" else 2
        j = i - 1 if n == 9 else i
        if data[j - 1:j] in b" \t\"',n" and data[j + n:j + n + 1] in b" \t\"',\\;|&)" \
                and _AGE_WORD_RE.search(data, max(0, j - 400), j) is not None and hit(j, n):
            return True
        i = data.find(b"-d", i + 2)
    return False


#: in a trail (:func:`withholds`): a file a withheld call wrote (``> F``, ``>> F``, ``tee F``, ``cp … F``)
TAINT_FILE = "f:"
#: in a trail: the id of a background shell (Claude Code ``run_in_background``) whose output a withheld
#: call writes: read by ``BashOutput`` (``bash_id``), ``TaskOutput`` (``task_id``), ``KillShell`` (``shell_id``)
TAINT_SHELL = "s:"
#: in a trail: a name an earlier call defined as an alias of mem (``alias m=mem``: :func:`mem_aliases`)
TAINT_ALIAS = "a:"
#: a JSON-escaped newline, tab or quote, read as the blank it stands for
_JSON_ESC_RE = LazyPattern(r"\\[nrt\"]")
#: where a command writes its output: ``> F``, ``>> F``, ``2> F``, ``&> F``, ``>| F`` (not ``>&2``); ``of=F``;
#: ``-o F`` / ``--output[=]F``; the file words of ``tee`` / ``cp`` / ``mv`` / ``install`` / ``ln`` / ``rsync``
_WRITES_RE = LazyPattern(
    rf"(?<![<>])[0-9&]?>>?\|?[ \t]*({WORD})|(?<![\w.\-])of=({WORD})|(?<![\w\-])(?:-o|--output)(?:=|[ \t]+)({WORD})"
    rf"|(?<![\w.\-/])(?:tee|cp|mv|install|ln|rsync)((?:[ \t]+{WORD})+)")
#: the result of a ``run_in_background`` Bash call: ``Command running in background with ID: ID``
#: (2.0: ``dce0af``), later versions add ``. Output is being written to: PATH``; Codex ``exec_command``:
#: ``Process running with session ID N``, read on by ``write_stdin`` (``session_id``)
_BACKGROUND_RE = LazyPattern(r"(?:running in background with ID:|Process running with session ID) ?([\w\-]+)"
                             r"(?:\.? *Output is being written to: ?(\S+))?")
#: the files a tool writes whole or in part (trailb21): Claude Code ``Write`` / ``Edit`` / ``MultiEdit``
#: (``file_path``), ``NotebookEdit`` (``notebook_path``) as the reader renders the input (sorted JSON),
#: and the headers of a Codex ``apply_patch`` (``*** Add File: P``, ``*** Update File: P``,
#: ``*** Move to: P``; codex-rs apply-patch grammar): a script whose text runs ``mem sealed show``
#: prints the value when run (``sh P``, ``./P``, ``source P``), so a call naming it is withheld
_TOOL_WRITES_RE = LazyPattern(rf"\"(?:file_path|notebook_path)\": ?\"([^\"]+)\"|"
                              rf"\*\*\* (?:Add File|Update File|Move to): ?({WORD})")
#: ``nohup`` as a command (it writes what the command prints to ``nohup.out``)
_NOHUP_RE = LazyPattern(r"(?<![\w.\-/])nohup(?![\w.\-])")
_NOT_FILES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-")


def _taint_files(call: str, trail: list, cwd: str) -> None:
    """Add :data:`TAINT_FILE` entries to ``trail`` for the files ``call`` writes (:data:`_WRITES_RE`,
    and a file-writing tool's file: :data:`_TOOL_WRITES_RE`):
    as written (shell variables put in place: ``trail.expand``) and, when relative, also
    joined to the folder it runs in (``cd DIR &&``, Codex ``workdir``, ``cwd``: ``trail.folder_at``);
    and :data:`TAINT_SHELL` entries for the Codex exec sessions it writes to (``write_stdin``)."""
    writes = list(_WRITES_RE.finditer(call))
    if "_path\"" in call or "*** " in call:
        writes += _TOOL_WRITES_RE.finditer(call)
    for m in writes:
        g = m.groups()
        words = g[3].split() if len(g) == 4 and g[3] else [next((x for x in g if x), "")]
        here = None
        for w in words:
            if not w or w.startswith("-") or w in _NOT_FILES:
                continue
            w = plain(w)
            names = [w]
            if not w.startswith(("/", "*", "~/")):
                here = folder_at(call, m.start(), cwd) if here is None else here
                if here:
                    names.append(resolve(w, here))
            if w.endswith(".py"):       # ``python -m NAME``, ``import NAME`` run it (test22 X7)
                names.append(w.rsplit("/", 1)[-1][:-3])
            for n in names:
                if TAINT_FILE + n not in trail:
                    trail.append(TAINT_FILE + n)
    if "nohup" in call and _NOHUP_RE.search(call) is not None:
        # ``nohup CMD &`` with no redirection writes to ./nohup.out, else ~/nohup.out (nohup(1); test22 X7)
        here = folder_at(call, len(call), cwd)
        for n in ("nohup.out", "~/nohup.out", resolve("nohup.out", here) if here else ""):
            if n and TAINT_FILE + n not in trail:
                trail.append(TAINT_FILE + n)
    for sid in session_ids(call):
        if TAINT_SHELL + sid not in trail:
            trail.append(TAINT_SHELL + sid)


def _names_taint(call: str, trail: list, cwd: str) -> bool:
    """Whether a word of ``call`` names a tainted file or background shell of ``trail``: the same
    path, one path ending in ``/`` + the other (``x``, ``./x``, ``~/x``, ``/tmp/x`` and ``/private/tmp/x``
    are one file; ``@/tmp/x``, ``host:/tmp/x`` name it),
    a glob matching it (``cat /tmp/*``, ``*.txt``; a file written to ``$D/f``, ``D`` not known, is ``*/f``),
    a path inside it (a folder ``cp -r`` copied), the shell's id, or a folder holding it
    (``trail.reads_folder``)."""
    paths = [t[len(TAINT_FILE):] for t in trail if t.startswith(TAINT_FILE)]
    files = [p.lstrip("/") for p in paths]
    shells = {t[len(TAINT_SHELL):] for t in trail if t.startswith(TAINT_SHELL)}
    if not files and not shells:
        return False
    if not (any(f.rsplit("/", 1)[-1] in call or "*" in f or "?" in f for f in files) or any(i in call for i in shells)
            or "*" in call or "?" in call or "[" in call and "]" in call):
        return bool(paths) and reads_folder(call, paths, cwd)   # no word of it can name a file or shell
    import fnmatch
    exact = set(files)
    tails = set()                       # each file's path from each ``/`` on: ``w`` names it when ``w`` is one
    for f in files:
        tails.add(f)
        i = f.find("/")
        while i >= 0:
            tails.add(f[i + 1:])
            i = f.find("/", i + 1)
    patterns = [f for f in files if "*" in f or "?" in f]
    for word in WORD_RE.findall(call):
        if word in shells:
            return True
        w = (word[2:] if word.startswith(("./", "~/")) else word).lstrip("/")
        if "/." in w or "//" in w:
            w = resolve(w, "").lstrip("/")
        if not w or w == ".":
            continue
        if w in tails:                  # ``w == f`` or ``f`` ends in ``/`` + ``w``
            return True
        for v in (w, home_form(w)):     # ``/home/u/f`` is ``~/f`` (test22 X4: ``trail.home_form``)
            if v in exact:
                return True
            i = v.find("/")
            while i >= 0:               # ``v`` ends in ``/`` + ``f``, or is a path inside ``f``
                if v[i + 1:] in exact or v[:i] in exact:
                    return True
                i = v.find("/", i + 1)
        if ("*" in w or "?" in w or "[" in w and "]" in w) and any(fnmatch.fnmatchcase(f, w) or fnmatch.fnmatchcase(
                f.rsplit("/", 1)[-1], w.rsplit("/", 1)[-1]) for f in files):
            return True
        if patterns and any(fnmatch.fnmatchcase(w, f) or w == f.rsplit("/", 1)[-1] for f in patterns):
            return True
    return bool(paths) and reads_folder(call, paths, cwd)


def withholds(call: str, trail: list, cwd: str = "") -> bool:
    """Whether a tool call's result must not be stored: the one check every
    capture path makes (the Claude Code and Codex readers, ``!`` bash mode,
    the proxy).  ``call``: as for :func:`prints_secret`; ``trail``: the
    reader's list of what it withholds, in reading order (kept between
    reads, ``ReaderState.secret_calls``), read and extended here; ``cwd``:
    the session's working folder when the reader knows it ("" when not).
    True when the call prints secret material (:func:`prints_secret`; also
    through an alias of mem an earlier call defined, which joins the trail:
    :data:`TAINT_ALIAS`, mend22), or when it
    reads what such a call left behind (sec20, trail21): a file it wrote (``mem
    sealed show K > /tmp/x``, ``| tee``, ``>>``, then ``cat /tmp/x``, the
    ``Read`` tool, ``cp /tmp/x y`` and a glob ``cat /tmp/*``), a folder
    holding that file (``grep -r X /tmp``, ``tar -c /tmp``, ``cd /tmp &&
    rg X``, the ``Grep`` tool with that ``path`` or none in that working
    folder: ``trail.reads_folder``; not ``ls``, ``find`` without ``-exec``,
    which print names only) or the
    background shell it runs in (``run_in_background``, then ``BashOutput``
    by its ``bash_id``; Codex ``exec_command`` then ``write_stdin`` by its
    ``session_id``: :func:`withhold_result` notes the id; a withheld
    ``write_stdin`` notes its session).  Paths are read as the shell would:
    variables set on the same command line put in place (``D=/tmp/x; … >
    $D/f``), a variable set elsewhere or ``$(…)`` joined to a path standing
    for any folder (``$D/f`` is any file named ``f``: ``trail.expand``), relative
    paths joined to the last ``cd DIR`` of the command line, Codex's
    ``workdir`` or ``cwd``, and also kept as written (a ``cd`` in an earlier
    call is not followed: ``f`` names any ``…/f``).  A withheld call's own
    files join the trail (:data:`TAINT_FILE`), so a copy of a copy (a folder
    ``cp -r`` copied) is withheld too, and so do the files a file-writing
    tool's withheld call writes (``Write`` / ``Edit`` of a script whose text
    runs ``mem sealed show``, a Codex ``apply_patch``: :data:`_TOOL_WRITES_RE`,
    trailb21), so running the script (``sh f``, ``./f``) is withheld.  Spellings
    are read as the shell reads them (test22 X3-X7): a line continuation
    joined (``trail.unfold``), quotes around a word with no blank and a
    one-name brace taken away, ``//`` and a trailing ``/`` made plain
    (``trail.unquote``, ``trail.plain``); a ``~/REST`` file is any home's
    ``REST`` (``trail.home_form``); ``nohup`` puts ``nohup.out`` on the trail,
    a written ``NAME.py`` puts ``NAME``; ``git diff`` / ``show`` / ``stash show``
    / ``log -p`` near a file (``trail.reads_folder``) read it.  Not followed:
    quoted paths with blanks, a lone ``$F`` set in an earlier call (each call
    runs in a shell of its own), a path made by a backquoted command.  A word that only looks like
    such a file (``x`` in a description) also withholds: that loses a
    result, never a secret."""
    call = unfold(call)
    if "alias" in call:      # mend22: ``alias m=mem`` joins the trail, then ``m sealed show`` is mem's
        known = [t[len(TAINT_ALIAS):] for t in trail if t.startswith(TAINT_ALIAS)]
        trail.extend(TAINT_ALIAS + name for name in mem_aliases(call, known))
    printed = ("sealed" in call or "remote" in call) and _prints_secret(
        call, [t[len(TAINT_ALIAS):] for t in trail if t.startswith(TAINT_ALIAS)])
    if not printed and not any(t.startswith((TAINT_FILE, TAINT_SHELL)) for t in trail):
        return False            # the common case: nothing withheld so far wrote a file or ran in the background
    call = unquote(expand(call))
    if "\\" in call:
        call = _JSON_ESC_RE.sub(" ", call)
    if printed or _names_taint(call, trail, cwd):
        _taint_files(call, trail, cwd)
        return True
    return False


def withhold_result(body: str, trail: list) -> str:
    """:data:`SECRET_OUTPUT`, what the result ``body`` of a withheld call is
    stored as; a background shell the body names (``Command running in
    background with ID: ID``, and ``Output is being written to: PATH``,
    Claude Code's ``run_in_background`` result) joins ``trail``
    (:data:`TAINT_SHELL`, :data:`TAINT_FILE`), so what later reads it is
    withheld by :func:`withholds`."""
    m = _BACKGROUND_RE.search(body) if "running " in body else None
    if m is not None:
        for t in (TAINT_SHELL + m.group(1), TAINT_FILE + m.group(2) if m.group(2) else ""):
            if t and t not in trail:
                trail.append(t)
    return SECRET_OUTPUT


#: Claude Code's ``!`` bash mode: the command a user ran and what it printed, as user prompts
#: (docs/agent-formats.md §2.2): ``<bash-input>CMD</bash-input>``, ``<bash-stdout>OUT</bash-stdout>``,
#: ``<bash-stderr>ERR</bash-stderr>``
_BASH_INPUT_RE = LazyPattern(r"<bash-input>(.*?)</bash-input>", re.S)
_BASH_OUTPUT_RE = LazyPattern(r"(<bash-(stdout|stderr)>)(.*?)(</bash-\2>)", re.S)


def bash_mode(text: str, printed: bool, trail: list | None = None) -> tuple[str, bool]:
    """A user prompt of Claude Code's ``!`` bash mode made safe to store
    (test18b V10): ``(text, printed)``.  The command of each
    ``<bash-input>CMD</bash-input>`` is put on lines of its own
    (``<bash-input>\\nCMD\\n</bash-input>``), so the turn writer's
    redaction reads it as the command line it is, as it reads a Bash tool
    call's ``command`` (the ``mem-command`` rule: ``mem remember K V
    --sensitivity secret``, a value piped into ``mem sealed import K -``);
    glued to the closing tag, its last word was ``secret</bash-input>``.
    ``printed`` in: whether the last command read prints secret material
    (:func:`withholds`, with ``trail``: a command reading a file such a
    command wrote, too; None: a trail of this text alone); then the body of each ``<bash-stdout>`` /
    ``<bash-stderr>`` element (an empty one stays empty) is :data:`SECRET_OUTPUT`.  Out: the same for
    the next prompt (the output follows its command as a prompt of its
    own): a command in ``text`` sets it, an output in ``text`` after the
    last command clears it.  Text without ``<bash-`` comes back as it is."""
    if "<bash-" not in text:
        return text, printed
    out: list[str] = []
    at = 0

    def outputs(chunk: str, withhold: bool) -> str:
        if not withhold:
            return chunk
        return _BASH_OUTPUT_RE.sub(lambda m: m.group(1) + (m.group(3) and SECRET_OUTPUT) + m.group(4), chunk)

    for m in _BASH_INPUT_RE.finditer(text):
        out.append(outputs(text[at:m.start()], printed))
        cmd = m.group(1).strip("\n")
        out.append(f"<bash-input>\n{cmd}\n</bash-input>")
        printed = withholds(cmd, [] if trail is None else trail)
        at = m.end()
    tail = text[at:]
    out.append(outputs(tail, printed))
    if printed and _BASH_OUTPUT_RE.search(tail) is not None:
        printed = False
    return "".join(out), printed


def timestamp_ms(v: Any) -> int:
    if not isinstance(v, str) or not v:
        return 0
    try:
        dt = datetime.fromisoformat(v.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return 0
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    try:
        ms = (dt - _EPOCH) // _MS
        return ms if ms > 0 else 0
    except OverflowError:
        return 0



@functools.lru_cache(maxsize=1024)
def project_of(cwd: str) -> str:
    """The project a cwd names when the file system cannot say more (the
    capture path resolves it fully, ``objstore.memory.scope``): its last
    component; a Claude Code worktree ``<repo>/.claude/worktrees/<name>``
    belongs to ``<repo>``."""
    parts = [p for p in re.split(r"[\\/]", cwd) if p]
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] == "worktrees" and parts[i - 1] == ".claude":
            return parts[i - 2] if i >= 2 else ""
    return parts[-1] if parts else ""


def _clean_str(v: str) -> str:
    """``v`` with each lone surrogate and NUL replaced by U+FFFD."""
    if "\x00" in v:
        v = v.replace("\x00", "\ufffd")
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        v = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in v)
    return v


def _clean_value(obj: Any) -> Any:
    """``obj`` with every string (key or value) passed through :func:`_clean_str`."""
    if isinstance(obj, str):
        return _clean_str(obj)
    if isinstance(obj, dict):
        return {(_clean_str(k) if isinstance(k, str) else k): _clean_value(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_clean_value(v) for v in obj]
    return obj


#: ``msgspec.json.Decoder().decode`` once :func:`enable_fast_json` found msgspec, else None
_fast_decode: Callable[[bytes], Any] | None = None
_fast_errors: tuple[type[BaseException], ...] = ()


def enable_fast_json(enabled: bool = True) -> bool:
    """Decode records with ``msgspec`` (the ``memvcs[fast]`` extra) in this
    process from now on, when it is installed (``enabled=False``: with the
    standard library again); returns whether msgspec is used.

    For bulk readers (``mem import`` and its parse worker): on the bench
    corpus's 143 MB of lines it decodes in 40-50% of the standard library's
    CPU.  The records are the same (:func:`decode_record`).  The hooks do
    not call it: importing msgspec costs more than their few lines save."""
    global _fast_decode, _fast_errors
    if not enabled:
        _fast_decode = None
        return False
    if _fast_decode is None:
        try:
            import msgspec.json
        except ImportError:
            return False
        _fast_decode = msgspec.json.Decoder().decode
        _fast_errors = (msgspec.MsgspecError, RecursionError, ValueError)
    return True


def _parse_int(digits: str) -> int | float:
    """A JSON integer's value: exact up to ``sys.get_int_max_str_digits()``
    digits (4,300), beyond that the float it rounds to (``inf``/``-inf``, as
    ``json.loads`` reads ``1e400``): an exact conversion of a longer one takes
    time quadratic in its digits (a 64 MiB line of them: hours)."""
    try:
        return int(digits)
    except ValueError:
        return float(digits)


def decode_record(raw: bytes) -> dict | None:
    """One raw line -> record dict, or None if the line is not a JSON object.

    An invalid UTF-8 byte, a raw NUL, a lone surrogate escape (``\\ud83d``)
    or a ``\\u0000`` escape costs only that character (replaced by U+FFFD),
    never the line: the hook path and the import read the same text.

    With :func:`enable_fast_json`, a line is first decoded by msgspec, which
    refuses every line the standard library would read differently (invalid
    UTF-8, raw control characters, lone surrogate escapes, ``NaN`` and
    numbers beyond a double's range; integers of any size stay exact ints);
    a refused line is decoded as without it.  An integer of more than
    4,300 digits (``sys.get_int_max_str_digits``, where ``json.loads``
    refuses the line) costs only its value: it reads as ``inf``/``-inf``
    (:func:`_parse_int`), so the line is read whichever decoder is on (q20:
    :class:`RecordFields`' struct decoder skips such a value unread).  Only
    a line nested about a thousand levels deep (Python's recursion limit,
    minus the caller's frames) may be read by one and refused by the other."""
    if _fast_decode is not None:
        try:
            rec = _fast_decode(raw)
        except _fast_errors:
            pass
        else:
            if not isinstance(rec, dict):
                return None
            if _SUSPECT_ESCAPE_RE.search(raw):
                rec = _clean_value(rec)
            return rec
    text = raw.decode("utf-8", "replace")
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    try:
        rec = json.loads(text)
    except RecursionError:
        return None
    except ValueError as e:   # JSONDecodeError is a ValueError
        if "integer string conversion" not in str(e):
            return None
        try:   # an integer of over 4,300 digits (sys.get_int_max_str_digits): read as msgspec's struct does
            rec = json.loads(text, parse_int=_parse_int)
        except (ValueError, RecursionError):
            return None
    if not isinstance(rec, dict):
        return None
    if _SUSPECT_ESCAPE_RE.search(raw):
        rec = _clean_value(rec)
    return rec


class _Absent:
    """The type of :data:`ABSENT`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


#: a key a record does not hold, in the tuples of :class:`RecordFields` (a key holding ``null`` is None)
ABSENT = _Absent()


class RecordFields:
    """The top-level keys ``keys`` a reader takes from its records, and
    their decoder: :meth:`decode` gives a record's values of them as a
    tuple in that order (:data:`ABSENT` where the record lacks the key),
    equal to :meth:`of` of what :func:`decode_record` gives, for the same
    lines (None for a line :func:`decode_record` refuses).

    With :func:`enable_fast_json`, a line is decoded by a ``msgspec``
    struct of those keys: msgspec skips the values of the other keys
    without building them (a Claude Code user record's ``toolUseResult``
    repeats its tool output: 44 of the bench corpus's 143 MB; the corpus's
    62,905 lines decode in ~0.55 s of CPU instead of ~0.85 s, session 17).
    The values are the same: a skipped value msgspec would refuse as a
    whole record (a NaN, a control character, a lone surrogate escape) is
    refused by the struct too; one it accepts where the dict decoder does
    not (invalid UTF-8, a number out of range in a skipped value) is a line
    the standard library reads, with the same values of these keys (it
    changes only the skipped value); a line that is no JSON object, or one
    holding an escape :func:`decode_record` cleans, is decoded by
    :func:`decode_record`.  An integer of more than 4,300 digits in a
    skipped value is skipped unread, and :func:`decode_record` reads its
    line too (as ``inf``), so the line counts the same with either decoder
    (q20; before, the standard library refused the whole line)."""

    __slots__ = ("keys", "_decode")

    def __init__(self, *keys: str) -> None:
        self.keys = keys
        self._decode: Callable[[bytes], Any] | None = None

    def of(self, rec: dict) -> tuple:
        """The values of :attr:`keys` in the decoded record ``rec`` (:data:`ABSENT` for a missing key)."""
        return tuple([rec.get(k, ABSENT) for k in self.keys])

    def decode(self, raw: bytes) -> tuple | None:
        """The values of :attr:`keys` in the record of the line ``raw``, or
        None when it is not a JSON object (as :func:`decode_record`)."""
        if _fast_decode is not None:
            dec = self._decode
            if dec is None:
                dec = self._decode = _struct_decoder(self.keys)
            try:
                rec = dec(raw)
            except _fast_errors:
                pass
            else:
                if not _SUSPECT_ESCAPE_RE.search(raw):
                    return _astuple(rec)
        rec = decode_record(raw)
        return None if rec is None else self.of(rec)


_astuple: Callable[[Any], tuple] = tuple  # msgspec.structs.astuple once a struct decoder is built


def _struct_decoder(keys: tuple[str, ...]) -> Callable[[bytes], Any]:
    """``msgspec.json.Decoder(S).decode`` for a struct ``S`` of the fields
    ``keys``, each of any JSON value, :data:`ABSENT` when missing (only
    once :func:`enable_fast_json` found msgspec)."""
    global _astuple
    import msgspec
    from typing import Any  # noqa: F811 (deferred: a start-up path never builds a struct decoder)
    _astuple = msgspec.structs.astuple
    struct = msgspec.defstruct("Record", [(k, Any, ABSENT) for k in keys])
    return msgspec.json.Decoder(struct).decode


def decode_line(raw: bytes | None, stats: ParseStats, first: bool,
                fields: RecordFields | None = None) -> dict | tuple | None:
    """Count one line from :func:`read_lines` in ``stats`` and decode it
    (``first``: the file's first line, which may start with a UTF-8 BOM).
    Returns the record (with ``fields``: the tuple of its values of
    ``fields.keys``, :meth:`RecordFields.decode`), or None for a bad line
    (too long, not JSON, not an object, a lone surrogate or NUL; counted as
    skipped) or a blank one."""
    stats.lines += 1
    if raw is None:
        stats.lines_skipped += 1
        return None
    if first and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if not raw or raw.isspace():   # as raw.strip(), without copying the line
        rec = None
    else:
        rec = decode_record(raw) if fields is None else fields.decode(raw)
    if rec is None:
        stats.lines_skipped += 1
    return rec


def read_lines(f, budget: int | None = None) -> Iterator[bytes | None]:
    """Yield raw lines; None for a line longer than MAX_LINE_BYTES (drained, not held).
    ``budget``: read at most this many bytes (the last line may then lack its newline)."""
    limit = MAX_LINE_BYTES
    while True:
        if budget is not None and budget <= 0:
            return
        want = limit + 1 if budget is None else min(limit + 1, budget)
        line = f.readline(want)
        if not line:
            return
        if budget is not None:
            budget -= len(line)
        if len(line) > limit and not line.endswith(b"\n"):
            while budget is None or budget > 0:
                rest = f.readline(_CHUNK if budget is None else min(_CHUNK, budget))
                if budget is not None:
                    budget -= len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
        else:
            yield line


def discover_files(paths: Iterable[str | os.PathLike], is_transcript: Callable[[str], bool]) -> Iterator[Path]:
    """The transcript files under ``paths``: a directory is walked (symlinked
    directories are not followed) for the files whose name ``is_transcript``
    accepts, sorted by POSIX path string; a file is yielded as given,
    whatever its name.  Duplicates (same real path) are dropped.

    Raises FileNotFoundError (eagerly, before iteration) if any path does not exist.
    """
    roots = [Path(p) for p in paths]
    for root in roots:
        if not root.exists():
            raise FileNotFoundError(2, "no such file or directory", str(root))   # ENOENT; the path as filename
    return _discover(roots, is_transcript)


def count_files(paths: Iterable[str | os.PathLike], limit: int = 1000) -> int:
    """How many regular files the folders among ``paths`` hold, walked as
    :func:`discover_files` walks them (symlinked directories not followed),
    counting at most ``limit``: an import that found no transcript under a
    folder says whether the folder held other files (then nothing in it is
    a transcript) or none at all.  Files named directly are not counted.
    Never raises (an unreadable folder counts what could be listed)."""
    n = 0
    for root in map(Path, paths):
        if not root.is_dir():
            continue
        for d, _dirs, files in os.walk(root):
            n += sum(1 for f in files if os.path.isfile(os.path.join(d, f)))
            if n >= limit:
                return limit
    return n


def _discover(roots: list[Path], is_transcript: Callable[[str], bool]) -> Iterator[Path]:
    seen: set[str] = set()
    for root in roots:
        if root.is_dir():
            found = [Path(d) / f for d, _dirs, files in os.walk(root) for f in files if is_transcript(f)]
            found.sort(key=lambda p: p.as_posix())
        else:
            found = [root]
        for p in found:
            key = os.path.realpath(p)
            if key not in seen:
                seen.add(key)
                yield p


def transcript_refused(path: Path | str) -> bool:
    """Whether a transcript file is never read because its path holds a
    credential: its name (a session id is taken from it) or its folder
    (``…/sk-ant-…/x.jsonl``), as given or as resolved (a cursor keeps the
    real path), by the one name rule (:func:`objstore.core.redact.name_hits`,
    which ``check_key_credentials`` applies to a session id, and
    :func:`objstore.core.redact.path_holds_credential` to a folder).  A read
    ledger, a cursor and the turns' project would keep the path, none of
    which is redacted.  The one rule of ``mem import`` (which skips and
    counts such a file) and of every sync (``sync.sync_one``: a path a hook
    found by the session's id, a catch-up's neighbour, a sub-agent file), so
    a file import skips is never captured another way.  Cost: one
    ``realpath`` and cached checks; here, not in ``sync``, so the prompt
    hook checks a found path without importing the capture chain."""
    from objstore.core.redact import name_hits, path_holds_credential  # deferred: the rules compile at import
    given = os.path.abspath(path)
    for p in {given, os.path.realpath(given)}:
        if name_hits(os.path.basename(p)) or path_holds_credential(os.path.dirname(p)):
            return True
    return False
