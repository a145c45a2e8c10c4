"""Schemathesis hooks of the fuzzing gate (loaded through `hooks` in contract-tests/schemathesis.toml).

One custom check keeps the narrowing of `positive_data_acceptance` on the cursor operations exactly
as narrow as the contract demands: a schema-valid request may be refused with 400 only because of its
`cursor`, never because of `status` or `limit`.
"""

import json

import schemathesis

# Operations whose `positive_data_acceptance` accepts a 400 in schemathesis.toml.
CURSOR_OPERATIONS = {
    "GET /offers",
    "GET /offers/{id}/events",
}


@schemathesis.check
def positive_data_rejected_only_for_cursor(ctx, response, case):
    """openapi.yaml "Pagination": "A cursor that cannot be read ... gives 400 with param `cursor`".

    Any other 400 to schema-valid data (for instance a `limit` of 7 refused) is a real failure.
    """
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    if response.status_code != 400 or case.operation.label not in CURSOR_OPERATIONS:
        return None
    query = case.query or {}
    if "cursor" not in query:
        raise AssertionError(
            "Schema-valid request without a cursor was refused with 400; only an unreadable cursor may be"
        )
    try:
        param = json.loads(response.content).get("error", {}).get("param")
    except (ValueError, AttributeError):
        param = None
    if param != "cursor":
        raise AssertionError(
            f"Schema-valid request was refused with 400 for parameter {param!r}; only `cursor` may be refused"
        )
    return None
