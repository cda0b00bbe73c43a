from games.contracts import settle
from games.management.jsonl import JsonLinesCommand


class Command(JsonLinesCommand):
    help = (
        "Settle hands: one JSON request per stdin line (shared/rules/README.md, settlement contract), "
        "one JSON result per stdout line, same order."
    )
    contract_func = staticmethod(settle)
