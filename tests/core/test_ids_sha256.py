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
