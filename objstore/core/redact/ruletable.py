"""The rule table of :mod:`objstore.core.redact`: every rule of ``RULES`` by name, what it matches and
the format its ``source`` field names, to ``sql-password``; the keyword-heuristic rows go on in :mod:`.keywordtable`
(documentation only: nothing imports this module; moved out of the
package's docstring whole, red26, as that neared the 40,960-byte module limit).  The promise, the
bound and the guarantees stay in the package's docstring.

========================  ==========================================================  ==========================================
rule                      what it matches                                             documented format
========================  ==========================================================  ==========================================
private-key               PEM ``-----BEGIN ... PRIVATE KEY-----`` blocks (RSA, EC,    RFC 7468; RFC 5915 (EC); OpenSSH
                          DSA, ENCRYPTED, OPENSSH, PGP ``PRIVATE KEY BLOCK``), also   PROTOCOL.key; RFC 4880 s6.2 (PGP armor)
                          blocks with no END line and tails with no BEGIN line,
                          raw or JSON-escaped (``\\n``)
                          red28 (test27 V26): an OpenSSH key's body without its
                          BEGIN line, base64 lines from ``b3BlbnNzaC1rZXktdjEAAAAA``
                          (``openssh-key-v1`` NUL), wrapped at 70/64/76 or one line
                          red37 (test36 T3): a PKCS#8 body without its BEGIN line     RFC 5208 s5; RFC 8410 s7
                          (RSA, P-256, Ed25519 DER heads in base64)
                          red38 (test37b T5): a PKCS#1 RSA or SEC1 EC body without    RFC 8017 A.1.2; RFC 5915 s3
                          its BEGIN line (``MIIEogIBAAKCAQEA``, ``MHcCAQEEI``)
private-key-base64        a PEM private key in base64 (``LS0tLS1CRUdJTi…``, decoded: RFC 4648 s4 of RFC 7468;
                          ``-----BEGIN … PRIVATE KEY-----``): a kubeconfig's          Kubernetes "Secrets" (data values are
                          ``client-key-data``, a Secret's ``tls.key``; one line or    base64), kubeconfig ``client-key-data``
                          wrapped at 76/64 (not a certificate; cred20)
putty-private-key         the ``Private-Lines: N`` base64 lines of a PuTTY key file   PuTTY manual appendix C, "PPK file
                          (``PuTTY-User-Key-File-2/-3``; the MAC is kept; cred20)     format"
k8s-secret                the value of a Secret entry named ``tls.key``, ``<name>     Kubernetes "Secrets", secret types
                          .key``, ``ssh-privatekey``, ``.dockerconfigjson``,          (kubernetes.io/tls, ssh-auth,
                          ``.dockercfg``: base64 (``data:``) or a random-looking      dockerconfigjson)
                          plain value (``stringData:``); cred20
docker-auth               the ``auth`` of a Docker ``config.json`` ``auths`` entry      Docker "docker login"; Kubernetes
                          (base64 of ``user:password``; also in a Secret's           "Pull an Image from a Private
                          ``.dockerconfigjson``; red21); red22: its ``identitytoken``  Registry"; docker/cli AuthConfig
                          and ``registrytoken``, in a text holding ``"auth``
terraform-variable        the ``default = "X"`` of ``variable "db_password" {…}``     Terraform "Input Variables"
                          (one line or several) whose name is a credential's by
                          ``credential_name``; ``*.tfvars`` ``db_password = "X"`` is
                          generic-secret's (cred20)
fish-variable             fish ``set [-x|-gx|-Ux…] API_KEY X`` (and bare ``set NAME   fish ``set`` (fishshell.com docs)
                          X``) under a credential's name by ``credential_name``, the
                          value judged as a named value's (cred20)
named-setting             a credential-named name/value pair's value (cfg21): k8s    Kubernetes "Define Environment
                          env ``- name: DB_PASSWORD`` LF ``value: X``, ECS            Variables for a Container"; Amazon
                          ``{"name": …, "value": X}``, .NET ``<add key="ApiKey"       ECS KeyValuePair; .NET appSettings
                          value="X"/>``, ``Key:``/``Value:``; PHP ``define('DB_PASS   ``<add>``; PHP define(); Maven
                          WORD', 'X')``; an XML element ``<password>X</password>``;   settings.xml ``<servers>``; YAML 1.2
                          a YAML block scalar ``password: |`` LF ``  X``; the name    s8.1 block scalars
                          by ``credential_name``, the value as a named value's
config-password           wpa_supplicant ``psk="X"`` (8-63 characters) or ``psk=``    wpa_supplicant.conf(5); redis.conf
                          + 64 hex, ``sae_password``; redis ``requirepass X`` /
                          ``masterauth X`` at a line's start or after ``CONFIG SET``
                          (cfg21), or redis-server's ``--requirepass X`` (red26)
call-password             a password literal as a call's second positional argument:  Python smtplib SMTP.login, imaplib,
                          ``smtp.login("me@gmail.com", "X")``, imaplib/ftplib         ftplib; requests authentication,
                          ``.login(u, "X")``, requests ``auth=("u", "X")``,           aiohttp BasicAuth
                          ``HTTPBasicAuth("u", "X")``, aiohttp ``BasicAuth``; not a
                          variable, ``"%s"``, ``"password"`` or a placeholder (red26)
gcp-service-account       the PEM value of a ``"private_key"`` JSON field            Google Cloud IAM, service account key file
aws-access-key-id         ``AKIA``/``ASIA``/``ABIA``/``ACCA`` + 16 [A-Z0-9], also      AWS IAM "unique identifiers" (ID prefixes)
                          glued to a word on either side (``xAKIA…``, ``AKIA…x``)
aws-secret-access-key     40-char base64 value after ``aws_secret_access_key``,       AWS CLI config files / access keys docs
                          ``SecretAccessKey``, ``secret_key`` (= : => or blank);
                          unlabelled: a mixed-case 40-char base64 token within
                          256 chars of an access key id
gcp-api-key               ``AIza`` + 35 [A-Za-z0-9_-]                                 Google Cloud "Manage API keys"
github-token              ``ghp_ gho_ ghu_ ghs_ ghr_`` + 36..251 [A-Za-z0-9], also    GitHub "authentication token formats"
                          glued to the word before (``xghp_…``; the formats
                          taken glued: the red17 note in ``rules``)
github-fine-grained-pat   ``github_pat_`` + 22..255 [A-Za-z0-9_]                      GitHub fine-grained PAT (22 + _ + 59)
gitlab-token              ``glpat- gldt- glrt- glptt- glft- gloas- glcbt- glagent-    GitLab "Token overview: token prefixes"
                          glimt- glsoat- glffct-`` + 20.. [A-Za-z0-9_-] (routable
                          ``.<ver>.<crc>`` suffix included)
slack-token               ``xox[abcdeoprs]-...``, ``xapp-...``                        Slack "Token types"
slack-webhook             path after ``hooks.slack.com/services|workflows|triggers/`` Slack "Sending messages using incoming
                                                                                      webhooks"
stripe-key                ``sk_live_ rk_live_ sk_test_ rk_test_`` + 10..247 alnum;    Stripe "API keys"; "Webhook signatures"
                          ``whsec_`` + base64
npm-token                 ``npm_`` + 36 [A-Za-z0-9]                                    npm/GitHub "npm's new access token format"
figma-token               ``figd_`` + 36..64 [A-Za-z0-9_-] (red27c, test27 V26)        Figma "Access tokens"
postman-key               ``PMAK-`` + 24 hex + ``-`` + 34 hex                          Postman API authentication; gitleaks
sentry-token              ``sntrys_`` (org) / ``sntryu_`` (user) + 40.. base64         Sentry "Auth Tokens"; gitleaks
grafana-token             ``glsa_`` service account, ``glc_`` Cloud token + 32..       Grafana service accounts; gitleaks
newrelic-key              ``NRAK- NRJS- NRII-`` + 19..40 [A-Za-z0-9_-]                 New Relic "API keys"; gitleaks
netlify-token             ``nfp_ nfc_ nfo_`` + 36..64 [A-Za-z0-9]                      Netlify API authentication
terraform-cloud-token     14 alnum + ``.atlasv1.`` + 60..70 [A-Za-z0-9_=-]             HCP Terraform "API tokens"; gitleaks
flyio-token               ``fo1_`` + 43; ``fm1a_ fm1r_ fm2_`` + 100.. base64           Fly.io "Access tokens"; gitleaks
render-key                ``rnd_`` + 32..48 [A-Za-z0-9]                                Render "API keys"
jfrog-key                 ``AKCp`` + 69 [A-Za-z0-9]                                    JFrog API key; gitleaks jfrog-api-key
                          reference token ``cmVmdGtu`` + 56 [A-Za-z0-9] (red28)       JFrog "Understanding Identity Tokens"
mem-key                   ``memk_`` + 43 [A-Za-z0-9_-]                                 mem's own MCP keys (docs/mcp.md)
age-secret-key            ``AGE-SECRET-KEY-1`` + 58 Bech32 upper case; plugin         age v1 spec (X25519 identities); C2SP
                          identities ``AGE-PLUGIN-<NAME>-1`` + Bech32 (mem's sync     age-plugin "Identities"
                          key and vault identity are such keys)
pypi-token                ``pypi-AgEIcHlwaS5vcmc`` (pypi.org) / ``pypi-AgENdGVzdC5weX PyPI "API tokens" (a macaroon)
                          BpLm9yZw`` (test.pypi.org) + 30.. [A-Za-z0-9_-]
doppler-token             ``dp.pt. dp.ct. dp.st.[config.] dp.sa. dp.scim. dp.audit.`` Doppler "Token formats"
                          + 40..44 [A-Za-z0-9]
openai-key                ``sk-proj- sk-svcacct- sk-admin-`` + 20..; legacy ``sk-`` + OpenAI API reference "Authentication"
                          48 [A-Za-z0-9]                                              (project/service-account/admin keys)
huggingface-token         ``hf_`` + 34..40 [A-Za-z0-9], both cases, or one case       Hugging Face "User access tokens"
                          that reads as random (``hf_token_ok``)
sendgrid-key              ``SG.`` + 22 [A-Za-z0-9_-] + ``.`` + 43 [A-Za-z0-9_-]        Twilio SendGrid "API Keys"
digitalocean-token        ``dop_v1_ doo_v1_ dor_v1_`` + 64 hex                          DigitalOcean token prefixes
shopify-token             ``shpat_ shpca_ shppa_ shpss_`` + 32 hex                     Shopify "Access tokens"
discord-webhook           the token of ``discord[app].com/api/[vN/]webhooks/<id>/``    Discord "Webhook Resource" (Execute
                                                                                      Webhook)
azure-storage-key         the base64 key after ``AccountKey=``, ``SharedAccessKey=``,  Azure Storage "Configure a connection
                          ``AZURE_STORAGE_KEY=``, ``--account-key``                   string"; az storage ``--account-key``
azure-sas-token           the ``sig=`` of a SAS URL or token (``?``/``&``/``;sig=``;    Azure Storage "Create a service SAS"
                          30+ URL-encoded base64 characters)
vault-token               ``hvs. hvb. hvr.`` + 24.. [A-Za-z0-9_-] (both letter        HashiCorp Vault "Tokens: token prefixes";
                          cases); the legacy ``s. b. r.`` + 24 base62 only after      ``vault login`` command
                          ``vault login [opts]``, ``VAULT_TOKEN``, ``X-Vault-Token``
databricks-token          ``dapi`` + 32 hex                                           Databricks "Personal access token
                                                                                      authentication"
telegram-bot-token        the ``AA`` + 32..33 [A-Za-z0-9_-] after ``<8+ digit id>:``  Telegram Bot API "Authorizing your bot"
                          (the bot id is kept)
linear-api-key            ``lin_api_ lin_oauth_`` + 40..64 [A-Za-z0-9]                Linear "API and Webhooks"
atlassian-api-token       ``ATATT3`` + 60..400 [A-Za-z0-9_=-]                         Atlassian "Manage API tokens"
discord-bot-token         base64url(user id) ``.`` 6 ``.`` 27..38 (three parts; the   Discord "Reference: Authentication"
                          first decodes to a 17-20 digit snowflake) in a window       (bot tokens)
                          naming ``discord``, or after ``Authorization: Bot``
mailgun-key               ``key-`` + 32 hex                                           Mailgun "API keys"
mailchimp-key             32 hex + ``-us`` + the data center's number (red37)         Mailchimp Marketing API "Quick start"
terraform-output          the ``"value"`` after ``"sensitive": true`` (and            Terraform CLI "output" command (-json)
                          ``"type"``) of ``terraform output -json`` (red37)
anthropic-key             ``sk-ant-`` + 20.. [A-Za-z0-9_-] (api03, admin01, oat01)    Anthropic API "Authentication"/x-api-key
openrouter-key            ``sk-or-v1-`` + 64 hex (test25 T3)                          OpenRouter "API Keys"
xai-key                   ``xai-`` + 60..100 [A-Za-z0-9] (80 documented)               xAI API "Quickstart"
groq-key                  ``gsk_`` + 52 [A-Za-z0-9]                                    Groq "API keys"
docker-hub-token          ``dckr_pat_ dckr_oat_`` + 27 [A-Za-z0-9_-]                  Docker Hub "Personal access tokens"
pulumi-token              ``pul-`` + 40 hex                                           Pulumi "Access tokens"
google-oauth-secret       ``GOCSPX-`` + 24..40 [A-Za-z0-9_-] (test25 T12)              Google "OAuth 2.0" (client secret)
google-oauth-token        ``ya29.`` + 30.. [A-Za-z0-9_-]                               Google "OAuth 2.0" (access token)
google-oauth-refresh-token ``1//0`` + 40.. [A-Za-z0-9_-], both letter cases and a    Google "OAuth 2.0" (refresh token)
                          digit; JSON-escaped (a backslash before each /) too (test26 V1)
django-secret-key         ``django-insecure-`` + 32..64 of Django's key alphabet       Django "SECRET_KEY" (startproject,
                          (50 generated; test25b U3)                                 get_random_secret_key)
jwt                       ``eyJ...`` ``.eyJ...`` ``.sig`` (base64url)                  RFC 7519 s3 / RFC 7515 s7.1 compact form
bearer-token              the credential after ``Authorization: Bearer|Token``, and  RFC 6750 s2.1 (b64token)
                          a random-looking (>= 20 chars) value after a bare
                          ``Bearer``
http-cookie               the value of a ``Cookie:`` / ``Set-Cookie:`` header (the    RFC 6265 s4.2, s8.4 (a session
                          first cookie's name kept; cli21, named bearer-token until   cookie is a bearer credential)
                          red22)
basic-auth                the credential after ``Authorization: Basic``               RFC 7617 s2
                          red27b (test27 V9): also after a bare ``Basic``
                          (``AUTH=Basic X``, ``auth: Basic X``) or as a
                          ``BASIC_AUTH=X`` value, when X is base64 of
                          ``user:password`` (``basic_credentials_ok``)
url-password              the password in ``scheme://user:password@host``             RFC 3986 s3.2.1 (userinfo)
                          (user and host are kept)
                          red39 (test39 T2): also with no scheme (``admin:X@db.internal
                          :5432``, ``root:X@10.0.0.5``; not an e-mail after a label,
                          ``npm:pkg@1.2.3``), and a password typed with ``#`` or ``?``
mysql-password            the password attached to ``-p`` on a ``mysql``/``mysqldump``/  MySQL "Command Options for Connection
                          ``mariadb``... command line (``-pS3cret``; not ``-p``        Establishment" (``-p[password]``)
                          alone, ``-P 3306``, ``mkdir -p``)
                          cli21: quoted with blanks, ``-p'my pw'`` (raw or JSON-escaped)
password-phrase           the token after ``password|passwd|passphrase is|was`` in    (no vendor format: keyword heuristics,
                          plain words when it looks like a password (>= 6 chars,       see ``phrase_secret``)
                          a digit, symbol or inner capital: ``my password is
                          hunterUniq2024``), also with what it opens in between
                          (``the password for the staging box is X``, ``... box:
                          X``: a preposition and 1-5 words), and a 4-12 digit
                          ``pin is 4821`` (also ``passcode is 7741#a``, red23:
                          ``pincode: 4471``; mend24: ``pin_code = 4471``; mend25:
                          ``"pincode": "4471"``, raw or JSON-escaped; red34:
                          ``CARD_PIN=4711``, a card's, not ``led_pin = 17``);
                          ``the password is stored in vault`` is left; also
                          ``the secret|token|api key is X`` (v4r23: ``the rails
                          master key is X``, ``Application key [base64:X]``), a
                          quoted value after
                          ``password|passphrase|secret is``, and ``password X``
                          with no verb when X cannot be prose (``UpstreamPw777``);
                          ``my pw is X``; the password of a ``user / password`` pair
                          after a credential word (``login admin / Pw!2024x``,
                          ``creds: admin / Pw!2024x``; not ``cp a / b``, ``1 / 2``,
                          ``the user / group split``), also with no blanks when the
                          password has letters and digits and no ``.`` or ``/``
                          (``login admin/Pw!2024x``; not ``login users/groups.py``);
                          a trailing ``!`` goes with the password in every form
                          (``admin / P@ssw0rd!``, ``the password is P@ssw0rd!``,
                          as ``password: P@ssw0rd!``; ``is wrong!`` stays); a
                          dash label ``Password - X`` (also ``passwd``,
                          ``passwort``, ``passphrase``, ``pwd``, ``secret``, and X
                          alone on the next line: ``Password -`` LF ``X``; X
                          shaped like a password and not a whole placeholder,
                          or a short value that ends its line: see below);
                          ``the vpn|wifi|admin|root... pass is X``; German ``das
                          Passwort ist|lautet X`` (a trailing ``!`` kept with X;
                          red28: Spanish ``la contrase\u00f1a es X``, French ``le mot
                          de passe est X``);
                          ``db pw X`` (no verb; X cannot be prose); ``sign in as
                          admin with X``; ``the password is <4+ words>`` unquoted
                          (no prose word); ``the wifi passphrase Tiger99xx`` (no
                          verb, as ``password hunter2x9``); ``passphrase: <3+
                          words>`` to the end of the line (not ``passphrase: not set``)
                          red27b (test27 V6): ``Password: <3-6 lower-case words>``
                          (also ``WiFi password =``, ``Password -``, the words on
                          the next line) to its line's or sentence's end, no word
                          of prose (``passphrase_words_ok``; ``Password: see the
                          vault`` stays); red28 (test27b X1): words in Title Case
                          or capitals, letters beyond ASCII, after ``Passwort``,
                          ``Kennwort``, ``mot de passe`` (German, French prose stays);
                          red34: ``Admin pw:``; UI words in under half its words
                          (``open sesame pretty please``)
                          red39 (test39 T2; typedpairs.py): ``passphrase for root:
                          X``; ``wifi: Tulip / X``, ``SSID Tulip / X``; a user, then
                          a bare ``pass``/``secret``/``pw`` (``user app, secret X``,
                          ``db user app / pass X``; not ``pass the salt``)
                          pin40 (test39b B9): a PIN's 4-12 digits after ``PIN=``,
                          ``PIN:``, ``PIN\uff1a``, ``\u94f6\u884c\u5361PIN\u662f``, ``PIN\u7801\u662f``, ending at
                          kana or Han (``PIN\u306f4471\u3067\u3059``); typed digit by digit (``door
                          code is 4 4 7 1``); in any script's digits (``PIN:
                          \u0664\u0664\u0667\u0661``); ``passphrase for root = X``, ``root:X`` (not
                          ``token of to id=X``); ``wifi: Tulip, X`` (not ``wifi Tulip
                          / X``: it could be hardware)
mem-command               mem's own command lines (test17 T10: shell capture, an      docs/cli.md (``remember``, ``forget``,
                          agent's Bash call): the VALUE of ``mem remember KEY VALUE   ``scan``, ``sealed import``,
                          --sensitivity secret`` or of a KEY named for a              ``--passphrase-file``); bash(1)
                          credential, the TEXT of ``mem forget --match TEXT`` and     Pipelines, Here Documents, Here
                          ``mem scan TEXT``; what feeds ``remember KEY -``,           Strings, Process Substitution
                          ``sealed import KEY -`` and ``--passphrase-file -``
                          (``echo``/``printf`` before it in the pipeline, a
                          here-string, a here-document, ``<(echo X)``), and the
                          ``echo X > f`` before ``--passphrase-file f`` or ``<
                          f``; mem run as ``$M``/``"$MEM"``/``${MEM_BIN}``, a
                          path, ``memvcs`` or ``python -m cmds``, through ``xargs``,
                          a subshell, group or substitution; every other
                          occurrence of a value on its line (red20:
                          ``memcommand``)
pgpass-password           the password field of a ``host:port:db:user:password``      PostgreSQL libpq "The Password File"
                          line near ``.pgpass`` (``cat ~/.pgpass``, ``echo … >>
                          ~/.pgpass``); red21: or alone on its line anywhere, in
                          a strict shape (five fields, port digits or ``*``, host
                          ``*``, a name with a letter or an IPv4 address)
                          mend24: a port other than 5432 (any 4-5 digits, gated
                          by 5432-5439, 6432, 6543, 25060)
                          red27: alone on its line, a password of words joined by
                          blanks (``h:5432:app:bob:my pg pass here``)
netrc-password            the password of ``machine H [account A] login U password   GNU inetutils "The .netrc file";
                          P`` (blanks or line breaks between the tokens); red21:     curl "netrc" (quoted strings:
                          ``default`` entries, ``password`` before ``login``, a      curl 7.84.0)
                          quoted ``"pass word"``
age-input                 what age(1) encrypts from standard input on the same        age(1)
                          command line (``echo X | age -r R``, ``age -p <<< X``,
                          ``echo X > f && age -r R f``; not ``age -d``): the value
                          a person seals for ``mem sealed import`` (test18 U1)
cli-password              a password given to a command on its command line:          the tools' own manuals (sshpass(1),
                          ``sshpass -p``, ``docker|podman|az|oc|cf... login -p``,      curl(1), redis-cli, openssl-passphrase-
                          ``curl -u user:pw``, ``redis-cli -a``, ``openssl -k`` /     options(1), htpasswd(1), sudo(8),
                          ``-pass pass:``, ``htpasswd -b``, ``echo pw | sudo -S``,    mongosh, rabbitmqctl(8), Windows net
                          ``--password pw`` (``--passphrase``, ``--http-password``    user/use, bash here-strings, chpasswd(8),
                          ...); ``mongo|mongosh|mongodump... -p|--password``;         sqlcmd, ldapsearch(1), zip(1), 7-Zip,
                          ``rabbitmqctl add_user|change_password u pw``; ``net user   keytool, mosquitto_pub(1), PuTTY,
                          u pw /add``, ``net use \\\\s\\x pw``; a here-string to a  FreeRDP, rdesktop(1), mysqladmin,
                          password prompt (``sudo -S ... <<< pw``, ``passwd <<<``,    smbclient(1))
                          ``chpasswd <<< 'u:pw'``, ``--password-stdin <<<``) and
                          ``echo u:pw | chpasswd``; ``sqlcmd -P``, ``ldapsearch -w``,
                          ``zip -P``, ``7z -ppw``, ``keytool -storepass`` (every
                          password option of ``keytool`` / ``jarsigner``: ``-keypass``,
                          ``-src|-dest…pass``, ``-new``; not ``-storepass:env|:file``),
                          ``mosquitto_pub -P``, ``plink -pw``, ``xfreerdp /p:``,
                          ``rdesktop -p``, ``mysqladmin password``, ``smbclient -U
                          u%pw``; not ``$VAR``, ``env:``/``file:``
                          sources, ``--password-stdin`` or placeholder words
                          cli21: every secret of a secret store's or password         (cli21) ssh-keygen(1), macOS security(1),
                          tool's command line: ``ssh-keygen -P|-N``, ``security       gh secret set, AWS CLI ssm/secretsmanager,
                          add-generic-password -w``, ``gh secret set -b|--body``,     az keyvault, openssl-passwd(1), gcloud
                          ``aws ssm put-parameter --value``, ``aws secretsmanager     secrets, bash read
                          ... --secret-string``, ``az keyvault secret set --value``
                          (whatever the secret's name), ``openssl passwd pw``, a
                          here-string to ``gcloud secrets``, ``gh secret set``,
                          ``docker secret create``, ``openssl passwd -stdin``,
                          ``read -s``; curl ``-b name=value``
                          v4r23 (V4): a here-string to ``vercel env add``,            (v4r23) Vercel CLI env, Rails
                          ``wrangler secret put``, ``doppler secrets set``,           custom credentials
                          ``firebase functions:secrets:set``; ``echo X >
                          config/master.key``
                          red27: a here-string to ``keyring set``, ``secret-tool      (red27) keyring, libsecret
                          store`` (``keyring set app bob <<< "a b c"``)
                          redb22 (X8): a value piped by ``echo|printf [%s]`` into     (redb22) gh secret set, wrangler,
                          a store reading standard input: ``gh secret set``,          vercel env add, docker secret create,
                          ``[npx] wrangler secret put``, ``vercel env add``,          security(1), pass(1), firebase,
                          ``docker secret create``, ``security add-generic-           gcloud secrets, doppler
                          password``, ``pass insert``, ``firebase functions:
                          secrets:set``, ``gcloud secrets``, ``doppler secrets set``
                          red23 (Y4): also ``kubectl create secret``, ``vault kv      (red23) kubectl, vault kv put,
                          put``, ``aws secretsmanager``, ``secret-tool store``,       secret-tool, keyring, htpasswd(1),
                          ``keyring set``, ``htpasswd -i``, ``openssl passwd``,       ansible-vault; bash(1) Here
                          ``ansible-vault encrypt_string``; and a here-document fed   Documents
                          to any of these stores (``gh secret set N <<EOF``,
                          ``cat <<EOF | gh secret set N``: its lines; heredocs.py)
                          red26: a quoted value of several words read whole to its
                          closing quote (``sshpass -p "correct horse battery"``,
                          ``curl -u "bob:X Y"``, ``<<< "X Y"``; the quote raw or
                          JSON-escaped), and ``echo|printf "X Y" |`` into ``sudo
                          -S``, ``passwd``, ``--password-stdin`` or a secret store
sql-password              the string literal of ``IDENTIFIED [WITH plugin] BY        MySQL CREATE USER / SET PASSWORD;
                          'pw'``, ``[WITH] [ENCRYPTED] PASSWORD 'pw'``, ``SET          PostgreSQL CREATE ROLE; Oracle
                          PASSWORD [FOR u] = 'pw'``; Oracle's unquoted ``IDENTIFIED   CREATE USER
                          BY Pw2024x`` (not ``identified by email``, ``$1``, hashes)
========================  ==========================================================  ==========================================
"""
