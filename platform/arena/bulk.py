"""Many rows that differ in a column or two, inserted (or updated) in one statement whose other
values are prepared once.

``bulk_create`` prepares every value of every row in Python (pre-save, conversion to the
database's type, adaptation): for a matchmaking pass's 500 matches of two dozen columns and
1,000 seats, that was most of the pass. On PostgreSQL ``insert_copies`` sends the constant
values once and the varying ones as one array each, ``INSERT … SELECT … FROM unnest(…)``.
Other databases (SQLite) take ``bulk_create``.

``update_columns`` is the same for updates: Django's ``bulk_update`` builds a ``CASE WHEN id =
… THEN …`` expression per row and column, resolved in Python (a ladder refit writing four
columns of 10,000 rows spent 30 s there for a 3 s fit); on PostgreSQL one
``UPDATE … FROM unnest(…)`` carries the new values as one array per column.
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


def update_columns(
    model: type[models.Model], pks: Sequence[Any], values: Mapping[str, Sequence[Any]]
) -> int:
    """Set, for each position i, the columns named in ``values`` of the row whose primary key is
    ``pks[i]`` to their i-th values (no save signals, as ``bulk_update``). Returns the rows
    updated."""
    if any(len(column) != len(pks) for column in values.values()):
        raise ValueError("every column needs one value a row")
    if not pks or not values:
        return 0
    fields: dict[str, models.Field[Any, Any]] = {}
    for name in values:
        field = model._meta.get_field(name)
        if not isinstance(field, models.Field) or not field.concrete or field.primary_key:
            raise ValueError(f"{model.__name__}.{name} is not a column to update")
        fields[name] = field
    pk = model._meta.pk
    assert pk is not None
    if connection.vendor != "postgresql":
        rows = [model(pk=key) for key in pks]
        for i, row in enumerate(rows):
            for name, column in values.items():
                setattr(row, fields[name].attname, column[i])
        return model._default_manager.bulk_update(rows, list(values), batch_size=2000)
    quote = connection.ops.quote_name
    arrays = [f"%s::{pk.db_type(connection)}[]"]
    params: list[Any] = [[pk.get_db_prep_save(key, connection) for key in pks]]
    for name, column in values.items():
        arrays.append(f"%s::{fields[name].db_type(connection)}[]")
        params.append([fields[name].get_db_prep_save(v, connection) for v in column])
    columns = [quote(fields[name].column) for name in values]
    table = quote(model._meta.db_table)
    sql = (
        f"UPDATE {table} SET {', '.join(f'{c} = v.{c}' for c in columns)} "  # noqa: S608 - names from the model
        f"FROM unnest({', '.join(arrays)}) AS v(pk_, {', '.join(columns)}) "
        f"WHERE {table}.{quote(pk.column)} = v.pk_"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return int(cursor.rowcount)
