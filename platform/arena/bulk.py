"""Many rows that differ in a column or two, inserted in one statement whose other values are
prepared once.

``bulk_create`` prepares every value of every row in Python (pre-save, conversion to the
database's type, adaptation): for a matchmaking pass's 500 matches of two dozen columns and
1,000 seats, that was most of the pass. On PostgreSQL ``insert_copies`` sends the constant
values once and the varying ones as one array each, ``INSERT … SELECT … FROM unnest(…)``.
Other databases (SQLite) take ``bulk_create``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import connection, models


def insert_copies(
    template: models.Model, varying: Mapping[str, Sequence[Any]]
) -> list[tuple[Any, ...]]:
    """Insert one row of ``template``'s model per position of the ``varying`` lists (field name
    -> its values; for a foreign key, the related ids), every other column ``template``'s value
    (defaults and ``auto_now_add`` applied as a save would). Returns each row's
    ``(pk, *varying values)`` in no set order (all of one length)."""
    model = type(template)
    names = list(varying)
    lengths = {len(values) for values in varying.values()}
    if len(lengths) != 1:
        raise ValueError("every varying column needs one value a row")
    (count,) = lengths
    if not count:
        return []
    fields = [f for f in model._meta.local_concrete_fields if not f.primary_key]
    by_name = {f.name: f for f in fields}
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise ValueError(f"{model.__name__} has no column {unknown}")
    constant = [f for f in fields if f.name not in varying]
    # As a save would: defaults in place, ``auto_now_add`` set (one time for every row).
    prepared = {f.attname: f.pre_save(template, add=True) for f in constant}
    if connection.vendor != "postgresql":
        base = {f.attname: prepared[f.attname] for f in constant}
        rows = [
            model(**base, **{by_name[n].attname: varying[n][i] for n in names})
            for i in range(count)
        ]
        model._default_manager.bulk_create(rows)
        return [(row.pk, *(varying[n][i] for n in names)) for i, row in enumerate(rows)]
    quote = connection.ops.quote_name
    select, params = [], []
    for f in fields:
        if f.name in varying:
            select.append(f"v.{quote(f.column)}")
        else:
            select.append(f"%s::{f.db_type(connection)}")
            params.append(f.get_db_prep_save(prepared[f.attname], connection))
    arrays = []
    for name in names:
        f = by_name[name]
        arrays.append(f"%s::{f.db_type(connection)}[]")
        params.append([f.get_db_prep_save(value, connection) for value in varying[name]])
    columns = ", ".join(quote(f.column) for f in fields)
    aliases = ", ".join(quote(by_name[n].column) for n in names)
    returned = ", ".join([quote(model._meta.pk.column), *(quote(by_name[n].column) for n in names)])
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({columns}) "  # noqa: S608 - names from the model
        f"SELECT {', '.join(select)} FROM unnest({', '.join(arrays)}) AS v({aliases}) "
        f"RETURNING {returned}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [tuple(row) for row in cursor.fetchall()]
