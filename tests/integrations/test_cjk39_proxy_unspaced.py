"""cjk39 (test38 T5/T6) through ``mem proxy``: a person's message and the model's answer quoting a sealed value
inside Chinese or Japanese text with no spaces around it were stored in the clear.  A real proxy process in
front of a loopback Messages API, the official ``anthropic`` SDK as the client."""

from __future__ import annotations

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from objstore import scan_store  # noqa: E402
from tests.hooks.test_cjk39_unspaced_text import HAN, LATIN, SAID  # noqa: E402
from tests.integrations.test_proxy_as_hooks import client, mem, rig, settled, turns_of  # noqa: E402,F401


def test_a_proxied_conversation_quoting_sealed_values_inside_unspaced_text_is_stored_withheld(rig, tmp_path):
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple x\n")
    assert mem(rig, "vault", "init", "--passphrase-file", str(pp)).returncode == 0
    for key, value in (("user/wifi/pass", LATIN), ("user/home/door", HAN)):
        r = mem(rig, "remember", key, value, "--sensitivity", "secret")
        assert r.returncode == 0, r.stderr
    answer = f"好的，{LATIN}和{HAN}已经记下了。"
    client(rig, **{"x-mem-session": "px-cjk39"}).messages.create(
        model="m", max_tokens=5, messages=[{"role": "user", "content": " ".join(SAID)}],
        extra_headers={"x-test-answer": answer})
    settled(rig, "settle-cjk39")
    texts = "\n".join(t["text"] for t in turns_of(rig, "px-cjk39"))
    withheld = texts.count("[REDACTED:sealed-value]") + texts.count("[REDACTED:markdown-secret]")   # (pin40: a
    assert withheld == texts.count("[REDACTED:") == len(SAID) + 2, texts     # password word's rule comes first)
    assert "我家的密码是[REDACTED:sealed-value]。" in texts, texts
    mem(rig, "gc", "--prune=now")
    assert scan_store(rig["home"], [LATIN.encode(), HAN.encode()]) == []
