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


def _git(*args):
    import subprocess
    subprocess.run(["git", *args], check=True, capture_output=True, timeout=60)


def test_repair_keeps_a_folders_path_name_beside_its_remotes_name(mem, tmp_path):
    """test30c T4: ``a/api`` used without a remote (``api``), ``c/api`` a
    clone of acme/api (``acme-api``), then acme/api added as a's remote:
    the rebuild gave the remote a's path-era name and c's facts were no
    longer served in c.  Now both entries come back as they were, with the
    remote's folder, and each folder is served what it was before."""
    store = tmp_path / "store"
    home = ("--home", str(store))
    a, c = tmp_path / "a" / "api", tmp_path / "c" / "api"
    for d in (a, c):
        d.mkdir(parents=True)
        _git("init", "-q", str(d))
    _git("-C", str(c), "remote", "add", "origin", "git@github.com:acme/api.git")
    _hook(store, "UserPromptSubmit", a, prompt="remember that the db host is pg-local-a")
    _hook(store, "UserPromptSubmit", c, prompt="remember that the cache is redis-c")
    _git("-C", str(a), "remote", "add", "origin", "git@github.com:acme/api.git")
    _hook(store, "UserPromptSubmit", a, prompt="remember that the queue is rabbit-a")
    reg = store / "projects.json"
    before = json.loads(reg.read_text())
    assert before["projects"] == {"github.com/acme/api": "acme-api", f"path:{a}": "api"}
    assert before["folders"] == {"github.com/acme/api": str(c)}
    served = {d: _hook(store, "SessionStart", d, source="startup") for d in (a, c)}
    assert "redis-c" in served[c] and "pg-local-a" not in served[c]
    assert "redis-c" in served[a] and "pg-local-a" in served[a]
    reg.write_text("garbage\n")
    r = mem(*home, "fsck", "--repair")
    assert "rebuilt the project registry" in r.stdout and "while the registry was damaged" not in r.stdout
    assert json.loads(reg.read_text()) == before
    assert {d: _hook(store, "SessionStart", d, source="startup") for d in (a, c)} == served


def test_repair_records_a_remotes_folder_so_its_remote_can_change_in_place(mem, tmp_path):
    """test30c T19: the rebuilt registry had no ``folders`` (nor the
    repository's birth), so a ``git remote set-url`` after the repair
    renamed the project and its memory was no longer injected; now the
    rebuilt file is the one written before the damage (from nothing
    readable, and from a file cut short), and the name is kept."""
    store = tmp_path / "store"
    home = ("--home", str(store))
    api = tmp_path / "rfr" / "api"
    api.mkdir(parents=True)
    _git("init", "-q", str(api))
    _git("-C", str(api), "remote", "add", "origin", "git@github.com:acme/api.git")
    _hook(store, "UserPromptSubmit", api, prompt="remember that the db host is pg-rf")
    reg = store / "projects.json"
    before = json.loads(reg.read_text())
    assert before["folders"] == {"github.com/acme/api": str(api)} and list(before["births"]) == ["github.com/acme/api"]
    for damage in ("garbage\n", reg.read_text()[:-3]):   # nothing readable; cut short, every name still there
        reg.write_text(damage)
        mem(*home, "fsck", "--repair")
        assert json.loads(reg.read_text()) == before, damage
    _git("-C", str(api), "remote", "set-url", "origin", "git@github.com:acme-corp/api.git")
    assert "pg-rf" in _hook(store, "SessionStart", api, source="startup")
    assert json.loads(reg.read_text())["projects"]["github.com/acme-corp/api"] == "api"
    doc = mem(*home, "doctor", "--json", exit_code=None).json
    assert not [f for f in doc["findings"] if f["check"] == "projects"]
