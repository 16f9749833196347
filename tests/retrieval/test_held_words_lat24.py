"""The words a turn holds, read from the index's postings
(``SearchIndex.held_words``) instead of from the turn: recall's coverage
factor and the prompt hook's matched terms (session 24, lat24).  The index
holds a turn's whole text, so a word past the part the old readings looked
at (recall: the first 4,000 characters; the hook: the first 20,000) counts."""

from __future__ import annotations

from recall_helpers import turn

from objstore.index.searchindex import index_terms
from objstore.retrieval.inject import inject_for_prompt
from objstore.retrieval.recall import recall

#: distinct filler words (none a query word of these tests, none stemmed into one)
FILLER = " ".join(f"lorem{i:05d}" for i in range(4_000))   # 40,000 characters


def _ids(store, session):
    return {h.seq: h.id for h in store.index.turns_at(session, range(10)).values()}


def test_held_words_are_the_indexed_words_of_each_turn(store, add_sessions):
    add_sessions({"a": [turn("The databases migrated overnight, the staging one failed."),
                        turn("Nothing about that here.")],
                  "b": [turn(FILLER + " and then the zeppelin hangar database")]})
    a, b = _ids(store, "a"), _ids(store, "b")
    words = ["database", "migration", "zeppelin", "failing", "absentword"]
    turns = [("a", 0, a[0]), ("a", 1, a[1]), ("b", 0, b[0])]
    held = store.index.held_words(turns, words)
    # stemmed as the index stems: "databases" holds "database", "migrated" "migration", "failed" "failing"
    assert held[a[0]] == {"database", "migration", "failing"}
    assert held[a[1]] == frozenset()
    assert held[b[0]] == {"zeppelin", "database"}   # past its first 40,000 characters
    for s, _q, oid in turns:   # the same as the terms of each whole text
        text = store.get(oid).text
        assert held[oid] == {w for w in words if index_terms(w)[0] in set(index_terms(text))}
    # a turn the index does not hold is left out (the caller reads it); no word: presence alone
    assert store.index.held_words([("nosuch", 0, "0" * 64), ("a", 7, "1" * 64)], words) == {}
    assert store.index.held_words(turns, []) == {a[0]: frozenset(), a[1]: frozenset(), b[0]: frozenset()}
    assert store.index.held_words([], words) == {}


def test_more_words_than_one_query_asks_about(store, add_sessions):
    words = [f"w{i}x" for i in range(40)]
    add_sessions({"a": [turn(" ".join(words[::3]))]})
    a = _ids(store, "a")
    assert store.index.held_words([("a", 0, a[0])], words)[a[0]] == set(words[::3])


def test_recall_counts_the_words_a_long_turn_holds_past_4000_characters(store, add_sessions):
    """The coverage factor of a turn holding the question's words only past
    its first 4,000 characters was 0 (its score with it): ranked under a
    short turn holding one of them."""
    add_sessions({"long": [turn(FILLER[:4_500] + " The zeppelin hangar moved to the north field.")],
                  "short": [turn("zeppelin zeppelin zeppelin")],
                  **{f"o{i}": [turn(f"unrelated note {i} about lunch")] for i in range(10)}})
    res = recall(store, ["where is the zeppelin hangar"], projects=("acme",), what="turns")
    assert [h.session for h in res.hits][:2] == ["long", "short"], [(h.session, h.score) for h in res.hits]


def test_the_hook_matches_a_turns_words_past_20000_characters(store, add_sessions):
    """The prompt hook matched a candidate turn's terms in its first 20,000
    characters: a long tool output stating the answer at its end matched
    nothing and was never injected."""
    add_sessions({"past": [turn(FILLER + "\nThe flaky test_orders failure came from local time versus UTC in "
                                "the orders fixture; freezing time with time-machine fixed it.", "assistant")],
                  **{f"o{i}": [turn(f"unrelated note {i} about lunch")] for i in range(10)}})
    inj = inject_for_prompt(store, "now", "test_orders flaky again at midnight, time-machine fixture?",
                            project="acme")
    assert [c.kind for c in inj.injected] == ["turn"], inj.trace
    assert "earlier session past" in inj.text and "time-machine" in inj.text
