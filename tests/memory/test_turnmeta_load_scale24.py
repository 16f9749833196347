"""``cache/turn-meta`` is read without the JSON decoder for the plain
session ids and with one decode per distinct values list; what it reads
is what decoding every field reads (damaged lines skipped alike), and the
forget's ``meta_hits`` answers as a test of every value would."""

from __future__ import annotations

import json

from objstore.core.text import matcher
from objstore.memory import turnmeta
from objstore.memory.sessions import walk_turns

H = "ab" * 32


def _reference(raw: str) -> dict:
    out = {}
    for line in raw.splitlines():
        try:
            head, sid, values = line.split("\t", 2)
            sid, values = json.loads(sid), json.loads(values)
            if isinstance(sid, str) and isinstance(values, list) and all(isinstance(v, str) for v in values):
                out[sid] = (head, set(values))
        except ValueError:
            continue
    return out


def test_load_reads_what_decoding_every_field_reads(store):
    lines = [
        f'{H}\t"plain-id-1"\t["/w/acme", "acme"]',
        f'{H}\t"plain-id-2"\t["/w/acme", "acme"]',             # the same list: decoded once, sets apart
        f'{H}\t"caf\\u00e9"\t["/w/x"]',                        # an escape: decoded
        f'{H}\t"café-ü"\t[]',                                   # non-ASCII as written (ensure_ascii=False)
        f'{H}\t"a\\"b"\t["q"]',                                 # an escaped quote
        f'{H}\t"a\\\\b"\t["q"]',                                # an escaped backslash
        f'{H}\t"\u00adodd"\t["q"]',                               # not printable (a format character): decoded
        f'{H}\t"ctl\x01"\t["q"]',                               # a control character: damage, skipped
        f'{H}\t"unterminated\t["q"]',                           # damage
        f'{H}\t"a"b"\t["q"]',                                   # damage
        f'{H}\t12\t["q"]',                                      # not a string: skipped
        f'{H}\t"n"\t["q", 3]',                                  # a value not a string: skipped
        f'{H}\t"n2"\t["q", 3]',
        f'{H}\t"m"\t{{"q": 1}}',                                # not a list
        f'{H}\t""\t["e"]',
        "garbage",
    ]
    raw = "\n".join(lines) + "\n"
    (store.root / "cache").mkdir(exist_ok=True)
    (store.root / "cache" / turnmeta.META_FILE).write_text(raw, "utf-8")
    got = turnmeta._load(store)
    assert got == _reference(raw)
    assert {"plain-id-1", "café", "café-ü", 'a"b', "a\\b", "\u00adodd", ""} <= set(got)
    assert got["plain-id-1"][1] is not got["plain-id-2"][1]   # each session its own set


def test_meta_hits_tests_each_distinct_value_as_before(store):
    from objstore.core.objects import Turn
    from objstore.retrieval.evaluate import write_sessions

    def turn(n: int, cwd: str, project: str) -> Turn:
        return Turn(session="x", seq=0, role="user", text=f"turn {n}", timestamp=1_700_000_000_000 + n,
                    harness="test", cwd=cwd, project=project, source=f"t:{n}", parent=None)

    write_sessions(store, [(f"s{k}", [turn(10 * k + j, f"/w/{'zorblat' if k == 2 and j == 1 else 'acme'}",
                                           "acme") for j in range(3)]) for k in range(5)])
    heads = {n[len("sessions/"):]: h for n, h in store.refs.iter("sessions")}
    got = turnmeta.meta_hits(store, heads, matcher("ZORBLAT"))
    assert list(got) == ["s2"] and [tv.turn.cwd for tv in got["s2"]] == ["/w/zorblat"]
    want = {sid: [tv for tv in walk_turns(store, h) if "acme" in tv.turn.project][::-1] for sid, h in heads.items()}
    got = turnmeta.meta_hits(store, heads, matcher("acme"))
    assert {s: [tv.id for tv in v] for s, v in got.items()} == {s: [tv.id for tv in v] for s, v in want.items()}
