"""Issue 21 item 16: ref files on a case-insensitive filesystem.  Keys that
differ only in case must be two refs; the folding is simulated by folding
every ref and reflog path.  A store written before the escaping still opens
and is migrated by its first writer."""

from __future__ import annotations

import os
from pathlib import Path

import cbor2
from hypothesis import given, settings, strategies as st

from objstore.core.refs import Refs


def _fold(root: Path, p: Path) -> Path:
    return root / p.relative_to(root).as_posix().casefold()


@given(st.text(min_size=1, max_size=20), st.text(min_size=1, max_size=20))
@settings(max_examples=300, deadline=None)
def test_escaped_names_never_fold_together(a, b):
    from objstore.core.refs import escape_name, unescape_name
    a, b = a.replace("\x00", ""), b.replace("\x00", "")
    if a and b and a != b:  # a filesystem may fold by lower-casing or by case folding
        assert escape_name(a).casefold() != escape_name(b).casefold()
        assert escape_name(a).lower() != escape_name(b).lower()
    for x in (a, b):
        assert unescape_name(escape_name(x)) == x
        assert unescape_name(escape_name(x).lower()) == x  # hex folded by the filesystem
        assert unescape_name(escape_name(x).casefold()) == x


def test_keys_differing_in_case_on_a_folding_filesystem(invoke, monkeypatch):
    orig = Refs.path
    monkeypatch.setattr(Refs, "path", lambda self, ref: _fold(self.root, orig(self, ref)))
    invoke("remember", "user/Editor", "helix")
    invoke("remember", "user/editor", "vim")
    invoke("remember", "project/API/port", "8080")
    invoke("remember", "project/api/port", "9090")
    assert invoke("get", "user/Editor").stdout == "helix\n"
    assert invoke("get", "user/editor").stdout == "vim\n"
    assert invoke("get", "project/API/port").stdout == "8080\n"
    assert invoke("get", "project/api/port").stdout == "9090\n"
    assert {k["key"] for k in invoke("keys", "--json").json} == {
        "user/Editor", "user/editor", "project/API/port", "project/api/port"}
    assert len(invoke("log", "user/Editor", "--json").json) == 1
    assert invoke("fsck").stdout.startswith("ok:")


def test_a_store_written_before_the_escaping_opens_and_migrates(invoke, store_path):
    invoke("remember", "user/Editor", "helix")
    invoke("remember", "project/API/port", "8080")
    invoke("remember", "user/plain", "x")
    # rewrite the layout and config the old code wrote: literal names, no "ref_names"
    for base in (store_path / "refs", store_path / "logs" / "refs"):
        for old, new in ((("facts", "user", "%45ditor"), ("facts", "user", "Editor")),
                         (("facts", "project", "%41%50%49", "port"), ("facts", "project", "API", "port"))):
            src, dst = base.joinpath(*old), base.joinpath(*new)
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.replace(src, dst)
            if not any(src.parent.iterdir()):
                src.parent.rmdir()
    cfg = cbor2.loads((store_path / "config").read_bytes())
    del cfg["ref_names"]
    (store_path / "config").write_bytes(cbor2.dumps(cfg, canonical=True))
    # readers read the old names
    assert invoke("get", "user/Editor").stdout == "helix\n"
    assert invoke("get", "project/API/port").stdout == "8080\n"
    assert len(invoke("log", "user/Editor", "--json").json) == 1
    assert {k["key"] for k in invoke("keys", "--json").json} == {"user/Editor", "project/API/port", "user/plain"}
    # the first writer migrates
    invoke("remember", "user/other", "y")
    assert (store_path / "refs" / "facts" / "user" / "%45ditor").is_file()
    assert not (store_path / "refs" / "facts" / "user" / "Editor").exists()
    assert (store_path / "refs" / "facts" / "project" / "%41%50%49" / "port").is_file()
    assert (store_path / "logs" / "refs" / "facts" / "user" / "%45ditor").is_file()
    assert cbor2.loads((store_path / "config").read_bytes())["ref_names"] == 2
    invoke("remember", "user/Editor", "zed")
    assert [v["body"] for v in invoke("log", "user/Editor", "--json").json] == ["zed", "helix"]
    assert invoke("fsck").stdout.startswith("ok:")
