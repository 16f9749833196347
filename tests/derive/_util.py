"""Helpers of the derive tests: Claude Code transcripts and a loopback
OpenAI-compatible chat-completions server with scripted answers."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def transcript(path: Path, sid: str, turns: list[tuple[str, str]], cwd: str = "/home/dev/acme-api",
               entrypoint: str | None = None) -> None:
    """A Claude Code transcript of ``turns`` [(role, text)]; ``entrypoint``
    written on every record when given (Claude Code 2.1.x writes it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines, parent = [], None
    for i, (role, text) in enumerate(turns):
        uid = f"{sid}-{i:04d}"
        rec = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sid,
               "version": "2.1.42", "timestamp": f"2026-03-02T09:00:{i:02d}.000Z", "type": role, "uuid": uid,
               **({"entrypoint": entrypoint} if entrypoint else {}),
               "message": {"role": role, "content": text} if role == "user" else
               {"id": f"msg_{sid}_{i}", "role": "assistant", "model": "m", "type": "message",
                "content": [{"type": "text", "text": text}]}}
        lines.append(json.dumps(rec))
        parent = uid
    path.write_text("\n".join(lines) + "\n")


class Model:
    """A loopback chat-completions server: the answer is chosen by a marker
    word found in the prompt; records every request (``requests``: path,
    headers, parsed body; ``received``: each body's exact bytes).  While
    ``gate`` is cleared, answers wait for it (up to 30 s)."""

    def __init__(self, script: dict[str, object]) -> None:
        self.script, self.requests, self.received = script, [], []
        self.gate = threading.Event()
        self.gate.set()
        self.arrived = threading.Event()
        self.closed = threading.Event()
        model = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers["content-length"]))
                model.received.append(raw)
                body = json.loads(raw)
                model.requests.append((self.path, dict(self.headers), body))
                model.arrived.set()
                model.gate.wait(30)
                prompt = body["messages"][0]["content"]
                ans = next((v for k, v in model.script.items() if k in prompt), {"facts": []})
                if ans == "500":
                    self.send_response(500)
                    self.end_headers()
                    return
                if ans == "slow":          # far past any test's timeout; let go when the test closes the server
                    model.closed.wait(30)
                text = ans if isinstance(ans, str) else json.dumps(ans)
                out = json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                try:
                    self.wfile.write(out)
                except BrokenPipeError:  # the client gave up (the timeout test)
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.closed.set()
        self.gate.set()
        self.server.shutdown()


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def serve_model(monkeypatch, script: dict):
    """A :class:`Model` with ``script``, and ``OPENAI_BASE_URL``/``OPENAI_API_KEY``
    pointing mem at it; yields the model and closes it (a fixture's body:
    ``yield from serve_model(monkeypatch, SCRIPT)``)."""
    model = Model(script)
    monkeypatch.setenv("OPENAI_BASE_URL", model.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-derive")
    try:
        yield model
    finally:
        model.close()


def derive_decisions(mem, tmp_path: Path, cases: list[tuple[str, str]], tag: str, per_session: int) -> dict[int, str]:
    """Each ``(turn, value)`` of ``cases`` said by the user in a Claude Code
    session (``per_session`` to a session) and proposed by the loopback model
    as ``project/acme-api/c<i>`` citing that turn; real ``mem import`` and
    ``mem derive --json``.  Returns ``{i: the rule derive decided}``."""
    script = {}
    for s, start in enumerate(range(0, len(cases), per_session)):
        chunk, marker = cases[start:start + per_session], f"{tag}-SESSION-{s}"
        turns = [("user", f"{marker}: a few facts about acme-api.")] + [("user", turn) for turn, _v in chunk]
        transcript(tmp_path / "claude" / "projects" / "-home-dev-acme-api" / f"s{s}.jsonl", f"{tag.lower()}-{s}",
                   turns)
        script[marker] = {"facts": [{"key": f"project/acme-api/c{start + i}", "kind": "project", "value": value,
                                     "turns": [i + 2]} for i, (_t, value) in enumerate(chunk)]}
    mem("import", "claude-code", str(tmp_path / "claude" / "projects"))
    model = Model(script)
    try:
        r = json.loads(mem("derive", "--json", env={"OPENAI_BASE_URL": model.url,
                                                     "OPENAI_API_KEY": "sk-test-derive"}).stdout)
    finally:
        model.close()
    return {int(d["key"].rsplit("/c", 1)[1]): d["rule"] for d in r["decisions"]}


def assert_decided_as_table(mem, tmp_path: Path, cases: list[tuple[str, str, bool]], tag: str,
                            per_session: int = 30) -> None:
    """Each ``(turn, value, admitted?)`` of ``cases`` decided by real ``mem
    derive`` (:func:`derive_decisions`) as the table says: "write" when
    admitted, else a rule of the evidence check (not a key or scope rule).
    ``per_session`` 30: an answer's proposals past 40 are not read
    (``run.MAX_FACTS_PER_ANSWER``)."""
    got = derive_decisions(mem, tmp_path, [(turn, value) for turn, value, _a in cases], tag, per_session)
    assert sorted(got) == list(range(len(cases))), got
    wrong = {cases[i][0] + " -> " + cases[i][1]: got[i] for i in got if (got[i] == "write") != cases[i][2]}
    assert not wrong, wrong
    assert {got[i] for i in got if not cases[i][2]} <= {"no-evidence", "negated", "suspicious"}, got
