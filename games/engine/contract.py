"""The machine-checkable JSON contracts of ../shared/rules/README.md.

score_request(dict) -> dict and settle_request(dict) -> dict never raise on bad input:
they answer {"ok": false, "error": "..."}.
"""


def score_request(req):
    raise NotImplementedError


def settle_request(req):
    raise NotImplementedError
