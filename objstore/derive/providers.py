"""Model providers for ``mem derive``: where a prompt goes and how an answer
comes back.  Each call has a hard timeout and is never retried (a retry could
pay for the same excerpts twice); a failure raises :class:`ProviderError`.

* ``openai``: any OpenAI-compatible chat-completions endpoint
  (``POST {base_url}/chat/completions``), the key read from the process env
  variable the config *names* (never the key itself);
* ``ollama``: ``POST {base_url}/api/chat`` with ``format: json``;
* ``claude``: the Claude Code CLI (``claude -p``) on the person's own login,
  the prompt on stdin.

HTTP uses the standard library's ``urllib`` (kept with Python; one request
and one JSON answer need nothing more), so no extra is needed.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from typing import Mapping

from objstore.core.errors import InvalidInput, MemError

PROVIDERS = ("claude", "openai", "ollama")
DEFAULT_TIMEOUT_S = 120.0


class ProviderError(MemError):
    """The model call failed (unreachable, timed out, an HTTP error, no answer)."""

    exit_code = 1


@dataclass(frozen=True)
class Provider:
    """Where derive sends its prompts.

    Attributes:
        name: one of :data:`PROVIDERS`.
        model: the model name ("" for the provider's default).
        base_url: the endpoint (openai, ollama).
        api_key_env: the *name* of the env variable that holds the key.
        timeout: seconds for one call.
    """

    name: str
    model: str = ""
    base_url: str = ""
    api_key_env: str = ""
    timeout: float = DEFAULT_TIMEOUT_S

    def destination(self) -> str:
        """One line that says where excerpts go (for ``--plan``)."""
        if self.name == "claude":
            return f"claude -p (Claude Code CLI, your login){' model ' + self.model if self.model else ''}"
        return f"{self.name} {self.model or '(default model)'} at {self.base_url or '(no URL set)'}"


def from_config(cfg: Mapping, env: Mapping[str, str], override: str | None = None) -> Provider:
    """The provider from the ``[derive]`` config table and the process env
    (``OPENAI_BASE_URL``, ``OPENAI_MODEL``, ``OPENAI_API_KEY`` work with no
    config, as the OpenAI clients do).  ``override``: ``--provider``.
    Raises InvalidInput (exit 2) for an unknown provider name, a bad
    timeout or key variable name, and a base URL that holds a credential
    (:func:`_check_url`)."""
    name = override or cfg.get("provider") or ("openai" if env.get("OPENAI_BASE_URL") or env.get("OPENAI_API_KEY")
                                               else "claude")
    if name not in PROVIDERS:
        raise InvalidInput(f"unknown provider {name!r}: use one of {', '.join(PROVIDERS)}")
    try:
        timeout = float(cfg.get("timeout", DEFAULT_TIMEOUT_S))
    except (TypeError, ValueError):
        timeout = -1.0
    if not 0 < timeout < float("inf"):
        raise InvalidInput(f"derive.timeout must be a number of seconds > 0, not {cfg.get('timeout')!r}")
    if name in ("openai", "ollama"):
        _check_url(cfg, env, name)
    if name == "openai":
        if cfg.get("api_key_env") and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", str(cfg["api_key_env"])):
            raise InvalidInput("derive.api_key_env holds the NAME of the variable that holds the key, not a key",
                               hint="e.g. api_key_env = \"OPENAI_API_KEY\"; remove the key from config.toml")
        return Provider(name, cfg.get("model") or env.get("OPENAI_MODEL", "gpt-4o-mini"),
                        (cfg.get("base_url") or env.get("OPENAI_BASE_URL") or "https://api.openai.com/v1").rstrip("/"),
                        cfg.get("api_key_env") or "OPENAI_API_KEY", timeout)
    if name == "ollama":
        return Provider(name, cfg.get("model", ""), (cfg.get("base_url") or "http://127.0.0.1:11434").rstrip("/"),
                        "", timeout)
    return Provider(name, cfg.get("model", ""), "", "", timeout)


def _check_url(cfg: Mapping, env: Mapping[str, str], name: str) -> None:
    """Refuse (InvalidInput, exit 2, the URL never echoed) a base URL that
    holds a credential — a ``user:key@`` userinfo, a ``?key=``-style query
    parameter, a token anywhere (``objstore.core.redact.check_name`` with
    ``url=True``, the rule ``mem config derive.base_url`` and a remote's URL
    take) — whether ``config.toml`` or ``OPENAI_BASE_URL`` gives it: the URL
    is shown by ``--plan`` and written to ``cache/derive-plan-shown.json``
    and every ``cache/derive-reports/<id>.json`` (test29 P2)."""
    from objstore.core.redact import check_name   # defer: the rules compile at import (a derive run only)
    if cfg.get("base_url"):
        check_name(str(cfg["base_url"]), "setting derive.base_url", where="derive's plan and reports",
                   hint="edit config.toml: the key goes in the env variable that derive.api_key_env names",
                   url=True)
    elif name == "openai" and env.get("OPENAI_BASE_URL"):
        check_name(str(env["OPENAI_BASE_URL"]), "OPENAI_BASE_URL", where="derive's plan and reports",
                   hint="give the URL without user:key@ or ?key=; export the key as OPENAI_API_KEY", url=True)


def _post_once(url: str, body: dict, headers: dict, timeout: float) -> dict:
    import http.client
    import urllib.error  # deferred (~15 ms): the session-start hook reads the provider, never calls it
    import urllib.request
    try:
        req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json", **headers})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
    except urllib.error.HTTPError as e:
        raise ProviderError(f"the model endpoint answered HTTP {e.code}") from None
    except (urllib.error.URLError, http.client.HTTPException, TimeoutError, OSError, ValueError) as e:
        # ValueError: a port out of range (test29b Q2); http.client.InvalidURL (an HTTPException, no
        # ValueError): a port that is no number; BadStatusLine & co: an endpoint that is no HTTP server
        reason = getattr(e, "reason", e)
        raise ProviderError(f"the model endpoint could not be reached ({reason})") from None
    try:
        return json.loads(raw)
    except ValueError:
        raise ProviderError("the model endpoint did not answer JSON") from None


def _post(url: str, body: dict, headers: dict, timeout: float) -> dict:
    """POST ``body`` as JSON and return the JSON answer, within ``timeout``
    seconds in all.  ``urllib``'s own timeout bounds each socket operation
    only (an endpoint that sends a byte now and then never trips it), so the
    call runs in a daemon thread and is abandoned at the deadline.  Never
    retried.  Raises ProviderError."""
    import threading
    box: dict = {}

    def call() -> None:
        try:
            box["answer"] = _post_once(url, body, headers, timeout + 5)  # the deadline below comes first
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            box["error"] = e
    t = threading.Thread(target=call, name="derive-call", daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        raise ProviderError(f"the model endpoint did not answer within {timeout:g} s")
    if "error" in box:
        raise box["error"]
    return box["answer"]


def check_ready(p: Provider, env: Mapping[str, str]) -> None:
    """Raise ProviderError when ``p`` cannot be called at all, before any
    call is made: the ``claude`` provider needs the ``claude`` CLI on
    ``env``'s ``PATH``.  (An endpoint that does not answer is found by the
    first call: that session is then listed as failed.)"""
    if p.name == "claude" and shutil.which("claude", path=env.get("PATH", "")) is None:
        raise ProviderError("the claude CLI is not on PATH: derive's provider is 'claude -p' "
                            "(the default when no OPENAI_* variable is set); nothing was sent",
                            hint="install Claude Code, or use another provider: mem config derive.provider "
                                 "openai (OPENAI_BASE_URL, OPENAI_API_KEY) or ollama")


def complete(p: Provider, prompt: str, env: Mapping[str, str]) -> str:
    """Send one prompt; return the model's text.  Raises ProviderError."""
    if p.name == "openai":
        key = env.get(p.api_key_env, "")
        r = _post(p.base_url + "/chat/completions",
                  {"model": p.model, "messages": [{"role": "user", "content": prompt}], "temperature": 0,
                   "response_format": {"type": "json_object"}},
                  {"authorization": f"Bearer {key}"} if key else {}, p.timeout)
        try:
            return r["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise ProviderError("the model's answer has no choices[0].message.content") from None
    if p.name == "ollama":
        r = _post(p.base_url + "/api/chat", {"model": p.model, "stream": False, "format": "json",
                                             "messages": [{"role": "user", "content": prompt}]}, {}, p.timeout)
        try:
            return r["message"]["content"]
        except (KeyError, TypeError):
            raise ProviderError("ollama's answer has no message.content") from None
    import subprocess
    args = ["claude", "-p", "--output-format", "text"] + (["--model", p.model] if p.model else [])
    try:
        out = subprocess.run(args, input=prompt, capture_output=True, text=True, timeout=p.timeout,
                             env={**env, "MEM_NO_CAPTURE": "1"})
    except FileNotFoundError:
        raise ProviderError("the claude CLI is not on PATH (or set [derive] provider)") from None
    except subprocess.TimeoutExpired:
        raise ProviderError(f"claude -p did not answer within {p.timeout:.0f} s") from None
    if out.returncode != 0:
        raise ProviderError(f"claude -p exited {out.returncode}")
    return out.stdout


def load_config(root) -> dict:
    """The ``[derive]`` table of ``<store>/config.toml`` ({} when absent).
    Raises InvalidInput for a file that is not valid TOML."""
    import tomllib
    from pathlib import Path

    p = Path(root) / "config.toml"
    try:
        doc = tomllib.loads(p.read_text("utf-8"))
    except FileNotFoundError:
        return {}
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise InvalidInput(f"{p} is not valid TOML: {e}") from None
    d = doc.get("derive", {})
    return d if isinstance(d, dict) else {}
