"""Session 11's fresh tester, credentials (lane scan12): every transcript the
store knows a path of is scanned and scrubbed, whoever captured it (the
hooks' cursors, not only ``mem import``'s ledger); a name (key, ``--session``,
``--agent``) holding any credential shape the value redaction knows is
refused, naming its field; ``mem scan`` also reads names; a value on the
line after its label is redacted for every label; quarantined bytes never
give a false match.  Real files, real ``mem`` processes."""

from __future__ import annotations

import json

import pytest

from tests.hooks._util import asst, hook_env, line, payload, run_hook, text, turns, user

SID = "5d1e6f0a-0000-4000-8000-00000000c0de"
CANARY = "zebracanary4417"


def _hooked_transcript(tmp_path, store_path):
    """A transcript captured by a real ``mem hook claude-code`` Stop event
    (never imported): its path is known only to the hook's cursor."""
    proj = tmp_path / "claude" / "projects" / "-home-u-proj"
    proj.mkdir(parents=True)
    t = proj / f"{SID}.jsonl"
    t.write_bytes(line(user("u1", f"remember the {CANARY} flag", SID))
                  + line(asst("a1", "m1", [text(f"noted: {CANARY}")], SID)))
    rc, _out, err, _s = run_hook(store_path, payload("Stop", SID, t), env=hook_env(store_path, MEM_HOOK_FORK="0"))
    assert rc == 0, err
    assert any(CANARY in x[3] for x in turns(store_path)), "the hook captured nothing"
    assert not (store_path / "cache" / "imported-files").exists()   # not through mem import
    return t


def test_scan_and_scrub_sources_reach_transcripts_the_hooks_captured(tmp_path, mem, store_path):
    t = _hooked_transcript(tmp_path, store_path)
    r = mem("scan", CANARY, "--no-remotes", "--json", exit_code=1)
    assert {"place": "transcript", "where": str(t), "detail": "2 line(s)"} in r.json, r.json
    r = mem("forget", "--match", CANARY, "--scrub-sources", "--yes")
    assert CANARY.encode() not in t.read_bytes()
    assert b"[REDACTED]" in t.read_bytes()
    r = mem("scan", CANARY, "--no-remotes", "--json", exit_code=None)
    assert not [h for h in (r.json if r.stdout.strip() else []) if h["place"] == "transcript"]


def test_a_scrubbed_hooked_transcript_brings_nothing_back_on_the_next_hook(tmp_path, mem, store_path):
    """The scrub rewrites the file under the hook's cursor: the next hook
    re-reads it (a changed file) and stores no forgotten text."""
    t = _hooked_transcript(tmp_path, store_path)
    mem("forget", "--match", CANARY, "--scrub-sources", "--yes")
    with open(t, "ab") as f:
        f.write(line(user("u2", "next prompt", SID)) + line(asst("a2", "m2", [text("next answer")], SID)))
    rc, _out, err, _s = run_hook(store_path, payload("Stop", SID, t), env=hook_env(store_path, MEM_HOOK_FORK="0"))
    assert rc == 0, err
    now = [x[3] for x in turns(store_path)]
    assert not [x for x in now if CANARY in x], now
    assert "next prompt" in now


# -- 2/5: the one name rule refuses every credential shape, naming the field -------------------------
ANT = "sk-ant-api03-" + "Qm9vZ1x7Tz3RkP0aLw9vN2cYd8Hf1JeUq4sX"
SLACK = "xoxb-" + "2048613395-Qm9vZ1x7Tz3RkP0a"
GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.mark.parametrize("args, field, secret", [
    (("project/x/" + ANT, "v"), "key", ANT),
    (("project/x/" + SLACK, "v"), "key", SLACK),
    (("project/api/Password: Zq7mm", "v"), "key", "Zq7mm"),
    (("project/x/pwd=Zq7mm", "v"), "key", "Zq7mm"),
    (("project/x/secret - Kx9mm", "v"), "key", "Kx9mm"),
    (("user/editor", "vim", "--session", SLACK), "session", SLACK),
    (("user/editor", "vim", "--session", "S1", "--agent", ANT), "agent", ANT),
    (("user/editor", "vim", "--session", "S1", "--agent", GHP), "agent", GHP),
    (("user/editor", "vim", "--session", f"S1.agent-{GHP}"), "agent", GHP),
])
def test_a_name_holding_any_credential_shape_is_refused(mem, store_path, args, field, secret):
    mem("init")
    r = mem("remember", *args, exit_code=2)
    assert f"the {field} holds a credential" in r.stderr, r.stderr
    assert secret not in r.stderr
    assert not any(secret in p.name for p in store_path.rglob("*"))
    mem("scan", secret, "--no-remotes")   # found nowhere


@pytest.mark.parametrize("key", ["project/x/db-password-policy", "project/api/token-budget",
                                 "project/x/secret-rotation", "project/x/password: see below"])
def test_names_that_only_talk_about_credentials_are_kept(mem, key):
    mem("remember", key, "v")


def test_name_hits_finds_what_redact_finds_in_a_value():
    from objstore.core.redact import name_hits, redact
    for secret in (ANT, SLACK, GHP, "AKIA" + "Q3EGRJ7TZNPW2XVA"):
        assert redact(secret).hits and name_hits(f"project/x/{secret}") and name_hits(f"a-{secret}".lstrip("a-"))
    assert name_hits("S1") == () and name_hits("project/api/staging-password") == ()


# -- 2: mem scan reads the names objects carry --------------------------------------------------------
def test_scan_finds_a_text_in_a_namespace_an_owner_and_a_session_id(tmp_path, mem, store_path):
    mem("remember", "project/x/port", "5432", "--session", "wombat-session-31", "--agent", "quokka-agent")
    mem("remember", "project/x/host", "db1", env={"MEM_AGENT": "numbat-bot"})
    for text_, detail in (("wombat-session-31", "fact project/x/port v1"), ("quokka-agent", "fact project/x/port v1"),
                          ("numbat-bot", "fact project/x/host v1")):
        r = mem("scan", text_, "--no-remotes", "--json", exit_code=1)
        assert [h for h in r.json if h["place"] == "object" and h["detail"] == detail], \
            (text_, r.json)
    t = _hooked_transcript(tmp_path, store_path)
    r = mem("scan", SID[-12:], "--no-remotes", "--json", exit_code=1)
    assert [h for h in r.json if h["place"] == "object" and h["detail"].startswith(f"turn {SID}")], r.json
    assert t.exists()


# -- 3: a value after any label, on its line or the next, and the short-value floor ------------------
REDACTED_VALUES = ["Password:\nZq7mmXy2", "secret:\nKx9mmAb3", "Password -\nKx9mmAb3", "secret:\n  Kx9mm",
                   "Password: Zq7mm", "pwd=Zq7mm", "secret - Kx9mm", "db_pass: ab12", "passwd -\n  Zq7mm"]
KEPT_VALUES = ["password: see below", "Password: hello", "secret: none", "password - see below",
               "Password: 12345", "secret:\n  type: string", "the secret - hidden", "Password: ab1 is wrong",
               "pwd: ~/src2", "password:\n- item one"]


@pytest.mark.parametrize("value", REDACTED_VALUES)
def test_a_labelled_value_is_redacted_on_remember(mem, value):
    secret = value.split()[-1]
    mem("remember", "project/x/notes", f"login for the box\n{value}\nend")
    got = mem("get", "project/x/notes").stdout
    assert secret not in got and "[REDACTED:" in got, got


@pytest.mark.parametrize("value", KEPT_VALUES)
def test_prose_after_a_label_is_kept(value):
    from objstore.core.redact import redact
    assert redact(value).text == value


def test_a_labelled_value_on_the_next_line_is_redacted_on_import(tmp_path, mem, store_path):
    t = tmp_path / "t" / f"{SID}.jsonl"
    t.parent.mkdir()
    t.write_bytes(line(user("u1", "secret:\nKx9mmAb3\nand Password -\nZq7mm", SID))
                  + line(asst("a1", "m1", [text("ok")], SID)))
    mem("import", "claude-code", str(t))
    texts = " ".join(x[3] for x in turns(store_path))
    assert "Kx9mmAb3" not in texts and "Zq7mm" not in texts and texts.count("[REDACTED:") == 2, texts


# -- 4: the quarantine is searched by its objects, never a false match -----------------------------
def test_scan_reads_a_quarantined_pack_by_its_objects_and_never_matches_falsely(invoke, tmp_path, store_path, mem):
    from tests.memory.test_refill import SID as RSID, _flip_block_of, _texts, _transcript
    src = tmp_path / "projects"
    _transcript(src / "-home-dev-acme-api" / f"{RSID}.jsonl", _texts())
    invoke("import", "claude-code", str(src))
    invoke("gc", "--prune=now")
    last = invoke("show", RSID, "--json").json["turns"][-1]["id"]
    _flip_block_of(store_path, last, 0.5)
    invoke("fsck", "--repair", "--json", exit_code=None)
    quarantined = [p for p in (store_path / "quarantine").rglob("*.pack")]
    assert quarantined, "the repair set no pack aside"
    r = mem("scan", "zzqq-never-stored-9931", "--no-remotes", "--json", exit_code=3)   # nowhere it could read
    assert r.json == [] and "skipped" in r.stderr and "quarantine" in r.stderr, (r.stdout, r.stderr)
    r = mem("scan", "marker0x", "--no-remotes", "--json", exit_code=1)       # an object that still decompresses
    assert [h for h in r.json if h["place"] == "store file" and "/quarantine/" in h["where"]], r.json
