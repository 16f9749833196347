"""Who may use the MCP server, and how much: keys, roles, namespaces, limits,
confirm tokens and the credential gate (``docs/mcp.md``).

No MCP SDK here: this is the policy the server in ``cmds`` enforces, kept
where it can be tested on its own and reused by any other front end.

**Keys.** A key is ``memk_`` + 43 url-safe base64 characters (256 random
bits); the prefix lets secret scanners, and our own redaction rules
(``objstore.core.redact``, rule ``mem-key``), recognise one.  Only its
SHA-256 (hex) is stored, in ``<store>/mcp/keys.json`` (mode 0600, replaced
atomically under ``keys.json.lock``).  Keys are compared in constant time
(:func:`hmac.compare_digest` on the digests).  A :class:`KeyRing` re-reads
the file when its size, mtime or inode change, so a mint or a revoke takes
effect without a restart; a file that cannot be parsed fails closed (no key
works until it is fixed).

**Roles.** ``read`` gets :data:`READ_TOOLS`; ``agent`` adds ``remember``
(written ``agent_observed``), ``memory`` (a proposal) and ``reinforce``; ``owner`` gets the admin tools and writes
``user_stated`` but is refused on the agents' endpoint, so no client an
agent drives carries owner authority.  ``admin`` is the role of ``mem mcp
--admin`` over stdio (a person's curation session), never of a key.

**Namespaces.** A namespace is a scope or a key prefix: ``user``,
``global``, ``project/<name>`` or any deeper prefix such as
``project/api/deploy``.  A key minted with ``--namespace`` (repeatable) is
confined: it sees a fact only when the fact's key equals a namespace or lies
under one (``project/api`` covers ``project/api/port``, not
``project/apiv2/port``), and a captured turn only when the turn's project is
``<name>`` for one of its ``project/<name>`` namespaces.  Anything outside
reads exactly as missing, and writes and forgets outside are refused.  A
key without namespaces sees everything.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from objstore.core.atomic import LockFile, atomic_write
from objstore.core.errors import InvalidInput, MemError, NotFound, Refused
from objstore.core.objects import Fact, Turn
from objstore.core.refs import validate_key
from objstore.memory.caller import reserved_name

KEY_PREFIX = "memk_"
ROLES = ("read", "agent", "owner")
READ_TOOLS = ("recall", "get", "log", "search", "context")
#: an agent's: it writes at agent trust, proposes memory-file edits, and reinforces
#: (a use signal: it restarts a fact's decay clock or wakes it, trust and value unchanged)
WRITE_TOOLS = ("remember", "memory", "reinforce")
#: a person's alone (``objstore.memory.caller.person_only``): they forget, seal, pin,
#: decide on the review queue and vouch for facts (promote)
ADMIN_TOOLS = ("forget", "forget_matching", "seal", "pin", "queue_list", "queue_accept",
               "queue_reject", "list_sealed", "promote")
#: tools that take two calls: a preview with a token, then the act with it
CONFIRM_TOOLS = ("forget", "forget_matching", "seal")
#: tools that count against the per-minute write limit
WRITING_TOOLS = WRITE_TOOLS + ADMIN_TOOLS
CONFIRM_TTL_S = 600
KEYS_FORMAT = 1
MAX_NAME = 64
#: the longest key lifetime (days): 100 years (an infinite or huge one overflowed, fresh38 F17)
MAX_EXPIRES_DAYS = 36_525


class AuthError(MemError):
    """A request without a valid key (HTTP 401) or whose key's role may not
    use what it asked for (HTTP 403); ``status`` says which.  The message
    names the reason (``missing``, ``unknown``, ``expired``, a role), never a
    key."""

    exit_code = 6

    def __init__(self, message: str, status: int = 401) -> None:
        super().__init__(message)
        self.status = status


class RateLimited(MemError):
    """Over a per-key limit (HTTP 429); ``retry_after`` is whole seconds."""

    exit_code = 6

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def tools_for(role: str) -> tuple[str, ...]:
    """The tools a caller of ``role`` sees: ``read`` -> :data:`READ_TOOLS`,
    ``agent`` -> + :data:`WRITE_TOOLS`, ``owner``/``admin`` -> + :data:`ADMIN_TOOLS`.
    Raises InvalidInput for another role."""
    if role == "read":
        return READ_TOOLS
    if role == "agent":
        return READ_TOOLS + WRITE_TOOLS
    if role in ("owner", "admin"):
        return READ_TOOLS + WRITE_TOOLS + ADMIN_TOOLS
    raise InvalidInput(f"role must be one of {', '.join(ROLES)}, not {role!r}")


def check_namespace(ns: str) -> str:
    """Validate one namespace (module docstring) and return it NFC-normalized,
    without a trailing '/'.  Raises InvalidInput, also for one holding a
    credential (the one name rule, :func:`objstore.core.redact.check_name`:
    a key's namespaces are kept in the clear in ``mcp/keys.json`` and shown
    by ``mem mcp keys list``; the message never holds it)."""
    if not isinstance(ns, str) or not ns.strip("/"):
        raise InvalidInput("a namespace is a scope or key prefix such as project/api or user")
    from objstore.core.redact import check_name  # deferred: the redaction rules compile at import
    check_name(ns, "namespace", where="mcp/keys.json and the key list",
               hint="a namespace is a scope or key prefix such as project/api, never a secret")
    ns = ns.strip().rstrip("/")
    if ns in ("user", "global"):
        return ns
    try:  # a prefix is valid when a key under it is (project/api alone is no key)
        return validate_key(ns + "/x")[:-2]
    except InvalidInput:
        raise InvalidInput(f"bad namespace {ns!r}: want user, global, project/<name> or a key prefix "
                           "under one") from None


@dataclass(frozen=True)
class Caller:
    """Who is calling a tool.

    Attributes:
        name: recorded as the author (``owner`` field) of what it writes.
        role: ``read``, ``agent``, ``owner`` or ``admin`` (stdio curation).
        namespaces: confinement (module docstring); () = everything.
    """

    name: str
    role: str
    namespaces: tuple[str, ...] = ()

    @property
    def tools(self) -> tuple[str, ...]:
        """The tool names this caller may list and call."""
        return tools_for(self.role)

    @property
    def trust(self) -> str:
        """Trust of its writes: ``user_stated`` for a person (owner, admin),
        else ``agent_observed``."""
        return "user_stated" if self.role in ("owner", "admin") else "agent_observed"

    def sees_key(self, key: str) -> bool:
        """True when ``key`` is inside this caller's namespaces."""
        if not self.namespaces:
            return True
        return any(key == ns or key.startswith(ns + "/") for ns in self.namespaces)

    def sees_project(self, project: str | None) -> bool:
        """True when turns of ``project`` are inside this caller's namespaces."""
        if not self.namespaces:
            return True
        return bool(project) and f"project/{project}" in self.namespaces

    def sees_object(self, obj: object) -> bool:
        """True when a stored object is inside this caller's namespaces: a
        fact version by its key (:meth:`sees_key`), a captured turn by its
        project (:meth:`sees_project`); any other object (a tree, a
        tombstone, a queue item) only for an unconfined caller.  The test
        for an object a caller names by id (an edge target), so an outside
        id reads exactly as a missing one."""
        if not self.namespaces:
            return True
        if isinstance(obj, Fact):
            return self.sees_key(obj.key)
        if isinstance(obj, Turn):
            return self.sees_project(obj.project)
        return False

    def may(self, tool: str) -> bool:
        """True when ``tool`` is one of :attr:`tools`."""
        return tool in self.tools


# --------------------------------------------------------------------------- keys

@dataclass(frozen=True)
class KeyRecord:
    """One stored key (never the key itself).

    Attributes:
        id: 12 hex characters (the first of the digest), for ``revoke``.
        name: unique, e.g. ``codex@laptop``; the author of its writes.
        role: one of :data:`ROLES`.  namespaces: confinement.
        sha256: hex SHA-256 of the key's UTF-8 bytes.
        created, expires: ms since epoch (``expires`` 0 = never).
    """

    id: str
    name: str
    role: str
    namespaces: tuple[str, ...]
    sha256: str
    created: int
    expires: int = 0

    def to_json(self, *, digest: bool = True) -> dict:
        """A JSON-ready dict (``digest=False`` leaves the hash out)."""
        d = {"id": self.id, "name": self.name, "role": self.role, "namespaces": list(self.namespaces),
             "created": self.created, "expires": self.expires}
        if digest:
            d["sha256"] = self.sha256
        return d

    def caller(self) -> Caller:
        """The :class:`Caller` this key authenticates as."""
        return Caller(self.name, self.role, self.namespaces)

    def expired(self, now_ms: int) -> bool:
        """True when the key has an expiry and it has passed."""
        return bool(self.expires) and now_ms >= self.expires


def keys_path(store_root: str | os.PathLike) -> Path:
    """``<store>/mcp/keys.json``."""
    return Path(store_root) / "mcp" / "keys.json"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _parse(data: bytes) -> list[KeyRecord]:
    doc = json.loads(data.decode("utf-8"))
    if not isinstance(doc, dict) or doc.get("format") != KEYS_FORMAT or not isinstance(doc.get("keys"), list):
        raise ValueError("not a mem keys file (format 1)")
    out = []
    for k in doc["keys"]:
        rec = KeyRecord(str(k["id"]), str(k["name"]), str(k["role"]), tuple(map(str, k.get("namespaces", ()))),
                        str(k["sha256"]), int(k["created"]), int(k.get("expires", 0)))
        if rec.role not in ROLES or len(rec.sha256) != 64:
            raise ValueError(f"bad record {rec.id}")
        out.append(rec)
    return out


def read_keys(path: Path) -> list[KeyRecord]:
    """Every key record in ``path`` ([] when the file does not exist).
    Raises InvalidInput when it cannot be parsed."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    try:
        return _parse(data)
    except (ValueError, KeyError, TypeError, RecursionError) as e:   # (RecursionError: nested thousands deep, test39 T6)
        raise InvalidInput(f"{path} is not a valid keys file ({e}); no key works until it is fixed") from None


def _write_keys(lf: LockFile, records: list[KeyRecord]) -> None:
    doc = {"format": KEYS_FORMAT, "keys": [r.to_json() for r in records]}
    lf.write((json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode())


def mint_key(path: Path, name: str, role: str, *, namespaces: Iterable[str] = (),
             expires_days: float | None = None, now_ms: int | None = None) -> tuple[str, KeyRecord]:
    """Create a key and store its digest.

    Args:
        path: the keys file (:func:`keys_path`); created 0600 in a 0700 folder.
        name: unique, 1-64 printable characters without spaces, none of
            ``memory.caller.RESERVED_NAMES`` (``caller.reserved_name``: in any
            case, nor one that looks like one).
        role: one of :data:`ROLES`.
        namespaces: confinement (:func:`check_namespace` each).
        expires_days: lifetime in days (> 0, at most :data:`MAX_EXPIRES_DAYS`),
            None = never.
    Returns:
        ``(key, record)``: the key is shown once and never stored.
    Raises:
        InvalidInput: bad or reserved name, role, namespace or lifetime;
            the name exists.
        StoreLocked: another key command holds ``keys.json.lock``.
    """
    if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME or not name.isprintable() or " " in name:
        raise InvalidInput("a key name is 1-64 printable characters without spaces, e.g. codex@laptop")
    if reserved_name(name):   # (test38 T9.5: 'ｕｓｅｒ', Cyrillic 'usеr')
        raise InvalidInput(f"the key name {name!r} is one mem itself writes under: what the key writes "
                           "would read as written by it", hint="name the key for who holds it, e.g. codex@laptop")
    from objstore.core.redact import check_name  # deferred: the redaction rules compile at import
    check_name(name, "key name", where="mcp/keys.json and what the key writes",   # the one name rule
               hint="name the key for who holds it, e.g. codex@laptop")
    tools_for(role)
    ns = tuple(dict.fromkeys(check_namespace(n) for n in namespaces))
    if expires_days is not None and not 0 < expires_days <= MAX_EXPIRES_DAYS:   # (also NaN and inf: fresh38 F17)
        raise InvalidInput(f"--expires-days must be > 0 and at most {MAX_EXPIRES_DAYS:,} (100 years)")
    now = int(time.time() * 1000) if now_ms is None else now_ms
    token = KEY_PREFIX + secrets.token_urlsafe(32)
    digest = _digest(token)
    rec = KeyRecord(digest[:12], name, role, ns, digest, now,
                    now + int(expires_days * 86_400_000) if expires_days else 0)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with LockFile(path) as lf:
        records = read_keys(path)
        if any(r.name == name for r in records):
            raise InvalidInput(f"a key named {name!r} exists", hint=f"revoke it first: mem mcp keys revoke {name}")
        _write_keys(lf, [*records, rec])
    os.chmod(path, 0o600)
    return token, rec


def revoke_key(path: Path, which: str) -> KeyRecord:
    """Delete the record whose name or id is ``which``.  Raises NotFound."""
    with LockFile(path) as lf:
        records = read_keys(path)
        hit = [r for r in records if which in (r.name, r.id)]
        if not hit:
            raise NotFound(f"no key named {which!r}", hint="list keys with: mem mcp keys list")
        _write_keys(lf, [r for r in records if r is not hit[0]])
    return hit[0]


class KeyRing:
    """The keys of one keys file, re-read when the file changes.

    ``authenticate`` is thread-safe and costs one ``stat`` plus one SHA-256
    when the file did not change.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._sig: tuple | None = None
        self._records: list[KeyRecord] = []
        self._error: str | None = None
        self._lock = threading.Lock()

    def _refresh(self) -> None:
        try:
            st = self.path.stat()
            sig = (st.st_ino, st.st_size, st.st_mtime_ns)
        except FileNotFoundError:
            sig = None
        if sig == self._sig and self._sig is not None:
            return
        self._sig = sig
        try:
            self._records, self._error = read_keys(self.path), None
        except InvalidInput as e:
            self._records, self._error = [], e.message

    def records(self) -> list[KeyRecord]:
        """The current records (after a re-read if the file changed)."""
        with self._lock:
            self._refresh()
            return list(self._records)

    def world_readable(self) -> bool:
        """True when users other than the owner may read the keys file."""
        try:
            return bool(self.path.stat().st_mode & 0o077)
        except OSError:
            return False

    def authenticate(self, authorization: str | None, *, now_ms: int | None = None) -> KeyRecord:
        """The record of the key in an ``Authorization: Bearer <key>`` header.

        Raises:
            AuthError(401): missing or malformed header, unknown, revoked or
                expired key, unreadable keys file.
        """
        if not authorization or not authorization[:7].lower() == "bearer ":
            raise AuthError("missing key: send Authorization: Bearer <key>")
        token = authorization[7:].strip()
        digest = _digest(token)
        with self._lock:
            self._refresh()
            records, error = self._records, self._error
        if error:
            raise AuthError("the keys file cannot be read; no key works until it is fixed")
        found = None
        for r in records:  # constant time per record; all records compared
            if hmac.compare_digest(r.sha256, digest):
                found = r
        if found is None:
            raise AuthError("unknown or revoked key")
        if found.expired(int(time.time() * 1000) if now_ms is None else now_ms):
            raise AuthError("expired key")
        return found


# --------------------------------------------------------------------------- limits

@dataclass(frozen=True)
class Limits:
    """Per-key limits of the HTTP server (defaults after badland-brain).

    Attributes:
        requests_per_minute: JSON-RPC messages per key per fixed minute.
        writes_per_minute: calls of writing tools per key per fixed minute.
        max_body_bytes: largest request body (HTTP 413 above).
        max_arguments: most array elements + object members in one call's
            arguments.
        max_text_chars: most characters of all strings in one call's arguments.
    """

    requests_per_minute: int = 240
    writes_per_minute: int = 60
    max_body_bytes: int = 1_048_576
    max_arguments: int = 1000
    max_text_chars: int = 262_144


class RateLimiter:
    """Fixed one-minute windows per key name, in memory (a restart resets them)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._win: dict[tuple[str, str], tuple[int, int]] = {}
        self._lock = threading.Lock()

    def hit(self, who: str, what: str, n: int = 1, *, now: float | None = None) -> None:
        """Count ``n`` events of ``what`` (``request`` or ``write``) for ``who``.

        Raises:
            RateLimited: over the limit (nothing is counted then).
        """
        cap = self.limits.requests_per_minute if what == "request" else self.limits.writes_per_minute
        t = time.time() if now is None else now
        minute = int(t // 60)
        with self._lock:
            m, count = self._win.get((who, what), (minute, 0))
            if m != minute:
                count = 0
            if count + n > cap:
                raise RateLimited(f"over {cap} {what}s per minute for this key", int(60 - t % 60) + 1)
            self._win[(who, what)] = (minute, count + n)


#: the arguments the credential gate lets through, by tool: ``forget_matching``'s ``text`` is the value being
#: forgotten (a credential stored in the clear is the first thing a person forgets); the forget writes only its
#: hash (a text tombstone) and the log only its keyed digest (test39 m3: the gate refused it)
GATE_EXEMPT: dict[str, tuple[str, ...]] = {"forget_matching": ("text",)}


def check_arguments(args: Any, limits: Limits, tool: str | None = None) -> None:
    """Bound a tool call's arguments and refuse any string with a credential
    shape, naming the rule, never the value (``objstore.core.redact``);
    ``tool``'s arguments named in :data:`GATE_EXEMPT` are bounded only.

    Raises:
        InvalidInput: too many elements/members or characters.
        Refused: a string holds a credential.
    """
    from objstore.core.redact import redact  # deferred: the redaction rules compile at import
    count = chars = 0
    stack: list[tuple[str, Any]] = [("", args)]
    strings: list[tuple[str, str]] = []
    while stack:
        where, v = stack.pop()
        if isinstance(v, Mapping):
            count += len(v)
            stack.extend((f"{where}.{k}" if where else str(k), x) for k, x in v.items())
            strings.extend((f"{where} (a name)", str(k)) for k in v)
        elif isinstance(v, (list, tuple)):
            count += len(v)
            stack.extend((f"{where}[{i}]", x) for i, x in enumerate(v))
        elif isinstance(v, str):
            chars += len(v)
            strings.append((where, v))
        if count > limits.max_arguments:
            raise InvalidInput(f"more than {limits.max_arguments} elements in the arguments")
        if chars > limits.max_text_chars:
            raise InvalidInput(f"more than {limits.max_text_chars} characters in the arguments")
    exempt = GATE_EXEMPT.get(tool or "", ())
    for where, s in strings:
        if where in exempt:
            continue
        hits = redact(s).hits
        if hits:
            raise Refused(f"argument {where or 'value'} holds a credential (rule {hits[0].rule}); "
                          "nothing was done", hint="seal secrets with the CLI: mem remember KEY - --sensitivity secret")


#: the key of :func:`query_digest`: random, in this process's memory only, never written
_QUERY_KEY = secrets.token_bytes(32)


def query_digest(text: str) -> str:
    """What a log records of a query: 12 hex of its HMAC-SHA-256 (RFC 2104)
    under a random key this process holds in memory and never writes, never
    the text.  Lines of one server process name a repeated query alike; no
    one can try guesses against a logged digest (test37 T5: the plain
    SHA-256 of a ``forget_matching`` text, the value being forgotten, gave a
    six-digit account number back in 0.7 s)."""
    return hmac.new(_QUERY_KEY, text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:12]


# --------------------------------------------------------------------------- confirm tokens

@dataclass
class ConfirmTokens:
    """Two-call confirmation for destructive tools.

    :meth:`issue` returns a token for one action and its exact arguments;
    :meth:`redeem` accepts it once, for that action and those arguments,
    within ``ttl_s`` seconds, and gives back what the preview showed
    (``shown``: for ``forget`` the ids of the versions and turns it named,
    so that the confirmed call acts on those only, test18 U8).  Only the
    token's digest is kept, in memory, with ``shown``.
    """

    ttl_s: float = CONFIRM_TTL_S
    _tokens: dict[str, tuple[str, str, float, Any]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @staticmethod
    def _args_digest(action: str, args: Mapping[str, Any]) -> str:
        body = json.dumps({"action": action, "args": dict(args)}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()

    def issue(self, action: str, args: Mapping[str, Any], *, shown: Any = None, now: float | None = None) -> str:
        """A fresh token for ``action`` with ``args`` (JSON-able); ``shown``
        (what the preview named, kept as given) is what :meth:`redeem`
        returns."""
        t = time.time() if now is None else now
        token = "confirm-" + secrets.token_urlsafe(16)
        with self._lock:
            for k, (_a, _d, exp, _s) in list(self._tokens.items()):
                if exp <= t:
                    del self._tokens[k]
            self._tokens[_digest(token)] = (action, self._args_digest(action, args), t + self.ttl_s, shown)
        return token

    def redeem(self, token: str, action: str, args: Mapping[str, Any], *, now: float | None = None) -> Any:
        """Spend ``token`` on ``action`` with ``args``; returns the ``shown``
        it was issued with.

        Raises:
            Refused: unknown or already used, expired, for another action or
                other arguments (then the token stays unspent, unless expired).
        """
        t = time.time() if now is None else now
        key = _digest(token) if isinstance(token, str) else ""
        with self._lock:
            got = self._tokens.get(key)
            if got is None:
                raise Refused("unknown or already used confirm token; nothing was changed",
                              hint="call again without confirm for a new preview and token")
            a, d, exp, shown = got
            if exp <= t:
                del self._tokens[key]
                raise Refused("the confirm token expired; nothing was changed",
                              hint="call again without confirm for a new preview and token")
            if a != action:
                raise Refused(f"the confirm token is for {a}, not {action}; nothing was changed")
            if d != self._args_digest(action, args):
                raise Refused("the confirm token is for other arguments; nothing was changed")
            del self._tokens[key]
        return shown
