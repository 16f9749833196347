"""Instructions of ``redact`` on a 2 KB prompt, for callgrind (red39): run once with N=0 and once with N=40 under
``valgrind --tool=callgrind`` and divide the difference of the two ``I refs`` totals by 40 (start-up, imports and the
first call cancel out).  ``p``: bench_redact.py's 2 KB prompt (Random(7)); ``m``: a 2 KB text dense with what the
red39 rules are tried at (``@`` of e-mails and ``git@host:``, ``user``, ``login``, ``wifi``).

    PYTHONHASHSEED=0 PYTHONPATH=TREE valgrind --tool=callgrind python bench/redact_prompt_instr.py N p|m
"""

import random
import sys

from objstore.core.redact import redact
_WORDS = ["def", "return", "token", "password", "the", "config", "value", "user", "export", "curl", "-H",
          "Authorization:", "import", "os", "path", "secret", "key", "=", "(", ")", "http://example.com/a"]
rnd = random.Random(7)
prompt = " ".join(rnd.choice(_WORDS) for _ in range(400))[:2000]
mail = ("please ask bob@example.com or git@github.com:org/repo.git about user login and wifi; " * 30)[:2000]
n = int(sys.argv[1]); which = sys.argv[2]
t = prompt if which == "p" else mail
redact(t)
for _ in range(n):
    redact(t)
