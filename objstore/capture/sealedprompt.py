"""A "remember that …" prompt on a sealed key, captured with its value
withheld: :func:`withhold_sealed`, the capture's ``TurnAppender(withhold=)``
(every capture path: the prompt hook, the Stop hook's and ``mem import``'s
transcript sync, the proxy).  Split from :mod:`objstore.capture.statements`,
whose statement and take-back reading it uses (session 34: a take-back
sent as the session's next prompt is withheld too, test33b T9).
"""

from __future__ import annotations

from objstore.capture.statements import (CUE_WORDS, STATEMENT_CUE, TAKE_BACK_RE, next_take_back, statement_key,
                                         statement_of)
from objstore.capture.statementkey import name_before
from objstore.core.store import Store
from objstore.core.text import LazyPattern

TYPE_CHECKING = False  # typing's, without importing typing on a start-up path (docs/benchmarks.md, session 16)
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["take_backs_withheld", "withhold_sealed"]

#: what the password rules leave (``objstore.core.redact``): a take-back in the next prompt says the new password
PASSWORD_MARK = "[REDACTED:password-phrase]"
#: a password's and a PIN's statement put before a take-back line, so that the one redaction reads the line's new
#: value as it reads one in the same prompt (``… is OLD. Sorry, I mean NEW``): its own marker is cut off again
_SAID = ("the password is Zq9x7Lk2Wm.\n", "the pin is 482913.\n")


def take_backs_withheld(text: str, marker: str) -> str:
    """``text`` with each of its lines that a take-back opens
    (:func:`~objstore.capture.statements.next_take_back`: "Actually, X",
    "Sorry, I mean X", "Correction: the vendor code is X") replaced by
    ``marker`` whole; the other lines as they are (a str, the same number of
    lines)."""
    return "\n".join(marker if next_take_back(f".\n{ln}") else ln for ln in text.split("\n"))


def withhold_sealed(store: Store, text: str, previous: Callable[[], frozenset[str]] | None = None) -> str:
    """``text`` with its stated value withheld (``[REDACTED:sealed-value]``,
    ``sessions.withhold_value``) when it is a "remember that …" prompt
    (:func:`~objstore.capture.statements.statement_of`) whose key is sealed: ``user/remembered/<name>``
    or ``project/<p>/remembered/<name>`` for any project ``p`` (the turn's
    project is not known here: a sealed name in any project withholds),
    else ``text`` unchanged (test31 U7: the hook answered "Not stored …
    a plain write would store a value of it in the clear" while the prompt
    itself was captured, indexed and recalled in the clear).  Decided from
    the text alone, so every capture path (the prompt hook, the Stop hook's
    and ``mem import``'s transcript sync, the proxy) stores the same text and
    no file records the prompt; the whole line after the cue is withheld
    (what follows the statement may say the value again, and a take-back
    names the key by the statement first said: test32b Y9).

    ``previous`` (a user turn: the caller, ``TurnAppender``, knows its
    session): only the lines of ``text`` a take-back opens, its first too,
    are read (:func:`take_backs_after`), and ``previous()`` (the redaction
    markers of the session's previous prompt) is called only when one does.
    The capture's ``TurnAppender(withhold=)``.
    Raises OSError."""
    if previous is not None:
        return take_backs_after(text, previous)
    what = statement_of(text)
    lead = len(text) - len(text.lstrip())
    first, nl, tail = text[lead:].partition("\n")
    back = cue = None
    if what is None and first.isascii() and not any(w in first.lower() for w in CUE_WORDS):
        return text   # (most prompts: no cue word)
    cue = STATEMENT_CUE.search(first)
    if cue is not None:
        back = TAKE_BACK_RE.search(first, cue.start("what") + 3)
    # the statement as first said, before a take-back: its key is the one the person named, whatever the
    # take-back's reading ("… 5555. My mistake, I told you <sealed> yesterday", "Actually, it's X": test32b Y9)
    nxt = next_take_back(text)   # a take-back on the next line says the value too (test32b Y2, Y7)
    said = statement_of(first[:back.start()] if back is not None else first) if back is not None or nxt else None
    names = {statement_key(w, None).split("/remembered/", 1)[1] for w in (what, said) if w}
    names |= {n for w in (what, said) if w and (n := name_before(w))}   # a key sealed as an older version named it
    if not names:
        return text
    for ref, _oid in store.refs.iter("sealed", damaged=[]):
        key = ref[len("sealed/"):] if ref.startswith("sealed/") else ref
        scope, sep, rest = key.partition("/remembered/")
        if sep and rest in names and (scope == "user" or (scope.startswith("project/") and scope.count("/") == 1)):
            # the whole line after the cue: what follows the statement may say the value again ("Actually,
            # it's X", "I mean X", a correction: test32b Y9); and each later line a take-back opens, after a blank
            # line too ("… X" LF LF "Correction: the vendor code is Y": test33b T9)
            tail = take_backs_withheld(tail, _withheld())
            return text[:lead] + (first[:cue.start("what")] if cue else "") + _withheld() + nl + tail
    return text


def take_backs_after(text: str, previous: Callable[[], frozenset[str]]) -> str:
    """``text``, a prompt, with what its take-back lines say withheld when
    ``previous()`` (the redaction markers of the session's previous prompt,
    a set of str) holds a sealed value's or a password's: "Sorry, I mean X"
    sent as the next prompt is that statement's new value (test33b T9).  A
    line a take-back opens is withheld whole after
    ``[REDACTED:sealed-value]`` (:func:`take_backs_withheld`), its new value
    redacted as a password's after :data:`PASSWORD_MARK` (the one
    redaction, ``objstore.core.redact.redact``, reading it after a password
    statement: "Sorry, I mean [REDACTED:password-phrase]"); else ``text``
    unchanged, and ``previous`` is not called when no line opens with a
    take-back (most prompts).  Returns a str."""
    lines = text.split("\n")
    backs = [i for i, ln in enumerate(lines) if next_take_back(f".\n{ln}")]
    bare = not backs and _password_shaped(text)
    if not backs and not bare:
        return text
    marks = previous()
    if _withheld() in marks:
        return take_backs_withheld(text, _withheld())
    if PASSWORD_MARK not in marks:
        return text
    if bare:   # the new password alone as the whole next prompt (test34b T9: "Beta#456q" stored in the clear)
        lead = len(text) - len(text.lstrip())
        return text[:lead] + PASSWORD_MARK + text[lead + len(text.strip().rstrip(_TRAIL)):]
    from objstore.core.redact import redact  # defer: a take-back after a password only
    for i in backs:
        for head in _SAID:   # (a PIN's new value is no password's shape: "Sorry, I mean 4822")
            said, got = redact(head).text, redact(head + lines[i]).text
            if got.startswith(said) and got[len(said):] != lines[i]:
                lines[i] = got[len(said):]
                break
        else:   # a wording the redaction does not read ("no wait, it ends in 456q: Beta#456q", "whoops, it
            # should be Beta#456q": test34b T9): each word of the line shaped as a password
            lines[i] = " ".join(PASSWORD_MARK + w[len(w.rstrip(_TRAIL)):] if _password_shaped(w) else w
                                for w in lines[i].split(" "))
    return "\n".join(lines)


#: a word shaped as a password that names a thing (test35b T6: redacted for good after a password prompt): a
#: file name ("config.yaml", "README.md"), a version ("v2.3.1"), a reference ("PR#1234", "#1234"), an e-mail
_NAMED = LazyPattern(r"[\w.-]*\w\.(?:json|ya?ml|toml|md|txt|rst|py|js|ts|tsx|jsx|go|rs|rb|java|kt|c|h|cc|cpp|cs|sh|"
                     r"sql|html?|css|lock|env|ini|cfg|conf|xml|csv|log|pdf|png|jpe?g|svg|gz|zip|tar|proto|tf)|v?\d+(?:\.\d+)+(?:-\w+)?|[A-Za-z]*#\d+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
#: a product's name written with a capital inside (test35b T6: "… on GitHub", a bare "PostgreSQL" redacted for good
#: after a password prompt), compared case aside; a word of letters alone that is all capitals ("README", "GRAPHQL")
#: is an acronym or a shout, no password either
_PRODUCT_NAMES = frozenset('''
github gitlab bitbucket postgresql mysql sqlite mongodb mariadb dynamodb cockroachdb clickhouse couchdb influxdb
rabbitmq zeromq activemq graphql javascript typescript coffeescript nodejs nextjs nestjs vuejs fastapi numpy scipy
pytorch tensorflow openai openapi youtube linkedin wordpress powershell vscode intellij pycharm webstorm phpstorm
goland rubymine digitalocean bigquery nosql oauth websocket websockets devops pagerduty circleci travisci teamcity
jenkinsci cloudformation elasticsearch opensearch keycloak sonarqube docusign hubspot macos iphone ipad icloud
mailchimp sendgrid stackoverflow dockerhub testflight xcode jetbrains javadoc junit pytest phpunit
'''.split())
#: what may close a word or a prompt after a value ("Beta#456q." "Beta#456q!")
_TRAIL = ".,;:!?)\"'"


def _password_shaped(text: str) -> bool:
    """One word (no blank inside) of 6+ characters, once its closing
    punctuation is cut, holding a digit, a symbol or a capital past its
    first character ("Beta#456q", "hunter22", "sunShine"; an apostrophe or
    a hyphen is no symbol: "doesn't", "re-run"): read, after a prompt whose
    password was redacted, as that password's new value; not "continue",
    "yes", "ok", "Thanks!", a URL (test34b T9), nor a file name, a version,
    a "#1234" reference or an e-mail address (:data:`_NAMED`, test35b T6),
    a product's name of letters alone ("GitHub", "PostgreSQL":
    :data:`_PRODUCT_NAMES`) nor a word of capitals alone ("README")."""
    w = text.strip().rstrip(_TRAIL)
    if w.isalpha() and (w.isupper() or w.casefold() in _PRODUCT_NAMES):
        return False   # "GitHub", "PostgreSQL", "README": a name, its capitals no password's (test35b T6)
    return (len(w) >= 6 and not any(c.isspace() for c in w) and "://" not in w and _NAMED.fullmatch(w) is None
            and any(c.isdigit() or (not c.isalnum() and c not in "-'\u2019") or (c.isupper() and i)
                    for i, c in enumerate(w)))


def _withheld() -> str:
    """``sessions.WITHHELD`` (imported when a value is withheld: most prompts withhold none)."""
    from objstore.memory.sessions import WITHHELD  # defer: a sealed name's statement only
    return WITHHELD
