"""The demo's registered tables on a live server, and their rows there and in the lake."""

from __future__ import annotations

import psycopg

from lakerep.summary import relation_name

# The demo's registrations, as tables of the server (quoted: the registered names are upper case).
SCHEMA = """
    create schema "SALES";
    create schema "INVENTORY";
    create table "SALES"."CUSTOMERS" (customer_id text primary key, name text, email text,
        credit_limit numeric(12, 2), created_on date, updated_at timestamp);
    create table "SALES"."ORDERS" (order_id bigint primary key, customer_id text, order_date date,
        status text, total numeric(14, 2), note text);
    create table "SALES"."ORDER_LINES" (order_id bigint, line_no int, product_code text, quantity int,
        unit_price numeric(10, 2), shipped_at timestamp, primary key (order_id, line_no));
    create table "INVENTORY"."STOCK" (warehouse text, sku text, on_hand int, reorder_level int,
        last_counted date, primary key (warehouse, sku));
"""


def execute(dsn: str, statements: list[str]) -> None:
    with psycopg.connect(dsn) as connection:
        for statement in statements:
            connection.execute(statement)


def server_table(dsn: str, table: str, columns: str) -> set[tuple]:
    with psycopg.connect(dsn) as connection:
        return {tuple(row) for row in connection.execute(f"select {columns} from {table}")}


def lake_table(spark, model: str, columns: str) -> set[tuple]:
    return {tuple(row) for row in spark.sql(f"select {columns} from {relation_name(model)}").collect()}
