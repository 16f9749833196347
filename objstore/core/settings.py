"""The settings of ``<store>/config.toml`` (``mem config``): one table of
names, types, defaults and checks.

Each setting is ``<table>.<name>`` (``derive.auto``, ``decay.days``) with a
type, a default and a check (:data:`SETTINGS`).  Setting one edits that
line in place and keeps the rest of the file (``objstore.core.tomledit``).
Only the settings listed here are written: a misspelt name is refused
(with the closest names offered) instead of silently ignored.  A
credential never goes in the file: ``derive.api_key_env`` holds the *name*
of the variable that holds the key, and a value holding a credential is
refused for every setting, never echoed (:func:`set_setting`).

Booleans are spelt as git config spells them (``git-config(1)``, "Values"):
``true``/``yes``/``on``/``1`` and ``false``/``no``/``off``/``0``, any case;
they are stored as TOML ``true``/``false``.

The table is in ``core`` so that every layer reads its defaults from here
(``decay.days`` in ``objstore.memory.decay``, ``derive.auto_max_calls`` in
``objstore.derive.auto``): one number, one place.
"""

from __future__ import annotations

import errno
import math
from pathlib import Path

from objstore.core.atomic import SMALL_FILE_MAX_BYTES, atomic_write, read_regular
from objstore.core.cborext import cbor2
from objstore.core.configcheck import CONFIG_FILE, CONFIG_OK_STAMP, config_stamp, stamp_usable
from objstore.core.errors import InvalidInput, ReadOnlyStore
from objstore.core.record import Frozen, set_fields
from objstore.core.text import LazyPattern

#: the spellings of a boolean (as git config takes them)
TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")


class Setting(Frozen):
    """One setting: ``kind`` is ``bool``, ``int``, ``float``, ``str`` or
    ``choice`` (one of ``choices``); ``minimum``/``maximum`` for numbers;
    ``pattern`` a regex a string must match in full; ``help`` one line;
    ``legacy`` the key under which an older mem kept it in the store's CBOR
    ``config`` (read when ``config.toml`` does not set it).  A record
    (``objstore.core.record``), not a dataclass: every command reads this
    table, and ``import dataclasses`` costs a new process ~7 ms."""

    __slots__ = ("name", "kind", "default", "help", "choices", "minimum", "pattern", "maximum", "legacy")

    def __init__(self, name: str, kind: str, default: object, help: str, choices: tuple[str, ...] = (),
                 minimum: float | None = None, pattern: str = "", maximum: float | None = None,
                 legacy: str = "") -> None:
        set_fields(self, name, kind, default, help, choices, minimum, pattern, maximum, legacy)


SETTINGS: dict[str, Setting] = {s.name: s for s in (
    Setting("derive.auto", "bool", False,
            "run 'mem derive --apply' at most once a day from the session-start hook, in the background "
            "(only after 'mem derive --plan' was shown for the same destination)"),
    Setting("derive.sources", "choice", "interactive", "which turns derive reads: interactive (not claude -p or "
            "Agent SDK runs) or all", choices=("interactive", "all")),
    Setting("derive.provider", "choice", "claude", "where derive sends excerpts (default: OPENAI_* if set, "
            "else claude)", choices=("claude", "openai", "ollama")),
    Setting("derive.model", "str", "", "the model name (empty: the provider's default)"),
    Setting("derive.base_url", "str", "", "the endpoint of an openai or ollama provider", pattern=r"https?://\S+"),
    Setting("derive.api_key_env", "str", "OPENAI_API_KEY", "the NAME of the env variable that holds "
            "the key (never the key)", pattern=r"[A-Za-z_][A-Za-z0-9_]{0,63}"),
    Setting("derive.timeout", "float", 120.0, "seconds per model call (never retried)", minimum=1,
            maximum=3600),
    Setting("derive.auto_max_calls", "int", 40, "model calls one automatic run makes at most (the rest "
            "waits for the next day)", minimum=1, maximum=10000),
    Setting("context.session_budget", "int", 1500, "estimated tokens of the session-start block (unset: 1500 "
            "for the facts plus the memory files, at most 2400)", minimum=1,
            maximum=100000),
    Setting("context.prompt_budget", "int", 600, "estimated tokens injected for one prompt", minimum=1,
            maximum=100000),
    Setting("context.moving_max_age_days", "float", 30.0, "days after which a moving value stays out of the "
            "session-start block", minimum=0, maximum=36500),
    Setting("helper.autostart", "bool", True, "the session-start hook starts the store's resident helper "
            "(mem helper) in the background when it is not running"),
    Setting("helper.idle_minutes", "float", 15.0, "minutes without a request after which the resident "
            "helper exits", minimum=0.05, maximum=10080),
    Setting("capture.ignore_marker", "str", "#nomem", "a prompt starting with it is neither captured nor "
            "answered with memory"),
    Setting("store.pack_codec", "choice", "deflate", "how new packs are compressed: deflate (pack version 8: a table of "
            "repeated lines) or zstd (version 7, ~11% smaller than version 6; needs pip install 'memvcs[zstd]', from a clone of mem '.[zstd]', wherever the store is read)",
            choices=("deflate", "zstd")),
    Setting("decay.days", "int", 60, "idle active days after which an unpinned fact goes dormant (mem decay)",
            minimum=1, maximum=36500, legacy="decay_days"),
)}


def default(name: str):
    """The default of setting ``name`` (KeyError for an unknown name)."""
    return SETTINGS[name].default


def setting(name: str) -> Setting:
    """The :class:`Setting` called ``name``.  Raises InvalidInput for an
    unknown name, offering the closest known names; one holding a
    credential (the one name rule, ``objstore.core.redact.name_hits``) is
    not shown."""
    s = SETTINGS.get(name)
    if s is None:
        from objstore.core.redact import name_hits   # deferred: the rules compile at import
        if name_hits(name):
            raise InvalidInput("unknown setting (its name holds a credential: not shown)",
                               hint="'mem config' lists every setting")
        raise InvalidInput(f"unknown setting {name!r}", hint=_did_you_mean(name))
    return s


def _did_you_mean(name: str) -> str:
    """'did you mean X?' for a mistyped setting name (difflib's ratio over
    the whole name and over its part after the table; ``decay_days`` finds
    ``decay.days``), else where the list is."""
    import difflib  # deferred: only a mistyped name needs it (the hooks import this module)

    low = name.strip().lower()
    close = difflib.get_close_matches(low, list(SETTINGS), n=3, cutoff=0.8)
    close += [n for n in SETTINGS if n not in close and difflib.get_close_matches(
        low.rpartition(".")[2], [n.partition(".")[2]], n=1, cutoff=0.75)]
    close += [n for n in SETTINGS if n not in close and n.partition(".")[0] == low]  # a table: its settings
    if close:
        return f"did you mean {' or '.join(close[:3])}? ('mem config' lists every setting)"
    return "'mem config' lists every setting"


def parse(name: str, text: str):
    """The typed value of ``text`` for setting ``name``.  Raises InvalidInput
    for an unknown setting or a value of the wrong type or range."""
    s = setting(name)
    t = text.strip()
    if s.kind == "bool":
        b = as_bool(t)
        if b is not None:
            return b
        raise InvalidInput(f"{name} takes a boolean: true or false (also yes/no, on/off, 1/0, as git config "
                           f"does), not {text!r}")
    if s.kind in ("int", "float"):
        try:
            v = int(t) if s.kind == "int" else float(t)
        except ValueError:
            raise InvalidInput(f"{name} takes {'a whole number' if s.kind == 'int' else 'a number'}, "
                               f"not {text!r}") from None
        return _check_number(s, v)
    if s.kind == "choice":
        if t not in s.choices:
            raise InvalidInput(f"{name} is one of {', '.join(s.choices)}, not {text!r}")
        return t
    if s.pattern:
        import re   # here: a reader of the settings (every command's warn_config) loads no re
        if not re.fullmatch(s.pattern, t):
            raise InvalidInput(f"{name}: not a valid value ({s.help})",
                               hint="the value is not shown: it may be a key pasted by mistake"
                               if name == "derive.api_key_env" else None)
    return t


#: what to do instead of writing a credential into a setting (:func:`parse`)
_SECRET_HINT = {
    "": "config.toml holds no secret: a model's key goes in an env variable that derive.api_key_env names",
    "derive.base_url": "give the URL without user:password@; the key goes in the env variable that "
                       "derive.api_key_env names (e.g. OPENAI_API_KEY)",
    "derive.api_key_env": "set it to the NAME of the variable (e.g. OPENAI_API_KEY) and export the key in it",
}


def as_bool(v) -> bool | None:
    """A boolean spelt any way git config takes one: a bool, the integer 1
    or 0, or a string of :data:`TRUE_WORDS` / :data:`FALSE_WORDS` in any
    case; None for anything else."""
    if isinstance(v, bool):
        return v
    if type(v) is int and v in (0, 1):
        return bool(v)
    if isinstance(v, str):
        low = v.strip().lower()
        if low in TRUE_WORDS:
            return True
        if low in FALSE_WORDS:
            return False
    return None


def _check_number(s: Setting, v):
    """``v`` when it is in ``s``'s range; raises InvalidInput."""
    if isinstance(v, float) and not math.isfinite(v):
        raise InvalidInput(f"{s.name} takes a finite number")
    if (s.minimum is not None and v < s.minimum) or (s.maximum is not None and v > s.maximum):
        want = f">= {s.minimum:g}" if s.maximum is None else f"in {s.minimum:g}..{s.maximum:g}"
        raise InvalidInput(f"{s.name} must be {want}, not {v!r}")
    return v


class ConfigProblem(Frozen):
    """Why ``<store>/config.toml`` cannot be used.

    Attributes:
        path: the file.
        line: the 1-based line of the error (0: not known, e.g. unreadable).
        reason: what is wrong (the parser's words).
        capture_stopped: True when capture stops until the file is fixed:
            the file may hold ``[capture]`` settings (exclusions) that
            cannot be read, or holds invalid ones.  False when the broken
            file cannot hold a ``[capture]`` table (:func:`capture_unaffected`):
            capture goes on with the defaults.
    """

    __slots__ = ("path", "line", "reason", "capture_stopped")

    def __init__(self, path: str, line: int, reason: str, capture_stopped: bool) -> None:
        set_fields(self, path, line, reason, capture_stopped)

    def message(self) -> str:
        """One line for a person: the file, the line, what is wrong and what
        it stops."""
        where = f"{self.path} line {self.line}" if self.line else self.path
        effect = ("capture is stopped until it is fixed or removed" if self.capture_stopped else
                  "capture goes on; every setting is at its default until it is fixed")
        return f"{where}: {self.reason}: {effect} ('mem doctor' shows it)"


#: a TOML error's position (only a broken config.toml: compiled then, not by every command)
_AT_LINE = LazyPattern(r"\s*\(at (?:line (\d+), column \d+|end of document)\)\s*$")


def capture_unaffected(raw: bytes) -> bool:
    """True when the text ``raw`` of a config.toml cannot hold ``[capture]``
    settings, readable or not: the word ``capture`` (any case) is nowhere in
    it and it has no ``\\u``/``\\U`` escape (a quoted key could spell the
    table's name with one).  Capture may then go on with its defaults while
    the rest of the file is broken: no exclusion can be ignored."""
    low = raw.lower()
    return b"capture" not in low and b"\\u" not in low


def parse_config(path: Path, raw: bytes) -> tuple[dict | None, ConfigProblem | None]:
    """``(document, None)`` for the bytes ``raw`` of the config.toml at
    ``path``, or ``(None, problem)`` when it is not UTF-8 or not TOML
    (:class:`ConfigProblem` with the line of the error).  Also a problem
    when the document parses but its ``[capture]`` table is not what
    :func:`capture_settings` takes."""
    import tomllib  # deferred (~3 ms): the hooks import this module for its defaults, not always to read the file
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        try:    # a TOML error on an earlier line is the first thing to fix
            tomllib.loads(raw.decode("utf-8", "replace"))
        except tomllib.TOMLDecodeError as te:
            m = _AT_LINE.search(str(te))
            if m and m.group(1) and int(m.group(1)) < line:
                return None, ConfigProblem(str(path), int(m.group(1)),
                                           f"not valid TOML ({_AT_LINE.sub('', str(te)).strip()})",
                                           not capture_unaffected(raw))
        return None, ConfigProblem(str(path), line, f"not valid UTF-8 (byte 0x{raw[e.start]:02x})",
                                   not capture_unaffected(raw))
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = _AT_LINE.search(msg)
        last = text.count("\n") + (0 if text.endswith("\n") else 1)
        return None, ConfigProblem(str(path), (int(m.group(1)) if m.group(1) else last) if m else 0,
                                   f"not valid TOML ({_AT_LINE.sub('', msg).strip() or 'parse error'})",
                                   not capture_unaffected(raw))
    try:
        capture_settings(doc, path)
    except InvalidInput as e:
        return None, ConfigProblem(str(path), 0, e.message.removeprefix(f"{path}: "), True)
    return doc, None


def capture_settings(doc: dict, path: Path) -> tuple[list[str], str | None]:
    """``(exclude globs, ignore marker or None)`` of the ``[capture]`` table
    of a parsed config.toml (the globs as written; None: the default
    marker).  Raises InvalidInput for values of the wrong type."""
    cap = doc.get("capture", {})
    if not isinstance(cap, dict):
        raise InvalidInput(f"{path}: [capture] must be a table")
    excl = cap.get("exclude", [])
    marker = cap.get("ignore_marker")
    if not isinstance(excl, list) or not all(isinstance(x, str) and x.strip() for x in excl):
        raise InvalidInput(f"{path}: capture.exclude must be a list of non-empty strings")
    if marker is not None and not isinstance(marker, str):
        raise InvalidInput(f"{path}: capture.ignore_marker must be a string")
    return excl, marker


def config_problem(root: str | Path, *, stamp: bool = True) -> ConfigProblem | None:
    """What is wrong with ``<root>/config.toml`` (:class:`ConfigProblem`),
    or None when it is usable or absent.  Cheap when nothing changed: a
    file found usable leaves its ``stat`` stamp in ``<root>/cache/config.ok``
    (best effort: not on a read-only store), and a file with the same size,
    mtime and inode is not parsed again (:mod:`objstore.core.configcheck`,
    which a caller may ask first without importing this module); so every
    command can ask.  ``stamp=False`` (``mem doctor``, which checks
    everything): the file is parsed whatever the stamp says, since an edit
    within one mtime tick, or a tool that restores times, keeps size, mtime
    and inode (test31c W14)."""
    root = Path(root)
    p = root / CONFIG_FILE
    trust = stamp
    try:
        stamp = config_stamp(root)
    except OSError as e:
        return ConfigProblem(str(p), 0, f"cannot be read ({e.strerror})", True)
    if stamp is None or trust and stamp_usable(root, stamp):
        return None
    try:
        raw = read_regular(p, SMALL_FILE_MAX_BYTES)   # a FIFO or a device: unreadable, never waited on
    except OSError as e:
        return ConfigProblem(str(p), 0, f"cannot be read ({e.strerror})", True)
    _doc, problem = parse_config(p, raw)
    if problem is None:
        try:
            atomic_write(root / CONFIG_OK_STAMP, stamp.encode("ascii"))
        except OSError:
            pass        # a read-only store: parsed again next time
    return problem


def load_toml(root: str | Path) -> dict:
    """The parsed ``<root>/config.toml`` ({} when absent).  Raises
    InvalidInput naming the file and the line (:func:`parse_config`)."""
    p = Path(root) / CONFIG_FILE
    try:
        raw = read_regular(p, SMALL_FILE_MAX_BYTES)
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise InvalidInput(f"{p} cannot be read: {e.strerror}", hint="fix its permissions, or remove it") from None
    doc, problem = parse_config(p, raw)
    if problem is not None:
        where = f"{p} line {problem.line}" if problem.line else str(p)
        raise InvalidInput(f"{where}: {problem.reason}", hint="fix or remove the file")
    return doc  # type: ignore[return-value]


def _stored(root: Path) -> dict[str, tuple[object, str]]:
    """The settings the store's files hold, each with where it was read:
    ``config.toml``, and for a setting it does not hold, its ``legacy`` key
    in the CBOR ``config``.  Raises InvalidInput for a ``config.toml`` that
    is not valid TOML (naming the line)."""
    p = root / CONFIG_FILE
    doc = load_toml(root)
    out: dict[str, tuple[object, str]] = {}
    legacy: dict | None = None
    for name, s in SETTINGS.items():
        table, key = name.split(".", 1)
        t = doc.get(table, {})
        if isinstance(t, dict) and key in t:
            out[name] = (t[key], f"{name} in {p}")
        elif s.legacy:
            if legacy is None:
                try:
                    legacy = cbor2.loads(read_regular(root / "config", SMALL_FILE_MAX_BYTES))
                except Exception:  # noqa: BLE001 - Store.open validates that file; a setting never fails on it
                    legacy = {}
                legacy = legacy if isinstance(legacy, dict) else {}
            if s.legacy in legacy:
                out[name] = (legacy[s.legacy], f"{s.legacy} in {root / 'config'}")
    return out


def read(root: str | Path) -> dict[str, object]:
    """Every known setting: its value in the store's files (:func:`_stored`),
    else its default.  Raises InvalidInput for a file that is not valid TOML."""
    stored = _stored(Path(root))
    return {name: stored[name][0] if name in stored else s.default for name, s in SETTINGS.items()}


def value(root: str | Path, name: str):
    """The value of one setting (as :func:`read`), checked: a value of the
    wrong type or range (a hand-edited file) raises InvalidInput naming
    the setting and where it was read; a boolean spelt as a string
    (``"yes"``) or 1/0 is read as :func:`as_bool` reads it."""
    s = setting(name)
    v, where = _stored(Path(root)).get(name, (s.default, "default"))
    try:
        if s.kind == "bool":
            b = as_bool(v)
            if b is None:
                raise InvalidInput(f"{name} takes a boolean: true or false (also yes/no, on/off, 1/0)")
            return b
        if s.kind in ("int", "float"):
            if isinstance(v, bool) or not isinstance(v, int if s.kind == "int" else (int, float)):
                raise InvalidInput(f"{name} takes {'a whole number' if s.kind == 'int' else 'a number'}")
            return _check_number(s, v)
        if not isinstance(v, str):
            raise InvalidInput(f"{name} takes text")
        return parse(name, v)
    except InvalidInput as e:
        raise InvalidInput(f"bad setting ({where} = {v!r}): {e.message}",
                           hint=f"set it with: mem config {name} VALUE") from None


def marker_problem(marker) -> str | None:
    """Why ``marker`` (``capture.ignore_marker``) would drop ordinary prompts, or None: one that begins with a
    letter or digit ("a" keeps every prompt starting "add …" from capture and memory, silently: fresh43 F11) or holds
    control characters; what ``mem config`` refuses and ``mem doctor`` warns of in a hand-edited file (test44 T5)."""
    if not isinstance(marker, str) or not marker.strip():
        return None
    if not marker.isprintable():
        return "must be printable text without control characters, like #nomem"
    if marker.strip()[:1].isalnum():
        return ("must begin with a sign such as # or !, not a letter or digit: every prompt starting with it would "
                "go uncaptured, silently")
    return None


def set_setting(root: str | Path, name: str, text: str) -> tuple[object, bool]:
    """Set ``name`` from its text form (:func:`parse`); returns the typed
    value and whether the file changed.  Raises InvalidInput (also for a
    value holding a credential: ``the setting <name> holds a credential``,
    ``objstore.core.redact.check_name``, the value never in the message,
    before :func:`parse` could echo it); ReadOnlyStore
    when the file cannot be written (a read-only mount, no permission)."""
    from objstore.core.tomledit import set_value  # defer: tomllib and the editor only when a setting is written

    setting(name)
    # a credential is never written to config.toml nor shown, in any setting (parse's errors
    # echo the text); derive.api_key_env names the variable that holds the key
    from objstore.core.redact import check_name   # deferred: the rules compile at import
    check_name(text.strip(), f"setting {name}", where="config.toml", hint=_SECRET_HINT.get(name, _SECRET_HINT[""]),
               url=name.endswith("url"))
    v = parse(name, text)
    if name == "capture.ignore_marker" and (why := marker_problem(v)):
        raise InvalidInput(f"capture.ignore_marker {why}", hint="set it with: mem config capture.ignore_marker '#nomem'")
    if name == "store.pack_codec" and v == "zstd":  # refused now, not at the first pack write
        from objstore.core.packzstd import missing  # deferred: only this setting needs the codec
        problem = missing(f"setting {name} = zstd")
        if problem is not None:
            raise problem
    table, key = name.split(".", 1)
    try:
        return v, set_value(Path(root) / CONFIG_FILE, table, key, v)
    except OSError as e:
        if e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise ReadOnlyStore(f"the store at {root} is read-only ({(e.strerror or str(e)).lower()}): "
                                "writing is not possible") from None
        raise
