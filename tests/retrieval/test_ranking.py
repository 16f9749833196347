"""Ranking of recall beyond BM25: IDF counted inside the project scope,
dates named in the question, and the coverage factor."""

from __future__ import annotations

import datetime as dt

from recall_helpers import turn

from objstore.retrieval.dates import DAY_MS, time_windows
from objstore.retrieval.querywords import agent_noun_base, measure_pattern, with_base_forms
from objstore.retrieval.recall import RecallOptions, recall

T0 = 1_740_000_000_000  # 2025-02-19


def _ms(y, m, d):
    return int(dt.datetime(y, m, d, tzinfo=dt.timezone.utc).timestamp() * 1000)


def test_time_windows_of_the_dates_a_question_names():
    day = (_ms(2023, 12, 8) - DAY_MS, _ms(2023, 12, 9) + DAY_MS)
    assert time_windows("what did Tim watch on 8th December, 2023?") == [day]
    assert time_windows("what changed on December 8, 2023") == [day]
    assert time_windows("the outage of 2023-12-08") == [day]
    assert time_windows("what broke in October 2023") == [(_ms(2023, 10, 1), _ms(2023, 11, 1))]
    assert time_windows("the 2024-02 release") == [(_ms(2024, 2, 1), _ms(2024, 3, 1))]
    assert time_windows("on 8 May") == [] and time_windows("in 2023") == [] and time_windows("last week") == []
    assert time_windows("we may 2023-13-40 something") == []
    assert time_windows("8 May 2023 and again 8 May 2023", slack_days=0) == [(_ms(2023, 5, 8), _ms(2023, 5, 9))]


def test_scope_idf_discounts_the_words_every_turn_of_the_project_holds(store, add_sessions):
    """"backend" is rare in the store (one project) but in every turn of
    that project: inside its scope the question's other word decides."""
    sessions = {f"other{i}": [turn(f"unrelated chat number {i} about lunch", project=f"p{i}")] for i in range(40)}
    sessions.update({
        f"b{i}": [turn(f"The atlas backend module {i} needs a backend refactor.", project="atlas")] for i in range(6)})
    sessions["ci"] = [turn("The backend pipeline is on Buildkite, see the ci config.", project="atlas")]
    add_sessions(sessions)
    on = store.index.search("ci backend backend", limit=3, kinds=("turn",), projects=["atlas", ""],
                            scope_idf=True)
    assert on[0].ref == "ci"
    n, df = store.index.term_stats(["backend"], kinds=("turn",), projects=["atlas", ""])
    assert (n, df["backend"]) == (7, 7)
    assert store.index.term_stats(["backend"], kinds=("turn",))[0] == 47


def test_a_date_in_the_question_ranks_that_days_turns_first(store, add_sessions):
    base = _ms(2023, 5, 1)
    add_sessions({f"d{i}": [turn(f"We went hiking at the lake again, the trail was great ({i}).", ts=base + i * 7 * DAY_MS),
                            turn("Lovely, hiking is the best.", "assistant", ts=base + i * 7 * DAY_MS + 1000)]
                  for i in range(8)})
    res = recall(store, ["where did we go hiking on 22 May 2023?"], projects=("acme",), what="turns")
    assert res.hits[0].session == "d3", [(h.session, h.date) for h in res.hits]
    plain = recall(store, ["where did we go hiking on 22 May 2023?"], projects=("acme",), what="turns",
                   opts=RecallOptions(dates=0))
    assert plain.hits[0].session != "d3" or len({h.session for h in plain.hits}) > 1


def test_coverage_prefers_the_turn_holding_more_of_the_question(store, add_sessions):
    add_sessions({"one": [turn("Yoga yoga yoga!")],
                  "two": [turn("Maria said aerial yoga at the studio keeps her calm, it is a long sentence here.")]})
    res = recall(store, ["what kind of yoga does Maria do at the studio"], projects=("acme",), what="turns")
    assert res.hits[0].session == "two"


def test_an_agent_noun_the_scope_never_uses_is_searched_as_its_verb(store, add_sessions):
    assert [agent_noun_base(w) for w in ("runner", "linters", "formatter", "bundler", "user", "for")] == \
        ["run", "lint", "format", "bundl", None, None]
    add_sessions({"a": [turn("The worker unit tests run with Jest.")],
                  "b": [turn("We lint with ruff in CI.")],
                  "c": [turn("The docs build is slow.", project="other")],
                  "d": [turn("Our test runner is Vitest.", project="other")]})
    q = with_base_forms(store, "which test runner and linter do we use", kinds=("turn",), projects=("acme",))
    assert q == "which test run and lint do we use"
    # where people do say "test runner", the word stays
    assert with_base_forms(store, "which test runner", kinds=("turn",), projects=("other",)) == "which test runner"
    res = recall(store, ["which test runner do we use"], projects=("acme",), what="turns")
    assert "Jest" in res.hits[0].text


def test_a_question_asking_for_a_quantity_ranks_up_the_turns_stating_one(store, add_sessions):
    size = measure_pattern("how large can an uploaded file be")
    assert size.search("the cap is 25 MB now") and size.search("2GiB") and not size.search("port 8080")
    assert measure_pattern("how long do cache entries live").search("expire after 600 seconds")
    assert measure_pattern("how many workers run").search("we run 4 workers")
    assert measure_pattern("which port does the api use") is None
    add_sessions({"limit": [turn("The upload limit is 25 MB.", ts=T0)],
                  "other": [turn("The upload limit is under review.", ts=T0 + 86_400_000)]})
    q = "how large is the upload limit"
    res = recall(store, [q], projects=("acme",), what="turns")
    assert res.hits[0].session == "limit", [h.text for h in res.hits]
    off = recall(store, [q], projects=("acme",), what="turns", opts=RecallOptions(measure=0))
    assert off.hits[0].session != "limit"
