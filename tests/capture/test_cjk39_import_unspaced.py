"""cjk39 (test38 T5/T6) through ``mem import``: a transcript quoting a sealed value inside Chinese or Japanese
text with no spaces around it ("密码是maple-otter-77请记住"), or a sealed value of Han characters inside a
Chinese sentence, was imported in the clear (the import's seal-rule check read the Han characters beside the
value as letters of its word).  Real ``mem import`` of a real transcript file; gc; the store's bytes."""

from __future__ import annotations

from objstore import scan_store
from tests.hooks._util import asst, line, text, user
from tests.hooks.test_cjk39_unspaced_text import HAN, LATIN, SAID
from tests.hooks.test_seal_later_turns import _mem
from tests.hooks.test_seal_two_word_values import sealed_session

SID = "39393939-1111-4222-8333-444444444444"


def test_an_imported_transcript_quoting_sealed_values_inside_unspaced_text_is_stored_withheld(tmp_path):
    s, env = sealed_session(tmp_path, [LATIN, HAN], "m39")
    rows = [user(f"u{i}", said, SID, ts=f"2026-01-05T10:00:{i:02d}Z") for i, said in enumerate(SAID)]
    rows.append(asst("a9", "m9", [text(f"好的，{LATIN}和{HAN}已经记下了。")], SID, ts="2026-01-05T10:01:00Z"))
    path = tmp_path / "t" / f"{SID}.jsonl"
    path.parent.mkdir()
    path.write_bytes(b"".join(line(r) for r in rows))
    _mem(env, "import", "claude-code", str(path))
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [LATIN.encode(), HAN.encode()]) == []
    shown = _mem(env, "show", SID[:13]).stdout
    # a quote after a password word (密码是, パスワードは, 비밀번호는) is withheld by the credential rule first since
    # pin40 ends a labelled value where the unspaced text goes on: withheld either way, and nothing else
    withheld = shown.count("[REDACTED:sealed-value]") + shown.count("[REDACTED:markdown-secret]")
    assert withheld == shown.count("[REDACTED:") == len(SAID) + 2, shown
    assert "パスワードは[REDACTED:" in shown and "好的，[REDACTED:sealed-value]和" in shown, shown
