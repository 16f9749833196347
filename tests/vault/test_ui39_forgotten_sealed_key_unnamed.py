"""test38 T9.6: after ``mem forget KEY`` of a sealed key, a write quoting
its value was still refused with "holds the sealed value of KEY", naming
the key the forget removed: the key's seal rules stayed a sealed key's.
The forget now relabels them a forgotten key's (``forgotten:KEY``): a
lower-trust write quoting the value is refused as forgotten text, naming
no key; later turns still withhold it."""

from __future__ import annotations


def test_a_refusal_after_forgetting_a_sealed_key_does_not_name_it(vstore, store_path, invoke, monkeypatch):
    invoke("remember", "user/pin", "maple-otter-4821", "--sensitivity", "secret")
    r = invoke("remember", "user/other", "my pin is maple-otter-4821", exit_code=6)
    assert "holds the sealed value of user/pin" in r.stderr            # while it is sealed
    invoke("forget", "user/pin", "--yes")
    r = invoke("remember", "user/other", "my pin is maple-otter-4821", "--trust", "agent_observed", exit_code=6)
    assert "this value holds a text that was forgotten" in r.stderr, r.stderr
    assert "user/pin" not in r.stdout + r.stderr and "maple" not in r.stderr
    rules = (store_path / "seal-rules").read_text()
    assert " forgotten:user/pin\n" in rules and " user/pin\n" not in rules
    invoke("remember", "user/other", "my pin is maple-otter-4821")   # the person's word brings it back, as for a plain forget


def test_sealed_forget_relabels_the_rules_too(vstore, store_path, invoke):
    invoke("remember", "user/pin", "maple-otter-4821", "--sensitivity", "secret")
    invoke("remember", "user/key2", "birch-heron-7731", "--sensitivity", "secret")
    invoke("sealed", "forget", "user/pin", "--yes")
    rules = (store_path / "seal-rules").read_text()
    assert " forgotten:user/pin\n" in rules and " user/key2\n" in rules and " user/pin\n" not in rules
    assert "holds the sealed value of user/key2" in invoke("remember", "user/x", "birch-heron-7731", exit_code=6).stderr
