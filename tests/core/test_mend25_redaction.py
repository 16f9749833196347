"""mend25 (session 24 left open): letters alone that read as a random key
after a secret's keyword outside the key-itself names (``APP_SECRET=``,
``CLIENT_SECRET=``, ``API_TOKEN=``, ``APP_PASSWORD=``) were stored in the
clear: only ``JWT_SECRET``/``SESSION_SECRET``/``SECRET_KEY``... took them
(redb24).  And a PIN under a quoted key (``"PINCODE": "4471"``), raw or
JSON-escaped inside a JSON string (``\\"PINCODE\\": \\"4471\\"``,
``PINCODE=\\"4471\\"``), was missed.  The look-alikes stay: identifiers in
camel or Pascal case, a Kubernetes Secret's name, placeholders, a GPIO pin,
an error code.  Every value is fake."""

from __future__ import annotations

import json

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_redacted, check_remembered_and_imported

MIXED = "KjHgFdSaQwErTyUiOpLkJhGfDsAzXcVb"
MIXED2 = "xKpQzRmWvTnLsYhBgFdJcAeU"
UPPER = "QWERTYUIOPASDFGHJKLZXCVBNM"

#: case: (text, the secret in it, what must stay, the rule named)
CASES = {
    "app-secret-mixed": (f"APP_SECRET={MIXED}", MIXED, "APP_SECRET=", "generic-secret"),
    "app-secret-upper": (f"export APP_SECRET={UPPER}", UPPER, "export APP_SECRET=", "generic-secret"),
    "client-secret-quoted": (f'CLIENT_SECRET="{MIXED2}"', MIXED2, 'CLIENT_SECRET="', "generic-secret"),
    "webhook-secret-yaml": (f"webhook_secret: {MIXED}", MIXED, "webhook_secret: ", "generic-secret"),
    "bare-secret": (f"secret={MIXED2}", MIXED2, "secret=", "generic-secret"),
    "api-token": (f"API_TOKEN={MIXED}", MIXED, "API_TOKEN=", "generic-secret"),
    "app-password": (f"APP_PASSWORD='{MIXED2}'", MIXED2, "APP_PASSWORD='", "generic-secret"),
    "pincode-quoted": ('PINCODE="7304918265"', "7304918265", 'PINCODE="', "password-phrase"),
    "pincode-json-key": ('{"PINCODE": "8406137259"}', "8406137259", '{"PINCODE": "', "password-phrase"),
    "pin-code-json-tight": ('{"pin_code":"448812"}', "448812", '{"pin_code":"', "password-phrase"),
    "passcode-json-key": ("{'passcode': '7741'}", "7741", "{'passcode': '", "password-phrase"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_shape_is_redacted_raw_and_json_escaped(case):
    text, secret, kept, rule = CASES[case]
    assert_redacted(case, text, [secret], [kept], rule)


def test_a_pincode_inside_a_json_string_inside_a_json_string():
    """Twice escaped: a tool result holding a JSON document as a string."""
    inner = json.dumps({"note": json.dumps({"PINCODE": "4471", "door": "front"})})
    out = redact(json.dumps({"content": inner})).text
    assert "4471" not in out and "front" in out


KEPT = [
    "APP_SECRET=AppSecretName",
    "CLIENT_SECRET=ClientSecretFromVault",
    "IMAGE_PULL_SECRET=regcred",
    "IMAGE_PULL_SECRET=dockerhubcredentials",
    "APP_SECRET=YOURAPPSECRETGOESHERE",
    "API_TOKEN=GITHUBTOKENPLACEHOLDER",
    "API_TOKEN=HTTPSConnectionPoolManager",
    "secret: MySecretResourceName",
    f"APP_NAME={MIXED}",
    '{"pin": "13"}',
    '{"led_pin": "17"}',
    '{"pin_number": "17"}',
    '{"error_code": "4040"}',
    '{"zip_code": "10115"}',
]


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_are_kept_raw_and_json_escaped(text):
    assert redact(text).text == text
    esc = json.dumps({"command": text})
    assert redact(esc).text == esc


def test_mem_remember_get_and_import(tmp_path, mem):
    """Real mem processes: ``mem remember`` then ``mem get``, and a Bash
    result of an imported transcript: the secret is in neither."""
    cases = {k: v[:3] for k, v in CASES.items()}
    check_remembered_and_imported(mem, tmp_path, "mend25", "4c4c4c4c-aaaa-4bbb-8ccc-252525252525", cases,
                                  ("app-secret-mixed", "api-token", "pincode-json-key", "pincode-quoted"),
                                  "CLIENT_SECRET=ClientSecretFromVault")
