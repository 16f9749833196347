"""Greek accents are folded in search (test26b W5, session 29): a generation
with ``GenFormat.greek_fold`` indexes a body's Greek letters without their
diacritics (``folds.greek_fold``: tonos, dialytika, the polytonic marks) and a
query word is folded the same way, so ``ΑΘΗΝΑ``, ``αθηνα`` and ``Αθηνα`` find
``Αθήνα``; an older generation (no fold) is still searched with the word as it
is spelled, and ``mem reindex`` upgrades it.  Search, recall, the glued-word
check (``holds_term``, ``glued_in``) and the substring prefilter agree
(docs/format.md, "Analyzers", "Queries")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from recall_helpers import turn

from objstore import remember
from objstore.index.analysis import glued_in, greek_fold, holds_term, index_terms, tokenize, word_pairs
from objstore.index.schema import read_format
from objstore.memory.opening import open_store
from objstore.retrieval.recall import recall
from objstore.retrieval.search import search

REPO = Path(__file__).resolve().parents[2]

FACTS = {"project/g/athens": "Αθήνα city office", "project/g/logos": "λόγος ends in sigma",
         "project/g/odysseus": "Οδυσσεύς came home", "project/g/virtue": "ἀρετῇ καὶ λόγῳ polytonic",
         "project/g/cafe": "café crème downstairs", "project/g/plain": "Οδυσσευς without accents"}
#: query -> the keys it must find (as a set: the ranking is not what is checked)
EXPECT = {"ΑΘΗΝΑ": {"project/g/athens"}, "αθηνα": {"project/g/athens"}, "Αθηνα": {"project/g/athens"},
          "Αθήνα": {"project/g/athens"}, "ΆΘΉΝΑ": {"project/g/athens"},
          "λογος": {"project/g/logos"}, "ΛΟΓΟΣ": {"project/g/logos"}, "λόγος": {"project/g/logos"},
          "Οδυσσεύς": {"project/g/odysseus", "project/g/plain"}, "οδυσσευς": {"project/g/odysseus", "project/g/plain"},
          "ΟΔΥΣΣΕΥΣ": {"project/g/odysseus", "project/g/plain"},
          "αρετη": {"project/g/virtue"}, "ἀρετή": {"project/g/virtue"}, "λογω": {"project/g/virtue"},
          "CAFE": {"project/g/cafe"}, "creme": {"project/g/cafe"}, "café": {"project/g/cafe"}}


def _keys(store, q: str, kinds=("fact",)) -> set[str]:
    return {h.ref for h in search(store, q, kinds=kinds)}


def test_the_fold_drops_greek_diacritics_only():
    assert greek_fold("Αθήνα") == "Αθηνα" and greek_fold("ΆΘΉΝΑ") == "ΑΘΗΝΑ"
    assert greek_fold("ἀρετῇ ΐ ΰ ᾼ ῷ") == "αρετη ι υ Α ω"          # breathings, accents, iota subscript
    assert greek_fold("λόγος") == "λογος"                            # the final sigma is kept
    assert greek_fold("α\u0304\u0301ρ") == "αρ"                        # marks NFC could not compose
    for latin in ("café crème", "İstanbul", "naïve façade", "x\u0301", "日本語"):
        assert greek_fold(latin) == latin                           # Latin folding is the analyzers' own
    assert tokenize("ΑΘΗΝΑ Αθήνα") == ["αθηνα", "αθηνα"]
    assert tokenize("Αθήνα", greek=False) == ["αθήνα"]              # as an older generation holds it
    assert index_terms("Οδυσσεύς CAFÉ") == ["οδυσσευς", "cafe"]


def test_facts_are_found_by_every_spelling(store):
    for k, v in FACTS.items():
        remember(store, k, v)
    got = {q: _keys(store, q) for q in EXPECT}
    assert got == EXPECT
    assert not _keys(store, "αθηνων")                                # a fold, not a prefix or a stem match


def test_turns_and_recall_find_them_alike(store, add_sessions):
    add_sessions({"s1": [turn("we met in Αθήνα near the λόγος plaque"), turn("a turn about nothing")],
                  "s2": [turn("nothing Greek here at all")]})
    for q in ("ΑΘΗΝΑ", "αθηνα", "Αθήνα", "λογος", "ΛΟΓΟΣ"):
        hits = search(store, q, kinds=("turn",))
        assert [h.ref for h in hits] == ["s1"], q
        assert "Αθήνα" in hits[0].snippet, q                         # the snippet finds the folded word
        got = recall(store, q, what="turns")
        assert got.hits and "Αθήνα" in got.hits[0].text, q
        assert {h.session for h in got.hits} == {"s1"}, q


def test_the_glued_check_and_holds_term_fold_alike():
    body = "see Αθήνα.py and re-index λόγος"
    assert holds_term(body, "αθηνα", False) and holds_term(body, "αθήνα", False)   # old and new terms alike
    assert holds_term(body, "λογος", True)
    assert not holds_term(body, "ρωμη", False)
    assert word_pairs("ΑΘΗΝΑ.py") == ("αθηνα_py",) and glued_in(body, word_pairs("ΑΘΗΝΑ.py"))
    assert glued_in(body, word_pairs("αθηνα.PY")) and not glued_in("Αθήνα py", word_pairs("αθηνα.py"))


def test_the_substring_prefilter_still_finds_the_spelled_word(store):
    """``plain`` keeps the diacritics (a ``forget --match`` is a literal,
    case-folded substring): the prefilter of a folded generation still
    names the document for its own spelling and for a case change."""
    remember(store, "project/g/athens", "Αθήνα city office")
    refs = store.index.substring_candidate_refs("Αθήνα city", kind="fact")
    assert refs is not None and "project/g/athens" in refs.values()
    refs = store.index.substring_candidate_refs("ΑΘΉΝΑ", kind="fact")
    assert refs is not None and "project/g/athens" in refs.values()


def _mem(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(MEM_HOME=str(home), MEM_NO_HELPER="1")
    return subprocess.run([sys.executable, "-m", "cmds", *args], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=300)


def _text_tokenizers(sub: Path) -> list[str]:
    """The ``text`` tokenizer of each live generation of sub-index folder ``sub``."""
    out = []
    for g in (sub / "CURRENT").read_text().split():
        if g.startswith("gen-"):
            fields = {f["name"]: f for f in json.loads((sub / g / "meta.json").read_text())["schema"]}
            out.append(fields["text"]["options"]["indexing"]["tokenizer"])
    return out


def test_an_older_generation_is_searched_as_spelled_and_reindex_upgrades_it(tmp_path, add_sessions):
    """A store whose facts and turns an older ``mem`` indexed (its writers'
    format without ``greek_fold``): ``Αθήνα`` still finds them, the
    unaccented spellings do not yet; ``mem reindex`` rebuilds the
    generations folded, and then every spelling finds them (real processes)."""
    home = tmp_path / "store"
    st = open_store(home, create=True)
    try:
        for kind in ("fact", "turn"):
            sub = st.index._subs[kind]
            sub.new_fmt = sub.new_fmt.replace(greek_fold=False)      # an older mem's writer
        remember(st, "project/g/athens", "Αθήνα city office")
        from objstore.retrieval.evaluate import write_sessions
        write_sessions(st, [("s1", [turn("we met in Αθήνα near the plaque")])])
    finally:
        st.close()
    idx = home / "index"
    olds = _text_tokenizers(idx / "facts") + _text_tokenizers(idx / "turns")
    assert olds and not any(t.endswith("_g") for t in olds)

    def found(q: str) -> set[str]:
        r = _mem(home, "search", "--json", q)
        assert r.returncode == 0, r.stderr
        return {h.get("key") or h.get("session") for h in json.loads(r.stdout)}

    assert found("Αθήνα") == {"project/g/athens", "s1"}
    assert found("αθήνα") == {"project/g/athens", "s1"}             # (case: as before)
    assert found("αθηνα") == set()                                   # not folded there until a reindex
    r = _mem(home, "reindex")
    assert r.returncode == 0, r.stderr
    news = _text_tokenizers(idx / "facts") + _text_tokenizers(idx / "turns")
    assert news and all(t.endswith("_g") for t in news)
    for g in (idx / "facts" / "CURRENT").read_text().split():
        if g.startswith("gen-"):
            assert read_format(idx / "facts" / g).greek_fold
    for q in ("Αθήνα", "ΑΘΗΝΑ", "αθηνα", "Αθηνα"):
        assert found(q) == {"project/g/athens", "s1"}, q


def test_the_prompt_gate_takes_every_spelling_as_one_cue(tmp_path):
    """``mem context --prompt`` (the UserPromptSubmit hook's gate, a real
    process) cuts its cues with the index's analysis: the three spellings
    of one Greek word give the one folded cue, the term the index holds."""
    home, trace = tmp_path / "store", tmp_path / "trace.jsonl"
    r = _mem(home, "remember", "project/gr/office", "the Αθήνα office router is in room 4")
    assert r.returncode == 0, r.stderr
    for p in ("which router does the Αθήνα office use", "which router does the ΑΘΗΝΑ office use",
              "which router does the αθηνα office use"):
        env_trace = {"MEM_TRACE": str(trace)}
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
        env.update(MEM_HOME=str(home), MEM_NO_HELPER="1", **env_trace)
        r = subprocess.run([sys.executable, "-m", "cmds", "context", "--project", "gr", "--prompt", p],
                           capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
        assert r.returncode == 0, r.stderr
    cues = [json.loads(line)["cues"]["prompt"] for line in trace.read_text(encoding="utf-8").splitlines()]
    assert len(cues) == 3 and cues[0] == cues[1] == cues[2]
    assert "αθηνα" in cues[0] and index_terms("Αθήνα") == ["αθηνα"]


def test_the_suffix_marks_the_fold_after_a_simple_name_only(tmp_path):
    """``read_format`` takes ``greek_fold`` from the ``_g`` at the end of a
    ``mem_simple_stem`` name and the rest from the name before it; after
    another name the suffix is an unknown tokenizer (a damaged schema)."""
    import pytest

    from objstore.index.errors import IndexCorruptError
    from objstore.index.searchindex import IndexDoc, SearchIndex
    root = tmp_path / "index"
    ix = SearchIndex(root)
    try:
        ix.add([IndexDoc("ab" * 32, "fact", "project/x/a", 1, "x", "note", "Αθήνα city")])
        assert {h.ref for h in ix.search("ΑΘΗΝΑ", kinds=("fact",))} == {"project/x/a"}
    finally:
        ix.close()
    gen = next(root.joinpath("facts", g) for g in (root / "facts" / "CURRENT").read_text().split()
               if g.startswith("gen-"))
    text = (gen / "meta.json").read_text()
    fmt = read_format(gen)
    assert fmt.greek_fold and fmt.tokenizer == "mem_simple_stem_k_g" and fmt.id_key_field
    (gen / "meta.json").write_text(text.replace('"mem_simple_stem_k_g"', '"mem_simple_stem_k"'))
    assert not read_format(gen).greek_fold and read_format(gen).id_key_field
    (gen / "meta.json").write_text(text.replace('"mem_simple_stem_k_g"', '"mem_stem_g"'))
    with pytest.raises(IndexCorruptError, match="unknown tokenizer"):
        read_format(gen)
