#!/usr/bin/env python3
"""Deterministic, streaming generator of synthetic Claude Code transcripts.

Writes a ``~/.claude/projects``-shaped tree in the real on-disk format
(agent-formats.md section 2): ``<OUT>/<encoded-cwd>/<session>.jsonl`` plus
``<session>/subagents/agent-<id>.jsonl`` and ``agent-<id>.meta.json`` (the
>= 2.1.2 layout).  All text is synthetic: programming prose, code, command
output and logs built from word lists and templates with a seeded RNG, so
BM25 sees realistic (Zipf-like) term statistics.  Nothing is copied from real
transcripts.

    python bench/gen_corpus.py OUT_DIR --sessions 300 --turns 18099 --seed 1

The defaults reproduce the benchmark corpus of the brief: 300 sessions,
18,099 turns (typed prompts + assistant messages, subagents included),
~19,397 tool calls, ~144 MB.  ``--scale-bytes`` sets the total size (tool
output sizes follow it through a feedback loop); the turn count is exact,
the tool-call count and the size come within a few percent.

Same arguments -> byte-identical files (file mtimes too: each file gets the
timestamp of its last record).  Output is streamed: memory stays bounded
(one record at a time plus a capped cache of synthetic project files), so
``--sessions 16000 --turns 1000000`` writes a multi-GB corpus.

Besides the transcripts, OUT_DIR gets ``needles.json`` (unique facts planted
in known sessions: ``[{"query", "session", "kind", "fact", ...}]``) and
``corpus.json`` (arguments and counts).  Neither ends in ``.jsonl``, so
transcript readers skip them.
"""
from __future__ import annotations

import argparse
import base64
import bisect
import hashlib
import itertools
import json
import math
import os
import random
import re
import shutil
import sys
import time
import uuid
from collections import OrderedDict
from pathlib import Path

# The corpus the brief describes (peers were measured on it).
BRIEF_SESSIONS, BRIEF_TURNS, BRIEF_TOOL_CALLS, BRIEF_BYTES = 300, 18099, 19397, 144_000_000
#: Sessions written with one feedback state (size and tool-call steering): a
#: shard; shards are independent, so they are written in parallel (--jobs).
SHARD_SESSIONS = 1000
MARKER = ".gen_corpus"          # written into OUT_DIR so --force only wipes our own output
EPOCH_START_MS = 1_761_955_200_000  # 2025-11-01T00:00:00Z: first session start
SPAN_DAYS = 180

# --------------------------------------------------------------------------- vocabulary

FUNCTION_WORDS = """the to a of and is in that it for this we be on with not as if so but can at are
have from will by an or should now then when which there all just also only need one more like would
into than out what about here use after before because still no i you our its was were has does did
been do any some each other these those they them their same new first both while where how why""".split()

PROG_WORDS = """file function test error value return config module update change fix call handler
request response cache index query server client build run check path type string list field user
data model object class method parameter argument default option flag output input result log message
event state store session token key schema table column row record batch job worker queue thread
process lock timeout retry limit size count number version release branch commit merge diff patch
import export package dependency library framework api endpoint route service database migration
transaction connection pool driver adapter wrapper helper utility script command line terminal shell
environment variable setting secret credential permission access account role policy rule filter sort
order page pagination cursor offset stream buffer chunk byte encoding decode encode parse parser
serialize format template render view component layout style props hook context provider reducer
action dispatch effect callback promise async await future task scheduler loop iterator generator
closure scope namespace interface trait struct enum generic pointer reference slice array map set
tuple vector graph tree node edge parent child root leaf depth width height length bound range
interval window frame clock time date timestamp duration latency throughput benchmark profile trace
span metric counter gauge histogram alert monitor dashboard health status ready deploy container
image registry cluster replica shard partition region network socket port host address proxy gateway
balancer certificate tls header body cookie payload json yaml toml csv html css markdown docs readme
changelog comment docstring decorator fixture mock stub assert expect snapshot coverage lint
formatter typecheck compile compiler bundle warning failure failing flaky passes passing broken
regression bug issue feature refactor cleanup rename move extract inline split simplify optimize
performance memory leak allocation heap stack overflow panic exception traceback crash hang deadlock
race concurrency parallel sequential atomic mutex channel signal backoff idempotent consistent
invalidation eviction ttl expiry refresh rotate validate validation sanitize escape normalize
canonical unicode locale timezone utc retries guard invariant edge case empty missing duplicate
stale cached lazy eager sync async local remote upstream downstream owner review approve ship
rollback hotfix incident outage logs debug verbose quiet trace warn info""".split()

VERBS = """add apply build check clean close collect compute create decode delete detect emit encode ensure
fetch filter find flush format generate get handle init load lookup merge normalize open parse patch
process publish read refresh register reload remove render reset resolve restore retry run save scan
schedule send serialize set sort split start stop store sync track transform trim update upload
validate verify wait watch wrap write""".split()

NOUNS = """account batch buffer cache channel chunk client config connection context cursor entry event
field file frame handler header index item job key layout limit log manifest message metric node
offset order packet page path payload plugin policy pool profile queue record registry report request
response result route row rule schema scope segment session shard signal snapshot socket span state
stats status store stream task template tenant token trace user value version view worker""".split()

ADJS = """active async atomic base cached clean cold current default dirty empty expired external global
hidden internal invalid large lazy legacy local missing nested new old partial pending primary
private public raw remote shared slow stale strict temporary unique unused valid""".split()

CLASS_SUFFIX = ("Manager Store Client Service Handler Config Error Builder Parser Cache Registry Pool Worker "
                "Reader Writer Index").split()

# (theme, language, domain words); project i gets theme i mod len.
THEMES = [
    ("ledgerly", "python", "invoice ledger refund charge payout currency merchant "
     "settlement subscription coupon tax receipt webhook dunning proration"),
    ("visionkit", "python", "tensor embedding checkpoint epoch gradient tokenizer dataset "
     "inference optimizer dropout attention logits sampler augmentation warmup"),
    ("acme-web", "typescript", "component layout modal tooltip stylesheet viewport router "
     "navbar sidebar tailwind hydration suspense breakpoint dropdown form"),
    ("infra-live", "go", "terraform cluster ingress helm autoscaler kubelet daemonset "
     "configmap namespace rollout canary probe sidecar quota taint"),
    ("tinyc", "rust", "lexer ast codegen ir optimizer register liveness "
     "borrow lifetime monomorph inliner typeck diagnostic desugar intern"),
    ("pixel-quest", "rust", "sprite collision physics shader entity scene tilemap "
     "animation hitbox framebuffer texture particle camera rigidbody navmesh"),
    ("lakehouse-etl", "python", "ingest partition parquet warehouse etl airflow dbt "
     "backfill watermark upsert dedupe lineage snowflake bigquery compaction"),
    ("mkcli", "go", "subcommand flag completion prompt terminal pager tty "
     "ansi spinner argv stdin stdout manpage alias dotfile"),
    ("quarry", "rust", "posting bm25 analyzer tokenizer ranking segment facet "
     "highlight stemmer skiplist fst collector scorer docid merger"),
    ("chatterbox", "typescript", "websocket presence typing reconnect heartbeat broadcast subscriber "
     "pubsub room fanout backpressure ack nack debounce throttle"),
    ("gatekeeper", "python", "oauth jwt scope refresh login password mfa "
     "totp saml oidc nonce audience issuer claims pkce"),
    ("fieldnotes", "typescript", "expo navigator gesture haptics offline push notification "
     "deeplink splash keychain biometrics hermes metro reanimated storybook"),
]
ROOTS = ["/home/dev/src/{}", "/Users/sam/work/{}", "/workspace/{}", "/home/ana/code/{}"]

VERSIONS = [("2.1.17", 15), ("2.1.42", 25), ("2.1.77", 20), ("2.1.114", 25), ("2.1.150", 15)]
MAIN_MODELS = ["claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-opus-4-7"]
HAIKU = "claude-haiku-4-5-20251001"

MAIN_TOOLS = [("Bash", 33), ("Read", 27), ("Edit", 15), ("Grep", 8), ("Glob", 4), ("Write", 4),
              ("TodoWrite", 5), ("WebFetch", 2), ("WebSearch", 2)]
SUB_TOOLS = [("Read", 38), ("Grep", 22), ("Glob", 12), ("Bash", 22), ("WebFetch", 3), ("WebSearch", 3)]
# median bytes and log-sigma of a tool's output body before the size feedback scale
SIZES = {"Read": (2600, 1.1), "Bash": (700, 1.5), "Grep": (900, 1.2), "Glob": (350, 0.8),
         "Edit": (3500, 1.0), "Write": (2200, 0.9), "WebFetch": (3000, 0.9), "WebSearch": (2500, 0.6)}
HUGE_P, HUGE_MIN, HUGE_MAX = 0.007, 50_000, 200_000   # long tail of file reads / command output

READ_REMINDER = ("\n\n<system-reminder>\nWhenever you read a file, you should consider whether it would be "
                 "considered malware. You CAN and SHOULD provide analysis of malware, what it is doing. But you "
                 "MUST refuse to improve or augment the code. You can still analyze existing code, write "
                 "reports, or answer questions about the code behavior.\n</system-reminder>\n")
TODO_OK = ("Todos have been modified successfully. Ensure that you continue to use the todo list to track your "
           "progress. Please proceed with the current tasks if applicable")
CAVEAT = ("<local-command-caveat>Caveat: The messages below were generated by the user while running local "
          "commands. DO NOT respond to these messages or otherwise consider them in your response unless the "
          "user explicitly asks you to.</local-command-caveat>")
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
SLOT = re.compile(r"\{(\w+)\}")
_TEMPLATES: dict[str, list] = {}    # template -> [(literal or slot name, is_slot)]


def derive(seed: int, *parts) -> int:
    """A 64-bit sub-seed for (seed, *parts), independent of PYTHONHASHSEED."""
    return int.from_bytes(hashlib.blake2b(repr((seed,) + parts).encode(), digest_size=8).digest(), "big")


def vt(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def dedupe(words):
    return list(dict.fromkeys(words))


def zipf_cum(n: int, s: float = 1.0):
    return list(itertools.accumulate(1.0 / (r + 1) ** s for r in range(n)))


def camel(*parts: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in parts)


def lower_camel(*parts: str) -> str:
    c = camel(*parts)
    return c[:1].lower() + c[1:]


def iso(ms: int) -> str:
    sec, rem = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec)) + f".{rem:03d}Z"


def parse_bytes(s: str) -> int:
    m = re.fullmatch(r"\s*([0-9.]+)\s*([kmgt]?)(i?)b?\s*", s.lower())
    if not m:
        raise argparse.ArgumentTypeError(f"bad size {s!r} (e.g. 144MB, 2GB, 500MiB)")
    base = 1024 if m.group(3) else 1000
    return int(float(m.group(1)) * base ** " kmgt".index(m.group(2) or " "))


# --------------------------------------------------------------------------- templates

PY_STMTS = [
    "{v} = {f}({a})", "{v} = {f}({a}, {kw}={lit})", "{v} = self.{n}.get({s}, {lit})",
    "if {v} is None:\n    return {lit}", "if not {v}:\n    raise {E}({s})",
    "for {i} in {v}:\n    {v2}.append({f}({i}))", "{v2} = [{f}({i}) for {i} in {v} if {i}.{n}]",
    "logger.{lvl}({s}, {v})", "return {v}", "# {cm}",
    "with {f}({a}) as {v}:\n    {v2} = {v}.{f2}()",
    "try:\n    {v} = {f}({a})\nexcept {E} as exc:\n    logger.warning({s}, exc)\n    {v} = {lit}",
    "self.{n} = {v}", "assert {v} == {lit}, {s}", "{v}[{s}] = {f}({v2})", "await self.{n}.{f}({v})",
    "{v} = {C}({kw}={a}, {kw2}={lit})", "if {v}.{n} > {num}:\n    {v}.{n} = {num}",
]
TS_STMTS = [
    "const {v} = {f}({a});", "const {v} = await {f}({a}, { {kw}: {lit} });",
    "if (!{v}) {\n  throw new {E}({s});\n}", "for (const {i} of {v}) {\n  {v2}.push({f}({i}));\n}",
    "return {v};", "// {cm}", "const {v2} = {v}.filter(({i}) => {i}.{n} !== {lit});",
    "console.{lvl}({s}, {v});", "this.{n} = {v};", "expect({v}).toEqual({lit});",
    "const [{v}, set{C}] = useState<{C} | null>(null);", "let {v} = {num};",
    "if ({v}.{n} > {num}) {\n  {v}.{n} = {num};\n}",
]
GO_STMTS = [
    "{v} := {f}({a})", "{v}, err := {F}(ctx, {a})",
    "if err != nil {\n\treturn nil, fmt.Errorf({s}+\": %w\", err)\n}",
    "for _, {i} := range {v} {\n\t{v2} = append({v2}, {f}({i}))\n}", "return {v}, nil", "// {cm}",
    "log.Printf({s}+\": %v\", {v})", "{r}.{n} = {v}", "if {v} == nil {\n\treturn nil, {E}\n}",
    "{v}.mu.Lock()\ndefer {v}.mu.Unlock()", "{v} := make(map[string]*{C}, {num})",
]
RS_STMTS = [
    "let {v} = {f}(&{a})?;", "let mut {v} = Vec::with_capacity({num});",
    "if {v}.is_empty() {\n    return Err({E}::Invalid({s}.into()));\n}",
    "for {i} in {v}.iter() {\n    {v2}.push({f}({i}));\n}",
    "match {v} {\n    Some(x) => {f}(x),\n    None => return Ok(None),\n}", "Ok({v})", "// {cm}",
    "debug!({s}, {v});", "self.{n} = {v};", "let {v2}: {C} = {v}.into();",
    "assert_eq!({v}.len(), {num});",
]
EXT = {"python": "py", "typescript": "ts", "go": "go", "rust": "rs"}
COMMENT = {"python": "# ", "typescript": "// ", "go": "// ", "rust": "// "}
LANG_OF_EXT = {".py": "python", ".ts": "typescript", ".tsx": "typescript", ".go": "go", ".rs": "rust",
               ".md": "markdown", ".sql": "sql", ".log": "log", ".yml": "yaml", ".toml": "yaml", ".json": "json"}

SENTENCES = [
    "The {a} {n} comes from `{f}()`, which {v3} the {n2} before {x}.",
    "`{path}` {v3} the {n} on every {n2}, so {x}.",
    "I {vpast} `{f}` to {v} the {n} lazily instead of {x}.",
    "This happens because `{C}` keeps a {a} {n} around after {x}.",
    "The test `{t}` covers the {a} {n} case.",
    "Right now `{f}` is called from {num} places, mostly in `{path}`.",
    "We should {v} the {n} first and only then {v2} the {n2}.",
    "The {n} is {a} when {x}.",
    "That {n} was added in {hash} to {v} {x}.",
    "If the {n} is {a}, `{f}` falls back to the {a2} {n2}.",
    "{X} {x}.",
    "{X} {x}, and {x}.",
    "It looks like the {n} {v3} {x}.",
    "`{C}.{f}` returns {lit} when the {n} is {a}.",
]
PROMPTS_SHORT = [
    "can you {v} the {n} in `{path}`?", "the `{t}` test is failing again",
    "why does `{f}` return {lit} when the {n} is {a}?", "let's {v} the {n} handling before we ship",
    "ok, now {v} the {n2} and run the tests", "please add a test for `{f}`",
    "looks good. commit it", "what happens if the {n} is {a}?", "use `{C}` instead of `{C2}` here", "go ahead",
    "yes, do that", "no, keep the {a} {n}, just {v} the {n2}", "{x}?", "run the tests", "is `{f}` still used anywhere?",
    "fix the lint errors", "make `{f}` {a}", "the {n} is {a} after {x}, can you look?", "continue",
    "can you explain how the {n} gets {vpast}?", "rename `{f}` to `{f2}` everywhere",
]
PROMPTS_INTL = [
    "peux-tu corriger le test `{t}` ? il échoue depuis le commit {hash}.",
    "¿puedes revisar `{path}`? el {n} no se actualiza.",
    "bitte `{f}` umbenennen und die Tests für {n} laufen lassen.",
    "`{f}` のエラーを直してください。{n} が {a} になります。",
    "能不能看一下 `{path}`，{n} 一直是 {lit}。",
    "le cache de `{C}` n'est pas invalidé après {x} — café offert si tu trouves pourquoi ☕",
]
PRE_TOOL = [
    "Let me {v} `{path}` first.", "I'll check how `{f}` is used.", "Running the tests to confirm.",
    "Now let me update `{f}` to {v} the {n}.", "Let me look at the {n} handling.", "Let me search for `{f}`.",
    "I'll read the rest of `{path}`.", "Checking the {a} {n} path.", "Let me verify this with the test suite.",
]
FINAL_OPEN = [
    "Done. `{f}` now {v3} the {n} before {x}.", "I {vpast} the {n} in `{path}` and the tests pass.",
    "The {n} was {a} because {x}. Fixed.", "Here's what I found about the {n}.",
    "All {num} tests pass now.", "I couldn't reproduce the failure locally, but {x}.",
]
THINK_OPEN = [
    "The user wants me to {v} the {n}.", "I need to check whether `{f}` handles the {a} case.",
    "Let me think about why the {n} is {a}.", "There are two options here: {v} the {n} or {v2} the {n2}.",
    "I should look at `{path}` before changing anything.",
]
TODO_STATES = ["pending", "in_progress", "completed"]
COMPACT_HEAD = ("This session is being continued from a previous conversation that ran out of context. "
                "The conversation is summarized below:\n")
NEEDLE_TEMPLATES = [
    "Remember: the {w1} {n} for {project} listens on port {port} and is owned by {w2}.",
    "FYI the staging flag `{w1}_enabled` must stay off until {w2} signs off on the {n} rollout.",
    "The {w1} migration failed on {date} because the {n} table was locked by the {w2} job.",
    "Note for later: the {w1} API key lives in vault path secret/{project}/{w2}, rotated every {port} hours.",
]


# --------------------------------------------------------------------------- projects and text

class Project:
    """A synthetic repository: cwd, language, vocabulary, identifiers and files."""

    def __init__(self, seed: int, index: int, lexicon: "Lexicon"):
        r = random.Random(derive(seed, "project", index))
        theme, lang, words = THEMES[index % len(THEMES)]
        self.index, self.lang = index, lang
        self.name = theme if index < len(THEMES) else f"{theme}-{index // len(THEMES) + 1}"
        self.cwd = r.choice(ROOTS).format(self.name)
        self.encoded = re.sub(r"[^A-Za-z0-9]", "-", self.cwd)
        self.domain = words.split()
        nouns = NOUNS + self.domain * 3
        self.nouns = NOUNS + self.domain
        self.funcs = dedupe(f"{r.choice(VERBS)}_{r.choice(nouns)}" if r.random() < 0.7 else
                            f"{r.choice(VERBS)}_{r.choice(ADJS)}_{r.choice(nouns)}" for _ in range(220))
        self.classes = dedupe(camel(r.choice(self.domain + NOUNS), r.choice(CLASS_SUFFIX)) for _ in range(70))
        self.errors = dedupe(camel(r.choice(self.domain), "Error") for _ in range(8))
        self.mods = dedupe(r.choice(self.domain + NOUNS) for _ in range(40))
        self.pkg = self.name.replace("-", "_")
        self.vars = dedupe(["data", "result", "items", "cfg", "ctx", "resp", "req", "out", "buf", "opts"]
                           + [r.choice(nouns) for _ in range(40)])
        # prose vocabulary: global Zipf list plus this project's words and identifiers
        own = self.domain + self.funcs[:60] + self.classes[:25] + self.mods[:20]
        r.shuffle(own)
        self.words = lexicon.words + own
        own_cum = zipf_cum(len(own), 1.05)
        k = lexicon.cum[-1] * 0.25 / own_cum[-1]
        self.cum = lexicon.cum + [lexicon.cum[-1] + c * k for c in own_cum]
        self.files = self._files(r)
        self.file_cum = zipf_cum(len(self.files), 0.9)

    def _files(self, r):
        out, m, d, C = [], self.mods, self.domain, self.classes
        if self.lang == "python":
            out += [f"src/{self.pkg}/{x}.py" for x in m] + [f"tests/test_{x}.py" for x in m[:15]]
            out += ["pyproject.toml"] + [f"migrations/{i:04d}_{r.choice(VERBS)}_{r.choice(d)}.sql" for i in range(1, 6)]
        elif self.lang == "typescript":
            out += [f"src/components/{c}.tsx" for c in C[:20]] + [f"src/lib/{x}.ts" for x in m]
            out += [f"src/hooks/use{camel(x)}.ts" for x in m[:8]] + [f"tests/{x}.test.ts" for x in m[:12]]
            out += ["package.json", "tsconfig.json"]
        elif self.lang == "go":
            out += [f"internal/{x}/{y}.go" for x, y in zip(m, m[5:] + m[:5])]
            out += [f"internal/{x}/{x}_test.go" for x in m[:14]] + [f"cmd/{self.name}/main.go", "go.mod"]
        else:
            out += [f"src/{x}.rs" for x in m] + [f"tests/{x}.rs" for x in m[:10]] + ["Cargo.toml"]
        out += ["README.md", ".github/workflows/ci.yml"] + [f"docs/{x}.md" for x in d[:5]]
        out += [f"logs/{x}.log" for x in d[5:7]]
        out = dedupe(out)
        r.shuffle(out)
        return [(p, max(8, int(r.lognormvariate(math.log(3000 if p.endswith(".log") else 180), 0.9))))
                for p in out]


class Lexicon:
    """The shared Zipf-ranked word list: function words first, then programming words."""

    def __init__(self, seed: int):
        r = random.Random(derive(seed, "lexicon"))
        prog = dedupe(PROG_WORDS + VERBS + NOUNS + ADJS)
        prog = [w for w in prog if w not in FUNCTION_WORDS]
        r.shuffle(prog)
        self.words = FUNCTION_WORDS + prog
        self.cum = zipf_cum(len(self.words), 1.0)
        self.known = set(self.words)


class Text:
    """Synthetic prose, code and command output for one project, drawn from one RNG."""

    def __init__(self, project: Project, rng: random.Random):
        self.p, self.r = project, rng
        P, r = project, rng
        rnd = rng.random

        def ch(seq):
            return seq[int(rnd() * len(seq))]

        def ri(lo: int, hi: int) -> int:
            return lo + int(rnd() * (hi - lo + 1))

        W, cum = P.words, P.cum
        total, hi, bis = cum[-1] + 0.0, len(W) - 1, bisect.bisect

        def words(n: int) -> str:
            """n words of the project's Zipf list: ``random.choices(W, cum_weights=cum, k=n)``
            inlined (the same draws and picks: the output does not change)."""
            return " ".join([W[bis(cum, rnd() * total, 0, hi)] for _ in range(n)])

        self.ch, self.ri, self.words = ch, ri, words
        nouns = P.nouns
        self.slots = {
            "v": lambda: ch(VERBS), "v2": lambda: ch(VERBS), "v3": lambda: ch(VERBS) + "s",
            "vpast": lambda: _past(ch(VERBS)), "n": lambda: ch(nouns), "n2": lambda: ch(nouns),
            "a": lambda: ch(ADJS), "a2": lambda: ch(ADJS), "f": lambda: ch(P.funcs), "f2": lambda: ch(P.funcs),
            "F": lambda: camel(*ch(P.funcs).split("_")), "C": lambda: ch(P.classes), "C2": lambda: ch(P.classes),
            "E": lambda: ch(P.errors), "path": lambda: self.path(), "t": lambda: "test_" + ch(P.funcs),
            "x": lambda: self.words(ri(3, 9)), "X": lambda: self.words(1).capitalize(),
            "num": lambda: str(int(r.lognormvariate(2.5, 1.3))), "hash": lambda: "%07x" % r.getrandbits(28),
            "lit": lambda: ch(["None", "True", "False", "0", "1", "42", "[]", "{}", '""', "null", "-1", "1024"]),
            "i": lambda: ch(["item", "x", "row", "entry", "el", "node", "rec"]), "kw": lambda: ch(NOUNS),
            "kw2": lambda: ch(ADJS) + "_" + ch(NOUNS),
            "s": lambda: '"' + self.words(ri(2, 5)) + '"', "cm": lambda: self.words(ri(4, 12)),
            "lvl": lambda: ch(["debug", "info", "warning", "error"]), "r": lambda: ch("sacrwh"),
        }
        self.code_slots = dict(self.slots, v=lambda: ch(P.vars), v2=lambda: ch(P.vars), a=lambda: ch(P.vars),
                               n=lambda: ch(nouns))

    # -- small pieces (words(n): made in __init__)
    def fill(self, tpl: str, slots=None) -> str:
        s = slots or self.slots
        parts = _TEMPLATES.get(tpl)
        if parts is None:
            parts = _TEMPLATES[tpl] = [(x, True) if i % 2 and x in self.slots else
                                       ("{" + x + "}" if i % 2 else x, False) for i, x in enumerate(SLOT.split(tpl))]
        return "".join([s[x]() if slot else x for x, slot in parts])

    def path(self) -> str:
        return self.p.files[bisect.bisect(self.p.file_cum, self.r.random() * self.p.file_cum[-1])][0]

    def sentence(self) -> str:
        s = self.fill(self.ch(SENTENCES))
        return s[:1].upper() + s[1:]

    def para(self, k: int) -> str:
        return " ".join(self.sentence() for _ in range(k))

    def sized(self, chars: int, unit) -> list[str]:
        out, n = [], 0
        while n < chars:
            s = unit()
            out.append(s)
            n += len(s) + 1
        return out

    # -- conversation texts
    def prompt(self) -> str:
        r = self.r.random()
        if r < 0.55:
            return self.fill(self.ch(PROMPTS_SHORT))
        if r < 0.85:
            return self.fill(self.ch(PROMPTS_SHORT)) + " " + self.para(self.ri(1, 4))
        if r < 0.95:
            lang = self.ch(["", "text", "python"])
            return (self.fill(self.ch(PROMPTS_SHORT)) + "\n\n```" + lang + "\n"
                    + "\n".join(self.log_lines(int(self.r.lognormvariate(math.log(12), 0.7)) + 2)) + "\n```")
        if r < 0.99:
            body = "\n\n".join(self.para(self.ri(2, 6)) for _ in range(self.ri(2, 6)))
            bullets = "\n".join("- " + self.sentence() for _ in range(self.ri(3, 10)))
            return f"{self.fill(self.ch(PROMPTS_SHORT))}\n\n{body}\n\nRequirements:\n{bullets}"
        return self.fill(self.ch(PROMPTS_INTL))

    def pre_tool(self) -> str:
        return self.fill(self.ch(PRE_TOOL))

    def final(self) -> str:
        target = int(self.r.lognormvariate(math.log(600), 0.8))
        parts = [self.fill(self.ch(FINAL_OPEN))]
        n = len(parts[0])
        while n < target:
            k = self.r.random()
            if k < 0.45:
                s = self.para(self.ri(1, 4))
            elif k < 0.8:
                s = "\n".join(f"- `{self.path()}`: {self.sentence()}" for _ in range(self.ri(2, 6)))
            else:
                lang = {"python": "python", "typescript": "ts", "go": "go", "rust": "rust"}[self.p.lang]
                s = f"```{lang}\n" + "\n".join(self.code(self.p.lang, self.ri(4, 25))) + "\n```"
            parts.append(s)
            n += len(s)
        return "\n\n".join(parts)

    def thinking(self) -> str:
        target = int(self.r.lognormvariate(math.log(450), 0.9))
        out = [self.fill(self.ch(THINK_OPEN))] + self.sized(target, self.sentence)
        return " ".join(out)

    def signature(self) -> str:
        return base64.b64encode(self.r.randbytes(self.ri(150, 1100))).decode()

    def report(self) -> str:
        head = f"## {self.words(3).title()}\n\n" + self.para(self.ri(2, 4))
        items = "\n".join(f"- `{self.path()}:{self.ri(1, 400)}` — {self.sentence()}"
                          for _ in range(self.ri(3, 12)))
        tail = "\n\n".join(self.para(self.ri(1, 4)) for _ in range(self.ri(1, 4)))
        return f"{head}\n\n### Findings\n\n{items}\n\n### Notes\n\n{tail}"

    def compact_summary(self) -> str:
        secs = ["Primary Request and Intent", "Key Technical Concepts", "Files and Code Sections",
                "Errors and fixes", "Problem Solving", "All user messages", "Pending Tasks", "Current Work"]
        out = [COMPACT_HEAD + "Analysis:\n" + self.para(self.ri(3, 6)) + "\n\nSummary:"]
        for i, s in enumerate(secs, 1):
            items = "\n".join(f"   - {self.sentence()}" for _ in range(self.ri(2, 7)))
            out.append(f"{i}. {s}:\n{items}")
        return "\n\n".join(out)

    # -- code and output
    def code(self, lang: str, nlines: int) -> list[str]:
        out: list[str] = []
        while len(out) < nlines:
            out += self.block(lang)
        return out[:nlines]

    def block(self, lang: str) -> list[str]:
        ch, ri = self.ch, self.ri
        cs = self.code_slots
        stmts = {"python": PY_STMTS, "typescript": TS_STMTS, "go": GO_STMTS, "rust": RS_STMTS}.get(lang)
        if stmts is None:
            return self.doc_block(lang)
        body = []
        for _ in range(ri(2, 12)):
            body += self.fill(ch(stmts), cs).split("\n")
        f, C = ch(self.p.funcs), ch(self.p.classes)
        if lang == "python":
            head = [f"def {f}(self, {ch(self.p.vars)}: {C}) -> {ch(self.p.classes)}:",
                    f'    """{self.sentence()}"""']
            return [""] + head + ["    " + b for b in body]
        if lang == "typescript":
            head = [f"export async function {lower_camel(*f.split('_'))}({ch(self.p.vars)}: {C}): Promise<{C}> {{"]
            return [""] + head + ["  " + b for b in body] + ["}"]
        if lang == "go":
            F = camel(*f.split("_"))
            head = [f"// {F} {self.words(ri(4, 10))}",
                    f"func (s *{C}) {F}(ctx context.Context, {ch(self.p.vars)} string) (*{C}, error) {{"]
            return [""] + head + ["\t" + b for b in body] + ["}"]
        head = [f"/// {self.sentence()}", f"pub fn {f}(&self, {ch(self.p.vars)}: &{C}) -> Result<{C}, Error> {{"]
        return [""] + head + ["    " + b for b in body] + ["}"]

    def doc_block(self, lang: str) -> list[str]:
        ch, ri = self.ch, self.ri
        if lang == "markdown":
            return ["", f"## {self.words(ri(2, 5)).title()}", ""] + \
                   [self.para(ri(1, 3)) for _ in range(ri(1, 3))] + \
                   ["- " + self.sentence() for _ in range(ri(0, 5))]
        if lang == "sql":
            n = ch(self.p.domain)
            cols = [f"  {ch(NOUNS)}_{ch(['id', 'at', 'name', 'count', 'state'])} "
                    f"{ch(['TEXT NOT NULL', 'BIGINT', 'TIMESTAMPTZ', 'JSONB', 'BOOLEAN DEFAULT false'])},"
                    for _ in range(ri(2, 9))]
            return [f"CREATE TABLE {n}_{ch(NOUNS)} (", "  id BIGSERIAL PRIMARY KEY,"] + cols + \
                   ["  created_at TIMESTAMPTZ NOT NULL DEFAULT now()", ");",
                    f"CREATE INDEX idx_{n}_{ch(NOUNS)} ON {n} ({ch(NOUNS)});", ""]
        if lang == "log":
            return self.log_lines(ri(5, 40))
        if lang == "json":
            return ["{"] + [f'  "{ch(NOUNS)}": "{self.words(ri(1, 3))}",'
                            for _ in range(ri(2, 10))] + ['  "version": "%d.%d.%d"' % (
                                ri(0, 3), ri(0, 30), ri(0, 9)), "}"]
        return [f"{ch(NOUNS)}:"] + [f"  {ch(NOUNS)}_{ch(ADJS)}: {self.fill('{lit}')}"
                                         for _ in range(ri(2, 8))]

    def log_lines(self, n: int) -> list[str]:
        ch, ri = self.ch, self.ri
        r, out = self.r, []
        t = 1_772_000_000_000 + r.getrandbits(30)
        for _ in range(n):
            t += int(r.expovariate(1 / 400))
            k = r.random()
            if k < 0.08:
                out += [f"Traceback (most recent call last):",
                        f'  File "{self.path()}", line {ri(1, 900)}, in {ch(self.p.funcs)}',
                        f"    {self.fill(ch(PY_STMTS), self.code_slots).splitlines()[0]}",
                        f"{ch(self.p.errors)}: {self.words(ri(3, 8))}"]
            else:
                out.append(f"{iso(t)} {ch(['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'])} "
                           f"[{ch(self.p.mods)}] {self.words(ri(3, 10))} "
                           f"id={r.getrandbits(40):010x} took={int(r.expovariate(1 / 40))}ms")
        return out

    def cmd_output(self, nbytes: int) -> tuple[str, str]:
        """(command, output of about nbytes)."""
        ch, ri = self.ch, self.ri
        r, P = self.r, self.p
        k = r.random()
        lines: list[str] = []
        if k < 0.35:
            cmd, unit = self.test_cmd()
        elif k < 0.55:
            cmd = ch(["git status", "git diff", "git log --oneline -30", f"git diff HEAD~1 -- {self.path()}",
                            "git show --stat HEAD"])
            unit = self.git_unit
        elif k < 0.7:
            cmd = ch([f"tail -n 400 logs/{ch(P.domain)}.log", "docker compose logs --tail=300 api",
                            f"kubectl logs deploy/{P.name} --since=1h"])
            unit = lambda: self.log_lines(ri(3, 12))
        elif k < 0.82:
            cmd = ch([f"rg -n {ch(P.funcs)}", f"grep -rn '{ch(P.funcs)}' src/",
                            f"find . -name '*.{EXT[P.lang]}'"])
            unit = lambda: [f"{self.path()}:{ri(1, 900)}:    "
                            + self.fill(ch(PY_STMTS), self.code_slots).splitlines()[0]]
        else:
            cmd = ch(["ls -la", f"ls -la {self.path().rsplit('/', 1)[0]}", "du -sh *", "ps aux | head -50"])
            unit = lambda: [f"-rw-r--r--  1 dev  staff  {ri(100, 90000):>6} Mar {ri(1, 28):>2} "
                            f"{ri(0, 23):02d}:{ri(0, 59):02d} {self.path().rsplit('/', 1)[-1]}"]
        n = 0
        while n < nbytes:
            new = unit()
            lines += new
            n += sum(len(x) + 1 for x in new)
        return cmd, "\n".join(lines)

    def test_cmd(self):
        ch, ri = self.ch, self.ri
        r, P = self.r, self.p
        if P.lang == "python":
            cmd = ch(["python -m pytest -q", f"pytest tests/test_{ch(P.mods)}.py -v", "uv run pytest -x"])
            unit = lambda: [f"tests/test_{ch(P.mods)}.py::test_{ch(P.funcs)} "
                            f"{ch(['PASSED'] * 12 + ['FAILED', 'SKIPPED'])} [{ri(0, 100):>3}%]"]
        elif P.lang == "typescript":
            cmd = ch(["npm test", "npx vitest run", "npx tsc --noEmit", "pnpm build"])
            unit = lambda: [f" {ch(['✓'] * 10 + ['✗'])} src/lib/{ch(P.mods)}.test.ts > "
                            f"{self.words(ri(3, 7))} {ri(1, 400)}ms"]
        elif P.lang == "go":
            cmd = ch(["go test ./...", "go vet ./...", "go build ./... && go test -race ./internal/..."])
            unit = lambda: [f"{ch(['ok  ', 'ok  ', 'ok  ', 'FAIL'])}\tgithub.com/acme/{P.name}/internal/"
                            f"{ch(P.mods)}\t{r.random() * 3:.3f}s"]
        else:
            cmd = ch(["cargo test", "cargo clippy --all-targets", "cargo build --release"])
            unit = lambda: [f"test {ch(P.mods)}::tests::{ch(P.funcs)} ... "
                            f"{ch(['ok'] * 12 + ['FAILED', 'ignored'])}"]
        return cmd, unit

    def git_unit(self) -> list[str]:
        ch, ri = self.ch, self.ri
        r = self.r
        if r.random() < 0.5:
            return [f"{r.getrandbits(28):07x} {ch(VERBS).capitalize()} {self.words(ri(3, 8))}"]
        code = self.code(self.p.lang, ri(3, 12))
        a = ri(1, 800)
        return ([f"diff --git a/{self.path()} b/{self.path()}", f"@@ -{a},{len(code)} +{a},{len(code) + 1} @@"]
                + [ch(" +-") + c for c in code])


PAST = {"get": "got", "set": "set", "run": "ran", "split": "split", "reset": "reset", "emit": "emitted",
        "find": "found", "read": "read", "write": "wrote", "send": "sent", "build": "built", "lookup": "looked up",
        "init": "initialised", "verify": "verified", "format": "formatted", "wrap": "wrapped", "stop": "stopped",
        "scan": "scanned", "trim": "trimmed", "apply": "applied", "retry": "retried", "patch": "patched"}


def _past(v: str) -> str:
    if v in PAST:
        return PAST[v]
    return v + "d" if v.endswith("e") else v + "ed"


# --------------------------------------------------------------------------- file contents

class FileCache:
    """Lines of synthetic project files, generated lazily and deterministically per file
    (a file's first N lines never depend on how far it was generated), LRU-capped."""

    def __init__(self, seed: int, cap_bytes: int = 64 << 20):
        self.seed, self.cap, self.used = seed, cap_bytes, 0
        self.lru: OrderedDict = OrderedDict()

    def lines(self, project: Project, fi: int, upto: int) -> list[str]:
        key = (project.index, fi)
        ent = self.lru.get(key)
        if ent is None:
            rng = random.Random(derive(self.seed, "file", project.index, fi))
            ent = self.lru[key] = [Text(project, rng), [], 0]
        self.lru.move_to_end(key)
        text, lines, _ = ent
        if len(lines) < upto:
            lang = LANG_OF_EXT.get(os.path.splitext(project.files[fi][0])[1], "yaml")
            before = ent[2]
            while len(lines) < upto:
                lines += text.block(lang) if lines or lang not in ("python", "go", "typescript", "rust") \
                    else self._header(text, lang)
            ent[2] = sum(len(x) + 60 for x in lines)   # ~ str + list slot overhead
            self.used += ent[2] - before
            while self.used > self.cap and len(self.lru) > 1:
                _, old = self.lru.popitem(last=False)
                self.used -= old[2]
        return lines

    @staticmethod
    def _header(t: Text, lang: str) -> list[str]:
        P, r = t.p, t.r
        if lang == "python":
            return ['"""' + t.sentence() + '"""', "", "from __future__ import annotations", "", "import logging"] + \
                   [f"from {P.pkg}.{m} import {r.choice(P.classes)}" for m in r.sample(P.mods, 3)] + \
                   ["", "logger = logging.getLogger(__name__)"]
        if lang == "typescript":
            return [f"import {{ {r.choice(P.classes)} }} from './{m}';" for m in r.sample(P.mods, 3)]
        if lang == "go":
            return [f"package {r.choice(P.mods)}", "", "import (", '\t"context"', '\t"fmt"', '\t"log"', ")"]
        return [f"use crate::{m}::{r.choice(P.classes)};" for m in r.sample(P.mods, 3)]


# --------------------------------------------------------------------------- writing

#: json.dumps(rec, ensure_ascii=False, separators=(",", ":")) without a new encoder per record
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class Writer:
    """One transcript file: envelope, threading (parentUuid), clock and byte counts."""

    def __init__(self, gen: "Generator", path: Path, sid: str, project: Project, version: str, branch: str,
                 clock: int, rng: random.Random, agent: str | None = None, slug: str | None = None):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.gen, self.path, self.sid, self.project, self.version = gen, path, sid, project, version
        self.branch, self.clock, self.r, self.agent, self.slug = branch, clock, rng, agent, slug
        self.new = vt(version) >= (2, 1, 100)
        self.parent: str | None = None
        self.f = open(path, "wb", buffering=1 << 20)
        self.last_prompt = ""

    def uid(self) -> str:
        return str(uuid.UUID(int=self.r.getrandbits(128), version=4))

    def tick(self, ms: float) -> None:
        self.clock += max(1, int(ms))

    def emit(self, rec: dict) -> None:
        line = _ENCODE(rec).encode("utf-8") + b"\n"
        self.f.write(line)
        g = self.gen
        g.bytes += len(line)
        g.records += 1
        g.max_line = max(g.max_line, len(line))
        g.by_type[rec["type"]] = g.by_type.get(rec["type"], 0) + 1

    def env(self, threaded: bool = True) -> dict:
        e = {"parentUuid": self.parent if threaded else None, "isSidechain": self.agent is not None,
             "userType": "external", "cwd": self.project.cwd, "sessionId": self.sid, "version": self.version,
             "gitBranch": self.branch}
        if self.agent:
            e["agentId"] = self.agent
        if self.new:
            e["entrypoint"] = "cli"
        if self.slug:
            e["slug"] = self.slug
        return e

    def threaded(self, rec: dict, u: str | None = None) -> str:
        u = u or self.uid()
        rec["uuid"] = u
        rec["timestamp"] = iso(self.clock)
        self.emit(rec)
        self.parent = u
        return u

    def user(self, content, **extra) -> str:
        return self.threaded({**self.env(), "type": "user", "message": {"role": "user", "content": content}, **extra})

    def assistant(self, blocks: list, model: str) -> list[str]:
        """One API response, one record per content block (sharing message.id/requestId)."""
        mid = "msg_01" + "".join(self.r.choices(B62, k=22))
        req = "req_011C" + "".join(self.r.choices(B62, k=20))
        cached = self.r.randint(8_000, 150_000)
        usage = {"input_tokens": self.r.randint(1, 40), "cache_creation_input_tokens": self.r.randint(0, 6000),
                 "cache_read_input_tokens": cached,
                 "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
                 "output_tokens": self.r.randint(1, 2500), "service_tier": "standard"}
        uuids = []
        for j, b in enumerate(blocks):
            last = j == len(blocks) - 1
            stop = ("tool_use" if b["type"] == "tool_use" else "end_turn") if last else None
            msg = {"model": model, "id": mid, "type": "message", "role": "assistant", "content": [b],
                   "stop_reason": stop, "stop_sequence": None, "usage": usage}
            uuids.append(self.threaded({**self.env(), "message": msg, "requestId": req, "type": "assistant"}))
            self.tick(self.r.expovariate(1 / 900))
        return uuids

    def attachment(self, att: dict) -> None:
        self.threaded({**self.env(), "type": "attachment", "attachment": att})

    def system(self, subtype: str, threaded: bool = True, **fields) -> str:
        return self.threaded({**self.env(threaded), "type": "system", "subtype": subtype, **fields})

    def untethered(self, rec: dict) -> None:
        """Records without uuid/parentUuid (snapshots, modes, titles, queue ops)."""
        self.emit(rec)

    def close(self) -> None:
        self.f.close()
        os.utime(self.path, (self.clock / 1000, self.clock / 1000))


# --------------------------------------------------------------------------- generation

class Generator:
    """Plans the corpus (turns per session, subagents, compactions, needles), then writes it
    one session at a time, steering tool-call count and total size by feedback."""

    def __init__(self, args):
        self.a = args
        self.out = Path(args.out)
        self.seed = args.seed
        self.bytes = self.records = self.max_line = 0
        self.by_type: dict[str, int] = {}
        self.c = dict(sessions=0, subagents=0, prompts=0, assistant_messages=0, tool_calls=0, tool_results=0,
                      tool_results_nonempty=0, tool_errors=0, thinking_blocks=0, compactions=0, huge_outputs=0,
                      main_turns=0, subagent_turns=0, subagent_prompts=0)
        self.turns_done = 0
        self.scale = 1.0
        self.lex = Lexicon(self.seed)
        self.projects = [Project(self.seed, i, self.lex) for i in range(args.projects)]
        self.proj_cum = zipf_cum(args.projects, 0.8)
        self.files = FileCache(self.seed)
        self.needles: list[dict] = []

    # -- feedback loops (deterministic: they only read counters of what was written)
    def target_bytes_now(self) -> float:
        return self.a.scale_bytes * self.turns_done / self.a.turns

    def adjust_scale(self) -> None:
        if self.turns_done < 30 or self.bytes <= 0:
            return
        ratio = self.target_bytes_now() / self.bytes
        self.scale = min(60.0, max(0.01, self.scale * min(1.5, max(0.66, ratio ** 0.5))))

    def calls_for_message(self, r: random.Random) -> int:
        c = r.choices([1, 2, 3, 4], cum_weights=[72, 89, 96, 100])[0]
        deficit = self.a.tool_calls * self.turns_done / self.a.turns - self.c["tool_calls"]
        if deficit > 2:
            c = min(5, c + 1 + (deficit > 20))
        elif deficit < -2:
            c = 1
        return c

    def out_size(self, r: random.Random, tool: str) -> tuple[int, bool]:
        if tool in ("Read", "Bash", "WebFetch") and r.random() < HUGE_P:
            return int(math.exp(r.uniform(math.log(HUGE_MIN), math.log(HUGE_MAX)))), True
        med, sigma = SIZES[tool]
        return max(40, min(HUGE_MAX, int(r.lognormvariate(math.log(med * self.scale), sigma)))), False

    # -- plan
    def plan(self):
        a, r = self.a, random.Random(derive(self.seed, "plan"))
        S, T = a.sessions, a.turns
        w = [r.lognormvariate(0, 1.0) for _ in range(S)]
        sub_total = int(round(T * a.subagent_share))
        n_agents = max(1, round(sub_total / 12)) if sub_total >= 3 else 0
        if T - sub_total < 4 * S:
            n_agents = 0
        main_total = T - (sub_total if n_agents else 0)
        floor = min(4, main_total // S)
        main = allocate(main_total, w, floor)
        agents: dict[int, list[int]] = {}
        eligible = [i for i in range(S) if main[i] >= 4]
        if n_agents and eligible:
            budgets = allocate(sub_total, [r.lognormvariate(0, 0.8) for _ in range(n_agents)], 3)
            ecum = list(itertools.accumulate(main[i] for i in eligible))
            for b in budgets:
                s = eligible[bisect.bisect(ecum, r.random() * ecum[-1])]
                agents.setdefault(s, []).append(b)
        else:   # no room for subagents: give their turns back to the main sessions
            main = allocate(T, w, floor)
        assert sum(main) + sum(sum(v) for v in agents.values()) == T
        # compactions: long sessions, weighted by length
        long_ = [i for i in range(S) if main[i] >= 6]
        k = min(len(long_), a.compactions)
        compact = set()
        while len(compact) < k:
            lc = list(itertools.accumulate(main[i] ** 1.5 for i in long_))
            compact.add(long_[bisect.bisect(lc, r.random() * lc[-1])])
        # needles
        kinds = ["prompt", "assistant", "tool", "subagent"]
        order = r.sample(range(S), S)
        needles: dict[int, list[dict]] = {}   # session -> needle specs (one session each while they last)
        used: set[str] = set()
        # subagent needles first: they need one of the (few) sessions that spawn subagents
        for j in sorted(range(a.needles), key=lambda j: (kinds[j % 4] != "subagent", j)):
            kind = kinds[j % 4]
            free = [s for s in order if s not in needles and (kind != "subagent" or s in agents)]
            if not free and kind == "subagent":
                kind, free = "assistant", [s for s in order if s not in needles]
            s = free[0] if free else r.randrange(S)
            w1, w2 = pseudo_word(r, self.lex.known | used), pseudo_word(r, self.lex.known | used)
            used |= {w1, w2}
            tpl = NEEDLE_TEMPLATES[j % len(NEEDLE_TEMPLATES)]
            needles.setdefault(s, []).append({"kind": kind, "w1": w1, "w2": w2, "tpl": tpl,
                                              "port": r.randint(1025, 65000), "n": r.choice(NOUNS),
                                              "date": f"2026-0{r.randint(1, 9)}-{r.randint(10, 28)}"})
        return main, agents, compact, needles

    def run(self, lo: int = 0, hi: int | None = None) -> dict:
        """Write sessions ``lo``..``hi`` (default: all) with this generator's
        feedback state (a shard: ``generate``); return the counters."""
        main, agents, compact, needles = self.plan()
        hi = self.a.sessions if hi is None else hi
        t_start = time.time()
        step = max(1, self.a.sessions // 20)
        for i in range(lo, hi):
            Session(self, i, main[i], agents.get(i, []), i in compact, needles.get(i, [])).run()
            self.c["sessions"] += 1
            if not self.a.quiet and (i + 1) % step == 0:
                print(f"  session {i + 1}/{self.a.sessions}: shard {lo}..{hi - 1}, {self.turns_done} turns, "
                      f"{self.bytes / 1e6:.1f} MB, {time.time() - t_start:.1f}s", file=sys.stderr, flush=True)
        self.c["turns"] = self.c["prompts"] + self.c["assistant_messages"]
        return self.c

    def result(self) -> dict:
        """What a shard hands back to ``generate`` (picklable)."""
        return {"counts": self.c, "bytes": self.bytes, "records": self.records, "max_line": self.max_line,
                "by_type": self.by_type, "needles": self.needles, "scale": self.scale}


def shards(sessions: int, size: int = SHARD_SESSIONS) -> list[tuple[int, int]]:
    """The session ranges [lo, hi) written with a feedback state of their own,
    ``size`` sessions each (a corpus of at most ``size`` sessions, such as
    the brief's, is one shard: written as before shards existed)."""
    return [(lo, min(sessions, lo + size)) for lo in range(0, sessions, size)]


def _run_shard(args, lo: int, hi: int) -> dict:
    """Write one shard (in a worker process, or in this one)."""
    g = Generator(args)
    g.run(lo, hi)
    return g.result()


def generate(args, jobs: int = 1) -> dict:
    """Write the corpus of ``args`` shard by shard, ``jobs`` shards at a
    time (processes); the output does not depend on ``jobs``.  Returns the
    shards' results merged, in session order."""
    ranges = shards(args.sessions, args.shard_sessions)
    if jobs <= 1 or len(ranges) == 1:
        results = [_run_shard(args, lo, hi) for lo, hi in ranges]
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=min(jobs, len(ranges)), mp_context=ctx) as pool:
            results = list(pool.map(_run_shard, [args] * len(ranges), *zip(*ranges)))
    merged = {"counts": {}, "bytes": 0, "records": 0, "max_line": 0, "by_type": {}, "needles": [], "scale": 1.0}
    for r in results:
        for k, v in r["counts"].items():
            merged["counts"][k] = merged["counts"].get(k, 0) + v
        for k, v in r["by_type"].items():
            merged["by_type"][k] = merged["by_type"].get(k, 0) + v
        merged["bytes"] += r["bytes"]
        merged["records"] += r["records"]
        merged["max_line"] = max(merged["max_line"], r["max_line"])
        merged["needles"] += r["needles"]
        merged["scale"] = r["scale"]
    return merged


def allocate(total: int, weights: list[float], floor: int) -> list[int]:
    """Integers >= floor summing to total, proportional to weights (largest remainder)."""
    n = len(weights)
    rest = total - floor * n
    if rest < 0:
        raise ValueError("too few turns for that many sessions")
    s = sum(weights)
    raw = [w * rest / s for w in weights]
    out = [int(x) for x in raw]
    left = rest - sum(out)
    for i in sorted(range(n), key=lambda i: (out[i] - raw[i], i))[:left]:
        out[i] += 1
    return [floor + x for x in out]


def pseudo_word(r: random.Random, avoid: set[str]) -> str:
    cons, vows = "bdfgklmnprstvz", "aeiou"
    while True:
        w = "".join(r.choice(cons) + r.choice(vows) for _ in range(3)) + r.choice("xqkz")
        if w not in avoid:
            return w


class Session:
    """One main transcript (and its subagent files)."""

    def __init__(self, gen: Generator, index: int, turns: int, agents: list[int], compact: bool, needles: list[dict]):
        self.g, self.index, self.turns, self.agents, self.compact = gen, index, turns, agents, compact
        self.r = r = random.Random(derive(gen.seed, "session", index))
        P = gen.projects[bisect.bisect(gen.proj_cum, r.random() * gen.proj_cum[-1])]
        self.P, self.t = P, Text(P, r)
        self.sid = str(uuid.UUID(int=r.getrandbits(128), version=4))
        self.version = r.choices([v for v, _ in VERSIONS], weights=[w for _, w in VERSIONS])[0]
        self.new = vt(self.version) >= (2, 1, 100)
        self.model = r.choice(MAIN_MODELS)
        branch = r.choice(["main", "main", "master", f"feat/{r.choice(P.funcs)}", f"fix/{r.choice(P.mods)}"])
        start = EPOCH_START_MS + int(r.random() * SPAN_DAYS * 86_400_000)
        slug = "-".join(r.choice(ADJS + VERBS) for _ in range(2)) + "-" + r.choice(NOUNS)
        self.w = Writer(gen, gen.out / P.encoded / f"{self.sid}.jsonl", self.sid, P, self.version, branch,
                        start, r, slug=slug)
        self.needles = needles
        self.todos: list[dict] = []

    # -- needles
    def needle(self, kind: str, session: str | None = None) -> str | None:
        n = next((x for x in self.needles if x["kind"] == kind), None)
        if n is None:
            return None
        self.needles.remove(n)
        fact = n["tpl"].format(w1=n["w1"], w2=n["w2"], n=n["n"], project=self.P.name, port=n["port"], date=n["date"])
        self.g.needles.append({"query": f"{n['w1']} {n['w2']}", "session": session or self.sid, "kind": kind,
                               "project": self.P.name, "file": str(self.w.path.relative_to(self.g.out)),
                               "fact": fact})
        return fact

    # -- plan of the session: cycles of (prompt, m tool messages, final answer)
    def plan(self) -> list[int]:
        r, R, cycles = self.r, self.turns, []
        while R > 0:
            if R == 1:
                cycles.append(-1)      # a prompt left without an answer (interrupted / exited)
                break
            m = min(int(r.expovariate(1 / 5.5)), R - 2)
            if not cycles and self.agents:
                m = max(1, m)
            cycles.append(m)
            R -= m + 2
        return cycles

    def run(self) -> None:
        r, w, g = self.r, self.w, self.g
        cycles = self.plan()
        tool_msgs = sum(max(0, m) for m in cycles)
        spawn_at: dict[int, list[int]] = {}
        for b in self.agents:
            spawn_at.setdefault(r.randrange(max(1, tool_msgs)), []).append(b)
        compact_at = r.randrange(tool_msgs // 2, tool_msgs) if self.compact and tool_msgs >= 2 else None
        self.head()
        k = 0
        for ci, m in enumerate(cycles):
            if ci == len(cycles) - 1:   # needles that may not find their place go into the last prompt
                keep = "assistant" if m >= 0 else None
                for n in self.needles:
                    if n["kind"] == keep:
                        keep = None
                    elif n["kind"] != "subagent":
                        n["kind"] = "prompt"
            self.prompt_records(first=ci == 0)
            if m < 0:
                continue
            for _ in range(m):
                self.tool_message(w, spawn=spawn_at.pop(k, []), main=True)
                if k == compact_at:
                    self.compaction(w)
                k += 1
            self.final_message()
            g.turns_done += 1
            g.adjust_scale()
        if self.compact and compact_at is None:   # too few tool messages: compact at the end
            self.compaction(w)
        self.tail()
        w.close()

    def head(self) -> None:
        r, w = self.r, self.w
        if self.new:
            w.untethered({"type": "permission-mode", "permissionMode": r.choice(["default", "acceptEdits"]),
                          "sessionId": self.sid})
            hook = r.getrandbits(128)
            w.attachment({"type": "hook_success", "hookName": "SessionStart:startup",
                          "toolUseID": str(uuid.UUID(int=hook, version=4)), "hookEvent": "SessionStart",
                          "content": "", "stdout": json.dumps({"hookSpecificOutput": {
                              "hookEventName": "SessionStart",
                              "additionalContext": f"<mem-context>{self.t.sentence()}</mem-context>"}}) + "\n",
                          "stderr": "", "exitCode": 0, "command": "mem hook claude-code session-start",
                          "durationMs": r.randint(20, 400)})
        else:
            if r.random() < 0.3:
                w.untethered({"type": "summary", "summary": self.t.words(4).title(), "leafUuid": w.uid()})
            tid = str(uuid.UUID(int=r.getrandbits(128), version=4))
            w.threaded({**w.env(), "type": "progress", "data": {
                "type": "hook_progress", "hookEvent": "SessionStart", "hookName": "SessionStart:startup",
                "command": "mem hook claude-code session-start"}, "parentToolUseID": tid, "toolUseID": tid})

    def tail(self) -> None:
        w = self.w
        if self.new:
            w.untethered({"type": "last-prompt", "lastPrompt": w.last_prompt[:200], "sessionId": self.sid})
            if vt(self.version) >= (2, 1, 150):
                w.untethered({"type": "ai-title", "aiTitle": self.t.words(4).title(), "sessionId": self.sid})

    def prompt_records(self, first: bool) -> None:
        r, w, g = self.r, self.w, self.g
        w.tick(r.expovariate(1 / 240_000) + 2_000 if not first else 1500)
        if r.random() < 0.04:
            w.user(CAVEAT, isMeta=True)
        text = self.t.prompt()
        while True:
            fact = self.needle("prompt")
            if not fact:
                break
            text = f"{text}\n\n{fact}"
        u = w.uid()
        w.untethered({"type": "file-history-snapshot", "messageId": u, "snapshot": {
            "messageId": u, "trackedFileBackups": {}, "timestamp": iso(w.clock)}, "isSnapshotUpdate": False})
        extra = {"promptId": w.uid()} if self.new else {}
        content = text
        if r.random() < 0.01:    # pasted screenshot
            content = [{"type": "text", "text": text}, {"type": "image", "source": {
                "type": "base64", "media_type": "image/png",
                "data": base64.b64encode(r.randbytes(r.randint(2_000, 30_000))).decode()}}]
        w.threaded({**w.env(), "type": "user", "message": {"role": "user", "content": content}, **extra}, u)
        w.last_prompt = text
        g.c["prompts"] += 1
        g.c["main_turns"] += 1
        g.turns_done += 1
        if self.new and r.random() < 0.4:
            w.attachment({"type": "hook_additional_context", "content": [
                f"<mem-context>{self.t.sentence()}</mem-context>"], "hookName": "UserPromptSubmit",
                "toolUseID": "UserPromptSubmit", "hookEvent": "UserPromptSubmit"})
        if r.random() < 0.03:
            w.untethered({"type": "queue-operation", "operation": "enqueue", "timestamp": iso(w.clock),
                          "content": [{"type": "text", "text": self.t.fill(r.choice(PROMPTS_SHORT))}],
                          "sessionId": self.sid})
        w.tick(r.expovariate(1 / 3000) + 500)

    def blocks_head(self, t: Text, p_think: float, text: str | None) -> list[dict]:
        r, g, out = self.r, self.g, []
        if r.random() < p_think:
            visible = not self.new or r.random() < 0.5
            out.append({"type": "thinking", "thinking": t.thinking() if visible else "", "signature": t.signature()})
            g.c["thinking_blocks"] += 1
        if text:
            out.append({"type": "text", "text": text})
        return out

    def tool_message(self, w: Writer, spawn: list[int], main: bool, t: Text | None = None,
                     tools=MAIN_TOOLS, sub_needle: str | None = None) -> None:
        r, g = self.r, self.g
        t = t or self.t
        text = t.pre_tool() if r.random() < 0.5 else None
        if sub_needle:
            text = f"{t.pre_tool()} {sub_needle}"
        blocks = self.blocks_head(t, 0.3, text)
        n = max(len(spawn), g.calls_for_message(r)) if spawn else g.calls_for_message(r)
        names = ["Agent" if self.new else "Task"] * len(spawn)
        names += r.choices([x for x, _ in tools], weights=[y for _, y in tools], k=n - len(spawn))
        calls = []
        for j, name in enumerate(names):
            tid = "toolu_01" + "".join(r.choices(B62, k=22))
            inp, state = self.tool_input(t, name)
            # outputs are made before the tool_use is written: some inputs (command, offset) depend on them
            out = None if j < len(spawn) else self.tool_output(t, name, inp, state)
            calls.append((tid, name, inp, out))
        blocks += [{"type": "tool_use", "id": tid, "name": name, "input": inp} for tid, name, inp, _ in calls]
        uuids = w.assistant(blocks, self.model if main else HAIKU)
        g.c["assistant_messages"] += 1
        g.c["main_turns" if main else "subagent_turns"] += 1
        g.c["tool_calls"] += len(calls)
        g.turns_done += 1
        src = uuids[-1]
        for (tid, name, inp, out), budget in zip(calls, spawn + [None] * len(calls)):
            if self.new and r.random() < 0.15:
                w.attachment({"type": "hook_success", "hookName": f"PreToolUse:{name}", "toolUseID": tid,
                              "hookEvent": "PreToolUse", "content": "", "stdout": "", "stderr": "", "exitCode": 0,
                              "command": "mem hook claude-code pre-tool", "durationMs": r.randint(5, 90)})
            elif not self.new and r.random() < 0.15:
                w.threaded({**w.env(), "type": "progress", "data": {
                    "type": "hook_progress", "hookEvent": "PostToolUse", "hookName": f"PostToolUse:{name}",
                    "command": "mem hook claude-code post-tool"}, "parentToolUseID": tid, "toolUseID": tid})
            if budget is not None:
                content, tur, err = self.run_subagent(tid, inp, budget, w)
            else:
                w.tick(r.expovariate(1 / 4000) + 50)
                content, tur, err = out
            if main:
                fact = self.needle("tool")
                if fact:
                    content = f"{fact}\n{content}" if isinstance(content, str) else \
                        [{"type": "text", "text": fact}] + content
            block = {"tool_use_id": tid, "type": "tool_result", "content": content}
            if err:
                block["is_error"] = True
                g.c["tool_errors"] += 1
            w.user([block], toolUseResult=tur, sourceToolAssistantUUID=src)
            g.c["tool_results"] += 1
            if (content if isinstance(content, str) else "x").strip():
                g.c["tool_results_nonempty"] += 1
        w.tick(r.expovariate(1 / 2000) + 300)

    def final_message(self) -> None:
        r, w, g = self.r, self.w, self.g
        text = self.t.final()
        fact = self.needle("assistant")
        if fact:
            text = f"{text}\n\n{fact}"
        w.assistant(self.blocks_head(self.t, 0.25, text), self.model)
        g.c["assistant_messages"] += 1
        g.c["main_turns"] += 1
        if self.new:
            if r.random() < 0.5:
                w.system("stop_hook_summary", hookCount=1, hookInfos=[{"command": "mem hook claude-code stop",
                                                                       "durationMs": r.randint(20, 300)}],
                         hookErrors=[], preventedContinuation=False, stopReason="", hasOutput=False, level="suggestion",
                         toolUseID=str(uuid.UUID(int=r.getrandbits(128), version=4)))
            if r.random() < 0.5:
                w.system("turn_duration", durationMs=r.randint(3_000, 600_000), messageCount=r.randint(2, 120),
                         isMeta=False)
            if r.random() < 0.03:
                w.system("away_summary", content=self.t.para(2), isMeta=False)

    def compaction(self, w: Writer, t: Text | None = None) -> None:
        r, t = self.r, t or self.t
        w.tick(r.expovariate(1 / 20_000) + 5_000)
        last = w.parent
        w.system("compact_boundary", threaded=False, content="Conversation compacted", isMeta=False,
                 level="info", logicalParentUuid=last,
                 compactMetadata={"trigger": r.choice(["auto", "auto", "manual"]),
                                  "preTokens": r.randint(120_000, 170_000)})
        w.user(t.compact_summary(), isVisibleInTranscriptOnly=True, isCompactSummary=True)
        self.g.c["compactions"] += 1

    # -- tools
    def tool_input(self, t: Text, name: str):
        """(input dict, private state for tool_output)."""
        r, P = self.r, t.p
        if name == "Read":
            fi = bisect.bisect(P.file_cum, r.random() * P.file_cum[-1])
            return {"file_path": f"{P.cwd}/{P.files[fi][0]}"}, fi
        if name == "Edit":
            fi = bisect.bisect(P.file_cum, r.random() * P.file_cum[-1])
            return {"file_path": f"{P.cwd}/{P.files[fi][0]}"}, fi
        if name == "Write":
            mod = r.choice(P.mods)
            verb = r.choice(VERBS)
            path = {"python": f"tests/test_{mod}_{verb}.py", "typescript": f"src/lib/{mod}_{verb}.ts",
                    "go": f"internal/{mod}/{verb}.go", "rust": f"src/{mod}_{verb}.rs"}[P.lang]
            return {"file_path": f"{P.cwd}/{path}", "content": ""}, path
        if name == "Bash":
            return {"command": "", "description": ""}, None
        if name == "Grep":
            mode = r.choice(["content", "files_with_matches"])
            inp = {"pattern": r.choice(P.funcs + P.classes), "output_mode": mode}
            if mode == "content":
                inp["-n"] = True
            if r.random() < 0.4:
                inp["path"] = P.cwd + "/" + t.path().rsplit("/", 1)[0]
            return inp, mode
        if name == "Glob":
            ext = EXT[P.lang]
            pats = [f"**/*.{ext}", f"**/*{r.choice(P.mods)}*", "docs/**/*.md", f"tests/**/*.{ext}"]
            return {"pattern": r.choice(pats)}, None
        if name == "TodoWrite":
            todos = self.todos
            for td in todos:
                if td["status"] != "completed" and r.random() < 0.5:
                    td["status"] = "completed" if td["status"] == "in_progress" else "in_progress"
            if not todos or all(td["status"] == "completed" for td in todos) or r.random() < 0.2:
                self.todos = todos = [{"content": t.fill("{v} the {n} in `{path}`").capitalize(), "status": "pending",
                                       "activeForm": t.fill("Working on the {n}")} for _ in range(r.randint(2, 7))]
                todos[0]["status"] = "in_progress"
            return {"todos": [dict(x) for x in todos]}, None
        if name == "WebFetch":
            return {"url": f"https://docs.{r.choice(P.domain)}.dev/{t.words(2).replace(' ', '-')}",
                    "prompt": t.sentence()}, None
        if name == "WebSearch":
            return {"query": f"{r.choice(P.domain)} {t.words(r.randint(2, 5))} 2026"}, None
        # Task / Agent
        sub = r.choice(["Explore", "Explore", "general-purpose", "Plan"])
        desc = t.fill("{v} {n} usage").capitalize()
        prompt = t.fill("Search the codebase for every place that {v3} the {n}. ") + t.para(r.randint(1, 5)) + \
            " Report file paths with line numbers and a short summary."
        inp = {"description": desc, "prompt": prompt, "subagent_type": sub}
        if sub == "Explore":
            inp["model"] = "haiku"
        return inp, None

    def window(self, P: Project, fi: int, start: int, nbytes: int, stop: int | None) -> list[str]:
        """Lines of file ``fi`` from 1-based ``start`` until about ``nbytes`` (as numbered by Read)
        or until line ``stop``."""
        est = start - 1 + nbytes // 30 + 8
        while True:
            upto = est if stop is None else min(est, stop)
            out, n = [], 0
            for x in itertools.islice(self.g.files.lines(P, fi, upto), start - 1, upto):
                out.append(x)
                n += len(x) + 8
                if n >= nbytes:
                    return out
            if stop is not None and upto >= stop:
                return out
            est *= 2

    def tool_output(self, t: Text, name: str, inp: dict, state):
        """(tool_result content, toolUseResult, is_error) — also fills in inputs chosen late."""
        r, g, P = self.r, self.g, t.p
        if name in SIZES:
            size, huge = g.out_size(r, name)
            g.c["huge_outputs"] += huge
        if name == "Read":
            total = P.files[state][1]
            start = 1 if huge or r.random() < 0.6 else r.randint(1, max(1, total // 2))
            lines = self.window(P, state, start, size, None if huge else total)
            if start > 1 or len(lines) < total:
                inp["offset"], inp["limit"] = start, len(lines)
            n = len(lines)
            body = "\n".join(f"{i:>6}→{x}" for i, x in enumerate(lines, start))
            if not self.new:
                body += READ_REMINDER
            return body, {"type": "text", "file": {"filePath": inp["file_path"], "content": "\n".join(lines),
                                                   "numLines": len(lines), "startLine": start,
                                                   "totalLines": max(total, start - 1 + n)}}, False
        if name == "Edit":
            total = P.files[state][1]
            lines = self.window(P, state, 1, size, max(12, total))
            k = r.randrange(0, max(1, len(lines) - 3))
            old = "\n".join(lines[k:k + r.randint(1, 3)])
            new = old + "\n" + (lines[k][:len(lines[k]) - len(lines[k].lstrip())] + COMMENT[P.lang]
                                 + t.words(r.randint(3, 9)))
            inp.update(old_string=old, new_string=new)
            if r.random() < 0.05:
                msg = f"String to replace not found in file.\nString: {old}"
                return f"<tool_use_error>{msg}</tool_use_error>", f"Error: {msg}", True
            snip = "\n".join(f"{i:>6}→{x}" for i, x in enumerate(lines[max(0, k - 4):k + 6], max(1, k - 3)))
            patch = [{"oldStart": k + 1, "oldLines": old.count("\n") + 1, "newStart": k + 1,
                      "newLines": new.count("\n") + 1, "lines": ["-" + x for x in old.split("\n")]
                      + ["+" + x for x in new.split("\n")]}]
            return (f"The file {inp['file_path']} has been updated. Here's the result of running `cat -n` on a "
                    f"snippet of the edited file:\n{snip}"), {
                "filePath": inp["file_path"], "oldString": old, "newString": new,
                "originalFile": "\n".join(lines), "structuredPatch": patch, "userModified": False,
                "replaceAll": False}, False
        if name == "Write":
            lang = LANG_OF_EXT[os.path.splitext(state)[1]]
            code = []
            n = 0
            while n < size:
                b = t.block(lang)
                code += b
                n += sum(len(x) + 1 for x in b)
            inp["content"] = "\n".join(code)
            return (f"File created successfully at: {inp['file_path']}",
                    {"type": "create", "filePath": inp["file_path"], "content": inp["content"], "structuredPatch": []},
                    False)
        if name == "Bash":
            cmd, out = t.cmd_output(size)
            inp["command"], inp["description"] = cmd, t.fill("{v} {n}").capitalize()
            if r.random() < 0.08:
                code = r.choice([1, 1, 2, 127])
                return f"Exit code {code}\n{out}", f"Error: Exit code {code}\n{out}", True
            return out, {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}, False
        if name == "Grep":
            if state == "content":
                lines = t.sized(size, lambda: f"{P.cwd}/{t.path()}:{r.randint(1, 900)}:"
                                              f"{t.fill(r.choice(PY_STMTS), t.code_slots).splitlines()[0]}")
                out = "\n".join(lines)
                return out, {"mode": "content", "numFiles": 0, "filenames": [], "content": out,
                             "numLines": len(lines)}, False
            files = dedupe(f"{P.cwd}/{t.path()}" for _ in range(max(1, size // 60)))
            return (f"Found {len(files)} files\n" + "\n".join(files),
                    {"mode": "files_with_matches", "filenames": files, "numFiles": len(files)}, False)
        if name == "Glob":
            files = dedupe(f"{P.cwd}/{t.path()}" for _ in range(max(1, size // 60)))
            if r.random() < 0.05:
                return "No files found", {"filenames": [], "durationMs": r.randint(3, 400), "numFiles": 0,
                                          "truncated": False}, False
            return "\n".join(files), {"filenames": files, "durationMs": r.randint(3, 400), "numFiles": len(files),
                                      "truncated": False}, False
        if name == "TodoWrite":
            return TODO_OK, {"oldTodos": [], "newTodos": inp["todos"]}, False
        if name == "WebFetch":
            out = "\n\n".join(t.sized(size, lambda: t.para(r.randint(2, 6))))
            return out, {"bytes": len(out) * 3, "code": 200, "codeText": "OK", "result": out,
                         "durationMs": r.randint(300, 9000), "url": inp["url"]}, False
        links = [{"title": t.words(5).title(),
                  "url": f"https://{r.choice(P.domain)}.dev/{t.words(2).replace(' ', '/')}"}
                 for _ in range(r.randint(3, 10))]
        out = (f'Web search results for query: "{inp["query"]}"\n\nLinks: {json.dumps(links)}\n\n'
               + "\n\n".join(t.sized(size, lambda: t.para(r.randint(2, 5)))))
        return out, {"query": inp["query"], "results": [{"tool_use_id": "srvtoolu_01" + "".join(
            r.choices(B62, k=22)), "content": links}], "durationSeconds": round(r.uniform(1, 9), 3)}, False

    def run_subagent(self, tid: str, inp: dict, budget: int, parent: Writer):
        """Write <session>/subagents/agent-<id>.jsonl (+ .meta.json); return the Task/Agent tool result."""
        r, g = self.r, self.g
        aid = "a" + "%016x" % r.getrandbits(64)
        sub_dir = g.out / self.P.encoded / self.sid / "subagents"
        w = Writer(g, sub_dir / f"agent-{aid}.jsonl", self.sid, self.P, self.version, parent.branch,
                   parent.clock + r.randint(50, 900), r, agent=aid)
        t = Text(self.P, r)
        w.user(inp["prompt"], **({"promptId": w.uid()} if self.new else {}))
        g.c["prompts"] += 1
        g.c["subagent_prompts"] += 1
        g.c["subagent_turns"] += 1
        g.turns_done += 1
        w.tick(r.expovariate(1 / 2000) + 300)
        m = budget - 2
        fact = self.needle("subagent", session=f"{self.sid}.agent-{aid}")
        if fact:
            g.needles[-1]["file"] = str(w.path.relative_to(g.out))
        compact_at = m // 2 if m >= 40 and r.random() < 0.3 else None
        for j in range(m):
            self.tool_message(w, [], main=False, t=t, tools=SUB_TOOLS, sub_needle=fact if j == 0 else None)
            if j == compact_at:
                self.compaction(w, t)
        report = t.report()
        w.assistant(self.blocks_head(t, 0.2, report), HAIKU)
        g.c["assistant_messages"] += 1
        g.c["subagent_turns"] += 1
        g.turns_done += 1
        w.close()
        meta = {"agentType": inp["subagent_type"], "description": inp["description"]}
        if self.new:
            meta["toolUseId"] = tid
        mp = sub_dir / f"agent-{aid}.meta.json"
        mp.write_bytes(json.dumps(meta, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
        os.utime(mp, (w.clock / 1000, w.clock / 1000))
        g.c["subagents"] += 1
        tokens = r.randint(8_000, 90_000)
        content = [{"type": "text", "text": report}]
        if self.new:
            content.append({"type": "text", "text": f"agentId: {aid} (for resuming to continue this agent's work "
                                                     f"if needed)\n<usage>total_tokens: {tokens}</usage>"})
        tur = {"status": "completed", "prompt": inp["prompt"], "agentId": aid, "content": [content[0]],
               "totalDurationMs": w.clock - parent.clock, "totalTokens": tokens, "totalToolUseCount": m,
               "usage": {"input_tokens": r.randint(1, 40), "cache_read_input_tokens": r.randint(5_000, 80_000),
                         "output_tokens": r.randint(100, 3_000)}}
        parent.clock = w.clock
        return content, tur, False


# --------------------------------------------------------------------------- CLI

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", metavar="OUT_DIR", help="output ~/.claude/projects-shaped directory")
    ap.add_argument("--sessions", type=int, default=BRIEF_SESSIONS, help="main sessions (default %(default)s)")
    ap.add_argument("--turns", type=int, default=BRIEF_TURNS,
                    help="typed prompts + assistant messages, subagents included, exact (default %(default)s)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--projects", type=int, default=12)
    ap.add_argument("--subagent-share", type=float, default=0.1, help="share of turns in subagent files")
    ap.add_argument("--scale-bytes", type=parse_bytes, default=None,
                    help="total size, e.g. 144MB (default: 144MB * turns / 18099)")
    ap.add_argument("--tool-calls", type=int, default=None,
                    help="target tool calls (default: turns * 19397 / 18099)")
    ap.add_argument("--compactions", type=int, default=None,
                    help="sessions with a compaction (default sessions/50, >= 1)")
    ap.add_argument("--needles", type=int, default=None, help="planted facts (default sessions/20 in 4..20)")
    ap.add_argument("--force", action="store_true", help="replace an OUT_DIR written by this script")
    ap.add_argument("--shard-sessions", type=int, default=SHARD_SESSIONS,
                    help="sessions written with one feedback state (default %(default)s; changes the output)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                    help="shards written at a time, in processes (default: the CPU count); "
                         "the output does not depend on it")
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args(argv)
    jobs = max(1, a.jobs)
    if a.shard_sessions < 1:
        ap.error("need --shard-sessions >= 1")
    if a.sessions < 1 or a.turns < a.sessions or a.projects < 1 or not 0 <= a.subagent_share < 0.9:
        ap.error("need sessions >= 1, turns >= sessions, projects >= 1, 0 <= subagent-share < 0.9")
    if a.scale_bytes is None:
        a.scale_bytes = round(BRIEF_BYTES * a.turns / BRIEF_TURNS)
    if a.tool_calls is None:
        a.tool_calls = round(a.turns * BRIEF_TOOL_CALLS / BRIEF_TURNS)
    if a.compactions is None:
        a.compactions = max(1, round(a.sessions / 50))
    if a.needles is None:
        a.needles = min(20, max(4, a.sessions // 20))
    out = Path(a.out)
    if out.exists() and any(out.iterdir()):
        if not a.force or not (out / MARKER).exists():
            ap.error(f"{out} is not empty (use --force to replace a corpus written by this script)")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("written by bench/gen_corpus.py\n")
    t0 = time.time()
    g = generate(a, jobs)
    counts = g["counts"]
    summary = {"args": {k: v for k, v in vars(a).items() if k not in ("out", "force", "quiet", "jobs", "shard_sessions")},
               "counts": counts, "bytes": g["bytes"], "records": g["records"], "max_line_bytes": g["max_line"],
               "records_by_type": dict(sorted(g["by_type"].items())),
               "size_scale": round(g["scale"], 4),
               "files": counts["sessions"] + counts["subagents"]}
    if a.sessions > a.shard_sessions:  # feedback per shard (a corpus written before shards differs)
        summary["args"]["shard_sessions"] = a.shard_sessions
    (out / "corpus.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "needles.json").write_text(json.dumps(g["needles"], indent=2, ensure_ascii=False) + "\n")
    if not a.quiet:
        print(json.dumps({**summary, "wall_s": round(time.time() - t0, 2)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
