"""The paths of a tool call, as the withheld trail of sealed values reads
them (``withhold.withholds``, trail21): shell variables and ``cd`` put in
place, and whether a call reads a folder that holds a file a withheld call
wrote (``grep -r X DIR``, ``cat DIR/*``, ``tar -c DIR``, the ``Grep`` tool
with a ``path`` at or above the file, or with none: the working folder).

Everything here leans one way: when a folder is not known (``$D/f`` with
``D`` set in another call, ``$(pwd)/f``), it is any folder, and a call that
may read the file is withheld.  Withholding loses a result, never a secret.
"""

from __future__ import annotations

import functools
import json
import posixpath
import re

from objstore.core.text import LazyPattern

#: a shell variable set on the command line: ``D=/tmp/x``, ``export D="/tmp/x"``, ``local D=…``
_ASSIGN = r"(?<![\w$/.\-])([A-Za-z_]\w{0,63})=(\\\"[^\"\\]*\\\"|\"[^\"]*\"|'[^']*'|[^\s\"';|&()<>`\\]*)"
#: a shell expansion: ``${NAME…}``, ``$NAME``, a command substitution ``$(…)`` (not a backquoted one:
#: backquotes are Markdown's code in the prose of most calls)
_EXPANSION = r"\$\{([A-Za-z_]\w*)[^}]*\}|\$([A-Za-z_]\w*)|\$\([^)]*\)?"
_EXPAND_RE = LazyPattern(rf"{_ASSIGN}|{_EXPANSION}")
_EXPANSION_RE = LazyPattern(_EXPANSION)
#: ``cd DIR`` / ``pushd DIR``: the folder the rest of the command line runs in
_CD_RE = LazyPattern(r"(?<![\w.\-/])(?:cd|pushd)[ \t]+([^\s\"';|&()<>]+)")
#: Codex ``exec_command`` / ``shell``: the folder the command runs in (``workdir``)
_WORKDIR_RE = LazyPattern(r"\"workdir\": ?\"([^\"]+)\"")
#: Codex ``write_stdin``: the exec session it writes to (and reads the output of)
_SESSION_RE = LazyPattern(r"\"session_id\": ?\"?([\w\-]+)")
#: where one command of a command line ends and the next begins
_SEGMENT_RE = LazyPattern(r"[;&|()\n`{}]|\$\(")
#: a word of a call: what a path or an id may be (shell operators, quotes and JSON punctuation split)
WORD = r"[^\s\"'`;|&(){}<>=,]+"
WORD_RE = LazyPattern(WORD)
#: ``find`` running something on what it finds (``find DIR -exec cat {} +``): it reads the files
_FIND_RUNS_RE = LazyPattern(r"(?<![\w\-])-(?:exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)(?![\w\-])")
#: commands that print only names, counts or nothing of the files they are given
_NAMES_ONLY = frozenset({"ls", "cd", "pushd", "popd", "pwd", "mkdir", "rmdir", "touch", "stat", "du", "df", "tree",
                         "find", "test", "[", "wc", "file", "realpath", "readlink", "dirname", "basename", "chmod",
                         "chown", "rm", "echo", "which", "mktemp", "true"})
#: words before a command that run it (``sudo grep -r …``)
_RUNNERS = frozenset({"sudo", "env", "time", "nice", "nohup", "command", "exec", "builtin", "xargs", "timeout"})
#: commands that search the working folder when given no folder (``rg X``; ``grep -r X``, ``git grep`` are
#: told apart in :func:`_command_reads`)
_SEARCHERS = frozenset({"rg", "ag", "ack"})
_RECURSIVE_RE = LazyPattern(r"(?<![\w\-])(?:-[A-Za-z]*[rR][A-Za-z]*|--recursive|--dereference-recursive|"
                            r"--directories=recurse)(?![\w\-])")
#: the keys of a tool call's input that hold a command line (Claude Code ``Bash``, Codex ``exec_command`` /
#: ``shell``), and those that hold prose, a search pattern or a file's new text, not a path
_COMMAND_KEYS = ("command", "cmd")
_PROSE_KEYS = frozenset({"description", "prompt", "chars", "justification", "old_string", "new_string", "content",
                         "pattern", "glob", "query", "text", "message", "plan"})
#: the keys of a search tool's input (Claude Code ``Grep`` / ``Glob``): with no ``path`` it reads the working folder
_SEARCH_KEYS = ("pattern", "glob")


#: a line continuation (``\\`` before a newline), as a command line holds it or as JSON escapes it
#: (``\\\\\\n``): the shell joins the two lines, so ``mem \\⏎ sealed show`` runs ``mem sealed show``
_CONTINUATION_RE = LazyPattern(r"\\\\\\(?:r\\)?n|\\\r?\n")
#: a word in quotes with no blank inside (``'/tmp/x'``, ``pi''n``; ``\"x\"`` as JSON escapes it), and
#: a brace holding one name (``p{i}n``): the shell reads them as the bare word
_QUOTED_RE = LazyPattern(r"'([^'\s\\]*)'|\\\"([^\"\s\\]*)\\\"|(?<=[\w.\-/])\{([\w.\-]+)\}")


def unfold(call: str) -> str:
    """``call`` (a tool call's input or a command line) with each line
    continuation taken away, as the shell reads it (``mem \\⏎ sealed show``:
    ``mem sealed show``; bash(1) QUOTING: a backslash-newline pair is removed).
    The one normalisation of a call every check of the trail starts from
    (``withhold.prints_secret``, ``withhold.withholds``, test22 X5).
    Text without a backslash comes back as it is."""
    if "\\\n" not in call and "\\\r" not in call and "\\\\\\" not in call:
        return call
    return _CONTINUATION_RE.sub("", call)


def unquote(call: str) -> str:
    """``call`` with the quotes around (or inside) a word that holds no blank
    taken away (``> '/tmp/x'``, ``cat pi''n.txt``, JSON's ``\\"/tmp/x\\"``)
    and a brace holding one name opened (``p{i}n.txt``): the word the shell
    passes, so a path is matched however it is quoted (test22 X3, X7).
    A quoted text with blanks stays as it is."""
    if "'" not in call and "\\\"" not in call and "{" not in call:
        return call
    return _QUOTED_RE.sub(lambda m: m.group(1) or m.group(2) or m.group(3) or "", call)


def plain(path: str) -> str:
    """A path as written, made plain for matching: ``//`` as ``/``, ``.``
    and ``..`` steps taken (``posixpath.normpath``) and a trailing ``/``
    dropped (``rsync -a /tmp/x/ /tmp/y/`` copies into ``/tmp/y``); a ``~/``
    prefix is kept (the home folder is not the working folder), and a
    named user's home is any home (``~u/x``, ``~root/x``: ``~/x``,
    :func:`home_word`)."""
    if path.startswith("~") and not path.startswith("~/"):
        path = home_word(path)
    if "//" not in path and "/." not in path and not (path.endswith("/") and len(path) > 1):
        return path
    if path.startswith("~/"):
        return "~/" + posixpath.normpath(path[2:]).lstrip("/")
    return posixpath.normpath(path)


#: a named user's home: ``~NAME`` (bash(1) Tilde Expansion), NAME a login name
_TILDE_USER_RE = LazyPattern(r"~[a-z_][\w.\-]{0,31}(?=/|$)")


def home_word(word: str) -> str:
    """``word`` with a named user's home (``~u/pin.txt``, ``~root/x``, ``~ana``) written as
    ``~/…`` / ``~``: a transcript does not say whose home ``~`` is, so every home is one
    (:func:`home_form`, trl23 Y7).  Other words come back as they are."""
    m = _TILDE_USER_RE.match(word) if word.startswith("~") else None
    return "~" + word[m.end():] if m else word


#: a home folder as an absolute path: ``/home/NAME``, ``/Users/NAME`` (macOS), ``/root``
_HOME_RE = LazyPattern(r"/?(?:home/[^/]+|Users/[^/]+|root)(?=/|$)")


def home_form(path: str) -> str:
    """``path`` (absolute, or with its leading ``/`` taken away) inside a
    home folder written as ``~/REST`` (``/home/u/pin.txt``, ``/Users/u/pin.txt``,
    ``/root/pin.txt``: ``~/pin.txt``; the home itself: ``~``), else "".
    A transcript does not say whose home ``~`` is, so a file written to
    ``~/REST`` is read by any home's ``REST`` (test22 X4): withholding a
    result another user's file gave loses a result, never a secret."""
    m = _HOME_RE.match(path) if path.startswith(("home/", "Users/", "root", "/home/", "/Users/", "/root")) else None
    return "~" + path[m.end():] if m else ""


def expand(call: str) -> str:
    """``call`` (a tool call's input or a command line) with the shell
    variables it sets (``D=/tmp/x``, ``export D=…``, in the order written)
    put in place where it reads them (``$D``, ``${D}``); every other
    expansion (a variable set elsewhere, ``$(pwd)``) joined to a path is
    ``*``: a path built from it is any path of that shape (``$D/f`` is
    ``*/f``, ``/tmp/$N`` is ``/tmp/*``); one standing alone (``echo $PATH``)
    stays as it is (a variable set in an earlier call is gone: Claude Code
    and Codex run each call in a shell of its own).  Text without ``$``
    comes back as it is."""
    if "$" not in call:
        return call
    values: dict[str, str] = {}

    def unknown(m: re.Match) -> str:
        s, a, b = m.string, m.start(), m.end()
        return "*" if s[b:b + 1] == "/" or s[a - 1:a] == "/" else m.group(0)

    def value_of(m: re.Match) -> str:
        name = m.group(1) or m.group(2)
        return values[name] if name in values else unknown(m)

    def step(m: re.Match) -> str:
        if m.group(1) is not None:               # an assignment: kept, its value noted
            values[m.group(1)] = _EXPANSION_RE.sub(value_of, m.group(2).strip("\\\"'"))
            return m.group(0)
        name = m.group(3) or m.group(4)
        return values[name] if name in values else unknown(m)

    return _EXPAND_RE.sub(step, call)


@functools.lru_cache(maxsize=1024)
def resolve(path: str, here: str) -> str:
    """``path`` (a word of a call) made plain: an absolute path keeps its
    leading ``/``; ``@/tmp/x`` (curl) loses the ``@``, ``~/x`` and ``./x`` the
    prefix; a relative path is joined to ``here`` (an absolute folder, or ""
    when not known: it stays relative, ``.`` the working folder); ``..``
    and ``.`` steps are taken away (``posixpath.normpath``)."""
    if path.startswith("@"):
        path = path[1:]
    if path.startswith("~/"):
        path = path[2:]
    if here and not path.startswith("/"):
        path = here.rstrip("/") + "/" + path
    return posixpath.normpath(path) if path else "."


def folder_at(call: str, at: int, cwd: str) -> str:
    """The folder the command of ``call`` at offset ``at`` runs in: the last
    ``cd DIR`` before it (joined to what went before when relative), else a
    Codex ``workdir``, else ``cwd`` (the session's, "" when not known)."""
    m = _WORKDIR_RE.search(call) if "workdir" in call else None
    here = m.group(1) if m else cwd
    if "cd" in call:
        for m in _CD_RE.finditer(call, 0, at):
            d = m.group(1)
            here = "" if d.startswith(("~", "-", "*")) or not (d.startswith("/") or here) else resolve(d, here)
    return here


def session_ids(call: str) -> list[str]:
    """The Codex exec sessions ``call`` writes to (``write_stdin``'s ``session_id``)."""
    return _SESSION_RE.findall(call) if "session_id" in call else []


def _holds(folder: str, files: list[str], wide: bool) -> bool:
    """Whether ``folder`` may hold one of ``files`` (both as :func:`resolve` gives them): an
    absolute folder holds the absolute files under it; a relative one (the working folder
    not known) any file under a folder of that name; a file at a path not known (``*/f``)
    is in any folder read ``wide`` (searched, or named as a folder: ``DIR/``, ``.``)."""
    for f in files:
        if "*" in f or "?" in f:
            if wide:
                return True
            continue
        if f.startswith("~/") and folder.startswith("/"):    # a home's file: any home (:func:`home_form`)
            h = home_form(folder)
            if folder in ("/", "/home", "/Users") or h and (f == h or f.startswith(h + "/")):
                return True
            continue
        if folder.startswith("/"):
            if f.startswith("/") and (folder == "/" or f.startswith(folder + "/")):
                return True
        elif folder == "." or folder.startswith("..") or f.startswith(folder + "/") \
                or ("/" + folder + "/") in ("/" + f.lstrip("/")):
            return True
    return False


#: the ``git`` commands that print the text of files in the repository (a diff, a commit, a stash, a
#: blob): after a withheld call wrote a file in the repository, they may print it (test22 X7)
_GIT_PRINTS = frozenset({"diff", "show", "blame", "cat-file", "format-patch", "archive", "difftool", "whatchanged"})


def _git_prints(segment: str) -> bool:
    """Whether the ``git`` command ``segment`` prints the text of files: :data:`_GIT_PRINTS`,
    ``git stash show``, ``git log -p`` / ``--patch`` / ``-u``."""
    words = segment.split()
    sub = next((w for w in words[words.index("git") + 1:] if not w.startswith("-")), "") if "git" in words else ""
    return sub in _GIT_PRINTS or sub == "stash" and "show" in words or sub == "log" and any(
        w in ("-p", "-u", "--patch") for w in words)


def _near(here: str, files: list[str]) -> bool:
    """Whether one of ``files`` may be in the repository a command run in ``here`` reads: ``here``
    or a file's folder not known (relative), the file under ``here``, or ``here`` under its folder."""
    if not here.startswith("/"):
        return True
    for f in files:
        if not f.startswith("/") or f.startswith(here.rstrip("/") + "/") \
                or (here + "/").startswith(posixpath.dirname(f) + "/"):
            return True
    return False


def _command_name(segment: str) -> str:
    """The command a piece of a command line runs (``sudo X``, ``D=1 X``, ``/bin/X``: ``X``)."""
    for w in segment.split():
        w = w.strip("\"'")
        if not w or "=" in w or w in _RUNNERS or w.startswith("-"):
            continue
        return w.rsplit("/", 1)[-1]
    return ""


def _command_reads(text: str, files: list[str], cwd: str) -> bool:
    """Whether the command line ``text`` reads a folder that may hold one of ``files``."""
    here = cwd
    names_only = _NAMES_ONLY if "xargs" not in text else ()     # ``ls DIR | xargs cat`` reads what ls names
    for seg in _SEGMENT_RE.split(text):
        name = _command_name(seg)
        if not name:
            continue
        if name in ("cd", "pushd"):
            here = folder_at(seg, len(seg), here)
            continue
        if name in names_only and not (name == "find" and _FIND_RUNS_RE.search(seg)):
            continue
        if name == "git" and _git_prints(seg) and _near(here, files):
            return True
        searches = name in _SEARCHERS or (name == "git" and " grep" in seg) or (
            name in ("grep", "egrep", "fgrep", "find") and (name == "find" or _RECURSIVE_RE.search(seg) is not None))
        if searches and _holds(resolve(".", here), files, True):
            return True                  # it searches the working folder when given no other
        for w in WORD_RE.findall(seg):
            if name == "git" and w.endswith("/.git"):   # ``--git-dir=/tmp/x/.git``, ``GIT_DIR=…``: the repository
                w = w[:-5] or "/"
            if not w.startswith("-") and w != name and _holds(resolve(w, here), files, searches or w.endswith(
                    ("/", "."))):
                return True
    return False


#: a word that is the root folder: ``grep -r X /``
_ROOT_RE = LazyPattern(r"(?:^|[\s\"'=])/(?:[\s\"';|&)]|$)")


def _may_read(call: str, files: list[str], cwd: str) -> bool:
    """False when no folder ``call`` may name can hold ``files`` (absolute, not patterns): none of
    their folders' names is in it, nor ``..`` or the root, and ``cwd`` holds none; the cheap test
    before :func:`reads_folder` parses the call (the check runs on every call of a session once a
    file is withheld)."""
    if ".." in call or _holds(resolve(".", cwd), files, True) or "git" in call and _near(cwd, files):
        return True
    for f in files:
        if not f.startswith("/") or "*" in f or "?" in f:
            return True
        for name in f.split("/")[1:-1]:
            if name in call:
                return True
    return ("/ " in call or "/\"" in call or "/'" in call or "/;" in call or call.endswith("/")) \
        and _ROOT_RE.search(call) is not None


def reads_folder(call: str, files: list[str], cwd: str = "") -> bool:
    """Whether the tool call ``call`` (its input's JSON, or a command line)
    may read a folder that holds one of ``files`` (the withheld trail's
    files, as :func:`resolve` gives them).  A call reads a folder when a
    command other than one printing only names (``ls``, ``cd``, ``find``
    without ``-exec``, ``du``, ``wc`` …) is given it or a folder above
    it (``grep -r X /tmp``, ``tar -cf - /tmp/x``, ``cat ./``), when a search
    (``rg``, ``grep -r``, ``git grep``, ``find -exec``) runs in it
    (``cd /tmp/x && rg X``), and when a tool's input names it (the
    ``Grep`` tool's ``path``) or, for a search tool (``pattern``) with no
    ``path``, runs in it.  ``cwd``: the session's working folder ("" when
    not known: then any search of the working folder, and any relative
    folder, may hold the files).  Prose (a ``description``) is not read."""
    if cwd and not _may_read(call, files, cwd):
        return False
    try:
        inp = json.loads(call) if call.startswith("{") else None
    except ValueError:
        inp = None
    if not isinstance(inp, dict):
        return _command_reads(call, files, cwd)
    here = inp.get("workdir") if isinstance(inp.get("workdir"), str) else cwd
    for key in _COMMAND_KEYS:
        v = inp.get(key)
        if isinstance(v, list):
            v = " ".join(str(x) for x in v)
        if isinstance(v, str) and _command_reads(v, files, here):
            return True
    commanded = any(k in inp for k in _COMMAND_KEYS)
    if not commanded and any(k in inp for k in _SEARCH_KEYS) and not inp.get("path") \
            and _holds(resolve(".", here), files, True):
        return True                              # Grep / Glob in the working folder
    for k, v in inp.items():
        if k in _PROSE_KEYS or k in _COMMAND_KEYS or not isinstance(v, str) or commanded and k == "workdir":
            continue
        for w in WORD_RE.findall(v):
            if _holds(resolve(w, here), files, k == "path"):
                return True
    return False
