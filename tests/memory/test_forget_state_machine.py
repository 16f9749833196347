"""A hypothesis state machine over remember / import / forget / gc /
reindex: after every step, every forgotten canary is gone from every file
and from search, and everything else is intact (current values as the
model says, fsck clean)."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from objstore.memory import facts
from objstore.core.errors import NotFound
from objstore.memory.forget import forget, scan_store
from objstore.core.fsck import fsck
from objstore.core.gc import gc
from objstore.retrieval.search import reindex, search
from objstore.capture.importer import import_claude_code
from objstore.memory.opening import open_store

KEYS = ["project/m/a", "project/m/b", "user/c"]


def _transcript(path: Path, sid: str, words: list[str]) -> None:
    recs = []
    for i, w in enumerate(words):
        recs.append({"type": "user", "uuid": f"{sid}-{i}", "sessionId": sid, "cwd": "/w/m",
                     "timestamp": f"2026-01-01T00:00:{i:02d}Z",
                     "message": {"role": "user", "content": f"prompt {i} mentions {w} here"}})
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))


class ForgetMachine(RuleBasedStateMachine):
    @initialize()
    def setup(self):
        self.dir = Path(tempfile.mkdtemp(prefix="mem-sm-"))
        self.store = open_store(self.dir / "store", create=True)
        self.model: dict[str, list[str]] = {}
        self.forgotten: set[str] = set()
        self.canaries: list[str] = []
        self.files: list[Path] = []
        self.n = 0

    def teardown(self):
        self.store.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _canary(self) -> str:
        self.n += 1
        c = f"canary{self.n}x{len(self.canaries)}zq"
        self.canaries.append(c)
        return c

    @rule(key=st.sampled_from(KEYS), with_canary=st.booleans())
    def remember(self, key, with_canary):
        self.n += 1
        value = f"value {self.n} " + (self._canary() if with_canary else "plain")
        facts.remember(self.store, key, value)
        self.model.setdefault(key, []).append(value)

    @rule(n_turns=st.integers(1, 4), with_canary=st.booleans())
    def import_transcript(self, n_turns, with_canary):
        self.n += 1
        words = [f"word{self.n}t{i}" for i in range(n_turns)]
        if with_canary:
            words[-1] = self._canary()
        f = self.dir / "t" / f"s{self.n}.jsonl"
        f.parent.mkdir(exist_ok=True)
        _transcript(f, f"sess-{self.n}", words)
        self.files.append(f)
        import_claude_code(self.store, [f])

    @rule(data=st.data())
    def forget_canary(self, data):
        live = [c for c in self.canaries if c not in self.forgotten]
        if not live:
            return
        c = data.draw(st.sampled_from(live))
        forget(self.store, match=c)
        self.forgotten.add(c)
        for key in list(self.model):
            self.model[key] = [v for v in self.model[key] if c not in v]

    @rule(key=st.sampled_from(KEYS))
    def forget_key(self, key):
        if not self.model.get(key):
            return
        for v in self.model.pop(key):
            self.forgotten.update(c for c in self.canaries if c in v)
        forget(self.store, what=key)

    @rule()
    def gc_now(self):
        gc(self.store, grace_s=0)

    @rule()
    def reindex(self):
        reindex(self.store)

    @rule()
    def reimport_everything(self):
        if self.files:
            import_claude_code(self.store, self.files)

    @invariant()
    def forgotten_is_gone_and_the_rest_intact(self):
        if not hasattr(self, "store"):
            return
        for c in self.forgotten:
            assert search(self.store, c) == [], c
        if self.forgotten:
            gc(self.store, grace_s=0)
            assert scan_store(self.store.root, [c.encode() for c in self.forgotten]) == []
        for key in KEYS:
            values = self.model.get(key) or []
            if values:
                assert facts.current(self.store, key).fact.body == values[-1]
            else:
                try:
                    cur = facts.current(self.store, key)
                except NotFound:
                    continue
                assert cur is None
        rep = fsck(self.store)
        assert rep.ok, rep.problems


ForgetMachine.TestCase.settings = settings(max_examples=12, stateful_step_count=10, deadline=None,
                                           suppress_health_check=[HealthCheck.too_slow])
TestForgetMachine = ForgetMachine.TestCase
