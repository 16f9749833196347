"""What a new ``mem`` process of the commands an agent or a hook runs
(``get``, ``recall``, ``remember``, the prompt hook) leaves unimported:
each module below was once on one of these paths and cost start-up time
(docs/benchmarks.md, "Start-up" and the sessions' sections).  The modules
are listed by the process itself, from inside ``cmds.entry``'s last exit
step, as the console script runs it."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO, wait_remember_done
from tests.hooks._util import until_within_budget

# the list is written from inside entry's own last exit step (_skip_teardown, which ends
# the process by os._exit: an atexit callback registered before it would never run)
PROBE = ("import sys\nimport cmds.entry as e\n_leave = e._skip_teardown\n"
         "def _report():\n"
         "    sys.stderr.write('MODULES ' + ' '.join(sorted(sys.modules)) + '\\n')\n"
         "    import re\n"
         "    sys.stderr.write('PATTERNS ' + repr([k[1] for k in re._cache]) + '\\n')\n"
         "    _leave()\n"
         "e._skip_teardown = _report\ne.entry()\n")

#: never on any of these paths: click (the lean path), OpenSSL (hashlib), the
#: dataclasses chain (inspect, ast, dis), secrets, socket, shutil with bz2/lzma,
#: typing (annotations only: ``TYPE_CHECKING = False`` blocks) and with it the
#: ``cbor2`` package's ``__init__`` (objstore.core.cborext loads its C codec alone)
EVERY_PATH = {"click", "hashlib", "_hashlib", "dataclasses", "inspect", "ast", "secrets", "socket", "shutil",
              "bz2", "lzma", "tempfile", "typing", "cbor2"}
BANNED = {
    # one ref and one object read: no index, no sessions, no review queue, no redaction
    "get": EVERY_PATH | {"json", "tantivy", "objstore.index.searchindex", "objstore.memory.sessions",
                         "objstore.memory.proposals", "objstore.core.redact", "cmds._hookrun"},
    # the index and the facts, not the sessions module (only --from-agent needs it)
    "recall": EVERY_PATH | {"objstore.memory.sessions", "objstore.memory.documents", "objstore.memory.proposals",
                            "objstore.core.redact", "cmds._hookrun"},
    # the caller's process: its index commit (tantivy) runs in a child after the answer; the
    # lock's holder record is written without json
    "remember": EVERY_PATH | {"tantivy", "objstore.index.searchindex", "objstore.memory.sessions",
                              "cmds._hookrun", "select", "signal", "json"},
    # the prompt hook's own process fixes the prompt's key (capture.snapshot) and forks the write: the
    # capture chain (live, sync, rollup, the turn appender) is its child's (session 18, lat18)
    "hook": EVERY_PATH | {"objstore.capture.live", "objstore.capture.sync", "objstore.capture.rollup",
                          "objstore.memory.appender", "objstore.memory.indexbatch",
                          # nor the review queue: only a session-start block reads its conflicts
                          "objstore.memory.queue", "objstore.memory.proposals",
                          # its watchdog uses the C module _signal (enum-wrapped in signal.py; session 21)
                          "signal"},
}
# the readers' locks are _thread's: threading's import was ~0.8 ms of each (session 18, lat18)
for _path in ("get", "recall", "hook"):
    BANNED[_path] = BANNED[_path] | {"threading"}
# a reader imports no module only a write needs: the store's reflog, audit log and unfinished
# forgets are made on first use, and the facts module imports the write's helpers where it writes
# (session 20, lat20)
WRITERS = {"objstore.core.reflog", "objstore.core.audit", "objstore.core.unfinished", "objstore.memory.caller",
           "objstore.memory.tombstones"}
for _path in ("get", "recall", "hook"):
    # (the prompt hook's capture policy reads the tombstones: capture.policy)
    BANNED[_path] = BANNED[_path] | (WRITERS - {"objstore.memory.tombstones"} if _path == "hook" else WRITERS)
# a recall whose hits are turns reads no fact: the facts module (and its write checks) is imported for a
# fact hit, the sealed keys' message for a sealed key the question names; a store without a config.toml
# loads no settings table to learn it (session 31, lat31)
BANNED["recall-turns"] = BANNED["recall"] | {"objstore.memory.facts", "objstore.memory.writechecks",
                                             "objstore.core.settings"}
BANNED["recall"] |= {"objstore.core.settings"}
# the stored-time bound (a turn stamped ahead of the clock, or later than a fact it supersedes) and the marks
# of a newer sealed value (a scope with sealed names) are imported where met (session 41, rec41)
BANNED["recall"] |= {"objstore.retrieval.storedat", "objstore.retrieval.sealedmarks",
                     "cmds._hitnotes"}   # (the notes under a hit in the text answer, not in --json)
# a recall whose items state no value (a needle's) runs none of the rules that compare two items' values: they are
# imported where an item states one (session 41, rec41b)
BANNED["recall-no-values"] = BANNED["recall"] | {"objstore.retrieval.restated", "objstore.retrieval.factchange"}
# a prompt hook whose prompt clears no fact nor passage runs none of the time rules, reads no fact, no
# settings table (no config.toml) and no tombstone, and scans its transcript's prompts without the
# reader's turn building and withholding chain (session 32, lat32)
# the time rules and the decay clock: for a fact or passage the gate cleared, judged or shown
BANNED["hook-quiet"] = BANNED["hook"] | {f"objstore.retrieval.{m}" for m in (
    "timeline", "restated", "subjects", "factchange", "valueshape", "wordchange", "timeitems", "laterturns")}
# the facts module: for a fact read; the settings table: for a config.toml; the tombstones: for a capture's write
BANNED["hook-quiet"] |= {"objstore.memory.decay", "objstore.memory.facts", "objstore.memory.lost",
                         "objstore.memory.validity", "objstore.core.settings", "objstore.core.configcheck",
                         "objstore.memory.tombstones", "objstore.memory.withdrawals"}
# the transcript reader's turn building and withholding (objstore.capture.promptscan scans the prompts)
BANNED["hook-quiet"] |= {"objstore.capture.claude_code", "objstore.capture.cursors", "objstore.capture.withhold",
                         "objstore.capture.trail", "objstore.memory.sessions", "objstore.memory.provenance",
                         "objstore.core.fileid"}
# a reader opens the index without the writer's modules (a new generation, a stream, a batch): they are
# imported where the index writes (session 22, rcl22)
INDEX_WRITERS = {"objstore.index.genwriter", "objstore.index.genbuild", "objstore.index.stream"}
for _path in ("recall", "recall-turns", "recall-no-values", "hook", "hook-quiet"):
    BANNED[_path] = BANNED[_path] | INDEX_WRITERS
# get reads one ref and a chain of loose objects: no lock, no index journal, no pack code (its chain is
# read loose first while the packs are not open: Store.walk_chain), no project scope, no index errors
BANNED["get"] |= {"objstore.core.lock", "objstore.core.journal", "objstore.core.pack", "objstore.core.packfile",
                  "objstore.core.packbytes", "objstore.core.packformat", "objstore.core.packcheck", "mmap",
                  "objstore.memory.scope", "objstore.index.errors", "objstore.index"}


def modules_of(*args: str, input: str | None = None) -> set[str]:
    return probe(*args, input=input)[0]


def probe(*args: str, input: str | None = None) -> tuple[set[str], list]:
    """(modules imported, patterns compiled: ``re``'s cache) of a new ``mem`` process."""
    p = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, input=input,
                       cwd=REPO, env=dict(os.environ), timeout=60)
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("MODULES ")]
    pats = [ln for ln in p.stderr.splitlines() if ln.startswith("PATTERNS ")]
    assert len(lines) == 1 and len(pats) == 1, p.stderr
    return set(lines[0].split()[1:]), ast.literal_eval(pats[0][len("PATTERNS "):])


@pytest.fixture
def filled(store_path, tmp_path):
    """A store with a fact and a captured prompt (a turns and a facts sub-index)."""
    hook = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "S-startup", "cwd": str(tmp_path),
                       "prompt": "the staging database listens on port 5433"})
    env = {**os.environ, "MEM_HOOK_FORK": "0"}
    for args, stdin in ((["remember", "project/startup/db", "postgres 16 on port 5433"], None),
                        (["remember", "project/startup/wiki", "the owners keep the runbook in the wiki"], None),
                        (["hook", "claude-code"], hook)):
        def run(args=args, stdin=stdin) -> subprocess.CompletedProcess:
            return subprocess.run([sys.executable, "-m", "cmds", *args], input=stdin, capture_output=True, text=True,
                                  cwd=REPO, env=env, timeout=60)
        # (the hook again while it met its budget or logged a failure: under load it can fail open unstored)
        p = until_within_budget("UserPromptSubmit", run, store=store_path)[0] if stdin else run()
        assert p.returncode == 0, p.stderr
        wait_remember_done(store_path)
    # the prompt hook stores its prompt with index=False (the index journal notes it): the first
    # reader that takes the lock replays it (objstore.memory.recovery, which imports
    # memory.documents), as the Stop hook's sync would in a session; one search does it here
    # (bench/startup.py's settle), so that the probes below see a store in step
    p = subprocess.run([sys.executable, "-m", "cmds", "search", "--json", "-n", "1", "settle"], capture_output=True,
                       text=True, cwd=REPO, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    return tmp_path


@pytest.mark.parametrize("name", sorted(BANNED))
def test_a_new_process_leaves_these_modules_unimported(filled, store_path, name):
    if name == "get":
        mods = modules_of("get", "project/startup/db")
    elif name == "recall":
        mods = modules_of("recall", "--all-projects", "--json", "staging database port")
        assert "tantivy" in mods and "objstore.index.searchindex" in mods   # it did search
    elif name == "recall-no-values":
        p = subprocess.run([sys.executable, "-m", "cmds", "recall", "--all-projects", "--json", "runbook wiki"],
                           capture_output=True, text=True, cwd=REPO, env=dict(os.environ), timeout=60)
        assert p.returncode == 0, p.stderr
        assert [h["key"] for h in json.loads(p.stdout)["hits"]] == ["project/startup/wiki"], p.stdout
        mods = modules_of("recall", "--all-projects", "--json", "runbook wiki")
        assert "objstore.retrieval.timeline" in mods   # the time rules ran, and found no value to compare
    elif name == "recall-turns":
        p = subprocess.run([sys.executable, "-m", "cmds", "recall", "--all-projects", "--json", "staging listens"],
                           capture_output=True, text=True, cwd=REPO, env=dict(os.environ), timeout=60)
        assert p.returncode == 0, p.stderr
        assert {h["kind"] for h in json.loads(p.stdout)["hits"]} == {"turn"}, p.stdout   # the prompt, no fact
        mods = modules_of("recall", "--all-projects", "--json", "staging listens")
        assert "tantivy" in mods and "objstore.index.searchindex" in mods   # it did search
    elif name == "remember":
        mods = modules_of("remember", "project/startup/db", "postgres 17 on port 5433")
        wait_remember_done(store_path)   # the index commit, in the child
    else:
        # hook: a question the stored fact answers; hook-quiet: one that nothing stored matches
        prompt = "which port does the staging database use?" if name == "hook" else "how do we run the migrations again"
        transcript = filled / "S-startup-2.jsonl"   # one earlier prompt in it: the snapshot scans it
        transcript.write_text(json.dumps({"type": "user", "uuid": "u-startup-1", "sessionId": "S-startup-2",
                                          "message": {"role": "user", "content": "an earlier prompt"}}) + "\n")
        got = []

        def run() -> subprocess.CompletedProcess:
            got.append(modules_of("hook", "claude-code", input=json.dumps(
                {"hook_event_name": "UserPromptSubmit", "session_id": "S-startup-2", "cwd": str(filled),
                 "transcript_path": str(transcript), "prompt": prompt})))
            return subprocess.CompletedProcess([], 0)
        # (again while it met its budget or logged a failure: a hook that failed open searched nothing)
        until_within_budget("UserPromptSubmit", run, store=store_path)
        mods = got[-1]
        assert "tantivy" in mods   # it searched for the injection
        assert "objstore.capture.snapshot" in mods and "objstore.capture.transcript" in mods   # it read the file
    assert "objstore.core.store" in mods   # it opened the store
    assert not mods & BANNED[name], sorted(mods & BANNED[name])


#: patterns each new process once compiled at import or on a key, an id or a pack's name, now
#: string tests or compiled on first use (docs/benchmarks.md, "Session 15 (branch lat15)")
NOT_COMPILED = {r"[0-9a-f]+", r"pack-([0-9a-f]{64})\.idx", r"pack-([0-9a-f]{64})\.pack", rb"([0-9a-f]{64}) ([^\n]+)\Z",
                r"(?:%[0-9A-Fa-f]{2})+", r"\s+", r"[0-9a-f]{64}\Z", r"gen-([1-9][0-9]*)\Z",
                # a remember's key check split its name by a pattern, and the env-default rule compiled
                # its two gates by ``re`` at import, not from the kept programs (session 38, lat38)
                r"[-_.]", r":[ \t]{0,4}(?:str|optional\[str\]|secretstr)",
                r"\([ \t]{0,4}(?:teg\.norivne(?:\.so)?|vneteg(?:\.so)?|gifnoc|(?:rts\.)?vne|dleif)[ \t]{0,8}[=:]",
                # the review queue's instruction shape (each remember)
                r"\b(?:you|your|yours|yourself|you're|you'll|you've)\b"
                r"|^\W*(?:always|never|do\s+not|don't|must|only\s+ever)\b"}


@pytest.mark.parametrize("name", ["get", "remember"])
def test_get_and_remember_compile_none_of_our_patterns(filled, store_path, name):
    if name == "get":
        _mods, pats = probe("get", "project/startup/db")
    else:
        _mods, pats = probe("remember", "project/startup/db", "postgres 18 on port 5433")
        wait_remember_done(store_path)
    assert not NOT_COMPILED & set(pats), sorted(NOT_COMPILED & set(pats), key=str)
    # the key names no credential word: the credential-name pattern (objstore.core.redact.scanners) is not built
    assert not [p for p in pats if isinstance(p, str) and p.startswith("(?:(?:passw")], pats


@pytest.mark.skipif(sys.dont_write_bytecode, reason="the kept programs are written beside the bytecode")
@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="3.12's pathlib compiles patterns as it loads")
def test_a_remember_imports_no_re_once_its_programs_are_kept(filled, store_path):
    """A ``remember``'s patterns (the redaction rules its value and key
    are scanned by, the review queue's instruction shape) are all kept
    programs (``objstore.core.rxcache``), their flags and escapes
    ``rxcache``'s: once a first process kept them, a new one imports no
    ``re`` (nor its ``enum``, ~25 M instructions; session 38, lat38).  Run
    as a pip install runs (no ``site``, no editable finder: as
    :func:`test_a_process_without_an_editable_finder_opens_the_store_without_urllib_nor_re`);
    a pattern the file misses still compiles, by ``re`` imported then."""
    import sysconfig
    got = []
    for n in (1, 2):   # the first keeps whatever program the file missed (written at its exit)
        code = ("import sys\n"
                f"sys.path[:0] = [{str(REPO)!r}, {sysconfig.get_paths()['purelib']!r}]\n"
                f"sys.argv = ['mem', 'remember', 'project/startup/db', 'postgres 1{n} on port 5433']\n"
                "import cmds.entry as e\n"
                "_leave = e._skip_teardown\n"
                "def _report():\n"
                "    sys.stderr.write('LOADED ' + ' '.join(m for m in ('re', 'enum', 'objstore.core.redact')"
                " if m in sys.modules) + '\\n')\n"
                "    _leave()\n"
                "e._skip_teardown = _report\n"
                "e.entry()\n")
        p = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, cwd=REPO,
                           env=dict(os.environ), timeout=60)
        assert p.returncode == 0, p.stderr
        wait_remember_done(store_path)
        got.append([ln for ln in p.stderr.splitlines() if ln.startswith("LOADED")])
    assert got[1] == ["LOADED objstore.core.redact"], got   # the value was scanned, without re


def no_site_program(args: list[str], report: str) -> str:
    """A ``python -S -c`` program running ``mem ARGS`` as a pip install runs
    it (no ``site``, so no editable finder: the tree and the dependencies
    reached by plain path entries), with ``report`` (lines of Python,
    indented by four) run from ``cmds.entry``'s last exit step."""
    import sysconfig
    return ("import sys\n"
            f"sys.path[:0] = [{str(REPO)!r}, {sysconfig.get_paths()['purelib']!r}]\n"
            f"sys.argv = ['mem', *{args!r}]\n"
            "import cmds.entry as e\n"
            "_leave = e._skip_teardown\n"
            "def _report():\n"
            + report +
            "    _leave()\n"
            "e._skip_teardown = _report\n"
            "e.entry()\n")


@pytest.mark.skipif(sys.dont_write_bytecode, reason="the kept programs are written beside the bytecode")
@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="3.12's pathlib compiles patterns as it loads")
@pytest.mark.parametrize("name", ["recall", "recall-turns", "hook", "hook-quiet"])
def test_a_reader_imports_no_re_once_its_programs_are_kept(filled, store_path, name):
    """A recall and a prompt hook read their event and write their answer
    with ``json``, whose modules compile six fixed patterns as they load
    (``cmds.entry.json_without_re``: from the kept programs), and their
    snippets, git identity, capture policy and time rules import ``re``
    only for a text or a setting that needs a pattern built from it: once
    a first process kept the programs, a new one imports no ``re`` nor its
    ``enum`` (~20 M instructions; session 39, lat39), and ``json`` still
    reads and writes as it does with ``re``.  Run as a pip install runs,
    as :func:`test_a_remember_imports_no_re_once_its_programs_are_kept`."""
    if name.startswith("recall"):
        query = "staging database port" if name == "recall" else "staging listens"
        args = ["recall", "--all-projects", "--json", query]
        stdin = None
    else:
        args = ["hook", "claude-code"]
        prompt = "which port does the staging database use?" if name == "hook" else "how do we run the migrations again"
        stdin = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "S-startup-4", "cwd": str(filled),
                            "prompt": prompt})
    code = no_site_program(args, "    sys.stderr.write('LOADED ' + ' '.join(m for m in ('re', 'enum', 'json', 'tantivy')"
                                 " if m in sys.modules) + '\\n')\n"
                                 "    import json\n"
                                 "    text = json.dumps({'a': 'caf\\u00e9 \"x\"\\n', 'b': [1, 2.5, None, True]})\n"
                                 "    sys.stderr.write(f'JSON {text} {json.loads(text)!r} "
                                 "{json.dumps(chr(233), ensure_ascii=False)}\\n')\n")
    got = []

    def run() -> subprocess.CompletedProcess:
        p = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, input=stdin,
                           cwd=filled, env=dict(os.environ), timeout=60)
        wait_remember_done(store_path)   # the hook's capture child
        got.append(p)
        return p
    for _ in (1, 2):   # the first keeps whatever program the file missed (written at its exit)
        p = until_within_budget("UserPromptSubmit", run, store=store_path)[0] if stdin else run()
        assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    assert "LOADED json tantivy" in lines, p.stderr   # it searched, and read or wrote json, without re
    assert ("JSON {\"a\": \"caf\\u00e9 \\\"x\\\"\\n\", \"b\": [1, 2.5, null, true]} "
            "{'a': 'café \"x\"\\n', 'b': [1, 2.5, None, True]} \"é\"") in lines, p.stderr
    if name.startswith("recall"):
        hits = json.loads(p.stdout)["hits"]
        assert hits and {h["kind"] for h in hits} >= {"turn"}, p.stdout
        assert "staging" in json.dumps([h["text"] for h in hits]).lower(), p.stdout


def test_a_process_without_an_editable_finder_opens_the_store_without_urllib_nor_re(filled):
    """pathlib loads urllib.parse (and ipaddress) for ``Path.as_uri`` alone,
    and ``re`` (with ``enum``) and ``fnmatch`` for ``glob`` and ``match``:
    ``cmds.entry.pathlib_alone`` gives it stand-ins, which are out of
    ``sys.modules`` afterwards; and a ``get`` compiles no pattern nor loads
    ``contextlib`` (session 21, lat21).  Here ``site`` does not run (as for
    a pip install, whose start-up loads no pathlib; this suite's editable
    finder does), the
    dependencies are reached by a plain path entry, and ``get`` runs; then
    the process still has a working ``Path.as_uri``, ``glob`` and ``match``
    and the real ``urllib.parse`` and ``re``."""
    import sysconfig
    (filled / "a.txt").write_text("x")
    (filled / "b.md").write_text("y")
    code = ("import sys\n"
            f"sys.path[:0] = [{str(REPO)!r}, {sysconfig.get_paths()['purelib']!r}]\n"
            "assert 'pathlib' not in sys.modules and 're' not in sys.modules\n"
            "sys.argv = ['mem', 'get', 'project/startup/db']\n"
            "import cmds.entry as e\n"
            "def _report():\n"
            "    sys.stdout.flush()\n"
            "    print('LOADED', *(m in sys.modules for m in ('urllib.parse', 'ipaddress', 're', 'enum', 'fnmatch',"
            " 'contextlib', 'ntpath', 'pathlib')))\n"
            "    from pathlib import Path, PurePath, PureWindowsPath\n"
            "    print('WIN', *PureWindowsPath('c:/a/b').parts, PureWindowsPath('C:/A') == PureWindowsPath('c:\\\\a'))\n"
            "    import urllib.parse, re, fnmatch\n"
            "    print('AFTER', Path('/a b').as_uri(), urllib.parse.urlsplit('http://h/p').netloc)\n"
            "    print('GLOB', sorted(p.name for p in Path('.').glob('*.txt')), PurePath('x/y.md').match('*.md'),"
            " PurePath('x/y.md').match('*.txt'), re.fullmatch('a+', 'aa') is not None, fnmatch.fnmatch('a.md', '*.md'))\n"
            "    print('REAL', type(re.compile('x')).__name__, sys.modules['re'] is re, callable(re.sub))\n"
            "    e._EXIT[:] = []\n"
            "e._skip_teardown = _report\n"
            "e.entry()\n")
    p = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, cwd=filled,
                       env=dict(os.environ), timeout=60)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    # re, enum, fnmatch, contextlib: on 3.11, whose pathlib uses re and fnmatch in glob and match
    # only (3.12's and 3.13's compile patterns as they load: the stand-in imports the real re then);
    # ntpath: on 3.11, whose pathlib uses it in its Windows paths only (session 40, rec40)
    loaded = "False False False False False False False True" if sys.version_info[:2] == (3, 11) else out[1][6:]
    assert out[1].startswith("LOADED False False ") and out[1].endswith(" True"), out
    assert out == ["postgres 16 on port 5433", f"LOADED {loaded}", "WIN c:\\ a b True", "AFTER file:///a%20b h",
                   "GLOB ['a.txt'] True False True True", "REAL Pattern True True"]


@pytest.mark.parametrize("name", ["recall", "hook"])
def test_a_reader_without_an_editable_finder_loads_no_contextlib(filled, store_path, name):
    """The index's readers suppress errors with ``try``/``except``, and its
    writers' lock and rebuild import ``contextlib`` where they run: a recall
    or a prompt hook loads none (~0.4 ms of each start-up; session 25,
    rcl25).  Run without ``site``, as the test above: this suite's editable
    finder loads ``importlib.util``, which loads ``contextlib`` itself."""
    if name == "recall":
        args, stdin = ["recall", "--all-projects", "--json", "staging database port"], None
    else:
        args, stdin = ["hook", "claude-code"], json.dumps(
            {"hook_event_name": "UserPromptSubmit", "session_id": "S-startup-3", "cwd": str(filled),
             "prompt": "which port does the staging database use?"})
    code = no_site_program(args, "    sys.stderr.write(f\"LOADED {'contextlib' in sys.modules} {'tantivy' in sys.modules}\\n\")\n")
    def run() -> subprocess.CompletedProcess:
        p = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, input=stdin,
                           cwd=filled, env=dict(os.environ), timeout=60)
        wait_remember_done(store_path)   # the hook's capture child
        return p
    # the hook again while it met its budget or logged a failure: under load it failed open before its
    # search (contextlib[hook] failed so once, session 28); a recall runs once
    p = until_within_budget("UserPromptSubmit", run, store=store_path)[0] if name == "hook" else run()
    assert p.returncode == 0, p.stderr
    assert "LOADED False True" in p.stderr.splitlines(), p.stderr   # it searched, without contextlib


DATETIME_PROBE = ("import sys\nimport cmds.entry as e\n_leave = e._skip_teardown\n"
                  "def _report():\n"
                  "    import datetime\n"
                  "    sys.stderr.write(f'DATETIME {datetime.__name__} {datetime.datetime.__module__}\\n')\n"
                  "    _leave()\n"
                  "e._skip_teardown = _report\ne.entry()\n")


def test_a_search_runs_no_datetime_py_and_click_gets_it_back(filled):
    """tantivy imports ``datetime`` as it loads; ``cmds.entry.datetime_from_c``
    gives the lean and hook paths the C module (``datetime.py`` defines the
    pure-Python classes, then replaces them by the C ones): the recall still
    dates its hits.  A command click runs gets ``datetime.py`` as usual."""
    def run(*args: str) -> subprocess.CompletedProcess:
        p = subprocess.run([sys.executable, "-c", DATETIME_PROBE, *args], capture_output=True, text=True,
                           cwd=REPO, env=dict(os.environ), timeout=60)
        assert p.returncode == 0, p.stderr
        return p
    p = run("recall", "--all-projects", "--json", "staging database port")
    assert "DATETIME _datetime datetime" in p.stderr.splitlines(), p.stderr
    hits = json.loads(p.stdout)["hits"]
    assert hits and all(h["date"].startswith("20") and h["date"].endswith("Z") for h in hits), hits
    p = run("log", "project/startup/db")   # not a lean command: click's
    assert "DATETIME datetime datetime" in p.stderr.splitlines(), p.stderr
    assert "postgres 16 on port 5433" in p.stdout


@pytest.mark.skipif(sys.flags.optimize or sys.pycache_prefix is not None, reason="the finder stands aside")
def test_a_recall_loads_the_projects_modules_through_their_bytecode_finder(filled):
    """A new ``mem recall``, once a first one wrote the bytecode, loads its
    ``objstore`` and ``cmds`` submodules through ``cmds._ownpyc`` (not
    importlib's general path: ~67 k instructions a module less, session 42,
    rec42), and answers as the first process did."""
    code = PROBE.replace("'MODULES ' + ' '.join(sorted(sys.modules))",
                         "'MODULES ' + ' '.join(sorted(n for n, m in sys.modules.items() if n.startswith("
                         "('objstore.', 'cmds.')) and type(getattr(m, '__loader__', None)).__name__ == '_Loader'))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    args = ["recall", "--all-projects", "--json", "staging database port"]
    runs = [subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=REPO, env=env,
                           timeout=60) for _ in range(2)]
    assert all(p.returncode == 0 for p in runs), runs[-1].stderr
    assert runs[0].stdout == runs[1].stdout and json.loads(runs[1].stdout)["hits"], runs[1].stdout
    own = next(ln for ln in runs[1].stderr.splitlines() if ln.startswith("MODULES ")).split()[1:]
    assert {"objstore.retrieval.recall", "objstore.core.store", "objstore.index.searchindex", "cmds.lean"} <= set(own)
    assert len(own) >= 60, own
