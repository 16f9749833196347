"""The notes of forgets stopped before they wrote all their tombstones
(``objstore.core.unfinished``, docs/format.md "Unfinished forgets"): the
bytes, what lists them, what settles them, and what refuses while they stand."""

from __future__ import annotations

import pytest

from objstore.core.errors import ForgetUnfinished
from objstore.core.unfinished import refuse_while_unfinished
from objstore.memory.forget import forget, forget_selector
from objstore.memory.opening import open_store
from objstore.memory.recovery import recover


@pytest.fixture
def st(tmp_path):
    s = open_store(tmp_path / "s", create=True)
    yield s
    s.close()


def test_worked_example_bytes(st):
    """docs/format.md's example: name and content, byte for byte."""
    kind, sel = forget_selector(match="  QuixoticMarker ")      # the normalized text's digest
    assert (kind, sel) == ("match", "89cbf077899562f6a6daf64bfc974b0b64922ed1634cf74036128bcc1171d1f3")
    st.unfinished.mark(kind, sel, 1796219641306, "forget")
    p = st.root / "forget-unfinished" / "873b234fae3712e6f39901d51e0dd685"
    assert p.read_bytes() == (b"match\t89cbf077899562f6a6daf64bfc974b0b64922ed1634cf74036128bcc1171d1f3"
                              b"\t1796219641306\tforget\n")
    [s] = st.unfinished.list()
    assert (s.kind, s.time, s.command, s.path) == ("match", 1796219641306, "forget", p)
    assert "<the same text>" in s.rerun()
    assert st.unfinished.done(kind, sel) and st.unfinished.list() == []
    assert not st.unfinished.done(kind, sel)


def test_reruns_named_for_every_kind(st):
    st.unfinished.mark("what", "project/a/pw", 2, "forget")
    st.unfinished.mark("session", "0123abcd", 3, "forget")
    st.unfinished.mark("what", "user/x", 4, "seal")
    assert [s.rerun() for s in st.unfinished.list()] == [
        "mem forget project/a/pw --yes", "mem forget --session 0123abcd --yes", "mem seal user/x"]
    with pytest.raises(ValueError):
        st.unfinished.mark("what", "a\tb", 5)
    with pytest.raises(ValueError):
        st.unfinished.mark("nope", "x", 5)


def test_a_note_that_does_not_read_still_refuses(st):
    (st.root / "forget-unfinished").mkdir()
    (st.root / "forget-unfinished" / ("ab" * 16)).write_bytes(b"\xff garbage")
    [s] = st.unfinished.list()
    assert s.kind == "?"
    with pytest.raises(ForgetUnfinished) as e:
        refuse_while_unfinished(st.unfinished, "push")
    assert e.value.exit_code == 6 and "push refused" in str(e.value)


def test_a_journal_u_line_settles_the_note_and_recovery_deletes_it(st):
    """A forget killed between its D+U append and deleting its note: the
    note no longer counts, and the next lock holder deletes it."""
    st.unfinished.mark("what", "project/a/pw", 2)
    name = st.unfinished.name("what", "project/a/pw")
    st.journal.append([f"D\t{'0' * 64}", f"U\t{name}"])
    assert st.unfinished.list() == []
    refuse_while_unfinished(st.unfinished, "push")          # does not raise
    assert (st.root / "forget-unfinished" / name).exists()
    with st.lock("test"):                                   # runs recovery
        pass
    assert not (st.root / "forget-unfinished" / name).exists()
    assert st.journal.is_empty()
    recover(st)                                              # idempotent
    assert not st.unfinished.discard("not-a-note-name/../x")


def test_a_finished_forget_leaves_no_note(st):
    from objstore.memory.facts import remember
    remember(st, "project/a/one", "the pin is 4471-ocelot")
    remember(st, "project/a/two", "nothing secret here")
    forget(st, match="4471-ocelot")
    forget(st, what="project/a/two")
    assert list((st.root / "forget-unfinished").iterdir()) == []


def test_gc_removes_the_temporary_file_of_a_note_whose_writer_was_killed(st):
    """``atomic_write``'s ``.NAME.tmpPID`` beside the notes, left by a forget
    killed while it wrote its note: a leftover gc deletes, like the others;
    the notes themselves stay."""
    from objstore.core.gc import gc
    st.unfinished.mark("what", "project/a/pw", 2, "forget")
    tmp = st.root / "forget-unfinished" / ".db8778c0899058c1c8647d0b5f50bcb2.tmp19220"
    tmp.write_bytes(b"what\tproject/a/pw")
    gc(st, grace_s=0)
    assert not tmp.exists()
    assert [s.selector for s in st.unfinished.list()] == ["project/a/pw"]
