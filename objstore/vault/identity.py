"""The vault of a store: its two files, the age identity they hold and the
passphrase that opens it (``docs/vault.md``; split from
``objstore.vault.sealed``, which seals and reads values with it)::

    <store>/vault/recipient      the public age recipient (``age1…`` or
                                 ``age1pq1…``) and a newline
    <store>/vault/identity.age   the matching identity, as an age-keygen style
                                 identity file encrypted with age's scrypt
                                 recipient to the vault passphrase

The age implementation (``objstore.vault.age``, hence ``cryptography``) is
imported only by the functions that need it, never when this module is
imported, so checking whether a store has a vault costs nothing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from objstore.core.atomic import atomic_write
from objstore.core.storeperms import denied
from objstore.core.errors import CorruptObject, IntegrityError, InvalidInput, MemError, NotFound, Refused, \
    WrongPassphrase
from objstore.core.store import Store

VAULT_DIR = "vault"
RECIPIENT_FILE = "recipient"
IDENTITY_FILE = "identity.age"
#: at the store root (session 42, test41 T20): what ties the vault's two files together without the passphrase
PAIR_FILE = "vault-pair"
_PAIR_HEAD = "mem-vault-pair 1"
#: shortest vault passphrase accepted, in characters
MIN_PASSPHRASE_CHARS = 12
#: log2 of scrypt's N for the vault passphrase: age's default (2^18: about a
#: second and 256 MiB here).  Lower values are for tests only.
DEFAULT_WORK_FACTOR = 18


@dataclass(frozen=True, slots=True)
class VaultInfo:
    """A store's vault.

    Attributes:
        recipient: the public ``age1…`` / ``age1pq1…`` string.
        postquantum: True for the ML-KEM-768 + X25519 hybrid type.
        recipient_path, identity_path: the two files of the vault.
    """

    recipient: str
    postquantum: bool
    recipient_path: Path
    identity_path: Path


def vault_paths(store: Store) -> tuple[Path, Path]:
    """``(recipient file, identity file)`` of the store's vault."""
    d = store.root / VAULT_DIR
    return d / RECIPIENT_FILE, d / IDENTITY_FILE


def has_vault(store: Store) -> bool:
    """True when the store has a vault (its recipient file exists)."""
    return vault_paths(store)[0].is_file()


def vault_problem(store: Store) -> str | None:
    """What ``mem fsck`` says when a key is sealed and the vault's
    recipient or identity file is missing (fresh35: the folder deleted or
    left behind by a copy, and fsck said "ok"): no sealed value can be
    read, nor a new one sealed to the same key.  None when no key is sealed
    or both files are there.  Reads only the refs and the two names."""
    sealed = sum(1 for _n, _h in store.refs.iter("sealed", damaged=[], folders=[]))
    if not sealed:
        return None
    missing = [p for p in vault_paths(store) if not p.is_file()]
    if not missing:
        return None
    gone = [p for p in missing if not (p.exists() or p.is_symlink())]   # (test41 T20: a folder read "is missing")
    said = [f"{VAULT_DIR}/{p.name} {'is missing' if p in gone else 'is not a regular file'}" for p in missing]
    what = f"the vault folder {VAULT_DIR}/ is missing" if not (store.root / VAULT_DIR).is_dir() else " and ".join(said)
    return (f"{what} while {sealed} key{'s are' if sealed != 1 else ' is'} sealed: no sealed value can be read "
            f"and none sealed to the same key; put the folder back from where it was copied or "
            f"backed up ({VAULT_DIR}/{RECIPIENT_FILE} and {VAULT_DIR}/{IDENTITY_FILE}, with its passphrase): a "
            "new vault ('mem vault init') cannot read them")


#: what to do about a damaged vault file (fresh39 F6: the hint sent to 'mem fsck', which saw nothing)
DAMAGED_VAULT_HINT = ("put back your copy of the vault folder (vault/recipient and vault/identity.age, from where "
                      "it was copied or backed up); 'mem fsck --repair' cannot mend it, and 'mem vault init' "
                      "would make a vault that reads none of the sealed values")


def vault_damage(store: Store) -> str | None:
    """What ``mem fsck`` and ``mem doctor`` say when the store has a vault
    whose ``recipient`` is not an age recipient, or whose ``identity.age``
    is not shaped as a passphrase-encrypted age file (its header and scrypt
    stanza, checked without the passphrase: ``age.check_passphrase_file``;
    fresh39 F6).  None when there is no vault or both files are sound (a
    missing file is :func:`vault_problem`'s).  Reads the two files."""
    from objstore.vault import age  # deferred: imports cryptography
    rpath, ipath = vault_paths(store)
    bad = []
    if rpath.is_file() and not denied(rpath):   # unreadable: core.storeperms names it (fresh41 F7)
        try:
            text = rpath.read_text("ascii").strip()
            age.check_recipient(text)
        except (OSError, UnicodeDecodeError, age.AgeError):
            bad.append(f"{VAULT_DIR}/{RECIPIENT_FILE} holds no age recipient")
    if ipath.is_file() and rpath.exists() and not denied(ipath):
        try:
            age.check_passphrase_file(ipath.read_bytes())
        except OSError as e:
            bad.append(f"{VAULT_DIR}/{IDENTITY_FILE} cannot be read ({e.strerror})")
        except age.AgeError as e:
            bad.append(f"{VAULT_DIR}/{IDENTITY_FILE} is not a passphrase-encrypted age file ({e})")
    if not bad:
        return pair_problem(store)
    return (f"{'; '.join(bad)}: a damaged vault file; sealed values cannot be read with it, and new secrets "
            f"are sealed to a key that may no longer open; {DAMAGED_VAULT_HINT}")


def _pair_line(recipient: str, identity_file: bytes) -> str:
    return (f"{hashlib.sha256(recipient.encode('ascii')).hexdigest()} "
            f"{hashlib.sha256(identity_file).hexdigest()}")


def record_pair(store: Store) -> None:
    """Write :data:`PAIR_FILE` (docs/format.md, "Vault pair"): the SHA-256
    of the vault's recipient and of its ``identity.age`` bytes, what
    :func:`pair_problem` compares with.  Called where the two are known to
    belong together: ``vault init``, an identity the passphrase opened that
    matches the recipient, a store sealing with no record yet.  Caller
    holds the store lock.  Raises OSError."""
    rpath, ipath = vault_paths(store)
    line = _pair_line(rpath.read_text("ascii").strip(), ipath.read_bytes())
    atomic_write(store.root / PAIR_FILE, f"{_PAIR_HEAD}\n{line}\n".encode("ascii"))


def _recorded_pair(store: Store) -> tuple[str, str] | None:
    """``(recipient digest, identity digest)`` of :data:`PAIR_FILE` (hex),
    or None (absent: a vault made before session 42; unreadable)."""
    try:
        head, line, *_rest = (store.root / PAIR_FILE).read_text("ascii").split("\n")
        r, i = line.split(" ")
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return (r, i) if head == _PAIR_HEAD else None


def _pair_mismatch(store: Store) -> str | None:
    """What of the vault differs from :data:`PAIR_FILE`'s record
    (``vault/recipient``, ``vault/identity.age`` or the folder), or None:
    no record, a file that does not read (what :func:`vault_problem` and
    :func:`vault_damage` name), or the same pair."""
    rec = _recorded_pair(store)
    if rec is None:
        return None
    rpath, ipath = vault_paths(store)
    try:
        now = tuple(_pair_line(rpath.read_text("ascii").strip(), ipath.read_bytes()).split(" "))
    except (OSError, UnicodeError):
        return None
    if now == rec:
        return None
    return f"{VAULT_DIR}/{RECIPIENT_FILE}" if now[1] == rec[1] else f"{VAULT_DIR}/{IDENTITY_FILE}" \
        if now[0] == rec[0] else f"the vault folder {VAULT_DIR}/"


#: what to do when the vault is not the recorded pair (:func:`pair_problem`, :func:`sealing_recipient`)
PAIR_HINT = ("put back your copy of the vault folder (the recipient that goes with vault/identity.age is what "
             "'age-keygen -y' prints for its identity); if this vault is the store's own, 'mem sealed "
             "rebuild-rules' (it asks for the vault passphrase) checks that it opens every sealed value and "
             "records it")


def _pair_said(which: str) -> str:
    recorded = f"({PAIR_FILE} records the recipient and identity that were made together)"
    if which == f"{VAULT_DIR}/{IDENTITY_FILE}":   # the recipient is the store's: a new value is sealed to its key
        return (f"{which} is not the identity file {PAIR_FILE} recorded with this store's recipient {recorded}: "
                "it may open none of the sealed values")
    return f"{which} is not this store's {recorded}"


def pair_problem(store: Store) -> str | None:
    """Why the vault's two files are not the pair :data:`PAIR_FILE`
    recorded (test41 T20: another vault's valid ``vault/recipient`` from a
    synced folder, and new secrets were sealed to a key this store cannot
    open), or None (no record, no vault, the same pair).  What ``mem fsck``
    and ``mem doctor`` name (through :func:`vault_damage`).  No
    passphrase: the SHA-256 of the two files."""
    which = _pair_mismatch(store)
    if which is None:
        return None
    if which == f"{VAULT_DIR}/{IDENTITY_FILE}":
        return f"{_pair_said(which)}; {PAIR_HINT}"
    return (f"{_pair_said(which)}: a value sealed now would be sealed to a key this store's identity cannot open "
            f"(sealing is refused until then); {PAIR_HINT}")


def unproven_pair_note(store: Store) -> str | None:
    """``mem fsck``'s warning (``mem doctor``'s) when the store has a vault
    and sealed values but no :data:`PAIR_FILE` (a vault from before session
    42, or the file lost): a swapped ``vault/recipient`` cannot be told
    without the passphrase, and ``mem seal`` refuses until the pair is
    proven (fresh43 F15).  None otherwise.  Reads the refs and two names."""
    if _recorded_pair(store) is not None or not has_vault(store):
        return None
    sealed = sum(1 for _n, _h in store.refs.iter("sealed", damaged=[], folders=[]))
    if not sealed:
        return None
    return (f"{PAIR_FILE} is missing while {sealed} key{'s are' if sealed != 1 else ' is'} sealed: "
            f"{VAULT_DIR}/{RECIPIENT_FILE} cannot be told to be this store's without the passphrase, and "
            f"'mem seal' refuses until it is; {UNPROVEN_HINT}")


#: ``mem seal`` of a store whose pair is not recorded while values are sealed (fresh43 F15)
UNPROVEN_HINT = ("'mem sealed rebuild-rules' (it asks for the vault passphrase) checks that vault/identity.age "
                 "matches vault/recipient and opens every sealed value, and records the pair; then seal again")


def sealing_recipient(store: Store, *, removes_plain: bool = False) -> str:
    """The vault recipient a new sealed value is encrypted to, once it is
    the recipient :data:`PAIR_FILE` recorded (no record yet and no value
    sealed: the pair as it is, recorded now).  No record while values are
    sealed (a vault from before session 42, or the file lost; fresh43 F15:
    a swapped recipient went unseen): the recipient cannot be checked
    without the passphrase, so nothing is recorded and IntegrityError:
    nothing is sealed (``removes_plain``, ``mem seal``: no plaintext is
    removed; a new secret, test44 T6: none is sealed to a key that may be
    another's) until the pair is proven (:data:`UNPROVEN_HINT`).  An ``identity.age`` other than the recorded one
    does not stop a seal (the value is sealed to the store's own key; the
    caller warns: :func:`vault_damage`).  Caller holds the store lock.
    Raises NotFound (no vault), CorruptObject (a damaged recipient file),
    IntegrityError (exit 13: another recipient; nothing is sealed)."""
    from objstore.vault import age  # deferred: imports cryptography
    info = vault_info(store)
    try:
        age.check_recipient(info.recipient)
    except age.AgeError as e:   # (said as encrypting to it says it: test40 T11)
        raise CorruptObject(f"vault/recipient is damaged: {e}", hint=DAMAGED_VAULT_HINT) from None
    which = _pair_mismatch(store)
    if which is not None and which != f"{VAULT_DIR}/{IDENTITY_FILE}":
        raise IntegrityError(f"{_pair_said(which)}: nothing was sealed, as the value would be sealed to a key "
                             "this store's identity cannot open", hint=PAIR_HINT)
    if _recorded_pair(store) is None:
        if any(True for _ in store.refs.iter("sealed", damaged=[], folders=[])):
            # a new secret too: sealed to a swapped recipient, its owner could read it and the person not
            # (test44 T6; fresh43 F15 was mem seal's plaintext)
            raise IntegrityError(f"{PAIR_FILE} is missing while values are sealed, so {VAULT_DIR}/"
                                 f"{RECIPIENT_FILE} cannot be told to be this store's without the passphrase: "
                                 f"nothing was sealed{' and no plain version removed' if removes_plain else ''}",
                                 hint=UNPROVEN_HINT)
        try:
            record_pair(store)
        except OSError:
            pass   # (the seal goes on as before session 42; the next one records it)
    return info.recipient


def check_passphrase(passphrase: str, what: str = "vault") -> str:
    """Refuse a passphrase shorter than :data:`MIN_PASSPHRASE_CHARS`
    characters or not valid Unicode (InvalidInput); return it unchanged.
    ``what`` names it in the message: ``vault``, or ``guard`` for the
    forget guard of ``mem export`` (test41 T32: called "the vault
    passphrase" in a store that may have no vault).

    The passphrase is used as its UTF-8 bytes, exactly as typed (no
    normalization), so the stock ``age`` tool accepts the same text."""
    if not isinstance(passphrase, str):
        raise InvalidInput("the passphrase must be text")
    try:
        passphrase.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("the passphrase is not valid UTF-8 text") from None
    if len(passphrase) < MIN_PASSPHRASE_CHARS:
        raise InvalidInput(f"the {what} passphrase must have at least {MIN_PASSPHRASE_CHARS} characters "
                           f"(this one has {len(passphrase)})",
                           hint="a few random words make a long passphrase that is easy to type")
    return passphrase


def init_vault(store: Store, passphrase: str, *, pq: bool = False,
               work_factor: int = DEFAULT_WORK_FACTOR) -> VaultInfo:
    """Create the store's vault: a new age identity (X25519, or with ``pq``
    the ML-KEM-768 + X25519 hybrid), its recipient in the clear and the
    identity file encrypted to ``passphrase`` with age's scrypt recipient.

    Args:
        passphrase: at least :data:`MIN_PASSPHRASE_CHARS` characters.
        pq: the post-quantum hybrid type (age 1.3's ``mlkem768x25519``).
        work_factor: log2 of scrypt's N; age's default 18.  Lower only in tests.
    Returns:
        :class:`VaultInfo`.
    Raises:
        InvalidInput: short passphrase, bad work factor.
        Refused: the store already has a vault (a new one would make every
            sealed value unreadable), or has sealed keys and no vault (its
            folder lost: a new one would read none of them).
        MemError: ``pq`` where the installed ``cryptography`` has no ML-KEM-768.

    Order: the identity file is written (durably) before the recipient file,
    so a recipient never exists without its identity; a crash in between
    leaves no vault, and a new ``init`` overwrites the orphan identity file.
    """
    from objstore.vault import age  # deferred: imports cryptography
    check_passphrase(passphrase)
    if not isinstance(work_factor, int) or not 1 <= work_factor <= age.MAX_WORK_FACTOR:
        raise InvalidInput(f"the scrypt work factor must be 1..{age.MAX_WORK_FACTOR}")
    rpath, ipath = vault_paths(store)
    with store.lock("vault init"):
        if rpath.exists():
            raise Refused(f"this store already has a vault ({rpath.parent})",
                          hint="a new vault would make every sealed value unreadable; keep the one you have")
        sealed = sum(1 for _ in store.refs.iter("sealed"))
        if sealed:   # its vault folder is gone: a new one would hide that (test36b T6)
            raise Refused(f"{sealed} key(s) are sealed to a vault this store no longer has ({rpath.parent} is "
                          "missing): a new vault cannot read them",
                          hint="restore the vault folder from a backup; to give those values up instead, "
                               "'mem forget' each key 'mem sealed list' names, then 'mem vault init'")
        if pq:
            if not age.hybrid_supported():
                raise MemError("the post-quantum vault (ML-KEM-768 + X25519) needs a cryptography release "
                               "with ML-KEM-768, which this installation lacks",
                               hint="upgrade the cryptography package, or create a classic vault without --pq")
            identity, recipient = age.generate_hybrid()
        else:
            identity, recipient = age.generate_x25519()
        ident_file = age.format_identity_file(identity).encode("ascii")
        atomic_write(ipath, age.encrypt(ident_file, passphrase=passphrase.encode("utf-8"),
                                        work_factor=work_factor))
        atomic_write(rpath, recipient.encode("ascii") + b"\n")
        record_pair(store)
    return VaultInfo(recipient, recipient.startswith("age1pq1"), rpath, ipath)


def vault_info(store: Store) -> VaultInfo:
    """The store's vault.  Raises NotFound (no vault), CorruptObject."""
    rpath, ipath = vault_paths(store)
    try:
        text = rpath.read_text("ascii").strip()
    except FileNotFoundError:
        if any(True for _ in store.refs.iter("sealed", damaged=[], folders=[])):   # its folder lost (fresh40 F19)
            raise NotFound("this store has no vault, but keys are sealed to one ('mem sealed list')",
                           hint=f"restore {rpath.parent} from a backup or a copy of this store: a new 'mem vault "
                                "init' makes a new key, which cannot open them") from None
        raise NotFound("this store has no vault", hint="create one with: mem vault init") from None
    except PermissionError:   # not damage: exit 1, never "put back your copy" (fresh41 F7)
        raise
    except (OSError, UnicodeDecodeError) as e:
        raise CorruptObject(f"{rpath} cannot be read: {e}", hint=DAMAGED_VAULT_HINT) from None
    if not text.startswith("age1") or not text.isalnum():
        raise CorruptObject(f"{rpath} does not hold an age recipient", hint=DAMAGED_VAULT_HINT)
    if not ipath.is_file():
        raise CorruptObject(f"{ipath} {'is not a regular file' if ipath.exists() else 'is missing'}: the vault's "
                            "sealed values cannot be read",
                            hint="restore it from a backup")
    return VaultInfo(text, text.startswith("age1pq1"), rpath, ipath)


def open_identity(store: Store, passphrase: str) -> list[str]:
    """Decrypt the vault identity with ``passphrase`` (scrypt: about a
    second at the default work factor).  Returns the identity strings.

    Raises:
        NotFound: no vault.
        WrongPassphrase: the passphrase does not open the identity file.
        CorruptObject: the identity file is damaged or does not match the
            vault's recipient.
    """
    from objstore.vault import age  # deferred: imports cryptography
    info = vault_info(store)
    try:
        data = info.identity_path.read_bytes()
    except PermissionError:   # not damage (fresh41 F7)
        raise
    except OSError as e:
        raise CorruptObject(f"{info.identity_path} cannot be read: {e.strerror}", hint=DAMAGED_VAULT_HINT) from None
    try:
        pw = passphrase.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("the passphrase is not valid UTF-8 text") from None
    try:
        text = age.decrypt(data, passphrase=pw)
    except age.NoIdentityMatched:   # a changed byte in the scrypt stanza's body reads the same (fresh40 F19)
        raise WrongPassphrase(f"wrong vault passphrase, or {info.identity_path.parent.name}/"
                              f"{info.identity_path.name} is damaged (the two cannot be told apart here)",
                              hint="nothing was read or changed; if the passphrase is right, put back your copy "
                                   "of the vault folder ('mem fsck' checks the file's structure)") from None
    except age.AgeError as e:
        raise CorruptObject(f"{info.identity_path} is not a passphrase-encrypted age identity file: {e}",
                            hint=DAMAGED_VAULT_HINT) from None
    try:
        identities = age.parse_identity_file(text)
    except age.AgeError as e:
        raise CorruptObject(f"{info.identity_path} holds no usable identity: {e}", hint=DAMAGED_VAULT_HINT) from None
    if info.recipient not in {age.recipient_of(i) for i in identities}:
        raise CorruptObject(f"{info.identity_path} does not match the vault recipient in {info.recipient_path}",
                            hint=DAMAGED_VAULT_HINT)
    rec = _recorded_pair(store)
    if rec is None or rec[0] == hashlib.sha256(info.recipient.encode("ascii")).hexdigest():
        try:   # the two proved a pair (the same key re-encrypted, or a vault made before session 42): recorded
            record_pair(store)
        except OSError:
            pass
    return identities
