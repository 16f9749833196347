"""test43 T13, T17: a ``forget --match`` name came back in the clear spelled
as a URL (``Zephyrine%20Quillborough``, ``%2B``), a web page
(``&nbsp;``, ``&#32;``, ``&#x20;``) or a JSON string inside a JSON string
(``\\\\u0020``, ``\\\\n``), through an agent's write, the prompt hook and
an import (T13); and surname first ("Quillborough, Zephyrine",
"Zephyrine; Quillborough", "Quillborough Zephyrine"), which seal rules
cover for a two-word value said the other way round (T17).  Now the one
matching reads a text's escapes too (``core.webescapes.escapes_read`` in
``textwindows.text_spans``), and a two-word ``--match`` text has the
rules of its other order and of each order across one comma
(``tombstones.match_forms``).  Real ``mem`` processes; the store's bytes
after ``gc --prune=now``."""

from __future__ import annotations

from objstore import scan_store
from tests.hooks._util import wait_store_processes_gone
from tests.hooks.test_remember_asked import _Session
from tests.hooks.test_seal_later_turns import _mem
from tests.hooks.test_val43_value_parts import _env, _import_session

AGENT = {"MEM_AGENT": "claude"}
#: the escaped spellings (T13) and the surname-first ones (T17), each as written in the clear
ESCAPED = ["see https://crm.example.com/users?name=Zephyrine%20Quillborough", "<td>Zephyrine&nbsp;Quillborough</td>",
           "Zephyrine&#32;Quillborough wrote", "mailto:Zephyrine%2BQuillborough%20%3Cz@example.com%3E",
           'payload {"name": "Zephyrine\\\\u0020Quillborough"}', 'log "Zephyrine\\\\nQuillborough"',
           "Zephyrine&#x20;Quillborough"]
REVERSED = ["Quillborough, Zephyrine", "Zephyrine, Quillborough", "Quillborough Zephyrine", "name: Zephyrine; Quillborough",
            "zephyrine,quillborough"]
LEAKS = [x for x in (b"Zephyrine%20Quillborough", b"Zephyrine&nbsp;Quillborough", b"Zephyrine&#32;",
                              b"Zephyrine%2BQuillborough", b"Zephyrine\\\\u0020", b"Zephyrine\\\\nQuillborough",
                              b"Quillborough, Zephyrine", b"Zephyrine; Quillborough", b"Quillborough Zephyrine")]


def test_a_forgotten_name_escaped_or_surname_first_never_comes_back(tmp_path):
    s = _Session(tmp_path)
    env = _env(s)
    _mem(env, "init")
    _mem(env, "forget", "--match", "Zephyrine Quillborough", "--yes")
    agent = {**env, **AGENT}
    wrong = [b for b in ESCAPED + REVERSED
             if _mem(agent, "remember", "project/t/u", b, ok=(0, 6)).returncode != 6]
    assert not wrong, wrong
    for i, b in enumerate(("AT&T 100% up; the Quillborough estate", "rates 5%20 off &amp; more, Zephyrine said")):
        _mem(agent, "remember", f"project/t/ok{i}", b)   # no escape of the name: written as said
    s.prompt("look: " + ESCAPED[0] + " and " + ESCAPED[1])
    s.prompt("the directory lists Quillborough, Zephyrine; ok")
    s.stop("Noted: " + ESCAPED[2])
    wait_store_processes_gone(s.store)
    _import_session(tmp_path, env, [ESCAPED[4], ESCAPED[5], REVERSED[3], ESCAPED[6]])
    _mem(env, "gc", "--prune=now")
    found = scan_store(s.store, [x.replace(b"\\\\", b"\\") for x in LEAKS] + LEAKS)
    assert found == [], found
    shown = _mem(env, "show", s.sid[:8]).stdout
    assert "the directory lists [forgotten]; ok" in shown, shown
    assert _mem(env, "get", "project/t/ok0").stdout.strip() == "AT&T 100% up; the Quillborough estate"


def test_mem_scan_names_an_escaped_or_surname_first_place_spelled_otherwise(tmp_path):
    env = {"MEM_HOME": str(tmp_path / "s"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    _mem(env, "init")
    _mem(env, "remember", "project/t/a", "see https://x.example/u?name=Zephyrine%20Quillborough")
    _mem(env, "remember", "project/t/b", "Quillborough, Zephyrine")
    out = _mem(env, "scan", "Zephyrine Quillborough", ok=(1,)).stdout
    assert out.count("(spelled otherwise)") == 2 and "project/t/a" in out and "project/t/b" in out, out


def test_a_sealed_value_spelled_with_escapes_is_withheld(tmp_path):
    from tests.hooks.test_seal_two_word_values import sealed_session
    s, env = sealed_session(tmp_path, ["Kestrel-5517", "maple otter"], "e44")
    agent = {**env, **AGENT}
    for body in ("use Kestrel%2D5517 now", "maple%20otter", "<b>maple&nbsp;otter</b>", 'x "maple\\\\u0020otter"'):
        r = _mem(agent, "remember", "project/t/s", body, ok=(6,))
        assert "sealed" in r.stderr, (body, r.stderr)
    _mem(agent, "remember", "project/t/ok", "AT&T 100% up, maple, otter and deer")
    s.prompt("the page says maple&#32;otter and Kestrel%2D5517")
    s.stop("ok")
    wait_store_processes_gone(s.store)
    _mem(env, "gc", "--prune=now")
    assert scan_store(s.store, [b"maple&#32;otter", b"Kestrel%2D5517", b"maple%20otter", b"maple&nbsp;otter"]) == []
    shown = _mem(env, "show", s.sid[:8]).stdout
    assert "the page says [REDACTED:sealed-value] and [REDACTED:sealed-value]" in shown, shown
