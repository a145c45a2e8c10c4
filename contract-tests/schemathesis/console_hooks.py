"""Schemathesis hooks of the console API gate (contract-tests/schemathesis-console.toml).

A generated workspace or endpoint ID names nothing, so those operations would end in 404 and
their success answers would never be checked. A generated value of UUID form is replaced by the
fixture's workspace (CONTRACT_WORKSPACE_ID) or endpoint (CONTRACT_ENDPOINT_ID); other values
(negative data) are kept as drawn. removeEndpoint is left with generated IDs, so the fixture's
endpoint stays for the other operations.
"""

import os
import re

import schemathesis

UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
FIXTURE = {
    "workspaceId": os.environ.get("CONTRACT_WORKSPACE_ID"),
    "endpointId": os.environ.get("CONTRACT_ENDPOINT_ID"),
}


@schemathesis.hook
def map_path_parameters(ctx, path_parameters):
    if not path_parameters:
        return path_parameters
    removing = ctx.operation is not None and ctx.operation.method.upper() == "DELETE"
    for name, value in FIXTURE.items():
        if name == "endpointId" and removing:
            continue
        if value and UUID.match(str(path_parameters.get(name, ""))):
            path_parameters[name] = value
    return path_parameters
