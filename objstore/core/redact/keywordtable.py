"""The rule table of :mod:`objstore.core.redact`, continued from :mod:`.ruletable`: the keyword-heuristic rules
(no vendor format) from ``generic-secret`` on, in the same columns (documentation only: nothing imports this
module; split out of :mod:`.ruletable`, red37, as that neared the 40,960-byte module limit).

========================  ==========================================================  ==========================================
rule                      what it matches                                             documented format
========================  ==========================================================  ==========================================
generic-secret            the value of ``password|passwd|passwort|pwd|pw|passphrase|   (no vendor format: keyword heuristics,
                          token|api_key|access_key|auth_key|private_key|              see ``looks_secret``)
                          client_secret|secret_key_base|pass|*_pass|*_credential(s)`` ``= / : / =>`` assignments (a value of any
                          length: past 4,096 characters redacted whole when its first
                          128 read as a value after a label, cred20) when the value
                          looks random (see ``looks_secret``), or mixes letters
                          with digits or symbols (``password=hunter2``,
                          ``token=abc123def456``), or is a quoted literal after a
                          password keyword (``looks_assigned``; an unquoted
                          ``secret: X`` is held to a password's 6 characters:
                          ``secret: hunter2``); code such as
                          ``password = getpass()`` or ``token = tokens[i]`` is left;
                          ``api key``, ``secret key`` with a blank too (redb22:
                          also ``passcode``, ``encryption_key``, ``signing_key``;
                          fp22: not ``NAME_SECRET=words``, a Kubernetes Secret's
                          name reads the same; red23 (Y3): ``master_key``,
                          ``app_key``, ``pass_code`` too, and under a name holding
                          ``jwt`` or ``master`` (mend24: ``session_secret``,
                          ``cookie_secret``) a literal of 8+ letters quoted or
                          ending its line: ``JWT_SECRET="supersecretvalue"``; not
                          a placeholder, reference or dash-joined name; mend25:
                          under any keyword, 16+ letters alone in capitals or a
                          random case mix quoted or ending its line,
                          ``APP_SECRET=KjHgFdSaQwErTyUi``, not ``AppSecretName``);
                          test25b U3: the literal default of an env-var read
                          (``SECRET_KEY = os.getenv('K', 'v')``, the os mapping's ``.get``,
                          ``config('K', default='v')``, ``process.env.K || 'v'``
                          or ``?? 'v'``) and a literal after a ``: str``
                          annotation, random-looking or 8+ characters, not a
                          placeholder);
                          red26 (test25b U4): after a password or secret label, a
                          value of 2-6 lower-case words read whole: quoted
                          (``PASSWORD = "correct horse battery staple"``, a Google
                          app password ``'vbqk lmzt yhrw pxne'``, single quotes and
                          JSON too) or, 3+ words, unquoted to its line's end
                          (``APP_PASSWORD=vbqk lmzt yhrw pxne``); no word of prose,
                          a UI text, a placeholder or 'password' in another language
                          (``password: not set``, ``"mot de passe"``;
                          ``passphrase_words_ok``); 16+ lower-case letters that read
                          as random after any keyword
                          (``APP_SECRET=qwrtzpkdmfghjlxcvbnm``, ``random_letters``;
                          not ``API_TOKEN=placeholder``, ``SECRET=changeme``,
                          ``TOKEN=refreshaccesstoken``); letters alone mid-line
                          where a settings file or a command line puts a password:
                          ``--password=X URL``, ``PGPASSWORD=X psql``, a connection
                          string's ``Password=X;``, a properties key
                          ``spring.datasource.password=X``;
                          red27 (test26b W7): after a password, passphrase or
                          secret label (or ``PASS=``) a quoted value of several
                          words read to its closing quote (``"``, ``'``, a backtick)
                          whatever its words or case, up to 128 characters
                          (``password="Correct Horse Battery Staple"``, ``"open
                          sesame please"``), not a UI text naming a password,
                          a validation message, a prompt, a template or a
                          placeholder (``quoted_passphrase_ok``); a settings
                          file's unquoted value of 2-12 words of no prose after
                          a password key starting its line (YAML
                          ``  password: correct horse battery staple``,
                          ``MYSQL_ROOT_PASSWORD: Open Sesame 42``) or in a
                          connection string's field (``;Password=Str0ng Pass 1;``)
                          to the line's or field's end (``settings_words_end``);
                          after a
                          password label (``password|passwd|passwort|passphrase|
                          pwd|*_pass``, not an attribute ``self.password``) a value
                          of letters alone with nothing after it on its line
                          (``Password: correcthorsebattery``, ``passwd=qwerty``;
                          after such a label only a whole placeholder is kept,
                          ``Password: Example#2024`` is redacted;
                          not ``password: str``, ``password: hashedPassword``,
                          ``Password: incorrect``: ``labelled_password_ok``); when
                          the label ends its line, the value alone on the next
                          line by the same checks (``Password:`` LF ``  hunter2xyz``;
                          not ``password:`` LF ``  type: string``, a list item,
                          a label: ``_next_line_value``); one blank line between
                          read past, not two (``Password:`` LF LF ``hunter2-…``;
                          red21);
                          with prose after it on that line, its first token
                          when it has letters with digits or symbols
                          (``Password:`` LF ``PlumTree#77 is set for the db``:
                          the token, not the prose; not a word, a log stamp,
                          nor code: ``pw2 = x``; red13); a label alone on its
                          line (``password`` LF ``PlumTree#77``: a form read
                          out) the same, never a value of letters alone;
                          ``secret`` as such a label too, for the next line and
                          the short value; a key's or a token's label
                          (``api_key:``, ``API key:``, ``token:``) for the next
                          line, with a key's shape: random-looking, or 8+
                          characters with letters and digits or symbols, not a
                          log stamp (test18 U7); those labels in a sentence that
                          ends the line (``Your password is:``, ``Your API key
                          is:``) and a shell's line continuation after the
                          ``=`` (``API_KEY=\\`` LF value) the same (sec20).
                          The short value (scan12): 4 or 5
                          characters alone after a password or ``secret`` label,
                          nothing after it on its line, with letters and digits
                          or symbols (``Password: Zq7mm``, ``pwd=Zq7mm``,
                          ``secret - Kx9mm``, ``secret:`` LF ``ab12``); a value of
                          letters alone keeps the 6-character floor and the word
                          lists (``password: see below``, ``Password: hello``,
                          ``secret: none`` stay), digits alone stay
                          (``Password: 1234``), as do references and paths
                          (``short_labelled_ok``)
                          red33 (hashes.py): a password's hash after a name for       crypt(5); RFC 2307 ({SSHA})
                          it (``PASSWORD_HASH=$2b$...``, ``password_digest:``, an
                          MD5/SHA hex digest); not ``PASSWORD_HASH=bcrypt``
                          red34c (keysuffix.py): any ``…_KEY``/``-key``/``_AUTH``     Stripe "API keys" (pk_ is public)
                          (``HMAC_KEY``, ``REDIS_AUTH``) with a random value of 16+
                          hex/base64; not public, site or database keys, UUIDs
                          red35 (authpairs.py): ``BASIC_AUTH=user:PW``; ``ADMIN_KEY=``
markdown-secret           md21 (W1; markdown.py): a credential label in Markdown:     CommonMark 0.31.2 6.1, 6.2 (code spans,
                          emphasis or a code span around the label or its value       emphasis), 4.5 (fenced code blocks);
                          (``**Password:** X``, ``**DB password**: `X```), the        GFM 0.29 4.10 (tables); RFC 4180 (CSV);
                          value alone in a fenced block after the label               Wiktionary 'password' (translations)
                          (``Password:`` LF ```` ``` ```` LF ``X``), a Markdown or
                          CSV table column headed by a password, secret, key or
                          token word (``| user | password |``, ``user,password``),
                          an arrow for the verb (``Password \u2192 X``), the word in
                          German, French, Spanish (``Kennwort: X``, ``mot de passe
                          : X``, ``contrase\u00f1a: X``; red26b, test26 V2: also
                          Portuguese, Dutch, Russian, Polish, Czech, Swedish,
                          Norwegian, Danish, Finnish, Chinese, Japanese, Korean:
                          ``senha: X``, ``\u043f\u0430\u0440\u043e\u043b\u044c: X``, ``\u5bc6\u7801\uff1aX``,
                          ``\u6570\u636e\u5e93\u5bc6\u7801\u662f X``, ``\u30d1\u30b9\u30ef\u30fc\u30c9\u306f X``; letters of
                          those languages alone are prose), ``token`` alone on its line
                          and a random-looking value on the next; values judged as
                          after ``Password:`` (a key's, a token's: a key's shape)
                          (named generic-secret until red22)
                          redb22 (X9): headers ``Secret Key``, ``Password (prod)``;   WHATWG HTML 4.9 (tables); ISO 9564-1
                          ``pass`` (a value with digits or symbols) and ``PIN``       (PIN: 4-12 digits)
                          (4-12 digits) as a label or a column; an HTML table's
                          ``<th>password</th>`` column (its ``<td>`` values)
                          red23 (Y11): ``\\|`` inside a cell, org-mode                (red23) org-mode tables; Pandoc
                          (``|---+---|``) and grid (``+---+``) tables, ``<dl><dt>     grid tables and definition lists;
                          Password</dt><dd>X``, a definition ``password`` LF ``: X``  WHATWG HTML 4.4.9 (dl)
                          v4r23 (V4): org-mode ``- password :: X`` (the term          (v4r23) org-mode plain lists
                          opening its item), a two-cell row with no header
                          ``|password|X|``
                          mend24: ``<dt>PIN</dt><dd>X``; the row, the definition
                          and ``</dt>``-LF-``<dd>`` inside JSON-escaped text
                          red27 (test26b W7): after a password or secret word in
                          bold, a pair row or a column, a value of several words:
                          in a code span whatever its words (``**Password**:
                          `Winter 2025 pass```), bare lower-case words of no prose
                          (``**Password:** correct horse battery staple``); red28:
                          in Title Case too; after a word of another language,
                          ``=``, `` = ``, ``:=`` as ``:`` (``senha=X``, ``\u5bc6\u7801=X``)
                          red33: every row of a table (not the first 200); a
                          tab-separated paste and ``user | password`` LF ``root |
                          X`` (no outer pipes nor delimiter row) as a CSV file
                          pin40 (test39b B9): Japanese ``\u6697\u8a3c\u756a\u53f7`` (PIN); after a CJK
                          word a PIN's 4-12 digits of any script (``\u94f6\u884c\u5361\u5bc6\u7801\u662f4471``),
                          the value ending at the kana, Hangul or Han after it
                          (``\u30d1\u30b9\u30ef\u30fc\u30c9\u306fX\u3067\u3059``; not a counter: ``\u5bc6\u7801\u662f2024\u5e74``)
named-secret              not a text rule: :func:`redact_named` (``mem remember``,    (no vendor format: the key's own words)
                          imports, derived facts) replaces the whole value under a
                          key named for a credential (``.../staging-password``,
                          ``.../github-token``, ``.../api-key``) when it is one
                          token or a passphrase (``hunter2``, ``Example#2024``;
                          not ``stored in 1Password``, ``$DB_PASSWORD``,
                          ``changeme``: ``named_value_ok``)
                          red27b (test27 V11): also a key ending ``credentials``,
                          ``privkey``, ``psk``, ``otp(-seed)``, ``recovery-codes``,
                          ``cookie`` or a camel-case ``...Pass`` (``DbPass``)
second-factor             red32 (test31b V4; secondfactors.py): each code after a     GitHub 2FA recovery codes; RFC 6238
                          ``recovery|backup code(s)`` label (6+ characters, a         (TOTP); RFC 6749 s2.3.1
                          digit); ``otp|totp|2fa secret X``, ``client_secret X``      (client_secret)
seed-phrase               red32 (V4): 12-24 words after ``seed phrase``,              BIP-39
                          ``mnemonic``, ``recovery phrase`` (no word of prose);
                          red33b: ``wallet seed``
payment-card              red33b (test33 T15; cards.py): 13-19 digits passing       ISO/IEC 7812-1 (Luhn)
                          Luhn after ``card|visa|amex``; 3-4 digits after ``cvv``
========================  ==========================================================  ==========================================
"""
