"""The rule table of :mod:`objstore.core.redact` (``RULES``, documented in
:mod:`.ruletable`'s docstring): the token formats here (vendor prefixes, PEM blocks, URL userinfo, ``Authorization``
headers, the ``key=value`` keyword rule), then the password labels, phrases and command lines of
:mod:`.passwords` (``PASSWORD_RULES``)."""

from __future__ import annotations

from objstore.core.redact.checks import (b64_private_key_ok, basic_credentials_ok, named_value_ok, bearer_ok, cli_secret_ok,
                                         discord_bot_token_ok, docker_auth_ok, hf_token_ok,
                                         k8s_secret_value_ok, looks_secret, not_placeholder, sas_sig_ok,
                                         url_password_ok, vault_token_ok)
from objstore.core.redact.callargs import CALL_RULES
from objstore.core.redact.markdown import MARKDOWN_RULES
from objstore.core.redact.secondfactors import SECOND_FACTOR_RULES
from objstore.core.redact.cards import CARD_RULES
from objstore.core.redact.hashes import HASH_RULES
from objstore.core.redact.authpairs import AUTH_PAIR_RULES
from objstore.core.redact.keysuffix import KEY_SUFFIX_RULES
from objstore.core.redact.passwords import PASSWORD_RULES
from objstore.core.redact.typedpairs import TYPED_PAIR_RULES
from objstore.core.redact.rule import B64C, B64NL, LA_CAPS, Rule, make_rule, tok
from objstore.core.redact.vendortokens import VENDOR_TOKEN_RULES
from objstore.core.redact.envdefault import ENV_ANCHORS, ENV_DEFAULT, env_default_ok, scan_env_default
from objstore.core.redact.pem import PEM_BODY, scan_pem
from objstore.core.redact.keywords import GEN_ANCHORS, KW
from objstore.core.redact.scanners import ASSIGN, VALUE, VALUE_END, scan_at, scan_aws_pair, scan_generic, scan_named

# ---- redact7 helpers ------------------------------------------------------------------
_AZURE_KEY_WORDS = ("accountkey", "sharedaccesskey", "azure_storage_key", "azure_storage_account_key",
                    "--account-key")
#: the azure-storage-key rule's anchors: each holds ``key``, a gate other rules test anyway, so the
#: stdlib prefilter scans them only where ``key`` occurs
_AZURE_ANCHORS = ("accountkey", "sharedaccesskey", "_key", "--account-key")

_AUTH_HDR = r"authorization\\{0,3}[\"']?[ \t]{0,8}[:=][ \t]{0,8}\\{0,3}[\"']?[ \t]{0,8}"

#: a Discord bot token: base64url of the bot's user id (a snowflake: 17-20 digits, so it starts M, N or O;
#: checks.discord_bot_token_ok decodes it), of a time (6 characters), and an HMAC (27 or 38)
_DISCORD_BOT = (r"[MNO](?<![A-Za-z0-9_\-.][MNO])[A-Za-z0-9_-]{22,26}+\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}+"
                r"(?![A-Za-z0-9_\-\[.])")

#: the prefixes of an AWS access key id
_AWS_IDS = ("AKIA", "ASIA", "ABIA", "ACCA")
#: red17 (test16b B5): the formats taken glued to the word before them (``tok(..., glued=True)``: ``xghp_…``,
#: ``keyAKIA…``): a literal prefix of 4+ characters and a fixed-shape body of 16+ that no word or identifier
#: holds; not ``hf_``, ``key-``, ``dapi``, ``eyJ``, legacy ``sk-``, Stripe's ``sk_test_`` (``task_test_validation``:
#: words, identifiers and base64 blobs hold them glued)

# ---- cred20 helpers ---------------------------------------------------------------------
_B64C, _B64NL = B64C, B64NL   # a base64 character, a line break raw or escaped in JSON (rule.py)
#: the base64 of a PEM block after its first 14 characters (``LS0tLS1CRUdJTi``, ``-----BEGIN``): wrapped at 76
#: (base64(1)) or 64 (openssl base64) characters a line, or one line (a kubeconfig's ``client-key-data``)
_B64_PEM_BODY = ("(?:" + _B64C + "{62}" + _B64NL + "(?:" + _B64C + "{76}" + _B64NL + "){1,2048}+" + _B64C + "{0,76}+"
                 "|" + _B64C + "{50}" + _B64NL + "(?:" + _B64C + "{64}" + _B64NL + "){1,2048}+" + _B64C + "{0,64}+"
                 "|" + _B64C + "{30,65536}+)={0,2}")
#: the Secret entries named for a key file or a registry credential (Kubernetes 'Secrets': kubernetes.io/tls
#: tls.key, kubernetes.io/ssh-auth ssh-privatekey, kubernetes.io/dockerconfigjson .dockerconfigjson,
#: kubernetes.io/dockercfg .dockercfg); ``<name>.key`` also (a generic Secret of key files)
_K8S_STARTS = (".dockerc", "ssh-privatekey", ".key")
#: one base64 line of a PuTTY key file, up to its line's end (not the 'Private' of 'Private-MAC:')
_PPK_LINE = r"[A-Za-z0-9+/=]{1,256}+(?=[ \t]{0,8}(?:\r|\n|\\[rn]|\\{0,3}\"|$))"

#: red21: the value of a Docker client config.json registry entry's "auth" ('auths': {"<registry>": {"auth": …}};
#: a Kubernetes .dockerconfigjson holds the same JSON); the pattern and anchor start with the key's opening quote
#: ('"auth', raw or JSON-escaped: not 'Authorization', 'oauth')
_DOCKER_VALUE = r"\\{0,3}\"[ \t]{0,8}:[ \t]{0,8}\\{0,3}\"(?P<secret>[^\s\"'`\\]{8,8192}+)(?=\\{0,3}\")"

#: cfg21: a name/value pair's name (its value quoted or bare, after ':' or '=') and what may stand between it
#: and its 'value' field: a closing quote, a ',' and blanks (JSON, XML attributes) or one line break and the
#: next line's indent (YAML, '- name: X' LF '  value: Y')
_PAIR_NAME = (r"\\{0,3}[\"']?[ \t]{0,8}[:=][ \t]{0,8}\\{0,3}[\"']?(?P<name>[a-z_][a-z0-9_\-.]{0,127}+)\\{0,3}[\"']?")
_PAIR_GAP = r"[ \t]{0,8},?[ \t]{0,8}(?:" + _B64NL + r"[ \t]{0,32}+)?\\{0,3}[\"']?"
_PAIR_VALUE = (r"(?![a-z0-9_])\\{0,3}[\"']?[ \t]{0,8}[:=][ \t]{0,8}\\{0,3}[\"']?"
               r"(?P<secret>[^\s\"'`\\<>,;{}\[\]]{1,4096}+)")
#: the pair rule's gates: its 'value' field's name and what follows it (YAML/JSON ':', XML '=', a JSON key's quote)
_VALUE_GATES = ("value:", "value=", 'value"', "value\\", "value'")
#: the XML element rule runs only where a credential keyword's closing tag is
_XML_ANCHORS = ("</pass", "</pwd", "secret>", "token>", "key>")

def _redis_ok(v: str) -> bool:
    """redis ``requirepass``'s value is a password whatever its shape (:func:`named_value_ok`), not a
    directive's own word in prose (``requirepass is``: too short; ``$REDIS_PASSWORD``: a reference)."""
    return named_value_ok(v, password=True)


def _refresh_ok(v: str) -> bool:
    """test26 V1: the body after ``1//0`` reads as random base64url: upper- and lower-case letters and a digit
    (not a path's or a URL's long word after a ``1//0``)."""
    b = v.partition("/0")[2]
    return any(c.isupper() for c in b) and any(c.islower() for c in b) and any(c.isdigit() for c in b)


def _scan_q(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
    """The wpa_supplicant ``psk``: the quoted passphrase (group ``q``, not a placeholder) or the 64 hex
    digits (``secret``), whichever matched."""
    for m in rule.lowered.finditer(low, ws - off, we - off):
        g = "q" if m.group("q") is not None else "secret"
        s, e = m.span(g)
        if g == "secret" or named_value_ok(text[s + off:e + off], password=True):
            out.append((s + off, e + off, rule.priority, rule.name))


def _scan_near(back: int, ahead: int, *gates: str):
    """A ``scan_named`` (:func:`~.scanners.scan_named`) run only on the stretches of the window within
    ``back`` characters before and ``ahead`` after each ``gate`` (lowercased literals every match holds;
    a gate found with ``str.find``): a pattern with no literal start costs a try at every offset of a
    256 KB window, most of it far from any gate (cfg21: +16 % CPU on transcripts run whole, ~0 here)."""
    def scan(rule: Rule, text: str, ws: int, we: int, out: list, low: str, off: int, at=None) -> None:
        s0, e0 = ws - off, we - off
        spans = []
        for g in gates:
            i = low.find(g, s0, e0)
            while i >= 0:
                spans.append((max(s0, i - back), min(e0, i + len(g) + ahead)))
                i = low.find(g, i + 1, e0)
        spans.sort()
        a = b = -1
        for x, y in spans + [(e0 + 1, e0 + 1)]:
            if x > b:
                if b > a:
                    scan_named(rule, text, a + off, b + off, out, low, off)
                a = x
            b = max(b, y)
    return scan


_r = make_rule   # the table below is aligned to this short name

RULES: list[Rule] = [
    _r("gcp-service-account",
       "Google Cloud IAM, service account key file: JSON whose 'private_key' is a PKCS#8 PEM "
       "https://cloud.google.com/iam/docs/keys-create-delete",
       r"private_key\\{0,3}\"[ \t]{0,8}:[ \t]{0,8}\\{0,3}\"(?P<secret>" + PEM_BODY + ")",
       priority=1, anchors=("private_key",)),
    _r("private-key",
       "RFC 7468 (PKCS#8 'PRIVATE KEY', 'ENCRYPTED PRIVATE KEY'), PKCS#1 'RSA PRIVATE KEY', "
       "RFC 5915 'EC PRIVATE KEY', OpenSSH PROTOCOL.key 'OPENSSH PRIVATE KEY', "
       "RFC 4880 s6.2 'PGP PRIVATE KEY BLOCK'",
       PEM_BODY, priority=2, scan=scan_pem, anchors=("-----begin ", "-----end ")),
    # ---- cred20: key material and credentials in config formats that were stored in clear ----
    _r("private-key-base64",
       "RFC 4648 s4 base64 of an RFC 7468 PEM private key (the text starts 'LS0tLS1CRUdJTi', base64 of "
       "'-----BEGIN'): a kubeconfig's users[].user.client-key-data (Kubernetes 'Organizing Cluster Access "
       "Using kubeconfig Files'), a Secret's data tls.key / ssh-privatekey (values base64, Kubernetes "
       "'Secrets'); one line, or wrapped at 76 (base64(1)) or 64 (openssl base64) characters "
       "https://kubernetes.io/docs/concepts/configuration/secret/",
       tok(("LS0tLS1CRUdJTi",), _B64_PEM_BODY), priority=2, check=b64_private_key_ok),
    _r("putty-private-key",
       "PuTTY 'PPK file format' (appendix C of the PuTTY manual: PuTTY-User-Key-File-2/-3, Public-Lines: N, "
       "Private-Lines: N then N lines of base64 private key data, Private-MAC) "
       "https://the.earth.li/~sgtatham/putty/0.81/htmldoc/AppendixC.html",
       r"Private-Lines:[ \t]{0,4}[0-9]{1,4}" + _B64NL + r"[ \t]{0,16}(?P<secret>" + _PPK_LINE + r"(?:" + _B64NL
       + r"[ \t]{0,16}" + _PPK_LINE + r"){0,4095}+)",
       priority=2, anchors=("private-lines:",)),
    _r("k8s-secret",
       "Kubernetes 'Secrets' (data: values are base64; stringData: plain): the value of an entry named for "
       "a key file or registry credential, tls.key (kubernetes.io/tls), ssh-privatekey (kubernetes.io/"
       "ssh-auth), .dockerconfigjson / .dockercfg, <name>.key "
       "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types",
       r"(?:\.dockerconfigjson|\.dockercfg|ssh-privatekey|\.key(?<=[a-z0-9_\-]\.key))(?:\\{0,3}[\"'])?[ \t]{0,8}:"
       r"[ \t]{0,8}(?:\\{0,3}[\"'])?(?P<secret>[^\s\"'`\\,;&<>(){}\[\]|]{8,65536}+)(?=[\s\"'`\\,}\]]|$)",
       ci=True, priority=8, check=k8s_secret_value_ok, anchors=_K8S_STARTS, scan=scan_at(*_K8S_STARTS)),
    _r("docker-auth",
       "Docker 'docker login' (credentials kept in ~/.docker/config.json, base64-encoded, when no credential "
       "store is set) and Kubernetes 'Pull an Image from a Private Registry' (a kubernetes.io/dockerconfigjson "
       "Secret holds the same JSON): the 'auth' of an 'auths' entry, base64 of 'username:password' "
       "https://docs.docker.com/reference/cli/docker/login/ "
       "https://kubernetes.io/docs/tasks/configure-pod-container/pull-image-private-registry/",
       r"\"auth" + _DOCKER_VALUE, ci=True, priority=8, check=docker_auth_ok, anchors=('"auth',)),
    _r("docker-auth",
       "Docker CLI config file ~/.docker/config.json: the 'identitytoken' (an OAuth refresh token, 'docker login' "
       "to a registry with token auth, e.g. Azure Container Registry) and 'registrytoken' (a bearer token) of an "
       "'auths' entry (docker/cli cli/config/types AuthConfig; red22) "
       "https://docs.docker.com/reference/cli/docker/login/ "
       "https://learn.microsoft.com/azure/container-registry/container-registry-authentication",
       # gated on '"auth' (every config.json with a credential holds '"auths"', and the rule above tests the gate
       # anyway), then tried only at the two names: a gate of their own cost ~+3.5 % of the prefilter (red21)
       r"(?:identitytoken|registrytoken)" + _DOCKER_VALUE, ci=True, priority=8, check=cli_secret_ok,
       anchors=('"auth',), scan=scan_at("identitytoken", "registrytoken")),
    _r("terraform-variable",
       "Terraform 'Input Variables' (variable \"<name>\" { default = \"<value>\" }, also on several lines): the "
       "default of a variable named for a credential (credential_name: db_password, api_token) "
       "https://developer.hashicorp.com/terraform/language/values/variables",
       r"variable(?:(?<![a-z0-9_\-.]variable)|(?<=\\[nrt]variable))[ \t]{1,4}\\{0,3}\"?(?P<name>[a-z_][a-z0-9_\-]{0,127}+)\\{0,3}\"?[ \t]{0,4}\{"
       r"[^{}]{0,2048}?(?<![a-z0-9_])default[ \t]{0,8}=[ \t]{0,8}\\{0,3}\"(?P<secret>[^\"\\\r\n]{1,4096}+)\\{0,3}\"",
       ci=True, priority=44, anchors=("variable",), scan=scan_named),
    _r("fish-variable",
       "fish 'set' (set [-x|--export] [-g|-U|-l|-f] NAME VALUE...; the shell's export NAME=VALUE, which the "
       "generic rule reads): the value of a variable named for a credential (credential_name: API_KEY, "
       "GITHUB_TOKEN, DB_PASSWORD; with no option only a name in capitals, an exported name's: not "
       "the prose 'to set token layout'; v4r23 (V5): not an option, 'gh secret set NAME --body X' keeps its flag) "
       "https://fishshell.com/docs/current/cmds/set.html",
       r"set(?:(?<![a-z0-9_\-.$]set)|(?<=\\[nrt]set))(?= )(?P<flags>(?:[ \t]{1,4}-{1,2}[a-z]{1,12}+){0,4}+)[ \t]{1,4}(?P<name>[a-z_][a-z0-9_]{0,127}+)"
       r"[ \t]{1,4}(?:\\{0,3}[\"'])?(?!-)(?P<secret>[^\s\"'`;&|<>()\\]{1,4096}+)",
       ci=True, priority=44, anchors=("set ",), scan=scan_named),
    # ---- cfg21 (tester W2): a credential-named setting in a config file's own shape ----
    _r("named-setting",
       "a name/value pair whose name is a credential's (credential_name): Kubernetes container env "
       "(- name: DB_PASSWORD / value: X; the core/v1 EnvVar of a container's env), Amazon ECS task "
       "definition 'env' list ({\"name\": \"DB_PASSWORD\", \"value\": \"X\"}; ECS API KeyValuePair), "
       ".NET appSettings and NuGet.Config (<add key=\"ApiKey\" value=\"X\"/>), Key:/Value: pairs (AWS "
       "CloudFormation Tag, Parameter Store lists) "
       "https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.30/#envvar-v1-core "
       "https://docs.aws.amazon.com/AmazonECS/latest/APIReference/API_KeyValuePair.html "
       "https://learn.microsoft.com/en-us/dotnet/framework/configure-apps/file-schema/appsettings/add-element-for-appsettings",
       r"(?:name(?<![a-z0-9_\-.$]name)|key(?<![a-z0-9_\-.$]key))" + _PAIR_NAME + _PAIR_GAP + r"value" + _PAIR_VALUE,
       ci=True, priority=44, anchors=_VALUE_GATES, scan=_scan_near(200, 4120, *_VALUE_GATES)),
    _r("named-setting",
       "PHP define() (define('NAME', 'value'); WordPress wp-config.php define( 'DB_PASSWORD', '...' )): a "
       "constant named for a credential (credential_name) https://www.php.net/manual/en/function.define.php "
       "https://developer.wordpress.org/apis/wp-config-php/",
       r"define(?<![a-z0-9_\-.$>]define)[ \t]{0,4}\([ \t]{0,8}\\{0,3}[\"'](?P<name>[a-z_][a-z0-9_]{0,127}+)\\{0,3}[\"']"
       r"[ \t]{0,8},[ \t]{0,8}\\{0,3}[\"'](?P<secret>[^\"'\\\r\n]{1,4096}+)\\{0,3}[\"']",
       ci=True, priority=44, anchors=("define",), scan=scan_named),
    _r("named-setting",
       "an XML element named for a credential (credential_name) holding its value alone: Maven settings.xml "
       "<server><password>X</password> ('Settings Reference: Servers'), <apiKey>, <token> "
       "https://maven.apache.org/settings.html#servers",
       r"<(?P<name>[a-z_][a-z0-9_\-.]{0,63}+)>(?P<secret>[^<>\s\"'`\\]{1,4096}+)</(?P=name)>",
       ci=True, priority=44, anchors=_XML_ANCHORS, scan=_scan_near(4170, 70, *_XML_ANCHORS)),
    _r("named-setting",
       "YAML 1.2 s8.1 block scalar (literal '|' or folded '>', with a chomping indicator '-'/'+') whose key is a "
       "credential's name (credential_name: password, AUTH_TOKEN): its first content line "
       "https://yaml.org/spec/1.2.2/#81-block-scalar-headers",
       r"(?<![a-z0-9_\-.$])(?P<name>[a-z_][a-z0-9_\-]{0,127}+)\\{0,3}[\"']?[ \t]{0,8}:[ \t]{1,8}[|>][+\-]?[1-9]?[+\-]?[ \t]{0,8}"
       + _B64NL + r"[ \t]{1,32}+(?P<secret>[^\s\\]{1,4096}+)(?=[ \t]{0,8}(?:\r|\n|\\{1,3}[rn]|\\{0,3}\"|$))",
       ci=True, priority=44, anchors=(": |", ": >"), scan=_scan_near(140, 4160, ": |", ": >")),
    _r("config-password",
       "wpa_supplicant.conf network block psk=\"passphrase\" (8-63 ASCII characters) or psk=<64 hex digits> "
       "(wpa_supplicant.conf(5); IEEE 802.11i PSK) https://w1.fi/cgit/hostap/plain/wpa_supplicant/wpa_supplicant.conf",
       r"(?:sae_password|psk)(?<![a-z0-9_\-.$]psk)(?<![a-z0-9_\-.$]sae_password)[ \t]{0,4}=[ \t]{0,4}"
       r"(?:\\{0,3}\"(?P<q>[^\"\\\r\n]{8,63}+)\\{0,3}\"|(?P<secret>[0-9a-f]{64})(?![0-9a-z]))",
       ci=True, priority=44, anchors=("psk", "sae_password"), scan=_scan_q),
    _r("config-password",
       "redis.conf 'requirepass <password>' / 'masterauth <password>' (also CONFIG SET requirepass <password>), "
       "a directive at the start of its line, or (red26) a redis-server option '--requirepass <password>' "
       "https://redis.io/docs/latest/operate/oss_and_stack/management/config-file/",
       r"(?:^|(?<=\n)|(?<=\\n)|(?<=config set )|(?<=--))[ \t]{0,8}(?:requirepass|masterauth)"
       r"[ \t]{1,8}(?:\\{0,3}[\"'])?(?P<secret>[^\s\"'`\\]{1,4096}+)",
       ci=True, priority=44, anchors=("requirepass", "masterauth"), check=_redis_ok),
    _r("aws-access-key-id",
       "AWS IAM User Guide, 'Unique identifiers' (AKIA access key, ASIA temporary STS key, ABIA, ACCA) "
       "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html",
       tok(_AWS_IDS, r"[A-Z0-9]{16}", la=LA_CAPS, glued=True)),
    _r("aws-secret-access-key",
       "AWS CLI 'Configuration and credential file settings' (aws_secret_access_key, 40 chars) and "
       "STS Credentials.SecretAccessKey https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html "
       "(any 40-char base64 value after secret_access_key / secret_key)",
       r"secret[_-]?(?:access[_-]?)?key"
       r"(?:" + ASSIGN + r"|[ \t]{1,8})(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
       ci=True, priority=3, anchors=("secret",)),
    _r("aws-secret-access-key",
       "AWS IAM 'Managing access keys' (an access key is a pair: the key id AKIA/ASIA… and a 40-char "
       "secret access key, e.g. the console's accessKeys.csv) "
       "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html "
       "(an unlabelled 40-char base64 value near a key id)",
       tok(_AWS_IDS, r"[A-Z0-9]{16}", la=LA_CAPS, glued=True), priority=4, scan=scan_aws_pair),
    _r("gcp-api-key",
       "Google Cloud 'Manage API keys' (AIza + 35 chars) https://cloud.google.com/docs/authentication/api-keys",
       tok(("AIza",), r"[A-Za-z0-9_-]{35}", glued=True)),
    _r("github-token",
       "GitHub 'About authentication: GitHub's token formats' (ghp_ PAT, gho_ OAuth, ghu_ user-to-server, "
       "ghs_ server-to-server, ghr_ refresh; 36 chars now, up to 255 announced) "
       "https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/",
       tok(("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"[A-Za-z0-9]{36,251}+", glued=True)),
    _r("github-fine-grained-pat",
       "GitHub fine-grained personal access tokens: github_pat_ + 22 + '_' + 59 chars "
       "https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/"
       "managing-your-personal-access-tokens",
       tok(("github_pat_",), r"[A-Za-z0-9_]{22,255}+", glued=True)),
    _r("gitlab-token",
       "GitLab 'Token overview: token prefixes' (glpat- personal/project/group, gldt- deploy, glrt- runner, "
       "glptt- trigger, glft- feed, gloas- OAuth secret, glcbt- CI job, glagent-, glimt-, glsoat-, glffct-; "
       "routable tokens end .<version>.<crc>) https://docs.gitlab.com/ee/security/tokens/",
       tok(("glpat-", "gldt-", "glrt-", "glptt-", "glft-", "gloas-", "glcbt-", "glagent-", "glimt-",
             "glsoat-", "glffct-"), r"[A-Za-z0-9_-]{20,255}+(?:\.[A-Za-z0-9_-]{1,64}+){0,2}", glued=True)),
    _r("slack-token",
       "Slack 'Token types' (xoxb- bot, xoxp- user, xoxa-/xoxr- access/refresh, xoxe- config, "
       "xoxc-/xoxd-/xoxs- session, xapp- app-level) https://api.slack.com/authentication/token-types",
       tok(("xoxa-", "xoxb-", "xoxc-", "xoxd-", "xoxe-", "xoxo-", "xoxp-", "xoxr-", "xoxs-", "xoxe.xoxp-",
             "xapp-"), r"[A-Za-z0-9-]{10,250}+", glued=True)),
    _r("slack-webhook",
       "Slack 'Sending messages using incoming webhooks' (https://hooks.slack.com/services/T../B../secret) "
       "https://api.slack.com/messaging/webhooks",
       r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/+-]{8,256}+)",
       anchors=("hooks.slack.com/",)),
    *(_r("stripe-key",
         "Stripe 'API keys' (sk_live_/sk_test_ secret, rk_live_/rk_test_ restricted; up to 255 chars) "
         "https://docs.stripe.com/keys",
         tok((prefix,), r"[A-Za-z0-9]{10,247}+"))
      # one rule per prefix: each then starts with a literal that re scans for fast
      for prefix in ("sk_live_", "sk_test_", "rk_live_", "rk_test_")),
    _r("stripe-key",
       "Stripe 'Check webhook signatures': endpoint signing secret whsec_ + base64 "
       "https://docs.stripe.com/webhooks",
       tok(("whsec_",), r"[A-Za-z0-9+/=]{24,128}+")),
    _r("npm-token",
       "npm 'About access tokens' / GitHub blog 'npm's new access token format' (npm_ + 36 chars) "
       "https://github.blog/2021-09-23-announcing-npms-new-access-token-format/",
       tok(("npm_",), r"[A-Za-z0-9]{36}", glued=True)),
    *VENDOR_TOKEN_RULES,   # red27c (test27 V26): Figma, Postman, Sentry, Grafana, New Relic, … (vendortokens)
    _r("mem-key",
       "mem MCP server keys: memk_ + 43 base64url characters (256 random bits), docs/mcp.md",
       tok(("memk_",), r"[A-Za-z0-9_-]{43}", glued=True)),
    # ---- session 18 (test18 U10): mem's own sync/vault key format and two more vendors ----
    _r("age-secret-key",
       "age v1 spec, 'X25519 recipient type' (AGE-SECRET-KEY-1 + Bech32 upper case, 58 characters: 32 bytes "
       "and a 6-character checksum) https://age-encryption.org/v1 and the plugin identities "
       "AGE-PLUGIN-<NAME>-1<Bech32> of C2SP age-plugin https://c2sp.org/age-plugin; mem's sync key and "
       "vault identity are such keys (docs/sync.md, docs/vault.md)",
       tok(("AGE-SECRET-KEY-1",), r"[02-9AC-HJ-NP-Z]{58}", la=LA_CAPS, glued=True)),
    _r("age-secret-key",
       "C2SP age-plugin 'Identities' (AGE-PLUGIN-<NAME>-1 + Bech32 upper case data) https://c2sp.org/age-plugin",
       tok(("AGE-PLUGIN-",), r"[A-Z0-9]{1,32}+(?:-[A-Z0-9]{1,32}+){0,3}-1[02-9AC-HJ-NP-Z]{20,400}+",
           la=LA_CAPS, glued=True)),
    _r("pypi-token",
       "PyPI 'API tokens' (pypi- + a base64url macaroon whose first bytes encode the location: "
       "pypi-AgEIcHlwaS5vcmc for pypi.org, pypi-AgENdGVzdC5weXBpLm9yZw for test.pypi.org) "
       "https://pypi.org/help/#apitoken",
       tok(("pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"), r"[A-Za-z0-9_-]{30,}+", glued=True),
       anchors=("pypi-age",)),
    _r("doppler-token",
       "Doppler 'Token formats' (dp.pt. personal, dp.ct. CLI, dp.st. service (dp.st.<config>. too), "
       "dp.sa. service account, dp.scim. SCIM, dp.audit. audit; then 40-44 [A-Za-z0-9]) "
       "https://docs.doppler.com/docs/token-formats",
       tok(("dp.pt.", "dp.ct.", "dp.st.", "dp.sa.", "dp.scim.", "dp.audit."),
           r"(?:[a-z0-9_-]{1,64}+\.)?[A-Za-z0-9]{40,44}+"), anchors=("dp.",)),
    # ---- redact7: vendor tokens that were stored in clear ----
    _r("huggingface-token",
       "Hugging Face 'User access tokens' (hf_ + 34 letters) https://huggingface.co/docs/hub/security-tokens",
       tok(("hf_",), r"[A-Za-z0-9]{34,40}+"), check=hf_token_ok),
    _r("sendgrid-key",
       "Twilio SendGrid 'API Keys': SG. + 22-character key id + . + 43-character secret (69 characters) "
       "https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys",
       tok(("SG.",), r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}")),
    _r("digitalocean-token",
       "DigitalOcean token prefixes: dop_v1_ personal access token, doo_v1_ OAuth token, dor_v1_ refresh token, "
       "+ 64 hex https://docs.digitalocean.com/reference/api/create-personal-access-token/",
       tok(("dop_v1_", "doo_v1_", "dor_v1_"), r"[a-f0-9]{64}", glued=True), anchors=("_v1_",)),   # one gate, not "do"
    _r("shopify-token",
       "Shopify access tokens: shpat_ Admin API access token, shpca_ custom app, shppa_ private app, shpss_ "
       "shared secret, + 32 hex https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens",
       tok(("shpat_", "shpca_", "shppa_", "shpss_"), r"[a-fA-F0-9]{32}", glued=True)),
    _r("discord-webhook",
       "Discord 'Webhook Resource': Execute Webhook POST /webhooks/{webhook.id}/{webhook.token} (the token "
       "is the credential; discord.com, discordapp.com, ptb./canary.) "
       "https://discord.com/developers/docs/resources/webhook#execute-webhook",
       r"(?i:discord(?:app)?\.com/api/(?:v[0-9]{1,2}/)?webhooks/)[0-9]{15,21}/(?P<secret>[A-Za-z0-9_-]{32,128}+)",
       anchors=("discord",)),
    _r("azure-storage-key",
       "Azure Storage 'Configure a connection string' (AccountKey=<88-character base64 account key>), "
       "Service Bus / Event Hubs 'SharedAccessKey=<base64>', AZURE_STORAGE_KEY and az '--account-key' "
       "https://learn.microsoft.com/en-us/azure/storage/common/storage-configure-connection-string "
       "https://learn.microsoft.com/en-us/cli/azure/storage/container",
       r"(?:accountkey|sharedaccesskey|azure_storage_key|azure_storage_account_key|--account-key)"
       r"(?:\\{0,3}[\"'])?[ \t]{0,8}(?:[:=]|(?<=key)[ \t])[ \t]{0,8}(?:\\{0,3}[\"'])?"
       r"(?P<secret>[A-Za-z0-9+/]{40,128}+={0,2})(?![A-Za-z0-9+/=])",
       ci=True, priority=8, anchors=_AZURE_ANCHORS, scan=scan_at(*_AZURE_KEY_WORDS, leftmost=True)),
    _r("azure-sas-token",
       "Azure Storage 'Create a service SAS' / 'Create an account SAS': the signature field sig=<URL-encoded "
       "base64 HMAC-SHA256> of a SAS token or SAS URL "
       "https://learn.microsoft.com/en-us/rest/api/storageservices/create-service-sas",
       r"[sS][iI][gG]=(?<=[?&;][sS][iI][gG]=)(?P<secret>[A-Za-z0-9%+/=_-]{20,512}+)", check=sas_sig_ok, anchors=("sig=",)),
    # ---- red16: vendor tokens that were stored in clear (tester F9) ----
    _r("vault-token",
       "HashiCorp Vault 'Tokens: token prefixes' (Vault 1.10+: hvs. service, hvb. batch, hvr. recovery + "
       "base64url; a namespace's token ends .<namespace id>) "
       "https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes",
       tok(("hvs.", "hvb.", "hvr."), r"[A-Za-z0-9_-]{24,512}+(?:\.[A-Za-z0-9]{1,16}+)?"), check=vault_token_ok),
    _r("vault-token",
       "HashiCorp Vault tokens before 1.10 (s. service, b. batch, r. recovery + 24.. base62): no prefix of "
       "their own, so only where Vault takes one: 'vault login [options] TOKEN', VAULT_TOKEN, X-Vault-Token, "
       "vault_token https://developer.hashicorp.com/vault/docs/commands/login",
       r"vault(?<![a-z0-9]vault)(?:[ \t]{1,4}login(?:[ \t]{1,4}-{1,2}[a-z][a-z0-9_-]{0,30}+(?:=[^\s]{0,128}+)?){0,6}+"
       r"[ \t]{1,4}(?:token=)?|[_-]token(?:\\{0,3}[\"'])?[ \t]{0,8}[:=][ \t]{0,8})(?:\\{0,3}[\"'])?"
       r"(?P<secret>[sbr]\.[a-z0-9]{24,255}+)(?![a-z0-9_.\-])",
       ci=True, check=vault_token_ok, anchors=("vault",)),
    _r("databricks-token",
       "Databricks 'Personal access token authentication' (dapi + 32 hex, sometimes -<digit>) "
       "https://docs.databricks.com/en/dev-tools/auth/pat.html",
       tok(("dapi",), r"[a-f0-9]{32}(?:-[0-9])?")),
    _r("telegram-bot-token",
       "Telegram Bot API 'Authorizing your bot': <bot id>:<35 characters>, the secret part AA + 33 "
       "[A-Za-z0-9_-] (32 in the Bot API tutorial's example; the id, 8+ digits before the colon, is public "
       "and kept) https://core.telegram.org/bots/api",
       r":(?P<secret>AA(?<=[0-9]{8}:AA)[A-Za-z0-9_-]{32,33}+)(?![A-Za-z0-9_\-\[])", anchors=(":aa",)),
    _r("linear-api-key",
       "Linear 'API and Webhooks' personal API keys (lin_api_ + 40 [A-Za-z0-9]) and OAuth tokens "
       "(lin_oauth_ + 64 hex) https://linear.app/developers/graphql",
       tok(("lin_api_", "lin_oauth_"), r"[A-Za-z0-9]{40,64}+", glued=True)),
    _r("atlassian-api-token",
       "Atlassian 'Manage API tokens for your Atlassian account' (ATATT3 + ~186 base64url characters, the last "
       "=<8 hex> a checksum) "
       "https://support.atlassian.com/atlassian-account/docs/manage-api-tokens-for-your-atlassian-account/",
       tok(("ATATT3",), r"[A-Za-z0-9_=-]{60,400}+", glued=True)),
    _r("discord-bot-token",
       "Discord 'Reference: Authentication' bot tokens (Authorization: Bot <token>): base64(bot user id) . "
       "base64(time) . HMAC, three base64url parts https://discord.com/developers/docs/reference#authentication; "
       "no prefix: only in a window that names discord (as trufflehog's detector; a token= or TOKEN= "
       "assignment is generic-secret's)",
       _DISCORD_BOT, check=discord_bot_token_ok, anchors=("discord",)),
    _r("discord-bot-token",
       "Discord 'Reference: Authentication': 'Authorization: Bot <token>' "
       "https://discord.com/developers/docs/reference#authentication",
       _AUTH_HDR + r"bot[ \t]{1,8}(?P<secret>" + _DISCORD_BOT.lower() + ")",
       ci=True, check=discord_bot_token_ok, anchors=("authorization",)),
    _r("mailgun-key",
       "Mailgun 'API keys' (private key-<32 hex>) "
       "https://documentation.mailgun.com/docs/mailgun/api-reference/authentication",
       tok(("key-",), r"[a-f0-9]{32}")),
    _r("anthropic-key",
       "Anthropic API 'Authentication' (x-api-key: sk-ant-api03-..., admin keys sk-ant-admin01-, "
       "OAuth sk-ant-oat01-) https://docs.anthropic.com/en/api/overview",
       tok(("sk-ant-",), r"[A-Za-z0-9_-]{20,400}+", glued=True), priority=9),
    # test25 T3: the LLM providers' and two CI vendors' keys an agent's sessions hold, by their fixed prefixes
    _r("openrouter-key",
       "OpenRouter 'API Keys' (sk-or-v1- + 64 hex) https://openrouter.ai/docs/api-reference/authentication",
       tok(("sk-or-v1-",), r"[a-f0-9]{64}", glued=True), priority=9),
    _r("xai-key",
       "xAI API 'Quickstart' (xai- + 80 [A-Za-z0-9]; 60..100 taken, keys seen shorter) https://docs.x.ai/docs/overview; "
       "gitleaks' xai-api-key",
       tok(("xai-",), r"[A-Za-z0-9]{60,100}+")),
    _r("groq-key",
       "Groq 'API keys' (gsk_ + 52 [A-Za-z0-9]) https://console.groq.com/docs/quickstart; gitleaks' groq-api-key",
       tok(("gsk_",), r"[A-Za-z0-9]{52}", glued=True)),
    _r("docker-hub-token",
       "Docker Hub 'Personal access tokens' (dckr_pat_ + 27 [A-Za-z0-9_-]; organization tokens dckr_oat_) "
       "https://docs.docker.com/security/for-developers/access-tokens/; GitHub secret scanning's docker_personal_access_token",
       tok(("dckr_pat_", "dckr_oat_"), r"[A-Za-z0-9_-]{27}", glued=True)),
    _r("pulumi-token",
       "Pulumi 'Access tokens' (pul- + 40 hex) https://www.pulumi.com/docs/pulumi-cloud/access-management/access-tokens/; "
       "GitHub secret scanning's pulumi_access_token",
       tok(("pul-",), r"[a-f0-9]{40}")),
    # test25 T12: Google OAuth's client secret and access token (both land in an agent's sessions: a
    # client_secret.json Read, a curl with a token)
    _r("google-oauth-secret",
       "Google OAuth 2.0 client secret (GOCSPX- + 28 [A-Za-z0-9_-]) "
       "https://developers.google.com/identity/protocols/oauth2; GitHub secret scanning's google_oauth_client_secret",
       tok(("GOCSPX-",), r"[A-Za-z0-9_-]{24,40}+", glued=True)),
    _r("google-oauth-token",
       "Google OAuth 2.0 access token (ya29. + base64url) https://developers.google.com/identity/protocols/oauth2; "
       "GitHub secret scanning's google_oauth_access_token",
       tok(("ya29.",), r"[A-Za-z0-9_-]{30,4096}+")),
    # test26 V1: the refresh token, the long-lived half of the pair (gcloud auth print-refresh-token,
    # application_default_credentials.json), also with its '/' JSON-escaped once or twice; random-looking (_refresh_ok)
    _r("google-oauth-refresh-token",
       "Google OAuth 2.0 refresh token ('1//0' + base64url, ~100 characters as gcloud prints it; 40.. taken) "
       "https://developers.google.com/identity/protocols/oauth2; GitHub secret scanning's "
       "google_oauth_refresh_token",
       tok(("1//0", "1\\/\\/0", "1\\\\/\\\\/0"), r"[A-Za-z0-9_-]{40,4096}+"), check=_refresh_ok,
       anchors=("1//0", "\\/0")),    # (the escaped prefixes' own would share the gate '1\\', in every '1\\n')
    # test25b U3: Django's generated key (startproject's settings.py) is a shape of its own, wherever it stands
    _r("django-secret-key",
       "Django's startproject SECRET_KEY: 'django-insecure-' + get_random_secret_key() (50, here 32..64, characters of "
       "a-z0-9!@#$%^&*(-_=+)) https://docs.djangoproject.com/en/5.0/ref/settings/#secret-key "
       "(django/core/management/utils.py get_random_secret_key)",
       tok(("django-insecure-",), r"[a-z0-9!@#$%^&*(\-_=+)]{32,64}+", la=r"(?![a-z0-9!@#$%^&*(\-_=+)])")),
    _r("openai-key",
       "OpenAI API reference 'Authentication' (project keys sk-proj-, service accounts sk-svcacct-, admin "
       "sk-admin-, legacy user keys sk- + 48 chars) https://platform.openai.com/docs/api-reference/authentication",
       tok(("sk-",), r"(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,400}+|[A-Za-z0-9]{48})")),
    _r("jwt",
       "RFC 7519 s3 / RFC 7515 s7.1 JWS compact serialization: base64url(header).base64url(payload).sig; "
       "header and claims are JSON objects, so both segments begin 'eyJ'",
       tok(("eyJ",), r"[A-Za-z0-9_-]{5,8192}+\.eyJ[A-Za-z0-9_-]{5,16384}+\.[A-Za-z0-9_-]{0,8192}+",
            lbc=r"[A-Za-z0-9_+.\-\]]"),
       priority=20),
    _r("url-password",
       "RFC 3986 s3.2.1 userinfo 'user:password@host' (deprecated, still used in git remotes and DSNs); "
       "test36 T12: up to the last '@' before the host, as libpq and urllib split a pasted unencoded '@'",
       r"://[^\s:/?#@\[\]\"'<>{}\\|`]{0,128}+:(?P<secret>[^\s/?#@\[\]\"'<>{}\\|`]{1,256}+"
       r"(?:@[^\s/?@\[\]\"'<>{}\\|`]{1,256}+){0,4})@",
       priority=30, check=url_password_ok, anchors=("://",)),
    _r("basic-auth",
       "RFC 7617 s2 'Authorization: Basic base64(user-id:password)'",
       _AUTH_HDR + r"basic[ \t]{1,8}(?P<secret>[A-Za-z0-9+/]{4,4096}+={0,2})",
       ci=True, priority=40, check=not_placeholder, anchors=("authorization",)),
    _r("basic-auth",
       "red27b (test27 V9): RFC 7617 s2 credentials after 'Basic' outside an Authorization header (AUTH=Basic x, "
       "auth: Basic x, header Basic x) or as a BASIC_AUTH value: only base64 that decodes to user:password",
       r"basic(?<![A-Za-z0-9]basic)(?:[_-]?auth(?:[_-]?(?:header|token|credentials?))?)?(?:[ \t]{1,8}|[ \t]{0,8}[=:]"
       r"[ \t]{0,8}\\{0,3}[\"']?(?:basic[ \t]{1,8})?)(?P<secret>[A-Za-z0-9+/]{8,4096}+={0,2})(?![A-Za-z0-9+/=])",
       ci=True, priority=40, check=basic_credentials_ok, anchors=("basic",)),
    _r("basic-auth",
       "red29 (test29 P5): npm's _auth in an .npmrc ('//registry.npmjs.org/:_auth=<base64 user:password>', "
       "https://docs.npmjs.com/cli/v10/configuring-npm/npmrc#auth-related-configuration ): only base64 of user:password",
       r"_auth[ \t]{0,8}=[ \t]{0,8}[\"']?(?P<secret>[A-Za-z0-9+/]{8,4096}+={0,2})(?![A-Za-z0-9+/=])",
       ci=True, priority=40, check=basic_credentials_ok, anchors=("_auth",)),
    _r("bearer-token",
       "RFC 6750 s2.1 'Authorization: Bearer b64token' (also GitHub's 'Authorization: token ...')",
       _AUTH_HDR + r"(?:bearer|token)[ \t]{1,8}(?P<secret>[A-Za-z0-9._~+/-]{8,8192}+=*)",
       ci=True, priority=40, check=not_placeholder, anchors=("authorization",)),
    _r("bearer-token",
       "RFC 6750 s2.1 b64token after a bare 'Bearer ' (no header name): only random-looking values",
       r"bearer(?<![A-Za-z0-9_\-\]]bearer)[ \t]{1,4}(?P<secret>[A-Za-z0-9._~+/-]{20,8192}+=*)",
       ci=True, priority=41, check=bearer_ok, anchors=("bearer",)),
    _r("generic-secret",
       "test25b U3: the literal default of an env-var read assigned to a variable named for a credential "
       "(SECRET_KEY = os.getenv(\"NAME\", \"value\") or the os mapping's .get, python-decouple's "
       "config('NAME', default='value'), env.str(...), process.env.NAME || 'value' or ?? "
       "\"value\"), also after a type annotation (SECRET_KEY: str = 'value', Field(default='value')): the "
       "default is the variable's value https://docs.python.org/3/library/os.html#os.getenv "
       "https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Operators/Nullish_coalescing",
       KW + ENV_DEFAULT, ci=True, priority=49, check=env_default_ok, scan=scan_env_default, anchors=ENV_ANCHORS),
    _r("generic-secret",
       "keyword heuristics (no vendor format): password/passwd/pwd/passphrase/secret/token/api_key/"
       "access_key/auth_key/private_key = or : value, where the value looks random (looks_secret)",
       KW + ASSIGN + r"(?P<secret>" + VALUE + r"{8,4096}+)" + VALUE_END,
       ci=True, priority=50, check=looks_secret, scan=scan_generic, anchors=GEN_ANCHORS),
    *PASSWORD_RULES,
    *CALL_RULES,
    *MARKDOWN_RULES,
    *SECOND_FACTOR_RULES,
    *HASH_RULES,
    *KEY_SUFFIX_RULES,
    *AUTH_PAIR_RULES,
    *TYPED_PAIR_RULES,
    *CARD_RULES,
]
