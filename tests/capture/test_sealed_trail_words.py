"""trl23 (test22b Y7, Y8): reads and writes of a sealed value's trail that
were not followed (``git --git-dir``, ``GIT_DIR=``, ``| sponge F``, ``~u/F``,
a Python ``open(F, 'w')``), and command words spelt so that only the shell
reads them as ``mem sealed show`` (``m''em``, ``se''aled``, ``sh\\ow``,
``${X:-show}``, ``$(echo show)``, ``S=sealed; mem $S show``, ``set --`` then
``mem "$@"``; ``mem sealed $V``, which cannot be told, in doubt).  Real
transcript files through ``mem import``."""

from __future__ import annotations

import json

from objstore.capture.withhold import SECRET_OUTPUT, may_print_secret, prints_secret
from tests.capture.test_sealed_trail_spellings import KEPT, SHOW, _after, _import
from tests.capture.test_sealed_output_capture import VALUE


def test_git_dir_sponge_tilde_user_and_python_writes_are_followed(tmp_path):
    """Y7: each write then each read of what it wrote is withheld; another file is kept."""
    calls = (_after(f"{SHOW} > /tmp/g/pin.txt && git -C /tmp/g add -A && git -C /tmp/g commit -qm pin",
                    [("Bash", {"command": "git --git-dir=/tmp/g/.git show HEAD"}),
                     ("Bash", {"command": "GIT_DIR=/tmp/g/.git git show HEAD"}),
                     ("Bash", {"command": "git --git-dir /tmp/g/.git log -p -1"})],
                    [("Bash", {"command": "git --git-dir=/tmp/other/.git show HEAD"})])
             + _after(f"{SHOW} | sponge /tmp/s/pin.txt", [("Bash", {"command": "cat /tmp/s/pin.txt"})],
                      [("Bash", {"command": "cat /tmp/s/other.txt"})])
             + _after(f"{SHOW} > ~/pin.txt", [("Bash", {"command": "cat ~u/pin.txt"}),
                                              ("Bash", {"command": "cat ~root/pin.txt"})],
                      [("Bash", {"command": "cat ~u/other.txt"})])
             + _after(f"{SHOW} > ~ana/p2.txt", [("Read", {"file_path": "/home/ana/p2.txt"})], [])
             + _after("python3 -c \"import subprocess; open('/tmp/py/p','w').write(subprocess.check_output("
                      "['mem','sealed','show','user/bank/pin']).decode())\"",
                      [("Bash", {"command": "cat /tmp/py/p"})], [("Bash", {"command": "cat /tmp/py/q"})])
             + _after(f"{SHOW} | python3 -c 'import sys, pathlib; pathlib.Path(\"/tmp/pz/p\").write_text(sys.stdin.read())'",
                      [("Bash", {"command": "cat /tmp/pz/p"})], []))
    got = _import(tmp_path, calls)
    want = ([SECRET_OUTPUT] * 4 + [KEPT] + [SECRET_OUTPUT] * 2 + [KEPT] + [SECRET_OUTPUT] * 3 + [KEPT]
            + [SECRET_OUTPUT] * 2 + [SECRET_OUTPUT] * 2 + [KEPT] + [SECRET_OUTPUT] * 2)
    assert got == want, list(zip(calls, got))


SPELT = ["m''em sealed show user/bank/pin", "mem se''aled show user/bank/pin", "mem sealed sh\\ow user/bank/pin",
         "mem sealed ${X:-show} user/bank/pin", "mem sealed $(echo show) user/bank/pin",
         "S=sealed; mem $S show user/bank/pin", 'set -- sealed show user/bank/pin; mem "$@"',
         "mem sealed $V user/bank/pin", 'mem \\\nsea""led show user/bank/pin']


def test_command_words_as_the_shell_reads_them(tmp_path):
    """Y8: each spelling's result is withheld, and so is a read of the file it writes;
    look-alikes that are not a show are kept."""
    calls = [("Bash", {"command": c}, VALUE) for c in SPELT]
    calls += _after("mem se''aled sh\\ow user/bank/pin > /tmp/w/pin.txt", [("Bash", {"command": "cat /tmp/w/pin.txt"})], [])
    kept = ["mem sealed list", "S=list; mem sealed $S", "echo 'show me'", "mem get show", "grep -r '' src",
            "printf 'a\\nb'"]
    calls += [("Bash", {"command": c}, KEPT) for c in kept]
    got = _import(tmp_path, calls)
    assert got == [SECRET_OUTPUT] * (len(SPELT) + 2) + [KEPT] * len(kept), list(zip(calls, got))
    assert all(prints_secret(c) for c in SPELT[:-1])
    # the cheap test before a session tree's other files are read finds a split ``sealed`` too
    assert all(may_print_secret(json.dumps({"command": c}).encode()) for c in SPELT[:3])


def test_a_quoted_letter_and_a_wrapper_of_mem_are_read_as_the_shell_reads_them(tmp_path):
    """mend24 (left open by trl23): ``se'a'led`` (a quoted letter inside the word) and
    ``mem "$@"`` with no ``set --`` before it (a wrapper function whose words cannot be told
    statically, in a call that names ``sealed``: in doubt, read as a show) are withheld;
    a wrapper that runs no sealed command is kept."""
    spelt = ["mem se'a'led show user/bank/pin", "mem 'sealed' 's'how user/bank/pin",
             'f() { mem "$@"; }; f sealed show user/bank/pin']
    kept = ['f() { mem "$@"; }; f recall postgres', "git show 'HEAD'", "mem se'a'led list"]
    calls = [("Bash", {"command": c}, VALUE) for c in spelt] + [("Bash", {"command": c}, KEPT) for c in kept]
    got = _import(tmp_path, calls)
    assert got == [SECRET_OUTPUT] * len(spelt) + [KEPT] * len(kept), list(zip(calls, got))
