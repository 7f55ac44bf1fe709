"""``openapi.json`` describes exactly the server's routes (every path and method, both ways),
as OpenAPI 3.1 with an error body for every failure status (fast: the routes are built
in-process, nothing is served)."""

from __future__ import annotations

import json
from pathlib import Path


def _documented() -> set[tuple[str, str]]:
    from chatcli_remote.serve.app import OPENAPI_PATH

    doc = json.loads(OPENAPI_PATH.read_text())
    assert doc["openapi"].startswith("3.1")
    return {(path, method.upper()) for path, item in doc["paths"].items()
            for method in item if method in ("get", "post", "put", "patch", "delete")}


def test_the_openapi_document_lists_exactly_the_routes() -> None:
    from chatcli_remote.serve.app import Api, routes
    from chatcli_remote.serve.tokens import TokenStore
    from starlette.routing import Mount, Route

    api = Api(hub=None, catalog=None, host=None, tokens=TokenStore(Path("unused.json")))
    served: set[tuple[str, str]] = set()
    for route in routes(api):
        if isinstance(route, Mount):
            served.add((route.path + "/{path}", "GET"))
        else:
            assert isinstance(route, Route) and route.methods
            served |= {(route.path, m) for m in route.methods if m != "HEAD"}
    assert served == _documented()


def test_every_documented_operation_has_an_id_and_its_failures_use_the_error_body() -> None:
    from chatcli_remote.serve.app import OPENAPI_PATH

    doc = json.loads(OPENAPI_PATH.read_text())
    ids = []
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            ids.append(operation["operationId"])
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    assert response == {"$ref": "#/components/responses/Error"}, (path, status)
            if path.startswith("/api/"):
                assert "security" not in operation and 401 in map(int, operation["responses"])
            else:
                assert operation["security"] == []
    assert len(ids) == len(set(ids))
