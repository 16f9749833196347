"""The ``mem-command`` rule of :mod:`objstore.core.redact`'s table: the values on mem's own
command lines, which the shell hook and an agent's Bash tool call capture verbatim (test17 T10,
red17; every way to run mem and every argument that carries a secret: red18).

What is a value (docs/cli.md of each command):

* ``mem remember KEY VALUE`` when the command says ``--sensitivity secret`` or KEY names a
  credential (:func:`~.scanners.credential_name`: ``…/github-token``, ``…/db-password``): VALUE,
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

How mem is run (:data:`_LAUNCHERS`): ``mem`` as a word or a path's last part
(``/opt/bin/mem``, ``env MEM_HOME=x mem``), a variable naming it (``$M``, ``"$MEM"``,
``${MEM_BIN}``) and the checkout's module (``python -m cmds``); ``--home DIR`` may stand before
the command.  A VALUE that only expands a variable or reads a file (``"$TOKEN"``,
``"$(cat f)"``, ``$(< f)``) holds no secret in the text and is kept, as is a redaction marker
(a second pass takes nothing)."""

from __future__ import annotations

from objstore.core.redact.rule import FLAGS, Lazy, Rule, make_rule
from objstore.core.redact.scanners import credential_name

#: the commands whose arguments may carry a value (the sub-command word after the launcher)
_SUBS = r"(?P<sub>remember|forget|scan|sealed|seal|unseal|vault)(?![a-z0-9_\-])"
#: '--home DIR' / '--home=DIR' between the launcher and the command
_HOME = r"(?:[ \t]{1,4}--home(?:=|[ \t]{1,4})[^\s;|&\"']{1,256}+)?[ \t]{1,4}"
#: (launcher pattern over the lowercased text, its anchors): each pattern starts with a literal
#: ('mem', '$', '-m') that ``re`` searches for; the anchors gate the window (every match holds one).  A
#: variable is one that names mem: '$M', '$MEM', '$MEM_BIN', '${MEM}' ('$DOCKER scan image' is none; the
#: words remember/forget/scan as anchors would hand the matcher most transcript lines)
_LAUNCHERS = (
    (r"mem(?<![a-z0-9_\-.]mem)", ("mem remember", "mem forget", "mem scan", "mem --home", "mem seal",
                                  "mem unseal", "mem vault")),
    (r"\$(?:\{(?:m|mem[a-z0-9_]{0,60})\}|(?:m|mem[a-z0-9_]{0,60}+)(?![a-z0-9_]))(?:\\?\")?",
     ("$m ", "$m\"", "$m\\", "${m}", "$mem", "${mem")),
    (r"-m[ \t]{1,4}cmds(?![a-z0-9_.\-])", ("-m cmds",)),
)
#: where the command ends: a line's end (or its JSON escape), ';', '&', '|', a JSON string's end ('"}', '",')
_END = Lazy(r"\n|\r|\\[nr]|;|&|\||\"(?=[ \t]*[,}\]])", FLAGS)
#: the words of a pipeline before a command, as a shell reads them: a ``cut`` where one starts (a line's end or
#: its JSON escape, ';', '&&', '||', '&', a JSON string's start '"command": "'), a quoted word (a line break
#: inside it is none; not a JSON key), a command substitution, a pipe's '|', a run of other characters
_PIPE_TOK = Lazy(r"(?P<cut>\r|\n|\\[nr]|;|&&|\|\||&|\":[ \t]{0,4}\")|\$\([^()\n]{0,256}\)|'[^'\n]*'"
                 r"|\\\"(?:[^\\\n]|\\(?!\"))*\\\"|\"[^\"\n]*\"(?![ \t]*:)|\||[^\s'\"|;&\\]+|\\", FLAGS)
#: one argument: a command substitution, a pipe's '|', quoted ('…', "…", a JSON-escaped \"…\"), or a run of other characters
_ARG = Lazy(r"\$\([^()\n]{0,256}\)|'[^'\n]*'|\\\"(?:[^\\\n]|\\(?!\"))*\\\"|\"[^\"\n]*\"|\||[^\s'\"|]+", FLAGS)
#: the options that take a value (cmds/remember.py, forget.py, scan.py, sealed.py, _vault.py)
_VALUE_OPTS = frozenset(("--kind", "--trust", "--sensitivity", "--valid-from", "--expect", "--relates-to",
                         "--contradicts", "--derived-from", "--rollup-of", "--session", "--agent", "--file",
                         "--home", "--match", "--passphrase-file", "--version", "-o", "--output"))
#: a value that only expands a variable or reads a file ('"$TOKEN"', '"$(cat f)"', '$(< f)'): no secret in the text
_EXPANSION = Lazy(r"\\?[\"']?(?:\$[a-z_][a-z0-9_]*|\$\{[a-z_][a-z0-9_]*\}|\$\([ \t]*(?:cat[ \t]+|<[ \t]*)"
                  r"[^\s()|;&]+[ \t]*\))\\?[\"']?", FLAGS)
#: a printf format of '%s' and escapes alone (printf '%s\n' X): kept
_FORMAT_ONLY = Lazy(r"\\?[\"']?(?:%[sb]|\\+[nrt0])+\\?[\"']?", FLAGS)
#: a here-document operator and its delimiter ('<<EOF', "<<-'EOF'", '<< "END"')
_HEREDOC = Lazy(r"<<-?[ \t]{0,4}\\?[\"']?([a-z_][a-z0-9_]{0,31})\\?[\"']?", FLAGS)
#: a here-document's line end: a line break, raw or JSON-escaped, or the end of the JSON string holding it
_LINE_END = Lazy(r"\r?\n|\\r\\n|\\n|(?<!\\)\"(?=[ \t]*[,}\]])", FLAGS)


def _args(low: str, a: int, b: int) -> list[tuple[int, int]]:
    """The arguments of ``low[a:b]`` as a shell splits them (quotes kept with each)."""
    return [(m.start(), m.end()) for m in _ARG.finditer(low, a, b)]


def _echo_spans(low: str, args: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The arguments an ``echo`` / ``printf`` command of arguments ``args``
    prints (its options and a ``%s``-only printf format left out); none for
    any other command.  ``VAR=x``, ``builtin`` and ``command`` may stand
    first, and a subshell's ``(`` / ``{``, and the prompt's ``$`` of a
    shell capture (``$ echo X | mem …``)."""
    i = 0
    while i < len(args) and (low[args[i][0]:args[i][1]] in ("$", "builtin", "command", "(", "{")
                             or "=" in low[args[i][0]:args[i][1]].split("/")[0]):
        i += 1
    if i >= len(args):
        return []
    head = low[args[i][0]:args[i][1]].lstrip("({").rsplit("/", 1)[-1]
    if head not in ("echo", "printf"):
        return []
    out: list[tuple[int, int]] = []
    sub = low[args[i][0]] in "({"
    for s, e in args[i + 1:]:
        if sub:
            e = s + len(low[s:e].rstrip(")}"))    # '(echo X)': the subshell's end is no argument
        w = low[s:e]
        if (w.startswith("-") and len(w) <= 4) or (head == "printf" and not out and _FORMAT_ONLY.fullmatch(low, s, e)):
            continue
        out.append((s, e))
    return out


def _feeders(low: str, start: int, stop: int, s0: int, e0: int, args: list, words: list) -> list[tuple[int, int]]:
    """What feeds standard input to the command at ``low[start:stop]``
    (module doc): the ``echo`` / ``printf`` arguments of its pipeline
    before it (from the last pipeline start within 1,024 characters), a
    here-string's word, a here-document's lines."""
    out: list[tuple[int, int]] = []
    seg: list[tuple[int, int]] = []
    for t in _PIPE_TOK.finditer(low, max(s0, start - 1024), start):
        if t.group("cut") is not None:
            seg = []
        elif t.group() == "|":
            out += _echo_spans(low, seg)
            seg = []
        else:
            seg.append(t.span())
    for i, w in enumerate(words):
        if w.startswith("<<<"):
            if len(w) > 3:
                out.append((args[i][0] + 3, args[i][1]))
            elif i + 1 < len(args):
                out.append(args[i + 1])
        elif w.startswith("<<"):
            h = _HEREDOC.match(low, args[i][0], stop)
            if h is None:
                continue
            out += _heredoc(low, stop, e0, h.group(1))
    return out


def _heredoc(low: str, stop: int, e0: int, delim: str) -> list[tuple[int, int]]:
    """The lines of a here-document whose command line ends at ``stop``: up
    to the line ``delim`` (blanks around it ignored), or to the end of the
    text or of the JSON string holding it."""
    nl = _LINE_END.match(low, stop, e0)
    if nl is None or nl.group() == '"':
        return []
    body = p = nl.end()
    while p < e0:
        br = _LINE_END.search(low, p, e0)
        end = br.start() if br is not None else e0
        if low[p:end].strip(" \t") == delim:
            end = p     # the body ends with the line break before the delimiter's line
            br = _LINE_END.search(low, max(body, p - 4), p)
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
    return _echo_spans(low, _args(low, a + 2, close)) if close > 0 else []


def _scan(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """The values on mem's own command lines (module doc): the command ends
    at a line's end, ``;``, ``&``, ``|`` or the end of a JSON string; its
    arguments are read as a shell splits them (quotes kept with the
    argument)."""
    s0, e0 = ws - off, we - off
    for m in rule.lowered.finditer(low, s0, e0):
        end = _END.search(low, m.end(), e0)
        stop = end.start() if end is not None else e0
        args = _args(low, m.end(), stop)
        words = [low[a:b] for a, b in args]
        sub = m.group("sub")
        pos: list[int] = []            # the positional arguments
        spans: list[tuple[int, int]] = []
        secret = stdin = False
        take = None
        for i, w in enumerate(words):
            if take is not None:
                v = w.strip("'\"\\")
                if take == "--sensitivity" and v == "secret":
                    secret = True
                elif take == "--match":
                    spans.append(args[i])
                elif take == "--passphrase-file":
                    stdin = stdin or v == "-"
                    if w.startswith("<("):
                        spans += _substitution(low, args[i][0], e0)
                take = None
            elif w.startswith("--") and w != "--":
                name, eq, val = w.partition("=")
                v = val.strip("'\"\\")
                if name == "--sensitivity" and v == "secret":
                    secret = True
                elif name == "--match" and v:
                    spans.append((args[i][0] + len(name) + 1, args[i][1]))
                elif name == "--passphrase-file" and v:
                    stdin = stdin or v == "-"
                if (not eq or not val) and name in _VALUE_OPTS:
                    take = name         # its value is the next argument ('--match X', "--match='X Y'")
            elif w.startswith("<"):
                continue                # a redirection ('< f.txt', '<<< X', '<<EOF'): read by _feeders
            elif not w.startswith("-") or w in ("-", "--") or (sub == "remember" and len(pos) == 1):
                if w != "--":
                    pos.append(i)       # remember takes '-…' as its VALUE ('-----BEGIN …', cmds/remember.py)
            elif w in ("-o",):
                take = w
        if sub == "scan" and pos:
            spans.append(args[pos[0]])
        elif sub == "remember" and len(pos) >= 2 and (secret or credential_name(words[pos[0]].strip("'\"\\"))):
            if words[pos[1]] == "-":
                stdin = True
            else:
                spans.append(args[pos[1]])
        elif sub == "sealed" and len(pos) >= 3 and words[pos[0]] == "import" and words[pos[2]] == "-":
            stdin = True
        if stdin:
            spans += _feeders(low, m.start(), stop, s0, e0, args, words)
        for a, b in spans:
            if "[redacted:" not in low[a:b] and not _EXPANSION.fullmatch(low, a, b):
                out.append((a + off, b + off, rule.priority, rule.name))


#: the rule, one entry per launcher (each pattern starts with its own literal: ``re`` searches for it)
MEM_COMMAND_RULES: list[Rule] = [
    make_rule("mem-command",
              "mem's own command lines (docs/cli.md): the VALUE of 'mem remember KEY VALUE --sensitivity secret' "
              "or of a KEY named for a credential, the TEXT of 'mem forget --match TEXT' and 'mem scan TEXT' "
              "(test17 T10), what feeds 'remember KEY -', 'sealed import KEY -' and '--passphrase-file -' "
              "(echo/printf, here-string, here-document); mem run as a path, a variable or 'python -m cmds' (red18)",
              launcher + _HOME + _SUBS, ci=True, priority=44, anchors=anchors, scan=_scan)
    for launcher, anchors in _LAUNCHERS
]
