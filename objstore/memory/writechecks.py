"""The checks every writer applies to what it stores in the clear besides
the value (split from ``objstore.memory.facts``): a name holding a
credential (:func:`check_key_credentials`, :func:`writing_agent`), a key
that reads as another (:func:`check_key_lookalike`) and a write below
``user_stated`` of a memory file's key (:func:`check_memory_file_write`)."""

from __future__ import annotations

from collections.abc import Mapping

from objstore.core.errors import PERSON_ONLY_HINT, InvalidInput, Refused
from objstore.core.lookalike import escape_lookalike, key_skeleton, lookalike_mix


def check_key_credentials(key: str, what: str = "key") -> None:
    """Raise InvalidInput when ``key`` holds a credential, any shape the
    value redaction knows (:func:`objstore.core.redact.name_hits`: the
    same rules, over the name as typed and with its separators read as
    blanks): a key names ref files, audit log lines, tombstones and
    exports, none of which is redacted.  The one rule for every name a
    write stores in the clear: ``what`` says which (``"key"``,
    ``"session"``, ``"agent"``; ``"namespace"`` for
    ``<session>[.agent-<name>…]``, which fact versions, ref names and the
    session list carry: its session and each sub-agent name are checked
    alone, and the message names the one that holds it, ``the agent holds
    a credential``).  The message never holds the name."""
    if what == "namespace":
        from objstore.memory.scope import agent_path   # deferred: a write's (readers import this module)
        session, agents = agent_path(key)
        check_key_credentials(session, "session")
        for agent in agents:
            check_key_credentials(agent, "agent")
        return
    from objstore.core.redact import check_name  # deferred: the redaction rules compile at import
    check_name(key, what)


def check_key_lookalike(key: str) -> None:
    """Raise InvalidInput (exit 2) when a segment of ``key`` (validated,
    NFC) mixes scripts so that it reads as another key
    (:func:`objstore.core.lookalike.lookalike_mix`, UTS #39 "Moderately
    Restrictive": Latin with Cyrillic or Greek letters, ``project/api/d\u0435ploy-day``
    with a Cyrillic ``е``): the one rule for every new key a writer stores
    (``facts.remember``, so the CLI, the MCP tool and the imports, and
    sealed writes).  The message shows the key escaped
    (:func:`objstore.core.lookalike.escape_lookalike`) and names the character.
    Keys a store already holds (an older mem's, a pull's, a restore's) are
    read, listed and forgotten as before: only writing a new version is
    refused.  An ASCII key costs one ``str.isascii``; a key in one script
    (``project/проект/ключ``, Greek, CJK) passes."""
    if key.isascii():
        return
    for seg in key.split("/"):
        why = lookalike_mix(seg)
        if why is not None:
            raise InvalidInput(f"bad key '{escape_lookalike(key)}': the segment '{escape_lookalike(seg)}' reads as "
                               f"another key: {why}",
                               hint="write each part of a key in one script (the Latin letters for a Latin name)")


def writing_agent(env: Mapping[str, str]) -> str | None:
    """:func:`objstore.memory.caller.agent_of`, for a write that stores the
    name (a fact's or a proposal's ``owner``): stored in the clear, it gets
    the one name rule (:func:`check_key_credentials`, the field
    ``agent``), as ``--agent`` does.  ``MEM_AGENT`` is where a free name
    comes from (a harness marker names a fixed agent).  Returns None for a
    person.  Raises InvalidInput (exit 2, ``the agent holds a credential``;
    the message never holds the name) when the name holds one, and (exit 2)
    when it is one mem writes under or names the person
    (``caller.names_the_person``: ``user``, ``the user``, ``me``…)."""
    from objstore.memory.caller import agent_of, names_the_person   # deferred: a read needs none
    agent = agent_of(env)
    if agent is not None:
        if names_the_person(agent):   # (test39 m10: MEM_AGENT=user wrote as "user"; test41 T13: "the user", "me")
            raise InvalidInput(f"MEM_AGENT names {agent!r}, an author mem itself writes under or the person: what "
                               "this agent writes would read as written by them",
                               hint="set MEM_AGENT to the agent's own name (e.g. MEM_AGENT=aider), or unset it "
                                    "(MEM_AGENT=0) where a person runs mem")
        check_key_credentials(agent, "agent")
    return agent


def check_memory_file_write(key: str, trust: str) -> None:
    """Raise Refused when ``key`` is a memory file's (``user/memory/soul.md``,
    ``memory.md``, ``user.md``, a project's, their archive and journal:
    ``scope.is_memory_file_key``) and ``trust`` is not ``user_stated``:
    those files open every session block, so they are the person's; an
    agent proposes an edit (``mem memory propose``, the MCP ``memory``
    tool), which waits for review.  A key that reads as a memory file's
    (:func:`is_memory_file_lookalike`: ``user/memory/Soul.md``) is one.  The one check for every writer: the
    CLI, the MCP tools, imports, sealed writes."""
    if trust != "user_stated" and is_memory_file_lookalike(key):
        raise Refused(f"{key} is a memory file: only the person writes it (this write is {trust})",
                      hint="propose an edit instead: mem memory add|replace|remove (it waits in the review queue)")


def is_memory_file_lookalike(key: str) -> bool:
    """Whether ``key`` is a memory file's (``scope.is_memory_file_key``) or
    reads as one (:func:`objstore.core.lookalike.key_skeleton` equal:
    ``user/memory/Soul.md``, ``user/Memory/soul.md``,
    ``project/p/memory/USER.md`` for ``project/p/memory/user.md``): such a
    key would open every session block as the person's file."""
    from objstore.memory.scope import RESERVED, is_memory_file_key   # deferred: a write's
    if is_memory_file_key(key):
        return True
    parts = key.split("/")
    if len(parts) not in (3, 4):
        return False
    want = key_skeleton(key)
    head = "user/memory" if len(parts) == 3 else f"project/{parts[1]}/memory"
    return any(key_skeleton(f"{head}/{name}") == want for name in RESERVED)


def check_names_hold_no_secret(store, key: str, names: tuple, trust: str, tombs=()) -> None:
    """Refuse (Refused, exit 6) a write whose key or other stored name
    (``names``: the session namespace, the agent's name) holds a sealed
    value (anyone) or a forgotten value's form (below ``user_stated``; and
    a forgotten text of ``tombs``, the store's tombstones, as
    ``tombstones.forgotten_in`` finds it in a value: a ``forget --match``
    text, written ahead or not; txt42): a
    name is stored in the clear (a ref's file name, reflogs, the audit log,
    ``mem keys``, every session's injected block), as a value is checked
    (``facts.remember``; test41 T26: ``user/okapi-quetzal-5521`` was
    written beside the sealed ``okapi-quetzal-5521``).  The same matcher as
    the value (``sealrulefile.rule_labels_in``; ``/`` separates a key's
    parts as a space does).  Raises IntegrityError for unreadable rules."""
    from objstore.memory.sealrulefile import FORGOTTEN_LABEL, rule_labels_in   # deferred: a write's
    text = "\n".join(n for n in (key, *names) if n)
    hits = sorted(x for x in rule_labels_in(store, text) if x != key)
    sealed = [x for x in hits if not x.startswith(FORGOTTEN_LABEL)]
    if not hits and trust != "user_stated" and tombs:
        from objstore.memory.tombstones import holds_text, text_rule   # deferred: a write's
        hits = ["text"] if holds_text(text, [r for t in tombs if (r := text_rule(t)) is not None]) else []
    if sealed or (hits and trust != "user_stated"):
        what = f"the sealed value of {sealed[0]}" if sealed else "a forgotten value"
        raise Refused(f"the key's name (or its session or agent name) holds {what}; a name is stored and "
                      "shown in the clear, so nothing was written", hint="name it otherwise",
                      agent_hint=PERSON_ONLY_HINT)   # (the name itself is not echoed)
