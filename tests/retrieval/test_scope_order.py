"""One name in several scopes (test28 Y10): recall scoped to a project puts
the project's own value first, then the person's, then the global one,
each in the places the three won; unscoped, a project's value keeps its
place (the question is not about that project).  keyrank rule 5."""

from __future__ import annotations

from types import SimpleNamespace as H

from objstore.memory.facts import remember
from objstore.retrieval.keyrank import narrower_first
from objstore.retrieval.recall import recall


def _keys(res):
    return [h.key for h in res.hits if h.kind == "fact"]


def test_the_project_value_comes_before_the_person_and_global_ones(store):
    remember(store, "project/api/style", "2 spaces in this repo")
    remember(store, "user/style", "spaces, 4 wide")
    remember(store, "global/style", "tabs")
    remember(store, "user/editor", "vim")
    remember(store, "project/api/editor", "helix for this repo")
    assert _keys(recall(store, ["indentation style"], projects=("api",)))[:3] == [
        "project/api/style", "user/style", "global/style"]
    assert _keys(recall(store, ["which editor do I use"], projects=("api",)))[:2] == [
        "project/api/editor", "user/editor"]
    unscoped = _keys(recall(store, ["indentation style"], projects=None))
    assert unscoped.index("user/style") < unscoped.index("global/style")


def test_other_hits_keep_their_places():
    hits = [H(kind="fact", key="global/style"), H(kind="turn", key=None), H(kind="fact", key="user/db"),
            H(kind="fact", key="project/api/style"), H(kind="fact", key="user/style")]
    got = [h.key for h in narrower_first(hits, scoped=True)]
    assert got == ["project/api/style", None, "user/db", "user/style", "global/style"]
    got = [h.key for h in narrower_first(hits, scoped=False)]
    assert got == ["user/style", None, "user/db", "project/api/style", "global/style"]


def test_the_person_comes_before_an_agent_whatever_the_scope(store):
    """test28b Z2: an agent's guess under the project does not go before
    the person's own user-wide value of the name."""
    remember(store, "user/style", "spaces, 4 wide")
    remember(store, "project/api/style", "tabs here I think", trust="agent_observed")
    assert _keys(recall(store, ["indentation style"], projects=("api",)))[:2] == ["user/style", "project/api/style"]


def test_same_name_keys_are_the_names_places_in_every_scope_a_reader_sees():
    """What the prompt hook looks up for a fact that cleared its gate (test28b Z10)."""
    from objstore.retrieval.keyrank import same_name_keys
    want = ["project/api/style", "project/api/remembered/style", "project/api-v2/style",
            "project/api-v2/remembered/style", "user/style", "user/remembered/style", "global/style"]
    assert same_name_keys("global/style", ("api", "api-v2")) == want
    assert same_name_keys("project/web/style", ("api", "api-v2")) == want
    assert same_name_keys("project/web/remembered/style", ("api", "api-v2")) == want   # the hook's key (test31 U10)
    assert same_name_keys("user/deploy/prod", ()) == ["user/deploy/prod", "user/remembered/deploy/prod",
                                                      "global/deploy/prod"]
    assert same_name_keys("session:abc", ("api",)) == []
    assert same_name_keys("project/api", ("api",)) == []
