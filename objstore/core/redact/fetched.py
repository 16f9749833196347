"""A secret fetched by a command (test34 T5): the short output of a tool call
whose command reads a credential (``printenv DB_PASSWORD``, ``vault kv get
-field=password …``, ``pass show db/prod``, ``op read op://…``, …) is that
credential, whatever its shape.  The one table of such commands
(:data:`FETCH_SHAPES`), read by every capture path that pairs a call with its
result (the Claude Code and Codex readers, the proxy): :func:`fetches_secret`
on the call's input, :func:`redact_fetched` on its result.

A result is redacted whole, as ``[REDACTED:fetched-secret]``, when it is short
(:data:`FETCHED_LINES_MAX` non-blank lines or fewer, :data:`FETCHED_CHARS_MAX`
characters or fewer: a value, a token, a key and its id) and does not read as an error
message (``cat: …: No such file or directory``, ``Error: …``, ``usage: …``).  A
longer result (a listing, ``kubectl get secret -o yaml``, a JSON document) goes
through the normal rules, which read labels and token formats.  Look-alikes are
not fetches: ``printenv PATH``, ``aws configure get region``, ``pass ls``,
``terraform output -raw vpc_id``, ``cat README.md``.
"""

from __future__ import annotations

import json
import re

from objstore.core.redact.keywords import credential_name
from objstore.core.text import LazyPattern

#: the rule name a fetched secret is redacted as
FETCHED_RULE = "fetched-secret"
#: what a fetched secret's result is stored as
FETCHED_OUTPUT = f"[REDACTED:{FETCHED_RULE}]"
#: the bound of a short result: at most this many non-blank lines …
FETCHED_LINES_MAX = 3
#: … and this many characters (an Azure or Google access token is 1-3k characters)
FETCHED_CHARS_MAX = 8192

#: a variable or output name (``DB_PASSWORD``, ``GITHUB_TOKEN``, ``db_password``): a shape holding one
#: fetches only when :func:`~objstore.core.redact.keywords.credential_name` reads it as a credential's
#: name (not ``PATH``, ``vpc_id``; not ``PWD`` / ``OLDPWD``, the working folder)
_NAME = r"([A-Za-z_]\w{0,127})"
#: the start of a command word: the line's start, a blank, ``;`` ``&`` ``|`` ``(`` ``$(`` a backquote, a quote
#: (``ssh prod 'printenv DB_PASSWORD'``, ``bash -c "…"``: test34b T6)
_CMD = r"(?:^|(?<=[\s;&|(`'\"]))"
#: a file name naming a secret: a part of it is ``secret(s)``, ``password(s)``, ``passwd`` (not ``/etc/passwd``),
#: ``token(s)``, ``credential(s)``, ``api_key``, ``private_key``, or it is under ``/run/secrets/`` (``.secret``,
#: ``token.txt``, ``~/.vault-token``, ``db_password``); ``.pgpass`` is not (the pgpass rule keeps its fields)
_SECRET_PATH = (r"[^\s;&|<>'\"]*(?:(?<![a-z])(?:secrets?|passwords?|(?<!/)passwd|passphrase|tokens?|credentials?"
                r"|api_?key|private_?key|master\.key)(?![a-z])|/run/secrets/)[^\s;&|<>'\"]*")

#: the table of secret-fetching command shapes (matched case-insensitively on the command text)
FETCH_SHAPES: tuple[tuple[str, str], ...] = (
    ("printenv NAME", rf"{_CMD}printenv\s+{_NAME}\b"),
    ("echo $NAME", rf"{_CMD}(?:echo|printf)\s+(?:-[a-z]+\s+|'%s\\?n?'\s+|\"%s\\?n?\"\s+)?\"?\$\{{?{_NAME}\b"),
    ("aws configure get SECRET", rf"{_CMD}aws\s+configure\s+get\s+\S*(?:secret|token|password)"),
    ("aws secretsmanager / ssm / ecr",
     rf"{_CMD}aws\s+(?:secretsmanager\s+get-secret-value|ssm\s+get-parameters?\b.*--with-decryption"
     r"|ecr(?:-public)?\s+get-login-password)"),
    # (not a field naming a user, a host or a port: ``-field=username`` prints no secret, test34b T7)
    ("vault read -field", rf"{_CMD}vault\s+(?:kv\s+get|read|token\s+create|write)\b.*-field[= ](?!['\"]?(?:user"
                          r"(?:_?name)?|login|host(?:name)?|port|url|address|addr|database|db_?name)\b)"),
    ("vault print token", rf"{_CMD}vault\s+print\s+token"),
    ("pass show ENTRY", rf"{_CMD}(?:pass|gopass)\s+(?:show|otp)\s+(?!-c\b|--clip)\S"),
    ("op read / op item get --fields", rf"{_CMD}op\s+(?:read\s+\S|item\s+get\b.*--(?:fields|reveal))"),
    ("security find-*-password -w", rf"{_CMD}security\s+find-(?:generic|internet)-password\b.*\s-w\b"),
    ("kubectl get secret -o jsonpath", rf"{_CMD}kubectl\s+get\s+secrets?\b.*(?:jsonpath|go-template)"),
    ("base64 -d of a secret", r"(?:secret|password|token).*base64\s+(?:-d|--decode|-D)\b"),
    ("heroku auth:token", rf"{_CMD}heroku\s+auth:token"),
    ("gcloud auth print-*-token / secrets access",
     rf"{_CMD}gcloud\s+(?:(?:auth|auth\s+application-default)\s+print-(?:access|identity)-token"
     r"|secrets\s+versions\s+access)"),
    ("az get-access-token / keyvault secret show",
     rf"{_CMD}az\s+(?:account\s+get-access-token|keyvault\s+secret\s+show)"),
    ("gh auth token", rf"{_CMD}gh\s+auth\s+token"),
    ("doppler secrets get --plain", rf"{_CMD}doppler\s+secrets\s+get\b.*--plain"),
    ("terraform output -raw NAME", rf"{_CMD}terraform\s+output\s+(?:-raw|-json)\s+{_NAME}\b"),
    ("openssl rand", rf"{_CMD}openssl\s+rand\b"),
    ("cat SECRET-FILE", rf"{_CMD}(?:cat|head|tail)\s+(?:-\S+(?:\s+\d+)?\s+)*{_SECRET_PATH}"),
    # test34b T6: a script printing a credential's variable, a config or dotenv tool's get, a decrypting
    # tool, a field of a JSON document or a line of a dotenv file cut to its value
    ("the os module's mapping ['NAME'] / os.getenv / process.env.NAME / ENV['NAME']",
     r"(?:os\.env[i]ron(?:\.get\s*\(|\s*\[)|os\.getenv\s*\(|ENV(?:\.fetch\s*\(|\s*\[))\s*\\?['\"]"
     rf"{_NAME}\b|process\.env(?:\.|\[\s*\\?['\"]){_NAME}\b"),
    ("heroku config:get / dotenv get NAME",
     rf"{_CMD}(?:heroku\s+config:get|dotenv\s+(?:-\S+\s+(?:\S+\s+)?)*get)\s+{_NAME}\b"),
    ("sops -d", rf"{_CMD}sops\s+(?:\S+\s+)*?(?:-d|--decrypt)\b"),
    ("keyring get", rf"{_CMD}keyring\s+get\s"),
    ("jq .NAME", rf"{_CMD}jq\s+(?:-\S+\s+)*['\"]?(?:\.\w+)*\.{_NAME}['\"]?(?:\s|$)"),
    ("grep NAME … | cut / awk / sed", rf"{_CMD}grep\s+(?:-\S+\s+)*['\"]?\^?{_NAME}\b[^|;&\n]*\|\s*(?:cut|awk|sed)\b"),
)
#: the shapes without a name (one search) and those with one (each match's name then read)
_FETCH_RE = LazyPattern("|".join(f"(?:{p})" for _k, p in FETCH_SHAPES if _NAME not in p), re.I | re.M)
_NAMED_FETCH_RE = LazyPattern("|".join(f"(?:{p})" for _k, p in FETCH_SHAPES if _NAME in p), re.I | re.M)
_NOT_SECRET_NAMES = frozenset(("pwd", "oldpwd"))
#: words one of :data:`FETCH_SHAPES` needs, in the call as given (JSON: ``echo \\"$``); a call holding
#: none is not decoded nor searched
_GATE = ("printenv", "echo $", 'echo "$', 'echo \\"$', "echo -", "printf", "aws configure", "secretsmanager",
         "ssm ", "get-login-password", "vault ", "pass ", "gopass", "op read", "op item", "security find",
         "get secret", "base64", "heroku auth", "gcloud", "access-token", "keyvault", "gh auth", "doppler",
         "terraform output", "openssl rand", "cat ", "head ", "tail ", "os.env", "getenv", "process.env", "env[",
         "env.fetch", "config:get", "dotenv", "sops", "keyring", "jq ", "grep ")
#: a result that reads as an error message, not a value
_ERROR_RE = LazyPattern(r"(?i)\A\s*(?:\[error\]|error\b|usage:|fatal:|[\w.\-]+: (?:.*(?:no such|not found|denied|"
                        r"invalid|unknown|error|not set|cannot|can't|failed))|no value found|\(no output\))")
#: ``/bin/echo`` read as ``echo`` (a command word's folder)
_FOLDER_RE = LazyPattern(r"(?<![\w.\-])/(?:[\w.\-]+/)+(?=(?:printenv|echo|printf|aws|vault|g?pass|op|security|kubectl"
                         r"|heroku|gcloud|az|gh|doppler|terraform|openssl|cat|head|tail|dotenv|sops|keyring|jq|grep)\s)")


def command_text(call: str) -> str:
    """The command a tool call runs, from ``call`` as a capture renders its
    input: the JSON of Claude Code's ``input`` (``{"command": "…"}``), Codex's
    ``arguments`` (``{"command": ["bash", "-lc", "…"]}`` or an argv, words
    joined by blanks; ``cmd`` too), or a command line as it is.  Not JSON:
    ``call`` unchanged."""
    s = call.lstrip()
    if s[:1] not in "{[":
        return call
    try:
        v = json.loads(s)
    except ValueError:
        return call
    if isinstance(v, dict):
        v = v.get("command", v.get("cmd", ""))
    if isinstance(v, list):
        words = [w for w in v if isinstance(w, str)]
        if len(words) == 3 and words[1] in ("-c", "-lc", "-ic") and words[0].rsplit("/", 1)[-1] in (
                "bash", "sh", "zsh", "dash"):
            return words[2]
        return " ".join(words)
    return v if isinstance(v, str) else ""


def fetches_secret(call: str) -> bool:
    """Whether the tool call ``call`` (its input as a capture renders it:
    :func:`command_text`) runs a command of :data:`FETCH_SHAPES`, anywhere
    in its command line (a pipeline, ``&&``, a subshell).  Cost: one ``str``
    search for a call with no ``command``; a JSON decode and a few ``str``
    searches for a command naming none of the table's words."""
    if call[:1] == "{" and '"command"' not in call and '"cmd"' not in call:
        return False            # a tool call with no command (Read, Edit, Write: their inputs are the long ones)
    low = call.lower()
    if not any(w in low for w in _GATE):
        return False
    cmd = command_text(call)
    if "/" in cmd:
        cmd = _FOLDER_RE.sub("", cmd)
    if _FETCH_RE.search(cmd) is not None:
        return True
    for m in _NAMED_FETCH_RE.finditer(cmd):
        name = next(g for g in m.groups() if g)
        if name.lower() not in _NOT_SECRET_NAMES and credential_name(name) is not None:
            return True
    return False


#: the header Codex puts before a command's output (``Exit code: 0`` / ``Wall time: …`` / ``Output:``;
#: ``exec_command``: ``Chunk ID``, ``Process exited with code N``, ``Original token count``): kept
_CODEX_HEAD_RE = LazyPattern(r"\A(?:(?:Chunk ID|Wall time|Exit code|Process exited with code|Original token count"
                             r"|Total output lines)\b[^\n]{0,200}\n){1,6}Output:\n")


#: a fetched line's value after its name: ``DB_PASSWORD=V`` (``grep … .env``), ``password: V``, ``"V"`` (``jq``)
_LINE_VALUE_RE = LazyPattern(r"\A(?:[\w.\-]{1,128}\s*[=:]\s*)?([\"']?)(.+?)\1\Z")


def fetched_values(body: str) -> list[str]:
    """The values a result ``body`` that :func:`redact_fetched` withholds
    holds, for the session's later turns (``objstore.memory.sessionrules``):
    each non-blank line, stripped (after a Codex output header), and its
    value without a ``NAME=`` / ``NAME:`` label or quotes; ``[]`` for a body
    :func:`redact_fetched` keeps.  A list of str, in memory only."""
    if redact_fetched(body) == body:
        return []
    head = _CODEX_HEAD_RE.match(body)
    out: list[str] = []
    for ln in body[head.end() if head is not None else 0:].splitlines():
        ln = ln.strip()
        if ln:
            out.append(ln)
            m = _LINE_VALUE_RE.match(ln)
            if m is not None and m.group(2) != ln:
                out.append(m.group(2))
    return out


def redact_fetched(body: str) -> str:
    """The result ``body`` of a call :func:`fetches_secret` matched, as it is
    stored: :data:`FETCHED_OUTPUT` when it is short (:data:`FETCHED_LINES_MAX`
    non-blank lines, :data:`FETCHED_CHARS_MAX` characters) and not an error
    message; else ``body`` itself (the normal rules read it).  An empty body
    stays empty; a Codex output header (``Exit code: 0`` … ``Output:``) is kept,
    what follows it judged so."""
    head = _CODEX_HEAD_RE.match(body)
    if head is not None:
        tail = body[head.end():]
        rest = redact_fetched(tail)
        return body if rest is tail else body[:head.end()] + rest
    if not body.strip() or len(body) > FETCHED_CHARS_MAX:
        return body
    if sum(1 for ln in body.splitlines() if ln.strip()) > FETCHED_LINES_MAX:
        return body
    if _ERROR_RE.match(body) is not None:
        return body
    return FETCHED_OUTPUT
