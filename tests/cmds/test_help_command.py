"""`mem help [COMMAND]` prints what `mem [COMMAND] --help` prints (test32 X3:
git's habit answered "No such command 'help'")."""

from __future__ import annotations


def test_help_prints_the_same_text_as_dash_dash_help(mem):
    assert mem("help").stdout == mem("--help").stdout
    assert mem("help", "export").stdout == mem("export", "--help").stdout
    assert mem("help", "memory", "add").stdout == mem("memory", "add", "--help").stdout
    assert mem("help", "export").stdout.startswith("Usage: mem export [OPTIONS]")


def test_help_of_an_unknown_command_is_a_usage_error(mem):
    r = mem("help", "nope", exit_code=2)
    assert "no such command 'nope'" in r.stderr and r.stdout == ""
    r = mem("help", "memory", "nope", exit_code=2)
    assert "no such command 'memory nope'; 'mem memory --help' lists them" in r.stderr
