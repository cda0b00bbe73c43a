"""The one error type of the service layer, and the result of a move.

Every refusal is a ServiceError with a stable `code` (for programs and tests) and a message for
the player, already translated in the request's language. `play` (and the timeouts) answer with
an Outcome instead of raising, so a socket can reply in one line; its `code` is the same."""

from __future__ import annotations

from dataclasses import dataclass


class ServiceError(Exception):
    """A request the rules or the room do not allow; str(e) is for the player, e.code for programs."""

    def __init__(self, code: str, message: str = ""):
        super().__init__(message or code)
        self.code = code


@dataclass(frozen=True)
class Outcome:
    ok: bool
    error: str = ""
    version: int = 0
    code: str = ""
