"""The ``mem-command`` and ``age-input`` rules of :mod:`objstore.core.redact`'s table, moved out of
:mod:`.commandline` (red20: that module had grown past 40 KB) and spliced into ``passwords.PASSWORD_RULES``:

``MEM_COMMAND_RULES``, the ``mem-command`` rule: the values on mem's own command lines, which
the shell hook and an agent's Bash tool call capture verbatim (test17 T10, red17; every way to
run mem and every argument that carries a secret: red18).

What is a value (docs/cli.md of each command):

* ``mem remember KEY VALUE`` when the command says ``--sensitivity secret`` or KEY names a
  credential (:func:`~.keywords.credential_name`: ``…/github-token``, ``…/db-password``): VALUE,
  also a VALUE starting with ``-`` (remember takes it as the value); VALUE ``-`` (standard
  input): what feeds it (below);
* ``mem forget --match TEXT`` (``--match=TEXT``) and ``mem scan TEXT``: TEXT;
* ``mem sealed import KEY -`` and any ``--passphrase-file -`` (``vault``, ``seal``,
  ``unseal``, ``sealed show``): what feeds standard input.

What feeds standard input: the arguments of an ``echo`` / ``printf`` before the command in
its pipeline (``printf 1234 | age -r … | mem sealed import K -``; a ``printf`` format made of
``%s`` and escapes alone is kept), a here-string after it (``<<< X``), a here-document's
lines (``<<EOF`` … ``EOF``), and for ``--passphrase-file <(echo X)`` the process
substitution's ``echo`` / ``printf``.

How mem is run (:data:`_MEM_LAUNCHERS`): ``mem`` as a word or a path's last part
(``/opt/bin/mem``, ``env MEM_HOME=x mem``), a variable naming it (``$M``, ``"$MEM"``,
``${MEM_BIN}``) and the checkout's module (``python -m cmds``); ``--home DIR`` may stand before
the command.  A word is read as bash reads it: quoted ``'…'`` / ``"…"``, and ANSI-C ``$'…'`` / ``$"…"``
one word with its ``$`` (test18b V3), a backslash-newline continuation removed (V7).  Also (V4,
V8): ``< <(echo X)``, ``yes X |``, ``cat > f <<< X`` before ``< f``, what feeds ``xargs -I{} mem … {}``, and
``NAME=X`` / ``export NAME=X`` on the line when the value read is ``$NAME``.  Also (red20): ``memvcs``
(the package's name) as the launcher, any blanks or a continuation between it and the command; an
``echo`` quoted (``"echo"``), after a reserved word (``then``, ``do``, ``!``), in a subshell, group or
substitution (``(echo X; …) | mem``, ``{ echo X; } | mem``, ``$(echo X | mem …)``, backticks); what
feeds ``xargs mem …`` when xargs adds the value at the end (no ``-I{}``); and every other occurrence of
a value found on the same line (``mem search "X" && mem forget --match "X"``).  A VALUE that only
expands a variable or reads a file (``"$TOKEN"``, ``"$(cat f)"``, ``$(< f)``) holds no secret in
the text and is kept, as is a redaction marker (a second pass takes nothing).
"""

from __future__ import annotations

from objstore.core.redact.rule import FLAGS, Lazy, Rule, make_rule
from objstore.core.redact.keywords import credential_name


# ---- mem's own command lines (test17 T10, red18) -------------------------------------------------
#: the commands whose arguments may carry a value (the sub-command word after the launcher)
_MEM_SUBS = r"(?P<sub>remember|forget|scan|sealed|seal|unseal|vault)(?![a-z0-9_\-])"
#: '--home DIR' / '--home=DIR' between the launcher and the command; blanks, or a JSON-escaped tab, before it
_MEM_HOME = r"(?:[ \t]{1,4}--home(?:=|[ \t]{1,4})[^\s;|&\"']{1,256}+)?(?:[ \t]{1,4}|\\t)"
def _anchors(launcher: str) -> tuple[str, ...]:
    """The anchors of a launcher word: it and one blank before a command (``mem remember``, ``mem seal``
    for seal and sealed, ``mem --home``), or before it what else may stand: two blanks, a tab, a backslash
    (a line continuation, or a JSON-escaped tab)."""
    return (tuple(f"{launcher} {w}" for w in ("remember", "forget", "scan", "--home", "seal", "unseal", "vault"))
            + tuple(launcher + b for b in ("  ", " \t", "\t", "\\", " \\")))


#: (launcher pattern over the lowercased text, its anchors): each pattern starts with a literal
#: ('mem', '$', '-m') that ``re`` searches for; the anchors gate the window, and every match holds one:
#: 'mem remember' …, and the launcher with what else may stand before its command ('mem  remember',
#: 'mem<TAB>remember', 'mem \\<LF>remember': :func:`_anchors`), so the one-pass matcher (exact anchors) runs
#: the rule wherever the stdlib prefilter (their merged prefix) does (red20), and not at 'mem recall'.  A variable is
#: one that names mem: '$M', '$MEM', '$MEM_BIN', '${MEM}' ('$DOCKER scan image' is none; the words
#: remember/forget/scan as anchors would hand the matcher most transcript lines); 'memvcs' is the
#: package's name ('uvx memvcs remember …', 'pipx run memvcs …' as an agent may write them)
_MEM_LAUNCHERS = (
    (r"mem(?<![a-z0-9_\-.]mem)", _anchors("mem")),
    (r"memvcs(?<![a-z0-9_\-.]memvcs)", _anchors("memvcs")),
    (r"\$(?:\{(?:m|mem[a-z0-9_]{0,60})\}|(?:m|mem[a-z0-9_]{0,60}+)(?![a-z0-9_]))(?:\\?\")?",
     ("$m ", "$m\t", "$m\"", "$m\\", "${m}", "$mem", "${mem")),
    (r"-m(?:[ \t]{1,4}|\\t)cmds(?![a-z0-9_.\-])", ("-m cmds",) + _anchors("-m")[7:]),
)
#: where the command ends: a line's end (or its JSON escape), ';', '&', '|', a JSON string's end ('"}', '",')
_MEM_END = Lazy(r"\n|\r|\\[nr]|;|&|\||\"(?=[ \t]*[,}\]])", FLAGS)
#: a single-quoted word, bash's ANSI-C quoting ``$'…'`` (backslash escapes inside, bash(1) "QUOTING") and
#: its locale translation ``$"…"`` (raw or JSON-escaped ``$\"…\"``): one word, the ``$`` with it (test18b V3)
_QUOTED = (r"\$'(?:[^'\\\n]|\\.)*'|\$\\\"(?:[^\\\n]|\\(?!\"))*\\\"|\$\"[^\"\n]*\"|'[^'\n]*'")
#: the words of a pipeline before a command, as a shell reads them: a ``cut`` where one starts (a line's end or
#: its JSON escape, ';', '&&', '||', '&', a JSON string's start '"command": "'), a quoted word (a line break
#: inside it is none; not a JSON key), a command substitution, a pipe's '|', a run of other characters
_MEM_PIPE_TOK = Lazy(r"(?P<cut>\r|\n|\\[nr]|;|&&|\|\||&|\":[ \t]{0,4}\")|\$\([^()\n]{0,256}\)|" + _QUOTED
                 + r"|\\\"(?:[^\\\n]|\\(?!\"))*\\\"|\"[^\"\n]*\"(?![ \t]*:)|\||[^\s'\"|;&\\]+|\\", FLAGS)
#: one argument: a command substitution, a pipe's '|', quoted ('…', "…", a JSON-escaped \"…\"), or a run of other characters
_MEM_ARG = Lazy(r"\$\([^()\n]{0,256}\)|" + _QUOTED
                + r"|\\\"(?:[^\\\n]|\\(?!\"))*\\\"|\"[^\"\n]*\"|\||[^\s'\"|]+", FLAGS)
#: the options that take a value (cmds/remember.py, forget.py, scan.py, sealed.py, _vault.py)
_MEM_VALUE_OPTS = frozenset(("--kind", "--trust", "--sensitivity", "--valid-from", "--expect", "--relates-to",
                         "--contradicts", "--derived-from", "--rollup-of", "--session", "--agent", "--file",
                         "--home", "--match", "--passphrase-file", "--version", "-o", "--output"))
#: a value that only expands a variable or reads a file ('"$TOKEN"', '"$(cat f)"', '$(< f)'): no secret in the text
_MEM_EXPANSION = Lazy(r"\\?[\"']?(?:\$[a-z_][a-z0-9_]*|\$\{[a-z_][a-z0-9_]*\}|\$\([ \t]*(?:cat[ \t]+|<[ \t]*)"
                  r"[^\s()|;&]+[ \t]*\))\\?[\"']?", FLAGS)
#: a printf format of '%s' and escapes alone (printf '%s\n' X): kept
_MEM_FORMAT_ONLY = Lazy(r"\\?[\"']?(?:%[sb]|\\+[nrt0])+\\?[\"']?", FLAGS)
#: an output or input redirection word ('>', '>>', '2>', '>f', '<', '<f'; not '<<' / '<<<' / '<('), its operator
_MEM_REDIRECT = Lazy(r"[0-9&]?(?:>>?|<(?![<(]))", FLAGS)
#: a here-document operator and its delimiter ('<<EOF', "<<-'EOF'", '<< "END"')
HEREDOC = Lazy(r"<<-?[ \t]{0,4}\\?[\"']?([a-z_][a-z0-9_]{0,31})\\?[\"']?", FLAGS)
#: a here-document's line end: a line break, raw or JSON-escaped, or the end of the JSON string holding it
_MEM_LINE_END = Lazy(r"\r?\n|\\r\\n|\\n|(?<!\\)\"(?=[ \t]*[,}\]])", FLAGS)


def _mem_args(low: str, a: int, b: int) -> list[tuple[int, int]]:
    """The arguments of ``low[a:b]`` as a shell splits them (quotes kept with each)."""
    return [(m.start(), m.end()) for m in _MEM_ARG.finditer(low, a, b)]


#: what opens a subshell, a group or a command substitution at a word's start ('(echo', '{', 'x=$(echo', '`echo')
_MEM_OPEN = Lazy(r"(?:[a-z_][a-z0-9_]*=)?(?:\$\(|`|\(|\{)+", FLAGS)
#: the words that may stand before a command's name: a shell capture's prompt '$', 'builtin', 'command', and
#: bash's reserved words that start a command list (bash(1) "Reserved Words", "Compound Commands")
_MEM_BEFORE_CMD = frozenset(("$", "builtin", "command", "!", "if", "then", "else", "elif", "while", "until", "do",
                             "time"))


def _nesting(w: str) -> tuple[int, int]:
    """How many subshells, groups and command substitutions the unquoted
    word ``w`` opens (``(echo``, ``{``, ``x=$(echo``, a leading backtick)
    and closes (``X)``, ``}``, a trailing backtick), those it opens and
    closes itself (``$(cat f)``, ```date```) left out."""
    if w[:1] in "'\"\\":
        return 0, 0
    p, b = w.count("(") - w.count(")"), w.count("{") - w.count("}")
    t = w.count("`") % 2
    o = _MEM_OPEN.match(w)
    tick_open = t and o is not None and "`" in o.group()
    return max(p, 0) + max(b, 0) + tick_open, max(-p, 0) + max(-b, 0) + (t and not tick_open)


def _unclosed(w: str) -> int:
    """The length of the word ``w`` without the ``)`` / ``}`` / backticks
    that close a subshell, group or substitution opened before it (``X)``:
    1; ``$(cat f)``: all of it)."""
    n = len(w)
    for _ in range(_nesting(w)[1]):
        if n and w[n - 1] in ")}`":
            n -= 1
    return n


def _echo_spans(low: str, args: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The arguments an ``echo`` / ``printf`` / ``yes`` command of arguments ``args``
    prints (its options and a ``%s``-only printf format left out); none for
    any other command.  ``VAR=x``, ``builtin``, ``command``, a reserved word
    (``then``, ``do``, ``!`` …) and the prompt's ``$`` of a shell capture
    (``$ echo X | mem …``) may stand first, the name may be quoted
    (``"echo"``) and start a subshell, a group or a substitution (``(echo``,
    ``{ echo``, ``$(echo``, a backtick); their closing ``)`` ``}`` `````
    is no argument."""
    i, head = 0, ""
    while i < len(args):
        w = low[args[i][0]:args[i][1]]
        o = _MEM_OPEN.match(w)
        if o is not None:
            w = w[o.end():]
        elif "=" in w.split("/")[0]:
            w = ""                                 # 'VAR=x echo …'
        if w and w not in _MEM_BEFORE_CMD:
            head = w.strip("'\"\\").rsplit("/", 1)[-1]
            break
        i += 1
    if head not in ("echo", "printf", "yes"):
        return []
    out: list[tuple[int, int]] = []
    for s, e in args[i + 1:]:
        e = s + _unclosed(low[s:e])                # '(echo X)': the subshell's end is no argument
        if e == s:
            continue
        w = low[s:e]
        if _MEM_REDIRECT.match(w):
            break                                  # 'echo X > f': the redirection and its file are no argument
        if (w.startswith("-") and len(w) <= 4) or (head == "printf" and not out and _MEM_FORMAT_ONLY.fullmatch(low, s, e)):
            continue
        out.append((s, e))
    return out


def _written_to(low: str, seg: list[tuple[int, int]], files: list[str]) -> bool:
    """Whether the command of words ``seg`` redirects its output to one of
    ``files`` (``> f``, ``>> f``, ``>f``; quotes ignored)."""
    for i, (s, e) in enumerate(seg):
        w = low[s:e]
        m = _MEM_REDIRECT.match(w)
        if m is None or w.startswith("<"):
            continue
        name = w[m.end():] or (low[seg[i + 1][0]:seg[i + 1][1]] if i + 1 < len(seg) else "")
        if name.strip("'\\\"") in files:
            return True
    return False


def _feeders(low: str, start: int, stop: int, s0: int, e0: int, args: list, words: list,
             files: list[str], stdin: bool) -> list[tuple[int, int]]:
    """What feeds standard input to the command at ``low[start:stop]``
    (module doc): the ``echo`` / ``printf`` arguments of its pipeline
    before it (from the last pipeline start within 1,024 characters), a
    here-string's word, a here-document's lines (those when ``stdin``: its
    standard input carries the secret); and the arguments of an ``echo`` /
    ``printf`` before it (within 1,024 characters) that writes one of
    ``files`` (the files the command reads its secret from: ``echo X > f &&
    mem vault init --passphrase-file f``)."""
    out: list[tuple[int, int]] = []        # from commands that wrote one of files
    pipe: list[tuple[int, int]] = []       # from the commands of the pipeline that ends in this one
    seg: list[tuple[int, int]] = []
    # a subshell, group or substitution ('(echo X; echo Y) | mem …', '{ echo X; } | mem …', '$(echo X | mem …)'):
    # the levels around the current one (their pipe, output, command so far, a closed group's output in it);
    # 'grp' is what every command of this level printed (the group's output), 'pend' a closed group's output
    stack: list[tuple] = []
    grp: list[tuple[int, int]] = []
    pend: list[tuple[int, int]] = []
    for t in _MEM_PIPE_TOK.finditer(low, max(s0, start - 1024), start):
        if t.group("cut") is not None or t.group() == "|":
            printed = _echo_spans(low, seg) + pend
            grp += printed
            if files and _written_to(low, seg, files):
                out += printed + _here_string(low, seg)
            elif stdin and t.group() == "|":
                pipe += printed
            if t.group("cut") is not None:
                pipe = []                  # a new pipeline starts
            seg, pend = [], []
            continue
        opened, closed = _nesting(t.group())
        for _ in range(opened):
            stack.append((pipe, grp, seg, pend))
            pipe, grp, seg, pend = [], [], [], []
        seg.append(t.span())
        for _ in range(closed):
            printed = grp + _echo_spans(low, seg) + pend
            if stack:                      # the group's output is its own command's, in the level around it
                pipe, grp, seg, pend = stack.pop()
                pend = pend + printed
            else:                          # a ')' that closes nothing seen ('a) echo X | mem …' in a case)
                pipe, grp, seg, pend = [], [], [], []
    out += pipe
    if not stdin:
        return out
    for i, w in enumerate(words):
        if w.startswith("<<<"):
            if len(w) > 3:
                out.append((args[i][0] + 3, args[i][1]))
            elif i + 1 < len(args):
                out.append(args[i + 1])
        elif w.startswith("<<"):
            h = HEREDOC.match(low, args[i][0], stop)
            if h is None:
                continue
            out += heredoc_body(low, stop, e0, h.group(1))
    return out


def _here_string(low: str, seg: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The word of a here-string among the words ``seg`` (``cat > f <<< X``: X)."""
    for i, (s, e) in enumerate(seg):
        if low.startswith("<<<", s):
            if e - s > 3:
                return [(s + 3, e)]
            return [seg[i + 1]] if i + 1 < len(seg) else []
    return []


#: a variable's expansion ('$pin', '"${PIN}"'): its name
_MEM_VAR = Lazy(r"\\?[\"']?\$\{?([a-z_][a-z0-9_]*)\}?\\?[\"']?", FLAGS)
#: an assignment word ('PIN=x', "pin='a b'" is 'pin=' and a quoted word): its name
_MEM_ASSIGN = Lazy(r"([a-z_][a-z0-9_]*)=", FLAGS)


def _assigned(low: str, start: int, s0: int, names: set[str]) -> list[tuple[int, int]]:
    """The values given on the line before ``start`` (within 1,024
    characters) to the variables ``names`` a secret value of a mem command
    reads (test18b V4: ``PIN=8181; echo $PIN | mem remember K - --sensitivity
    secret``, ``export PIN=8181 && …``): ``NAME=value`` words, alone or after
    ``export`` / ``local`` / ``declare`` / ``readonly``, a command's prefix."""
    out: list[tuple[int, int]] = []
    toks = [t.span() for t in _MEM_PIPE_TOK.finditer(low, max(s0, start - 1024), start)]
    for i, (s, e) in enumerate(toks):
        a = _MEM_ASSIGN.match(low, s, e)
        if a is None or a.group(1) not in names:
            continue
        if a.end() < e:
            out.append((a.end(), e))
        elif i + 1 < len(toks) and toks[i + 1][0] == e and low[e] in "'\"$\\":
            out.append(toks[i + 1])       # "PIN='a b'": the quoted word after the '='
    return out


def heredoc_body(low: str, stop: int, e0: int, delim: str) -> list[tuple[int, int]]:
    """The lines of a here-document whose command line ends at ``stop``: up
    to the line ``delim`` (blanks around it ignored), or to the end of the
    text or of the JSON string holding it."""
    nl = _MEM_LINE_END.match(low, stop, e0)
    if nl is None or nl.group() == '"':
        return []
    body = p = nl.end()
    while p < e0:
        br = _MEM_LINE_END.search(low, p, e0)
        end = br.start() if br is not None else e0
        if low[p:end].strip(" \t") == delim:
            end = p     # the body ends with the line break before the delimiter's line
            br = _MEM_LINE_END.search(low, max(body, p - 4), p)
            if br is not None and br.end() == p:
                end = br.start()
            break
        if br is None or br.group() == '"':
            break
        p = br.end()
    return [(body, end)] if end > body else []


def _substitution(low: str, a: int, e0: int) -> list[tuple[int, int]]:
    """``--passphrase-file <(echo X)``: the ``echo`` / ``printf`` arguments
    inside the process substitution starting at ``a``."""
    close = low.find(")", a, min(e0, a + 1024))
    return _echo_spans(low, _mem_args(low, a + 2, close)) if close > 0 else []


def _commands(rule: Rule, low: str, s0: int, e0: int):
    """Each command ``rule`` finds in ``low[s0:e0]``: ``(match, where it
    ends, its arguments' spans, its arguments)``; it ends at a line's end,
    ``;``, ``&``, ``|`` or the end of a JSON string (:data:`_MEM_END`); the
    ``)`` / ``}`` / backtick that closes a subshell or substitution around
    it (``$(echo X | mem remember K -)``) is no part of an argument."""
    for m in rule.lowered.finditer(low, s0, e0):
        end = _MEM_END.search(low, m.end(), e0)
        stop = end.start() if end is not None else e0
        args = [(a, a + n) for a, b in _mem_args(low, m.end(), stop) if (n := _unclosed(low[a:b]))]
        yield m, stop, args, [low[a:b] for a, b in args]


def _bare(w: str) -> str:
    """The word ``w`` as the command reads it: its quotes (also ANSI-C
    ``$'…'`` and JSON-escaped) and backslashes removed (``$'secret'``:
    ``secret``)."""
    if w[:2] in ("$'", '$"', "$\\"):
        w = w[1:]
    return w.strip("'\"\\")


def _under_xargs(low: str, start: int, s0: int) -> bool:
    """Whether the command at ``start`` is run by ``xargs`` (``echo X | xargs
    mem scan``): xargs adds what it reads to the end of the command line."""
    under = False
    for t in _MEM_PIPE_TOK.finditer(low, max(s0, start - 256), start):
        w = t.group()
        if t.group("cut") is not None or w == "|":
            under = False
        elif _bare(w).rsplit("/", 1)[-1] == "xargs":
            under = True
    return under


def _again(low: str, spans: list[tuple[int, int]], s0: int, e0: int) -> list[tuple[int, int]]:
    """Every occurrence, on the same line (within 4,096 characters), of a
    value of ``spans`` (quotes removed; one of at least 4 characters on one
    line, as a whole word): the same secret given to another command
    (``mem search "X" && mem forget --match "X"``, ``… ; echo X``)."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        v = _bare(low[a:b])
        if len(v) < 4 or "\n" in v or "\\n" in v or "[redacted:" in v or _MEM_EXPANSION.fullmatch(low, a, b):
            continue
        ls = max(low.rfind("\n", s0, a) + 1, s0, a - 4096)
        le = low.find("\n", b, e0)
        le = min(e0 if le < 0 else le, b + 4096)
        p = low.find(v, ls, le)
        while p >= 0:
            q = p + len(v)
            if not (low[p - 1:p].isalnum() or low[q:q + 1].isalnum()) and not a <= p < b:
                out.append((p, q))
            p = low.find(v, q, le)
    return out


def _emit(rule: Rule, low: str, off: int, spans: list[tuple[int, int]], out: list) -> None:
    """``spans`` as ``rule``'s hits, but a redaction marker (a second pass
    takes nothing) and a value that only expands a variable or reads a file."""
    for a, b in spans:
        if "[redacted:" not in low[a:b] and not _MEM_EXPANSION.fullmatch(low, a, b):
            out.append((a + off, b + off, rule.priority, rule.name))


#: a backslash-newline line continuation, raw or JSON-escaped (``\\\n``): bash removes it before it splits
#: words (bash(1) "QUOTING": "A \\<newline> pair is treated as a line continuation"; test18b V7)
_MEM_CONT = Lazy(r"\\\r?\n|\\\\\\(?:r\\\\)?n", FLAGS)


def _joined(scan):
    """``scan`` (a rule's scan function) run over the text with its line
    continuations (:data:`_MEM_CONT`) removed, as the shell reads it; its
    hits mapped back to the offsets of the text as given (a hit's start after
    a removed continuation, its end before one)."""
    import bisect

    def run(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
        s0, e0 = ws - off, we - off
        if low.find("\\\n", s0, e0) < 0 and low.find("\\\\\\", s0, e0) < 0:
            scan(rule, text, ws, we, out, low, off, at)
            return
        parts, at_j, gone, p = [], [], [0], 0       # at_j[k]: where the k-th removal is in the joined text
        for c in _MEM_CONT.finditer(low, s0, e0):
            parts.append(low[p:c.start()])
            at_j.append(c.start() - gone[-1])
            gone.append(gone[-1] + c.end() - c.start())
            p = c.end()
        if not at_j:
            scan(rule, text, ws, we, out, low, off, at)
            return
        parts.append(low[p:])
        hits: list = []
        # the matcher's offsets (``at``) are those of the text as given: the joined text's scan finds its own
        scan(rule, text, ws, we - gone[-1], hits, "".join(parts), off, None)
        for a, b, prio, name in hits:
            a, b = a - off, b - off
            out.append((a + gone[bisect.bisect_right(at_j, a)] + off, b + gone[bisect.bisect_left(at_j, b)] + off,
                        prio, name))
    run.__doc__ = scan.__doc__
    return run


def _scan_mem_command(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """The values on mem's own command lines (module doc): the command ends
    at a line's end, ``;``, ``&``, ``|`` or the end of a JSON string; its
    arguments are read as a shell splits them (quotes kept with the
    argument)."""
    s0, e0 = ws - off, we - off
    for m, stop, args, words in _commands(rule, low, s0, e0):
        sub = m.group("sub")
        pos: list[int] = []            # the positional arguments
        spans: list[tuple[int, int]] = []
        secret = stdin = False
        files: list[str] = []          # the files it reads a secret from ('--passphrase-file f')
        inputs: list[str] = []         # its standard input's file ('< f'): a secret when stdin is one
        subs: list[int] = []           # its standard input's process substitution ('< <(echo X)')
        take = None
        for i, w in enumerate(words):
            if take is not None:
                v = _bare(w)
                if take == "--sensitivity" and v == "secret":
                    secret = True
                elif take == "--match":
                    spans.append(args[i])
                elif take == "--passphrase-file":
                    stdin = stdin or v == "-"
                    if w.startswith("<("):
                        spans += _substitution(low, args[i][0], e0)
                    elif v != "-":
                        files.append(v)
                elif take == "<":
                    if w.startswith("<("):
                        subs.append(args[i][0])   # '< <(echo X)': standard input from the substitution
                    else:
                        inputs.append(v)
                take = None
            elif w.startswith("--") and w != "--":
                name, eq, val = w.partition("=")
                v = _bare(val)
                if name == "--sensitivity" and v == "secret":
                    secret = True
                elif name == "--match" and v:
                    spans.append((args[i][0] + len(name) + 1, args[i][1]))
                elif name == "--passphrase-file" and v:
                    stdin = stdin or v == "-"
                    if v != "-":
                        files.append(v)
                if (not eq or not val) and name in _MEM_VALUE_OPTS:
                    take = name         # its value is the next argument ('--match X', "--match='X Y'")
            elif w.startswith("<"):
                if w == "<":
                    take = "<"          # standard input from the next word's file
                elif not w.startswith(("<<", "<(")):
                    inputs.append(w[1:].strip("'\"\\"))
                continue                # a here-string, a here-document: read by _feeders
            elif not w.startswith("-") or w in ("-", "--") or (sub == "remember" and len(pos) == 1):
                if w != "--":
                    pos.append(i)       # remember takes '-…' as its VALUE ('-----BEGIN …', cmds/remember.py)
            elif w in ("-o",):
                take = w
        if sub == "scan" and pos:
            spans.append(args[pos[0]])
        valued = sub == "remember" and len(pos) >= 1 and (secret or credential_name(_bare(words[pos[0]])))
        if valued and len(pos) >= 2:
            if words[pos[1]] == "-":
                stdin = True
            else:
                spans.append(args[pos[1]])
        elif sub == "sealed" and len(pos) >= 3 and words[pos[0]] == "import" and words[pos[2]] == "-":
            stdin = True
        if stdin or files:
            spans += _feeders(low, m.start(), stop, s0, e0, args, words, files + inputs if stdin else files, stdin)
        if stdin:
            for a in subs:
                spans += _substitution(low, a, e0)
        if not stdin and (any(low[a:b].strip("'\"\\") == "{}" for a, b in spans)
                          or ((valued and len(pos) == 1 or sub == "forget" and take == "--match"
                               or sub == "scan" and not pos) and _under_xargs(low, m.start(), s0))):
            # 'echo X | xargs -I{} mem forget --match {}' (test18b V8), 'echo X | xargs mem scan', 'echo X | xargs
            # mem remember K --sensitivity secret' (xargs adds X at the end: red20): the value is what feeds xargs
            spans += _feeders(low, m.start(), stop, s0, e0, args, words, [], True)
        names = {v.group(1) for v in (_MEM_VAR.fullmatch(low, a, b) for a, b in spans) if v is not None}
        if names:
            spans += _assigned(low, m.start(), s0, names)
        _emit(rule, low, off, spans + _again(low, spans, s0, e0), out)


#: age(1) and the options of it that take a value (https://github.com/FiloSottile/age, age(1): -r, -R, -i, -o)
_AGE = r"age(?<![a-z0-9_\-.]age)(?=[ \t]{1,4}-)"
_AGE_VALUE_OPTS = frozenset(("-r", "-R", "-i", "-o", "--recipient", "--recipients-file", "--identity", "--output"))


def _scan_age_input(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """What ``age`` encrypts from standard input (test18 U1 addendum: ``echo
    X | age -r age1… -o f.age``, the way a value is sealed for ``mem sealed
    import``): with a recipient (``-r``, ``-R``), ``-e`` or ``-p`` and no
    input file, the ``echo`` / ``printf`` before it in the pipeline, a
    here-string, a here-document (:func:`_feeders`); with an input file,
    an ``echo`` / ``printf`` before it that wrote that file.  Decrypting
    (``-d``) reads a ciphertext: nothing."""
    s0, e0 = ws - off, we - off
    for m, stop, args, words in _commands(rule, low, s0, e0):
        encrypt, inputs, take = False, [], None
        for w in words:
            if take is not None:
                if take == "<":
                    inputs.append(w.strip("'\"\\"))
                take = None
            elif w.startswith("<<"):
                take = "<<<" if w == "<<<" else None     # a here-string's word, a here-document: read by _feeders
            elif _MEM_REDIRECT.match(w):
                r = _MEM_REDIRECT.match(w)
                if w.startswith("<") and len(w) > 1:
                    inputs.append(w[1:].strip("'\"\\"))
                elif len(w) == r.end():
                    take = "<" if w == "<" else ">"      # the file of '< f' is its input, of '> f' its output
            elif w in ("-d", "--decrypt"):
                encrypt = False
                break
            elif w.startswith("-") and w != "-":
                name = w.split("=", 1)[0]
                if name in ("-r", "-R", "-e", "-p", "--recipient", "--recipients-file", "--encrypt", "--passphrase") \
                        or (len(w) > 2 and w[1] != "-" and any(c in w[1:] for c in "rRep")):
                    encrypt = True
                if name in _AGE_VALUE_OPTS and "=" not in w or (len(w) > 2 and w[1] != "-" and w[-1] in "rRio"):
                    take = name
            elif not w.startswith("<("):
                inputs.append(w.strip("'\"\\"))
        if not encrypt:
            continue
        stdin = not [f for f in inputs if f != "-"]
        _emit(rule, low, off, _feeders(low, m.start(), stop, s0, e0, args, words, inputs, stdin), out)


#: the rule, one entry per launcher (each pattern starts with its own literal: ``re`` searches for it)
MEM_COMMAND_RULES: list[Rule] = [
    make_rule("mem-command",
              "mem's own command lines (docs/cli.md): the VALUE of 'mem remember KEY VALUE --sensitivity secret' "
              "or of a KEY named for a credential, the TEXT of 'mem forget --match TEXT' and 'mem scan TEXT' "
              "(test17 T10), what feeds 'remember KEY -', 'sealed import KEY -' and '--passphrase-file -' "
              "(echo/printf, here-string, here-document); mem run as a path, a variable or 'python -m cmds' (red18)",
              launcher + _MEM_HOME + _MEM_SUBS, ci=True, priority=44, anchors=anchors, scan=_joined(_scan_mem_command))
    for launcher, anchors in _MEM_LAUNCHERS
] + [
    make_rule("age-input",
              "what age(1) encrypts from standard input, given on the same command line: 'echo|printf X | age -r "
              "RECIPIENT', 'age -p <<< X', 'echo X > f && age -r R f' (the value a person seals for 'mem sealed import'; "
              "test18 U1) https://github.com/FiloSottile/age",
              _AGE, ci=True, priority=44, anchors=("age -",), scan=_joined(_scan_age_input)),
]
