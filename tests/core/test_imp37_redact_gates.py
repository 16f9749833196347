"""imp37 (issue 12): the env-var default rule (test25b U3) runs behind a gate derived from its pattern
(``redact.envdefault.env_default_gate``).  The gate must hold wherever the rule matches (gate ⊇ rule), so the
gated pass answers exactly as the plain pass: checked on the redaction tests' own texts, the test data's
redaction files, a generated corpus, and texts built from the rule's grammar (every branch, spacing, case)."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path

from objstore.core.redact import prefilter, redact
from objstore.core.redact.envdefault import env_default_gate, scan_env_default
from objstore.core.redact.rules import RULES
from objstore.core.redact.scanners import scan_plain
from tests.conftest import REPO, gen_corpus

RULE = next(r for r in RULES if r.scan is scan_env_default)

NAMES = ("SECRET_KEY", "api_key", "DB_PASSWORD", "token", "Stripe_Key", "jwt_secret", "PASSWD", "auth_token_prod")
ANNOTS = ("", ": str", ":str", " :\tOptional[str]", ": str | None", ": SecretStr", ":  STR|none")
QUOTES = ("", "'", '"', "\\\"", "']")
CALLS = ("os.environ.get", "environ.get", "os.getenv", "getenv", "config", "env", "env.str", "Field",
         "OS.GETENV", "Config")
VALUES = ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "Zx9!kQ2#pL8@vN4w", "hunter2hunter2", "changeme", "${SECRET}",
          "AKIAIOSFODNN7EXAMPLE12")


def _sp(r: random.Random, most: int) -> str:
    return "".join(r.choice(" \t") for _ in range(r.randint(0, most)))


def _built(r: random.Random) -> str:
    """One text from the rule's grammar: a name, maybe a quote and an annotation, ``=``/``:``, an env read
    or an annotation's ``=``, a literal; spacing at and past the pattern's bounds, random case."""
    name, q, value = r.choice(NAMES), r.choice(QUOTES), r.choice(VALUES)
    lq = r.choice(("'", '"', "`", "\\\""))
    form = r.randrange(4)
    if form == 0:
        read = (f"{r.choice(CALLS)}{_sp(r, 5)}({_sp(r, 5)}'NAME_{r.randrange(99)}'{_sp(r, 5)},{_sp(r, 9)}"
                + r.choice(("", "default=", "default = ")))
    elif form == 1:
        read = f"Field{_sp(r, 5)}({_sp(r, 5)}default{_sp(r, 5)}={_sp(r, 5)}"
    elif form == 2:
        read = (r.choice((f"process.env.{name}", f"process.env['{name}']", f'process.env[\\"{name}\\"]'))
                + _sp(r, 9) + r.choice(("||", "??", "|")) + _sp(r, 9))
    else:
        return f"{name}{q}{r.choice(ANNOTS[1:])}{_sp(r, 9)}={_sp(r, 9)}{lq}{value}{lq}"
    text = f"{name}{q}{r.choice(ANNOTS)}{_sp(r, 9)}{r.choice('=:')}{_sp(r, 9)}{read}{lq}{value}{lq})"
    return "".join(c.upper() if r.random() < 0.2 else c for c in text)


def _test_texts() -> list[str]:
    """Every string constant of the redaction tests, and every test data file of the redaction's."""
    out = []
    for f in sorted((REPO / "tests" / "core").glob("test_*red*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= 8:
                out.append(node.value)
    for f in sorted((REPO / "tests" / "data" / "redaction").rglob("*")):
        if f.is_file():
            out.append(f.read_text(encoding="utf-8", errors="replace"))
    return out


def _check(texts: list[str]) -> int:
    """Assert the gate holds wherever the rule matches and the gated pass appends what the plain pass
    does; the number of texts the rule matches in."""
    matched = 0
    for text in texts:
        low = prefilter.lower(text)
        if any(True for _ in RULE.lowered.finditer(low)):
            matched += 1
            assert env_default_gate(low, 0, len(low)), text
        plain: list = []
        gated: list = []
        scan_plain(RULE, text, 0, len(text), plain, low, 0)
        scan_env_default(RULE, text, 0, len(text), gated, low, 0)
        assert gated == plain, text
    return matched


def test_the_gate_holds_on_texts_built_from_the_rule_grammar():
    r = random.Random(37)
    texts = [_built(r) for _ in range(3000)]
    texts += [f"x = 1\n{t}\n# end" for t in texts[:500]]
    assert _check(texts) > 1000   # the grammar reaches the rule: the check is not empty


def test_the_gate_holds_on_the_redaction_tests_texts():
    texts = _test_texts()
    assert len(texts) > 1000
    assert _check(texts) >= 3   # test25b U3's own examples match


def test_the_gate_holds_on_a_generated_corpus(tmp_path):
    gen_corpus(tmp_path / "c", "--sessions", "6", "--turns", "80", "--seed", "37")
    texts = [json.dumps(json.loads(ln)) for f in sorted((tmp_path / "c").rglob("*.jsonl"))
             for ln in f.read_text(encoding="utf-8").splitlines() if ln.strip()]
    assert len(texts) > 100
    _check(texts)


def test_a_window_without_the_gate_is_not_scanned_and_one_with_it_is():
    code = "print(config('DB_HOST'))\nrows = list(field(x) for x in env(y))\n" * 50   # anchors, no assignment
    assert not env_default_gate(code.lower(), 0, len(code))
    hit = redact(code + "SECRET_KEY = os.getenv('SECRET_KEY', 'q8W2zR5tY7uI1oP3aS6d')\n")
    assert [h.rule for h in hit.hits] == ["generic-secret"]
    assert "q8W2zR5tY7uI1oP3aS6d" not in hit.text
