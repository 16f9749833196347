"""syn44 (test42 T2): ``mem import jsonl`` applies this store's ``forget
--match`` texts to facts as a pull does: a version of any trust holding the
text, recorded before the forget here, is left out and named; one the
person states after the forget is kept (as ``mem remember`` keeps it).
Real ``mem`` processes."""

import json
import time


def test_import_jsonl_leaves_out_a_value_holding_a_match_text(mem, tmp_path):
    src, dst, out = tmp_path / "pa", tmp_path / "t7", tmp_path / "pa.jsonl"
    a, b = {"MEM_HOME": str(src)}, {"MEM_HOME": str(dst)}
    mem("init", env=a)
    mem("remember", "project/team/lead", "Zephyrine Quillborough leads billing; port 8080", env=a)
    mem("remember", "project/team/other", "the build runs on port 9090", env=a)
    mem("export", "-o", str(out), env=a)
    mem("init", env=b)
    mem("forget", "--match", "zephyrine quillborough", "--yes", env=b)
    r = mem("import", "jsonl", str(out), env=b)
    assert "held a text 'mem forget --match' forgot here" in r.stderr and "project/team/lead" in r.stderr
    keys = mem("keys", env=b).stdout
    assert "project/team/other" in keys
    assert "Quillborough" not in keys and "project/team/lead" not in keys
    assert mem("get", "project/team/lead", env=b, exit_code=None).exit_code != 0
    j = mem("import", "jsonl", str(out), "--json", env=b).json
    assert j["forgotten_text"] == ["project/team/lead"]


def test_import_jsonl_keeps_a_value_stated_after_the_forget(mem, tmp_path):
    src, dst, out = tmp_path / "pa", tmp_path / "t7", tmp_path / "pa.jsonl"
    a, b = {"MEM_HOME": str(src)}, {"MEM_HOME": str(dst)}
    mem("init", env=a)
    mem("init", env=b)
    mem("forget", "--match", "zephyrine quillborough", "--yes", env=b)
    time.sleep(0.01)
    mem("remember", "project/team/lead", "Zephyrine Quillborough leads billing; port 8080", env=a)
    mem("export", "-o", str(out), env=a)
    r = mem("import", "jsonl", str(out), env=b)
    assert "forget --match" not in r.stderr
    assert "Zephyrine Quillborough" in mem("get", "project/team/lead", env=b).stdout
    assert json.loads(mem("import", "jsonl", str(out), "--json", env=b).stdout)["forgotten_text"] == []
