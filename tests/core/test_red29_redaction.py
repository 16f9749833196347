"""red29 (tester finding test29 P5): password shapes that were stored in the
clear: a label with a bracketed qualifier (``DB password (prod): X``), a plural
label and the user the password is for (``passwords: admin=X``), a label in
another language before a quoted value or as a JSON key (``kennwort="X"``,
``{"contraseña": "X"}``) or written as a shell variable's name
(``MOT_DE_PASSE=X``, ``DB_HASLO=X``), ``STRIPE_KEY=X`` and npm's ``_auth=``
(base64 of ``user:password``), and the prose forms in Portuguese, Italian and
Dutch and with a few words between the label and its verb or sign (``das
Passwort für die DB lautet X``, ``password del db: X``).  Each
shape is read by the one entry point (:func:`objstore.core.redact.redact`),
so ``mem remember``, the prompt hook and a transcript import store it
redacted, a key name holding one is refused by the one name rule, and
``mem forget --credentials`` finds what an older ``mem`` stored.  Every
secret is fake."""

from __future__ import annotations

import json

import pytest

from objstore import scan_store
from objstore.core.redact import RedactResult, name_hits, redact
from objstore.memory.opening import open_store
from tests.cmds._credentials import run_prompt_hooks, stored_texts
from tests.core._redaction_util import check_remembered_and_imported
from tests.hooks._util import hook_env
from tests.memory.test_forget_credentials import write_turns

PW = "Zq7mm2xLp"

Q, J = "qualifier", "foreign"
#: (case, text, the rule named); the secret is PW or the case's token in OTHER, what stands before it stays
SHAPES = [
    (f"{Q}-round", "DB password (prod): " + PW, "generic-secret"), (f"{Q}-staging", "Password (staging): " + PW,
     "generic-secret"), (f"{Q}-square", "DB password [prod]: " + PW, "generic-secret"),
    (f"{Q}-equals", "Password (prod) = " + PW, "generic-secret"), (f"{Q}-title", "Admin Password (new): " + PW,
     "generic-secret"), (f"{Q}-glued", "password(prod): " + PW, "generic-secret"),
    ("plural-user", "passwords: admin=" + PW, "generic-secret"), ("plural-user-spaced", "Passwords: root = " + PW,
     "generic-secret"), ("stripe-key", "STRIPE_KEY=Bb2secretPwB", "generic-secret"),
    (f"{J}-quoted", 'kennwort="' + PW + '"', "markdown-secret"), (f"{J}-single-quoted", "export SENHA='" + PW + "'",
     "markdown-secret"), (f"{J}-json-key", '{"contrase\u00f1a": "' + PW + '", "user": "bob"}', "markdown-secret"),
    (f"{J}-json-key-de", '{"Kennwort":"' + PW + '"}', "markdown-secret"), (f"{J}-env-fr", "mot_de_passe=" + PW,
     "markdown-secret"), (f"{J}-env-fr-caps", "MOT_DE_PASSE=" + PW, "markdown-secret"),
    (f"{J}-env-pl", "db_haslo=" + PW, "markdown-secret"), (f"{J}-env-pl-caps", "export DB_HASLO=" + PW, "markdown-secret"),
    ("npm-auth", "//registry.npmjs.org/:_auth=Ym9iOnE4WnQzTHg5VmIyTm03S3A0", "basic-auth"),
    *((f"{J}-owner-{c}", t + PW, "markdown-secret") for c, t in (
        ("ru", "\u043f\u0430\u0440\u043e\u043b\u044c \u043e\u0442 \u0431\u0430\u0437\u044b: "), ("pt", "senha do banco: "),
        ("de", "Kennwort f\u00fcr die DB: "))),
    *((f"prose-{c}", t + PW, "password-phrase") for c, t in (
        ("pt", "a senha \u00e9 "), ("pt-en-word", "o password \u00e9 "), ("it", "la password \u00e8 "),
        ("nl", "het wachtwoord is "), ("de-owner", "das Passwort f\u00fcr die DB lautet "),
        ("es-owner", "la contrase\u00f1a de la base de datos es "), ("owner-es-colon", "password del db: "))),
]
OTHER = {"stripe-key": "Bb2secretPwB", "npm-auth": "Ym9iOnE4WnQzTHg5VmIyTm03S3A0"}
#: case -> (text, the secret, what must stay, the rule named)
CASES = {case: (text, OTHER.get(case, PW), text[:text.index(OTHER.get(case, PW))], rule) for case, text, rule in SHAPES}

#: texts that hold a label and a bracket but no secret: stored as typed
LOOKALIKES = [
    "password (str): the user's password", "token (optional): a bearer token", "def password(self): return self._pw",
    "Password (required): string", "api_key (str): Your API key.", "password(prod): ${DB_PASSWORD}",
    "password [optional]: <password>", "if check_password(user): login_user(user)", "Password (8+ chars): required",
    "passwords: min_length=12", "secrets: count=42", "passwords: see=below",
    'kennwort="changeme"', '{"contrase\u00f1a": "obligatoria"}', 'senha="${SENHA}"', "mot_de_passe = changeme",
    "db_haslo=${HASLO}", "the haslo library", "STRIPE_KEY=${STRIPE_KEY}", "stripe key: see the dashboard",
    "_auth=dGVzdA==", "oauth_author=Ym9iOnE4WnQzTHg5VmIyTm03S3A0",
    "a senha \u00e9 obrigat\u00f3ria", "het wachtwoord is onjuist", "la password \u00e8 troppo corta",
    "o password \u00e9 inv\u00e1lido", "Das Passwort f\u00fcr die DB lautet: siehe Vault",
    "la contrase\u00f1a de la base de datos es muy segura", "password del db: ver el vault",
    "Kennwort f\u00fcr die DB: siehe Vault", "senha do banco: obrigat\u00f3ria",
]


@pytest.mark.parametrize("case", sorted(CASES))
def test_shape_redacted(case):
    text, secret, kept, rule = CASES[case]
    r = redact(text)
    assert secret not in r.text and r.text.startswith(kept), r.text
    assert f"[REDACTED:{rule}]" in r.text, r.text
    assert redact(r.text).text == r.text                  # idempotent


@pytest.mark.parametrize("text", LOOKALIKES)
def test_look_alike_kept(text):
    assert redact(text).text == text


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_key_name_holding_the_shape_hits(case):
    """The one name rule reads a key as values are read (test29 P5: the password was in a ref file's name)."""
    assert name_hits("project/x/" + CASES[case][0]), case


@pytest.mark.parametrize("key", ["project/x/password (prod)", "project/x/db password [staging] notes"])
def test_a_key_name_about_a_qualified_password_is_no_credential(key):
    assert not name_hits(key), key


def test_stored_by_remember_and_import(tmp_path, mem):
    """Real ``mem remember``/``get`` and an imported transcript's Bash result."""
    check_remembered_and_imported(mem, tmp_path, "red29", "29292929-aaaa-4bbb-8ccc-292929292929", CASES,
                                  sorted(CASES), LOOKALIKES[0])


def test_the_key_name_is_refused_by_remember(mem):
    mem("remember", "project/x/other", "a value")
    r = mem("remember", f"project/x/DB password (prod): {PW}", "v", exit_code=2)
    assert PW not in r.stdout + r.stderr and "credential" in r.stderr, r.stderr
    assert "no stored value or turn holds a credential" in mem("forget", "--credentials", "--dry-run").stdout


def test_the_prompt_hook_stores_them_redacted(tmp_path):
    store = tmp_path / "store"
    prompts = ["Use this: " + "\n".join(t for t, *_ in CASES.values()), "Keep: " + LOOKALIKES[0]]
    run_prompt_hooks(store, hook_env(store), "d1111111-0000-4000-8000-000000000029", prompts)
    texts = stored_texts(store)
    assert texts.count("[REDACTED:") >= len(CASES) and not any(c[1] in texts for c in CASES.values()), texts
    assert LOOKALIKES[0] in texts


def test_forget_credentials_finds_what_an_older_mem_stored(monkeypatch, mem, store_path):
    """Turns written with the secret in them (as a mem before this lane did) are found and redacted."""
    import objstore.core.redact as red
    with monkeypatch.context() as m:
        m.setattr(red, "redact", lambda text, *a, **k: RedactResult(text))   # the turn writer stores as typed
        with open_store(store_path, create=True) as s:
            write_turns(s, "29292929-bbbb-4ccc-8ddd-292929292929", [("user", t) for t, *_ in CASES.values()])
    assert scan_store(store_path, [PW.encode()])          # the old store holds it (the test can fail)
    assert scan_store(store_path, [b"Ym9iOnE4WnQzTHg5"])
    r = mem("forget", "--credentials", "--dry-run")
    assert "would redact" in r.stdout, r.stdout
    mem("forget", "--credentials", "--yes")
    mem("gc", "--prune=now")
    assert scan_store(store_path, [PW.encode()]) == [] and scan_store(store_path, [b"Ym9iOnE4WnQzTHg5"]) == []


@pytest.mark.parametrize("case", sorted(c for c in CASES if c.startswith("foreign")))
def test_a_foreign_shape_inside_a_json_string(case):
    """A tool call's argument holds the text JSON-escaped (the quotes as ``\\"``)."""
    text, secret = CASES[case][:2]
    esc = redact(json.dumps({"command": text}, ensure_ascii=False)).text
    assert secret not in esc, esc
