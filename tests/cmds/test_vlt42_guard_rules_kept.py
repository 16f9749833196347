"""test41 T23: ``mem import jsonl --guard-passphrase-file`` into a store
that had any sealed key (its ``seal-rules`` holds rules under its own key)
dropped the export's ``forget KEY`` rules ("not kept: this store's
seal-rules holds rules under its own key"), so an agent's spaced or
comma spelling of a forgotten value was written there, and a captured
turn kept it.  ``seal-rules`` now holds a further section under the
export's key: the rules are kept, matched, re-exported, and fsck reads
the file as sound.  Real ``mem`` processes, the prompt hook included."""

from __future__ import annotations

from tests.hooks._util import hook_env, wait_store_processes_gone
from tests.hooks.test_remember_asked import _Session
from tests.hooks.test_seal_later_turns import _mem

VALUE = "wombat-cedar-6612-anchor"       # forget KEY in the exporting store
OWN = "otter-lantern-5521-quay"          # forget KEY in the importing store
SEALED = "kestrel-harbor-2044-basin"     # sealed in the importing store
AGENT = {"MEM_AGENT": "claude"}
PERSON = {"MEM_AGENT": "0"}
SPELLINGS = ("the box is wombat cedar 6612 anchor", "wombat,cedar,6612.anchor", "Wombat_Cedar_6612_Anchor")


def test_a_guard_imported_into_a_store_with_its_own_rules_keeps_them(mem, tmp_path):
    a = str(tmp_path / "a")
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem("--home", a, "remember", "project/p/tok", VALUE, env=PERSON)
    mem("--home", a, "forget", "project/p/tok", "--yes", env=PERSON)
    out = tmp_path / "guarded.jsonl"
    mem("--home", a, "export", "-o", str(out), "--guard-passphrase-file", str(pp), env=PERSON)

    s = _Session(tmp_path / "b")   # the importing store: a vault, a sealed key, a forget of its own
    b = str(s.store)
    wait_store_processes_gone(s.store)
    mem("--home", b, "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    mem("--home", b, "remember", "user/door", SEALED, "--sensitivity", "secret", env=PERSON)
    mem("--home", b, "remember", "project/c/own", OWN, env=PERSON)
    mem("--home", b, "forget", "project/c/own", "--yes", env=PERSON)
    own_key = (s.store / "seal-rules").read_text().split("\n")[0]
    r = mem("--home", b, "import", "jsonl", str(out), "--guard-passphrase-file", str(pp), env=PERSON)
    assert "not kept" not in r.stderr, r.stderr
    assert "kept the export's forget guard: 1 tombstone digest, " in r.stderr and " 0 forgotten" not in r.stderr
    text = (s.store / "seal-rules").read_text()
    assert text.split("\n")[0] == own_key and text.count("mem-seal-rules 1 ") == 2, text
    for v in (VALUE, *SPELLINGS, "the old one was otter lantern 5521 quay", "kestrel harbor 2044 basin"):
        r = mem("--home", b, "remember", "project/q/a", v, env=AGENT, exit_code=6)
        assert "forgotten" in r.stderr or "sealed" in r.stderr, (v, r.stderr)
    r = mem("--home", b, "fsck", env=PERSON)
    assert "seal-rules" not in r.stdout + r.stderr, r.stdout + r.stderr

    # the person's prompt quoting all three, captured by the prompt hook: each stored withheld
    s.prompt("the box is wombat cedar 6612 anchor, the door kestrel harbor 2044 basin, and otter lantern 5521 quay")
    s.stop("ok")
    wait_store_processes_gone(s.store)
    env = {k: v for k, v in hook_env(s.store).items() if k != "MEM_AGENT"}
    shown = _mem(env, "show", s.sid[:8]).stdout
    for gone in ("wombat cedar", "kestrel harbor", "otter lantern"):
        assert gone not in shown, shown
    assert "[REDACTED:forgotten-value]" in shown and "[REDACTED:sealed-value]" in shown, shown

    # unsealing its own key keeps the imported section; a re-export carries it to a third store with rules
    mem("--home", b, "unseal", "user/door", "--passphrase-file", str(pp), env=PERSON)
    assert (s.store / "seal-rules").read_text().count("mem-seal-rules 1 ") == 2
    mem("--home", b, "remember", "project/q/a", SPELLINGS[1], env=AGENT, exit_code=6)
    again = tmp_path / "again.jsonl"
    mem("--home", b, "export", "-o", str(again), "--guard-passphrase-file", str(pp), env=PERSON)
    d = str(tmp_path / "d")
    mem("--home", d, "remember", "project/d/x", "heron-quartz-7310-mill", env=PERSON)
    mem("--home", d, "forget", "project/d/x", "--yes", env=PERSON)
    r = mem("--home", d, "import", "jsonl", str(again), "--guard-passphrase-file", str(pp), env=PERSON)
    assert "not kept" not in r.stderr, r.stderr
    for v in SPELLINGS + ("otter lantern 5521 quay", "heron quartz 7310 mill"):
        mem("--home", d, "remember", "project/q/a", v, env=AGENT, exit_code=6)
