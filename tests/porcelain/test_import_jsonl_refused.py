"""test27 V23: a refused ``mem import jsonl`` (an export cut short: a bad
line) kept the objects it had read, without refs, so ``mem fsck`` called a
good store damaged (exit 13), ``gc`` kept them, and the advised ``fsck
--repair`` made half of the refused file live.  A refused import now
leaves nothing behind: the store is exactly as it was.  Real ``mem``
processes."""

from __future__ import annotations

import os

PERSON = {"MEM_AGENT": "0"}


def _tree(root) -> dict:
    out = {}
    for d, _dirs, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            out[os.path.relpath(p, root)] = os.path.getsize(p)
    return out


def test_a_refused_import_leaves_the_store_as_it_was(mem, tmp_path):
    src, dst = tmp_path / "src", tmp_path / "dst"
    for i in range(12):
        mem("--home", str(src), "remember", f"project/api/k{i}", f"value number {i} of the api", env=PERSON)
        mem("--home", str(src), "remember", f"project/api/k{i}", f"value number {i} changed", env=PERSON)
    export = tmp_path / "memory.jsonl"
    mem("--home", str(src), "export", "-o", str(export))
    lines = export.read_bytes().splitlines(keepends=True)
    assert len(lines) > 30
    cut = tmp_path / "trunc.jsonl"
    cut.write_bytes(b"".join(lines[:20]) + lines[20][:15])     # an export cut short mid-line
    mem("--home", str(dst), "remember", "project/own/x", "mine", env=PERSON)
    mem("--home", str(dst), "gc", "--prune=now")
    before = _tree(dst / "objects")
    r = mem("--home", str(dst), "import", "jsonl", str(cut), exit_code=2)
    assert "line 21: not JSON" in r.stderr, r.stderr
    assert _tree(dst / "objects") == before                     # no object of the refused file stays
    r = mem("--home", str(dst), "fsck")
    assert r.stdout.startswith("ok:") and "0 problems" in r.stdout, r.stdout
    assert [k["key"] for k in mem("--home", str(dst), "keys", "--json").json] == ["project/own/x"]
    # the whole export imports, and a clash refused afterwards leaves nothing either
    mem("--home", str(dst), "import", "jsonl", str(export))
    assert len(mem("--home", str(dst), "keys", "--json").json) == 13
    mem("--home", str(src), "remember", "project/api/k0", "value zero moved on", env=PERSON)
    mem("--home", str(src), "remember", "project/api/new", "a key only the second export has", env=PERSON)
    export2 = tmp_path / "memory2.jsonl"
    mem("--home", str(src), "export", "-o", str(export2))
    before = _tree(dst / "objects")
    r = mem("--home", str(dst), "import", "jsonl", str(export2), exit_code=6)
    assert "already exist here at other versions" in r.stderr and "nothing was imported" in r.stderr, r.stderr
    assert _tree(dst / "objects") == before
    assert mem("--home", str(dst), "fsck").stdout.startswith("ok:")


HEADER = '{"format":"mem-export/1","created":1,"scope":null}'
FACT = {"key": "user/x", "kind": "user", "body": "y", "version": 1, "parent": None, "valid_from": 1, "recorded_at": 1}


def _fact_line(**change) -> str:
    import json
    fields = {k: v for k, v in {**FACT, **change}.items() if v != "-"}
    return json.dumps({"object": "fact", "id": "00", "fields": fields})


def test_bad_lines_are_named_not_python_errors(mem, tmp_path):
    """test31 U13: a line nested too deeply was an internal error
    (RecursionError), and a record's bad fields showed Python's messages
    ('__init__() missing 7 required positional arguments', "'<' not
    supported between instances of 'str' and 'int'").  Each is exit 2
    naming the line and the field; nothing is stored."""
    mem("remember", "user/mine", "kept", env=PERSON)
    cases = [
        ("[" * 100_000 + "]" * 100_000, "line 2: not JSON (nested too deeply)"),
        (HEADER.replace("null", "[" * 100_000 + "]" * 100_000), "line 1: not JSON (nested too deeply)"),
        ('{"object":"fact","id":"00","fields":{}}',
         "line 2: invalid fact: missing fields key, kind, body, version, parent, valid_from, recorded_at"),
        (_fact_line(version="1"), "line 2: invalid fact: version must be an integer, not str"),
        (_fact_line(version=True), "line 2: invalid fact: version must be an integer, not bool"),
        (_fact_line(body="-"), "line 2: invalid fact: missing field body"),
        (_fact_line(bogus=2), "line 2: invalid fact: unknown field bogus"),
    ]
    for i, (line, said) in enumerate(cases):
        f = tmp_path / f"bad{i}.jsonl"
        f.write_text((line if line.startswith(HEADER[:10]) and "[[" in line else HEADER + "\n" + line) + "\n")
        r = mem("import", "jsonl", str(f), exit_code=2)
        assert said in r.stderr and "internal error" not in r.stderr, (said, r.stderr)
    assert [k["key"] for k in mem("keys", "--json").json] == ["user/mine"]


def test_a_ref_naming_another_keys_object_is_refused_before_anything_is_written(mem, tmp_path):
    """test31c W8: ``mem import jsonl`` took (rc 0) a ref naming another
    key's version, a session ref naming a fact and a ``..`` name, and left a
    store fsck called CORRUPT.  Each is exit 2 naming the ref; nothing is
    stored."""
    import json
    src = tmp_path / "src"
    mem("--home", str(src), "remember", "project/api/port", "port 9001", env=PERSON)
    mem("--home", str(src), "remember", "project/api/port", "port 9002", env=PERSON)
    export = tmp_path / "e.jsonl"
    mem("--home", str(src), "export", "-o", str(export))
    lines = [json.loads(ln) for ln in export.read_text().splitlines()]
    head = next(r["id"] for r in lines if r.get("ref") == "facts/project/api/port")
    for i, name in enumerate(["facts/project/web/port", "facts/../../../tmp/pwn", "sessions/abc"]):
        bad = tmp_path / f"bad{i}.jsonl"
        bad.write_text("".join(json.dumps(r) + "\n" for r in [*lines, {"ref": name, "id": head}]))
        dst = tmp_path / f"dst{i}"
        mem("--home", str(dst), "init")
        r = mem("--home", str(dst), "import", "jsonl", str(bad), exit_code=2)
        assert f"ref {name} points at" in r.stderr and "of facts/project/api/port" in r.stderr, r.stderr
        assert mem("--home", str(dst), "keys", "--json").json == []
        assert mem("--home", str(dst), "fsck").stdout.startswith("ok:")
