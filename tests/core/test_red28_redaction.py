"""red28 (tester findings test27b X1, test27 V26's rest): a passphrase after
an explicit password label in Title Case or capitals (``Password: Correct
Horse Battery Staple``), after a label in a list, quote or heading line or
mid-line, after the German and French labels (``Passwort:``, ``Kennwort:``,
``mot de passe :``, letters beyond ASCII too); in Markdown after a bold label
or in a table; an OpenSSH private key's body without its BEGIN line
(``b3BlbnNzaC1rZXktdjEAAAAA…``) and a JFrog reference token (``cmVmdGtu…``).
The look-alikes (UI texts, headings, German and French prose after the
label, base64 that is no key) stay.  Every secret is fake."""

from __future__ import annotations

import base64
import json
import random

import pytest

from objstore.core.redact import name_hits, redact
from tests.core._redaction_util import assert_kept, assert_redacted, check_remembered_and_imported

TITLE = "Correct Horse Battery Staple"
PHRASE, MD, KEY, JFROG = "password-phrase", "markdown-secret", "private-key", "jfrog-key"


def _openssh_body(width: int, seed: int) -> str:
    """A fake OpenSSH private key body: base64 of ``openssh-key-v1`` NUL and
    random bytes, wrapped at ``width`` characters a line (0: one line)."""
    rnd = random.Random(seed)
    raw = b"openssh-key-v1\0\0\0\0\4none" + bytes(rnd.randrange(256) for _ in range(380))
    b64 = base64.b64encode(raw).decode()
    if not width:
        return b64
    return "\n".join(b64[i:i + width] for i in range(0, len(b64), width))


JFROG_REF = "cmVmdGtu" + "".join(random.Random(28).choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
                                 for _ in range(56))

#: a label's shapes: case -> (what stands before the words, the words); the text is the two joined, the
#: words are the secret, what stands before them stays, password-phrase names the hit
LABELLED = {
    "title": ("Password: ", TITLE),
    "title-three": ("Password: ", "Tulip River Amber"),
    "capitals": ("Password: ", TITLE.upper()),
    "sentence-case": ("Password: ", TITLE.capitalize()),
    "mid-line": ("I set up the NAS and the password: ", TITLE.lower()),
    "list-dash": ("- Password: ", TITLE),
    "list-star": ("* password: ", TITLE.lower()),
    "list-number": ("1. Password: ", TITLE),
    "quote": ("> Password: ", TITLE),
    "heading": ("## Password: ", TITLE),
    "passwort-ascii": ("Passwort: ", "korrektes Pferd Batterie Heftklammer"),
    "kennwort": ("Kennwort: ", "Korrektes Pferd Batterie Heftklammer"),
    "mot-de-passe": ("mot de passe : ", "cheval correct batterie agrafe"),
    "mot-de-passe-title": ("Mot de passe: ", "Cheval Correct Batterie Agrafe"),
}
#: case -> (text, the secret, what must stay, the rule named)
CASES = {
    **{case: (before + words, words, before, PHRASE) for case, (before, words) in LABELLED.items()},
    "mid-line-title": (f"Set up the NAS. Password: {TITLE}.", TITLE, "Set up the NAS.", PHRASE),
    "passwort": ("Passwort: gr\u00fcner Baum blauer Himmel", "gr\u00fcner Baum blauer Himmel", "Passwort: ", None),
    "md-bold-title": (f"**Password:** {TITLE}", TITLE, "**Password:** ", MD),
    "md-table-title": (f"| Password | {TITLE} |", TITLE, "| Password |", MD),
    "openssh-70": (_openssh_body(70, 1), _openssh_body(70, 1).split("\n")[2], "", KEY),
    "openssh-64": (_openssh_body(64, 2), _openssh_body(64, 2).split("\n")[3], "", KEY),
    "openssh-line": ("key body: " + _openssh_body(0, 3), _openssh_body(0, 3)[30:90], "key body: ", KEY),
    "openssh-two-lines": ("\n".join(_openssh_body(70, 4).split("\n")[:2]) + "\nthat is the key",
                          _openssh_body(70, 4).split("\n")[1], "that is the key", KEY),
    "jfrog-reference": (f"export ARTIFACTORY_REF {JFROG_REF} for the CI", JFROG_REF, "for the CI", JFROG),
}


#: cases with letters beyond ASCII: JSON-escaped as ``\\u00fc`` their words are not read (left: the report);
#: a transcript written with the letters as UTF-8 (Claude Code's JSON lines) is checked instead
NON_ASCII = ("passwort",)


@pytest.mark.parametrize("case", sorted(CASES))
def test_shape_redacted(case):
    text, secret, kept, rule = CASES[case]
    last = secret.split(" ")[-1]
    assert_redacted(case, text, [secret, last], kept=[kept] if kept else [], rule=rule, escaped=case not in NON_ASCII)
    if case in NON_ASCII:
        esc = redact(json.dumps({"command": text}, ensure_ascii=False)).text
        assert secret not in esc and last not in esc, esc


def test_the_whole_openssh_body_goes():
    """Every line of the body, the last (short) one too; the END line after it
    is read by the private-key rule as before."""
    body = _openssh_body(70, 5)
    text = "cat id_ed25519 | tail -n +2\n" + body + "\n-----END OPENSSH PRIVATE KEY-----\n"
    out = assert_redacted("openssh-end", text, body.split("\n"), kept=["cat id_ed25519"], rule=KEY)
    assert out.count("[REDACTED:") >= 1


@pytest.mark.parametrize("text", [
    "Password: Enter Your Password",
    "Password: Not Set",
    "Password: NOT SET YET",
    "Password: See The Vault",
    "Password: Incorrectly Typed Three Times",
    "## Password: Storage Best Practices",
    "Password: Must Contain Eight Characters",
    "Password: Change Every Ninety Days",
    "Password: Stored In Keychain",
    "Password: McDonald Farm Animals",             # a capital inside a word: a name, not a passphrase's word
    "Password: Lorem Ipsum Dolor Sit",
    "**Password:** See The Vault",
    "| Password | Not Set Yet |",
    "Passwort: nicht gesetzt",
    "Passwort: siehe den Tresor",
    "Kennwort: wird nicht gespeichert",
    "Kennwort: Bitte Kennwort eingeben",
    "mot de passe : voir le coffre",
    "Mot de passe : Saisissez votre mot de passe",
    "Benutzerkennwort: korrektes Pferd Batterie Heftklammer x1",
    "b3BlbnNzaC1rZXktdjE",                          # the magic alone, no key after it
    "cmVmdGtuOjAx",                                 # too short for a reference token
    "AAAAC3NzaC1lZDI1NTE5AAAAIEXAMPLEpublicKEYbodyHEREnotAsecretAtAllxyz",   # a public key's body
])
def test_look_alike_kept(text):
    assert_kept(text)


@pytest.mark.parametrize("key", [
    "project/x/password: correct horse battery staple",
    f"project/x/Password: {TITLE}",
    f"project/x/PASSWORD: {TITLE}",
    "project/x/Passwort: gr\u00fcner Baum blauer Himmel",
    "project/x/mot de passe : cheval correct batterie agrafe",
    f"project/Password: {TITLE}/notes",
])
def test_a_key_name_holding_a_labelled_passphrase_hits(key):
    """test27b X9: the one name rule reads a key as the values are read."""
    assert name_hits(key), key


@pytest.mark.parametrize("key", ["project/x/password-policy", "project/x/password: see the vault",
                                 "project/x/Password: Not Set", "project/x/passwort-richtlinie"])
def test_a_key_name_about_passwords_is_no_credential(key):
    assert not name_hits(key), key


def test_stored_by_remember_and_import(tmp_path, mem):
    """Real ``mem remember``/``get`` and an imported transcript's Bash result."""
    check_remembered_and_imported(mem, tmp_path, "red28", "28282828-aaaa-4bbb-8ccc-282828282828", CASES,
                                  ("title", "heading", "kennwort", "md-bold-title", "openssh-70", "jfrog-reference"),
                                  "Password: See The Vault")


#: test28 Y1: a password label in another language before '=' (the .env / ini form), and the Spanish and French
#: prose forms; the value is a fake password
Y1_VALUE = "Zq7mm2x!rT"
Y1_LABELS = ["contrase\u00f1a=", "senha = ", "\u043f\u0430\u0440\u043e\u043b\u044c=", "\u5bc6\u7801=",
             "\u30d1\u30b9\u30ef\u30fc\u30c9=", "\ube44\ubc00\ubc88\ud638=", "wachtwoord = ", "has\u0142o = ",
             "heslo = ", "l\u00f6senord = ", "passord = ", "adgangskode = ", "salasana = ", "Kennwort = ", "SENHA:=",
             "+senha=", "la contrase\u00f1a es ", "la contrasena era ", "le mot de passe est ",
             "Le mot de passe \u00e9tait "]


@pytest.mark.parametrize("label", Y1_LABELS)
def test_a_label_in_another_language_before_equals_or_in_prose(label):
    assert_redacted(label, label + Y1_VALUE, [Y1_VALUE, "mm2x"], kept=[label.strip()], escaped=label.isascii())
    esc = redact(json.dumps({"command": label + Y1_VALUE}, ensure_ascii=False)).text
    assert "mm2x" not in esc, esc


@pytest.mark.parametrize("text", ["senha = obrigat\u00f3ria", "wachtwoord = changeme", "kennwort = ${DB_PASS}",
                                  "senha = <senha>", "la contrase\u00f1a es muy segura", "La contrase\u00f1a es incorrecta.",
                                  "le mot de passe est oubli\u00e9", "Votre mot de passe est inactif. Votre compte",
                                  "Le mot de passe est trop court (8 caract\u00e8res minimum)"])
def test_a_label_in_another_language_before_prose_kept(text):
    assert redact(text).text == text
