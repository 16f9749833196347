"""``derive.auto``: a daily derive run started by the session-start hook.

Off by default.  With ``derive.auto = true`` in ``[derive]`` of
``config.toml`` the session-start hook asks :func:`auto_status`; when it
says ``due`` the hook starts ``mem derive --auto`` as a detached process and
returns at once (it never waits for a model, never takes the store lock
for it, and any error is logged and ignored).  That process claims the day
(:func:`claim_auto`: under the store lock, a few milliseconds, the stamp
re-read and written) and then runs ``derive --apply``, holding no lock
while the model answers (``objstore.derive.run.run`` takes the lock only to
file).  Two sessions starting at once start at most one run.

A run is due when all hold:

* ``derive.auto`` is ``true``;
* ``mem derive --plan`` was shown for the destination the run would send to
  (:func:`mark_plan_shown` records the destination line, never an excerpt);
  changing the provider, model or URL asks for the plan again;
* the last automatic run started at least :data:`DUE_EVERY_MS` ago
  (``<store>/cache/derive-auto-stamp``: ms since the epoch);
* ``<store>/cache/derive-state.json`` is not damaged (else the status is
  ``state-damaged``: read as empty, the run would read every session again
  and overwrite it; ``mem doctor`` names it, ``mem doctor --fix`` sets it
  aside).

Each file is read through ``core.atomic.read_regular``: a FIFO or a
folder in its place is never waited on.
"""

from __future__ import annotations

import json

from objstore.core.atomic import atomic_write, read_regular
from objstore.core.errors import StoreLocked
from objstore.core.store import Store, now_ms
from objstore.derive.providers import Provider
from objstore.derive.run import state_damage

PLAN_SHOWN = "cache/derive-plan-shown.json"
AUTO_STAMP = "cache/derive-auto-stamp"
DUE_EVERY_MS = 24 * 3600 * 1000
_SMALL = 64 << 10   # the plan-shown record and the stamp: a few dozen bytes


def auto_enabled(cfg: dict) -> bool:
    """``derive.auto`` is true in the ``[derive]`` table ``cfg`` (spelt as
    ``mem config`` takes a boolean: ``objstore.core.settings.as_bool``)."""
    from objstore.core.settings import as_bool  # defer: the session-start hook asks this at every start
    return as_bool(cfg.get("auto")) is True


def mark_plan_shown(store: Store, provider: Provider, *, now: int | None = None) -> None:
    """Record that ``mem derive --plan`` was shown for ``provider``'s
    destination (time and the destination line only)."""
    body = {"time": now_ms() if now is None else now, "destination": provider.destination()}
    atomic_write(store.root / PLAN_SHOWN, json.dumps(body, sort_keys=True).encode("utf-8"), durable=False)


def plan_shown(store: Store, provider: Provider) -> bool:
    """True when the plan was shown for this provider's destination."""
    try:
        d = json.loads(read_regular(store.root / PLAN_SHOWN, _SMALL))
        return isinstance(d, dict) and d.get("destination") == provider.destination()
    except (OSError, ValueError, RecursionError):
        return False


def last_auto(store: Store) -> int:
    """ms of the last automatic run's start (0: never)."""
    try:
        return int(read_regular(store.root / AUTO_STAMP, _SMALL).decode("ascii").strip())
    except (OSError, ValueError, UnicodeDecodeError):
        return 0


def auto_status(store: Store, cfg: dict, provider: Provider, *, now: int | None = None) -> str:
    """``off`` (derive.auto is not true), ``plan-not-shown``, ``not-due``
    (an automatic run started less than a day ago), ``state-damaged``
    (``derive-state.json`` cannot be used: ``run.state_damage``) or ``due``.
    Reads two small files, and the state when a run would be due; takes
    no lock."""
    if not auto_enabled(cfg):
        return "off"
    if not plan_shown(store, provider):
        return "plan-not-shown"
    now = now_ms() if now is None else now
    if 0 <= now - last_auto(store) < DUE_EVERY_MS:
        return "not-due"
    if state_damage(store):
        return "state-damaged"
    return "due"


def claim_auto(store: Store, cfg: dict, provider: Provider, *, now: int | None = None,
               lock_timeout: float = 2.0) -> bool:
    """Claim today's automatic run: under the store lock, check
    :func:`auto_status` again and write the stamp.  True when this caller
    may run; False when it is not due or the lock is busy (the next session
    start tries again)."""
    now = now_ms() if now is None else now
    try:
        with store.lock("derive auto", timeout=lock_timeout):
            if auto_status(store, cfg, provider, now=now) != "due":
                return False
            atomic_write(store.root / AUTO_STAMP, f"{now}\n".encode("ascii"))
            return True
    except StoreLocked:
        return False
