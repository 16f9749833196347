"""CPU of ``redact()`` on 256 KB lines that repeat one unit near a red26 shape (a password of
several words, a call's password argument, a settings assignment; red26b: a refresh token's prefix, a
password label in Chinese, Russian, Portuguese; red27: a passphrase in a code span, after a Markdown label, a
YAML key, in a connection string, a .pgpass line; red28: Title Case words after a label, German and French
labels, an OpenSSH key body, a JFrog reference token), for the tree on ``PYTHONPATH``:
the median of 3 calls a line, in ms.  The units are the worst cases of the red26 rules
(docs/benchmarks.md, "Session 26 (branch `red26`)"); the tests' pathological lines are
``bench_redact.py``'s.

    PYTHONPATH=<tree> python bench/redact_unit_lines.py     # for each tree, interleaved
"""

from __future__ import annotations

import statistics
import time

from objstore.core.redact.engine import redact   # the tree on PYTHONPATH (this script measures a base tree too)

N = 262_144
#: name: the unit repeated to N characters
UNITS = {
    "login": ".login(a, '", "login2": '.login("u", "x', "auth": "auth=(", "basicauth": 'basicauth(x, "',
    "password-sq-words": "password: 'a b ", "password-words": "password: ab cd ef gh",
    "password-dq-words": 'password="a b c d ', "password-sq": "password='", "env-prefix": "PGPASSWORD=plumtree ",
    "option": "--password=a", "properties": "a.b.password=x ", "sudo-echo": 'echo "a b" | sudo -S x; ',
    "sshpass": 'sshpass -p "a b ',
    # red26b (test26 V1, V2): the refresh token's prefix, and a password label in the new languages
    "refresh": "1//0", "refresh-body": "1//0aB3", "refresh-escaped": "1\\/\\/0aB3 ",
    "cjk-colon": "\u5bc6\u7801\uff1a", "cjk-value": "\u5bc6\u7801\uff1aAb1 ", "cjk-copula": "\u5bc6\u7801\u662f",
    "cyrillic": "\u043f\u0430\u0440\u043e\u043b\u044c: a1 ", "senha": "senha: a1 ",
    # red27 (test26b W7): a passphrase read whole in a code span, after PASS=, a Markdown label or table cell, a
    # YAML key starting its line, a connection string's field, a .pgpass line, a here-string into keyring
    "backtick-words": "password: `a b ", "pass-caps": 'PASS="a b ', "md-bold-words": "**password:** a b ",
    "md-pair-words": "| password | a b ", "yaml-lines": "\n  password: a b c", "conn-field": ";Password=a b ",
    "pgpass-words": "h:5432:d:u:a b ", "keyring-here": 'keyring set a b <<< "a b ',
    # red28 (test27b X1, test27 V26): words in Title Case after a label, the German and French labels, a word
    # beyond ASCII, one such passphrase a line; an OpenSSH key body's magic, its wrapped lines, a JFrog reference
    "title-words": "Password: Ab Cd Ef ", "title-lines": "Password: Ab Cd Ef\n", "kennwort": "Kennwort: ab cd ",
    "mot-de-passe": "mot de passe : ab cd ", "umlaut-words": "Passwort: \u00fcb cd ",
    "openssh-magic": "b3BlbnNzaC1rZXktdjEAAAAA ", "openssh-lines": "b3BlbnNzaC1rZXktdjEAAAAA" + "A" * 46 + "\n",
    "jfrog-ref": "cmVmdGtu ",
    # red28 (test28 Y1): '=' after a label in another language, the Spanish and French prose forms
    "senha-equals": "senha=a1 ", "senha-equals-lines": "senha=Zq7mm2x!\n", "contrasena-es": "contrase\u00f1a es a1 ",
    "mot-de-passe-est": "mot de passe est a1 ",
}


def main() -> None:
    for name, unit in UNITS.items():
        line = (unit * (N // len(unit) + 1))[:N]
        times = []
        for _ in range(3):
            t = time.process_time()
            redact(line)
            times.append(time.process_time() - t)
        print(f"{name:18s} {statistics.median(times) * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
