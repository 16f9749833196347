"""test25b U3: a secret that is the literal default of an environment read
assigned to a variable named for a credential was stored in the clear
(``SECRET_KEY = os.environ.get('DJANGO_SECRET_KEY', 'django-insecure-…')``,
the form of most Django settings files; ``os.getenv``, python-decouple's
``config(…, default=…)``, ``process.env.X || '…'`` and ``?? "…"``), as was
a literal after a type annotation (``SECRET_KEY: str = '…'``); and Django's
generated key (``django-insecure-`` + 50 of its alphabet) was no shape of
its own.  Code that reads the environment without a literal, empty or
placeholder defaults, and a non-secret name with an annotation stay.
Every value is fake."""

from __future__ import annotations

import pytest

from tests.core._redaction_util import assert_kept, assert_redacted, check_remembered_and_imported

DJ = "django-insecure-7x$k!q2@r9#m(w^z&v+b0n5c8e1t3y6u4i"
DJ50 = "django-insecure-" + "k7#m2!p9@x4$z8&q1^w5*e3(r6)t0_y-u+i=oa1b2c3d4e5f6g7"
KEY = "q8Zr2LmX7pV4nK9tW3sB6yH1"
PW = "S3cr3tPassw0rd"

#: case ~ text ~ its secret ~ a part that stays ~ the rule named (one case a line)
TABLE = f"""
django-environ-get ~ SECRET_KEY = os.environ.get('DJANGO_SECRET_KEY', '{DJ}') ~ {DJ} ~ os.environ.get( ~ django-secret-key
django-bare ~ the key is {DJ} now ~ {DJ} ~  now ~ django-secret-key
django-50 ~ key: {DJ50} ~ {DJ50} ~ key:  ~ django-secret-key
environ-get ~ SECRET_KEY = os.environ.get('SECRET_KEY', '{KEY}') ~ {KEY} ~ 'SECRET_KEY', ' ~ generic-secret
getenv ~ SECRET_KEY = os.getenv("SECRET_KEY", "{KEY}") ~ {KEY} ~ os.getenv("SECRET_KEY", " ~ generic-secret
decouple ~ SECRET_KEY = config('SECRET_KEY', default='{KEY}') ~ {KEY} ~ default=' ~ generic-secret
flask ~ app.secret_key = os.environ.get('FLASK_SECRET', '{KEY}') ~ {KEY} ~ app.secret_key ~ generic-secret
password ~ password = os.environ.get('DB_PASSWORD', '{PW}') ~ {PW} ~ 'DB_PASSWORD', ' ~ generic-secret
js-or ~ JWT_SECRET = process.env.JWT_SECRET || '{KEY}' ~ {KEY} ~ process.env.JWT_SECRET || ' ~ generic-secret
js-nullish ~ const secret = process.env.SESSION_SECRET ?? "{KEY}"; ~ {KEY} ~ "; ~ generic-secret
annotated ~ SECRET_KEY: str = '{KEY}' ~ {KEY} ~ SECRET_KEY: str = ' ~ generic-secret
pydantic ~ secret_key: str = Field(default='{KEY}') ~ {KEY} ~ Field(default=' ~ generic-secret
"""
CASES = {row[0]: tuple(row[1:]) for row in (line.split(" ~ ") for line in TABLE.strip().splitlines())}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_default_is_redacted_raw_and_json_escaped(case):
    text, secret, kept, rule = CASES[case]
    assert_redacted(case, text, [secret], [kept], rule)


KEPT = [
    "SECRET_KEY = env('SECRET_KEY')",
    "SECRET_KEY = os.environ.get('SECRET_KEY')",
    "SECRET_KEY = os.environ.get('SECRET_KEY', '')",
    "SECRET_KEY = os.environ.get('SECRET_KEY', None)",
    "SECRET_KEY = os.environ.get('SECRET_KEY', 'dev')",
    "SECRET_KEY = os.environ.get('SECRET_KEY', 'your-secret-key-here')",
    "password = os.getenv('DB_PASSWORD', 'changeme')",
    "token = os.getenv('TOKEN', 'default')",
    "api_key = config('API_KEY', cast=str)",
    "const secret = process.env.SESSION_SECRET ?? '';",
    "password: str = Field(default='')",
    "secret_name: str = 'MyDatabaseSecret'",
    "token_type: str = 'bearer'",
    "app.config['SECRET_KEY'] = os.urandom(24)",
    "see django-insecure-settings in the docs",
]


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_stay(text):
    assert_kept(text)


def test_mem_remember_get_and_import(tmp_path, mem):
    """Real mem processes: ``mem remember`` then ``mem get``, and a tool
    result of an imported transcript (a Read of settings.py): the secret is
    in neither."""
    cases = {k: v[:3] for k, v in CASES.items()}
    check_remembered_and_imported(mem, tmp_path, "test25b", "11111111-2222-4333-8444-555555555555", cases,
                                  ("django-environ-get", "django-bare", "decouple", "js-or", "annotated"),
                                  "SECRET_KEY = os.environ.get('SECRET_KEY')")
