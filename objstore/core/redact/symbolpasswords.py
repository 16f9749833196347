"""A password holding a symbol after its label (test27 V30): ``Password: Zq7"mm2x!``,
``DB_PASS=Zq7'mm2x!``, ``passwd=Hx8(kq)Lm3``, ``the password is Tk9,xm2!``.

The label, ``KEY=`` and prose rules of :mod:`.rules` and :mod:`.passwords` end a value at a quote, a
backslash or ``; | < > ( ) { } [ ] , /`` (there a value usually ends in code), so a generated password
holding one was kept whole, or its tail after the first match (``Zq7mm2x;9`` kept ``;9``).  The rule here
takes the whole token after an explicit password label (``password``, ``passwd``, ``passwort``,
``passphrase``, ``pwd``, ``…_PASS``) and ``:``, ``=`` or ``is|was``, when a symbol stands *inside* it.  A
token ends at a blank or the end of the text; the quotes that close a JSON or shell string around it
(``echo \\"Password: Zq7\\\\\\"mm2x!\\""``: a tool call stored JSON-escaped) and trailing sentence
punctuation are left out of it.  :func:`symbol_password_ok` tells it from code (``password=get(x)``,
``pwd=os.getenv("PW")``, ``password=f(a,b)``), references, paths and URLs."""

from __future__ import annotations

from objstore.core.redact.checks import is_placeholder
from objstore.core.redact.rule import Rule, make_rule
from objstore.core.rxcache import DOTALL, compile_pattern

#: the symbols that stop the other rules' values: one of them inside a token makes this rule's case
_INNER = frozenset("\"'`\\;|<>(){}[],/")
_LETTER = compile_pattern(r"[A-Za-z]")
_ESCAPED_LINE_END = compile_pattern(r"\\[nrt]")
_DIGIT_OR_SYMBOL = compile_pattern(r"[^A-Za-z]")
#: code, not a password: a call or a subscript that closes the token (``get(x)``, ``env["PW"]``,
#: ``f(a,b)``), a string concatenation or a format
#: (also one whose closing quote and bracket the token left out: ``form['password``, ``partition(':``)
_CODE = compile_pattern(r"[A-Za-z_][\w.]*(?:\(.*\)|\[.*\]|[(\[](?:[rbfuRBFU]{0,2}[\"'`].*|[\w.\-]*))[,;]?"
                   r"|.*\b(?:os\.env(?:iron)?|getenv|input|getpass)\b.*", DOTALL)

#: a name right before a bracket: code when it is dotted, snake_case or has no digit (a password's head has one)
_CALL = compile_pattern(r"([A-Za-z_][\w.]*)[(\[]")

_LABEL = (r"(?:passw(?<![A-Za-z0-9\-]passw)(?:or)?d|passwort(?<![A-Za-z0-9\-]passwort)"
          r"|passphrase(?<![A-Za-z0-9\-]passphrase)|pwd(?<![A-Za-z0-9\-_]pwd)|pass(?<=_pass))(?![A-Za-z0-9])")
_LINK = r"(?:[ \t]{0,8}(?::|=)[ \t]{0,8}|[ \t]{1,4}(?:is|was)[ \t]{1,4}(?::[ \t]{1,4})?)"
#: the token, lazily, then what may close it: quotes (each after up to 3 backslashes) and then sentence or
#: bracket punctuation, or sentence punctuation alone (a bracket that closes the token is part of it, so that
#: a call or subscript is seen whole: ``get(user)``), then a blank, an escaped line end or the end
_END = r"(?:\\{1,3}[nrt]|\s|$|…)"   # (… starts a cut mark, "…[cut N chars]": never read into it)
_TOKEN = (r"(?P<secret>[^\s\"'`\\…][^\s…]{2,255}?)(?=(?:\\{0,3}[\"'`])+[.,;:?)}\]]*" + _END
          + r"|[.,;:?]*" + _END + ")")


def symbol_password_ok(v: str) -> bool:
    """True when ``v`` (a token after a password label, at least 3 characters) is a password that
    holds a symbol the other rules stop at (:data:`_INNER`) before its last character, and besides
    those symbols letters with digits or other symbols (not words joined by them: ``read/write``), 4 to 256 characters, not a reference (``$PW``, ``%s``, ``{pw}``,
    ``<pw>``), a path or URL (``/etc/pw``, ``~/x``, ``a://b``), a whole placeholder
    (:func:`.checks.is_placeholder`), nor code (``get(x)``, ``env["PW"]``, ``os.getenv(…)``)."""
    if not (4 <= len(v) <= 256) or v[0] in "$%/~.#{<*([&@=:":
        return False
    if _INNER.isdisjoint(v[:-1]) or "://" in v or _LETTER.search(v) is None:
        return False
    if _ESCAPED_LINE_END.search(v):
        return False                          # 'password = -1\\n    if …': a JSON-escaped line end, not a password
    if _DIGIT_OR_SYMBOL.search("".join(c for c in v if c not in _INNER)) is None:
        return False                          # words joined by symbols ('read/write', 'yes,no', "don't")
    call = _CALL.match(v)
    if call and ("." in call[1] or "_" in call[1] or not any(c.isdigit() for c in call[1])):
        return False                          # 'self.get(\"x', 'Cache(result=path': a call, not 'Hx8(kq)Lm3'
    if _CODE.fullmatch(v) or is_placeholder(v):
        return False
    return True


#: the rule, placed in ``passwords.PASSWORD_RULES``
SYMBOL_PASSWORD_RULES: list[Rule] = [
    make_rule("generic-secret",
              "keyword heuristics (no vendor format): the whole token after a password label ('Password: ', "
              "'DB_PASS=', 'the password is ') that holds a quote, backslash or ; | < > ( ) { } [ ] , / "
              "(test27 V30), closing quotes and trailing punctuation left out (symbol_password_ok)",
              _LABEL + _LINK + _TOKEN,
              ci=True, priority=52, check=symbol_password_ok, anchors=("passw", "passphrase", "pwd", "_pass")),
]
