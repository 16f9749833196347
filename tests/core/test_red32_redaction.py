"""red32: secrets that still reached the store in the clear.  test31c W13: a password table as it enters a
transcript, read by the agent through Claude Code's Read tool (``     3\u2192| host | user | password |``),
``cat -n``, a unified diff (``+| db1 | root | X |``), grep output (``docs/servers.md:5:| db1 | root | X |``) or a
blockquote; test31b V9: a password name, blanks and its quoted value (Gradle's ``storePassword "X"``, Tcl's ``set
password "X"``, HCL-ish ``db_password "X"``).  test31c W3: a feature matrix's ``Supported`` under a
``Password`` column is no password.  Every secret is fake."""

from __future__ import annotations

import json

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_kept, assert_redacted, check_prompt_hook, check_remembered_and_imported


def pw(i: int) -> str:
    """The fake secret of shape ``i``: letters no object id or time holds (no hex run of it can appear by chance)."""
    return f"Zq7mr{i:02d}xLpW"


def _numbered(lines: list[str], sep: str) -> str:
    """``lines`` as a tool shows a file: each after its line number (right-aligned in 6) and ``sep``."""
    return "".join(f"{n:6d}{sep}{line}\n" for n, line in enumerate(lines, 1))


_TABLE = ["# Servers", "", "| host | user | password |", "|------|------|----------|", "| db1 | root | {} |"]
_BARE = ["| user | password |", "| root | {} |"]
#: case -> its text with "{}" where the secret stands
_SHAPES = {
    "read-tool": _numbered(_TABLE, "\u2192"),
    "read-tool-no-delimiter": _numbered(_BARE, "\u2192"),
    "cat-n": _numbered(_TABLE, "\t"),
    "diff-added": "@@ -1,3 +1,3 @@\n | host | user | password |\n |------|------|----------|\n+| db1 | root | {} |\n",
    "diff-removed": "--- a/servers.md\n+++ b/servers.md\n@@ -3,3 +3,3 @@\n | user | password |\n |---|---|\n-| root | {} |\n",
    "grep-n": "docs/servers.md:3:| host | user | password |\ndocs/servers.md:5:| db1 | root | {} |\n",
    "grep-context": "docs/servers.md-3-| host | user | password |\ndocs/servers.md-4-|---|---|---|\n"
                    "docs/servers.md:5:| db1 | root | {} |\n",
    "blockquote": "> | user | password |\n> | root | {} |",
    "gradle-store": 'storePassword "{}"',
    "gradle-key": "keyPassword '{}'",
    "tcl-set": 'set password "{}"',
    "hcl": 'db_password "{}"',
    "gradle-block": 'signingConfigs {{ release {{ storeFile file("rel.jks"); keyAlias "rel"; storePassword "{}" }} }}',
}
#: case -> (text, the secret, what must stay before it)
CASES = {case: (tmpl.format(pw(i)), pw(i), tmpl.split("{}")[0][-12:]) for i, (case, tmpl) in enumerate(_SHAPES.items())}

#: ordinary text of the same layouts: stored as typed
LOOKALIKES = [
    "| Feature | Password | SSO |\n| Login | Yes | No |\n| Reset | Supported | Planned |",
    "| Feature | Password | SSO |\n|---|---|---|\n| Login | Yes | No |\n| Reset | Supported | Planned |",
    _numbered(["| name | password | required |", "| username | string | yes |"], "\u2192"),
    "src/auth.py:12:    password = request.form['password']",
    "docs/a.md:3:| Option | Description |\ndocs/a.md:4:| --password | the password to use |",
    " | user | password |\n-| root | (none) |\n+| root | ******** |",
    "raise ValueError(\"bad password \" + reason)",
    'msg = "password " + status',
    "Pass 'parameters' to the call",
    'password "${System.getenv(\'STORE_PW\')}"',
]


@pytest.mark.parametrize("case", sorted(CASES))
def test_shape_redacted(case):
    """Raw and JSON-escaped (the shared check, idempotence included); the line prefix and the label stay."""
    text, secret, kept = CASES[case]
    assert_redacted(case, text, [secret], kept=[kept])


@pytest.mark.parametrize("text", LOOKALIKES)
def test_look_alike_kept(text):
    assert_kept(text)


def test_every_row_of_a_read_table_and_both_sides_of_a_diff():
    """Each body row of a table read with line numbers, and the old and the new password of a diff, not only one."""
    read = _numbered(["| host | user | password |", "|---|---|---|", f"| db1 | root | {pw(90)} |",
                      f"| db2 | admin | {pw(91)} |", f"| db3 | ops | {pw(92)} |"], "\u2192")
    diff = f" | user | password |\n |---|---|\n-| root | {pw(93)} |\n+| root | {pw(94)} |\n"
    for text in (read, diff, json.dumps({"content": read}), json.dumps({"content": diff})):
        out = redact(text).text
        assert not [s for s in (pw(90), pw(91), pw(92), pw(93), pw(94)) if s in out], out
        assert "| host | user | password |" in out or "| user | password |" in out


def test_a_matrix_column_is_left_whole():
    """A column that holds a yes/no word is a feature matrix's: none of its cells is taken, with or without the
    delimiter row; a password column beside it still is."""
    text = f"| user | password | 2FA |\n|---|---|---|\n| root | {pw(95)} | Yes |\n| ops | {pw(96)} | No |"
    out = redact(text).text
    assert pw(95) not in out and pw(96) not in out and "| Yes |" in out


def test_stored_by_remember_and_import(tmp_path, mem, store_path):
    """Real ``mem remember``/``get`` and an imported transcript's tool results; then no file of the store
    (packs decompressed) holds any secret."""
    check_remembered_and_imported(mem, tmp_path, "red32", "32323232-aaaa-4aaa-8aaa-323232323232", CASES,
                                  sorted(CASES), LOOKALIKES[0], store=store_path)


def test_the_prompt_hook_stores_them_redacted(tmp_path):
    """The real UserPromptSubmit hook stores each shape redacted and the look-alikes as typed."""
    check_prompt_hook(tmp_path / "store", "d1111111-0000-4000-8000-000000032a32", CASES, LOOKALIKES,
                      'remember that storePassword "' + CASES["gradle-store"][1] + '"')
