"""Word pools the benchmarks draw their synthetic notes and drafts from (seeded use, fixed order)."""

from __future__ import annotations


def words(text: str) -> list[str]:
    """A word pool from comma-separated text (a list, never a set: order must not depend on the hash seed)."""
    return [" ".join(word.split()) for word in text.split(",") if word.strip()]


FIRST_NAMES = words(
    """
    Dana, Sam, Priya, Jonas, Mei, Tomás, Aisha, Lukas, Noor, Kenji, Elena, Marcus, Zoë, Ravi, Ingrid,
    Omar, Chloé, Felix, Hana, Diego, Sofia, Kwame, Lena, Arjun, Nadia, Pavel, Yuki, Grace, Mateo, Freya,
    Hugo, Amara, Leon, Ines, Theo, Maya, Oskar, Leila, Bruno, Alba
    """
)
LAST_NAMES = words(
    """
    Kim, Ortiz, Raman, Berg, Chen, Alves, Okafor, Weber, Haddad, Sato, Petrova, Reyes, Lindqvist, Nair,
    Dubois, Mensah, Novak, Tanaka, Fischer, Costa, Hughes, Iyer, Moreau, Larsen, Kowalski, Suzuki,
    Brennan, Farouk, Jensen, Murphy, Varga, Castillo, Olsen, Park, Rossi, Schmidt, Yilmaz, Bakker,
    Nguyen, Silva
    """
)
CODENAMES = words(
    """
    Atlas, Borealis, Cobalt, Dynamo, Ember, Falcon, Granite, Harbor, Iris, Juniper, Kestrel, Lumen,
    Meridian, Nimbus, Onyx, Pioneer, Quartz, Raven, Sequoia, Tundra, Umbra, Vega, Willow, Xenon, Yarrow,
    Zephyr, Aurora, Basalt, Cinder, Delta, Echo, Fjord, Glacier, Heron, Indigo, Jasper, Kodiak, Lotus,
    Mistral, Nova
    """
)
ADJECTIVES = words("Blue, Red, Silent, Rapid, Northern, Little, Golden, Iron, Bright, Deep")
SOFTWARE_PARTS = (
    words("Stream, Ledger, Beacon, Pylon, Hopper, Sieve, Relay, Forge, Quill, Tally"),
    words("DB, Queue, Sync, Lint, Board, Kit, Flow, Cache, Scan, Hub"),
)
ORG_SUFFIXES = words("Labs, Systems, Analytics, Co-op, Robotics, Logistics, Studio, Foundry")
CITIES = words(
    """
    San Francisco, Lisbon, Berlin, Osaka, Nairobi, Toronto, Oslo, Melbourne, Valencia, Seoul, Montréal,
    Utrecht, Porto, Kraków, Austin, Dublin, Tallinn, Bologna, Lyon, Edinburgh
    """
)
PLACE_KINDS = words("Lake, Mount, Cape, Port, Glen")
CONCEPTS = words(
    """
    input shaping, pressure advance, backfill, idempotency, quad gantry level, thermal runaway, event
    sourcing, spaced repetition, zettelkasten, technical debt, blue-green deploy, retry budget, cold
    start, data contract, bed mesh, dead letter queue, feature flag, schema migration, rate limiting,
    sourdough starter, companion planting, interval training, circuit breaker, write-ahead log, load
    shedding
    """
)
CONCEPT_QUALIFIERS = words("adaptive, incremental, distributed, manual, lazy, layered, passive, soft")
THINGS = words(
    """
    flaky test, memory leak, off-by-one in the date parser, broken cron job, slow query, warped first
    layer, stringing, missing index, race condition in the uploader, timezone bug, stale cache, retry
    storm, clogged nozzle, leaky faucet, expired certificate, bad migration
    """
)
TASKS = words(
    """
    the ingestion pipeline, the onboarding doc, the backup script, the quarterly report, the dashboard,
    the printer enclosure, the raised beds, the API client, the test suite, the deploy scripts, the
    budget spreadsheet, the release notes, the data model, the search index
    """
)
PURPOSES = words(
    """
    small services, functional parts, prototyping, local analytics, note taking, batch jobs, dashboards,
    quick scripts, long-running workers, outdoor use
    """
)
DURATIONS = words("an hour, two hours, most of the morning, the whole afternoon, two days, a week")
