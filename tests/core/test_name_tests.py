"""The string tests that replaced regular expressions on every reader's path
(an id's hex, a pack file's name, a packed-refs line, a generation's name):
each agrees with the pattern it replaced on the same inputs, and a new
process compiles none of those patterns."""

from __future__ import annotations

import re

from objstore.core.ids import is_hex
from objstore.core.packformat import pack_name_id
from objstore.core.refs import _packed_line
from objstore.index.genmanifest import is_gen_name

H = "0123456789abcdef" * 4   # 64 hex
TEXTS = ["", "a", "0", "abc", "ABC", "12g4", " ab", "ab ", "ab\n", "\u0661\u0662", "ff" * 40, H, H.upper(), H[:-1] + "G",
         "dead beef", "é", "0x12"]


def test_is_hex_is_the_old_pattern():
    for t in TEXTS:
        assert is_hex(t) == bool(re.fullmatch(r"[0-9a-f]+", t)), t


def test_pack_name_id_is_the_old_pattern():
    names = [f"pack-{H}.idx", f"pack-{H}.pack", f"pack-{H[:-1]}.idx", f"pack-{H}x.idx", f"pack-{H.upper()}.idx",
             f"Pack-{H}.idx", f"pack-{H}.idx.tmp", f"tmp-pack-{H}.pack", f"pack-{H[:-1]}G.pack", "pack-.idx", "",
             f"pack-{H}.pac", f"pack-{H}{H}.idx", f"pack-{H}\n.idx"]
    for suffix in (".idx", ".pack"):
        old = re.compile(r"pack-([0-9a-f]{64})" + re.escape(suffix))
        for n in names:
            m = old.fullmatch(n)
            assert pack_name_id(n, suffix) == (m.group(1) if m else None), (n, suffix)


def test_packed_line_is_the_old_pattern():
    old = re.compile(rb"([0-9a-f]{64}) ([^\n]+)\Z")
    hb = H.encode()
    lines = [hb + b" user/db", hb + b" ", hb + b"  x", hb + b"x user/a", hb[:-1] + b" user/a", hb.upper() + b" a",
             hb + b" a\nb", hb + b"\ta", b"", b" " * 70, hb + b" \xff\xfe", hb + b" a\r", hb[:-1] + b"G a"]
    for line in lines:
        m = old.match(line)
        assert _packed_line(line) == ((m.group(1), m.group(2)) if m else None), line


def test_is_gen_name_is_the_old_pattern():
    old = re.compile(r"gen-([1-9][0-9]*)\Z")
    for n in ["gen-1", "gen-10", "gen-0", "gen-01", "gen-", "gen", "gen-1a", "gen-1\n", "gen-\u0661", "Gen-1",
              "xgen-1", "gen-123456789", "gen-1 ", "gen-+1", "gen--1", "gen-²"]:
        assert is_gen_name(n) == bool(old.match(n)), n


def test_credential_name_without_an_anchor_is_the_pattern_s_answer():
    """credential_name returns at once for a key part holding none of
    GEN_ANCHORS: the pattern (every match starts with an anchor) says the same."""
    from objstore.core.redact.keywords import GEN_ANCHORS, _NAME_RE, credential_name
    names = ["project/bench/api-port", "user/one", "project/a/db", "k15", "project/x/keyboard", "user/pw", "user/PWD",
             "project/api/staging-password", "user/db_passwd", "user/DB_PASS", "user/github-token", "user/api-key",
             "user/openai_api_key", "user/client-secret", "user/secret-key-base", "user/password-policy",
             "user/tokens", "user/token-budget", "user/bypass", "user/wifi-passphrase", "user/Ke\u212a", "user/ſecret"]
    for n in names:
        seg = n.rsplit("/", 1)[-1].lower()
        m = next(_NAME_RE.finditer(seg), None)
        assert (credential_name(n) is not None) == (m is not None), n
        if not any(a in seg for a in GEN_ANCHORS):
            assert m is None, n
