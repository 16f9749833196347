"""mend25 (session 24 left open): letters alone that read as a random key
after a secret's keyword outside the key-itself names (``APP_SECRET=``,
``CLIENT_SECRET=``, ``API_TOKEN=``, ``APP_PASSWORD=``) were stored in the
clear: only ``JWT_SECRET``/``SESSION_SECRET``/``SECRET_KEY``... took them
(redb24).  And a PIN under a quoted key (``"PINCODE": "4471"``), raw or
JSON-escaped inside a JSON string (``\\"PINCODE\\": \\"4471\\"``,
``PINCODE=\\"4471\\"``), was missed.  The look-alikes stay: identifiers in
camel or Pascal case, a Kubernetes Secret's name, placeholders, a GPIO pin,
an error code.

test25 T3: unlabelled LLM-provider and CI vendor tokens were stored in
the clear: OpenRouter (``sk-or-v1-`` + 64 hex), xAI (``xai-`` + 80), Groq
(``gsk_`` + 52), Docker Hub PATs (``dckr_pat_`` + 27) and Pulumi (``pul-``
+ 40 hex), each now redacted by its format; and a token printed in groups
of hex after a label (``API_TOKEN=a1b2c3d4_e5f6a7b8_…``), which read as a
snake_case name.  test25 T12: Django's generated ``SECRET_KEY`` (symbols the
value run stops at: ``(``, ``)``), Flask's ``app.config['SECRET_KEY'] = …``
(the subscript's ``']``), Google's ``GOCSPX-`` and ``ya29.``.  Look-alikes
stay.  Every value is fake."""

from __future__ import annotations

import json

import pytest

from objstore.core.redact import redact
from tests.core._redaction_util import assert_kept, assert_redacted, check_remembered_and_imported

MIXED = "KjHgFdSaQwErTyUiOpLkJhGfDsAzXcVb"
MIXED2 = "xKpQzRmWvTnLsYhBgFdJcAeU"
UPPER = "QWERTYUIOPASDFGHJKLZXCVBNM"
OPENROUTER = "sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
XAI = "xai-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEf"
GROQ = "gsk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOp"
DOCKER = "dckr_pat_2b3e36beeb386dfdaacb9b46004"
PULUMI = "pul-6ce4b0a7e3e1d1d1f5b8a7d0c6e2f1a9b8c7d6e5"
GROUPS = "a1b2c3d4_e5f6a7b8_c9d0e1f2_a3b4c5d6"
DJANGO = "django-insecure-k7#m2!p9@x4$z8&q1^w5*e3(r6)t0_y-u+i=o"
FLASK = "a8f5f167f44f4964e6c998dee827110c"
ENV_TOKEN = "Zx81kQ0pLm2Nb7Vc4Rt9"
GOCSPX = "GOCSPX-AbCdEfGhIjKlMnOpQrStUvWxYz01"
YA29 = "ya29.a0AfH6SMBx3kLmNoPqRsTuVwXyZ0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"


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
    "openrouter": (f"my openrouter key is {OPENROUTER}", OPENROUTER, "my openrouter key is ", "openrouter-key"),
    "xai": (f"XAI_API_KEY={XAI}", XAI, "XAI_API_KEY=", "xai-key"),
    "xai-bare": (f"use {XAI} here", XAI, "use ", "xai-key"),
    "groq": (f"client = Groq(api_key='{GROQ}')", GROQ, "client = Groq(api_key='", "groq-key"),
    "docker": (f"here is my docker hub pat {DOCKER} use it", DOCKER, "use it", "docker-hub-token"),
    "docker-labelled": (f"DOCKERHUB_TOKEN={DOCKER}", DOCKER, "DOCKERHUB_TOKEN=", "docker-hub-token"),
    "docker-login": (f"echo {DOCKER} | docker login -u dev --password-stdin", DOCKER, "docker login", "docker-hub-token"),
    "pulumi": (f"use {PULUMI} for ci", PULUMI, "for ci", "pulumi-token"),
    "hex-groups": (f"API_TOKEN={GROUPS}", GROUPS, "API_TOKEN=", "generic-secret"),
    "django": (f"SECRET_KEY = '{DJANGO}'", DJANGO, "SECRET_KEY = '", "django-secret-key"),   # test25b U3
    "django-env": (f'DJANGO_SECRET_KEY="{DJANGO}"', DJANGO, 'DJANGO_SECRET_KEY="', "django-secret-key"),
    "flask-config": (f"app.config['SECRET_KEY'] = '{FLASK}'", FLASK, "app.config['SECRET_KEY'] = '",
                     "generic-secret"),
    "environ-subscript": (f'os.environ["API_TOKEN"] = "{ENV_TOKEN}"', ENV_TOKEN, 'os.environ["API_TOKEN"] = "',
                          "generic-secret"),
    "gocspx": (f'"client_secret": "{GOCSPX}"', GOCSPX, '"client_secret": "', "google-oauth-secret"),
    "gocspx-bare": (f"the secret {GOCSPX} works", GOCSPX, " works", "google-oauth-secret"),
    "ya29": (f"curl -H 'Authorization: Bearer {YA29}' https://www.googleapis.com/oauth2/v3/userinfo", YA29,
             "https://www.googleapis.com", None),
    "ya29-bare": (f"token was {YA29} yesterday", YA29, " yesterday", "google-oauth-token"),
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
    "next_token2 = cafe_bead_dead_beef",
    "token=cafe_bead_dead_beef",
    "API_TOKEN=next_token_v2",
    "key_id = ab12_cd34",
    "the xai-sdk and gsk_ prefixes are documented",
    "git checkout pul-request-fix",
    "sk-or-v1-abc is too short",
    "SECRET_KEY = os.environ.get('SECRET_KEY')",
    "token = 'get(x)'",
    "d['token'] = token",
    "app.config['SECRET_KEY'] = os.environ['SECRET_KEY']",
]


test_look_alikes_are_kept_raw_and_json_escaped = pytest.mark.parametrize("text", KEPT)(assert_kept)


def test_mem_remember_get_and_import(tmp_path, mem):
    """Real mem processes: ``mem remember`` then ``mem get``, and a Bash
    result of an imported transcript: the secret is in neither."""
    cases = {k: v[:3] for k, v in CASES.items()}
    check_remembered_and_imported(mem, tmp_path, "mend25", "4c4c4c4c-aaaa-4bbb-8ccc-252525252525", cases,
                                  ("app-secret-mixed", "api-token", "pincode-json-key", "pincode-quoted",
                                   "openrouter", "xai", "groq", "docker", "pulumi", "hex-groups", "django",
                                   "flask-config", "gocspx", "ya29-bare"),
                                  "CLIENT_SECRET=ClientSecretFromVault")
