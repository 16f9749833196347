"""Session 38 (lane corr38), test37b T14 through ``mem proxy``: "forget
that" right after a next-prompt correction said nothing and took nothing
back (both versions stayed, the corrected one current).  The proxy reads
take-backs by the hooks' rule (``capture.takeback``), which now reads past
the corrections said since the statement.  A real proxy process in front of
a loopback Messages API, the official SDK as the client."""

from __future__ import annotations

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from tests.integrations.test_proxy import eventually  # noqa: E402
from tests.integrations.test_proxy_as_hooks import rig  # noqa: E402,F401
from tests.integrations.test_proxy_take_back37 import _get, _say  # noqa: E402


def test_forget_that_after_a_correction_through_the_proxy_takes_both_back(rig):
    key = "user/remembered/metrics-port"
    said = ["remember that the metrics port is 9090"]
    _say(rig, "px-tb38a", said)
    eventually(lambda: _get(rig, key) == "the metrics port is 9090")
    said.append("Actually, it's 9091")
    assert f"Corrected as you asked: {key} = the metrics port is 9091" in _say(rig, "px-tb38a", said)
    eventually(lambda: _get(rig, key) == "the metrics port is 9091")
    body = _say(rig, "px-tb38a", [*said, "forget that"])
    assert f"Taken back as you asked: {key} is forgotten (it held: the metrics port is 9091)" in body, body
    eventually(lambda: _get(rig, key) is None)


def test_a_password_corrected_through_the_proxy_is_said_to_be_kept_out(rig):
    """test37b T1 through the proxy: the block said "Corrected as you asked: … = … Zebra-Quill-4471" though the
    stored turn holds the value redacted and nothing was corrected."""
    key = "user/remembered/staging-db-password"
    said = ["remember that the staging db password is Tr0ub4dor-88"]
    _say(rig, "px-tb38b", said)
    eventually(lambda: _get(rig, key) is not None)
    body = _say(rig, "px-tb38b", [*said, "Actually, it's Zebra-Quill-4471"])
    assert f"Not stored: the corrected value of {key} is a credential" in body and "Corrected as" not in body, body
