"""``mem sealed import``: an age file made elsewhere (``age -r <vault recipient>``) stored as a new sealed
version of a key (split from :mod:`objstore.vault.sealed` for the module size limit; pin39: through
:func:`~objstore.vault.sealed.remember_sealed`, one write path for a sealed value)."""

from __future__ import annotations

from collections.abc import Callable

from dataclasses import replace

from objstore.core.errors import InvalidInput
from objstore.core.refs import validate_key
from objstore.core.store import Store
from objstore.memory.facts import file_value
from objstore.vault.identity import vault_info
from objstore.vault.sealed import SealedWrite, remember_sealed


#: a stanza type a client adds as noise, no one's recipient (rage's ``…-grease`` stanzas)
_GREASE = "-grease"


def import_sealed(store: Store, key: str, data: bytes, identities: Callable[[], list[str]], *,
                  kind: str | None = None, trust: str = "user_stated", valid_from: int | None = None,
                  owner: str = "user") -> SealedWrite:
    """Store the value of an age file made elsewhere (e.g. ``age -r <vault
    recipient>``) as a new sealed version of ``key``.

    ``data`` is a binary or ASCII-armored age v1 file; armor is removed and
    the header parsed.  It must carry a stanza of the vault's key type
    (``X25519``, or ``mlkem768x25519`` for a post-quantum vault) and no
    scrypt stanza (a passphrase-encrypted file is not for the vault).
    Then ``identities()`` (the vault identity: ``identity.open_identity``,
    which asks for the passphrase) opens it: a file made for another
    recipient is refused here, not when it is read (fresh37 F7).  The value
    is decrypted in memory only, read as a file's value is
    (``facts.file_value``: CRLF as LF, less one final line end, as ``mem
    remember KEY -`` reads it), and written by :func:`~.sealed.remember_sealed`,
    the one path of ``mem remember --sensitivity secret``: the same checks
    (``facts.check_text``: not empty, UTF-8, at most ``MAX_BODY_CHARS``
    characters), re-encrypted to the vault's recipient alone, its seal
    rules written and the turns already quoting it rewritten (test37b T13).
    pin39 (fresh38 F8): so a file also encrypted to other recipients is
    not kept readable by them in the store; their count is
    :attr:`~.sealed.SealedWrite.other_recipients`, for the caller to warn
    that they can read ``data`` itself.

    Raises InvalidInput (not an age file, wrong recipient type, not
    encrypted to this vault's key, damaged, a value ``check_text``
    refuses), NotFound (no vault), Refused (the key is plain, ``trust`` is
    lower than the current sealed value's ``user_stated``, or a forgotten
    value written below ``user_stated``), WrongPassphrase (from
    ``identities``), StoreLocked.
    """
    from objstore.vault import age  # deferred: imports cryptography
    key = validate_key(key)
    data = bytes(data)
    try:
        if not data.startswith(b"age-encryption.org/"):
            data = age.armor_decode(data)
        stanzas = age.parse_header(data)[0]
    except age.AgeError as e:
        raise InvalidInput(f"not an age v1 file: {e}") from None
    types = {s.args[0] for s in stanzas}
    info = vault_info(store)
    want = "mlkem768x25519" if info.postquantum else "X25519"
    if "scrypt" in types:
        raise InvalidInput("this age file is encrypted to a passphrase, not to the vault's recipient",
                           hint=f"encrypt it with: age -r {info.recipient}")
    if want not in types:
        raise InvalidInput(f"this age file has no {want} recipient stanza ({', '.join(sorted(types))}), "
                           "so the vault cannot open it", hint=f"encrypt it with: age -r {info.recipient}")
    try:
        raw = age.decrypt(data, identities())
    except age.NoIdentityMatched:
        raise InvalidInput("this age file is not encrypted to this vault's key (it was made for another "
                           "recipient): nothing was stored", hint=f"encrypt it with: age -r {info.recipient}") from None
    except age.AgeError as e:
        raise InvalidInput(f"damaged age file: {e} (nothing was stored)") from None
    try:
        body = file_value(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InvalidInput("the value in this age file is not UTF-8 text (nothing was stored)") from None
    del raw
    got = remember_sealed(store, key, body, kind=kind, trust=trust, valid_from=valid_from, owner=owner,
                          command="sealed import")
    others = sum(1 for s in stanzas if not s.args[0].endswith(_GREASE)) - 1
    return replace(got, other_recipients=others)
