"""``objstore.core.ids.sha256``: hashlib's digests, without loading OpenSSL in
a process that has not loaded it (the prompt hook)."""

import hashlib
import subprocess
import sys

from objstore.core.ids import sha256


def test_the_digests_of_hashlib():
    for data in (b"", b"abc", "café ☕".encode(), bytes(range(256)) * 300):
        assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
        h = sha256()
        h.update(data)
        assert h.digest() == hashlib.sha256(data).digest()


def test_a_process_without_hashlib_does_not_load_it():
    code = ("import sys; from objstore.core.ids import sha256; "
            "from objstore.capture.claude_code import prompt_hash; import objstore.capture.sync; "
            "import objstore.capture.statements; "
            "d = sha256(b'abc').hexdigest(); p = prompt_hash('hello  world'); "
            "print('hashlib' in sys.modules, d, p)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", hashlib.sha256(b"abc").hexdigest(), hashlib.sha256(b"hello world").hexdigest()[:24]]


def test_the_builtin_module_is_looked_up_once():
    """A failed ``import _sha2`` (CPython 3.11 has ``_sha256``) searches every
    ``sys.path`` entry again: after the first call, no call imports anything."""
    code = ("import sys; from objstore.core.ids import sha256; sha256(b'x')\n"
            "class Spy:\n"
            "    asked = []\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        Spy.asked.append(name)\n"
            "sys.meta_path.insert(0, Spy())\n"
            "for i in range(50): sha256(b'abc%d' % i).hexdigest()\n"
            "print('hashlib' in sys.modules, len(Spy.asked))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "0"]
