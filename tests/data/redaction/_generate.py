"""Regenerate the redaction corpus: ``python tests/data/redaction/_generate.py``.

Every credential here is FAKE: random characters from a fixed seed, shaped to
the documented formats (prefix, length, alphabet) and, where the alphabet
allows, carrying the word FAKE.  None was ever issued by a vendor.  The
output is the context files beside this one (.env, curl, JSON config, stack
trace, git remotes, Python, PEM tool output, service-account JSON, a JSONL
transcript line) and ``expected.json``: for every file, the exact substrings
that must disappear and the rule expected to name them.  ``clean/`` is written
by hand: prose, code and tool output that must produce no hit at all.
"""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path

HERE = Path(__file__).resolve().parent
rnd = random.Random(20240611)
ALNUM = string.ascii_letters + string.digits
UPPER_NUM = string.ascii_uppercase + string.digits


def r(n: int, alphabet: str = ALNUM) -> str:
    return "".join(rnd.choice(alphabet) for _ in range(n))


def fake(n: int, alphabet: str = ALNUM) -> str:
    """n random characters with FAKE in them (the alphabet must hold F, A, K, E)."""
    return r(3, alphabet) + "FAKE" + r(n - 7, alphabet)


def b64url(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")


def pem(label: str, nbytes: int, lead: bytes = b"", width: int = 64, headers: str = "",
        checksum: str = "") -> str:
    body = base64.b64encode(lead + bytes(rnd.randrange(256) for _ in range(nbytes - len(lead)))).decode()
    lines = [body[i:i + width] for i in range(0, len(body), width)]
    return (f"-----BEGIN {label}-----\n" + headers + "\n".join(lines) + "\n" + checksum
            + f"-----END {label}-----")


AKID = "AKIA" + fake(16, UPPER_NUM)
ASIA = "ASIA" + fake(16, UPPER_NUM)
AWS_SECRET = fake(40, ALNUM + "/+")
AWS_SECRET2 = fake(40, ALNUM + "/+")
GCP_API = "AIza" + fake(35, ALNUM + "_-")
GHP = "ghp_" + fake(36)
GHS = "ghs_" + fake(36)
GHO = "gho_" + fake(36)
GH_FINE = "github_pat_" + fake(22) + "_" + r(59)
GLPAT = "glpat-" + fake(20, ALNUM + "_-")
SLACK_BOT = f"xoxb-{r(12, string.digits)}-{r(13, string.digits)}-{fake(24)}"
SLACK_USER = f"xoxp-{r(12, string.digits)}-{r(12, string.digits)}-{r(13, string.digits)}-{fake(32, 'abcdef0123456789FAKE')}"
SLACK_HOOK_PATH = f"T{fake(10, UPPER_NUM)}/B{fake(10, UPPER_NUM)}/{fake(24)}"
STRIPE_LIVE = "sk_live_" + fake(99)
STRIPE_TEST = "sk_test_" + fake(24)
STRIPE_RK = "rk_live_" + fake(24)
NPM = "npm_" + fake(36)
OPENAI_PROJ = "sk-proj-" + fake(74, ALNUM + "_-") + "T3BlbkFJ" + r(74, ALNUM + "_-")
OPENAI_LEGACY = "sk-" + fake(20) + "T3BlbkFJ" + r(20)
ANTHROPIC = "sk-ant-api03-" + fake(93, ALNUM + "_-") + "AA"
JWT = (b64url({"alg": "HS256", "typ": "JWT"}) + "." +
       b64url({"sub": "fake-user-42", "name": "Fake User", "iat": 1718000000, "exp": 1718003600}) + "." +
       r(43, ALNUM + "_-"))
BEARER_OPAQUE = fake(40, ALNUM + "-._~")
BASIC = base64.b64encode(b"deploy:Fake-Passw0rd-7Qz!").decode()
DB_PASS = "Fk7" + r(5) + "!q9" + r(5)
URL_PASS = "FAKE" + r(12) + "9"
DJANGO_SECRET = "django-insecure-" + fake(34, ALNUM + "!@#%^*-_=+")
API_KEY_HEX = r(32, "0123456789abcdef")
RSA = pem("RSA PRIVATE KEY", 1190, lead=bytes.fromhex("308204a20201000282010100"))
EC = pem("EC PRIVATE KEY", 121, lead=bytes.fromhex("30770201010420"))
PKCS8 = pem("PRIVATE KEY", 1218, lead=bytes.fromhex("308204be020100300d06092a864886f70d0101010500048204a8"))
OPENSSH = pem("OPENSSH PRIVATE KEY", 400, lead=b"openssh-key-v1\x00\x00\x00\x00\x04none", width=70)
PGP = pem("PGP PRIVATE KEY BLOCK", 900, width=64, headers="Version: GnuPG v2\nComment: fake key for tests\n\n",
          checksum="=" + r(4, ALNUM + "+/") + "\n")
RSA_TRUNC = pem("RSA PRIVATE KEY", 1190, lead=bytes.fromhex("308204a40201000282010100"))
RSA_TRUNC_HEAD = RSA_TRUNC[: RSA_TRUNC.index("\n", 600)]          # BEGIN and 9 lines, no END
RSA_HEADLESS = pem("RSA PRIVATE KEY", 1190, lead=bytes.fromhex("308204a30201000282010100"))
RSA_HEADLESS_TAIL = RSA_HEADLESS[RSA_HEADLESS.index("\n", 900) + 1:]   # last lines and END, no BEGIN
SA_PEM = pem("PRIVATE KEY", 1218, lead=bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7"))

files: dict[str, tuple[str, list[tuple[str, str]]]] = {}

files["dotenv.env"] = (f"""# local development settings -- never commit
APP_ENV=development
DEBUG=true
PORT=8000
DATABASE_URL=postgres://app:{URL_PASS}@localhost:5432/app_dev
DB_PASSWORD={DB_PASS}
AWS_ACCESS_KEY_ID={AKID}
AWS_SECRET_ACCESS_KEY={AWS_SECRET}
AWS_REGION=eu-west-1
OPENAI_API_KEY={OPENAI_PROJ}
ANTHROPIC_API_KEY={ANTHROPIC}
STRIPE_SECRET_KEY={STRIPE_LIVE}
STRIPE_RESTRICTED_KEY={STRIPE_RK}
SLACK_BOT_TOKEN={SLACK_BOT}
SECRET_KEY={DJANGO_SECRET}
LOG_LEVEL=info
""", [(URL_PASS, "url-password"), (DB_PASS, "generic-secret"), (AKID, "aws-access-key-id"),
      (AWS_SECRET, "aws-secret-access-key"), (OPENAI_PROJ, "openai-key"), (ANTHROPIC, "anthropic-key"),
      (STRIPE_LIVE, "stripe-key"), (STRIPE_RK, "stripe-key"), (SLACK_BOT, "slack-token"),
      (DJANGO_SECRET, "generic-secret")])

files["curl.sh"] = (f"""#!/bin/sh
# reproduce the 401 from the staging API
curl -sS -X POST https://api.staging.example.com/v1/jobs \\
  -H 'Authorization: Bearer {BEARER_OPAQUE}' \\
  -H 'Content-Type: application/json' \\
  -d '{{"name": "nightly"}}'

curl https://api.anthropic.com/v1/messages \\
  -H "x-api-key: {ANTHROPIC}" -H "anthropic-version: 2023-06-01"

curl -H "Authorization: Basic {BASIC}" https://ci.internal/api/json
curl -H "Authorization: token {GHO}" https://api.github.com/user
curl -H "Authorization: Bearer {JWT}" https://auth.internal/introspect
curl -X POST -d '{{"text":"deployed"}}' https://hooks.slack.com/services/{SLACK_HOOK_PATH}
curl "https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={GCP_API}"
""", [(BEARER_OPAQUE, "bearer-token"), (ANTHROPIC, "anthropic-key"), (BASIC, "basic-auth"),
      (GHO, "github-token"), (JWT, "jwt"), (SLACK_HOOK_PATH, "slack-webhook"), (GCP_API, "gcp-api-key")])

files["config.json"] = (json.dumps({
    "name": "release-bot",
    "version": "2.3.1",
    "github": {"token": GHS, "owner": "acme", "repo": "widgets"},
    "npm": {"registry": "https://registry.npmjs.org/", "authToken": NPM},
    "slack": {"token": SLACK_USER, "channel": "#releases"},
    "openai": {"api_key": OPENAI_LEGACY, "model": "gpt-4o-mini"},
    "stripe": {"secret_key": STRIPE_TEST, "webhook_tolerance": 300},
    "aws": {"accessKeyId": ASIA, "secretAccessKey": AWS_SECRET2, "region": "us-east-1"},
    "retries": 3,
}, indent=2) + "\n", [(GHS, "github-token"), (NPM, "npm-token"), (SLACK_USER, "slack-token"),
                      (OPENAI_LEGACY, "openai-key"), (STRIPE_TEST, "stripe-key"), (ASIA, "aws-access-key-id"),
                      (AWS_SECRET2, "aws-secret-access-key")])

files["traceback.txt"] = (f"""Traceback (most recent call last):
  File "/srv/app/worker.py", line 88, in run
    conn = psycopg.connect("postgresql://reporting:{URL_PASS}@db-7.internal:5432/reports")
  File "/srv/app/.venv/lib/python3.11/site-packages/psycopg/connection.py", line 119, in connect
    raise last_ex.with_traceback(None)
psycopg.OperationalError: connection failed: FATAL:  password authentication failed for user "reporting"

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/srv/app/auth.py", line 41, in verify
    claims = jwt.decode(token, key, algorithms=["HS256"])
jwt.exceptions.ExpiredSignatureError: Signature has expired: {JWT}
requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://api.github.com/repos/acme/widgets?access_token={GHP}
""", [(URL_PASS, "url-password"), (JWT, "jwt"), (GHP, "github-token")])

files["git-remote.txt"] = (f"""$ git remote -v
origin\thttps://x-access-token:{GHS}@github.com/acme/widgets.git (fetch)
origin\thttps://x-access-token:{GHS}@github.com/acme/widgets.git (push)
gitlab\thttps://oauth2:{GLPAT}@gitlab.com/acme/widgets.git (fetch)
gitlab\thttps://oauth2:{GLPAT}@gitlab.com/acme/widgets.git (push)
fork\thttps://{GH_FINE}@github.com/someone/widgets.git (fetch)
upstream\tgit@github.com:acme/widgets.git (fetch)
$ git push origin main
Everything up-to-date
""", [(GHS, "github-token"), (GLPAT, "gitlab-token"), (GH_FINE, "github-fine-grained-pat")])

files["snippet.py"] = (f'''import os
import stripe
from getpass import getpass

stripe.api_key = "{STRIPE_TEST}"
GITHUB_TOKEN = "{GH_FINE}"
API_KEY = "{API_KEY_HEX}"


def connect(user, password=None):
    password = password or getpass()
    token = os.environ.get("API_TOKEN")
    return Client(user=user, password=password, token=token)


client = OpenAI(api_key="{OPENAI_PROJ}")
''', [(STRIPE_TEST, "stripe-key"), (GH_FINE, "github-fine-grained-pat"), (API_KEY_HEX, "generic-secret"),
      (OPENAI_PROJ, "openai-key")])

files["tool-output-pem.txt"] = (f"""$ cat ~/.ssh/id_rsa
{RSA}
$ cat deploy/ec.pem
{EC}
$ cat ~/.ssh/id_ed25519
{OPENSSH}
$ gpg --export-secret-keys --armor fake@example.com
{PGP}
$ head -c 700 backup/server.key
{RSA_TRUNC_HEAD}
$ tail -n 8 backup/old.key
{RSA_HEADLESS_TAIL}
$ openssl pkey -in tls.key
{PKCS8}
""", [(RSA, "private-key"), (EC, "private-key"), (OPENSSH, "private-key"), (PGP, "private-key"),
      (RSA_TRUNC_HEAD, "private-key"), (RSA_HEADLESS_TAIL, "private-key"), (PKCS8, "private-key")])

SA = {
    "type": "service_account",
    "project_id": "fake-project-123456",
    "private_key_id": r(40, "0123456789abcdef"),
    "private_key": SA_PEM + "\n",
    "client_email": "ci-runner@fake-project-123456.iam.gserviceaccount.com",
    "client_id": r(21, string.digits),
    "auth_uri": "https://accounts.google.com/o/oauth2/auth",
    "token_uri": "https://oauth2.googleapis.com/token",
}
sa_text = json.dumps(SA, indent=2) + "\n"
sa_value = json.dumps(SA_PEM)[1:-1]          # as it appears inside the JSON string
files["service-account.json"] = (sa_text, [(sa_value, "gcp-service-account")])

# A transcript line (JSONL): the service-account file and a PEM as a tool
# result, escaped once more.
tool_out = "$ cat sa.json\n" + sa_text + "$ cat id_rsa\n" + RSA + "\n"
record = {"type": "user", "message": {"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": "toolu_fake01", "content": tool_out}]},
    "sessionId": "00000000-0000-4000-8000-000000000000"}
line = json.dumps(record) + "\n"
files["transcript.jsonl"] = (line, [(json.dumps(sa_value)[1:-1], "gcp-service-account"),
                                    (json.dumps(RSA)[1:-1], "private-key")])

# A mem MCP key where a user exports it for an agent (drawn last, so every value
# above keeps its place in the seeded sequence).
MEMK = "memk_" + fake(43, ALNUM + "_-")
files["mcp-env.sh"] = (f"""# let Codex reach mem serve (docs/mcp.md)
export MEM_MCP_KEY={MEMK}
codex
""", [(MEMK, "mem-key")])

# Passwords in plain words and attached to mysql's -p (drawn after MEMK: the values above keep
# their place in the seeded sequence).
PHRASE_PW = fake(14)
MYSQL_PW = fake(12)
PASSPHRASE = r(5, string.ascii_lowercase) + "-FAKE-" + r(4, string.digits)
files["chat-passwords.txt"] = (f"""user: the staging db is up again, my password is {PHRASE_PW} ok
assistant: noted. The password is stored in vault, and a password is required for every deploy.
$ mysqldump -u root -p{MYSQL_PW} app > backup.sql
$ mkdir -p backup && git log -p -1 && mysql -u root -p app -P 3306
user: the gpg passphrase was {PASSPHRASE}.
""", [(PHRASE_PW, "password-phrase"), (MYSQL_PW, "mysql-password"), (PASSPHRASE, "password-phrase")])

# Passwords on command lines (fresh attack 5): drawn after the chat passwords, so every value
# above keeps its place in the seeded sequence.
SSHPASS_PW, DOCKER_PW, CURL_PW, REDIS_PW, HTPASSWD_PW, SUDO_PW = (fake(14) for _ in range(6))
files["cli-passwords.sh"] = (f"""$ sshpass -p '{SSHPASS_PW}' ssh deploy@web1 uptime
$ docker login -u ci -p {DOCKER_PW} registry.example.com
$ curl -sS -u admin:{CURL_PW} https://ci.example.com/api/json
$ redis-cli -h cache -a {REDIS_PW} info
$ htpasswd -b /etc/nginx/.htpasswd ops {HTPASSWD_PW}
$ echo '{SUDO_PW}' | sudo -S systemctl restart nginx
$ docker login --password-stdin -u ci registry.example.com < token.txt
$ openssl rsa -passin env:KEY_PW -in server.key -out plain.key
""", [(SSHPASS_PW, "cli-password"), (DOCKER_PW, "cli-password"), (CURL_PW, "cli-password"),
      (REDIS_PW, "cli-password"), (HTPASSWD_PW, "cli-password"), (SUDO_PW, "cli-password")])

# More command-line, here-string, SQL and chat passwords (redact6): drawn after the command-line
# passwords, so every value above keeps its place in the seeded sequence.
(MONGO_PW, MYSQL_PW2, PW_PHRASE, PW_ASSIGN, PAIR_PW, RABBIT_PW, HERE_PW, CHPASSWD_PW, NET_PW, SQL_PW,
 GPG_PW, SQLCMD_PW) = (fake(14) for _ in range(12))
PAIR_PW = "Pw!" + PAIR_PW
files["more-passwords.txt"] = (f"""$ mongosh --host db1 -u admin -p '{MONGO_PW}' --authenticationDatabase admin
$ mongosh --host db1 -u admin -p --authenticationDatabase admin
$ mysql -uroot -p{MYSQL_PW2} -e 'show databases'
user: my pw is {PW_PHRASE} for the staging box
user: pw: {PW_ASSIGN}
user: creds: admin / {PAIR_PW}
assistant: the user / group split lives in users/groups.py; cp a / b
$ rabbitmqctl add_user bob {RABBIT_PW}
$ rabbitmqctl add_user carol
$ sudo -S apt-get update <<< '{HERE_PW}'
$ sudo -S apt-get update <<< "$SUDO_PW"
$ chpasswd <<< 'bob:{CHPASSWD_PW}'
C:\\> net user bob {NET_PW} /add
C:\\> net user bob
$ psql -c "ALTER ROLE app WITH PASSWORD '{SQL_PW}'"
$ gpg --batch --passphrase {GPG_PW} -d notes.gpg
$ sqlcmd -S db -U sa -P {SQLCMD_PW} -Q "select 1"
$ ssh -p 2222 deploy@web1 && docker login --password-stdin -u ci registry.example.com < token.txt
""", [(MONGO_PW, "cli-password"), (MYSQL_PW2, "mysql-password"), (PW_PHRASE, "password-phrase"),
      (PW_ASSIGN, "generic-secret"), (PAIR_PW, "password-phrase"), (RABBIT_PW, "cli-password"),
      (HERE_PW, "cli-password"), (CHPASSWD_PW, "cli-password"), (NET_PW, "cli-password"),
      (SQL_PW, "sql-password"), (GPG_PW, "cli-password"), (SQLCMD_PW, "cli-password")])

# Vendor tokens and phrases that were stored in clear until redact7: drawn after the redact6
# passwords, so every value above keeps its place in the seeded sequence.
HEX = "0123456789abcdef"
HF = "hf_" + "FAKE" + r(30, string.ascii_letters)
SENDGRID = "SG." + fake(22, ALNUM + "_-") + "." + fake(43, ALNUM + "_-")
AZURE_KEY = fake(86, ALNUM + "+/") + "=="
SAS_SIG = fake(40, ALNUM) + "%2B" + r(3) + "%3D"
DISCORD_TOKEN = fake(68, ALNUM + "_-")
DO_PAT = "dop_v1_" + r(64, HEX)
SHOPIFY = "shpat_" + r(32, HEX)
SHOPIFY_SS = "shpss_" + r(32, HEX)
RAILS_SKB = r(128, HEX)
VPN_PW, DE_PW, SLASH_PW = fake(12), fake(12), "Pw9" + fake(10)
WORDS_PP = "correct horse battery staple"
files["vendor-tokens.env"] = (f"""# .env of a demo app (every value FAKE)
HF_TOKEN={HF}
SENDGRID_API_KEY={SENDGRID}
AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=fakeacct;AccountKey={AZURE_KEY};EndpointSuffix=core.windows.net
BLOB_SAS_URL=https://fakeacct.blob.core.windows.net/media/a.png?sv=2022-11-02&ss=b&srt=o&sp=r&se=2030-01-01T00:00:00Z&spr=https&sig={SAS_SIG}
DISCORD_WEBHOOK=https://discord.com/api/webhooks/123456789012345678/{DISCORD_TOKEN}
DIGITALOCEAN_TOKEN={DO_PAT}
SHOPIFY_ACCESS_TOKEN={SHOPIFY}
SHOPIFY_API_SECRET={SHOPIFY_SS}
SECRET_KEY_BASE={RAILS_SKB}
# look-alikes that stay: hf_hub_download, SG.example.com, sig=None, $AZURE_STORAGE_KEY
""", [(HF, "huggingface-token"), (SENDGRID, "sendgrid-key"), (AZURE_KEY, "azure-storage-key"),
      (SAS_SIG, "azure-sas-token"), (DISCORD_TOKEN, "discord-webhook"), (DO_PAT, "digitalocean-token"),
      (SHOPIFY, "shopify-token"), (SHOPIFY_SS, "shopify-token"), (RAILS_SKB, "generic-secret")])
files["chat-phrases.txt"] = (f"""user: the vpn pass is {VPN_PW} if you need it
user: passphrase: {WORDS_PP}
user: das Passwort ist {DE_PW}
user: login admin/{SLASH_PW} on the staging dashboard
assistant: the second pass is 2x faster; passphrase: not set; login users/groups.py
""", [(VPN_PW, "password-phrase"), (WORDS_PP, "password-phrase"), (DE_PW, "password-phrase"),
      (SLASH_PW, "password-phrase")])

# red16 (tester F9): Vault, Databricks, Telegram, Linear, Atlassian, Discord bot, Mailgun
B64URL = ALNUM + "_-"
VAULT_HVS = "hvs." + "CAES" + fake(91, B64URL)
VAULT_S = "s." + fake(24)
DATABRICKS = "dapi" + r(32, HEX)
TELEGRAM = "AA" + fake(33, B64URL)
LINEAR = "lin_api_" + fake(40)
ATLASSIAN = "ATATT3" + fake(177, B64URL) + "=" + r(8, "0123456789ABCDEF")
DISCORD_BOT = base64.urlsafe_b64encode(b"112233445566778899").decode() + "." + r(6, B64URL) + "." + fake(38, B64URL)
MAILGUN = "key-" + r(32, HEX)
MEM_SECRET = "FAKE-4471-9902"   # test17 T10: a value sealed by mem's own command line (fixed: no draw of the seed)
AGE_SECRET = "FAKE-Velvet-Otter-42"   # test18 U1: what age encrypts on the same line (fixed too)
files["vendor-tokens-2.sh"] = (f"""# a shell history of a demo app (every value FAKE)
vault login {VAULT_HVS}
export VAULT_TOKEN={VAULT_S}
export DATABRICKS_TOKEN={DATABRICKS}
curl https://api.telegram.org/bot123456789:{TELEGRAM}/getMe
curl -H 'Authorization: {LINEAR}' https://api.linear.app/graphql
curl -u dev@example.com:{ATLASSIAN} https://acme.atlassian.net/rest/api/3/myself
curl -H 'Authorization: Bot {DISCORD_BOT}' https://discord.com/api/v10/users/@me
curl -s --user 'api:{MAILGUN}' https://api.mailgun.net/v3/mg.example.com/messages
mem remember user/bank/pin {MEM_SECRET} --sensitivity secret
printf '%s' '{AGE_SECRET}' | age -r age1examplerecipientfake -o pin.age
# look-alikes that stay: hvs.example_module_name, vault login -method=userpass, lin_api_client.py, key-value
""", [(VAULT_HVS, "vault-token"), (VAULT_S, "vault-token"), (DATABRICKS, "databricks-token"),
      (TELEGRAM, "telegram-bot-token"), (LINEAR, "linear-api-key"), (ATLASSIAN, "atlassian-api-token"),
      (DISCORD_BOT, "discord-bot-token"), (MAILGUN, "mailgun-key"), (MEM_SECRET, "mem-command"),
      (AGE_SECRET, "age-input")])

# session 18 (test18 U10): age identities (mem's own sync key format), PyPI, Doppler
BECH32_UP = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
AGE_KEY = "AGE-SECRET-KEY-1" + r(58, BECH32_UP)
AGE_PLUGIN = "AGE-PLUGIN-YUBIKEY-1" + r(60, BECH32_UP)
PYPI = "pypi-AgEIcHlwaS5vcmc" + fake(120, B64URL)
DOPPLER = "dp.st.prd." + fake(40)
files["vendor-tokens-3.sh"] = (f"""# keys an agent prints or is given (every value FAKE)
$ age-keygen
# created: 2026-12-03T22:00:00Z
# public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p
{AGE_KEY}
$ age-plugin-yubikey --identity
{AGE_PLUGIN}
twine upload -u __token__ -p {PYPI} dist/*
doppler run --token {DOPPLER} -- npm start
# look-alikes that stay: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p, pypi-simple, dp.st
""", [(AGE_KEY, "age-secret-key"), (AGE_PLUGIN, "age-secret-key"), (PYPI, "pypi-token"),
      (DOPPLER, "doppler-token")])

# session 20 (red20): a PostgreSQL password file and a .netrc shown and written on a command line
PGPASS_PW = fake(20)
NETRC_PW = fake(18)
files["password-files.sh"] = (f"""# password files an agent reads or writes (every value FAKE)
$ echo "db.example.com:5432:app:alice:{PGPASS_PW}" >> ~/.pgpass && chmod 600 ~/.pgpass
$ cat ~/.netrc
machine api.example.com
  login alice
  password {NETRC_PW}
# look-alikes that stay: 10:33:47, host:5432, machine learning password manager
""", [(PGPASS_PW, "pgpass-password"), (NETRC_PW, "netrc-password")])

# cred20: key material and credentials in config formats (base64 PEM, Secret manifests, Terraform, fish,
# PuTTY, keytool/jarsigner, a labelled value past 4,096 characters); drawn last, so every value above keeps
# its place in the seeded sequence
B64 = ALNUM + "+/"
B64_PEM = base64.b64encode(pem("RSA PRIVATE KEY", 600).encode()).decode()
B64_OSSH = base64.b64encode(pem("OPENSSH PRIVATE KEY", 400, width=70).encode()).decode()
B64_CERT = base64.b64encode(pem("CERTIFICATE", 300).encode()).decode()
DOCKERCFG = base64.b64encode(('{"auths":{"registry.example.com":{"auth":"' + fake(24) + '"}}}').encode()).decode()
TF_PW, TF_TOKEN, FISH_KEY, FISH_TOK, FISH_PW = fake(14), fake(20), fake(32), "FAKE" + r(28), fake(12)
PPK_PRIV = "\n".join(r(64, B64) for _ in range(3)) + "\n" + r(20, B64) + "=="
KS_PW, KEY_PW, DEST_PW, JAR_PW = fake(12), fake(12), fake(12), fake(12)
LONG_KEY = fake(5000)
files["config-secrets.txt"] = (f"""$ kubectl config view --raw
users:
- name: admin@fake
  user:
    client-certificate-data: {B64_CERT}
    client-key-data: {B64_PEM}
$ kubectl get secret ssh-deploy -o yaml
apiVersion: v1
kind: Secret
type: kubernetes.io/ssh-auth
data:
  ssh-privatekey: {B64_OSSH}
  .dockerconfigjson: {DOCKERCFG}
$ cat variables.tf
variable "db_password" {{
  type      = string
  sensitive = true
  default   = "{TF_PW}"
}}
variable "api_token" {{ default = "{TF_TOKEN}" }}
variable "region" {{ default = "eu-west-1" }}
$ cat ~/.config/fish/conf.d/secrets.fish
set -gx OPENAI_API_KEY {FISH_KEY}
set -Ux GITHUB_TOKEN {FISH_TOK}
set DB_PASSWORD {FISH_PW}
set -gx EDITOR vim
$ cat deploy.ppk
PuTTY-User-Key-File-3: ssh-rsa
Encryption: none
Comment: rsa-key-fake
Public-Lines: 1
AAAAB3NzaC1yc2EAAAADAQABAAAAgQFAKE
Private-Lines: 4
{PPK_PRIV}
Private-MAC: {r(64, HEX)}
$ keytool -importkeystore -srckeystore a.p12 -srcstorepass {KS_PW} -destkeystore b.jks -deststorepass {DEST_PW} -destkeypass {KEY_PW}
$ jarsigner -keystore b.jks -storepass {JAR_PW} -storepass:env KS_PW app.jar fake
API_KEY={LONG_KEY}
""", [(B64_PEM, "private-key-base64"), (B64_OSSH, "private-key-base64"), (DOCKERCFG, "k8s-secret"),
      (TF_PW, "terraform-variable"), (TF_TOKEN, "terraform-variable"), (FISH_KEY, "fish-variable"),
      (FISH_TOK, "fish-variable"), (FISH_PW, "fish-variable"), (PPK_PRIV, "putty-private-key"),
      (KS_PW, "cli-password"), (DEST_PW, "cli-password"), (KEY_PW, "cli-password"), (JAR_PW, "cli-password"),
      (LONG_KEY, "generic-secret")])

# red21: a label's value after a blank line, .netrc 'default' and password-before-login entries, a libpq password
# file under another name, a Docker config.json 'auth'; drawn after cred20's, so every value above keeps its place
BLANK_PW, NETRC_DEF, NETRC_FIRST, PG_LINE_PW, DOCKER_PW = fake(14), fake(16), fake(16), fake(18), fake(16)
DOCKER_AUTH = base64.b64encode(f"ci-bot:{DOCKER_PW}".encode()).decode()
files["registry-and-password-files.txt"] = (f"""Here is the database password:

{BLANK_PW}

$ cat ~/.netrc
default login anonymous password {NETRC_DEF}
machine files.example.com password {NETRC_FIRST} login bob
$ cat $PGPASSFILE
db.example.com:5432:app:alice:{PG_LINE_PW}
$ cat ~/.docker/config.json
{{
	"auths": {{
		"registry.example.com": {{
			"auth": "{DOCKER_AUTH}"
		}}
	}},
	"credsStore": "desktop"
}}
# look-alikes that stay: 12:30:45:foo:barbaz, "auth": "basic", the machine learning password reset
""", [(BLANK_PW, "generic-secret"), (NETRC_DEF, "netrc-password"), (NETRC_FIRST, "netrc-password"),
      (PG_LINE_PW, "pgpass-password"), (DOCKER_AUTH, "docker-auth")])

# cfg21: a credential in a config file's own shape. Its own generator, so its values do not depend on how many
# values the blocks above (or another lane's block) drew
_cfg = random.Random(21021)
K8S_PW, ECS_PW, NET_KEY, WP_PW, MVN_PW, YAML_PW, PSK_PW, REDIS_PW = (
    "".join(_cfg.choice(ALNUM) for _ in range(3)) + "FAKE" + "".join(_cfg.choice(ALNUM) for _ in range(9))
    for _ in range(8))
files["config-file-shapes.txt"] = (f"""$ kubectl get deploy api -o yaml | grep -A2 DB_
        - name: DB_PASSWORD
          value: {K8S_PW}
        - name: DB_HOST
          value: db.internal
$ jq .containerDefinitions[0].environment task.json
[{{"name": "DB_PASSWORD", "value": "{ECS_PW}"}}, {{"name": "REGION", "value": "eu-west-1"}}]
$ grep add web.config
    <add key="ApiKey" value="{NET_KEY}" />
    <add key="Environment" value="Production" />
$ grep DB_ wp-config.php
define( 'DB_PASSWORD', '{WP_PW}' );
define( 'DB_NAME', 'wordpress' );
$ grep -A3 '<server>' ~/.m2/settings.xml
<server><id>nexus</id><username>deploy</username><password>{MVN_PW}</password></server>
$ cat values.yaml
db:
  password: |
    {YAML_PW}
$ sudo grep psk /etc/wpa_supplicant/wpa_supplicant.conf
    psk="{PSK_PW}"
$ grep ^requirepass /etc/redis/redis.conf
requirepass {REDIS_PW}
# look-alikes that stay: - name: DB_PASSWORD / valueFrom:, <password>${{env.PW}}</password>, # requirepass foobared
""", [(K8S_PW, "named-setting"), (ECS_PW, "named-setting"), (NET_KEY, "named-setting"), (WP_PW, "named-setting"),
      (MVN_PW, "named-setting"), (YAML_PW, "named-setting"), (PSK_PW, "config-password"),
      (REDIS_PW, "config-password")])

# red22: md21's Markdown labels (markdown-secret) and cli21's Cookie header (http-cookie) under their own names, and
# a Docker config.json identitytoken (docker-auth); its own generator, so no value above moves
_r22 = random.Random(22022)
ACR_TOKEN = "".join(_r22.choice(ALNUM) for _ in range(3)) + "FAKE" + "".join(_r22.choice(ALNUM) for _ in range(11))
# no FAKE after a Markdown label or in a cookie: a value holding a placeholder word is kept there (md21's
# _value_ok, cli21's _cookie_ok)
MD_PW = "Md9" + "".join(_r22.choice(ALNUM) for _ in range(11))
MD_TOKEN = "tK7" + "".join(_r22.choice(ALNUM) for _ in range(21))
COOKIE_SID = "Sx4" + "".join(_r22.choice(ALNUM) for _ in range(21))
files["markdown-and-cookies.txt"] = (f"""## Staging access

- **DB password**: `{MD_PW}`

| service | token |
|---|---|
| deploy-bot | {MD_TOKEN} |

$ curl -sv https://app.example.com/api/me 2>&1 | grep -i cookie
> Cookie: sessionid={COOKIE_SID}; theme=dark
$ cat ~/.docker/config.json
{{"auths": {{"acr.example.io": {{"identitytoken": "{ACR_TOKEN}"}}}}}}
# look-alikes that stay: **Password policy**: twelve characters, Cookie: theme=dark; lang=en
""", [(MD_PW, "markdown-secret"), (MD_TOKEN, "markdown-secret"), (COOKIE_SID, "http-cookie"),
      (ACR_TOKEN, "docker-auth")])

# session 25 (test25 T3): LLM-provider and CI vendor keys by their prefixes; a seed of their own, so every
# value above keeps its place
_r25 = random.Random(25025)
HEX_LOW = "0123456789abcdef"


def _d25(n: int, alphabet: str = ALNUM) -> str:
    return "".join(_r25.choice(alphabet) for _ in range(n))


OPENROUTER = "sk-or-v1-" + _d25(64, HEX_LOW)
XAI = "xai-" + _d25(3) + "FAKE" + _d25(73)
GROQ = "gsk_" + _d25(3) + "FAKE" + _d25(45)
DOCKER_PAT = "dckr_pat_" + _d25(3, ALNUM + "_-") + "FAKE" + _d25(20, ALNUM + "_-")
PULUMI = "pul-" + _d25(40, HEX_LOW)
GOCSPX = "GOCSPX-" + _d25(3) + "FAKE" + _d25(21, ALNUM + "_-")
YA29 = "ya29." + _d25(3) + "FAKE" + _d25(140, ALNUM + "_-")
DJANGO_KEY = "django-insecure-" + _d25(50, string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)")
files["vendor-tokens-4.sh"] = (f"""# keys of LLM providers and CI vendors an agent is given (every value FAKE)
export OPENROUTER_API_KEY={OPENROUTER}
curl https://api.x.ai/v1/models -H "Authorization: Bearer {XAI}"
client = Groq(api_key="{GROQ}")
echo {DOCKER_PAT} | docker login -u ci --password-stdin
pulumi login --cloud-url https://api.pulumi.com  # token {PULUMI}
{{"installed": {{"client_id": "1234-fake.apps.googleusercontent.com", "client_secret": "{GOCSPX}"}}}}
curl -H "X-Goog-Api-Client: x" https://www.googleapis.com/drive/v3/files?access_token={YA29}
SECRET_KEY = '{DJANGO_KEY}'
# look-alikes that stay: the xai-sdk package, gsk_ in a doc, git checkout pul-request-fix
""", [(OPENROUTER, "openrouter-key"), (XAI, "xai-key"), (GROQ, "groq-key"), (DOCKER_PAT, "docker-hub-token"),
      (PULUMI, "pulumi-token"), (GOCSPX, "google-oauth-secret"), (YA29, "google-oauth-token"),
      (DJANGO_KEY, "django-secret-key")])   # test25b U3: a format rule of its own

# session 26 (red26, test25b U4): settings files and shell history: passwords of several words, a call's password
# argument, random lower-case letters after a keyword; a seed of their own, so every value above keeps its place
_r26 = random.Random(26026)


def _d26(n: int, alphabet: str = string.ascii_lowercase) -> str:
    return "".join(_r26.choice(alphabet) for _ in range(n))


APP_PW_GROUPS = " ".join(_d26(4, "bcdfghjklmnpqrstvwxz") for _ in range(4))
APP_PW_LOGIN = _d26(16, "bcdfghjklmnpqrstvwxz")
LOWER_SECRET = _d26(22, "bcdfghjklmnpqrstvwxz")
files["settings-red26.txt"] = (f"""# a Django settings.py, a .env and a shell history (every value FAKE)
EMAIL_HOST_PASSWORD = "{APP_PW_GROUPS}"
server.login("dev@example.com", "{APP_PW_LOGIN}")
WEBHOOK_SECRET={LOWER_SECRET}
# look-alikes that stay: password: "Enter your password", API_TOKEN=placeholder, smtp.login(user, password)
""", [(APP_PW_GROUPS, "generic-secret"), (APP_PW_LOGIN, "call-password"), (LOWER_SECRET, "generic-secret")])

# session 26 (red26b, test26 V1 and V2): a bare Google OAuth refresh token as gcloud prints it, and passwords after
# a Chinese, Russian and Portuguese label; a seed of their own, so every value above keeps its place
_r26b = random.Random(262)
REFRESH = "1//0g" + "".join(_r26b.choice(string.ascii_letters + string.digits + "-_") for _ in range(98))
MIMA = "".join(_r26b.choice(string.ascii_letters) for _ in range(6)) + "".join(_r26b.choice(string.digits) for _ in range(4))
PAROL = "".join(_r26b.choice(string.ascii_letters) for _ in range(5)) + "".join(_r26b.choice(string.digits) for _ in range(3))
files["gcloud-and-labels-red26b.txt"] = (f"""$ gcloud auth print-refresh-token   (every value FAKE)
{REFRESH}
\u6570\u636e\u5e93\u5bc6\u7801\uff1a{MIMA}
\u043f\u0430\u0440\u043e\u043b\u044c: {PAROL}
# look-alikes that stay: /srv/1//0/archive, \u5bc6\u7801\uff1a\u8bf7\u8f93\u5165\u60a8\u7684\u5bc6\u7801, senha: obrigat\u00f3ria
""", [(REFRESH, "google-oauth-refresh-token"), (MIMA, "markdown-secret"), (PAROL, "markdown-secret")])

# session 27 (red27c, test27 V26): vendor tokens known by their documented prefix; a seed of their own, so every
# value above keeps its place
_r27c = random.Random(2727)


def _d27(n: int, alphabet: str = ALNUM) -> str:
    return "".join(_r27c.choice(alphabet) for _ in range(n))


HEXL = "0123456789abcdef"
V26 = [("figd_FAKE" + _d27(36, ALNUM + "_-"), "figma-token"),
       ("PMAK-" + _d27(24, HEXL) + "-" + _d27(34, HEXL), "postman-key"),
       ("sntryu_" + _d27(64, HEXL), "sentry-token"),
       ("glsa_FAKE" + _d27(28) + "_" + _d27(8, HEXL), "grafana-token"),
       ("NRAK-FAKE" + _d27(23, UPPER_NUM), "newrelic-key"),
       ("nfp_FAKE" + _d27(32), "netlify-token"),
       (_d27(14, string.ascii_lowercase + string.digits) + ".atlasv1.FAKE" + _d27(60, ALNUM + "_-"),
        "terraform-cloud-token"),
       ("fo1_FAKE" + _d27(39, ALNUM + "_-"), "flyio-token"),
       ("rnd_FAKE" + _d27(28), "render-key"),
       ("AKCpFAKE" + _d27(65), "jfrog-key")]
files["vendor-tokens-red27c.sh"] = ("# vendor tokens an agent is handed, no label (every value FAKE)\n"
                                   + "".join(f"deploy --with {t} # step {i}\n" for i, (t, _) in enumerate(V26))
                                   + "# look-alikes that stay: nfp_utils, rnd_module_name, figd_thing, AKCpython\n",
                                   V26)

# session 32 (red32, test31b V4): 2FA recovery codes, a TOTP seed given with a blank, a wallet's seed phrase; a seed
# of their own, so every value above keeps its place
_r32 = random.Random(3232)
B32 = string.ascii_uppercase + "234567"
CODES = ["".join(_r32.choice(string.ascii_lowercase + string.digits) for _ in range(5)) + "-"
         + "".join(_r32.choice(string.ascii_lowercase + string.digits) for _ in range(5)) for _ in range(2)]
CODES = [c if any(ch.isdigit() for ch in c) else c[:-1] + "7" for c in CODES]
TOTP = "FAKE" + "".join(_r32.choice(B32) for _ in range(28))
SEEDWORDS = " ".join(_r32.choice("abandon ability able about above absent absorb abstract absurd abuse access "
                                 "accident account accuse achieve acid acoustic acquire across".split()) for _ in range(12))
files["second-factors-red32.txt"] = (f"""github 2FA recovery codes: {CODES[0]} {CODES[1]}
otp secret {TOTP}
wallet seed phrase: {SEEDWORDS}
# look-alikes that stay: recovery codes: 10 left, otp secret length must be 16, the seed phrase is the only way to
# restore your wallet if you lose the device and the backup
""", [(CODES[0], "second-factor"), (CODES[1], "second-factor"), (TOTP, "second-factor"), (SEEDWORDS, "seed-phrase")])

# session 33 (red33b, test33 T15): a payment card's number (Luhn-valid, made here: no issued card) and its CVV; a
# seed of their own, so every value above keeps its place
_r33 = random.Random(3333)
_digits = [4] + [_r33.randrange(10) for _ in range(14)]
_sum = sum((d * 2 - 9 if d > 4 else d * 2) if i % 2 == 0 else d for i, d in enumerate(reversed(_digits)))
_digits.append((10 - _sum % 10) % 10)
CARD = " ".join("".join(map(str, _digits[i:i + 4])) for i in range(0, 16, 4))
CVV = "".join(str(_r33.randrange(10)) for _ in range(3))
files["payment-card-red33b.txt"] = (f"""the test account's card is {CARD} exp 09/29 cvv {CVV}
# look-alikes that stay: card 1 of 4, the card is 1234 5678 9012 3456, cvv field is required
""", [(CARD, "payment-card")])   # (the CVV is redacted too, but 3 digits are no string a corpus test can plant)

# session 37 (red37, test36b T10/T12, test36 T3): a verb of change before a password's label, 'pwd is "words"', a
# Mailchimp key, a PKCS#8 body without its BEGIN line and a sensitive 'terraform output -json' value; a seed of their
# own, so every value above keeps its place
_r37 = random.Random(3737)
MAILCHIMP = "".join(_r37.choice("0123456789abcdef") for _ in range(32)) + "-us21"
PKCS8 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw" + "".join(_r37.choice(B64) for _ in range(28 + 64 * 2))
PKCS8_LINES = "\n".join(PKCS8[i:i + 64] for i in range(0, len(PKCS8), 64))
TFVALUE = "FAKE" + "".join(_r37.choice(string.ascii_letters + string.digits) for _ in range(12))
SETPW = "Fk8-" + "".join(_r37.choice(string.ascii_lowercase) for _ in range(6)) + "-3"
files["red37-secrets.txt"] = (f"""we set the db password to "blue FAKE whale 42"
we changed the admin pass to {SETPW}
the pwd is "two FAKE words here"
the newsletter key is {MAILCHIMP}
key:
{PKCS8_LINES}
$ terraform output -json
{{"db_password": {{"sensitive": true, "type": "string", "value": "{TFVALUE}"}}}}
# look-alikes that stay: we set the pass to -O2, I changed the pwd to /tmp/build2, git checkout feature-us21
""", [("blue FAKE whale 42", "password-phrase"), (SETPW, "password-phrase"), ("two FAKE words here", "password-phrase"),
      (MAILCHIMP, "mailchimp-key"), (PKCS8_LINES, "private-key"), (TFVALUE, "terraform-output")])

manifest = {}
for name, (text, secrets) in files.items():
    (HERE / name).write_text(text, encoding="utf-8")
    for secret, _rule in secrets:
        assert secret in text, (name, secret[:40])
    manifest[name] = [{"secret": s, "rule": rule} for s, rule in secrets]
(HERE / "expected.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
