"""test16 F14: ``forget --match`` and ``scan`` said "nothing matches" /
"found nowhere" for a text the user sees, when the stored text held a zero-width
space, a soft hyphen or fullwidth letters.  The one matching rule
(``core.text.matcher``) now also compares both texts as they read
(``confusable_fold``: default-ignorable code points dropped, NFKC), and the
index's substring prefilter holds that form of a body.  Real ``mem``
processes (remember, the prompt hook, forget, scan, gc) on a real store."""

from __future__ import annotations

from objstore.core.text import contains, find_spans, matcher, normalize_value, value_digest
from tests.hooks._util import hook_env, payload, run_hook_done

ZWSP_FACT = "the host is gir\u200baffe-opal-12"
FULLWIDTH_FACT = "use \uff5a\uff45\uff42\uff52\uff41-host"          # fullwidth 'zebra'
SHY_PROMPT = "the box is pen\u00adguin-slate-55 now"                  # a soft hyphen inside


def test_forget_match_and_scan_find_a_text_behind_invisible_or_fullwidth_characters(tmp_path, mem):
    store = tmp_path / "store"
    e = {"MEM_HOME": str(store)}
    mem("init", env=e)
    mem("remember", "project/a/x", ZWSP_FACT, env=e)
    mem("remember", "project/a/z", FULLWIDTH_FACT, env=e)
    t = tmp_path / "t.jsonl"
    t.touch()
    rc, _out, _err, _dt = run_hook_done(store, payload("UserPromptSubmit", "s-f14", t, cwd=str(tmp_path),
                                                       prompt=SHY_PROMPT),
                                        env=hook_env(store, MEM_HOOK_FORK="0", MEM_NO_HELPER="1"))
    assert rc == 0
    for text, where in (("giraffe-opal", "project/a/x"), ("zebra-host", "project/a/z"), ("penguin-slate", "s-f14")):
        hits = mem("scan", text, "--json", env=e, exit_code=1).json
        assert any(where in h["detail"] for h in hits), (text, hits)
        dry = mem("forget", "--match", text, "--dry-run", env=e).stdout
        assert where in dry, (text, dry)
    for text in ("giraffe-opal", "zebra-host", "penguin-slate"):
        mem("forget", "--match", text, "--yes", env=e)
    mem("gc", "--prune=now", env=e)
    for text in ("giraffe-opal", "zebra-host", "penguin-slate"):
        assert mem("scan", text, env=e).stdout.startswith("found nowhere"), text
    assert "guin-slate" not in mem("show", "s-f14", env=e).stdout     # the turn's text was emptied


def test_the_normalized_form_and_old_digests_are_unchanged():
    # a match: rule or tombstone an older mem wrote hashes normalize_value: still NFC + casefold
    assert normalize_value(FULLWIDTH_FACT) == "use \uff5a\uff45\uff42\uff52\uff41-host"
    assert value_digest("Hello  World") == value_digest("hello world")
    assert contains(ZWSP_FACT, "GIRAFFE-opal") and contains(FULLWIDTH_FACT, "zebra-HOST")
    assert contains(FULLWIDTH_FACT, "\uff5a\uff45\uff42\uff52\uff41") and contains("a zebra here", "\uff5a\uff45\uff42\uff52\uff41")
    assert not matcher("giraffe-opal")("gir affe-opal") and not contains("plain text", "zebra")
    # a scrub replaces exactly what matched, the invisible character with it
    assert find_spans(ZWSP_FACT, "giraffe-opal") == [(12, 25)]
    assert find_spans("x \ufb01ne y", "fine") == [(2, 5)]
