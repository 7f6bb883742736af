"""A retrieval set for ``search_facts``: a project's memory and the questions people ask of it.

The memory (:func:`memory`) is what a team's agents write over months: who
owns and who is on call for each service, what each one depends on and runs
on, the decisions taken and why, incidents, tickets and notes in people's
words, and a description of every predicate with its arguments' names; more
than 5,000 facts, the same on every run (the variety comes from a seeded
random choice among realistic parts).

The questions (:func:`queries`) are asked as people ask them: most share no
word with the facts that answer them ("who is responsible for sign-in?" of
``owner(auth_service, ...)``), a few are exact-word lookups (an incident's
id, a database's name) that a search by meaning alone may miss.  Each names
the facts that answer it; ``shares_words`` says whether a question shares a
word with an answer the way the search by words matches words.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from zpm_domain.analysis.words import PREFIX_FROM, any_parts

SEED = 20261207

# (atom, what it does in people's words: two phrasings sharing no word with the atom)
SERVICES: list[tuple[str, str, str]] = [
    ("auth_service", "sign-in", "logging people in"),
    ("billing_service", "charging customers", "monthly invoices"),
    ("search_indexer", "finding documents", "full-text lookup"),
    ("notification_gateway", "emails and push messages", "telling users when something happens"),
    ("payment_processor", "card transactions", "taking money from credit cards"),
    ("user_profiles", "account details", "people's names and avatars"),
    ("image_resizer", "thumbnails", "shrinking pictures"),
    ("rate_limiter", "throttling abusive clients", "too many requests from one caller"),
    ("feature_flags", "turning things on gradually", "toggles for experiments"),
    ("recommendation_engine", "suggested products", "what customers might like next"),
    ("shipping_tracker", "where a parcel is", "delivery status"),
    ("inventory_ledger", "stock levels", "how many items are left in the warehouse"),
    ("fraud_detector", "suspicious purchases", "stolen cards"),
    ("report_builder", "monthly spreadsheets for finance", "exported summaries"),
    ("chat_support", "talking to customers live", "the help desk conversation window"),
    ("pdf_renderer", "printable documents", "turning pages into printouts"),
    ("video_transcoder", "converting movies between formats", "streaming quality levels"),
    ("geo_lookup", "turning addresses into coordinates", "maps and locations"),
    ("tax_calculator", "VAT and sales levies", "how much duty to add"),
    ("coupon_manager", "discount codes", "promotional vouchers"),
    ("session_store", "remembering who is logged on between pages", "browser cookies"),
    ("audit_logger", "compliance trail", "who did what and when"),
    ("backup_scheduler", "nightly copies of the databases", "restoring lost data"),
    ("translation_service", "other languages", "localising text"),
    ("review_moderator", "removing abusive comments", "spam in product ratings"),
    ("warehouse_robotics", "picking machines", "automated carts on the floor"),
    ("ab_testing", "comparing two variants", "experiment buckets"),
    ("email_parser", "reading incoming mail", "replies from customers by post"),
    ("pricing_engine", "how much things cost", "dynamic prices"),
    ("loyalty_points", "rewards for frequent buyers", "membership perks"),
    ("checkout_flow", "paying for a basket", "the last step before buying"),
    ("catalog_api", "product listings", "item descriptions and photos"),
    ("sms_sender", "text messages to phones", "one-time codes by mobile"),
    ("metrics_collector", "dashboards and graphs", "counting requests per second"),
    ("log_shipper", "forwarding server output", "central storage of traces"),
    ("config_store", "settings shared by every deployment", "environment variables"),
    ("dns_manager", "domain names", "pointing hostnames at machines"),
    ("cdn_purger", "clearing cached web assets", "stale copies at the edge"),
    ("kyc_verifier", "checking identity documents", "passports and licences"),
    ("refund_handler", "giving money back", "returned orders"),
]

PEOPLE = [
    "alice",
    "bob",
    "carol",
    "dan",
    "erin",
    "frank",
    "grace",
    "heidi",
    "ivan",
    "judy",
    "mallory",
    "niaj",
    "olivia",
    "peggy",
    "rupert",
    "sybil",
    "trent",
    "uma",
    "victor",
    "wendy",
    "xavier",
    "yolanda",
    "zack",
    "amir",
    "bea",
    "chen",
    "dmitri",
    "elif",
    "farah",
    "goran",
    "hana",
    "ines",
    "jonas",
    "kiri",
    "lena",
    "mateo",
    "nora",
    "omar",
    "priya",
    "quinn",
    "rosa",
    "sven",
    "tara",
    "ugo",
    "vera",
    "wei",
    "yusuf",
    "zoe",
]

TEAMS = ["identity", "payments", "discovery", "fulfilment", "platform", "growth", "trust"]
COMPONENTS = [
    "postgres",
    "redis",
    "kafka",
    "elasticsearch",
    "s3",
    "rabbitmq",
    "memcached",
    "mysql",
    "cassandra",
    "vault",
]
PLATFORMS = ["kubernetes", "lambda", "bare_metal", "nomad", "ecs"]
LANGUAGES = ["go", "python", "java", "rust", "typescript", "kotlin", "elixir"]

DESCRIPTIONS: list[tuple[str, str, str]] = [
    ("owner/2", "the engineer accountable for a service", "service, person"),
    ("oncall/2", "who carries the pager for a service this week", "service, person"),
    ("depends_on/2", "a component a service needs to run", "service, component"),
    ("runs_on/2", "where a service is deployed", "service, platform"),
    ("written_in/2", "the programming language of a service", "service, language"),
    ("slo/2", "the availability target of a service, in percent", "service, target"),
    ("in_team/2", "the team a person belongs to", "person, team"),
    ("channel/2", "the chat room of a team", "team, room"),
    ("decision/2", "an architecture choice and why it was made", "topic, rationale"),
    ("incident/3", "an outage or degradation and what happened", "id, service, summary"),
    ("ticket/4", "a piece of work in the tracker", "id, service, status, title"),
    ("note/2", "something a teammate wrote down", "author, text"),
]

# (topic atom, rationale, two questions that share no word with it)
DECISIONS: list[tuple[str, str, str, str]] = [
    (
        "login",
        "we use the OAuth device flow because TVs have no keyboard",
        "why can televisions authenticate without typing a password",
        "how do smart screens sign people in",
    ),
    (
        "primary_database",
        "postgres over mongodb since we need transactions across tables",
        "why was a relational store chosen",
        "what made us avoid a json document store",
    ),
    (
        "message_bus",
        "kafka because events must be replayable for weeks",
        "why can consumers reread old messages",
        "what lets readers rewind history",
    ),
    (
        "frontend_framework",
        "react with server rendering to keep pages fast on slow phones",
        "why is html generated before it reaches browsers",
        "how do we stay quick with cheap handsets",
    ),
    (
        "api_style",
        "graphql for the mobile apps to cut round trips",
        "why do smartphone clients query one endpoint",
        "how do we reduce chatty calls from handheld clients",
    ),
    (
        "deploys",
        "blue green releases so a bad version can be switched back in seconds",
        "how do we undo broken deployments quickly",
        "what makes rollbacks instant",
    ),
    (
        "secrets",
        "vault issues short lived credentials instead of static passwords",
        "why do tokens expire after minutes",
        "how are keys rotated automatically",
    ),
    (
        "caching",
        "redis in front of the catalog because product pages are read far more than written",
        "why is merchandise data cached",
        "what speeds up item screens",
    ),
    (
        "monorepo",
        "one repository so that changes across services land together",
        "why is all code in a single place",
        "how do cross-team edits ship at once",
    ),
    (
        "observability",
        "opentelemetry traces sampled at one percent to limit cost",
        "why do we only keep a fraction of request timings",
        "how is tracing expense kept down",
    ),
    (
        "queues_for_email",
        "emails go through a queue so that a slow provider never blocks checkout",
        "why does buying not wait for mail to be sent",
        "what decouples purchases from messaging",
    ),
    (
        "currency",
        "amounts are stored as integer cents to avoid rounding errors",
        "why are prices kept as whole numbers",
        "how do we prevent fractional money bugs",
    ),
    (
        "time_zones",
        "every timestamp is stored in UTC and converted only for display",
        "why are dates saved without local offsets",
        "how do we handle clocks across countries",
    ),
    (
        "search_engine",
        "elasticsearch because shoppers misspell product names",
        "how do typos still find items",
        "why can customers make spelling mistakes and succeed",
    ),
    (
        "mobile_release",
        "a weekly train for the apps since store review takes days",
        "why do handset updates go out on fixed dates",
        "how do marketplace approvals shape shipping",
    ),
    (
        "feature_rollout",
        "new features reach one percent of users first",
        "why do changes start with a small audience",
        "how are risky launches limited",
    ),
    (
        "data_retention",
        "personal data is deleted after two years to comply with gdpr",
        "when do we erase customer information",
        "how long is private information kept",
    ),
    (
        "load_balancing",
        "envoy sidecars so retries and timeouts are uniform",
        "why do all calls between programs behave alike on failure",
        "what standardises network resilience",
    ),
    (
        "batch_jobs",
        "airflow schedules the nightly exports",
        "what runs the overnight pipelines",
        "how are scheduled workflows orchestrated",
    ),
    (
        "passwords",
        "argon2 hashing with a per user salt",
        "how are credentials stored safely",
        "what protects stolen login databases",
    ),
]

SYMPTOMS = [
    "timeouts",
    "error spikes",
    "slow responses",
    "dropped connections",
    "full disks",
    "memory leaks",
    "stuck workers",
    "duplicate messages",
    "wrong totals",
    "blank pages",
]
CAUSES = [
    ("certificate rotation", "expired TLS certificates"),
    ("a schema migration", "a database change that locked a table"),
    ("a bad config push", "a settings change that was wrong"),
    ("an upstream provider outage", "a partner system that went down"),
    ("a traffic surge from a marketing email", "a sudden rush of visitors after a newsletter"),
    ("a dependency upgrade", "a library bump"),
    ("clock drift", "machines disagreeing about what hour it is"),
    ("a noisy neighbour on the host", "another workload hogging the machine"),
]

TICKET_VERBS = ["add", "fix", "remove", "migrate", "speed up", "document", "test", "refactor"]
TICKET_OBJECTS = [
    "retry logic",
    "the health check",
    "pagination",
    "the admin screen",
    "input validation",
    "the nightly job",
    "error messages",
    "the api client",
    "metrics labels",
    "the rate limits",
]
STATUSES = ["open", "in_progress", "done", "blocked"]
NOTE_TEMPLATES = [
    "remember to rotate the {component} password before the audit",
    "the {component} cluster needs more disk before black friday",
    "pairing with {person} on the {service} backlog next week",
    "{person} knows the history of the {service} outage",
    "ask {person} before touching the {component} settings",
]


@dataclass(frozen=True)
class Query:
    """A question, the facts that answer it (their texts), and whether it is
    an exact-word lookup (``exact``) rather than a question in other words."""

    text: str
    answers: frozenset[str]
    exact: bool = False


@dataclass(frozen=True)
class RecallSet:
    facts: list[str]
    descriptions: list[tuple[str, str, str]]
    queries: list[Query]


def build() -> RecallSet:
    """The memory and the questions (see the module doc); the same every time."""
    rng = random.Random(SEED)
    facts: list[str] = []
    queries: list[Query] = []
    owners: dict[str, str] = {}
    for team, person in zip(
        TEAMS * (len(PEOPLE) // len(TEAMS) + 1), rng.sample(PEOPLE, len(PEOPLE)), strict=False
    ):
        facts.append(f"in_team({person}, {team})")
    facts += [f'channel({team}, "#team-{team}")' for team in TEAMS]
    by_component: dict[str, set[str]] = {}
    for service, first, second in SERVICES:
        owner, oncall = rng.sample(PEOPLE, 2)
        owners[service] = owner
        owned, paged = f"owner({service}, {owner})", f"oncall({service}, {oncall})"
        facts += [owned, paged]
        for component in rng.sample(COMPONENTS, 3):
            fact = f"depends_on({service}, {component})"
            facts.append(fact)
            by_component.setdefault(component, set()).add(fact)
        facts.append(f"runs_on({service}, {rng.choice(PLATFORMS)})")
        facts.append(f"written_in({service}, {rng.choice(LANGUAGES)})")
        facts.append(f"slo({service}, {rng.choice(['99.9', '99.95', '99.99'])})")
        queries += [
            Query(f"who is responsible for {first}?", frozenset({owned})),
            Query(f"whom do I ask about {second}?", frozenset({owned})),
            Query(f"who gets woken up at night when {first} breaks?", frozenset({paged})),
        ]
    for topic, rationale, one, two in DECISIONS:
        fact = f'decision({topic}, "{rationale}")'
        facts.append(fact)
        queries += [Query(one, frozenset({fact})), Query(two, frozenset({fact}))]
    by_cause: dict[str, set[str]] = {}
    incidents: list[str] = []
    for number in range(1000, 2400):
        service = rng.choice(SERVICES)[0]
        cause, told = rng.choice(CAUSES)
        fact = f'incident(inc_{number}, {service}, "{rng.choice(SYMPTOMS)} after {cause}")'
        facts.append(fact)
        incidents.append(fact)
        by_cause.setdefault(told, set()).add(fact)
    for told, answers in sorted(by_cause.items()):
        queries.append(Query(f"outages caused by {told}", frozenset(answers)))
    for number in range(1, 2400):
        service = rng.choice(SERVICES)[0]
        title = f"{rng.choice(TICKET_VERBS)} {rng.choice(TICKET_OBJECTS)}"
        facts.append(f'ticket(t_{number}, {service}, {rng.choice(STATUSES)}, "{title}")')
    for _ in range(900):
        template = rng.choice(NOTE_TEMPLATES)
        text = template.format(
            component=rng.choice(COMPONENTS),
            person=rng.choice(PEOPLE),
            service=rng.choice(SERVICES)[0].replace("_", " "),
        )
        facts.append(f'note({rng.choice(PEOPLE)}, "{text}")')
    facts = list(dict.fromkeys(facts))
    for picked in rng.sample(incidents, 8):
        number = picked.split("(", 1)[1].split(",", 1)[0]
        queries.append(Query(number, frozenset({picked}), exact=True))
    for component in ("postgres", "kafka", "vault", "memcached"):
        queries.append(Query(component, frozenset(by_component[component]), exact=True))
    for service in ("checkout_flow", "geo_lookup", "kyc_verifier"):
        queries.append(
            Query(
                f"{service} owner", frozenset({f"owner({service}, {owners[service]})"}), exact=True
            )
        )
    return RecallSet(facts, DESCRIPTIONS, queries)


def shares_words(query: str, fact: str) -> bool:
    """Whether ``query`` and ``fact`` share a word as the search by words
    matches words: a whole word part, or a query word of ``PREFIX_FROM``
    letters or more that begins a word part of the fact."""
    mine = set(any_parts(fact))
    for word in set(any_parts(query)):
        if word in mine:
            return True
        if len(word) >= PREFIX_FROM and any(part.startswith(word) for part in mine):
            return True
    return False
