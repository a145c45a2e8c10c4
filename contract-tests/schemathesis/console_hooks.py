"""Schemathesis hooks of the console API gate (contract-tests/schemathesis-console.toml).

A generated workspace ID names no workspace, so every workspace operation would end in 404 and
its success answers would never be checked. A generated value of UUID form is replaced by the
fixture's workspace (CONTRACT_WORKSPACE_ID); other values (negative data) are kept as drawn.
"""

import os
import re

import schemathesis

UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
WORKSPACE_ID = os.environ.get("CONTRACT_WORKSPACE_ID")


@schemathesis.hook
def map_path_parameters(ctx, path_parameters):
    if path_parameters and WORKSPACE_ID and UUID.match(str(path_parameters.get("workspaceId", ""))):
        path_parameters["workspaceId"] = WORKSPACE_ID
    return path_parameters
