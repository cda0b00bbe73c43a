"""Safe wrappers around the engine's JSON contracts (shared/rules/README.md).

The engine promises never to raise; these wrappers make sure that a bug in it costs one answer
(`{"ok": false, "error": "internal error: ..."}`) and not a page or a whole batch.
"""

import json
import logging

from games.engine import contract

log = logging.getLogger(__name__)


def _safe(func, request):
    try:
        result = func(request)
    except Exception as exc:  # noqa: BLE001 - the whole point is to contain engine bugs
        log.exception("engine raised on %r", request)
        return {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}
    if not isinstance(result, dict):
        return {"ok": False, "error": f"internal error: engine returned {type(result).__name__}, not an object"}
    return result


def score(request):
    """contract.score_request, never raising."""
    return _safe(contract.score_request, request)


def settle(request):
    """contract.settle_request, never raising."""
    return _safe(contract.settle_request, request)


def _dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


def process_jsonl(func, lines, write):
    """Answer each JSON line of `lines` with one JSON line passed to `write`, in order.

    Blank lines are skipped (no output). A line that is not a JSON object gets
    {"ok": false, "error": "line N: invalid JSON: ..."}; N counts every physical line, from 1.
    Returns the number of answers written.
    """
    answered = 0
    for number, line in enumerate(lines, 1):
        if number == 1:
            line = line.lstrip("\ufeff")
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as exc:
            result = {"ok": False, "error": f"line {number}: invalid JSON: {exc}"}
        else:
            if isinstance(request, dict):
                result = func(request)
            else:
                result = {
                    "ok": False,
                    "error": f"line {number}: invalid JSON: expected an object, got {type(request).__name__}",
                }
        try:
            text = _dumps(result)
        except (TypeError, ValueError) as exc:
            text = _dumps({"ok": False, "error": f"internal error: result is not JSON: {exc}"})
        write(text + "\n")
        answered += 1
    return answered
