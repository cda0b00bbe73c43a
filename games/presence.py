"""Who is at the table: online positions of a room (a seat is online while a socket is open)."""

from .models import Seat


def online_positions(room_id: int) -> set:
    """Positions of the room's seats with at least one live socket."""
    return set(Seat.objects.filter(room_id=room_id, connections__gt=0).values_list("position", flat=True))
