"""exp41 (test40 T12, fresh40 F8): after ``mem export`` and ``mem import
jsonl`` into another store, every forgotten value (``forget KEY`` and
``forget --match``) could be written back by an agent there: what lets a
tombstone recognize its value (``tombstone-digests``, the ``forgotten:``
lines of ``seal-rules``) is local and never travelled; export said nothing.

Now a plain export says on stderr that the guard is not in the file, and
``--guard-passphrase-file`` carries it sealed to a passphrase (never a
forgotten value, the hash key or a digest in the clear); the import with
the same passphrase keeps it, and the importing store refuses an agent's
write of a forgotten value (remember, memory propose) and withholds it in
a captured prompt; fsck counts it, names its loss (exit 13); gc and a
later forget keep it.  Real ``mem`` processes throughout."""

from __future__ import annotations

import json

from tests.hooks._util import hook_env, wait_store_processes_gone
from tests.hooks.test_remember_asked import _Session
from tests.hooks.test_seal_later_turns import _mem

VALUE = "wombat-cedar-6612-anchor"     # forget KEY
TEXT = "ferret-maple-9090"             # forget --match
AGENT = {"MEM_AGENT": "claude"}


def _forgets(mem, pp):
    mem("remember", "project/p/tok", VALUE)
    mem("forget", "project/p/tok", "--yes")
    mem("forget", "--match", TEXT, "--yes")
    pp.write_text("correct horse battery\n")


def _no_secret_in(store, data: bytes):
    """The export holds no forgotten value (any spelling) and none of the local guard files' secrets."""
    low = data.lower()
    for s in (VALUE, TEXT, "wombat cedar", "ferret maple", "wombatcedar", "ferretmaple"):
        assert s.encode() not in low, s
    key = (store / "hash-key").read_text().split()[-1]
    rules_key = (store / "seal-rules").read_text().split("\n")[0].split()[-1]
    plain = [ln.split()[1] for ln in (store / "tombstone-digests").read_text().splitlines()[1:]]
    for hexed in (key, rules_key, *plain):
        assert hexed.encode() not in low


def test_a_plain_export_says_the_guard_is_not_in_it(store_path, mem, tmp_path):
    pp = tmp_path / "pp"
    _forgets(mem, pp)
    out = tmp_path / "plain.jsonl"
    r = mem("export", "-o", str(out))
    assert "but not the forget guard" in r.stderr and "an agent can write a forgotten value back" in r.stderr, r.stderr
    assert "--guard-passphrase-file" in r.stderr
    _no_secret_in(store_path, out.read_bytes())
    doc = json.loads(mem("export", "-o", str(tmp_path / "j.jsonl"), "--json").stderr)
    assert doc["guard"] == {"carried": False, "pairs": 3, "rules": doc["guard"]["rules"]} and doc["guard"]["rules"] > 0
    # an older export (no guard) still imports, with today's note; asking for a guard it lacks is said too
    r = mem("--home", str(tmp_path / "b"), "import", "jsonl", str(out), "--guard-passphrase-file", str(pp))
    assert "the export carries no forget guard" in r.stderr, r.stderr
    assert "cannot stop their values in this store" in r.stderr
    mem("--home", str(tmp_path / "b"), "remember", "project/q/a", VALUE, env=AGENT)   # (stated: no guard)


def test_the_guard_travels_sealed_and_stops_every_forgotten_value_there(store_path, mem, tmp_path):
    pp = tmp_path / "pp"
    _forgets(mem, pp)
    out = tmp_path / "guarded.jsonl"
    r = mem("export", "-o", str(out), "--guard-passphrase-file", str(pp))
    assert "carries the forget guard" in r.stderr and "sealed to your passphrase" in r.stderr, r.stderr
    _no_secret_in(store_path, out.read_bytes())
    assert json.loads(out.read_text().splitlines()[1]).keys() == {"guard"}

    # the importing store: a session's store the prompt hook writes to
    s = _Session(tmp_path / "b")
    b = str(s.store)
    wait_store_processes_gone(s.store)
    (tmp_path / "bad").write_text("not the passphrase\n")
    before = json.loads(mem("--home", b, "fsck", "--json").stdout)
    r = mem("--home", b, "import", "jsonl", str(out), "--guard-passphrase-file", str(tmp_path / "bad"), exit_code=12)
    assert "wrong passphrase for the export's forget guard" in r.stderr
    after = json.loads(mem("--home", b, "fsck", "--json").stdout)
    assert (after["objects"], after["refs"]) == (before["objects"], before["refs"])   # nothing imported
    r = mem("--home", b, "import", "jsonl", str(out), "--guard-passphrase-file", str(pp))
    assert "kept the export's forget guard: 3 tombstone digests" in r.stderr, r.stderr
    assert "cannot stop" not in r.stderr

    def refused():
        for v in (VALUE, f"the box is {VALUE}", "the box is wombat cedar 6612 anchor", TEXT, "see ferret maple 9090"):
            r = mem("--home", b, "remember", "project/q/a", v, env=AGENT, exit_code=6)
            assert "forgotten" in r.stderr, (v, r.stderr)
        for v in (f"the box is {VALUE}", "ping ferret maple 9090 today"):
            r = mem("--home", b, "memory", "propose", "add", "memory", v, env=AGENT, exit_code=6)
            assert "forgotten" in r.stderr, (v, r.stderr)
    refused()
    r = mem("--home", b, "fsck")
    assert "guard: 4 imported tombstones recognize their values" in r.stdout, r.stdout
    assert json.loads(mem("--home", b, "fsck", "--json").stdout)["carried_guard"] == 4

    # the person's prompt quoting both, captured by the prompt hook: stored withheld
    s.prompt(f"the box is {VALUE} and ping {TEXT} now")
    s.stop("ok")
    wait_store_processes_gone(s.store)
    env = {k: v for k, v in hook_env(s.store).items() if k != "MEM_AGENT"}
    shown = _mem(env, "show", s.sid[:8]).stdout
    assert VALUE not in shown and TEXT not in shown and "[REDACTED:forgotten-value]" in shown, shown

    # gc and a forget of the importing store keep the carried guard
    mem("--home", b, "gc", "--prune=now")
    mem("--home", b, "remember", "project/q/other", "otter-lantern-5521-quay")
    mem("--home", b, "forget", "project/q/other", "--yes")
    refused()
    assert "guard: 4 imported" in mem("--home", b, "fsck").stdout

    # its loss is named (exit 13); importing the same file again puts it back
    digests = s.store / "tombstone-digests"
    digests.write_bytes(digests.read_bytes().splitlines(keepends=True)[0])
    r = mem("--home", b, "fsck", exit_code=13)
    assert "tombstone-digests lacks their lines" in r.stdout and "4 tombstones that 'mem import jsonl' brought" \
        in r.stdout, r.stdout
    mem("--home", b, "import", "jsonl", str(out), "--guard-passphrase-file", str(pp))
    assert "guard: 4 imported" in mem("--home", b, "fsck").stdout
    refused()


def test_a_guarded_export_imported_without_its_passphrase_says_how(store_path, mem, tmp_path):
    pp = tmp_path / "pp"
    _forgets(mem, pp)
    out = tmp_path / "guarded.jsonl"
    mem("export", "-o", str(out), "--guard-passphrase-file", str(pp))
    c = str(tmp_path / "c")
    mem("--home", c, "remember", "project/c/own", "otter-lantern-5521-quay")   # seal-rules of its own key
    mem("--home", c, "forget", "project/c/own", "--yes")
    r = mem("--home", c, "import", "jsonl", str(out))
    assert "the export carries its forget guard sealed: import it again with --guard-passphrase-file" in r.stderr
    mem("--home", c, "remember", "project/q/a", VALUE, env=AGENT)     # not applied: stated
    r = mem("--home", c, "import", "jsonl", str(out), "--guard-passphrase-file", str(pp))
    assert "kept the export's forget guard: 3 tombstone digests, " in r.stderr, r.stderr
    assert " 0 forgotten-value rules" not in r.stderr and "not kept" not in r.stderr   # (vlt42, test41 T23)
    for v in (VALUE, f"the box is {VALUE}", "see ferret maple 9090", "the box is wombat cedar 6612 anchor"):
        mem("--home", c, "remember", "project/q/b", v, env=AGENT, exit_code=6)
    mem("export", "--format", "markdown", "-o", str(tmp_path / "md"), "--guard-passphrase-file", str(pp), exit_code=2)
    (tmp_path / "short").write_text("abc\n")
    r = mem("export", "-o", str(tmp_path / "x.jsonl"), "--guard-passphrase-file", str(tmp_path / "short"), exit_code=2)
    assert not (tmp_path / "x.jsonl").exists()
