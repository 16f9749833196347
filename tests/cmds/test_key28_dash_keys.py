"""key28 (test27b X2): an agent wrote ``project/api/deploy‐day`` (U+2010
HYPHEN), ``deploy−day`` (U+2212), ``deploy–day`` (U+2013), ``deploy˗day``
(U+02D7), ``deploy day`` and ``deploy--day`` beside the person's
``project/api/deploy-day``, and recall ranked two of them first.  Each is
now queued like the other look-alikes (the one key form,
``objstore.core.lookalike.key_skeleton``), with or without the
confusables extra (the CLI case for each: test_mend27_lookalike_keys.VARIANTS); a
person's own key may hold them and is shown escaped.  Real ``mem`` processes."""

from __future__ import annotations

import json
import os
from importlib.resources import files
from pathlib import Path

from objstore.core.lookalike import _DASH_SOURCES, key_skeleton

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
AGENT = {"MEM_AGENT": "claude"}
DASHES = ["deploy\u2010day", "deploy\u2212day", "deploy\u2013day", "deploy\u02d7day", "deploy day", "deploy--day"]


def test_the_dash_look_alikes_share_the_key_form():
    want = key_skeleton("project/api/deploy-day")
    for k in [*DASHES, "deploy\u2014day", "deploy\u2011day", "deploy - day", "Deploy_-_Day", "deploy\u00a0day"]:
        assert key_skeleton(f"project/api/{k}") == want, k
    for k in ("deployday", "deploy-days", "deploy-night", "deploy"):
        assert key_skeleton(f"project/api/{k}") != want, k
    assert key_skeleton("project/api/\u30c7\u30fc\u30bf") != key_skeleton("project/api/\u30c7-\u30bf")  # ー is a letter
    # the ASCII path (one translate over every key joined) gives what each key alone gives
    names = ["project/api/deploy--day", "project/x/a  b", "user/x_._y"]
    assert key_skeleton("\n".join(names)).split("\n") == [key_skeleton(n) for n in names]


def test_the_built_in_dashes_are_the_confusables_table():
    """Without the extra, ``_prototype`` reads these as ``-``: they must be
    what confusables.txt (the package's table) reads as ``-``."""
    data = json.loads((files("confusable_homoglyphs") / "confusables.json").read_text())
    sources = {d["c"] for d in data["-"] if len(d["c"]) == 1}
    assert sources == _DASH_SOURCES


def test_without_the_confusables_extra_the_dashes_are_queued_too(mem, tmp_path):
    # an empty package of that name first on the path: its data files are not there, as without the extra
    (tmp_path / "shadow" / "confusable_homoglyphs").mkdir(parents=True)
    (tmp_path / "shadow" / "confusable_homoglyphs" / "__init__.py").write_text("")
    path = f"{tmp_path / 'shadow'}{os.pathsep}{Path(__file__).resolve().parents[2]}"
    mem("remember", "project/api/deploy-day", "Deploys happen on Friday", env={**PERSON, "PYTHONPATH": path})
    for variant in ("deploy\u2010day", "deploy\u2212day", "deploy\u2014day"):
        r = mem("remember", f"project/api/{variant}", "Deploys happen on Monday", "--json",
                env={**AGENT, "PYTHONPATH": path})
        assert r.json["written"] is False and r.json["queued"], (variant, r.stdout)
    assert len(mem("queue", "list", "--json").json) == 3
    assert _listed(mem, {"PYTHONPATH": path}) == ["project/api/deploy-day"]


def _listed(mem, env=None) -> list[str]:
    """The keys ``mem keys`` lists, as shown (a line: the key, two spaces, the version, ...)."""
    return [line.split("  ")[0] for line in mem("keys", env=env).stdout.splitlines()]


def test_a_persons_dash_key_is_written_and_shown_escaped(mem):
    """docs/format.md: a person's own key may hold a dash look-alike (a
    title pasted with its en dash; punctuation of other scripts); every
    listing shows the segment escaped, so it never looks like the ASCII key.
    An agent's ASCII key beside it is queued (either way round)."""
    mem("remember", "project/api/deploy\u2013day", "Deploys happen on Friday", env=PERSON)
    r = mem("remember", "project/api/deploy-day", "Deploys happen on Monday", "--json", env=AGENT)
    assert r.json["written"] is False and r.json["queued"], r.stdout
    show = mem("queue", "show", r.json["queued"][:12]).stdout
    assert "looks like the existing key project/api/deploy\\u2013day" in show
    mem("remember", "project/api/deploy-day", "the person's second key", env=PERSON)
    assert mem("get", "project/api/deploy-day").stdout.strip() == "the person's second key"
    assert mem("get", "project/api/deploy\u2013day").stdout.strip() == "Deploys happen on Friday"
    assert sorted(_listed(mem)) == ["project/api/deploy-day", "project/api/deploy\\u2013day"]
