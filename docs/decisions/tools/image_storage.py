"""ADR 0011, the storage of row images: what a typed per-source view costs its readers when the
shared CCD table keeps each image as the log's JSON text, against Spark's VARIANT.

Run from the project root with the project's environment, alone on the machine, on a scratch
lake (it drops and recreates schema `image_storage` only):
    LAKEREP_HOME=/tmp/image-storage DBT_PROFILES_DIR=profiles \
        python docs/decisions/tools/image_storage.py [ROWS] [KEYS] [ROUNDS]
It writes ROWS changes of KEYS keys of a seven-column table (integers as JSON numbers; decimals,
dates, timestamps and strings as JSON strings, as the landed log writes them) into two CCD-shaped
tables, one with `row_image string`, one with `row_image variant` (`parse_json` of the same text),
then, ROUNDS times each, the side that goes first swapped each round:
  - write: the table created from the same generated rows;
  - read: every row typed through a view, as `lakerep_ccd_view` types them (text: `from_json` into
    strings, then a cast per column; variant: `variant_get` per column), hashed and summed, so
    every value is parsed and nothing is written;
  - merge: a typed target holding the first change of every other key, merged with each key's
    latest change read through the view (dbt's MERGE of a target: update when matched, insert
    when not).
It prints the median seconds of each and the tables' sizes.
"""

import statistics
import sys
import time

from lakerep.lake import lake_session

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
keys = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3

COLUMNS = {
    "order_id": "int",
    "customer": "string",
    "amount": "decimal(12,2)",
    "quantity": "int",
    "ordered_at": "timestamp",
    "ship_day": "date",
    "note": "string",
}
SCHEMA = "image_storage"

spark = lake_session()
spark.sql(f"drop schema if exists {SCHEMA} cascade")
spark.sql(f"create schema {SCHEMA}")

# The JSON text as the generator writes it (columns in declared order, `": "` and `", "`).
IMAGE = (
    "concat('{\"order_id\": ', cast(id % {keys} as string),"
    " ', \"customer\": \"customer ', cast(id % 997 as string), '\"',"
    " ', \"amount\": \"', cast(cast(id % 100000 as decimal(12,2)) / 7 as decimal(12,2)), '\"',"
    " ', \"quantity\": ', cast(id % 50 as string),"
    ' \', "ordered_at": "\','
    " date_format(timestamp_seconds(1700000000 + id), \"yyyy-MM-dd'T'HH:mm:ss.SSSSSS\"), '\"',"
    " ', \"ship_day\": \"', cast(date_add(date'2026-01-01', cast(id % 300 as int)) as string), '\"',"
    " ', \"note\": \"', repeat('x', cast(id % 40 as int)), '\"}')"
).replace("{keys}", str(keys))
CHANGES = f"""
    select
        'SALES' as source_owner,
        'ORDERS' as source_table,
        cast(id % {keys} as string) as ccd_key,
        id as IBMSNAP_COMMITSEQ,
        0L as IBMSNAP_INTENTSEQ,
        case when id < {keys} then 'I' else 'U' end as IBMSNAP_OPERATION,
        {IMAGE} as row_image
    from range({rows})
"""
STORED = {"text": "row_image", "variant": "parse_json(row_image) as row_image"}


def typed(kind: str) -> str:
    if kind == "text":
        fields = ", ".join(f"`{name}` string" for name in COLUMNS)
        values = [f"cast(parsed.`{name}` as {data_type}) as `{name}`" for name, data_type in COLUMNS.items()]
        image = f"from_json(row_image, '{fields}') as parsed"
    else:
        values = [
            f"variant_get(row_image, '$.{name}', '{data_type}') as `{name}`"
            for name, data_type in COLUMNS.items()
        ]
        image = "row_image"
    return f"""
        select IBMSNAP_COMMITSEQ, IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION, {", ".join(values)}
        from (select *, {image} from {SCHEMA}.ccd_{kind}) as changes
    """


def timed(statement: str) -> float:
    started = time.perf_counter()
    spark.sql(statement).collect()
    return time.perf_counter() - started


def write(kind: str) -> float:
    spark.sql(f"drop table if exists {SCHEMA}.ccd_{kind}")
    return timed(
        f"create table {SCHEMA}.ccd_{kind} using delta as "
        f"select source_owner, source_table, ccd_key, IBMSNAP_COMMITSEQ, IBMSNAP_INTENTSEQ, "
        f"IBMSNAP_OPERATION, {STORED[kind]} from ({CHANGES})"
    )


def read(kind: str) -> float:
    columns = ", ".join(f"`{name}`" for name in COLUMNS)
    return timed(f"select count(*), sum(hash({columns})) from {SCHEMA}.typed_{kind}")


def merge(kind: str) -> float:
    spark.sql(f"drop table if exists {SCHEMA}.target_{kind}")
    spark.sql(
        f"create table {SCHEMA}.target_{kind} using delta as select * except (IBMSNAP_COMMITSEQ, "
        f"IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION) from {SCHEMA}.typed_{kind} "
        f"where IBMSNAP_COMMITSEQ < {keys} and order_id % 2 = 0"
    )
    columns = list(COLUMNS)
    updates = ", ".join(f"target.`{c}` = source.`{c}`" for c in columns)
    inserts = ", ".join(f"source.`{c}`" for c in columns)
    return timed(
        f"""merge into {SCHEMA}.target_{kind} as target
        using (
            select * except (latest) from (
                select *, row_number() over (partition by order_id order by IBMSNAP_COMMITSEQ desc) as latest
                from {SCHEMA}.typed_{kind}
            ) where latest = 1
        ) as source
        on target.order_id = source.order_id
        when matched then update set {updates}
        when not matched then insert ({", ".join(columns)}) values ({inserts})"""
    )


seconds = {(step, kind): [] for step in ("write", "read", "merge") for kind in STORED}
# Each round swaps which side goes first, so neither always pays for the other's warm-up.
orders = [list(STORED) if number % 2 == 0 else list(reversed(STORED)) for number in range(rounds)]
for order in orders:
    for kind in order:
        seconds[("write", kind)].append(write(kind))
        spark.sql(f"create or replace view {SCHEMA}.typed_{kind} as {typed(kind)}")
for order in orders:
    for kind in order:
        seconds[("read", kind)].append(read(kind))
for order in orders:
    for kind in order:
        seconds[("merge", kind)].append(merge(kind))

# Both views must type every value alike, or the figures compare different work.
differ = spark.sql(
    f"select * from {SCHEMA}.typed_text except all select * from {SCHEMA}.typed_variant"
).count()
if differ:
    raise SystemExit(f"the two views differ in {differ:,} rows")
print(f"{rows:,} changes of {keys:,} keys, {len(COLUMNS)} columns, median of {rounds} rounds:")
for (step, kind), values in seconds.items():
    each = ", ".join(f"{value:.2f}" for value in values)
    print(f"  {step:<5} {kind:<7} {statistics.median(values):6.2f} s  ({each})")
for kind in STORED:
    detail = spark.sql(f"describe detail {SCHEMA}.ccd_{kind}").first()
    print(f"  stored {kind:<7} {detail.sizeInBytes / 2**20:,.1f} MiB in {detail.numFiles} files")
