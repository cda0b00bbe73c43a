"""PostgreSQL: autovacuum thresholds of their own for the tables every move or heartbeat updates.

A hand row is updated at every move (its version and deadline; the deadline is in the sweeper's
index, so the update is never HOT) and a room row at every change: a table's dead rows wait for
autovacuum, which by default comes when a fifth of the table is dead. games_hand holds every hand
ever played, so that fifth grows with the site while the rows in play pile up their dead versions,
which reads of the hands in play then step over (a bench database on a server without autovacuum
had 240,000 dead hand rows against 3,000 live). These tables are vacuumed once 2,000 rows are dead,
whatever their size. SQLite has nothing to set."""

from django.db import migrations

HOT_TABLES = ("games_hand", "games_room", "games_seat", "games_socketpresence")
SETTINGS = "autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000"


def set_thresholds(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in HOT_TABLES:
        schema_editor.execute(f"ALTER TABLE {schema_editor.quote_name(table)} SET ({SETTINGS})")


def reset_thresholds(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in HOT_TABLES:
        schema_editor.execute(f"ALTER TABLE {schema_editor.quote_name(table)} "
                              "RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold)")


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0016_spectators"),
    ]

    operations = [
        migrations.RunPython(set_thresholds, reset_thresholds),
    ]
