#!/usr/bin/env python3
"""A store to look at the order of facts in ``mem recall`` and ``mem search``
(docs/benchmarks.md, "Session 13, rank13"): six keys of project
``acme-web`` with 2-4 versions each, a 10-turn session of that project
talking about them with older values, and optionally a corpus imported
(the bench corpus has acme-web sessions that say "cache", "use", "deploy").

    python bench/rank_store.py --mem mem --store /tmp/rank-store [--corpus /tmp/bench-corpus]
    MEM_HOME=/tmp/rank-store mem recall --project acme-web "what is the db host"

STORE must not exist yet; the transcript is written beside it
(``STORE.transcripts``), HOME is ``STORE.home``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

FACTS = {
    "db": ["Postgres 13 on db-old.acme.internal:5432",
           "Postgres 15, host db1.acme.internal port 5432",
           "Postgres 16, host db2.acme.internal port 5433 (primary), replica db2-ro"],
    "cache": ["Memcached on cache1.acme.internal; no TTL",
              "Redis 6 at redis.acme.internal:6379 caches the db query results, TTL 60 s",
              "Redis 7 cluster at redis2.acme.internal:6379 caches db queries and sessions, TTL 300 s"],
    "deploy": ["deploy by hand with fab deploy from a laptop",
               "deploy with GitHub Actions on merge to main, then ArgoCD syncs the cluster"],
    "auth": ["auth uses session cookies signed with itsdangerous",
             "auth via Auth0 OIDC, JWT access tokens, 15 min expiry",
             "auth via Keycloak OIDC at sso.acme.internal, JWT tokens expire after 10 min",
             "auth via Keycloak OIDC at sso.acme.internal, JWT tokens expire after 15 min, refresh 8 h"],
    "ci": ["CI runs on Travis", "CI runs on Buildkite with 4 agents"],
    "queue": ["job queue is Celery with RabbitMQ", "job queue is RQ on the Redis cache host"],
}

TURNS = [
    ("user", "the db is slow again, can you check the cache hit rate on the db queries?"),
    ("assistant", "The cache hit rate is 40%. Most db queries miss the cache because the TTL is 60 s; "
                  "the db host db1.acme.internal is at 90% CPU."),
    ("user", "which cache do we use in front of the db, memcached still?"),
    ("assistant", "We moved from Memcached to Redis last month; the cache sits in front of the db for query results."),
    ("user", "what is the db host for the migration script?"),
    ("assistant", "The migration script reads DATABASE_URL; the db host was db-old.acme.internal before the move "
                  "to db1."),
    ("user", "how do we deploy the hotfix?"),
    ("assistant", "Deploy is by merging to main; the deploy job runs in GitHub Actions and ArgoCD syncs. "
                  "Auth tokens for the deploy come from the CI secrets."),
    ("user", "does auth still use Auth0?"),
    ("assistant", "Auth moved to Keycloak; the auth tokens are JWT. The cache of auth sessions is in Redis."),
]


def transcript(folder: Path, turns: list[tuple[str, str]] = TURNS, *, sid: int = 13, first_uuid: int = 1000,
               stamp=lambda i: f"2026-04-2{i // 5}T10:{i:02d}:00.000Z") -> Path:
    """Write the session of ``turns`` ((role, text)) as a Claude Code
    transcript in ``folder`` (``cwd`` the acme-web checkout); its session id
    and turn uuids from the integers ``sid`` and ``first_uuid``, turn ``i``'s
    timestamp ``stamp(i)``."""
    sid = str(uuid.UUID(int=sid))
    lines, parent = [], None
    for i, (role, text) in enumerate(turns):
        u = str(uuid.UUID(int=first_uuid + i))
        msg = ({"role": role, "content": text} if role == "user" else
               {"role": role, "content": [{"type": "text", "text": text}], "model": "claude", "id": f"m{i}",
                "type": "message"})
        lines.append({"parentUuid": parent, "isSidechain": False, "userType": "external",
                      "cwd": "/home/ana/code/acme-web", "sessionId": sid, "version": "2.1.42", "type": role,
                      "message": msg, "uuid": u, "timestamp": stamp(i)})
        parent = u
    folder.mkdir(parents=True)
    (folder / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mem", default="mem", help="the mem command to write with")
    ap.add_argument("--store", type=Path, required=True, help="a new store (must not exist)")
    ap.add_argument("--corpus", type=Path, help="a claude-code corpus to import too")
    args = ap.parse_args()
    if args.store.exists():
        raise SystemExit(f"rank_store: {args.store} exists")
    home = Path(f"{args.store}.home")
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "MEM_HOME": str(args.store), "HOME": str(home), "MEM_NO_HELPER": "1"}
    env.pop("MEM_AGENT", None)

    def mem(*a: str) -> None:
        subprocess.run([args.mem, *a], env=env, check=True, stdout=subprocess.DEVNULL)

    for name, values in FACTS.items():
        for v in values:
            mem("remember", f"project/acme-web/{name}", v)
    mem("import", "claude-code", str(transcript(Path(f"{args.store}.transcripts") / "-home-ana-code-acme-web")))
    if args.corpus:
        mem("import", "claude-code", str(args.corpus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
