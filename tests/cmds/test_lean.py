"""The lean start-up path (cmds/lean.py): the same options as the click
commands, the same output, and no click in the process."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys

import click
import pytest

from cmds import lean
from tests.conftest import REPO

CLICK = "import sys\nfrom cmds.main import main\nsys.exit(main(sys.argv[1:]))\n"
# the check runs inside entry's own last exit step (_skip_teardown, which ends a lean
# command's process by os._exit: a callback registered before it would never run)
LEAN = ("import sys\nimport cmds.entry as e\n_leave = e._skip_teardown\n"
        "def _report():\n"
        "    if 'click' in sys.modules:\n"
        "        sys.stderr.write('CLICK-IMPORTED\\n')\n"
        "    _leave()\n"
        "e._skip_teardown = _report\ne.entry()\n")


def run(code: str, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, input=input,
                          cwd=REPO, env=dict(os.environ), timeout=60)


@pytest.mark.parametrize("name", sorted(lean.SPECS))
def test_specs_match_the_click_commands(name):
    from cmds.main import COMMANDS
    cmd = importlib.import_module(COMMANDS[name][0]).command
    _body, positionals, opts, defaults, _create = lean.SPECS[name]
    args = [(p.name, p.nargs) for p in cmd.params if isinstance(p, click.Argument)]
    assert args == positionals
    from cmds.main import cli
    root = click.Context(cli, info_name="mem", help_option_names=["-h", "--help"])  # as the CLI has it: click
    parsed = cmd.make_context(name, ["x"] * len(args), parent=root, resilient_parsing=True).params  # caches it
    seen = set()
    for p in cmd.params:
        if not isinstance(p, click.Option):
            continue
        names = [n for n in p.opts + p.secondary_opts if n not in ("-h", "--help")]
        for n in names:
            param, conv = opts[n]
            seen.add(n)
            assert param == p.name, n
            if p.is_flag and p.secondary_opts:
                assert conv == (lean.FLAG, n in p.opts), n
            elif p.is_flag:
                assert conv == lean.FLAG, n
            elif isinstance(p.type, click.Choice):
                assert tuple(conv.choices) == tuple(p.type.choices), n
            elif isinstance(p.type, click.IntRange):
                assert conv.range == (p.type.min, p.type.max), n
        if p.expose_value:  # --plain only switches the output: no parameter of its own
            assert defaults[p.name] == parsed[p.name], p.name
    assert seen == set(opts), "the lean path knows an option the click command does not have"


def test_root_options_match():
    from cmds.main import cli
    opts = {n: p for p in cli.params for n in p.opts}
    for n, (param, _conv) in lean.ROOT_OPTIONS.items():
        assert opts[n].name == param
    assert lean.ROOT_OPTIONS["--lock-timeout"][1].range == (opts["--lock-timeout"].type.min,
                                                           opts["--lock-timeout"].type.max)


def test_parse_falls_back_on_anything_unusual():
    assert lean.parse(["get", "k"])[:2] == ("get", {"key": "k", "as_json": False, "as_of": None, "session": None,
                                                   "agent": None, "plain": False})
    assert lean.parse(["get", "k", "--as-of", "@5"])[1]["as_of"] == 5
    assert lean.parse(["recall", "q", "--as-of", "soon"]) is None  # click says what is wrong
    assert lean.parse(["--home", "/x", "recall", "a", "-n5", "b", "--json"]) == (
        "recall", {"queries": ("a", "b"), "what": "all", "limit": 5, "project": None, "all_projects": False,
                   "as_of": None, "include_directives": False, "session": None, "agent": None, "from_agent": None,
                   "as_json": True, "plain": False}, "/x", None)
    assert lean.parse(["remember", "k", "--", "-5"])[1]["text"] == "-5"
    assert lean.parse(["remember", "k", "v", "--no-pin"])[1]["pin"] is False
    for argv in (["get"], ["get", "a", "b"], ["get", "k", "--help"], ["get", "k", "--bogus"], ["recall"],
                 ["recall", "x", "-n", "0"], ["recall", "x", "--what", "Facts"], ["search", "x", "-n"],
                 ["remember", "k", "v", "--valid-from", "yesterday"], ["remember", "k", "v", "--json=1"],
                 ["remember", "k", "v", "--pin", "--sensitivity", "secret"], ["log", "k"], [],
                 ["--lock-timeout", "-1", "get", "k"], ["get", "k\udcff"], ["get", "k", "--home", "/x"]):
        assert lean.parse(argv) is None, argv


def test_lean_and_click_print_the_same(invoke, store_path):
    invoke("remember", "project/lean/db", "postgres 16 on port 5433")
    invoke("remember", "user/editor", "neovim \x1b[31m red")
    cases = [
        ("get", "project/lean/db"), ("get", "project/lean/db", "--json"), ("get", "user/editor"),
        ("get", "project/none/x"), ("get", "bad key!"),
        ("recall", "postgres port", "--all-projects"), ("recall", "postgres", "--json", "--all-projects"),
        ("recall", "zzzqqq", "--project", "lean"),
        ("search", "postgres"), ("search", "zzzqqq", "--exit-code"), ("search", "neovim", "--json"),
        ("context", "--project", "lean"), ("context", "--project", "lean", "--json"),
        ("context", "--prompt", "which port does the postgres db use?", "--json"),
        ("--help",),
    ]
    for args in cases:
        a, b = run(LEAN, *args), run(CLICK, *args)
        assert "CLICK-IMPORTED" not in a.stderr, args
        assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr), args


def test_lean_remember_writes_like_click(store_path):
    a = run(LEAN, "remember", "project/lean/port", "5433", "--json")
    assert a.returncode == 0 and "CLICK-IMPORTED" not in a.stderr, a.stderr
    assert '"written": true' in a.stdout
    b = run(CLICK, "remember", "project/lean/port", "5433")
    assert b.stdout.startswith("unchanged: project/lean/port v1")
    c = run(LEAN, "remember", "project/lean/port", "-", input="5434\n")
    assert c.stdout.startswith("wrote project/lean/port v2"), c.stderr
    d = run(LEAN, "remember", "project/lean/port", "5435", "--expect", "0000")
    e = run(CLICK, "remember", "project/lean/port", "5435", "--expect", "0000")
    assert (d.returncode, d.stdout, d.stderr) == (e.returncode, e.stdout, e.stderr) and d.returncode == 5
    f = run(LEAN, "remember", "project/lean/k", "v", "--pin", "--sensitivity", "secret")
    assert f.returncode == 2 and "cannot be pinned" in f.stderr
    assert run(LEAN, "get", "project/lean/port").stdout == "5434\n"
    assert oct(os.stat(store_path / "config").st_mode & 0o777) == "0o600"
