"""The tables every move updates are vacuumed by PostgreSQL's autovacuum once 2,000 of their rows are
dead, not once a fifth of the table is (games/migrations/0017_autovacuum_hot_tables.py)."""

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="PostgreSQL's own table settings")
def test_the_hot_tables_have_their_own_autovacuum_thresholds():
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, reloptions FROM pg_class WHERE relname = ANY(%s)",
                       [["games_hand", "games_room", "games_seat", "games_socketpresence", "games_handevent"]])
        options = dict(cursor.fetchall())
    for table in ("games_hand", "games_room", "games_seat", "games_socketpresence"):
        assert set(options[table]) == {"autovacuum_vacuum_scale_factor=0", "autovacuum_vacuum_threshold=2000"}, table
    assert options["games_handevent"] is None  # rows only added: the default suits it


def test_the_migration_sets_nothing_on_sqlite(django_db_blocker):
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only")
    from importlib import import_module

    migration = import_module("games.migrations.0017_autovacuum_hot_tables")

    class Editor:
        def __init__(self):
            self.connection, self.statements = connection, []

        def execute(self, sql):
            self.statements.append(sql)

    editor = Editor()
    migration.set_thresholds(None, editor)
    migration.reset_thresholds(None, editor)
    assert editor.statements == []
