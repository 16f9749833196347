"""Vendor token formats added by red27c (test27 V26), each by its documented prefix and shape, so a
token is caught without a label ('here is the key figd_…'); red28 (test27 V26's rest): JFrog reference
tokens and an OpenSSH private key's body without its BEGIN line, also by their documented prefixes.  The shapes follow the vendors' own pages
and gitleaks' public rules (https://github.com/gitleaks/gitleaks/tree/master/cmd/generate/config/rules),
the same reference as the formats in :mod:`.rules`, whose table (``RULES``) splices these in.  red37 (test36 T3's
rest): Mailchimp API keys, a PKCS#8 private key's body without its BEGIN line, and the values ``terraform output
-json`` marks sensitive."""

from __future__ import annotations

from objstore.core.redact.checks import cli_secret_ok
from objstore.core.redact.rule import B64C, B64NL, FLAGS, Lazy, Rule, make_rule, tok
from objstore.core.redact.scanners import find_each
from objstore.core.redact.tfoutput import scan_sensitive

_r = make_rule

#: base64 of ``openssh-key-v1`` NUL and the first 3 bytes of the cipher name's length (OpenSSH PROTOCOL.key:
#: ``#define AUTH_MAGIC "openssh-key-v1"``), what the body of every OpenSSH private key file starts with
_OPENSSH_MAGIC = "b3BlbnNzaC1rZXktdjEAAAAA"
#: the rest of the body: wrapped at 70 characters a line (ssh-keygen, sshbuf_dtob64), 64 or 76 (other tools'
#: base64), or one line; the first line holds 24 characters of the magic.  Each further line is read only
#: whole (a full line, or a last one that ends its line), so the words of a line after the key stay
_LINE_END = r"(?=[ \t]{0,8}(?:\r|\n|\\{1,3}[rn\"]|[\"'`]|$))"
_OPENSSH_BODY = ("(?:" + "|".join(B64C + "{%d}" % (w - 24) + "(?:" + B64NL + B64C + "{%d}" % w + "){0,2048}+(?:" + B64NL
                                  + B64C + "{1,%d}+={0,2}" % w + _LINE_END + ")?" for w in (70, 64, 76))
                 + "|" + B64C + "{16,65536}+={0,2})")

#: red37 (test36 T3): a Mailchimp API key, 32 hex + '-us' + its data center's number (Mailchimp Marketing API "Quick
#: start": the key's end names the data center, 'us21'; gitleaks mailchimp-api-key), matched from each '-us' back
_MAILCHIMP = Lazy(r"(?<![A-Za-z0-9_])[a-f0-9]{32}-us[0-9]{1,2}(?![A-Za-z0-9_])", FLAGS)


def _scan_mailchimp(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """Each Mailchimp key (:data:`_MAILCHIMP`) of the lowercased window ``low`` (``off``: its offset in ``text``),
    tried 32 characters before each ``-us`` (the key holds no literal before its hex); appends ``(start, end,
    priority, name)`` spans of ``text`` to ``out``."""
    s0, e0 = ws - off, we - off
    for p in find_each(low, "-us", s0 + 32, e0):
        if (m := _MAILCHIMP.match(low, p - 32, e0)) is not None:
            out.append((m.start() + off, m.end() + off, rule.priority, rule.name))


#: red37 (test36 T3): the DER head of a PKCS#8 PrivateKeyInfo (RFC 5208 s5) in base64, what the body of every
#: '-----BEGIN PRIVATE KEY-----' block starts with: version 0 and rsaEncryption (the 2-byte length's base64 varies
#: over 5 characters), id-ecPublicKey with P-256, Ed25519 (RFC 8410 s7); then the body wrapped at 64 (RFC 7468) or
#: one line, each further line read only whole (as an OpenSSH body's)
_PKCS8_HEAD = (r"(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]{5}ADANBgkqhkiG9w0BAQEFAASC"
               r"|MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg|MC4CAQAwBQYDK2VwBCIEI)")
#: red38 (test37b T5): the DER head of a PKCS#1 RSAPrivateKey (RFC 8017 A.1.2: SEQUENCE, 2-byte length, version 0,
#: then the modulus' INTEGER with a 1- or 2-byte length: 'MIIEogIBAAKCAQEA', 'MIICXAIBAAKBgQ'), what the body of every
#: '-----BEGIN RSA PRIVATE KEY-----' block starts with, and of a SEC1 ECPrivateKey (RFC 5915 s3: version 1, then the
#: OCTET STRING of 32, 48 or 66 bytes: P-256 and secp256k1 'MHcCAQEEI'/'MHQCAQEEI', P-384 'MIGkAgEBBD', P-521
#: 'MIHcAgEBBE'), of every '-----BEGIN EC PRIVATE KEY-----' block; the body as a PKCS#8 one's
_PKCS1_HEAD = (r"(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]{2}[AQgw]IBAAK[BC]"
               r"|MH[cQ]CAQEEI|MIGkAgEBBD|MIHcAgEBBE)")
_PKCS8_BODY = (B64C + "{0,4096}+={0,2}(?:" + B64NL + B64C + "{64}+(?=" + B64NL + r"|[\"'`]|$)){0,512}+(?:" + B64NL
               + B64C + "{1,64}+={0,2}" + _LINE_END + ")?")
#: minor39 (test39 m7): 'vault login [options] TOKEN' (Vault's 'login' command: its positional argument, when not
#: key=value pairs of an auth method, is the token; '-' reads it from standard input), the token of any shape; the
#: options '-flag', '-flag=value' or '-method NAME' before it
_VAULT_LOGIN = (r"vault(?<![A-Za-z0-9_.\-]vault)[ \t]{1,4}login(?:[ \t]{1,4}-{1,2}[a-z][a-z0-9_-]{0,30}+"
                r"(?:=[^\s]{0,128}+|(?<=method)[ \t]{1,4}[a-z0-9_-]{1,32}+)?){0,6}+[ \t]{1,4}(?:\\{0,3}[\"'])?"
                r"(?P<secret>[^\s\"'`;&|<>()=\\-][^\s\"'`;&|<>()=\\]{7,511}+)(?![^\s\"'`;&|<>()\\])")
#: minor39 (test39 m7): 'npm config set //registry/:_authToken TOKEN' (npm 'config set key value': the value after a
#: blank; the '=' form is the settings-name rule's)
_NPM_AUTH = (r"npm(?<![A-Za-z0-9_.\-]npm)[ \t]{1,4}(?:config[ \t]{1,4})?set[ \t]{1,4}[^\s;|&]{0,256}?:_auth(?:token)?"
             r"[ \t]{1,4}(?:\\{0,3}[\"'])?(?P<secret>[^\s\"'`;&|<>()\\]{6,512}+)")


def _login_token_ok(v: str) -> bool:
    """A token given on a command line (``vault login X``, ``npm config set …:_authToken X``), not a reference to
    one (``$VAULT_TOKEN``), a placeholder (``<token>``, ``TOKEN``), a value already redacted or a word of prose
    (``after vault login succeeded``: letters alone, lowercase or capitalized, and ``-_.`` between them)."""
    w = v.rstrip(".,:!?")
    word = w.replace("-", "").replace("_", "").replace(".", "")
    if word.isalpha() and (w.islower() or w[1:].islower()):
        return False
    return "[REDACTED" not in v and cli_secret_ok(v)


#: the rules, in table order
VENDOR_TOKEN_RULES: list[Rule] = [
    _r("vault-token",
       "HashiCorp Vault 'login' command: 'vault login [options] [TOKEN]', the positional argument is the token "
       "(any shape; '-' reads standard input) https://developer.hashicorp.com/vault/docs/commands/login",
       _VAULT_LOGIN, ci=True, check=_login_token_ok, anchors=("vault",)),
    _r("npm-token",
       "npm 'config set <key> <value>' of a registry's ':_authToken' / ':_auth' (npm 'Configuring npm: npmrc', "
       "auth-related configuration) https://docs.npmjs.com/cli/v10/configuring-npm/npmrc",
       _NPM_AUTH, ci=True, check=_login_token_ok, anchors=("npm",)),
    _r("figma-token",
       "Figma personal access tokens: figd_ + 40 [A-Za-z0-9_-] "
       "https://www.figma.com/developers/api#access-tokens",
       tok(("figd_",), r"[A-Za-z0-9_-]{36,64}+", glued=True)),
    _r("postman-key",
       "Postman API keys: PMAK- + 24 hex + - + 34 hex (gitleaks postman-api-token) "
       "https://learning.postman.com/docs/developer/postman-api/authentication/",
       tok(("PMAK-",), r"[a-fA-F0-9]{24}-[a-fA-F0-9]{34}", glued=True)),
    _r("sentry-token",
       "Sentry auth tokens: sntrys_ org token (base64 payload), sntryu_ user token + 64 hex (gitleaks "
       "sentry-org-token, sentry-user-token) https://docs.sentry.io/account/auth-tokens/",
       tok(("sntrys_", "sntryu_"), r"[A-Za-z0-9+/=_]{40,512}+", glued=True)),
    _r("grafana-token",
       "Grafana service account tokens glsa_ + 32 alnum + _ + 8 hex, Grafana Cloud access policy tokens glc_ "
       "+ base64 (gitleaks grafana-service-account-token, grafana-cloud-api-token) "
       "https://grafana.com/docs/grafana/latest/administration/service-accounts/",
       tok(("glsa_", "glc_"), r"[A-Za-z0-9+/_]{32,400}+={0,2}", glued=True)),
    _r("newrelic-key",
       "New Relic keys: NRAK- user key + 27, NRJS- browser key + 19, NRII- insert key + 32 (gitleaks new-relic-"
       "user-api-key, new-relic-browser-api-token, new-relic-insert-key) "
       "https://docs.newrelic.com/docs/apis/intro-apis/new-relic-api-keys/",
       tok(("NRAK-", "NRJS-", "NRII-"), r"[A-Za-z0-9_-]{19,40}", glued=True)),
    _r("netlify-token",
       "Netlify personal access tokens: nfp_ + 36 [A-Za-z0-9] (also the nfc_, nfo_ OAuth and CLI forms) "
       "https://docs.netlify.com/api/get-started/#authentication",
       tok(("nfp_", "nfc_", "nfo_"), r"[A-Za-z0-9]{36,64}")),
    _r("terraform-cloud-token",
       "HCP Terraform (Terraform Cloud/Enterprise) API tokens: 14 alnum + .atlasv1. + 60-70 [A-Za-z0-9_=-] "
       "(gitleaks hashicorp-tf-api-token) https://developer.hashicorp.com/terraform/cloud-docs/users-teams-"
       "organizations/api-tokens",
       r"(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,70}(?![A-Za-z0-9_=\-])",
       anchors=(".atlasv1.",)),
    _r("flyio-token",
       "Fly.io tokens: fo1_ + 43 [A-Za-z0-9_-] OAuth token; fm1a_/fm1r_/fm2_ + base64 macaroon (gitleaks "
       "flyio-access-token) https://fly.io/docs/security/tokens/",
       tok(("fo1_",), r"[A-Za-z0-9_-]{43}", glued=True)),
    _r("flyio-token",
       "Fly.io macaroon tokens: fm1a_, fm1r_, fm2_ + base64, also after 'FlyV1 ' "
       "https://fly.io/docs/security/tokens/",
       tok(("fm1a_", "fm1r_", "fm2_"), r"[A-Za-z0-9+/_-]{100,}+={0,3}", glued=True)),
    _r("render-key",
       "Render API keys: rnd_ + 32 [A-Za-z0-9] https://render.com/docs/api#1-create-an-api-key",
       tok(("rnd_",), r"[A-Za-z0-9]{32,48}")),
    _r("jfrog-key",
       "JFrog Artifactory API keys: AKCp + 69 [A-Za-z0-9] (73 characters; gitleaks jfrog-api-key) "
       "https://jfrog.com/help/r/jfrog-platform-administration-documentation/api-key",
       tok(("AKCp",), r"[A-Za-z0-9]{69}")),
    _r("jfrog-key",
       "JFrog reference tokens: cmVmdGtu (base64 of 'reftkn') + 56 [A-Za-z0-9], 64 characters (JFrog 'Understanding "
       "Identity Tokens': reference tokens start cmVmd and are 64 characters) "
       "https://jfrog.com/help/r/jfrog-platform-administration-documentation/understanding-identity-tokens",
       tok(("cmVmdGtu",), r"[A-Za-z0-9]{56}")),
    _r("private-key",
       "OpenSSH private key body without its BEGIN line: base64 lines starting " + _OPENSSH_MAGIC + " (openssh-key-v1 "
       "NUL, OpenSSH PROTOCOL.key), wrapped at 70 (ssh-keygen), 64 or 76 characters, or one line "
       "https://github.com/openssh/openssh-portable/blob/master/PROTOCOL.key",
       tok((_OPENSSH_MAGIC,), _OPENSSH_BODY, glued=True), priority=2),
    _r("mailchimp-key",
       "Mailchimp API keys: 32 hex + -us + the data center's number (gitleaks mailchimp-api-key) "
       "https://mailchimp.com/developer/marketing/guides/quick-start/",
       r"-us[0-9]{1,2}", ci=True, anchors=("-us",), scan=_scan_mailchimp),
    _r("private-key",
       "a PKCS#8 private key's body without its BEGIN line: base64 starting with the DER head of an RSA, P-256 or "
       "Ed25519 PrivateKeyInfo (RFC 5208 s5, RFC 8410 s7), wrapped at 64 (RFC 7468) or one line "
       "https://www.rfc-editor.org/rfc/rfc5208",
       _PKCS8_HEAD + _PKCS8_BODY, priority=2,
       anchors=("adanbgkqhkig9w0baqefaasc", "mbmgbyqgsm49agegccqgsm49aweh", "mc4caqawbqydk2vwbciei")),
    _r("private-key",
       "a PKCS#1 RSA or SEC1 EC private key's body without its BEGIN line (red38, test37b T5): base64 starting with "
       "the DER head of an RSAPrivateKey (RFC 8017 A.1.2) or an ECPrivateKey (RFC 5915 s3), wrapped at 64 or one line "
       "https://www.rfc-editor.org/rfc/rfc8017#appendix-A.1.2",
       _PKCS1_HEAD + _PKCS8_BODY, priority=2, anchors=("ibaak", "caqeei", "agebbd", "agebbe")),
    _r("terraform-output",
       "a value terraform output -json marks sensitive (\"sensitive\": true, and its object's \"value\"): red38 "
       "(test37b T6): each string and number of it, a list's, a map's members, in any key order (tfoutput.py) "
       "https://developer.hashicorp.com/terraform/cli/commands/output",
       r'"sensitive"', ci=True, anchors=('"sensitive"',), scan=scan_sensitive),
]
