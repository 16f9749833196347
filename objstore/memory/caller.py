"""Who is calling: a person at a terminal, or an agent running a tool.

A write's default trust follows its caller (``docs/design.md``, "Trust by
caller"): a value a person states is ``user_stated``; a value an agent
writes on its own (``mem remember`` run as a tool by Claude Code, Codex, …)
is ``agent_observed`` and so goes through the review queue when it would
replace what the person stated.

This module reads no process settings: the front end passes the
variables of the process it runs in (a mapping; ``cmds`` passes the
process's own).
"""

from __future__ import annotations

from collections.abc import Mapping

from objstore.core.errors import PERSON_ONLY_HINT, Refused
from objstore.core.lookalike import confusable_skeleton
from objstore.core.text import escape_invisible

#: (variable, agent name, the values that mark an agent; empty = any non-empty value).
#: Claude Code sets ``CLAUDECODE=1`` in the variables of every tool it runs;
#: Codex CLI sets ``CODEX_SANDBOX`` (``seatbelt``) / ``CODEX_SANDBOX_NETWORK_DISABLED``
#: in its sandboxed shells, ``CODEX_THREAD_ID`` in its tool shells and ``CODEX_CI``
#: in its web runtime; Gemini CLI sets ``GEMINI_CLI=1``; Cursor's agent
#: ``CURSOR_AGENT=1``.  ``MEM_AGENT=<name>`` marks any other agent (set it in
#: the agent's settings).  A harness's own marker wins: set to any non-empty
#: value (``0`` too) it names the agent, whatever ``MEM_AGENT`` says, so that an
#: agent cannot make itself a person by setting a variable in its own command
#: (``CLAUDECODE=1 MEM_AGENT=0 mem forget …`` is the agent's, fresh6-attack 4).
AGENT_MARKERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("CLAUDECODE", "claude-code", ()),
    ("CLAUDE_CODE_ENTRYPOINT", "claude-code", ()),
    ("CODEX_SANDBOX", "codex", ()),
    ("CODEX_SANDBOX_NETWORK_DISABLED", "codex", ()),
    ("CODEX_THREAD_ID", "codex", ()),
    ("CODEX_CI", "codex", ()),
    ("GEMINI_CLI", "gemini-cli", ()),
    ("CURSOR_AGENT", "cursor", ()),
)

#: the values of ``MEM_AGENT`` that say "no agent" (any case).  Not "user" or "person": a harness
#: configured with such a name is an agent, never given the person's rights (test39 m10)
_FALSE = ("", "0", "false", "no", "off", "none")


#: the authors mem itself writes under (the person's ``user``, a sub-agent rollup's ``rollup``,
#: ``derive``, the MCP server, the proxy, imports, ``mem curate``): an agent's name is the author of
#: what it writes (``mem blame``, the MCP ``origin``), so no MCP key (test37 T9.9) and no
#: ``MEM_AGENT`` (test39 m10) may take one
RESERVED_NAMES = frozenset({"user", "rollup", "derive", "mcp", "mem", "proxy", "import", "curate", "person", "system"})


def reserved_name(name: str) -> bool:
    """Whether agent name ``name`` is one of :data:`RESERVED_NAMES` in any
    case, or looks like one (``core.lookalike.confusable_skeleton``:
    full-width ``ｕｓｅｒ``, Cyrillic ``usеr``; test38 T9.5)."""
    low = name.casefold()
    if low in RESERVED_NAMES:
        return True
    if name.isascii():
        return False
    return any(confusable_skeleton(low) == confusable_skeleton(r) for r in RESERVED_NAMES)


#: words that name the person, refused as an agent's own name (``MEM_AGENT``) beside
#: :data:`RESERVED_NAMES`: the owner reads that name beside a proposal (test41 T13)
PERSON_WORDS = frozenset({"me", "myself", "i", "you", "owner", "human"})


def names_the_person(name: str) -> bool:
    """Whether agent name ``name`` (``MEM_AGENT``) is :func:`reserved_name`
    or reads as the person: a :data:`PERSON_WORDS` word or a reserved name,
    with "the " or "my " before it (``the user``), or before ``@``
    (``user@laptop``, ``me@host``; test41 T13).  ``codex@laptop`` is not.
    An MCP key's name is checked by :func:`reserved_name` alone (the person
    may call their own owner key "me")."""
    if reserved_name(name):
        return True
    low = " ".join(name.casefold().split())
    for lead in ("the ", "my "):
        low = low.removeprefix(lead)
    low = low.partition("@")[0].strip() or low
    return low in PERSON_WORDS or reserved_name(low)


def agent_of(env: Mapping[str, str]) -> str | None:
    """The name of the agent whose tool process has the variables ``env``, or None
    for a person.

    The first :data:`AGENT_MARKERS` variable set in ``env`` to a non-empty
    value names the agent, whatever the value (a harness sets it; a
    person's shell does not have it, and ``CLAUDECODE=0`` is an agent
    speaking for itself; empty counts as unset);
    otherwise ``MEM_AGENT`` names one (``0``, ``false``, ``no``, ``off``,
    ``none``, ``""`` -> a person; any other value, ``user`` too, an agent,
    which cannot cancel a harness marker).  The limit: a caller that strips
    the harness's variables from what it runs with (``env -u CLAUDECODE``,
    ``CLAUDECODE=``)
    is not seen; the gate keeps an agent that follows its harness from
    acting as the person, it is no sandbox (docs/design.md, "Trust by
    caller").
    ``agent_of({"CLAUDECODE": "1"}) == "claude-code"``;
    ``agent_of({"CLAUDECODE": "1", "MEM_AGENT": "0"}) == "claude-code"``; ``agent_of({}) is None``.
    """
    for var, name, values in AGENT_MARKERS:
        v = env.get(var)
        if v is not None and v.strip() and (not values or v.strip() in values):
            return name
    explicit = env.get("MEM_AGENT")
    if explicit is not None:
        e = explicit.strip()
        return None if e.lower() in _FALSE else (e or None)
    return None


def proposal_owner(agent: str | None, said: str | None) -> str:
    """The name a proposal is recorded and shown under (``mem memory
    propose --by``): for an agent caller (``agent``, :func:`agent_of`'s
    name) its own name, and a different name it gave (``said``) only beside
    it, so an agent's "--by user" reads ``claude (said: user)``, never as
    the person's (test40 T25; its trust stays ``agent_observed``).  A
    person's (``agent`` None): ``said``, else ``"agent"``.
    ``proposal_owner("claude", "user") == "claude (said: user)"``;
    ``proposal_owner("claude", None) == "claude"``; ``proposal_owner(None,
    "codex@laptop") == "codex@laptop"``.  Never raises."""
    if agent is None:
        return said or "agent"
    if not said or said.strip().casefold() == agent.casefold():
        return agent
    return f"{agent} (said: {said})"


def default_trust(env: Mapping[str, str]) -> str:
    """The trust a write gets when its caller did not choose one:
    ``agent_observed`` inside an agent (:func:`agent_of`), else
    ``user_stated``."""
    return "agent_observed" if agent_of(env) else "user_stated"


def require_person(env: Mapping[str, str], action: str, instead: str | None = None) -> None:
    """Refuse ``action`` (e.g. ``"queue accept"``) when the caller is an
    agent (:func:`agent_of`): the one rule for what is the person's alone.

    A review decision, forgetting, deleting the store, turning capture off,
    pinning, promoting (vouching for a fact), reverting, stating a value as
    the person (``user_stated``), setting the store's config, starting an
    admin MCP server or minting its keys, and editing soul.md are a
    person's: an agent that could do them could approve
    its own proposals or overrule what the person stated (design.md, "Review
    queue"; docs/exit-codes.md, exit 6).  ``instead`` names what an agent may
    do in its place (e.g. "propose it: mem memory propose ..."); it ends the
    hint.  Raises Refused (exit 6) naming the agent; returns None for a
    person (no harness marker, and ``MEM_AGENT`` unset or ``0``)."""
    agent = agent_of(env)
    if agent is not None:
        raise person_only(action, agent, instead)


def person_only(action: str, agent: str, instead: str | None = None) -> Refused:
    """The refusal (exit 6; an MCP ``refused`` error) of ``action`` for the
    agent named ``agent``: what :func:`require_person` raises, and what a
    front end that knows its caller another way (an MCP server's role)
    raises, so every refusal reads the same.  Returned, not raised."""
    shown = escape_invisible(agent)   # (test39b B2: MEM_AGENT's control characters reached the terminal)
    return Refused(f"{action} is a person's decision: refused for an agent caller ({shown}); nothing changed",
                   hint=PERSON_ONLY_HINT + (f"; an agent may instead {instead}" if instead else ""))
