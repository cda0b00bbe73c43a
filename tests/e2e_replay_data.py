"""Put one finished hand into the database of a running site, for tests/test_e2e_replay.py.

    DATABASE_URL=sqlite:///.../db.sqlite3 python tests/e2e_replay_data.py

Run with the server's DATABASE_URL once it has migrated. Two players (e2e-host, e2e-guest, the
password below) play a seeded 2-player hand through games.services (tests/replay_helpers.py: the
guest wins on the host's discard); the replay task runs in this process (eager Celery, in-memory
channel layer). Prints one JSON line: the replay's path, its number of steps, the game id.
"""

import json
import os
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mahjong_site.settings")
os.environ["CHANNEL_LAYER"] = "memory"
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "1"

PASSWORD = "a-long-pass-1234"


def main():
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from accounts.models import Profile
    from games import replays, services
    from games.models import Replay
    from tests.replay_helpers import SEED_GUEST_WINS, fixed_seeds, play_hand, start_hand, users_by_position

    users = []
    for name in ("e2e-host", "e2e-guest"):
        user = get_user_model().objects.create_user(name, password=PASSWORD)
        Profile.objects.create(user=user, nickname=f"{name}昵称")
        users.append(user)
    fixed_seeds(None, [SEED_GUEST_WINS])
    room = services.create_room(users[0], players=2, length=4)
    services.join_room(users[1], room.token)
    hand = play_hand(start_hand(room), users_by_position(room))
    replay = Replay.objects.filter(hand=hand).first() or replays.build(hand.pk)
    print(json.dumps({"replay": f"/replay/{replay.token}/", "steps": len(replay.data["actions"]),
                      "game": hand.game_id, "status": replay.status, "winner": hand.result["winner"]}))


if __name__ == "__main__":
    main()
