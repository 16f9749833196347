"""Issue 21 item 11: hook stdin ``{…}{…}`` is read up to the first object, as docs/hooks.md says."""

from __future__ import annotations

import json

from objstore.core.store import Store
from tests.hooks._util import hook_log, payload, run_hook, turns, wait_store_processes_gone


def test_two_objects_on_stdin_reads_the_first(tmp_path):
    store = tmp_path / "store"
    Store.init(store).close()
    first = payload("UserPromptSubmit", "S2obj", None, prompt="remember the quoll deployment")
    second = payload("UserPromptSubmit", "S2obj", None, prompt="second object ignored")
    for raw in (json.dumps(first) + json.dumps(second), json.dumps(first) + "\n" + json.dumps(second) + "\n",
                json.dumps(first) + " trailing garbage"):
        rc, out, err, _ = run_hook(store, raw.encode())
        assert rc == 0, err
    assert "HookInputError" not in hook_log(store)
    wait_store_processes_gone(store)          # the prompt is stored by the hooks' detached capture children
    texts = [t[3] for t in turns(store)]
    assert any("quoll deployment" in t for t in texts)
    assert not any("second object ignored" in t for t in texts)
