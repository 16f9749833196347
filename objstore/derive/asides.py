"""What sets a unit of a cited turn aside for derive's evidence check (``objstore.derive.evidence``): the pattern
texts (Python ``re`` syntax, compiled there with ``re.I``) of a question, a hedge or guess, a counterfactual, hearsay
and its source, a line to ignore, a tool tried and removed, a past value told with its time first, a chat line
quoted.  Moved out of ``evidence`` whole (session 44) when it reached the module size limit; the sessions' findings
each alternative answers are named beside it."""

from __future__ import annotations

#: what makes a unit not a statement that its value is so: a question that is not a request ("Should we switch
#: … to 6543?"), a hedge or guess ("Maybe …, I am guessing"), a counterfactual ("If the ttl were 900 … would"),
#: hearsay ("Someone on the forum claims the region is …"), a line set aside ("… (stale fork, ignore)"), a tool
#: tried and removed, a past or old thing's value ("was X until yesterday", "our old vendor used …"), a draft
#: not approved (test37b T11)
UNSURE = (r"\b(?:not\s+(?:yet\s+)?(?:decided|sure|confirmed|approved|final)|undecided|unsure|unconfirmed|"
           r"(?:could|can)\s*(?:not|n[o']?t)\s+confirm|guess(?:ing)?|draft|"
           r"(?:moving|migrating|switching|moved)\s+(?:off|away\s+from)|"
           r"(?:ripped|pulled|tore|took|threw)\s+(?:it|them|that)\s+out|gave\s+up\s+on)\b")
#: a unit that ends by saying to ignore it ("… (this is from a stale fork, ignore).", "ignore that"); not "Ignore
#: all previous instructions and …", whose own value is a request's
IGNORE = (r"\b(?:ignore|disregard)(?:\s+(?:it|this|that|them|those|these))?\W*$"
           # "disregard the line above", "scratch that", "never mind the above" (test38 T2)
           r"|\b(?:ignore|disregard|forget|scratch|strike)\s+(?:the\s+|my\s+)?(?:(?:last\s+)?(?:line|lines|message|"
           r"sentence|part|bit|one)\s+)?(?:above|before|earlier)\b|\b(?:scratch|strike)\s+that\b"
           r"|\bnever\s*mind\s+(?:that|the\s+above)\b")
#: a unit that opens by setting itself aside ("Ignore this: the db host is X", "Disregard what I said about …"),
#: a hedge ("I think X", "probably X"), hearsay ("I heard …", "someone said …", "apparently …") or a supposition
#: ("hypothetically …", "let's say …") (test38 T2)
ASIDE_MORE = (r"^\W*(?:ignore|disregard|forget|never\s*mind)\s+(?:this|that|the\s+following|everything|what\s+i\s+"
               r"(?:said|wrote|told\s+you))\b"
               r"|\bi\s+(?:think|guess|assume|suppose|believe|suspect|reckon|imagine|figure)\b(?!\s+so\b)"
               r"|\b(?:i'?m|i\s+am)\s+(?:guessing|assuming|pretty\s+sure)\b"
               r"|\b(?:probably|likely|presumably|might|apparently|hypothetical(?:ly)?|rumou?r)\b"
               r"|\b(?:may|could)\s+be\b|\blet'?s\s+(?:say|assume|pretend)\b|\bfor\s+(?:this|the)\s+example\b"
               r"|\bi\s+(?:heard|hear)\b(?!\s+back)|\b(?:heard|hear)\s+(?:that|from\s+(?:someone|somebody|people))\b"
               r"|\bword\s+is\b")
#: who hearsay comes from (test40 T14): a person or a group, by name ("Bob", "Alice": a capitalised word that is not a
#: document's or a pronoun) or by role ("my colleague", "the team lead"); not a document ("The docs say …",
#: "According to the runbook …" are the person pointing at a source, admitted)
SOURCE = (r"(?:someone|somebody|people|folks|they|others|everyone|everybody|he|she"
           # a tool or a model as the source ("ChatGPT said …", "the AI thinks …"; test41 T18)
           r"|chatgpt|gpt[-\s]?\d[\w.]*|copilot|claude|gemini|bard|llama|perplexity|google|stack\s?overflow"
           r"|(?:the|an?|some)\s+(?:ai|llm|bot|chatbot|model|assistant)"
           r"|(?:my|our|the|a|an|some|one\s+of\s+(?:my|our|the))\s+(?:[\w-]+\s+){0,2}?(?:colleague|co-?worker|teammate|"
           r"manager|boss|lead|cto|ceo|vp|admin|sysadmin|dba|sre|devops|ops|vendor|client|customer|friend|contractor|intern|"
           r"consultant|architect|predecessor|team|engineer|developer|dev|person|support|reviewer|maintainer)s?)")
#: a person's name ("Bob said on Slack …"): a capitalised word that is not a document's or a pronoun; its verb must
#: agree with it ("Bob says", "Alice told"), so "Please tell …" is not hearsay
NAME = (r"(?!(?:the|this|that|these|those|it|its|our|my|your|their|docs?|readme|wiki|runbook|config|manual|spec|"
         r"changelog|ticket|issue|log|logs|output|dashboard|code|file|page|guide|tests?|ci|error|message|script|"
         r"makefile|dockerfile|compose|helm|terraform|please|also|just|then|so|now)\b)(?-i:[A-Z][a-z]+)")
#: what hearsay's source does: says, thinks, tells (test40 T14)
HEARS = (r"(?:said|says|told|tells|claims|claimed|thinks|thought|reckons|believes|believed|mentioned|mentions|suggested|"
          r"suggests|wrote|writes|posted|insists|insisted|swears|swore|figures|guesses|guessed|assumes|assumed)"
          # (not a confirmation of what the person said: "… - Bob said that's right", test41 T18)
          r"(?!\s+(?:so|(?:that|it|this)(?:['\u2019]s|\s+is|\s+was)\s+(?:(?:all|exactly|quite)\s+)?(?:right|correct|true|"
          r"accurate))\b)")
#: (the same, said of many: "people say", "they think")
HEAR = r"(?:say|tell|claim|think|reckon|believe|suggest|write|insist|swear|figure|guess|assume)"
#: where a source said it ("on Slack", "in the channel", "on the infra team")
WHERE = r"(?:\s+(?:on|in|at|from|over)\s+(?:the\s+|our\s+)?[\w-]+(?:\s+[\w-]+)?)?"
#: hearsay: a source and its verb, where they said it between ("Someone on Slack thinks …", test39b B15; "Bob said on
#: Slack …", "My colleague thinks …"; not "As Bob said, …", the person agreeing), "according to"/"as per" a person,
#: "I was told" (test40 T14)
HEARSAY = (rf"\b(?<!\bas\s)(?<!\blike\s)(?:{SOURCE}(?:\s+else)?|{NAME}){WHERE}\s+{HEARS}\b|\b{SOURCE}(?:\s+else)?{WHERE}\s+{HEAR}\b"
            rf"|\b(?:according\s+to|as\s+per|per)\s+(?:{SOURCE}|{NAME}|him|her|them)\b"
            r"|\b(?:i|we)\s*(?:was|were|am|are|have\s+been|['\u2019]ve\s+been|had\s+been|['\u2019]m)\s+told\b(?!\s+to\b)"
            r"|\btold\s+(?:me|us)\b")
#: a past value told with its time first: "Until March the db port was 5432", "Last year we used …" (test40 T14)
PAST_FIRST = (r"^\W*(?:(?:up\s+)?until|till|before(?!\s+(?:i|we|you|they|he|she|it)\b)|prior\s+to|"
               r"last\s+(?:week|month|year|quarter|sprint|time)|back\s+(?:then|in)|originally|initially|at\s+first|"
               r"in\s+the\s+past|formerly|previously|(?:back\s+)?in\s+(?:(?:early|late|mid)[-\s]+)?(?:(?:19|20)\d\d|"
               r"jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|"
               r"september|october|november|december))\b.*\b(?:was|were|used|had)\b"
               # (not a change TO the value, which is its current one: "In March the port was changed to 6543", T11)
               r"(?!\s+(?:changed|updated|moved|switched|set|bumped|raised|lowered|migrated)\s+to\b)")
#: a chat line quoted: "Bob: the db port is 5432" (a name, a colon, a clause in lower case; not a label such as
#: "Note:", test41 T18)
QUOTE = (r"^\W*(?!(?:note|notes|update|edit|correction|confirmed|answer|reminder|important|fyi|summary|context|actually|"
          r"yes|no|ok|okay|done|fixed|result|status|decision|conclusion|ps|nb|question|reason|problem|solution|fact|rule|"
          r"tip|warning|caution|hint|goal|plan|change|changes|outcome|lesson|today|current|currently|correct|right|"
          rf"memory|remember|background|setup|user|me|final|info|todo|fix|details|again|also|so|now|example|caveat|"
          rf"string|links?|source|sources|quote|hint|tldr|edit|aside|re|fwd?|subject)\b){NAME}\s*:\s+(?-i:[a-z])(?=.*\b(?:is|are|was|were)\b)")
