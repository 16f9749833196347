"""What the remote commands share: the S3 settings from the environment, a
phase-aware progress line on a terminal, and the summary line."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

import click

from ._out import plural, refill_summary, size


def read_key_file(path: str) -> str:
    """The sync key (``AGE-SECRET-KEY-1…``) in the file at ``path``
    (``mem remote key import``, ``remote add --key``, ``clone --key``): read
    as bytes and checked by ``objstore.check_identity``, so a file that is
    not UTF-8 text, or holds no identity, is refused with InvalidInput (exit
    2) whose message names the file and never shows its bytes."""
    from objstore import InvalidInput, check_identity
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 20)
    except OSError as e:
        raise InvalidInput(f"{path}: cannot be read: {e.strerror}") from None
    try:
        return check_identity(data)
    except InvalidInput as e:
        raise InvalidInput(f"{path}: {e.message}", hint="give the file 'mem remote key export' wrote on the "
                                                       "other machine") from None


@contextmanager
def given_key(key_file: str | None):
    """Around a clone, restore or ``backup --list URL`` run with ``--key
    FILE``: a WrongKey (exit 12) raised inside names FILE, not "this
    store's" key, and its hint no longer says to do what the user just did
    (fresh39 F9).  Without ``key_file`` the error passes unchanged."""
    from objstore import WrongKey
    try:
        yield
    except WrongKey as e:
        if not key_file:
            raise
        raise WrongKey(e.message.replace("than this store's", f"than the one in {key_file}"),
                       hint="give the key file that 'mem remote key export -o FILE' wrote on the machine that "
                            "made the remote") from None


def s3_env() -> dict[str, str]:
    """The ``AWS_*`` settings of this process (passed to the library, which
    never reads the environment itself)."""
    from objstore import S3_SETTINGS
    return {k: os.environ[k] for k in S3_SETTINGS if os.environ.get(k)}


def progress():
    """``progress(phase, done, total)``: one self-rewriting line on stderr when
    it is a terminal, nothing otherwise (scripts, hooks)."""
    if not sys.stderr.isatty():
        return None
    names = {"receive": "receiving packs", "pack": "packing objects", "send": "sending bytes",
             "verify": "verifying remote packs", "done": "done"}

    def update(phase: str, done: int, total: int) -> None:
        if phase == "done":
            click.echo("\r\033[K", err=True, nl=False)
            return
        pct = f" {100 * done // total:3d}%" if total else ""
        click.echo(f"\r\033[K{names.get(phase, phase)}: {done}/{total}{pct}", err=True, nl=False)
    return update


def held_ids_note(store, res) -> str | None:
    """What a pull says of the sessions it brought whose id holds a
    ``forget --match`` text of this store (sid43's left-out: kept under
    that id, in the clear, without a word), or None.  A pull renames no
    session, as a forget renames none stored before it (docs/forget.md)."""
    got = {n.split("/", 1)[1] for n in res.refs_updated if n.startswith("sessions/")}
    if not got:
        return None
    from objstore import sessions_holding
    held = [s for s in sessions_holding(store) if s in got]
    if not held:
        return None
    return (f"note: {plural(len(held), 'session')} pulled whose id holds a text 'mem forget --match' forgot here: "
            "kept under that id, in the clear (a pull renames no session, as a forget renames none stored before "
            "it); 'mem forget --session ID' forgets one whole")


def summary(res, sends: bool = False) -> str:
    """One human line for a :class:`objstore.remote.sync.SyncResult`;
    ``sends``: the command was to send (push, backup), so a line with
    nothing sent says so ("sent no object: up to date")."""
    parts = []
    # (fresh40 F10: "sent 0 objects (3.1 KiB)" read oddly: those bytes are the manifest's, or packs already held;
    # fresh41 F28: not "sent no object" beside a repair's "N objects sent again"; test41 T16: a push that sent
    # nothing said only what it read)
    if res.objects_sent:
        parts.append(f"sent {plural(res.objects_sent, 'object')} ({size(res.bytes_sent)})")
    elif res.remote_packs_repaired:
        pass   # the repair's part below says what was sent again
    elif res.bytes_sent:
        parts.append(f"sent no object ({size(res.bytes_sent)}: the remote's manifest)")
    elif sends:
        parts.append("sent no object: the remote had everything")
    if res.objects_received:
        parts.append(f"received {plural(res.objects_received, 'object')} ({size(res.bytes_received)})")
    elif res.bytes_received:
        parts.append(f"received no new object ({size(res.bytes_received)} read)")
    if res.refs_updated:
        parts.append(f"{plural(len(res.refs_updated), 'ref')} updated")
    if res.merged:
        parts.append(f"{len(res.merged)} merged")
    if res.turns_refilled:
        parts.append(f"{plural(res.turns_refilled, 'lost turn')} put back in their places "
                     f"({refill_summary(res.gaps_refilled, res.gaps_verified)})")
    if res.versions_refilled:
        parts.append(f"{plural(res.versions_refilled, 'lost version')} put back in their places")
    if res.memory_files_merged:
        parts.append(f"{plural(res.memory_files_merged, 'memory file')} merged entry by entry")
    if res.queued:
        parts.append(f"{plural(len(res.queued), 'challenge')} queued (mem queue)")
    if res.forgotten:
        parts.append(f"{plural(res.forgotten, 'forgotten value')} purged")
    if res.forgotten_text:
        parts.append(f"{plural(res.forgotten_text, 'value')} holding a text 'forget --match' forgot, written "
                     f"where that forget had not arrived, forgotten as it would have been")
    if res.forgotten_quoted:
        parts.append(f"{plural(res.forgotten_quoted, 'value')} quoting a key's value forgotten elsewhere, written on "
                     f"top of it where that forget had not arrived, forgotten as it would have been")
    if res.match_unread:
        texts = plural(res.match_unread, "'forget --match' text")
        parts.append(f"{texts} forgotten elsewhere that this store cannot read (no digest travels over an "
                     f"unencrypted remote): what was written here before it arrived may still hold it, and every "
                     f"turn captured or value written here from now on that holds it is NOT guarded (stored in the "
                     f"clear) until you run the same 'mem forget --match TEXT' here (mem doctor and mem status "
                     f"remind you until then)")
    if res.back_after_forget:
        keys = ", ".join(res.back_after_forget[:3]) + (" …" if len(res.back_after_forget) > 3 else "")
        parts.append(f"{plural(len(res.back_after_forget), 'key')} forgotten here current again ({keys}) with a "
                     f"value written elsewhere before that forget arrived there, not the forgotten one: kept "
                     f"('mem forget KEY' removes it)")
    if res.sealed_here:
        parts.append(f"{plural(res.sealed_here, 'plain value')} written elsewhere to a key sealed here, sealed "
                     f"here and withdrawn from the other machines")
    if res.sealed_refused:
        parts.append(f"{plural(res.sealed_refused, 'plain value')} written elsewhere to a key sealed here refused "
                     f"and withdrawn (below user_stated, or a proposal for review: refused here too)")
    if res.digests_received:   # (fresh43 F8: a mended tombstone-digests went unsaid)
        parts.append(f"{plural(res.digests_received, 'tombstone digest')} this store lacked taken in "
                     "(tombstone-digests)")
    if res.tombstones_unguarded:   # (fresh42 F22: a clone lost the forget guard without a word)
        parts.append(f"warning: {plural(res.tombstones_unguarded, 'tombstone')} arrived without the digests that "
                     "let this store recognize their forgotten values (the remote's digests/ is missing or "
                     "damaged): an agent can write one back here; 'mem push' from a machine that made those "
                     "forgets puts them back, then 'mem pull'")
    if res.packs_replaced:   # (test43 T16)
        one = len(res.packs_replaced) == 1
        parts.append(f"{plural(len(res.packs_replaced), 'pack')} moved away ({res.packs_replaced[0]}.pack"
                     f"{'' if one else ', …'}): every object a key needs came back from the remote, so "
                     f"objects/info/packs no longer names {'it' if one else 'them'}")
    elif res.pack_dir_still:
        parts.append(f"warning: objects this store's keys need are still missing: {res.pack_dir_still}")
    if res.remote_packs_rewritten:
        parts.append(f"{plural(res.remote_packs_rewritten, 'remote pack')} rewritten")
    if res.remote_packs_adopted:
        parts.append(f"{plural(res.remote_packs_adopted, 'remote pack')} of an unfinished push adopted")
    if res.remote_packs_repaired:
        parts.append(f"{plural(len(res.remote_packs_repaired), 'damaged remote pack')} replaced "
                     f"({plural(res.remote_objects_resent, 'object')} sent again)")
    elif res.remote_packs_checked:
        parts.append(f"{plural(res.remote_packs_checked, 'remote pack')} verified")
    return ", ".join(parts) or "up to date"


