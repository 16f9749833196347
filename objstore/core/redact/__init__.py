"""Credential redaction: replace secrets with ``[REDACTED:<rule>]`` before anything reaches disk.

Every capture path (hooks, transcript imports, shell capture, ``mem remember``)
passes its text through :func:`redact`.  It runs inside an agent hook, so it is
built to be cheap on ordinary text and bounded on hostile text.  The package, by concern: ``rule`` (the
rule type and regex flags), ``checks`` (value checks: is a match a credential
or prose; ``tokenshape``: a token's entropy, a placeholder word glued into a random one), ``scanners`` (rule scans other than one ``finditer`` pass; ``pem``: PEM private keys),
``rules`` (``RULES``: the token formats; ``ruletable``: their table) and ``passwords``
(its password labels and phrases; ``pinlabels``: a PIN's label pieces; ``passphrases``: a value of several words
after a label, read whole; at their places, ``commandline``: passwords
on a command line, in SQL and in a .pgpass / .netrc, ``heredocs``: a here-document
fed to a secret store, and ``memcommand``: mem's own command lines; ``markdown``: labels in Markdown markup, fences, tables), ``prefilter``
(which rules a window runs), ``names`` (the name rule), ``engine`` (windows,
merging, rendering; cutting a text where no credential is split) and this
module (the public API):

* the **prefilter** is ``re``'s own literal-prefix scan: every pattern starts
  with a literal (``ghp_``, ``AKIA``, ``-----BEGIN ``, ``://``,
  ``authorization``, ``bearer``, ``secret`` ...) and its word-boundary
  look-behind is written *after* that literal (``ghp_(?<!Xghp_)``), so a rule
  whose prefix is absent costs one scan in C and nothing else.  The
  case-insensitive rules run over one lowercased copy of the window; the
  generic keyword rule tries a match only where ``str.find`` sees one of five
  anchor words (``pass pwd secret token key``);
* which rules run at all is decided by their **anchors** (``Rule.anchors``):
  a rule none of whose anchors occurs in the lowercased window is skipped.
  A process that has scanned 1 MiB finds every anchor in one pass with the
  optional ``ahocorasick_rs`` matcher (``memvcs[fast]``); without it, one
  ``str.__contains__`` per gate (:func:`_gates`).  Both find exactly the
  anchors that occur, so the output is the same (docs/benchmarks.md,
  "Session 7 (branch ``redact7``)");
* every pattern is **linear**: its quantifiers are bounded (and possessive
  where a token ends), no quantified group can match the same text two ways,
  and the look-behind means a token can only start where a run of token
  characters starts, so ``re`` never re-reads a run from every offset
  (a format taken glued, ``tok(glued=True)``, starts at each occurrence of
  its literal prefix: still one bounded try each);
* a text holding an invisible (zero-width space, soft hyphen, word joiner)
  or fullwidth/mathematical character next to a token character is also
  scanned **as it reads** (:func:`objstore.core.text.ascii_reading`), and
  each hit there redacts the characters it reads from (``ghp\u200b_…``,
  ``ＡＫＩＡ…``; red17, test16b B5); an ASCII text costs nothing more, a
  non-ASCII one a few ``str.find`` and an NFKC quick check.  So is one with a
  Unicode space before a label's sign or a fullwidth ``：``/``＝`` after a
  Latin label (``mot de passe\u202f: X``, ``Password：X``; test28 Y11), and
  one holding JSON string escapes, with them decoded
  (:func:`objstore.core.jsonspan.json_reading`: a tool call's input is
  stored as JSON text, ``cd /srv\\nmysql -pX``; a hit takes whole escapes,
  so the JSON stays valid; test28 Y5).

Rules: the table of every rule (``RULES``), what it matches and the format its ``source``
field names, is the docstring of :mod:`.ruletable` and :mod:`.keywordtable` (moved there whole, red26: this module's docstring
neared the 40,960-byte module limit).

The promise, in short: a vendor token is redacted by its format wherever it
is; a value after an explicit password label (``Password: X``,
``passwd=X``, ``pwd: X``, ``DB_PASS=X``, ``Password - X``, ``secret: X``,
``secret - X``, or any of them with X alone on the next line, or first on
it with prose after, or after ``password`` alone on its line) or stored under
a key named for a credential is redacted whatever its shape (after a label, 4
characters are enough when X has letters with digits or symbols and ends its
line: ``Password: Zq7mm``; 6 for letters alone) (all lower case, no digit:
``correcthorsebattery``, ``hunter``; a placeholder word inside:
``Example#2024``, ``dummy-Pa55``, ``hunter2EXAMPLE``) unless it reads as code
or prose, or the WHOLE value is a placeholder (``checks.is_placeholder``:
``changeme``, ``example``, ``xxxx``, ``***``, ``<password>``, ``${VAR}``,
``$VAR``, ``%VAR%``, ``your_password_here``; red10); in
free prose (``the password for the staging box is X``) only a token that
looks like a password is (a digit, a symbol or an inner capital), so
``the password is stored in the vault`` and ``the password is
correcthorsebattery`` are both left as typed.  A value of several words after
a password, passphrase or secret label goes whole when a quote or a backtick
closes it, whatever its words or case; unquoted, when a settings file's key
starting its line, a connection string's field, a ``.pgpass`` line or a
Markdown label holds it and no word of it is prose (red27, :mod:`.passphrases`); after an explicit label
(``Password:``, German ``Passwort:``/``Kennwort:``, French ``mot de passe :``), 3-6 words to the line's or
sentence's end in any case (red28: ``Password: Correct Horse Battery Staple``) with no word of prose.

When matches overlap they are merged into one ``[REDACTED:<rule>]`` named after
the most specific rule (vendor formats before ``jwt``, ``url-password``,
``bearer-token``/``basic-auth`` and ``generic-secret``).

The bound.  ``max_scan_chars`` (default 256 Ki, at least 4 Ki) caps what one
regex pass reads: longer text is scanned in windows of ``max_scan_chars``
characters that overlap by ``min(16 Ki, max_scan_chars / 4)``, so every
character is scanned, no secret shorter than the overlap is cut in two, and
nothing is dropped (redacting the unscanned rest would destroy data; leaving
it unscanned would leak).  A window costs a bounded amount even on
pathological input, and the total cost is linear in ``len(text)``; callers
that want a hard cap on the time per entry cap the entry's size, this module
never truncates.  Measured on the 2-core dev box (CPython 3.11,
tests/core/test_redact.py -s): a 2 KB prompt p50 ~0.05-0.08 ms; 10 MB of
mixed text ~0.6-0.9 s in one call; the worst of ~30 pathological 256 KB lines
(``a``, ``=``, ``eyJAAA...``, ``x:x:...``, base64, ``password=password=...``,
``private_key":"...``) ~30-75 ms, most under 10 ms.  After the redact6 rules
(CPU time, the box shared at a load of 12-20; docs/benchmarks.md "Redaction:
the redact6 rules"): 10 MB mixed 1.1-1.4 s before, 1.7-1.9 s after; the
shared transcripts (9 MB, 2,124 lines) 0.33-0.36 s before, 0.56 s after; a
2 KB prompt 86-114 us before, 119-136 us after; the worst pathological line
per rule <= 190 ms (most new rules under 110 ms).  Most of the added cost is
the anchor test (``g in low``, ~0.65 ns a character for each distinct
anchor, whatever its length): each new anchor adds ~2% on transcripts.

Guarantees: :func:`redact` never raises on a ``str`` (lone surrogates
included), and is idempotent: ``redact(redact(t).text).text ==
redact(t).text``.  Replacing a secret changes its neighbours (``[`` and
``]``), so after a pass that redacted something the output is scanned again
(at most ``_MAX_PASSES`` passes in all; ordinary text takes one).
"""

from __future__ import annotations

from objstore.core.redact import prefilter  # noqa: F401  (redact.prefilter: the bench and tests read it)
from objstore.core.redact.checks import PIN_CODE_OWNERS, hardware_pin
from objstore.core.redact.engine import (CUT_LOOKAHEAD, CUT_SEEK, DEFAULT_MAX_SCAN_CHARS, Hit, RedactResult, cut_point,
                                         redact, redact_cut, redact_value, remove_credentials)
from objstore.core.redact.names import (NAMED_RULE, PATH_NOT_SHOWN, check_name, name_hits, path_holds_credential,
                                        redact_named, shown_path, transcript_path_refused)
from objstore.core.redact.prefilter import expect_bulk
from objstore.core.redact.rule import Rule
from objstore.core.redact.rules import RULES
from objstore.core.redact.keywords import credential_name

__all__ = [
    "CUT_LOOKAHEAD", "CUT_SEEK", "DEFAULT_MAX_SCAN_CHARS", "NAMED_RULE", "PATH_NOT_SHOWN", "PIN_CODE_OWNERS", "RULES",
    "Hit", "RedactResult", "Rule", "check_name", "credential_name", "cut_point", "expect_bulk", "hardware_pin",
    "name_hits", "path_holds_credential", "redact", "redact_cut", "redact_named", "redact_value", "remove_credentials",
    "shown_path", "transcript_path_refused",
]
