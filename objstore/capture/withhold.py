"""The withheld trail of sealed values: whether a tool call prints secret
material (``mem sealed show``, ``mem sealed export``, ``mem remote key
export``, ``age -d``: :func:`prints_secret`) or reads what such a call left
behind (a file it wrote, its background shell: :func:`withholds`), so its
result is stored as :data:`SECRET_OUTPUT`; the one check every capture path
makes (the Claude Code and Codex readers, ``!`` bash mode, the proxy).  How
a call's paths are read: ``objstore.capture.trail``.  docs/hooks.md
"Sealed values".
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable

from objstore.capture.trail import (WORD, WORD_RE, expand, folder_at, home_form, home_word, plain, reads_folder,
                                    resolve, session_ids, unfold, unquote)
from objstore.core.text import LazyPattern
from objstore.memory.sessions import WITHHELD


#: what a tool call's result becomes when the call prints a sealed value or a secret key
#: (:func:`prints_secret`): the turn keeps its place, the material is not stored
SECRET_OUTPUT = WITHHELD
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


def _prints_secret(call: str, aliases: Iterable[str] = (), spelt: bool = True) -> bool:
    """:func:`prints_secret` of a call :func:`~objstore.capture.trail.unfold` gave; ``spelt``: also
    of its command words as the shell reads them (:func:`shell_words`)."""
    if "sealed" in call or "remote" in call:
        if _MEM_SECRET_RE.search(call) is not None:
            return True
        names = (*aliases, *mem_aliases(call, aliases))
        if names and _alias_secret_re(tuple(sorted(set(names)))).search(call) is not None:
            return True
    if "age" in call and ("-d" in call or "--decrypt" in call) and _AGE_DECRYPT_RE.search(call) is not None:
        return True
    if spelt and ("sealed" in call or "remote" in call or ("show" in call or "export" in call or "aled" in call) and (
            "''" in call or '\\"\\"' in call or "\\" in call
            or "'" in call and "sealed" in call.replace("'", ""))):   # mend24: se'a'led (a replace, not every quote)
        words = shell_words(call)
        return words != call and _prints_secret(words, aliases, False) or _DOUBT_RE.search(words) is not None
    return False


#: ``${NAME:-WORD}`` / ``${NAME-WORD}`` / ``${NAME:=WORD}``: WORD when NAME is not set (bash(1) Parameter Expansion)
_DEFAULT_RE = LazyPattern(r"\$\{[A-Za-z_]\w*:?[-=]([^}\s]*)\}")
#: ``$(echo WORD)`` / ``` `echo WORD` ```: WORD
_ECHO_RE = LazyPattern(r"\$\([ \t]*echo[ \t]+([\w\-]{1,32})[ \t]*\)|`[ \t]*echo[ \t]+([\w\-]{1,32})[ \t]*`")
#: ``set -- A B C``: the positional parameters ``"$@"`` / ``$*`` read after it
_SET_RE = LazyPattern(r"(?<![\w.\-])set[ \t]+--((?:[ \t]+[^\s;|&()<>\\\"']+)+)")
_ARGS_RE = LazyPattern(r"\\?\"?\$[@*]\\?\"?|\$\{[@*]\}")
#: a backslash before a letter, as JSON writes it (``sh\\ow``) or not (``sh\ow``; not ``\n`` ``\t`` ``\r``)
_ESCAPED_LETTER_RE = LazyPattern(r"\\\\(?=[A-Za-z])|(?<!\\)\\(?=[a-mo-qsu-zA-Z])")
#: in doubt (trl23 Y8): ``mem sealed`` followed by what cannot be told statically (a variable set
#: elsewhere, a substitution): read as ``show``; measured to withhold nothing more on the bench corpus;
#: mend24: ``mem "$@"`` with no ``set --`` before it (a wrapper, ``f() { mem "$@"; }; f sealed show K``) in a
#: call that names ``sealed`` or ``remote`` (the only calls read here)
_DOUBT_RE = LazyPattern(rf"(?:mem(?<![\w.\-]mem)|mem(?<=\\[nt]mem)){_ARG_SEP}(?:sealed{_ARG_SEP}(?:\$|`)"
                        r"|\$[@*]|\$\{[@*]\})")


def shell_words(call: str) -> str:
    """``call`` with its command words as the shell reads them (trl23 Y8):
    quotes inside a word taken away (``m''em``, ``se''aled``: ``trail.unquote``),
    a backslash before a letter dropped (``sh\\ow``), ``${X:-WORD}`` as WORD,
    ``$(echo WORD)`` as WORD, variables set on the command line put in place
    (``S=sealed; mem $S show``: ``trail.expand``) and ``"$@"`` as the words
    of the ``set --`` before it.  For matching only (:func:`prints_secret`)."""
    out = unquote(call)
    if "\\" in out:
        out = _ESCAPED_LETTER_RE.sub("", out)
    if "$" in out or "`" in out:
        out = _DEFAULT_RE.sub(lambda m: m.group(1), out)
        out = _ECHO_RE.sub(lambda m: m.group(1) or m.group(2), out)
        m = _SET_RE.search(out) if "set" in out else None
        if m is not None:
            out = _ARGS_RE.sub(m.group(1).strip(), out)
        out = expand(out)
    return out


#: ``age`` as a word (:func:`may_print_secret`)
_AGE_WORD_RE = LazyPattern(rb"(?:^|[\s\"'`;|&(/]|\\[nt])age[\s\"',\\]")
#: the bytes :func:`may_print_secret` reads before and after a hit
_HIT_BEFORE, _HIT_AFTER = 1200, 80


#: the words :func:`may_print_secret` looks for (each pass of its own: ``bytes.find``)
_HOT_WORDS = (b"sealed", b"remote", b"''", b'\\"\\"', b"\\\\", b"-d")
#: what :func:`shell_words` reads as ``sealed`` (``se''aled``, ``se\\"\\"aled``, ``se\\\\aled``)
_SEALED_PAIRS = _HOT_WORDS[2:5]
#: each pair's seven spellings with ``sealed`` (the pair before, inside or after the word): a pair's
#: 6 bytes before and 6 after hold ``sealed`` exactly where one of them holds the pair there
_SEALED_SPELT = {pair: tuple(b"sealed"[:k] + pair + b"sealed"[k:] for k in range(7)) for pair in _SEALED_PAIRS}
#: from this many bytes :func:`may_print_secret` finds every word in one pass (:func:`_word_finder`)
_ONE_PASS_MIN = 262_144
#: the one-pass matcher of :data:`_HOT_WORDS` and the spellings (False: ``ahocorasick_rs`` cannot be
#: loaded), built on first use
_HOT_MATCHER: list = []


def _word_finder(data: bytes):
    """``(find, may_hold)`` for ``data``: ``find(word, start)`` for the words
    of :data:`_HOT_WORDS`, ``data.find(word, start)`` itself, the same
    offset or -1 (``start`` >= 0); ``may_hold(words)`` False only where none
    of ``words`` (those of :data:`_SEALED_SPELT`) occurs in ``data``.  For
    ``data`` of :data:`_ONE_PASS_MIN` bytes or more, with the optional
    ``ahocorasick_rs`` (the ``memvcs[fast]`` extra, as the redaction's gate
    matcher), every offset of every word and spelling is found in one pass
    (overlapping matches: each word's own offsets, in order) and looked up
    by bisection: six passes of ``bytes.find`` over the bench corpus's 80 MB
    of session trees cost ~0.5 s of the parse children's CPU, the one pass
    ~0.2 s.  Without the extra, or for a shorter ``data``, ``data.find`` and
    ``may_hold`` always True (no pass more)."""
    if len(data) < _ONE_PASS_MIN:
        return data.find, _maybe
    if not _HOT_MATCHER:
        try:
            import ahocorasick_rs   # the optional extra, as objstore.core.redact.prefilter loads it
            words = list(_HOT_WORDS) + [w for spelt in _SEALED_SPELT.values() for w in spelt]
            _HOT_MATCHER.append((ahocorasick_rs.BytesAhoCorasick(words), words))
        except Exception:   # not installed, or a build that cannot load here: bytes.find
            _HOT_MATCHER.append(False)
    if not _HOT_MATCHER[0]:
        return data.find, _maybe
    matcher, words = _HOT_MATCHER[0]
    at: dict[bytes, list[int]] = {w: [] for w in words}
    for k, s, _e in matcher.find_matches_as_indexes(data, overlapping=True):
        at[words[k]].append(s)
    for offsets in at.values():
        offsets.sort()   # (reported by their ends: one word's are in order already)

    def find(word: bytes, start: int = 0) -> int:
        offsets = at[word]
        j = bisect.bisect_left(offsets, start)
        return offsets[j] if j < len(offsets) else -1
    return find, lambda spelt: any(at[w] for w in spelt)


def _maybe(_words) -> bool:
    """``may_hold`` of :func:`_word_finder` where it was not looked for: True."""
    return True


def may_print_secret(data: bytes) -> bool:
    """Whether a transcript's bytes ``data`` may hold a call
    :func:`prints_secret` matches: each ``sealed``, ``remote`` with ``key``
    after it, and ``-d`` / ``--decrypt`` with the word ``age`` before it is
    read with the text around it (:data:`_HIT_BEFORE`, :data:`_HIT_AFTER`
    bytes) by :func:`prints_secret`.  The cheap test (six searches for the
    words of :data:`_HOT_WORDS`, :func:`_word_finder`: one pass over a large
    file) before the other files of a session tree are read for its
    trail (``claude_code.parse_file``): False is never wrong
    for a call on one line of the file whose ``sealed`` is whole or split
    by one empty quote pair or backslash (``se''aled``: :func:`shell_words`)."""
    def hit(i: int, n: int) -> bool:
        return prints_secret(data[max(0, i - _HIT_BEFORE):i + n + _HIT_AFTER].decode("utf-8", "replace"))

    find, may_hold = _word_finder(data)
    for word in (b"sealed", b"remote"):
        i = find(word)
        while i >= 0:
            if (word == b"sealed" or b"key" in data[i + 6:i + 48]) and hit(i, 6):
                return True
            i = find(word, i + 6)
    for pair in _SEALED_PAIRS:     # ``se''aled``, ``se\"\"aled``, ``se\\aled`` (:func:`shell_words`)
        i = find(pair) if may_hold(_SEALED_SPELT[pair]) else -1
        while i >= 0:
            if b"sealed" in data[max(0, i - 6):i] + data[i + len(pair):i + len(pair) + 6] and hit(i, len(pair)):
                return True
            i = find(pair, i + len(pair))
    i = find(b"-d")                # ``-d``, and ``--decrypt`` (its ``-d``) in the same pass
    while i >= 0:
        n = 9 if data[i - 1:i] == b"-" and data[i + 2:i + 8] == b"ecrypt" else 2
        j = i - 1 if n == 9 else i
        if data[j - 1:j] in b" \t\"',n" and data[j + n:j + n + 1] in b" \t\"',\\;|&)" \
                and _AGE_WORD_RE.search(data, max(0, j - 400), j) is not None and hit(j, n):
            return True
        i = find(b"-d", i + 2)
    return False


#: in a trail (:func:`withholds`): a file a withheld call wrote (``> F``, ``>> F``, ``tee F``, ``cp … F``)
TAINT_FILE = "f:"
#: in a trail: the id of a background shell (Claude Code ``run_in_background``) whose output a withheld
#: call writes: read by ``BashOutput`` (``bash_id``), ``TaskOutput`` (``task_id``), ``KillShell`` (``shell_id``)
TAINT_SHELL = "s:"
#: in a trail: a name an earlier call defined as an alias of mem (``alias m=mem``: :func:`mem_aliases`)
TAINT_ALIAS = "a:"
#: in a trail: the id of a call fetching a secret (``printenv DB_PASSWORD``: :func:`note_fetch`), whose short
#: result is that secret (:func:`fetched_result`)
TAINT_FETCH = "x:"
#: in a trail: the last ``!`` bash-mode command read fetches a secret (:func:`bash_mode`)
BASH_FETCHED = TAINT_FETCH + "!bash"
#: a JSON-escaped newline, tab or quote, read as the blank it stands for
_JSON_ESC_RE = LazyPattern(r"\\[nrt\"]")
#: where a command writes its output: ``> F``, ``>> F``, ``2> F``, ``&> F``, ``>| F`` (not ``>&2``); ``of=F``;
#: ``-o F`` / ``--output[=]F``; the file words of ``tee`` / ``cp`` / ``mv`` / ``install`` / ``ln`` / ``rsync`` /
#: ``sponge`` (moreutils: writes its input to F); Python's ``open(F, 'w')`` / ``Path(F).write_text`` as
#: :func:`withholds` reads a call (quotes taken away: ``python3 -c "open('/tmp/x/p','w').write(…)"``, trl23 Y7)
_WRITES_RE = LazyPattern(
    rf"(?<![<>])[0-9&]?>>?\|?[ \t]*({WORD})|(?<![\w.\-])of=({WORD})|(?<![\w\-])(?:-o|--output)(?:=|[ \t]+)({WORD})"
    rf"|(?<![\w.\-/])(?:tee|cp|mv|install|ln|rsync|sponge)((?:[ \t]+{WORD})+)"
    rf"|(?<![\w.])open\([ \t]*({WORD})[ \t]*,[ \t]*[wax]|(?<![\w])Path\([ \t]*({WORD})[ \t]*\)\.write_")
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
        words = g[3].split() if len(g) > 3 and g[3] else [next((x for x in g if x), "")]
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
        if word.startswith("~") and not word.startswith("~/"):
            word = home_word(word)      # ``~u/f`` is ``~/f`` (trl23 Y7)
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
    printed = _prints_secret(call, [t[len(TAINT_ALIAS):] for t in trail if t.startswith(TAINT_ALIAS)])
    if not printed and not any(t.startswith((TAINT_FILE, TAINT_SHELL)) for t in trail):
        return False            # the common case: nothing withheld so far wrote a file or ran in the background
    call = unquote(expand(call))
    if "\\" in call:
        call = _JSON_ESC_RE.sub(" ", call)
    if printed or _names_taint(call, trail, cwd):
        _taint_files(call, trail, cwd)
        return True
    return False


def note_fetch(call: str, call_id: str, trail: list) -> None:
    """Note on ``trail`` (:data:`TAINT_FETCH` + ``call_id``) a tool call that
    fetches a secret (test34 T5: ``printenv DB_PASSWORD``, ``vault kv get
    -field=password …``, ``pass show …``: the one table,
    :func:`objstore.core.redact.fetched.fetches_secret`); ``call``: as for
    :func:`prints_secret`.  A call :func:`withholds` is not noted (its
    whole result is withheld).  Kept between reads as the rest of the trail,
    so a result in a hook's next sync is paired too."""
    from objstore.core.redact.fetched import fetches_secret  # defer: the redaction package, on a tool call only
    if call_id and fetches_secret(call) and TAINT_FETCH + call_id not in trail:
        trail.append(TAINT_FETCH + call_id)


def fetched_result(body: str, call_id: str, trail: list, withheld: list | None = None) -> str:
    """``body``, the result of the call ``call_id``, as stored: when
    :func:`note_fetch` noted the call, its note leaves ``trail`` (a list; a
    proxy's frozenset is only read) and a short
    body is the fetched secret
    (:func:`objstore.core.redact.fetched.redact_fetched`:
    ``[REDACTED:fetched-secret]``); else ``body`` itself.  ``withheld`` (a
    list, given): the values of a body so withheld are appended to it
    (``fetched.fetched_values``: ``CapturedTurn.withheld``, test34b T15)."""
    if not call_id or not trail or TAINT_FETCH + call_id not in trail:
        return body
    if isinstance(trail, list):
        trail.remove(TAINT_FETCH + call_id)
    from objstore.core.redact.fetched import fetched_values, redact_fetched  # defer: the redaction package
    if withheld is not None:
        withheld += fetched_values(body)
    return redact_fetched(body)


class PrintedTrail(list):
    """A trail (:func:`withholds`' list) that also keeps, in ``printed``, the raw
    body of each result :func:`withhold_result` withholds: what the calls
    printed, in reading order, in memory only (never stored), for
    :func:`redact_printed` (``rollup.printed_values``, test23b V3)."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.printed: list[str] = []


def withhold_result(body: str, trail: list) -> str:
    """:data:`SECRET_OUTPUT`, what the result ``body`` of a withheld call is
    stored as; a background shell the body names (``Command running in
    background with ID: ID``, and ``Output is being written to: PATH``,
    Claude Code's ``run_in_background`` result) joins ``trail``
    (:data:`TAINT_SHELL`, :data:`TAINT_FILE`), so what later reads it is
    withheld by :func:`withholds`; a :class:`PrintedTrail` keeps ``body``."""
    if isinstance(trail, PrintedTrail):
        trail.printed.append(body)
    m = _BACKGROUND_RE.search(body) if "running " in body else None
    if m is not None:
        for t in (TAINT_SHELL + m.group(1), TAINT_FILE + m.group(2) if m.group(2) else ""):
            if t and t not in trail:
                trail.append(t)
    return SECRET_OUTPUT


#: a word of a withheld result that :func:`redact_printed` looks for: 6 characters or more between
#: blanks, quotes, brackets and ``=:,;`` (``PIN=4471-9902`` gives ``4471-9902``)
_PRINTED_WORD_RE = LazyPattern(r"[^\s=:,;\"'`<>()\[\]{}]{6,}")
#: a whole line of a withheld result, stripped, is looked for when it has this many characters
PRINTED_LINE_MIN = 4


def redact_printed(text: str, printed: Iterable[str]) -> str:
    """``text`` (a roll-up's summary: ``objstore.capture.rollup``) with every
    value a withheld result printed replaced by :data:`SECRET_OUTPUT` (test23b
    V3): ``printed`` holds the withheld results' raw bodies
    (``rollup.printed_values``); each stripped line of
    :data:`PRINTED_LINE_MIN` characters or more and each word of
    :data:`_PRINTED_WORD_RE` is a value, the longest replaced first.  A word that
    only looks like a value (a path ``grep -r`` printed) is replaced too: that
    loses text, never a secret.  Out: ``text`` itself when it holds none."""
    values: set[str] = set()
    for body in printed:
        for ln in body.splitlines():
            ln = ln.strip()
            if len(ln) >= PRINTED_LINE_MIN:
                values.add(ln)
                values.update(_PRINTED_WORD_RE.findall(ln))
    found = sorted((v for v in values if v in text), key=len, reverse=True)
    if not found:
        return text
    return re.sub("|".join(map(re.escape, found)), SECRET_OUTPUT, text)


#: Claude Code's ``!`` bash mode: the command a user ran and what it printed, as user prompts
#: (docs/agent-formats.md §2.2): ``<bash-input>CMD</bash-input>``, ``<bash-stdout>OUT</bash-stdout>``,
#: ``<bash-stderr>ERR</bash-stderr>``
_BASH_INPUT_RE = LazyPattern(r"<bash-input>(.*?)</bash-input>", re.S)
_BASH_OUTPUT_RE = LazyPattern(r"(<bash-(stdout|stderr)>)(.*?)(</bash-\2>)", re.S)


def bash_mode(text: str, printed: bool, trail: list | None = None,
              withheld: list | None = None) -> tuple[str, bool]:
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
    last command clears it.  Text without ``<bash-`` comes back as it is.
    A command fetching a secret (``printenv DB_PASSWORD``: :func:`note_fetch`'s
    table) has its short standard output redacted as the tool result of such
    a call is (``[REDACTED:fetched-secret]``); the flag that the last command
    fetched is :data:`BASH_FETCHED` in ``trail`` (given); the values so
    withheld are appended to ``withheld`` (given), as :func:`fetched_result`'s."""
    if "<bash-" not in text:
        return text, printed
    from objstore.core.redact.fetched import fetched_values, fetches_secret, redact_fetched  # defer: bash mode only
    if withheld is None:
        withheld = []
    out: list[str] = []
    at = 0
    fetched = trail is not None and BASH_FETCHED in trail

    def outputs(chunk: str, withhold: bool, fetch: bool) -> str:
        if withhold:
            return _BASH_OUTPUT_RE.sub(lambda m: m.group(1) + (m.group(3) and SECRET_OUTPUT) + m.group(4), chunk)
        if fetch:       # test34 T5: ``printenv DB_PASSWORD`` printed the value on its standard output
            for m in _BASH_OUTPUT_RE.finditer(chunk):
                withheld.extend(fetched_values(m.group(3)) if m.group(2) == "stdout" else ())
            return _BASH_OUTPUT_RE.sub(lambda m: m.group(1) + (redact_fetched(m.group(3)) if m.group(2) == "stdout"
                                                               else m.group(3)) + m.group(4), chunk)
        return chunk

    for m in _BASH_INPUT_RE.finditer(text):
        out.append(outputs(text[at:m.start()], printed, fetched))
        cmd = m.group(1).strip("\n")
        out.append(f"<bash-input>\n{cmd}\n</bash-input>")
        printed = withholds(cmd, [] if trail is None else trail)
        fetched = not printed and fetches_secret(cmd)
        at = m.end()
    tail = text[at:]
    out.append(outputs(tail, printed, fetched))
    if _BASH_OUTPUT_RE.search(tail) is not None:
        printed = fetched = False
    if trail is not None and fetched and BASH_FETCHED not in trail:
        trail.append(BASH_FETCHED)
    elif trail is not None and not fetched and BASH_FETCHED in trail:
        trail.remove(BASH_FETCHED)
    return "".join(out), printed
