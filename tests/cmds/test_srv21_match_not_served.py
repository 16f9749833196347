"""srv21 (tester finding W5): a ``mem forget --match`` text held by a session
the forget did not touch (imported after it) was served again by ``mem
search``, ``recall``, ``show`` and the prompt hook's injection.  Capture
stored it then (since txt42 it is withheld at capture in every session),
and every path that serves a turn's text now shows it as ``[forgotten]``
(``objstore.memory.tombstones.hider``).  The tester's reproduction with real
``mem`` processes; on the code before, each output held the text."""

from __future__ import annotations

import json
import subprocess
import sys

from objstore.index.snippets import make_snippet
from objstore.memory.tombstones import Hider
from objstore.core.objects import value_digest

from tests.hooks._util import REPO, hook_env, payload

TEXT = "wombat-saffron-7731"
NEW = "bbbbbbbb-0000-4000-8000-000000000002"
ASKED = "what was the launch codename for the orbital lander release"


def _session(root, sid, day, content=f"the launch codename is {TEXT}"):
    rec = {"type": "user", "uuid": sid[:8] + "-u", "parentUuid": None, "sessionId": sid, "cwd": "/p",
           "timestamp": f"2026-12-0{day}T10:00:00Z", "message": {"role": "user", "content": content}}
    (root / "-p").mkdir(parents=True, exist_ok=True)
    (root / "-p" / f"{sid}.jsonl").write_text(json.dumps(rec) + "\n", encoding="utf-8")


def test_a_forgotten_match_text_in_a_later_session_is_never_served(mem, tmp_path, store_path):
    corpus = tmp_path / "cc"
    _session(corpus, "aaaaaaaa-0000-4000-8000-000000000001", 1)
    mem("import", "claude-code", str(corpus))
    mem("forget", "--match", TEXT, "--yes", env={"MEM_AGENT": "0"})
    mem("gc", "--prune=now")
    # (a longer prompt: since txt42 the index holds no word of the text for a prompt to match on)
    _session(corpus, NEW, 2, content=f"the launch codename is {TEXT} for the orbital lander release")
    mem("import", "claude-code", str(corpus))
    served = {
        "search": mem("search", "launch codename").stdout,
        "search --json": mem("search", "launch codename", "--json").stdout,
        "recall": mem("recall", "--all-projects", "launch codename wombat").stdout,
        "recall --json": mem("recall", "--all-projects", "--json", "launch codename").stdout,
        "show session": mem("show", NEW).stdout,
        "context --prompt": mem("context", "--project", "p", "--prompt",
                                ASKED).stdout,
    }
    turn_id = json.loads(served["search --json"])
    turn_id = (turn_id["results"] if isinstance(turn_id, dict) else turn_id)[0]["id"]
    served["show id"] = mem("show", turn_id).stdout
    served["show id --json"] = mem("show", turn_id, "--json").stdout
    # the prompt hook of another session, a real `mem hook claude-code` process
    hook = subprocess.run([sys.executable, "-m", "cmds", "hook", "claude-code"], capture_output=True, timeout=120,
                          cwd=REPO, env=hook_env(store_path),
                          input=json.dumps(payload("UserPromptSubmit", "cccccccc-0000-4000-8000-000000000003", None,
                                                   cwd="/p", prompt=ASKED)
                                           ).encode())
    assert hook.returncode == 0, hook.stderr
    served["hook"] = hook.stdout.decode()
    for what, out in served.items():
        assert "launch codename is" in out, (what, out)    # the turn is served ...
        assert "wombat" not in out.lower() and "saffron" not in out, (what, out)   # ... never the text
        assert "[forgotten]" in out, (what, out)
    # the store itself does not hold it either since txt42: capture withholds it in every session
    assert "wombat" not in mem("cat-object", turn_id).stdout
    assert "wombat" not in mem("search", "wombat", exit_code=None).stdout   # nor the search index


def test_a_snippet_never_shows_part_of_a_forgotten_text_it_cuts():
    hide = Hider([(value_digest(TEXT), len(TEXT))])
    text = "word " * 60 + f"the launch codename is {TEXT.upper()} and then " + "more " * 60
    for width in range(20, 90, 3):     # windows that cut the text at every place
        for query in ("launch", "codename", "then", "wombat"):
            got = make_snippet(text, query, width, hide)
            assert "wombat" not in got.lower() and "7731" not in got and "saffron" not in got.lower(), (width, got)
    # a forgotten text glued to the end of another word is not a match (as for an agent's write)
    assert "xwombat" in make_snippet(f"x{TEXT} here", "here", 160, hide)
    assert make_snippet(f"is {TEXT}.", "is", 160, hide) == "is [forgotten]."
    assert make_snippet("nothing forgotten here", "here", 160, hide) == "nothing forgotten here"
