"""The prompt-toolkit completer: a thin adapter from ``suggest()`` to
``Completion`` objects, behind a ``DynamicCompleter`` whose catalog is
rebuilt in the background after each command (litecli's completion
refresher), so typing never waits for the store."""

from __future__ import annotations

import threading
from collections.abc import Callable

from prompt_toolkit.completion import Completer, Completion, DynamicCompleter

from .suggest import Catalog, suggest


class ShellCompleter(Completer):
    """Completions for one :class:`Catalog` snapshot."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def get_completions(self, document, complete_event):
        """Yield a ``Completion`` per :func:`suggest` result."""
        for s in suggest(document.text_before_cursor, self.catalog):
            yield Completion(s.text, start_position=s.start, display_meta=s.meta or None)


class Refresher:
    """Holds the current catalog and completer; :meth:`refresh` rebuilds them.

    Args:
        build: returns a fresh :class:`Catalog` (in the background it must
            not share non-thread-safe state with the session: ``app`` opens
            its own store for it).
        background: rebuild in a daemon thread (else synchronously).
        on_done: called after a rebuild (the app redraws the toolbar).
    """

    def __init__(self, build: Callable[[], Catalog], *, background: bool = True,
                 on_done: Callable[[], None] | None = None) -> None:
        self._build = build
        self.background = background
        self.on_done = on_done
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._again = False
        self.catalog = Catalog()
        self.completer = ShellCompleter(self.catalog)

    def _run(self) -> None:
        while True:
            try:
                cat = self._build()
            except Exception:  # noqa: BLE001 - a failed refresh keeps the old catalog
                cat = None
            with self._lock:
                if cat is not None:
                    self.catalog = cat
                    self.completer = ShellCompleter(cat)
                if not self._again:
                    self._thread = None
                    break
                self._again = False
        if self.on_done is not None:
            try:
                self.on_done()
            except Exception:  # noqa: BLE001 - redrawing is best effort
                pass

    def refresh(self, *, wait: bool = False) -> None:
        """Rebuild the catalog (coalesces requests made while one runs);
        ``wait`` rebuilds in this thread (the first one, before the prompt)."""
        if wait or not self.background:
            self.wait()
            self._run()
            return
        with self._lock:
            if self._thread is not None:
                self._again = True
                return
            self._thread = threading.Thread(target=self._run, name="mem-completion-refresh", daemon=True)
            self._thread.start()

    def wait(self, timeout: float = 10.0) -> None:
        """Wait for a running rebuild (tests, shutdown)."""
        t = self._thread
        if t is not None:
            t.join(timeout)


def make_completer(refresher: Refresher) -> DynamicCompleter:
    """A ``DynamicCompleter`` that always uses the refresher's latest completer."""
    return DynamicCompleter(lambda: refresher.completer)
