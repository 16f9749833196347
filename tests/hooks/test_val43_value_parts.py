"""test42 T12, fresh42 F17/F18: ``mem forget KEY`` of a value of several
words holding a code ("gate 7731-4402 north", "router admin at 10.0.0.1,
code Osprey-6621") wrote no forgotten-value rule, so the whole value, and
its code quoted alone or spaced, came back in every later turn, an agent's
write and a guarded export (0 rules); a sealed value's secret word quoted
alone ("Kestrel-5517" out of "router admin at 10.0.0.1, code
Kestrel-5517") was written, captured, searched and injected in the clear.
Now each word of such a value shaped as its secret (a word of 8+ characters
holding a digit: ``sealsources.secret_parts``) is a form of its own, for
forget and seal alike, and a forgotten value holding one gets the rule of
its whole too; a value's ordinary words never ("use the north gate": the
later "north gate" stays).  Real ``mem`` processes: the prompt hook, an
agent's ``remember``, ``import claude-code``, a guarded export; the store's
bytes after ``gc --prune=now``."""

from __future__ import annotations

from objstore import scan_store
from objstore.memory.sealsources import quoted_forms
from tests.hooks._util import asst, line, text, user, wait_store_processes_gone
from tests.hooks.test_remember_asked import _Session
from tests.hooks.test_seal_later_turns import _mem
from tests.hooks.test_seal_two_word_values import sealed_session

AGENT = {"MEM_AGENT": "claude"}
OTHER_SID = "e0e0e0e0-0000-4000-8000-0000000000a3"


def _env(s: _Session) -> dict:
    from tests.hooks._util import hook_env
    return {k: v for k, v in hook_env(s.store).items() if k != "MEM_AGENT"}


def _import_session(tmp_path, env, words: list[str]) -> None:
    """``mem import claude-code`` of a transcript of another session whose prompts are ``words``."""
    d = tmp_path / "home" / ".claude" / "projects" / "-home-u-proj"
    d.mkdir(parents=True)
    recs = b"".join(line(user(f"iu{i}", w, OTHER_SID, ts=f"2026-01-05T10:0{i}:00Z"))
                    + line(asst(f"ia{i}", f"imsg_{i}", [text(f"ok: {w}")], OTHER_SID, ts=f"2026-01-05T10:0{i}:01Z"))
                    for i, w in enumerate(words))
    (d / f"{OTHER_SID}.jsonl").write_bytes(recs)
    _mem(env, "import", "claude-code", str(d.parent))


def test_a_forgotten_value_of_several_words_and_its_code_never_come_back(tmp_path):
    s = _Session(tmp_path)
    env = _env(s)
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    _mem(env, "vault", "init", "--passphrase-file", str(pp))
    _mem(env, "remember", "project/team/door", "gate 7731-4402 north")
    _mem(env, "remember", "project/f/a", "router admin at 10.0.0.1, code Osprey-6621")
    _mem(env, "remember", "project/team/way", "use the north gate")   # ordinary words: no part of it a rule
    for key in ("project/team/door", "project/f/a", "project/team/way"):
        _mem(env, "forget", key, "--yes")
    s.prompt("the door is gate 7731-4402 north ok")
    s.prompt("GATE 7731.4402 NORTH")
    s.prompt("router admin at 10.0.0.1, code Osprey-6621")
    s.prompt("Osprey-6621 is the router code")
    s.prompt("we take the north gate daily")
    s.stop("Noted: code 7731 4402 and Osprey-6621.")
    wait_store_processes_gone(s.store)
    for body in ("gate 7731 4402 north", "7731-4402", "the router code is Osprey-6621", "ssh to 10.0.0.1"):
        r = _mem({**env, **AGENT}, "remember", "project/t/v", body, ok=(6,))
        assert "forgotten" in r.stderr, (body, r.stderr)
    _mem({**env, **AGENT}, "remember", "project/t/w", "the north gate is open")
    _import_session(tmp_path, env, ["the code is 7731-4402", "router Osprey-6621 at 10.0.0.1"])
    r = _mem(env, "export", "-o", str(tmp_path / "g.jsonl"), "--guard-passphrase-file", str(pp))
    assert " 0 forgotten-value rules" not in r.stderr and "forgotten-value rule" in r.stderr, r.stderr
    _mem(env, "gc", "--prune=now")
    found = scan_store(s.store, [b"7731-4402", b"7731.4402", b"7731 4402", b"Osprey-6621", b"10.0.0.1"])
    assert found == [], found
    shown = _mem(env, "show", s.sid[:8]).stdout
    assert "we take the north gate daily" in shown and shown.count("[REDACTED:forgotten-value]") >= 6, shown
    assert _mem(env, "get", "project/t/w").stdout.strip() == "the north gate is open"


def test_a_sealed_values_secret_word_quoted_alone_is_withheld(tmp_path):
    values = ["router admin at 10.0.0.1, code Kestrel-5517", "door: side entrance, keypad Falcon-7734",
              "vpn login for the lab is ops-admin with Marlin-4490"]
    s, env = sealed_session(tmp_path, values, "v43")
    _mem(env, "remember", "project/s/gate", "gate 7731-4402 north")   # a plain key sealed afterwards
    _mem(env, "seal", "project/s/gate")
    for body in ("the router code is Kestrel-5517 ok", "use Falcon-7734 at the side door",
                 "the lab vpn wants Marlin-4490", "the gate takes 7731 4402"):   # (a "gate code" is a PIN: cma43)
        r = _mem({**env, **AGENT}, "remember", "project/s/x", body, ok=(6,))
        assert "sealed" in r.stderr, (body, r.stderr)
    _mem({**env, **AGENT}, "remember", "project/s/y", "the side entrance by the north gate is open")
    s.prompt("the router code is Kestrel-5517 ok")
    s.prompt("use Falcon-7734 at the side door; the lab vpn wants Marlin-4490")
    s.prompt("the north gate opens with 7731-4402 today")
    s.stop("Done: Kestrel-5517, Falcon-7734.")
    wait_store_processes_gone(s.store)
    _mem(env, "gc", "--prune=now")
    found = scan_store(s.store, [b"Kestrel-5517", b"Falcon-7734", b"Marlin-4490", b"7731-4402", b"7731 4402",
                                 b"10.0.0.1"])
    assert found == [], found
    assert "Falcon" not in _mem(env, "search", "Falcon", ok=(0, 1)).stdout
    shown = _mem(env, "show", s.sid[:8]).stdout
    assert "the router code is [REDACTED:sealed-value] ok" in shown and "at the side door" in shown, shown
    assert "the north gate opens with [REDACTED:sealed-value] today" in shown, shown


def test_a_values_secret_words_are_forms_and_its_ordinary_words_are_not():
    assert quoted_forms("gate 7731-4402 north") == ["gate 7731-4402 north", "7731-4402"]
    assert quoted_forms("router admin at 10.0.0.1, code Osprey-6621")[1:] == ["10.0.0.1", "Osprey-6621"]
    assert quoted_forms("Osprey-6621 is the router code")[1:] == ["Osprey-6621"]
    assert "Marlin-4490" in quoted_forms("vpn login for the lab is ops-admin with Marlin-4490", said_secret=True)
    # a word of letters only, a number, a date, a time, a version, a port, the loopback: never a form alone
    for v in ("use the north gate", "room 4 floor 12345678", "freeze from 2024-01-05 to 05/01/2024 at 12:30:45",
              "build on ubuntu-22.04 with python3.11 and server01", "serve on localhost:8080 and 127.0.0.1",
              "we sold 10,000,000 copies"):
        for said_secret in (False, True):
            assert all(len(f.split()) > 1 for f in quoted_forms(v, said_secret)), (v, quoted_forms(v, said_secret))


def test_names_of_tools_platforms_and_versions_in_a_value_are_no_secret_words():
    """test43 T1: every word of 8+ characters with a digit was a form, so a forgotten value naming "oauth2-proxy"
    or "k8s-cluster" withheld those words in every later turn and refused an agent's fact about them.  Letters and
    digits mixed count from 4 digits, and not as a version, a size, a range, a time stamp or a platform."""
    value = "deploy oauth2-proxy to the k8s-cluster with token Zq81-xx19-pp04 using utf8mb4_unicode_ci"
    assert quoted_forms(value)[1:] == ["Zq81-xx19-pp04"], quoted_forms(value)
    names = ("e2e-tests x86_64-linux arm64-v8a 3rd-party GPT-4o-mini IPv6-only node-v18.17.0 v2.14.3-rc1 v1.2.3.4 "
             "/usr/lib64 2x-large 100-200ms 300x250px 1920x1080")
    assert quoted_forms(f"build {names}")[1:] == [], quoted_forms(f"build {names}")
    assert quoted_forms("built 2024-01-05T10:00 on arm64")[1:] == [], quoted_forms("built 2024-01-05T10:00 on arm64")
    assert "db-7781-prod.internal" in quoted_forms("the replica is db-7781-prod.internal now")


def test_a_forgotten_values_tool_names_stay_writable_and_captured(tmp_path):
    s, env = sealed_session(tmp_path, [], "t1")
    _mem(env, "remember", "project/infra/deploy",
         "deploy oauth2-proxy to the k8s-cluster with token Zq81-xx19-pp04 using utf8mb4_unicode_ci")
    _mem(env, "forget", "project/infra/deploy", "--yes")
    agent = {**env, **AGENT}
    _mem(agent, "remember", "project/infra/notes", "the oauth2-proxy sidecar runs on the k8s-cluster")
    _mem(agent, "remember", "project/db/collation", "tables use utf8mb4_unicode_ci")
    _mem(agent, "remember", "project/infra/tok", "the proxy wants Zq81-xx19-pp04", ok=(6,))
    s.prompt("the oauth2-proxy sidecar on the k8s-cluster keeps crashing, token Zq81-xx19-pp04")
    s.stop("noted")
    wait_store_processes_gone(s.store)
    shown = _mem(env, "show", s.sid[:8]).stdout
    assert "the oauth2-proxy sidecar on the k8s-cluster keeps crashing" in shown, shown
    assert "Zq81-xx19-pp04" not in shown, shown
