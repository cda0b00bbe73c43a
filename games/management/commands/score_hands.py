from games.contracts import score
from games.management.jsonl import JsonLinesCommand


class Command(JsonLinesCommand):
    help = (
        "Score hands: one JSON request per stdin line (shared/rules/README.md, scoring contract), "
        "one JSON result per stdout line, same order."
    )
    contract_func = staticmethod(score)
