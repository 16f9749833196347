"""Instructions of ``redact`` on a 2 KB prompt, for callgrind (red39): run once with N=0 and once with N=40 under
``valgrind --tool=callgrind`` and divide the difference of the two ``I refs`` totals by 40 (start-up, imports and the
first call cancel out).  ``p``: bench_redact.py's 2 KB prompt (Random(7)); ``m``: a 2 KB text dense with what the
red39 rules are tried at (``@`` of e-mails and ``git@host:``, ``user``, ``login``, ``wifi``); ``c`` (pin40): a 2 KB
Chinese/Japanese/Korean text dense with password and PIN words and digits (no credential in it); ``h`` (pin41): a
2 KB English text dense with a board's pins and 'pin' words ('GPIO PIN=4471 drives the relay', 'pin -> 5').

    PYTHONHASHSEED=0 PYTHONPATH=TREE valgrind --tool=callgrind python bench/redact_prompt_instr.py N p|m|c|h
"""

import random
import sys

from objstore.core.redact import redact
_WORDS = ["def", "return", "token", "password", "the", "config", "value", "user", "export", "curl", "-H",
          "Authorization:", "import", "os", "path", "secret", "key", "=", "(", ")", "http://example.com/a"]
rnd = random.Random(7)
prompt = " ".join(rnd.choice(_WORDS) for _ in range(400))[:2000]
mail = ("please ask bob@example.com or git@github.com:org/repo.git about user login and wifi; " * 30)[:2000]
cjk = ("\u5bc6\u7801\u957f\u5ea6\u662f8\u4f4d\uff0cPIN\u7801\u957f\u5ea6\u662f4\u4f4d\uff0c\u5bc6\u7801\u662f2024\u5e74\u6539\u7684\u3002"
       "\u30d1\u30b9\u30ef\u30fc\u30c9\u306f8\u6587\u5b57\u4ee5\u4e0a\u3067\u3059\u3002\ube44\ubc00\ubc88\ud638\ub294 \uc9e7\ub2e4. "
       "pin 13 of the header, port 4471. " * 40)[:2000]
board = ("GPIO PIN=4471 drives the relay; set pin 13 high, pin -> 5, the LED pin is GPIO17, "
         "PIN:2048 on the FPGA header, pinning deps to 1.2.3. " * 20)[:2000]
n = int(sys.argv[1]); which = sys.argv[2]
t = {"p": prompt, "m": mail, "c": cjk, "h": board}[which]
redact(t)
for _ in range(n):
    redact(t)
