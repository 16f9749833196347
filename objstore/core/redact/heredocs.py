"""red23 (tester finding Y4): a secret a here-document feeds to a secret store
that reads it from standard input (bash(1) "Here Documents",
https://www.gnu.org/software/bash/manual/bash.html#Here-Documents ): the store on
the operator's line (``gh secret set N <<EOF`` LF ``value`` LF ``EOF``), or at
the end of the pipeline the here-document feeds (``cat <<EOF | gh secret set N``).
The stores are the echo-pipe rule's (:data:`.commandline.PIPE_STORE_CMDS`) and
the here-string rule's; the document's lines are read by mem's own here-document
reader (:func:`.memcommand.heredoc_body`: raw or JSON-escaped line breaks, the
delimiter line, the end of a JSON string).  Its own module: commandline.py is
near the 40 KB limit."""

from __future__ import annotations

from objstore.core.redact.checks import is_placeholder
from objstore.core.redact.commandline import PIPE_STORE_CMDS, STDIN_SECRET_CMDS
from objstore.core.redact.memcommand import HEREDOC, heredoc_body
from objstore.core.redact.rule import FLAGS, Lazy, Rule, make_rule
from objstore.core.redact.scanners import anchor_offsets

#: the stores, anywhere on the operator's line (lowercased text)
_STORE = Lazy(r"(?<![a-z0-9_.\-])(?:" + PIPE_STORE_CMDS + "|" + STDIN_SECRET_CMDS + ")", FLAGS)
#: a run of '<' (a here-string's '<<<', or more)
_LT_RUN = Lazy(r"<+", FLAGS)
#: a line break: raw, or escaped in a JSON string
_LINE_BREAKS = ("\n", "\\n")
#: how far (characters) before and after the operator its command line is read
_LINE_SPAN = 512
#: how far (characters) past its operator's line a here-document's body is read: a later ``<<`` inside what was
#: read is not tried again, so a window costs a bounded read per body (``gh secret set <<a`` LF repeated is linear)
_BODY_MAX = 65536
#: what ends a pipeline on a line (bash(1) "Lists"): the store must be in the operator's pipeline
_LIST_OPS = (";", "&&", "||")


def _line_start(low: str, p: int, s0: int) -> int:
    """The start of the command line holding offset ``p`` (at most :data:`_LINE_SPAN` back)."""
    lo = max(s0, p - _LINE_SPAN)
    return max([lo] + [i + len(b) for b in _LINE_BREAKS if (i := low.rfind(b, lo, p)) >= 0])


def _next_break(low: str, p: int, e0: int) -> int:
    """The offset of the first line break (raw or JSON-escaped) in ``low[p:e0]``, or ``e0``."""
    ends = [i for i in (low.find(b, p, e0) for b in _LINE_BREAKS) if i >= 0]
    return min(ends) if ends else e0


def scan_heredoc_store(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """Each ``<<`` (not ``<<<``) of the window whose command line names a
    secret store: the here-document's body, unless it is empty or a whole
    placeholder or reference (``$TOKEN``, ``${PW}``, ``changeme``).  ``low``:
    the lowercased window, ``off`` its offset in ``text``; appends
    ``(start, end, priority, name)`` spans of ``text`` to ``out``."""
    s0, e0 = ws - off, we - off
    done = s0          # the end of the last body read: a '<<' inside it is the body's text
    brk = s0 - 1       # the next line break after the last operator (found once per line: '<<a' repeated is linear)
    for p in anchor_offsets(at, low, ("<<",), s0, e0):
        if p < done:
            continue
        if low.startswith("<<<", p) or low[p - 1:p] == "<":   # a here-string, or a run of '<': skipped whole
            done = _LT_RUN.match(low, p, e0).end()
            continue
        if (h := HEREDOC.match(low, p, e0)) is None:
            continue
        if brk < h.end(1):                        # from the delimiter: HEREDOC may take a JSON escape's backslash
            brk = _next_break(low, h.end(1), e0)
        if brk >= e0 or brk - h.end(1) > _LINE_SPAN:
            continue
        stop = brk
        ls = _line_start(low, p, s0)
        a = max([ls] + [i + len(o) for o in _LIST_OPS if (i := low.rfind(o, ls, p)) >= 0])
        b = min([stop] + [i for o in _LIST_OPS if (i := low.find(o, h.end(), stop)) >= 0])
        if _STORE.search(low, a, b) is None:   # 'cat <<EOF > notes.md && gh secret set N < f': not the store's
            continue
        bodies = heredoc_body(low, stop, min(e0, stop + _BODY_MAX), h.group(1))
        done = max([stop] + [e for _s, e in bodies])
        for s, e in bodies:
            v = text[s + off:e + off].strip()
            if v and not is_placeholder(v):
                out.append((s + off, e + off, rule.priority, rule.name))


HEREDOC_RULES: list[Rule] = [
    make_rule("cli-password",
              "a here-document fed to a secret store that reads standard input (red23, tester finding Y4): 'gh "
              "secret set N <<EOF', 'cat <<EOF | gh secret set N', and the stores of the echo-pipe and here-string "
              "rules; bash(1) 'Here Documents' https://www.gnu.org/software/bash/manual/bash.html#Here-Documents",
              r"<<", priority=45, scan=scan_heredoc_store, anchors=("<<",)),
]
