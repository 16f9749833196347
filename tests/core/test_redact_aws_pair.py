"""Issue 21 item 11: an unlabelled AWS secret access key beside its key id is redacted."""

from __future__ import annotations

import pytest

from objstore.core.redact import redact

SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY123"


@pytest.mark.parametrize("text", [
    f"AKIAFAKE0123456789AB {SECRET}",
    f"Access key ID,Secret access key\nAKIAFAKE0123456789AB,{SECRET}\n",
    f'{{"id": "ASIAFAKE0123456789AB", "s": "{SECRET}"}}',
    f"{SECRET}\nAKIAFAKE0123456789AB",
])
def test_unlabelled_secret_next_to_key_id(text):
    out = redact(text).text
    assert SECRET not in out and "[REDACTED:aws-secret-access-key]" in out
    assert "AKIAFAKE" not in out and "ASIAFAKE" not in out


def test_hex_digest_and_far_tokens_are_kept():
    sha = "3f786850e387550fdab836ed7e6dc881de23001b"
    assert sha in redact(f"AKIAFAKE0123456789AB commit {sha}").text
    far = "x" * 400
    assert SECRET in redact(f"AKIAFAKE0123456789AB {far} {SECRET}").text
    assert SECRET in redact(f"no key id here {SECRET}").text
