"""red35's left-out (test34b T15 for a later session): a fetched secret the
capture withheld in one session was stored in the clear when a *later
session of the same project* quoted it (the session rules were per
session).  The session rules now also hold each value under its project's
scope (``objstore.memory.sessionrules.project_scope``: a keyed digest of
the project's name, never the name or the value), so the project's later
sessions withhold it; another project's sessions do not (the scope is
bounded to the project).  Real ``mem import`` of real transcript files."""

from __future__ import annotations

from objstore import scan_store
from objstore.memory.sessionrules import SESSION_RULES_FILE
from tests.hooks._util import asst, hook_env, line, text, tool_result, tool_use, user
from tests.hooks.test_seal_later_turns import _mem

FIRST = "36363636-1111-4222-8333-444444444444"
LATER = "36363636-2222-4222-8333-444444444444"
OTHER = "36363636-3333-4222-8333-444444444444"
VALUE = "Zr8wQ3nVk5Tb"


def _write(path, sid: str, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(line(r) for r in rows))


def _fetching(sid: str) -> list[dict]:
    return [user("u0", "check the db connection", sid, ts="2026-01-05T10:00:00Z"),
            asst("a0", "m0", [tool_use("toolu_0", "Bash", command="printenv DB_PASSWORD")], sid,
                 ts="2026-01-05T10:00:01Z"),
            user("r0", [tool_result("toolu_0", VALUE + "\n")], sid, ts="2026-01-05T10:00:02Z"),
            asst("b0", "n0", [text("The variable is set.")], sid, ts="2026-01-05T10:00:03Z")]


def _quoting(sid: str, cwd: str | None = None) -> list[dict]:
    kw = {"cwd": cwd} if cwd else {}
    return [user("u1", "connect to the db again", sid, ts="2026-01-06T10:00:00Z", **kw),
            asst("b1", "n1", [text(f"Connecting with psql as app using {VALUE} from yesterday.")], sid,
                 ts="2026-01-06T10:00:01Z", **kw)]


def test_a_later_session_of_the_project_withholds_a_value_fetched_in_an_earlier_one(tmp_path):
    store = tmp_path / "store"
    env = hook_env(store)
    _mem(env, "init")
    _write(tmp_path / "a" / f"{FIRST}.jsonl", FIRST, _fetching(FIRST))
    _mem(env, "import", "claude-code", str(tmp_path / "a" / f"{FIRST}.jsonl"))
    _write(tmp_path / "b" / f"{LATER}.jsonl", LATER, _quoting(LATER))
    _mem(env, "import", "claude-code", str(tmp_path / "b" / f"{LATER}.jsonl"))
    shown = _mem(env, "show", LATER[:13]).stdout
    assert "Connecting with psql as app using [REDACTED:sealed-value] from yesterday." in shown, shown
    _mem(env, "gc", "--prune=now")
    assert scan_store(store, [VALUE.encode()]) == []
    body = (store / SESSION_RULES_FILE).read_text()
    assert "project:" in body and "proj" not in body.replace("project:", "") and VALUE.lower() not in body.lower()


def test_another_projects_session_is_not_withheld_by_it(tmp_path):
    """Bounded: the value is the project's; a session of another project quoting the same string keeps it."""
    store = tmp_path / "store"
    env = hook_env(store)
    _mem(env, "init")
    _write(tmp_path / "a" / f"{FIRST}.jsonl", FIRST, _fetching(FIRST))
    _mem(env, "import", "claude-code", str(tmp_path / "a" / f"{FIRST}.jsonl"))
    _write(tmp_path / "c" / f"{OTHER}.jsonl", OTHER, _quoting(OTHER, cwd="/home/u/elsewhere"))
    _mem(env, "import", "claude-code", str(tmp_path / "c" / f"{OTHER}.jsonl"))
    shown = _mem(env, "show", OTHER[:13]).stdout
    assert f"using {VALUE} from yesterday" in shown, shown


def test_one_value_under_two_scopes_or_two_sealed_keys_is_withheld_once():
    """The same digest on two lines (a value under its session and its project; one value sealed under two
    keys) sent ``withhold_sealed_values`` into endless recursion (RecursionError: the import failed)."""
    import os

    from objstore.core.objects import normalize_value
    from objstore.memory.sealrules import SealRules, rule_digest, withhold_sealed_values
    key = os.urandom(32)
    d = rule_digest(key, normalize_value(VALUE))
    for scopes in (("user/remembered/a", "user/remembered/b"), (FIRST, "project:0011223344556677")):
        rules = SealRules(key, [(k, d, len(normalize_value(VALUE))) for k in scopes])
        assert withhold_sealed_values(f"using {VALUE} now", rules) == ("using [REDACTED:sealed-value] now", 1)
