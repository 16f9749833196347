"""test18 U8, the MCP half: the ``forget`` tool's confirm token was bound to
the arguments, not to what the preview showed, so a version written between
the preview and the confirming call was forgotten too (the preview said 1
version, the answer 2).  Now the token binds the previewed ids: the
confirmed call plans again under the store lock and, when that plan names a
version the preview did not, forgets nothing and answers ``conflict``
(``objstore.check_previewed``, the CLI prompt's check).  The official SDK's
client against a real ``mem mcp --admin`` process; the other writer is a
real ``mem remember`` process."""

from __future__ import annotations

import anyio
import pytest

pytest.importorskip("mcp")

from mcp_helpers import stdio_session  # noqa: E402
from tests.conftest import fact_chain  # noqa: E402

KEY = "project/a/y"


def _sc(res) -> dict:
    assert not res.is_error, res.content
    return res.structured_content


def test_a_version_written_after_the_preview_is_not_forgotten_unseen(mem, store_path):
    mem("remember", KEY, "alpha value")

    async def main():
        async with stdio_session("--admin") as s:
            p = _sc(await s.call_tool("forget", {"target": KEY}))
            assert p["preview"]["counts"]["versions"] == 1
            mem("remember", KEY, "beta written after the preview")        # another writer, meanwhile
            res = await s.call_tool("forget", {"target": KEY, "confirm": p["confirm"]})
            assert res.is_error, res.structured_content
            text = res.content[0].text
            assert text.startswith("conflict: 1 more fact version or turn") and "nothing was forgotten" in text
            assert [b for _v, _f, b in fact_chain(store_path, KEY)] == ["beta written after the preview",
                                                                         "alpha value"]
            # the token is spent: the person is shown the new preview before anything goes
            res = await s.call_tool("forget", {"target": KEY, "confirm": p["confirm"]})
            assert res.is_error and "already used" in res.content[0].text
            p = _sc(await s.call_tool("forget", {"target": KEY}))
            assert p["preview"]["counts"]["versions"] == 2
            done = _sc(await s.call_tool("forget", {"target": KEY, "confirm": p["confirm"]}))
            assert done["done"] is True and done["forgotten"]["versions"] == 2
            assert fact_chain(store_path, KEY) == []

            # KEY@vN names one version: a later version of the key is not in its plan, and stays
            mem("remember", "project/a/z", "one")
            mem("remember", "project/a/z", "two")
            p = _sc(await s.call_tool("forget", {"target": "project/a/z@v1"}))
            assert p["preview"]["counts"]["versions"] == 1
            mem("remember", "project/a/z", "three")
            done = _sc(await s.call_tool("forget", {"target": "project/a/z@v1", "confirm": p["confirm"]}))
            assert done["forgotten"]["versions"] == 1
            assert [(v, f) for v, f, _b in fact_chain(store_path, "project/a/z")] == [(3, False), (2, False),
                                                                                       (1, True)]
    anyio.run(main)


def test_a_version_written_after_the_seal_preview_is_not_sealed_unseen(mem, store_path, tmp_path):
    """q20: the ``seal`` tool's token was bound to its arguments only, so a
    version written after the preview was sealed (and its plaintext removed)
    too.  Now it binds the versions its preview counted, as ``forget``'s does:
    ``conflict``, nothing sealed; a new preview shows both and seals both."""
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple q20\n")
    mem("vault", "init", "--passphrase-file", str(pp))
    mem("remember", KEY, "alpha value")

    async def main():
        async with stdio_session("--admin") as s:
            p = _sc(await s.call_tool("seal", {"key": KEY}))
            assert p["preview"]["versions"] == 1
            mem("remember", KEY, "beta written after the preview")        # another writer, meanwhile
            res = await s.call_tool("seal", {"key": KEY, "confirm": p["confirm"]})
            assert res.is_error, res.structured_content
            text = res.content[0].text
            assert text.startswith("conflict: 1 more fact version") and "nothing was sealed" in text, text
            assert [b for _v, _f, b in fact_chain(store_path, KEY)] == ["beta written after the preview",
                                                                         "alpha value"]
            assert not (store_path / "refs" / "sealed").exists() or not any((store_path / "refs" / "sealed").rglob("*"))
            p = _sc(await s.call_tool("seal", {"key": KEY}))
            assert p["preview"]["versions"] == 2
            done = _sc(await s.call_tool("seal", {"key": KEY, "confirm": p["confirm"]}))
            assert done["done"] is True and done["sealed"] == 2 and done["removed"] == 2
            assert fact_chain(store_path, KEY) == []
    anyio.run(main)
