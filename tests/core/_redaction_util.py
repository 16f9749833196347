"""Shared steps of the redaction tests (red22: the session-21 files wrote
each of them again): one text redacted and checked raw and JSON-escaped,
a Codex rollout holding tool outputs, and real ``mem`` processes that
remember texts and import them as tool results of a Claude Code
transcript, then show what the store holds."""

from __future__ import annotations

import json
from pathlib import Path

from objstore import scan_store
from objstore.core.redact import redact
from tests.hooks._util import bash_results, hook_env


def assert_redacted(case: str, text: str, secrets, kept=(), rule: str | None = None, escaped: bool = True) -> str:
    """``redact(text)``: no string of ``secrets`` survives, every string of
    ``kept`` stays, ``rule`` (when given) names a hit, a second pass changes
    nothing, and (``escaped``) none of ``secrets`` survives ``text``
    JSON-escaped either, as a tool call's JSON holds it.  Returns the
    redacted text."""
    res = redact(text)
    for s in secrets:
        assert s not in res.text, f"{case}: {s!r} survived\n{res.text[:3000]}"
    for k in kept:
        assert k in res.text, f"{case}: {k!r} was taken\n{res.text[:3000]}"
    if rule is not None:
        assert rule in {h.rule for h in res.hits}, f"{case}: no {rule} hit in {res.hits}"
    assert redact(res.text).text == res.text, f"{case}: a second pass changed it"
    if not escaped:
        return res.text
    esc = redact(json.dumps({"command": text})).text
    for s in secrets:
        assert s not in esc and json.dumps(s)[1:-1] not in esc, \
            f"{case} (JSON-escaped): {s!r} survived\n{esc[:3000]}"
    return res.text


def assert_kept(text: str) -> None:
    """``redact(text)`` changes nothing, nor ``text`` JSON-escaped (a tool
    call's input)."""
    assert redact(text).text == text
    esc = json.dumps({"command": text})
    assert redact(esc).text == esc, esc


def codex_rollout(path: Path, outputs: list[str], sid: str = "T-red", cwd: str = "/home/dev/proj") -> Path:
    """A Codex rollout file at ``path``: a session, a user message, then per
    text of ``outputs`` a shell call and its output.  Returns ``path``."""
    def rec(p):
        return json.dumps({"timestamp": "2026-03-02T10:00:00Z", "type": "response_item", "payload": p}) + "\n"
    lines = [json.dumps({"timestamp": "2026-03-02T10:00:00Z", "type": "session_meta",
                         "payload": {"id": sid, "cwd": cwd, "source": "cli"}}) + "\n",
             rec({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "show the configs"}]})]
    for i, out in enumerate(outputs):
        lines.append(rec({"type": "function_call", "name": "shell", "call_id": f"c{i}",
                          "arguments": json.dumps({"command": ["cat", f"f{i}.conf"]})}))
        lines.append(rec({"type": "function_call_output", "call_id": f"c{i}", "output": out}))
    path.write_text("".join(lines))
    return path


def remember_and_import(mem, tmp_path: Path, tag: str, sid: str, texts: dict[str, str]) -> tuple[dict[str, str], str]:
    """With real ``mem`` processes (the ``mem`` fixture): each text of
    ``texts`` (case name -> text) remembered as ``project/<tag>/<case>``, and
    all of them as Bash tool results of one imported Claude Code transcript
    (session ``sid``).  Returns ``mem get`` of each case and ``mem show`` of
    the session."""
    for case, text in texts.items():
        mem("remember", f"project/{tag}/{case}", text)
    t = tmp_path / f"{sid}.jsonl"
    t.write_bytes(bash_results(sid, sorted(texts.items())))
    mem("import", "claude-code", str(t))
    return {case: mem("get", f"project/{tag}/{case}").stdout for case in texts}, mem("show", sid[:8]).stdout


def scan_needles(secrets) -> list[bytes]:
    """The secrets a whole-store scan looks for: those of at least 6 bytes.
    A shorter one (a 4-digit CVV or PIN) also occurs by chance in the
    decimal times and hex names the store's text files hold (the CI of
    session 33 found ``9317`` so), so it is checked only where it was typed:
    ``mem get``, the session shown and the stored turns."""
    return [s.encode() for s in secrets if len(s.encode()) >= 6]


def check_remembered_and_imported(mem, tmp_path: Path, tag: str, sid: str, cases: dict, names, kept: str,
                                  store: Path | None = None) -> None:
    """:func:`remember_and_import` of the texts of ``names`` (keys of
    ``cases``: ``name -> (text, secret, kept part)``) plus ``kept`` (a
    look-alike): each shape's secret is in neither ``mem get`` nor the
    imported session while its kept part stays; ``kept`` comes back as
    written.  With ``store`` (red30b), no file of it (packs decompressed,
    :func:`objstore.scan_store`) holds the secret of any of ``cases``."""
    names = tuple(names)
    texts = {f"note{i}": cases[name][0] for i, name in enumerate(names)}    # keys that name no credential
    texts["kept"] = kept
    gets, session = remember_and_import(mem, tmp_path, tag, sid, texts)
    for key, text in texts.items():
        if key == "kept":
            assert text in gets[key] and text in session
            continue
        name = names[int(key[4:])]
        secret, part = cases[name][1], cases[name][2]
        assert secret not in gets[key] and part in gets[key], f"{name}\n{gets[key]}"
        assert secret not in session, f"{name}: imported in clear\n{session[:2000]}"
    if store is not None:
        hits = scan_store(store, scan_needles(c[1] for c in cases.values()))
        assert hits == [], hits


def check_prompt_hook(store: Path, sid: str, cases: dict, lookalikes, remember: str, extra=()) -> None:
    """The real UserPromptSubmit hook (red31: red30b's steps, shared): one prompt holding the text of every case
    of ``cases`` (``name -> (text, secret, ...)``), one the first three ``lookalikes``, and ``remember`` (a
    "remember ..." prompt, its fact stored too); then each case's secret is in no stored turn while the
    look-alikes are stored as typed, and no file of ``store`` (packs decompressed) holds any secret nor any
    string of ``extra``."""
    from tests.cmds._credentials import assert_none_stored, run_prompt_hooks   # the cmds helpers import hooks'
    run_prompt_hooks(store, hook_env(store), sid, ["Use this: " + "\n".join(c[0] for c in cases.values()),
                                                   "Keep: " + "\n".join(lookalikes[:3]), remember])
    assert_none_stored(store, [(c[0], c[1], "") for c in cases.values()], lookalikes)
    hits = scan_store(store, scan_needles([c[1] for c in cases.values()] + list(extra)))
    assert hits == [], hits
