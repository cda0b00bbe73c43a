"""Django's PostgreSQL backend with a health check that costs no round trip (issue 17).

With CONN_HEALTH_CHECKS a persistent connection is checked before its first use in each
"request", and under Channels every database_sync_to_async call is one: Django's check is a
`SELECT 1`, a round trip and a statement for PostgreSQL in front of every move and every render
hop (about 3% of a daphne process's CPU at 80 tables, besides the server's share).

A connection PostgreSQL has dropped (a restart, `pg_terminate_backend`, an idle timeout) is not
silent: the server sends its FATAL message and closes the socket, so the idle connection's socket
is readable. So the check here is a zero-timeout poll of that socket: nothing waiting on an idle
connection means usable; anything waiting (or a connection not idle, or one psycopg already knows
is broken) gets Django's real `SELECT 1`, which reads it and fails if the server is gone. A
network path that died without a packet is missed by both alike (the `SELECT 1` would hang).
tests/test_db_health.py kills a real backend and checks the next use reconnects.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
import psycopg
from psycopg import pq


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self):
        conn = self.connection
        if conn is None or conn.closed:
            return False
        pgconn = conn.pgconn
        if pgconn.status != pq.ConnStatus.OK:
            return False
        if pgconn.transaction_status != pq.TransactionStatus.IDLE:
            return super().is_usable()
        try:
            poller = select.poll()  # not select.select: a daphne process holds fds above 1024
            poller.register(pgconn.socket, select.POLLIN | select.POLLERR | select.POLLHUP)
            pending = poller.poll(0)
        except (OSError, ValueError, psycopg.Error):  # no socket any more: the real check says
            return super().is_usable()
        return super().is_usable() if pending else True
