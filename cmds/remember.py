"""mem remember."""

import re

import click

from ._common import TimeType, complete_key, exit_with, json_option, with_store


def _LONG_OPTION(a: str) -> bool:
    """``--name`` (letters, digits, inner dashes): an option's name, never a value of the user's."""
    return a[:2] == "--" and a[2:].replace("-", "").isalnum() and a[2:3].isalpha()


#: a value given to a choice option that is shown in a usage error: a word (agentobserved,
#: user-stated), not text that may be a value meant for KEY TEXT
_CHOICE_WORD = re.compile(r"[A-Za-z0-9_.-]{1,40}")
#: a calendar date (and time) as --valid-from takes it: shown in the error, not hidden as a value (fresh41 F19)
_DATE_WORD = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")


class _ValueCommand(click.Command):
    """``mem remember``: an argument starting with '-' that is not one of the
    command's options (a PEM block, ``-x is the verbose flag``) is a value, not
    options: click's ``ignore_unknown_options`` (what ``mem config`` uses for
    -3) is not enough here, as it still reads known letters in ``-x is ...``
    (``h``: --help).  Such an argument is held back, click parses a stand-in
    (NUL cannot occur in argv) and the value is put back.  A usage error never
    echoes an argument (one of 6 characters or more, other than an option name
    or choice): a value may hold a credential that would land on the terminal
    and in its scrollback; nor the value of an option click quotes, whatever
    its length (test39 m6: ``--valid-from @-5`` was echoed, ``99999-01-01``
    hidden).  A word given to a choice option (``--trust
    agentobserved``) is shown: it is the option's value, not a secret, and
    click's message lists the allowed values beside it."""

    def parse_args(self, ctx, args):
        given = list(args)
        params = self.get_params(ctx)
        options = {o: p for p in params if isinstance(p, click.Option) for o in (*p.opts, *p.secondary_opts)}
        held: dict[str, str] = {}
        chosen: set[str] = set()   # values given to a choice option (--trust, --kind, --sensitivity)
        valued: set[str] = set()   # values given to any option (hidden where click quotes them, short or long)
        out: list[str] = []
        i, only = 0, False
        while i < len(given):
            a = given[i]
            if only or a == "-" or not a.startswith("-"):
                out.append(a)
            elif a == "--":
                only = True
                out.append(a)
            elif (p := options.get(a.split("=", 1)[0] if a.startswith("--") else a)) is not None:
                out.append(a)
                if not p.is_flag and not p.count and "=" not in a and i + 1 < len(given):
                    i += 1
                    out.append(given[i])   # the option's value, whatever it looks like
                if not p.is_flag and not p.count:
                    valued.add(a.split("=", 1)[1] if "=" in a else out[-1])
                if isinstance(p.type, click.Choice):
                    chosen.add(a.split("=", 1)[1] if "=" in a else out[-1])
            elif _LONG_OPTION(a.split("=", 1)[0]):
                out.append(a)                  # a misspelt long option: click names it (no value in it)
            else:
                held[stand_in := f"\0value{len(held)}"] = a
                out.append(stand_in)
            i += 1
        try:
            rest = super().parse_args(ctx, out)
        except click.UsageError as e:
            msg = e.message
            for tok in held:
                msg = msg.replace(tok, "<value hidden>")
            words = {w for p in params for w in (*p.opts, *p.secondary_opts, *getattr(p.type, "choices", ()))}
            words |= {a for a in given if _LONG_OPTION(a)}   # a misspelt or misplaced option is named, not hidden
            words |= {c for c in chosen if _CHOICE_WORD.fullmatch(c)}  # a mistyped choice is a word, shown
            words |= {v for v in valued if _DATE_WORD.fullmatch(v)}    # a date out of range, shown as typed
            for v in valued - words:
                msg = msg.replace(f"'{v}'", "'<value hidden>'")
            for a in sorted(given, key=len, reverse=True):
                if len(a) >= 6 and a in msg and a not in words:
                    msg = msg.replace(a, "<value hidden>")
            e.message = msg
            raise
        for name, v in ctx.params.items():
            if isinstance(v, str) and v in held:
                ctx.params[name] = held[v]
        return rest


@click.command("remember", cls=_ValueCommand)
@click.argument("key", shell_complete=complete_key)
@click.argument("text")
@click.option("--kind", type=click.Choice(["user", "feedback", "project", "reference", "directive"]),
              help="Kind of fact (default: from the scope, or the current version's kind); 'directive' "
                   "(a question, instruction or goal) is stored but held out of injection and recall.")
@click.option("--trust", type=click.Choice(["user_stated", "agent_observed", "derived"]),
              help="Who vouches for the value (default: agent_observed when run by an agent, "
                   "e.g. CLAUDECODE=1 or MEM_AGENT=name; else user_stated). An agent may not "
                   "set user_stated.")
@click.option("--sensitivity", type=click.Choice(["public", "private", "secret"]), default="private",
              show_default=True, help="How widely the value may be shown; 'secret' seals it (mem vault init).")
@click.option("--valid-from", type=TimeType(),
              help="When the value starts to hold (ISO 8601 or 'now'; default now, or 1 ms after the version it "
                   "replaces if that one's clock ran ahead).")
@click.option("--expect", metavar="ID", help="Only write if the current head is ID ('none': key must be new).")
@click.option("--pin/--no-pin", default=None, help="Pin the fact (default: keep the current pin).")
@click.option("--relates-to", multiple=True, metavar="TARGET",
              help="Link to a related fact or turn (repeatable). TARGET: KEY, KEY@vN or an id.")
@click.option("--contradicts", multiple=True, metavar="TARGET",
              help="Say this value contradicts TARGET's; both go to the review queue (repeatable).")
@click.option("--derived-from", multiple=True, metavar="TARGET",
              help="Say this value restates or derives from TARGET (repeatable); recall drops it "
                   "when TARGET is already shown.")
@click.option("--rollup-of", multiple=True, metavar="TARGET",
              help="Say this value summarizes TARGET, e.g. a sub-agent's turns (repeatable).")
@click.option("--session", metavar="ID", help="Write in this session's namespace (default: $MEM_SESSION).")
@click.option("--agent", metavar="NAME",
              help="Write in sub-agent NAME's namespace of the session (<session>.agent-NAME).")
@json_option
@with_store(create=True)
def command(key, text, kind, trust, sensitivity, valid_from, expect, pin, relates_to, contradicts,
            derived_from, rollup_of, session, agent, as_json, store):
    """Write a new version of KEY; the old value stays in the log.

    KEY is <scope>/<name> with scope user, global or project/<name>.
    TEXT '-' reads the value from standard input (CRLF read as LF, one final
    line end dropped); a TEXT starting with '-'
    (a PEM block) is taken as the value, and a usage error never echoes it.  Credentials in a plain
    value (API keys, tokens, private keys, 'Password: X') are replaced by [REDACTED:<rule>]
    before writing, with a warning, and so is the whole value, whatever its shape, under a KEY
    named for a credential (project/api/staging-password, .../github-token, .../api-key) when it
    is one word or a passphrase (in a longer value, each word shaped like a password: 'X since
    Monday'), and under a KEY named for a PIN or an access code (user/bank-pin, .../door-code,
    .../sim-puk) each code in the value ('PIN: 4471', '#4471', 'four four seven one'); seal a
    secret with --sensitivity secret.  A value and kind
    identical to the head's writes nothing and says so.
    A value that was forgotten is refused unless --trust user_stated.
    Run by an agent (Claude Code, Codex, Gemini CLI, Cursor, or MEM_AGENT
    set), the write is agent_observed (--trust derived is lower still);
    --trust user_stated and --pin/--no-pin are the person's and refused
    for an agent (exit 6), as the MCP server writes an agent's value
    agent_observed; so is any write of a memory file's key (soul.md,
    memory.md, user.md: an agent proposes with mem memory propose).
    A lower-trust value that would replace a user_stated one, or a value of
    any trust that reads like an instruction to a model, is queued for
    review (mem queue).
    --sensitivity secret seals the value: it is encrypted in memory to the
    vault and never written in the clear (read it with mem sealed show).
    --relates-to, --contradicts, --derived-from and --rollup-of add typed
    edges to the new version (it keeps the current version's edges too); a
    TARGET is a key (follows its current value), KEY@vN (that version) or
    an object id of a fact version or a turn.  mem show and mem log list them.
    --session (or $MEM_SESSION) writes the version in that session's
    namespace, --agent NAME in its sub-agent NAME's: a sub-agent reads its
    own and its ancestors' facts, never a sibling's; a parent reads its
    sub-agents' facts demoted (docs/design.md, "Namespaces"). A key, session or
    agent name that holds a credential is refused: names are stored in the clear.

    \b
    Examples:
      mem remember project/api/db "postgres 16 on port 5433"
      mem remember user/editor "neovim" --kind user
      mem remember project/api/db "postgres 17" --expect 8c1f2a3b
      mem remember user/bank/pin - --sensitivity secret < pin.txt
      mem remember project/api/db-note "moved to 5434" --relates-to project/api/db
      mem remember project/api/cache "redis 7" --session S1 --agent explorer

    Exit status: 0 written, unchanged or queued; 2 invalid key, text, edge,
    session or agent name, or --agent without a session;
    4 secret without a vault, or an edge TARGET not found; 5 --expect did not match (nothing written);
    6 refused (forgotten value; a plain write to a sealed key or a secret
    one to a plain key; --trust user_stated or --pin run by an agent; a
    memory-file key (user/memory/soul.md, memory.md, user.md) run by an
    agent; a lower-trust secret over a user_stated sealed value);
    11 store locked; 13 the key's ref was lost or set back to an older
    version than its reflog's last move (nothing written: 'mem fsck
    --repair' sets it again, then write).
    """
    from . import lean
    try:
        exit_with(lean.remember(store, key, text, kind, trust, sensitivity, valid_from, expect, pin,
                                as_json, relates_to=relates_to, contradicts=contradicts,
                                derived_from=derived_from, rollup_of=rollup_of, session=session, agent=agent))
    except lean.UsageProblem as e:
        raise click.UsageError(str(e)) from None
