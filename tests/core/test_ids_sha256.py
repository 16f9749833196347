"""``objstore.core.ids.sha256`` and ``blake2b``: hashlib's digests, without
loading OpenSSL in a process that has not loaded it (the prompt hook, a
recall: the index's id keys, a session's state file and message digests)."""

import hashlib
import subprocess
import sys

import pytest

from objstore.core.ids import blake2b, sha256


def test_the_digests_of_hashlib():
    for data in (b"", b"abc", "café ☕".encode(), bytes(range(256)) * 300):
        assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
        h = sha256()
        h.update(data)
        assert h.digest() == hashlib.sha256(data).digest()


def test_a_process_without_hashlib_does_not_load_it():
    code = ("import sys; from objstore.core.ids import sha256; "
            "from objstore.capture.claude_code import prompt_hash; import objstore.capture.sync, objstore.capture.live; "
            "import objstore.capture.statements; "
            "d = sha256(b'abc').hexdigest(); p = prompt_hash('hello  world'); "
            "print('hashlib' in sys.modules, d, p)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", hashlib.sha256(b"abc").hexdigest(), hashlib.sha256(b"hello world").hexdigest()[:24]]


def test_blake2b_gives_the_digests_of_hashlib():
    for data in (b"", b"abc", "café ☕".encode(), bytes(range(256)) * 300):
        for size in (1, 16, 32, 64):
            assert blake2b(data, digest_size=size).digest() == hashlib.blake2b(data, digest_size=size).digest()
        h = blake2b(digest_size=16)
        h.update(data)
        assert h.hexdigest() == hashlib.blake2b(data, digest_size=16).hexdigest()
    assert blake2b(b"x").digest() == hashlib.blake2b(b"x").digest()   # 64 bytes unless told
    for bad in (0, 65):
        with pytest.raises(ValueError):
            blake2b(b"x", digest_size=bad)


def test_the_readers_modules_do_not_load_hashlib():
    """The search index (an id's key), the recall and the prompt gate's
    modules, and a session's state path and message digest."""
    oid = "ab" * 32
    code = ("import sys; import objstore.index.searchindex, objstore.retrieval.recall, objstore.retrieval.inject; "
            "from objstore.index.schema import id_key; "
            "from objstore.memory.sessions import digest_text; "
            f"k = id_key('{oid}').hex(); m = digest_text('hello').hex(); "
            "print('hashlib' in sys.modules, '_hashlib' in sys.modules, k, m)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False", hashlib.blake2b(bytes.fromhex(oid), digest_size=16).hexdigest(),
                   hashlib.blake2b(b"hello", digest_size=16).hexdigest()]


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
