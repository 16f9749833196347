"""fix14: ``mem seal`` of a plain key whose newest version is a 'lost'
placeholder (``mem fsck --repair``'s) dropped the placeholder and sealed the
older value as current; now the placeholder keeps its place as a sealed
lost stub.  And the readers of plain values say a sealed key is sealed with
one text (``served.sealed_message``): ``get`` exits 6 with it, ``recall``
notes a sealed key its question names instead of only "nothing
recalled"."""

from __future__ import annotations

from objstore.core.objects import Sealed, is_lost_stub, lost_sealed_age
from tests.conftest import word_in


def test_seal_keeps_the_place_of_a_lost_current_value(vstore, store_path, invoke, pwfile):
    pw = ["--passphrase-file", str(pwfile)]
    invoke("remember", "user/pin", "1111-kw")
    invoke("remember", "user/pin", "2222-kw")
    head = vstore.refs.read("facts/user/pin")
    (store_path / "objects" / head[:2] / head[2:]).write_bytes(b"garbage")
    invoke("fsck", "--repair", exit_code=13)
    invoke("get", "user/pin", exit_code=13)
    r = invoke("seal", "user/pin")
    assert "the place of v2, lost to damage, kept as a 'lost' placeholder" in r.stdout
    assert invoke("seal", "user/pin", "--json", exit_code=0).json["already"] is True
    stub = vstore.get(vstore.refs.read("sealed/user/pin"), Sealed)
    assert is_lost_stub(stub) and stub.version == 2 and stub.age == lost_sealed_age(head)
    r = invoke("sealed", "show", "user/pin", *pw, exit_code=13)    # never the older value as current
    assert "1111" not in r.stdout and "v2, kept as a 'lost' placeholder" in r.stderr
    assert invoke("sealed", "show", "user/pin", "--version", "1", *pw).stdout == "1111-kw\n"
    assert vstore.refs.read("facts/user/pin") is None                # the plain versions are gone
    invoke("remember", "user/pin", "3333-kw", "--sensitivity", "secret")   # a new value ends it
    assert invoke("sealed", "show", "user/pin", *pw).stdout == "3333-kw\n"


def test_get_and_recall_say_a_key_is_sealed_with_one_text(vstore, invoke):
    invoke("remember", "user/pin", "4821-kw", "--sensitivity", "secret")
    invoke("remember", "user/editor", "helix")
    text = "user/pin is sealed: its value is shown only by 'mem sealed show user/pin'"
    assert text in invoke("get", "user/pin", exit_code=6).stderr
    r = invoke("recall", "what is my pin", "--all-projects")
    assert f"note: {text}" in r.stderr and not word_in("4821", r.stdout + r.stderr)   # ids: hex
    assert invoke("recall", "what is my pin", "--all-projects", "--json").json["sealed"] == ["user/pin"]
    r = invoke("recall", "which editor do I use", "--all-projects")
    assert "is sealed" not in r.stderr and "helix" in r.stdout
    assert invoke("recall", "what is my pin", "--what", "turns", "--json").json["sealed"] == []


def test_a_sealed_ref_naming_another_keys_version_is_never_shown_or_written_on(vstore, store_path, invoke, pwfile):
    """test31b V8: ``refs/sealed/A`` naming B's sealed version made ``mem
    sealed show A`` print B's secret (exit 0).  Now every reader and writer
    of A refuses it (exit 13), ``sealed list`` skips it, and fsck names it;
    ``fsck --repair`` sets A to its own last version again (it said
    "nothing to repair": session 32)."""
    import shutil
    pw = ["--passphrase-file", str(pwfile)]
    invoke("remember", "user/pin-a", "a-secret-kw-one", "--sensitivity", "secret")
    invoke("remember", "user/pin-b", "b-secret-kw-two", "--sensitivity", "secret")
    d = store_path / "refs" / "sealed" / "user"
    shutil.copyfile(d / "pin-b", d / "pin-a")
    r = invoke("sealed", "show", "user/pin-a", *pw, exit_code=13)
    assert "b-secret" not in r.stdout and "names a version of another key (user/pin-b)" in r.stderr, r
    invoke("remember", "user/pin-a", "a-secret-kw-three", "--sensitivity", "secret", exit_code=13)
    assert "user/pin-a" not in invoke("sealed", "list").stdout
    assert "belongs to key 'user/pin-b'" in invoke("fsck", exit_code=13).stdout
    r = invoke("fsck", "--repair")
    assert "sealed/user/pin-a reached the versions of another key (user/pin-b): set to its own last" in r.stdout, r
    assert invoke("sealed", "show", "user/pin-a", *pw).stdout == "a-secret-kw-one\n"
    assert invoke("sealed", "show", "user/pin-b", *pw).stdout == "b-secret-kw-two\n"


def test_a_sealed_write_an_older_mem_made_on_another_keys_chain_is_put_back_on_its_own(vstore, invoke, pwfile):
    """test31b V8's second half: a sealed write on top of ``refs/sealed/A``
    naming B's version (an older mem wrote it: v2 of A whose parent is B's
    v1).  Every reader of A refuses the history (exit 13); ``fsck --repair``
    puts A's own newer version back on A's own v1, B's stays B's."""
    pw = ["--passphrase-file", str(pwfile)]
    invoke("remember", "user/pin-a", "a-secret-kw-one", "--sensitivity", "secret")
    invoke("remember", "user/pin-b", "b-secret-kw-two", "--sensitivity", "secret")
    invoke("remember", "user/pin-a", "a-secret-kw-three", "--sensitivity", "secret")
    a2, b1 = vstore.refs.read("sealed/user/pin-a"), vstore.refs.read("sealed/user/pin-b")
    with vstore.lock("test: an older mem's write on another key's chain"):
        bad = vstore.put(vstore.get(a2, Sealed).replace(parent=b1))
        vstore.update_ref("sealed/user/pin-a", a2, bad, "remember")
    r = invoke("sealed", "show", "user/pin-a", "--version", "1", *pw, exit_code=13)
    assert "b-secret" not in r.stdout and "another key (user/pin-b)" in r.stderr, r
    r = invoke("fsck", "--repair")
    assert "put back on it" in r.stdout, r.stdout
    assert invoke("sealed", "show", "user/pin-a", *pw).stdout == "a-secret-kw-three\n"
    assert invoke("sealed", "show", "user/pin-a", "--version", "1", *pw).stdout == "a-secret-kw-one\n"
    assert invoke("fsck").stdout.startswith("ok:")


def test_blame_revert_and_diff_of_a_sealed_key_say_what_they_do_instead(vstore, invoke):
    """fresh37 F9: blame and revert of a sealed key said its value is shown
    only by 'mem sealed show', though neither shows a value; F10: blame's
    help listed no exit 2."""
    invoke("remember", "user/pin", "4821-kw", "--sensitivity", "secret")
    invoke("remember", "user/pin", "4822-kw", "--sensitivity", "secret")
    for args, says in ((("blame", "user/pin"), "mem blame reads plain versions; 'mem log user/pin' lists"),
                       (("blame", "user/pin@v1"), "mem blame reads plain versions"),
                       (("revert", "user/pin"), "mem revert writes plain versions; an earlier sealed version"),
                       (("diff", "user/pin"), "mem diff compares plain values")):
        r = invoke(*args, exit_code=6)
        assert f"user/pin is sealed: {says}" in r.stderr, (args, r.stderr)
        assert "shown only by" not in r.stderr and "4821" not in r.stderr + r.stdout
    assert "2 a bad key or KEY@vN" in invoke("blame", "--help").stdout
