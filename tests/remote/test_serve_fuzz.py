"""Any body and any session or question id, sent to a real ``chatcli serve``: the answer is a
success or one of the documented failures with the JSON error body — never a 500, never a
stack trace (hypothesis draws the inputs; the sessions named do not exist, so no turn runs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from remote_support import ServeProcess

pytestmark = pytest.mark.slow

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),  # what JSON can carry
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)
_BODIES = st.one_of(
    _JSON.map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries({}, optional={"text": _JSON, "line": _JSON, "width": _JSON,
                                        "color": _JSON, "allow": _JSON, "scope": _JSON,
                                        "reason": _JSON, "choice": _JSON})
    .map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=64))
_IDS = st.text(min_size=1, max_size=40).filter(lambda s: s not in (".", ".."))
_ROUTES = ["messages", "commands", "questions/{qid}", "cancel"]


@pytest.fixture
def serve_config() -> str:
    """No rate limit in the way of a few hundred requests."""
    return "[serve.rate]\nper_minute = 1000000\nburst = 1000000\n"


def _check(response: Any, allowed: set[int]) -> None:
    assert response.status_code in allowed, (response.status_code, response.text)
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"error"} and "\n" not in body["error"]["message"]
        assert "Traceback" not in response.text


@settings(max_examples=120, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=_BODIES, sid=_IDS, qid=_IDS, route=st.sampled_from(_ROUTES))
def test_any_body_and_id_gets_a_documented_answer(server: ServeProcess, token: str, body: bytes,
                                                  sid: str, qid: str, route: str) -> None:
    from urllib.parse import quote

    path = f"/api/sessions/{quote(sid, safe='')}/" + route.format(qid=quote(qid, safe=""))
    with server.client(token) as client:
        _check(client.post(path, content=body, headers={"Content-Type": "application/json"}),
               {400, 404, 405, 413})
        _check(client.get(f"/api/sessions/{quote(sid, safe='')}"), {404})
        _check(client.get(f"/api/sessions/{quote(sid, safe='')}/export",
                          params={"format": qid}), {400, 404})


@settings(max_examples=60, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(workspace=st.one_of(_JSON, st.text(alphabet="./~abc\\\0-", max_size=12)))
def test_any_workspace_opens_under_the_root_or_is_refused(
        server: ServeProcess, token: str, root: Path, workspace: Any) -> None:
    with server.client(token) as client:
        answer = client.post("/api/sessions", json={"workspace": workspace})
        _check(answer, {201, 400, 404})
        if answer.status_code == 201:
            assert Path(answer.json()["workspace"]).resolve().is_relative_to(root.resolve())
