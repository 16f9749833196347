"""Write ``eval/knowledge_update.json``: synthetic multi-session histories in
which a value is stated early and changed later, for ``mem eval
knowledge-update``.

Deterministic (``random.Random(SEED)``; no clock, no network): running it
again writes the same bytes.  Written for mem; no third-party data.

Each project gets distractor sessions (ordinary coding talk, some of it using
the subjects' words with other numbers) spread over the year, and for each
subject it draws: a first statement, one or two changes (a paraphrase half
of the time), and sometimes a later session that mentions an old value in
passing ("back when it was on 8080 …").  The question's evidence is the
sessions that stated a value; the newest of them holds the current value.

    python eval/gen_knowledge_update.py            # writes eval/knowledge_update.json
"""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

SEED = 20261201
OUT = Path(__file__).resolve().parent / "knowledge_update.json"
DISTRACTORS = 30  # sessions per project
YEAR = dt.datetime(2025, 1, 6, 9, 0, tzinfo=dt.timezone.utc)

PROJECTS = [("billing", "billing service"), ("atlas", "atlas backend"), ("orbit", "orbit app"),
            ("harbor", "harbor gateway"), ("quill", "quill editor"), ("nimbus", "nimbus worker")]

# A subject: question phrasings, statement templates for the first value, change
# templates (the first restates, the second is a paraphrase), passing mentions of an
# old value, and value pools.  {s} is the project's service name, {v} the value,
# {o} an older value.
SUBJECTS = [
    dict(name="port", values=["8080", "8443", "9090", "3000", "7070"],
         q=["which port does the {s} api listen on?", "what port is the api on now"],
         first=["The API listens on port {v}.", "Set the {s} api to listen on port {v} locally and in prod."],
         change=["The API now listens on port {v}.", "Heads up: we moved the api over to {v} after the TLS work."],
         passing=["We used to use {o} for the api, remember to clean the old firewall rule.",
                  "Back when the api was on {o} the health check kept timing out; unrelated, but the logs are noisy."]),
    dict(name="postgres", values=["14", "15", "16", "17"],
         q=["which postgres version do we run?", "what version of postgres does the {s} use"],
         first=["We run Postgres {v} locally and in CI.", "The {s} database is Postgres {v}."],
         change=["We run Postgres {v} locally and in CI now.",
                 "Upgraded our postgres to PG {v} today; docker compose and the CI image are updated."],
         passing=["The old Postgres {o} dump still sits in the bucket, we can delete it.",
                  "Reminder that the migration notes for Postgres {o} are outdated."]),
    dict(name="node", values=["18", "20", "22"],
         q=["which node version does the build use?", "what node version is the {s} on"],
         first=["The build uses Node {v}.", "Pin Node {v} in .nvmrc for the {s} build."],
         change=["The build uses Node {v} now.", "Bumped the node runtime: .nvmrc says {v} and CI follows it."],
         passing=["Some contributors still have Node {o} installed and get odd lockfile diffs."]),
    dict(name="runner", values=["Jest", "Vitest", "Mocha", "Ava"],
         q=["which test runner do we use?", "what do we run the {s} unit tests with"],
         first=["We use {v} as the test runner for the unit tests.", "The {s} unit tests run with {v}."],
         change=["We use {v} as the test runner for the unit tests now.",
                 "Switched the unit tests over to {v}, it is much faster on watch mode."],
         passing=["A few snapshot files from the {o} days are still in the tree."]),
    dict(name="deploy", values=["Fly.io", "Render", "Heroku", "Railway"],
         q=["where do we deploy the {s} in production?", "which host runs production deploys"],
         first=["Production deploys go to {v}.", "The {s} is deployed to {v} in production."],
         change=["Production deploys go to {v} from now on.",
                 "We migrated hosting: production now lives on {v}, the old app is scaled to zero."],
         passing=["The {o} invoice came in again, cancel that account when you can."]),
    dict(name="upload", values=["10", "25", "50", "100"],
         q=["what is the upload size limit?", "how large can a file uploaded to the {s} be"],
         first=["The upload limit is {v} MB.", "Uploads to the {s} are capped at {v} MB."],
         change=["The upload limit is {v} MB now.",
                 "Raised the upload cap: files up to {v} MB are accepted since the storage change."],
         passing=["Support still quotes the old {o} MB upload limit in the help center article."]),
    dict(name="python", values=["3.10", "3.11", "3.12", "3.13"],
         q=["which python version does the {s} run on?", "what python version do we target"],
         first=["The service runs on Python {v}.", "We target Python {v} for the {s}."],
         change=["The service runs on Python {v} now.",
                 "Moved the python interpreter to {v}; the Dockerfile base image is updated."],
         passing=["The Python {o} wheels in the cache can be purged."]),
    dict(name="ttl", values=["300", "600", "900", "1800"],
         q=["how long do cache entries live in the {s}?", "what is the cache ttl"],
         first=["Cache entries expire after {v} seconds.", "The {s} cache TTL is {v} seconds."],
         change=["Cache entries expire after {v} seconds now.",
                 "Tuned the cache TTL to {v}s because the hit rate was too low."],
         passing=["With the old {o} second TTL we saw stale prices, that ticket can be closed."]),
    dict(name="queue", values=["Redis", "RabbitMQ", "SQS", "NATS"],
         q=["which queue backend do background jobs use?", "what runs the background jobs of the {s}"],
         first=["Background jobs run on {v}.", "The {s} job queue is backed by {v}."],
         change=["Background jobs run on {v} now.",
                 "The background job queue moved to {v}; the old broker is read-only until Friday."],
         passing=["The {o} dashboards for the job queue still show up in grafana, delete them."]),
    dict(name="ci", values=["CircleCI", "Buildkite", "Jenkins", "GitLab"],
         q=["which CI service builds the {s}?", "where does CI run for us"],
         first=["CI runs on {v}.", "The {s} pipeline is built by {v}."],
         change=["CI runs on {v} now.", "We switched CI to {v} last week, the old pipeline is off."],
         passing=["The {o} CI config file is dead, someone should remove it."]),
    dict(name="timeout", values=["30", "45", "60", "90"],
         q=["what is the request timeout of the {s}?", "how long is the request timeout"],
         first=["The request timeout is {v} seconds.", "Requests to the {s} time out after {v} seconds."],
         change=["The request timeout is {v} seconds now.",
                 "Set the gateway request timeout to {v}s, slow reports were being cut off."],
         passing=["The load test script still assumes the old {o} second request timeout."]),
    dict(name="workers", values=["4", "8", "12", "16"],
         q=["how many workers run in production?", "worker count of the {s} in prod"],
         first=["We run {v} workers in production.", "Production has {v} workers for the {s}."],
         change=["We run {v} workers in production now.", "Scaled prod to {v} workers after the traffic spike."],
         passing=["The autoscaler alarm still fires at {o} workers, adjust it."]),
    dict(name="owner", values=["Priya", "Marcus", "Lena", "Tomasz"],
         q=["who owns the on-call rotation?", "who is on point for {s} incidents"],
         first=["{v} owns the on-call rotation.", "The {s} on-call rotation is run by {v}."],
         change=["{v} owns the on-call rotation now.", "Handover done: {v} took over the on-call rotation this sprint."],
         passing=["{o} left notes on the old on-call runbook, worth a read."]),
]

ALL_VALUES = {v for sj in SUBJECTS for v in sj["values"]}

FILLER_USER = [
    "Can you refactor the {t} module so the error handling is in one place?",
    "The {t} tests are flaky on CI again, can you look at the retry logic?",
    "Please add type hints to the {t} helpers and fix what mypy reports.",
    "Why does the {t} handler log the same warning twice?",
    "Let's rename the {t} settings so they read better.",
    "Write a migration that adds an index on the {t} table.",
    "The {t} page renders slowly, profile it please.",
    "Add a feature flag around the new {t} flow.",
    "Review the {t} pull request and leave comments.",
    "Bump the {t} dependency and check the changelog for breaking changes.",
]
FILLER_ASSISTANT = [
    "I moved the {t} error handling into one wrapper and updated the call sites.",
    "The {t} retry loop had no jitter; I added exponential backoff and the flaky test passes now.",
    "Done: the {t} helpers are typed and mypy is clean.",
    "The {t} handler was registered twice at start-up; I removed the duplicate registration.",
    "I renamed the {t} settings and kept the old names as deprecated aliases.",
    "The migration adds the index concurrently so it does not lock the {t} table.",
    "Most of the {t} render time was an N+1 query; I batched it.",
    "The {t} flow is behind a flag that defaults to off.",
    "I left three comments on the {t} pull request, mostly about naming.",
    "The {t} changelog lists no breaking change for our usage; tests pass.",
]
# distractors that share a subject's words with other numbers: they must not count as updates
NEAR_MISS = [
    "The {s} api returned 502 for {n} minutes during the deploy, the proxy restarted.",
    "Our postgres slow query log shows {n} queries over a second, mostly the report view.",
    "The unit tests took {n} seconds on CI today, the cache was cold.",
    "Uploads failed for {n} users yesterday because the bucket policy was wrong.",
    "The cache hit rate dropped to {n} percent after the release.",
    "{n} background jobs were stuck in the queue this morning.",
    "The request log shows {n} timeouts from the mobile client, all on flaky networks.",
    "Production had {n} worker restarts overnight, memory looked fine.",
]
TOPICS = ["invoice", "login", "search", "export", "profile", "webhook", "report", "session", "billing",
          "audit", "email", "payment", "upload", "settings", "dashboard", "notification"]


def _iso(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def build(seed: int = SEED) -> dict:
    """The scenario as a JSON-ready dict (see ``objstore.retrieval.evaluate``)."""
    rnd = random.Random(seed)
    sessions, questions = [], []
    for pname, service in PROJECTS:
        used: set[str] = set()
        for i in range(DISTRACTORS):
            day = rnd.randrange(0, 340)
            t = YEAR + dt.timedelta(days=day, minutes=rnd.randrange(0, 600))
            turns = []
            for _ in range(rnd.randrange(2, 5)):
                topic = rnd.choice(TOPICS)
                k = rnd.randrange(len(FILLER_USER))
                turns.append({"role": "user", "text": FILLER_USER[k].format(t=topic)})
                turns.append({"role": "assistant", "text": FILLER_ASSISTANT[k].format(t=topic)})
            if rnd.random() < 0.5:
                n = rnd.choice([x for x in range(2, 99) if str(x) not in ALL_VALUES])
                turns.insert(rnd.randrange(len(turns) + 1),
                             {"role": "user", "text": rnd.choice(NEAR_MISS).format(s=service, n=n)})
            sessions.append({"id": f"{pname}-d{i:02d}", "project": pname, "time": _iso(t), "turns": turns})
        subjects = rnd.sample(SUBJECTS, 11)
        for sj in subjects:
            changes = 1 if rnd.random() < 0.6 else 2
            vals = rnd.sample(sj["values"], changes + 1)
            days = sorted(rnd.sample(range(0, 330), changes + 1))
            evidence = []
            for n, (v, day) in enumerate(zip(vals, days)):
                t = YEAR + dt.timedelta(days=day, minutes=rnd.randrange(0, 600))
                if n == 0:
                    text = rnd.choice(sj["first"])
                else:
                    text = sj["change"][1] if rnd.random() < 0.5 else sj["change"][0]
                text = text.format(s=service, v=v)
                topic = rnd.choice(TOPICS)
                k = rnd.randrange(len(FILLER_USER))
                turns = [{"role": "user", "text": FILLER_USER[k].format(t=topic)},
                         {"role": "assistant", "text": FILLER_ASSISTANT[k].format(t=topic)}]
                stater = rnd.choice(["user", "assistant"])
                turns.insert(rnd.randrange(len(turns) + 1), {"role": stater, "text": text})
                sid = f"{pname}-{sj['name']}-{n}"
                sessions.append({"id": sid, "project": pname, "time": _iso(t), "turns": turns})
                evidence.append(sid)
            if rnd.random() < 0.45:  # the old value again, in passing, after the change
                day = rnd.randrange(days[-1] + 1, 345)
                t = YEAR + dt.timedelta(days=day, minutes=rnd.randrange(0, 600))
                text = rnd.choice(sj["passing"]).format(s=service, o=rnd.choice(vals[:-1]))
                sessions.append({"id": f"{pname}-{sj['name']}-passing", "project": pname, "time": _iso(t),
                                 "turns": [{"role": "user", "text": text},
                                           {"role": "assistant", "text": "Noted, I will take care of it."}]})
            used.add(sj["name"])
            questions.append({"question": rnd.choice(sj["q"]).format(s=service), "project": pname,
                              "evidence": evidence, "current": vals[-1], "old": vals[:-1]})
    sessions.sort(key=lambda s: (s["time"], s["id"]))
    return {"description": "Knowledge-update scenarios for `mem eval knowledge-update`: per project, tens of "
                           "distractor sessions and subjects whose value is stated and changed once or twice "
                           "(sometimes paraphrased, sometimes the old value mentioned again in passing after the "
                           "change). Generated by eval/gen_knowledge_update.py (deterministic); written for mem, "
                           "no third-party data.",
            "seed": seed, "sessions": sessions, "questions": questions}


def main() -> None:
    data = build()
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(data['sessions'])} sessions, {len(data['questions'])} questions")


if __name__ == "__main__":
    main()
