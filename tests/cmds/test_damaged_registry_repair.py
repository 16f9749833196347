"""A damaged project registry (``projects.json``) split a project between
its old name and its qualified one, no hook log line said why, and
``mem fsck --repair`` answered "nothing to repair" while fsck stayed
CORRUPT (test30 R8).  Real ``mem hook`` and ``mem`` processes on real
stores: on a damaged registry the prompt hook's capture, its "remember
that" and its injection name one project, the hook logs that it ran on a
damaged registry, and ``fsck --repair`` sets the file aside and rebuilds
it from the folders the turns recorded: the project's memory is injected
again under its old name."""

from __future__ import annotations

import json
import uuid

from tests.hooks._util import payload, run_hook


def _hook(store, event, cwd, **kw):
    rc, out, _err, _s = run_hook(store, payload(event, str(uuid.uuid4()), None, cwd=str(cwd), **kw))
    assert rc == 0
    return out


def test_fsck_repair_rebuilds_a_damaged_registry_from_the_turns(mem, tmp_path):
    store = tmp_path / "store"
    api = tmp_path / "dev" / "api"
    api.mkdir(parents=True)
    home = ("--home", str(store))
    _hook(store, "SessionStart", api, source="startup")
    _hook(store, "UserPromptSubmit", api, prompt="remember that the db host is pg-seven")
    assert "pg-seven" in _hook(store, "UserPromptSubmit", api, prompt="which db host should I use?")
    reg = store / "projects.json"
    before = json.loads(reg.read_text())
    assert list(before["projects"].values()) == ["api"]
    reg.write_text("garbage\n")

    said = _hook(store, "UserPromptSubmit", api, prompt="remember that the cache is redis-seven")
    keys = mem(*home, "keys").stdout
    # one name for the statement and the injection of the same event (the qualified one while damaged)
    assert "project/dev-api/remembered/cache" in keys and "project/dev-api/remembered/cache" in said
    log = (store / "logs" / "hooks.log").read_text()
    assert "DamagedRegistry:projects" in log.split()

    f = mem(*home, "fsck", exit_code=13)
    assert "project registry" in f.stdout
    r = mem(*home, "fsck", "--repair")
    assert "nothing to repair" not in r.stdout
    assert "rebuilt the project registry" in r.stdout
    assert "captured as dev-api" in r.stdout          # the sessions of the damaged stretch are named
    assert json.loads(reg.read_text()) == before       # the name it had, for the same identity
    assert [p.read_text() for p in (store / "quarantine").glob("*/projects.json")] == ["garbage\n"]
    mem(*home, "fsck")                                 # ok now
    assert "pg-seven" in _hook(store, "UserPromptSubmit", api, prompt="which db host should I use?")
    doc = mem(*home, "doctor", "--json", exit_code=None).json
    assert "projects" not in {x["check"] for x in doc["findings"]}


def test_repair_never_gives_one_name_to_two_folders(mem, tmp_path):
    store = tmp_path / "store"
    home = ("--home", str(store))
    a, b = tmp_path / "acme" / "api", tmp_path / "globex" / "api"
    for d in (a, b):
        d.mkdir(parents=True)
        _hook(store, "SessionStart", d, source="startup")
        _hook(store, "UserPromptSubmit", d, prompt=f"remember that the owner is {d.parent.name}")
    reg = store / "projects.json"
    before = json.loads(reg.read_text())["projects"]
    assert sorted(before.values()) == ["api", "globex-api"]
    reg.write_bytes(b"\x00\xff{{")
    mem(*home, "fsck", "--repair")
    after = json.loads(reg.read_text())["projects"]
    assert after == before                             # each folder its own name again, none shared
