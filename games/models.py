# Room, Seat, Game, Hand, HandEvent and Replay arrive with the table issues
# (see shared/design/architecture.md). The engine under games/engine/ stays free of Django.
