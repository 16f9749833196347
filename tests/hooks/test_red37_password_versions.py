"""red37 (test36b T17): "we set the db password to X" said again from a new prompt with a new password wrote no
new version (its redacted text reads the same as the first), yet the hook answered "Remembered as you asked".
Now the second change is ``db-password``'s next version; the same prompt written again (one source) is still one,
and so is a plain value said again.  Real stores, written through ``objstore.write_statement`` (the prompt hook's
writer) with each prompt's capture source (a hook process under a loaded box may defer a prompt to a late write
that by design keeps the newer value: test31 U11)."""

from __future__ import annotations

from objstore import scan_store, write_statement
from objstore.core.store import Store
from objstore.memory.facts import walk
from objstore.memory.opening import open_store

PASSWORDS = ("Kq7-Lm2x9aa", "Zr4-Pp8w1bb")


def _bodies(store: Store, key: str) -> list[str]:
    head = store.refs.read(f"facts/{key}")
    return [v.fact.body for v in walk(store, head)] if head else []


def test_a_second_password_change_is_the_next_version(tmp_path):
    with open_store(tmp_path / "store", create=True) as store:
        _changes(store)


def _changes(store: Store) -> None:
    for i, pw in enumerate(PASSWORDS):
        write_statement(store, f"remember that we set the db password to {pw}", source=f"cc:p:37aa:{i + 1}")
    write_statement(store, f"remember that we set the db password to {PASSWORDS[1]}", source="cc:p:37aa:2")  # again
    key = "user/remembered/db-password"
    bodies = _bodies(store, key)
    assert len(bodies) == 2 and all(b.startswith("we set the db password to [REDACTED:") for b in bodies), bodies
    assert scan_store(store.root, [b"we set the db password to [REDACTED:"])   # the scan reads what is stored
    assert scan_store(store.root, [pw.encode() for pw in PASSWORDS]) == []


def test_a_plain_value_said_again_is_not_a_new_version(tmp_path):
    with open_store(tmp_path / "store", create=True) as store:
        for i in (1, 2):
            write_statement(store, "remember that the db port is 6543", source=f"cc:p:37bb:{i}")
        assert _bodies(store, "user/remembered/db-port") == ["the db port is 6543"]
