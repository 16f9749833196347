"""Lane sz27 (issue 12, store size): ``cache/turn-meta`` and ``cache/fact-cites``
are written as zlib streams, ``cache/turn-meta.z`` and ``cache/fact-cites.z``
(``core.atomic.write_z``/``read_z``); a store an older mem wrote (the files
uncompressed) is read as before and converted on the next write; forget's
scrub of derived files tests the compressed files inflated and leaves no
forgotten text in them.  Real stores, real imports, real forgets."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import pytest

from objstore import forget
from objstore.capture.importer import import_claude_code
from objstore.core.atomic import atomic_write, read_z, write_z
from objstore.memory import facts, turnmeta
from objstore.memory.citations import CITES_FILE, FactCites, refresh
from objstore.memory.forgetfiles import scan_store, scrub_derived
from objstore.memory.opening import open_store
from tests.hooks._util import asst, line, text, user

A = "5d1e6f0a-0000-4000-8000-0000000000b1"
B = "5d1e6f0a-0000-4000-8000-0000000000b2"


def _corpus(tmp_path: Path) -> list[Path]:
    out = []
    for sid, cwd, word in ((A, "/srv/wrenfield-apiary", "alpha"), (B, "/srv/other", "beta")):
        p = tmp_path / "proj" / f"-srv-{word}" / f"{sid}.jsonl"
        p.parent.mkdir(parents=True)
        p.write_bytes(line(user(f"{word}-u1", f"build the {word} thing", sid, cwd=cwd))
                      + line(asst(f"{word}-a1", f"msg_{word}1", [text("built")], sid, cwd=cwd)))
        out.append(p)
    return out


def test_read_z_and_write_z(tmp_path):
    p = tmp_path / "c" / "memo"
    with pytest.raises(FileNotFoundError):
        read_z(p)
    text = b"".join(os.urandom(32).hex().encode() + b"\n" for _ in range(3000))   # hex ids, as the caches hold
    write_z(p, [b"one\n", text])
    z = p.with_name("memo.z")
    assert not p.exists() and zlib.decompress(z.read_bytes()) == b"one\n" + text
    assert len(z.read_bytes()) < 0.55 * len(text)         # ~4 bits a hex digit
    assert read_z(p) == b"one\n" + text
    p.write_bytes(b"older mem\n")                        # an uncompressed file beside it is the newer
    assert read_z(p) == b"older mem\n"
    write_z(p, b"again\n")                               # and goes when the compressed one is written
    assert not p.exists() and read_z(p) == b"again\n"
    # what this process wrote or read is kept by the file's identity: a file replaced (another process,
    # the same size) is read anew, never the kept content
    for again in (b"again\n", b"agaim\n", b"other text\n"):
        atomic_write(z, zlib.compress(again))
        assert read_z(p) == again
    for bad in (z.read_bytes()[:-3], z.read_bytes() + b"x", b"not zlib"):
        z.write_bytes(bad)
        with pytest.raises(ValueError):
            read_z(p)


def test_an_old_store_is_read_and_its_caches_written_compressed(tmp_path):
    with open_store(tmp_path / "s", create=True) as s:
        import_claude_code(s, _corpus(tmp_path))
        facts.remember(s, "project/p/host", "the build host is kestrel-7")
        refresh(s)
        cache = s.root / "cache"
        meta, cites = read_z(cache / turnmeta.META_FILE), read_z(s.root / CITES_FILE)
        assert {p.name for p in cache.iterdir()} >= {"turn-meta.z", "fact-cites.z"}
        assert not (cache / "turn-meta").exists() and not (cache / "fact-cites").exists()
        # as a mem before session 27 left them: uncompressed, no .z
        for name, data in (("turn-meta", meta), ("fact-cites", cites)):
            (cache / (name + ".z")).unlink()
            (cache / name).write_bytes(data)
        heads = {n[len("sessions/"):]: h for n, h in s.refs.iter("sessions")}
        assert set(turnmeta._load(s)) == {A, B}
        assert "/srv/wrenfield-apiary" in turnmeta.session_values(s, heads)[A]
        memo = cites.decode().splitlines()
        assert memo[0] == "mem fact-cites 2" and len(memo) == 3          # the fact's chain
        assert set(FactCites.load(s).known) == {memo[1].split("\t")[0]}
        assert (cache / "turn-meta").read_bytes() == meta        # read, nothing to write
        # a forget rewrites them: compressed, the old files gone
        forget(s, session=B)
        assert not (cache / "turn-meta").exists() and (cache / "turn-meta.z").exists()
        assert B not in read_z(cache / turnmeta.META_FILE).decode() and A in read_z(cache / "turn-meta").decode()


def test_scrub_drops_the_lines_of_a_compressed_cache_that_hold_a_forgotten_text(tmp_path):
    with open_store(tmp_path / "s", create=True) as s:
        import_claude_code(s, _corpus(tmp_path))
        z = s.root / "cache" / "turn-meta.z"
        before = zlib.decompress(z.read_bytes()).decode().splitlines()
        assert len(before) == 2 and sum("wrenfield" in ln for ln in before) == 1
        assert scan_store(s.root / "cache", [b"wrenfield"]) == ["turn-meta.z"]   # found inflated
        assert "cache/turn-meta.z" in scrub_derived(s, ["wrenfield"])
        after = zlib.decompress(z.read_bytes()).decode().splitlines()
        assert after == [ln for ln in before if "wrenfield" not in ln]
        assert scan_store(s.root / "cache", [b"wrenfield"]) == []
        # a compressed cache that does not inflate cannot be tested: deleted, as a damaged cache
        z.write_bytes(z.read_bytes()[:-4])
        assert "cache/turn-meta.z" in scrub_derived(s, ["beta thing"]) and not z.exists()


def test_forget_match_of_a_working_directory_leaves_it_in_no_cache(tmp_path):
    with open_store(tmp_path / "s", create=True) as s:
        import_claude_code(s, _corpus(tmp_path))
        refresh(s)
        assert b"wrenfield-apiary" in read_z(s.root / "cache" / turnmeta.META_FILE)
        res = forget(s, match="wrenfield-apiary")
        assert A in res.plan.meta                        # found through the compressed cache
        assert scan_store(s.root, [b"wrenfield-apiary"]) == []
