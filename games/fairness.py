"""Provably fair walls: the hand's wall comes from its seed alone (games.engine.game.build_wall);
a SHA-256 commitment to seed + salt is shown when the hand starts, and the replay reveals both."""

import hashlib
import secrets
from functools import lru_cache


def new_salt() -> str:
    return secrets.token_hex(16)


@lru_cache(maxsize=4096)  # asked for at every render of a hand's every seat
def commitment(seed: int, salt: str) -> str:
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()
