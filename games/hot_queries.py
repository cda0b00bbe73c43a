"""The few reads every move makes, as SQL compiled once per thread (issue 17).

Django builds a query's SQL anew on every call: for the move's reads (the room row locked, the
hand in play locked with its game, the seats, and each process's read of the hand after a move)
that compiling and the model machinery around it cost more than the database itself: ~0.6 ms of
Python for a one-row read of the room by its key on a small server against ~0.13 ms for the same
SQL run on a cursor and turned into a Room by Model.from_db.

`Prepared(build)` keeps the compiled form of the QuerySet `build(*keys)` returns: its SQL, where
each key sits among the parameters (found by compiling with sentinel keys), and the compiler's
description of the columns (select, klass_info: which model each column belongs to, the
select_related models, annotations). A call runs that SQL with the real keys and makes the
objects exactly as QuerySet iteration does (ModelIterable: from_db, the related populators,
annotations, the database converters). tests/test_hot_queries.py checks that every prepared
read gives what the ORM gives, field by field, on SQLite and PostgreSQL.

Compiled per thread and per database alias: a compiler belongs to its thread's connection (its
converters are that connection's). A QuerySet with select_for_update is compiled and run inside
a transaction only, as the ORM insists.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager, nullcontext

from django.db import DatabaseError, connections, transaction
from django.db.models.query import get_related_populators

# Keys no row has, inside every integer column's range (Django leaves a comparison with a value out
# of the column's range out of the SQL); their places among the parameters mark the keys.
_SENTINEL = 1_987_654_300


def hot_cursor(connection):
    """A cursor for the hot statements, kept on the thread's connection from one to the next.

    Django makes a new driver cursor for every statement, and psycopg a new Transformer with it:
    each result's column loaders (the timestamps' with their time zone) and each parameter's dumper
    were built again for every statement of every move. Kept, they are built once per connection.
    The health check still runs first (Django's cursor() does it); a new connection gets a new
    cursor. While queries are logged (DEBUG, the tests' query counts) it is Django's own cursor,
    so every statement is counted. Use it as `with hot_cursor(c) as cursor:`; the kept one is not
    closed on leaving."""
    if connection.queries_logged:
        return connection.cursor()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    kept = getattr(connection, "_hot_cursor", None)  # (driver connection, cursor, its `with`)
    if kept is None or kept[0] is not connection.connection or getattr(kept[1].cursor, "closed", False):
        cursor = connection.cursor()
        kept = connection._hot_cursor = (connection.connection, cursor, nullcontext(cursor))
    return kept[2]


class Prepared:
    def __init__(self, build, using: str = "default"):
        self.build = build  # (*keys) -> QuerySet
        self.using = using
        self._local = threading.local()

    def _compiled(self, arity: int):
        compiled = getattr(self._local, "compiled", None)
        if compiled is not None:
            return compiled
        sentinels = [_SENTINEL + i for i in range(arity)]
        queryset = self.build(*sentinels)
        if queryset.query.select_for_update and not transaction.get_connection(self.using).in_atomic_block:
            raise RuntimeError("a prepared select_for_update runs inside a transaction only")
        compiler = queryset.query.get_compiler(using=self.using)
        sql, params = compiler.as_sql()
        params = list(params)
        places = []
        for s in sentinels:
            if params.count(s) != 1:
                raise ValueError(f"key {s} must appear exactly once among the parameters: {params}")
            places.append(params.index(s))
        if compiler.has_composite_fields([s[0] for s in compiler.select[0:compiler.col_count]]):
            raise ValueError("a composite primary key is not read here (results_iter turns it into tuples)")
        klass_info = compiler.klass_info
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        compiled = self._local.compiled = {
            "sql": sql, "params": params, "places": places, "compiler": compiler,
            "model": klass_info["model"], "start": start, "end": end,
            "init_list": [f[0].target.attname for f in compiler.select[start:end]],
            "populators": get_related_populators(klass_info, compiler.select, self.using),
            "annotations": dict(compiler.annotation_col_map or {}),
            # the database converters of each column (a timestamp's time zone, JSON): results_iter
            # looks them up again for every call
            "converters": compiler.get_converters([s[0] for s in compiler.select[0:compiler.col_count]]),
        }
        return compiled

    def all(self, *keys) -> list:
        c = self._compiled(len(keys))
        connection = connections[self.using]
        if c["compiler"].query.select_for_update and not connection.in_atomic_block:
            raise RuntimeError("a prepared select_for_update runs inside a transaction only")
        params = list(c["params"])
        for place, key in zip(c["places"], keys):
            params[place] = key
        with hot_cursor(connection) as cursor:
            cursor.execute(c["sql"], params)
            rows = cursor.fetchall()
        model, start, end, init_list = c["model"], c["start"], c["end"], c["init_list"]
        out = []
        converters = c["converters"]
        for row in c["compiler"].apply_converters(rows, converters) if converters else rows:
            obj = model.from_db(self.using, init_list, row[start:end])
            for populator in c["populators"]:
                populator.populate(row, obj)
            for name, place in c["annotations"].items():
                setattr(obj, name, row[place])
            out.append(obj)
        return out

    def first(self, *keys):
        rows = self.all(*keys)
        return rows[0] if rows else None


# --- the move's writes ----------------------------------------------------------------------
# Model.save(update_fields=…), QuerySet.update and Manager.create build their SQL anew each time
# too, through signals, the update compiler and the insert compiler: for the move's three writes
# (its log row, the hand's version and deadline, the room's version) that was ~0.12 ms of Python a
# write (bench/move_cpu.py: the move 1.12 -> 0.76 ms). These make the same statements from the model's metadata once per (model, fields,
# database vendor) and prepare each value as the ORM does (Field.pre_save, get_db_prep_save). No
# signals are sent: nothing in the site listens to saves of these models (tests/test_hot_queries.py
# checks the rows against the ORM's).

_write_sql: dict = {}


def _sql(kind: str, model, fields: tuple, connection) -> str:
    key = (kind, model, fields, connection.vendor)
    sql = _write_sql.get(key)
    if sql is None:
        qn, meta = connection.ops.quote_name, model._meta
        columns = [qn(meta.get_field(f).column) for f in fields]
        if kind == "update":
            sets = ", ".join(f"{c} = %s" for c in columns)
            sql = f"UPDATE {qn(meta.db_table)} SET {sets} WHERE {qn(meta.pk.column)} = %s"
        else:
            sql = f"INSERT INTO {qn(meta.db_table)} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))})"
        sql = _write_sql[key] = sql
    return sql


def update_fields(obj, fields: tuple, using: str = "default") -> None:
    """obj.save(update_fields=fields) for a row that must exist (DatabaseError otherwise, as save)."""
    connection = connections[using]
    meta = type(obj)._meta
    values = [field.get_db_prep_save(getattr(obj, field.attname), connection=connection)
              for field in map(meta.get_field, fields)]
    sql = _sql("update", type(obj), tuple(fields), connection)
    label = f"{meta.label} {obj.pk}"
    batch = _held(connection, (meta.db_table, obj.pk))
    if batch is not None:
        batch.append((sql, values + [obj.pk], label))
        return
    with hot_cursor(connection) as cursor:
        cursor.execute(sql, values + [obj.pk])
        _check_updated(label, cursor.rowcount)


def _check_updated(label: str, count: int) -> None:
    if count != 1:
        raise DatabaseError(f"{label}: the update affected {count} rows")


def insert(obj, using: str = "default") -> None:
    """obj.save() of a new row, its key left to the database (obj.pk stays None: for append-only
    rows that nothing reads back in the same breath, like the hand's log)."""
    connection = connections[using]
    meta = type(obj)._meta
    fields = tuple(f for f in meta.concrete_fields if not f.primary_key)
    values = [f.get_db_prep_save(f.pre_save(obj, True), connection=connection) for f in fields]
    sql = _sql("insert", type(obj), tuple(f.name for f in fields), connection)
    batch = _held(connection, None)
    if batch is not None:
        batch.append((sql, values, None))
        return
    with hot_cursor(connection) as cursor:
        cursor.execute(sql, values)


# --- the move's writes in one statement (PostgreSQL) -----------------------------------------
# A move writes its log row, the hand's version and deadline and the room's version: three round
# trips to the server, each a wake-up of both processes and the driver's work around it. In
# `held_writes()` on PostgreSQL, insert and update_fields above hold their statements, and the
# block sends them as ONE statement (data-modifying CTEs, each update checked to have touched its
# one row): before any other statement the block runs (so every read sees them, in the order
# written) and at its end, inside the transaction. Elsewhere, and outside the block, each runs at
# once as before. tests/test_hot_queries.py checks the rows, the order and the checks.

_holding = threading.local()


class _Held:
    def __init__(self, connection):
        self.connection = connection
        self.writes = []  # (sql, params, label of an update or None)
        self.rows = set()  # (table, key) of the rows updated: a row updated twice flushes between
        self.flushing = False

    def flush(self):
        writes, self.writes = self.writes, []
        self.rows = set()
        if not writes:
            return
        self.flushing = True
        try:
            with hot_cursor(self.connection) as cursor:
                if len(writes) == 1:
                    sql, params, label = writes[0]
                    cursor.execute(sql, params)
                    if label is not None:
                        _check_updated(label, cursor.rowcount)
                    return
                parts = ", ".join(f"w{i} AS ({sql} RETURNING 1)" for i, (sql, _p, _l) in enumerate(writes))
                counts = ", ".join(f"(SELECT count(*) FROM w{i})" for i in range(len(writes)))
                cursor.execute(f"WITH {parts} SELECT {counts}", [p for _s, params, _l in writes for p in params])
                row = cursor.fetchone()
        finally:
            self.flushing = False
        for (_sql, _params, label), count in zip(writes, row):
            if label is not None:
                _check_updated(label, count)

    def __call__(self, execute, sql, params, many, context):
        """The connection's execute wrapper: what is held runs before any other statement."""
        if not self.flushing and self.writes:
            self.flush()
        return execute(sql, params, many, context)


def _held(connection, row):
    """The writes held for `connection` in a held_writes() block, or None: run now."""
    held = getattr(_holding, "held", None)
    if held is None or held.connection is not connection or held.flushing:
        return None
    if row is not None:
        if row in held.rows:  # twice in one statement would be undefined: the first goes now
            held.flush()
        held.rows.add(row)
    return held.writes


@contextmanager
def held_writes(using: str = "default"):
    """Inside a transaction: hold the move's writes (insert, update_fields) and send them as one
    statement, before the next other statement or at the end of the block. A no-op but on
    PostgreSQL (SQLite has no data-modifying CTEs), inside another such block, or outside a
    transaction (each write would be its own)."""
    connection = connections[using]
    if (connection.vendor != "postgresql" or getattr(_holding, "held", None) is not None
            or not connection.in_atomic_block):
        yield
        return
    held = _holding.held = _Held(connection)
    try:
        with connection.execute_wrapper(held):
            yield
            held.flush()
    finally:
        _holding.held = None


# --- links without reference cycles ------------------------------------------------------------
# Setting the forward side of a one-to-one (game.room = room), or reading it with select_related,
# makes Django cache the reverse side too (room.game = game): the pair is a reference cycle, so
# when a move is done its rows are not freed by reference counting but left for the garbage
# collector, ~30 objects a move, and its passes (20-75 ms each, every socket of a daphne process
# waiting) came about twice as often (bench/live.py, issue 17). Where nothing reads the reverse
# side, the link is kept one way only.

def link_forward(obj, name: str, value) -> None:
    """obj.<name> = value for a one-to-one field `name`, without the reverse link from value."""
    setattr(obj, name, value)
    if value is not None:
        obj._meta.get_field(name).remote_field.delete_cached_value(value)
