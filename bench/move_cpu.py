"""Server CPU per move benchmark (not a test): one move of a 4-player table, in-process.

    python bench/move_cpu.py                    SQLite (a temporary file, WAL, as the default site)
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_live python bench/move_cpu.py
    python bench/move_cpu.py --moves 600 --profile 25

Plays seeded hands (GAME_SEED_BASE) the way the server does for socket clients: each move goes
through the consumer's entry point (games.consumers.perform_deferred -> games.services), then every
seat is rendered as the consumer does (games.table.seat_fragments: in the move's own hop for the
sockets of the mover's process, games.consumers.perform_and_render; here a call of its own, so that
the two are timed apart), each call with
the database connection handling of channels' database_sync_to_async (close_old_connections
before and after: with CONN_MAX_AGE 0 every call opens and closes a connection). The policy is
bench/live.py's: a win when offered, other claims passed, else the first tile offered; 准备
between hands (not in the per-move figures: printed on their own line, in all and per measured
move, with the press that deals the next hand).

Printed: CPU (process time) and wall time per move with the four renders, and the breakdown per
move: database queries (service / renders), connections opened, template renders (top-level
render_to_string and every Template.render, includes and partials too), engine time (apply and
seat_view). --profile N then profiles the same moves with cProfile and prints the top N functions
by own time and by cumulative time.

Celery is not called: the timeout a move schedules and the replay a hand's end schedules are
counted and dropped (they cost a broker message on the real stack, and the replay runs in the
worker).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
sys.path.insert(0, str(BASE_DIR / "bench"))

import machine as bench_machine  # noqa: E402  (bench/machine.py)

_tmp = tempfile.mkdtemp(prefix="bench-move-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mahjong_site.settings")
os.environ.setdefault("DATABASE_URL", f"sqlite:///{os.path.join(_tmp, 'db.sqlite3')}")
os.environ.update(VAR_DIR=_tmp, CHANNEL_LAYER="memory", CELERY_TASK_ALWAYS_EAGER="1", LOG_LEVEL="WARNING",
                  GAME_SEED_BASE=os.environ.get("GAME_SEED_BASE", "bench-move-1"))
if "DEBUG" not in os.environ:  # as in production (statements are counted by an execute wrapper, Statements)
    os.environ.update(DEBUG="0", SECRET_KEY="bench-move-" + "x" * 40, ALLOWED_HOSTS="127.0.0.1",
                      SECURE_SSL_REDIRECT="0")


class Meter:
    """Counters patched into Django and the engine for the measured calls."""

    def __init__(self):
        self.connections = 0
        self.renders = 0
        self.template_renders = 0
        self.engine = 0.0
        self.scheduled = 0
        self.version = None  # the room version of the last room.updated sent
        self.hand_move = None  # and its hand_move (a move alone: the snapshot is brought forward)


def instrument(meter):
    from django.db.backends.signals import connection_created
    from django.template import base as template_base

    import games.table as table
    from games import services, tasks
    from games.engine import game as engine

    connection_created.connect(lambda **kw: setattr(meter, "connections", meter.connections + 1), weak=False)

    original_render = template_base.Template.render

    def counted_render(self, context):
        meter.template_renders += 1
        return original_render(self, context)

    template_base.Template.render = counted_render

    original_rts = table.render_to_string

    def counted_rts(*args, **kwargs):
        meter.renders += 1
        return original_rts(*args, **kwargs)

    table.render_to_string = counted_rts

    def timed(func):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                meter.engine += time.perf_counter() - t0
        return wrapper

    engine.apply = timed(engine.apply)
    if hasattr(table, "seat_view"):
        table.seat_view = timed(table.seat_view)

    # what room_updated hears: the version sent after the commit (games.services.notify.send,
    # or services._send before the package)
    import importlib

    try:
        notify, name = importlib.import_module("games.services.notify"), "send"
    except ImportError:
        notify, name = services, "_send"
    original_send = getattr(notify, name, None)
    if original_send is not None:
        def sent(group, version, *args, **kwargs):
            meter.version = version
            meter.hand_move = args[0] if args else kwargs.get("hand_move")
            return original_send(group, version, *args, **kwargs)

        setattr(notify, name, sent)

    class Dropped:
        def __init__(self, *args, **kwargs):
            meter.scheduled += 1

    from celery import Task

    for task in vars(tasks).values():
        if isinstance(task, Task):
            task.apply_async = lambda *a, **k: Dropped()
            task.delay = lambda *a, **k: Dropped()


def db_call(func, *args, **kwargs):
    """What channels.db.database_sync_to_async does around a call."""
    from django.db import close_old_connections

    close_old_connections()
    try:
        return func(*args, **kwargs)
    finally:
        close_old_connections()


def setup():
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    from django.db import connection

    if connection.vendor == "postgresql":  # as autovacuum keeps a production server (this machine's has it off)
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")


def make_table(tag):
    from django.contrib.auth import get_user_model

    from accounts import beans
    from accounts.models import Profile
    from games import services
    from games.models import Room

    users = []
    for i in range(4):
        user = get_user_model().objects.create_user(f"m{tag}p{i}")
        Profile.objects.create(user=user, nickname=f"玩家{i}")
        beans.grant_start(user)
        users.append(user)
    room = services.create_room(users[0], players=4, length_kind=Room.HANDS, length=16)
    for u in users[1:]:
        services.join_room(u, room.token)
    by_pos = {s.position: s.user for s in room.seats.select_related("user")}
    return room.pk, by_pos


class Seat:
    """One seat's page, as the live bench's client keeps it (only changed fragments arrive)."""

    def __init__(self, position, user):
        self.position = position
        self.user = user
        self.page = {}

    def take(self, fragments, clock=""):
        """Keep the page; return the bytes the consumer would send (the clock + changed fragments)."""
        from games.consumers import _changed_parts

        changed = [part for name, html in fragments.items() if self.page.get(name) != html
                   for part in _changed_parts(self.page.get(name), html)]
        self.page.update(fragments)
        return len((clock + "".join(changed)).encode())

    def choose(self):
        from live import choose_move

        return choose_move(self.page)


def render_all(room_id, seats, version=None, lang="zh", hand_move=None):
    """Every seat rendered as the consumer's send_view does on room.updated (with its version
    and hand_move)."""
    import inspect

    from games import consumers, table

    render = getattr(consumers, "_render_seat", None) or table.seat_fragments
    params = inspect.signature(render).parameters
    takes_version = "version" in params
    for s in seats:
        t0 = time.perf_counter()
        if "hand_move" in params:
            out = db_call(render, room_id, s.user, lang, "http://127.0.0.1", version, hand_move)
        elif takes_version:
            out = db_call(render, room_id, s.user, lang, "http://127.0.0.1", version)
        else:
            out = db_call(render, room_id, s.user, lang, "http://127.0.0.1")
        SEAT_RENDER_MS.append(1000 * (time.perf_counter() - t0))
        if out is None:
            raise RuntimeError("a seat lost its place")
        SEAT_BYTES.append(s.take(out[2], out[1]))


SEAT_RENDER_MS = []  # wall time of one seat's fragments (seat_fragments through db_call)


class Statements:
    """The SQL a block runs on `connection`, counted by an execute wrapper: not Django's debug
    cursor (CaptureQueriesContext), which on PostgreSQL also composes every statement with its
    parameters client-side, ~0.5 ms of CPU a move that production does not spend. PostgreSQL's
    BEGIN and COMMIT are not run on a cursor, so not counted (SQLite's BEGIN IMMEDIATE is)."""

    def __init__(self, connection):
        self.connection = connection
        self.sql = []
        self._wrapper = None

    def __call__(self, execute, sql, params, many, context):
        self.sql.append(sql)
        return execute(sql, params, many, context)

    def __enter__(self):
        self._wrapper = self.connection.execute_wrapper(self)
        self._wrapper.__enter__()
        return self

    def __exit__(self, *exc):
        return self._wrapper.__exit__(*exc)


SHOW_SQL = set()  # --sql: the moves whose statements are printed
SEAT_BYTES = []  # bytes one seat's socket is sent for one update (the clock + changed fragments)
BETWEEN_HANDS_MS = []  # CPU of each 准备 press and its four renders (the last one deals the next hand)
PRESS_STATEMENTS = []  # SQL statements of each 准备 press and its four renders


class Sample:
    __slots__ = ("cpu", "cpu_play", "wall", "queries_play", "queries_render", "connections", "renders", "template_renders",
                 "engine")


def hands_dealt(room_id):
    from games.models import Hand

    return Hand.objects.filter(game__room_id=room_id).count()


def play(room_id, seats, moves, meter, samples, profiler=None):
    """Play `moves` hand moves (readies between hands are not counted)."""
    from django.db import connection

    from games import consumers

    if hasattr(consumers, "perform_deferred"):
        # the socket's path: the room.updated messages are sent by the consumer's event loop
        # (channel layer work this in-process bench does not measure), so they are dropped here
        def perform(*args):
            error, _sends = consumers.perform_deferred(*args)
            return error
    else:
        perform = consumers.perform

    rank = {"win": 0, "pass": 1, "discard": 2, "auto_off": 3, "ready": 4}
    done = 0
    idle = 0
    while done < moves:
        choices = [(s, s.choose()) for s in seats]
        choices = [(s, c) for s, c in choices if c is not None]
        if not choices:
            idle += 1
            if idle > 3:
                return done  # the game ended
            render_all(room_id, seats)
            continue
        idle = 0
        seat, (kind, message) = min(choices, key=lambda x: (rank[x[1][0]], x[0].position))
        if kind in ("ready", "auto_off"):
            c0 = time.process_time()
            with Statements(connection) as q_press:
                error = db_call(perform, room_id, seat.user, message)
                if error:
                    raise RuntimeError(f"{kind}: {error}")
                render_all(room_id, seats, meter.version, hand_move=meter.hand_move)
            cpu = 1000 * (time.process_time() - c0)
            BETWEEN_HANDS_MS.append((cpu, db_call(hands_dealt, room_id)))
            PRESS_STATEMENTS.append(len(q_press.sql))
            continue
        sample = Sample()
        before = (meter.connections, meter.renders, meter.template_renders, meter.engine)
        if profiler:
            profiler.enable()
        c0, w0 = time.process_time(), time.perf_counter()
        with Statements(connection) as q_play:
            error = db_call(perform, room_id, seat.user, message)
        sample.cpu_play = time.process_time() - c0
        with Statements(connection) as q_render:
            render_all(room_id, seats, meter.version, hand_move=meter.hand_move)
        n_play, n_render = len(q_play.sql), len(q_render.sql)
        if SHOW_SQL and done in SHOW_SQL:
            print(f"--- move {done} ({kind}): the service's SQL")
            for q in q_play.sql:
                print("   ", q[:200])
            print(f"--- move {done}: the renders' SQL")
            for q in q_render.sql:
                print("   ", q[:200])
        sample.cpu, sample.wall = time.process_time() - c0, time.perf_counter() - w0
        if profiler:
            profiler.disable()
        if error:
            raise RuntimeError(f"{kind} {message}: {error}")
        sample.queries_play, sample.queries_render = n_play, n_render
        sample.connections = meter.connections - before[0]
        sample.renders = meter.renders - before[1]
        sample.template_renders = meter.template_renders - before[2]
        sample.engine = meter.engine - before[3]
        samples.append(sample)
        done += 1
    return done


def run(moves, meter, profiler=None, tag=""):
    room_id, by_pos = make_table(tag)
    seats = [Seat(p, by_pos[p]) for p in sorted(by_pos)]
    render_all(room_id, seats)
    samples = []
    while len(samples) < moves:
        play(room_id, seats, moves - len(samples), meter, samples, profiler)
        if len(samples) < moves:  # the game ended: another table
            room_id, by_pos = make_table(f"{tag}x{len(samples)}")
            seats = [Seat(p, by_pos[p]) for p in sorted(by_pos)]
            render_all(room_id, seats)
    return samples


def _server_cpu(connection):
    """CPU seconds of this machine's PostgreSQL server processes (bench/live.py), or None when the
    database is not a PostgreSQL on this machine."""
    host = connection.settings_dict.get("HOST") or ""
    if connection.vendor != "postgresql" or not (host in ("127.0.0.1", "localhost", "::1", "") or host.startswith("/")):
        return None
    from live import service_cpu  # bench/live.py

    return service_cpu()["PostgreSQL"]


def ms(x):
    return 1000 * x


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="profile and print the top N functions")
    parser.add_argument("--dump", metavar="FILE", help="with --profile: also write the pstats data to FILE")
    parser.add_argument("--sql", type=int, nargs="*", default=[], metavar="MOVE",
                        help="print the SQL statements of these measured moves (0-based)")
    args = parser.parse_args(argv)

    setup()
    from django.conf import settings
    from django.db import connection

    meter = Meter()
    instrument(meter)
    tag = f"{int(time.time()) % 1_000_000}{os.getpid() % 1000}"
    run(args.warmup, meter, tag=tag + "w")  # templates compiled, caches warm
    SHOW_SQL.update(args.sql)
    BETWEEN_HANDS_MS.clear()
    PRESS_STATEMENTS.clear()
    server_before = _server_cpu(connection)
    samples = run(args.moves, meter, tag=tag)
    server_after = _server_cpu(connection)
    SHOW_SQL.clear()

    def med(attr, scale=1.0):
        return statistics.median(getattr(s, attr) * scale for s in samples)

    def mean(attr, scale=1.0):
        return statistics.fmean(getattr(s, attr) * scale for s in samples)

    cpu = sorted(ms(s.cpu) for s in samples)
    print("Server CPU per move (bench/move_cpu.py): one move + the four seats rendered")
    print(f"  {bench_machine.line()}")
    print(f"  database: {connection.vendor}, CONN_MAX_AGE={settings.DATABASES['default'].get('CONN_MAX_AGE')}, "
          f"DEBUG {'on' if settings.DEBUG else 'off'}; Python {sys.version.split()[0]}; {len(samples)} moves")
    print(f"  CPU per move   median {statistics.median(cpu):6.2f} ms   mean {statistics.fmean(cpu):6.2f} ms   "
          f"p90 {cpu[int(0.9 * (len(cpu) - 1))]:6.2f} ms")
    print(f"  wall per move  median {med('wall', 1000):6.2f} ms   mean {mean('wall', 1000):6.2f} ms")
    print(f"  CPU split (median): the move (consumers.perform -> services) {med('cpu_play', 1000):6.2f} ms, "
          f"the four renders {statistics.median((s.cpu - s.cpu_play) * 1000 for s in samples):6.2f} ms")
    print(f"  per move (mean): SQL statements run on a cursor {mean('queries_play') + mean('queries_render'):.1f} "
          f"(service {mean('queries_play'):.1f}, renders {mean('queries_render'):.1f}); "
          f"connections opened {mean('connections'):.1f}; render_to_string {mean('renders'):.1f}, "
          f"Template.render {mean('template_renders'):.1f}; engine (apply + seat_view) {mean('engine', 1000):.2f} ms")
    if BETWEEN_HANDS_MS:
        # the hand-ending move is one of the moves above; the presses after it are not
        cpu_all = sum(c for c, _n in BETWEEN_HANDS_MS)
        deals = [n > before for (_c, n), (_c0, before) in zip(BETWEEN_HANDS_MS[1:], BETWEEN_HANDS_MS)]
        dealing = [c for (c, _n), dealt in zip(BETWEEN_HANDS_MS[1:], deals) if dealt]
        others = [(c, q) for (c, _n), q, dealt in zip(BETWEEN_HANDS_MS[1:], PRESS_STATEMENTS[1:], deals) if not dealt]
        print(f"  between hands (not in the moves above): {len(BETWEEN_HANDS_MS)} 准备 presses with their renders, "
              f"{cpu_all:.0f} ms CPU in all = {cpu_all / len(samples):.2f} ms per measured move; "
              f"the press that deals, median {statistics.median(dealing) if dealing else float('nan'):.1f} ms "
              f"({len(dealing)} deals); the others, median "
              f"{statistics.median(c for c, _q in others) if others else float('nan'):.1f} ms and "
              f"{statistics.fmean(q for _c, q in others) if others else float('nan'):.1f} statements")
    if server_before is not None and server_after is not None:
        # the PostgreSQL server's own CPU (every postgres process of this machine, nothing else
        # running): what a move costs the database besides this process's waits
        print(f"  PostgreSQL server CPU per measured move (its 准备 presses and new tables included): "
              f"{1000 * (server_after - server_before) / len(samples):.2f} ms")
    print(f"  celery calls dropped: {meter.scheduled}")
    if SEAT_RENDER_MS:
        r = sorted(SEAT_RENDER_MS)
        b = sorted(SEAT_BYTES)
        print(f"  one seat's fragments: render median {statistics.median(r):.2f} ms, p90 {r[int(len(r) * .9)]:.2f} ms; "
              f"sent per update per socket median {statistics.median(b) / 1000:.1f} kB, mean {statistics.fmean(b) / 1000:.1f} kB, "
              f"p90 {b[int(len(b) * .9)] / 1000:.1f} kB")

    if args.profile:
        profiler = cProfile.Profile()
        n = min(args.moves, 200)
        run(n, meter, profiler=profiler, tag=tag + "p")
        if args.dump:
            profiler.dump_stats(args.dump)
        for key, title in (("tottime", "own time"), ("cumulative", "cumulative time")):
            out = io.StringIO()
            stats = pstats.Stats(profiler, stream=out)
            stats.sort_stats(key).print_stats(args.profile)
            text = out.getvalue()
            start = text.find("   ncalls")
            print(f"\nprofile of {n} moves, top {args.profile} by {title} (seconds are totals over the {n} moves):")
            print(text[start:].rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
