"""The Starlette application of ``chatcli serve``: the JSON API under ``/api`` (bearer tokens,
SSE streams of a session's events), ``/openapi.json`` and the web page (``/``, ``/static/…``,
its words in the server's language ``/words.json``).

Every ``/api`` route needs ``Authorization: Bearer <token>``; a token sees only the sessions
whose project is inside its root (others are 404, as if they did not exist). Errors are
``{"error": {"type", "message"}}`` with the CLI's one line (cause — fix), secrets redacted.
The live sessions are the :class:`chatcli_remote.hub.Hub`'s; saved ones come from
chatcli-sessions' ``session_catalog``.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import sys
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chatcli import ChatcliError, redact, translation
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chatcli_remote.hub import check_message_id
from chatcli_remote.serve.errors import ApiError, error_response
from chatcli_remote.serve.limits import BodyLimit, RateLimiter, settings_int
from chatcli_remote.serve.tokens import TokenRecord, TokenStore

__all__ = ["OPENAPI_PATH", "WEB_DIR", "Limits", "build_app", "routes"]

# The error bodies' messages are in the server's language (its process's locale); their JSON
# keys, types and the SSE event names are the protocol's.
_, ngettext = translation(__name__)

#: The package's hand-written OpenAPI document and the web page's folder.
OPENAPI_PATH = Path(__file__).resolve().parent.parent / "openapi.json"
WEB_DIR = Path(__file__).resolve().parent.parent / "web"

#: What a session id may look like (anything else is no session: 404).
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:\-]{0,127}")
_SSE_HEADERS = {"X-Accel-Buffering": "no", "Cache-Control": "no-store"}
_NO_TOKEN = _("create one with `chatcli serve token create --name NAME --root DIR` and send it "
              "as 'Authorization: Bearer <token>'")
_HANDLED = ("TurnBusy", "QuestionClosed", "MessageSent")
#: The error bodies' types (the protocol's words, never translated).
BAD_REQUEST, NOT_FOUND, UNAUTHORIZED = "BadRequest", "NotFound", "Unauthorized"
INTERNAL_ERROR, RATE_LIMITED, TURN_BUSY = "InternalError", "RateLimited", "TurnBusy"


@dataclass(frozen=True)
class Limits:
    """The ``[serve]`` settings the application applies."""

    max_request_bytes: int = 1 << 20
    rate_per_minute: int = 600
    rate_burst: int = 120

    @classmethod
    def from_table(cls, table: dict[str, Any]) -> Limits:
        """From the user's ``[serve]`` table (``max_request_bytes``, ``[serve.rate]``
        ``per_minute`` and ``burst``)."""
        rate = table.get("rate", {})
        if not isinstance(rate, dict):
            from chatcli import ConfigError

            raise ConfigError(_("[serve] rate must be a table ([serve.rate] per_minute, burst)"),
                              _("fix it in your config file (`chatcli config path` shows where)"))
        return cls(max_request_bytes=settings_int(table, "max_request_bytes", 1 << 20),
                   rate_per_minute=settings_int(rate, "per_minute", 600, "serve.rate"),
                   rate_burst=settings_int(rate, "burst", 120, "serve.rate"))


def _json(data: Any, status: int = 200) -> Response:
    """A JSON response, secrets redacted over the whole text, never cached."""
    text = redact(json.dumps(data, ensure_ascii=False, default=str))
    return Response(text, status_code=status, media_type="application/json",
                    headers={"Cache-Control": "no-store"})


def _not_found(folder: bool = False) -> ApiError:
    if folder:
        return ApiError(404, NOT_FOUND, _("no such folder under this token's root — list them "
                                           "with GET /api/sessions"))
    return ApiError(404, NOT_FOUND, _("no such session under this token's root — list them "
                                       "with GET /api/sessions"))


def _inside(path: str | Path, root: str) -> bool:
    try:
        return Path(path).resolve().is_relative_to(Path(root).resolve())
    except (OSError, ValueError):
        return False


def _seq(event_id: str) -> tuple[str, int]:
    boot, _sep, seq = event_id.rpartition("-")
    try:
        return boot, int(seq)
    except ValueError:
        return boot, -1


async def _body(request: Request, required: bool = True) -> dict[str, Any]:
    """The request's JSON object (400 when it is not one)."""
    raw = await request.body()
    if not raw.strip():
        if required:
            raise ApiError(400, BAD_REQUEST,
                           _("the request has no body — send a JSON object"))
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        raise ApiError(400, BAD_REQUEST,
                       _("the body is not valid JSON — send a JSON object "
                         "(Content-Type: application/json)")) from None
    if not isinstance(data, dict):
        raise ApiError(400, BAD_REQUEST, _("the body must be a JSON object"))
    return data


def _chatcli_status(err: ChatcliError) -> int:
    return 409 if type(err).__name__ in _HANDLED else 400


Handler = Callable[[Request, TokenRecord], Awaitable[Response]]


@dataclass
class Api:
    """The API's handlers over a hub (live sessions), a catalog (saved ones) and the tokens."""

    hub: Any
    catalog: Any
    host: Any
    tokens: TokenStore
    limits: Limits = field(default_factory=Limits)

    def __post_init__(self) -> None:
        self.limiter = RateLimiter(self.limits.rate_per_minute, self.limits.rate_burst)

    # ------------------------------------------------------------------ plumbing

    def authed(self, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        """``handler`` behind the bearer token, the rate limit and the error bodies."""

        async def endpoint(request: Request) -> Response:
            try:
                token = await run_in_threadpool(self._token, request)
                self.limiter.check(token.id)
                return await handler(request, token)
            except ApiError as err:
                if err.status == 401:  # guesses are rate-limited too, by address
                    address = request.client.host if request.client else ""
                    wait = self.limiter.take(f"address {address}")
                    if wait > 0:
                        return ApiError(
                            429, RATE_LIMITED, _("too many requests without a valid token from "
                                                  "this address — wait (Retry-After), then send a "
                                                  "valid token"),
                            headers={"Retry-After": str(max(1, math.ceil(wait)))}).response()
                return err.response()
            except ChatcliError as err:
                return ApiError.from_chatcli(_chatcli_status(err), err).response()
            except Exception as err:  # the client gets one line, the log the rest
                _log_failure(request, err)
                return error_response(500, INTERNAL_ERROR,
                                      _("the server failed on this request — see its log"))

        endpoint.__name__ = handler.__name__
        return endpoint

    def _token(self, request: Request) -> TokenRecord:
        header = request.headers.get("authorization", "")
        scheme, _sep, secret = header.partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            raise ApiError(401, UNAUTHORIZED,
                           _("no token in the request — {fix}").format(fix=_NO_TOKEN),
                           headers={"WWW-Authenticate": "Bearer"})
        try:
            record = self.tokens.lookup(secret.strip())
        except ChatcliError as err:
            raise ApiError(500, "ConfigError", str(err)) from None  # untranslated: a type
        if record is None:
            raise ApiError(401, UNAUTHORIZED,
                           _("the token is unknown, revoked or expired — {fix}").format(
                               fix=_NO_TOKEN),
                           headers={"WWW-Authenticate": "Bearer"})
        return record

    async def _project(self, token: TokenRecord, sid: str) -> Path:
        """The project folder of session ``sid`` when the token may see it, else 404."""
        if not _SESSION_ID.fullmatch(sid):
            raise _not_found()
        live = self.hub.get(sid)
        if live is not None:
            if _inside(live.workspace, token.root):
                return Path(live.workspace)
            raise _not_found()
        info = await run_in_threadpool(self.catalog.info, sid)
        if info is None or not info.project or not _inside(info.project, token.root):
            raise _not_found()
        return Path(info.project)

    async def _live(self, token: TokenRecord, sid: str, sync: bool = False) -> Any:
        """The live session ``sid`` (resumed in the hub when it is not live yet); with
        ``sync``, a live one is first read again from the store if another replica moved it
        (a turn checks that itself)."""
        project = await self._project(token, sid)
        live = self.hub.get(sid)
        if live is not None:
            if sync:
                await run_in_threadpool(live.sync)
            return live
        try:
            return await run_in_threadpool(self.hub.open, sid, project)
        except ChatcliError as err:
            raise ApiError.from_chatcli(404, err) from None

    # ------------------------------------------------------------------ sessions

    async def list_sessions(self, request: Request, token: TokenRecord) -> Response:
        """``GET /api/sessions``: the saved sessions under the token's root."""
        summaries = await run_in_threadpool(self.catalog.list, token.root, 200)
        found = []
        for s in summaries:
            if not s.project or not _inside(s.project, token.root):
                continue
            live = self.hub.get(s.id)
            found.append({"id": s.id, "title": s.title, "project": s.project,
                          "updated": s.updated, "messages": s.messages, "model": s.model,
                          "provider": s.provider, "live": live is not None,
                          "running": bool(live is not None and live.running)})
        listed = {item["id"] for item in found}
        for live in self.hub.live():  # new sessions not saved yet (no message so far)
            if live.id in listed or not _inside(live.workspace, token.root):
                continue
            snap = await run_in_threadpool(live.snapshot)
            found.append({"id": live.id, "title": snap.get("title") or "",
                          "project": str(live.workspace), "updated": None,
                          "messages": len(snap.get("messages") or ()),
                          "model": snap.get("model"), "provider": snap.get("provider"),
                          "live": True, "running": bool(live.running)})
        return _json({"sessions": found})

    async def create_session(self, request: Request, token: TokenRecord) -> Response:
        """``POST /api/sessions``: a new live session in a folder under the token's root; with
        ``text``, its first turn too, streamed as SSE (``Location`` names the session): behind
        a load balancer the next request may reach another replica, which finds a session in
        the store only once it holds an answer."""
        body = await _body(request, required=False)
        given = body.get("workspace")
        if given is not None and not isinstance(given, str):
            raise ApiError(400, BAD_REQUEST, _("'workspace' must be a folder's path (text)"))
        text = body.get("text")
        if text is not None and (not isinstance(text, str) or not text.strip()):
            raise ApiError(400, BAD_REQUEST, _("'text' must be the first message (non-empty "
                                                "text), or left out"))
        message_id = check_message_id(body.get("id"))
        folder = Path(token.root) / given if given else Path(token.root)
        if not _inside(folder, token.root) or not folder.is_dir():
            raise _not_found(folder=True)
        live = await run_in_threadpool(self.hub.open, None, folder.resolve())
        if text is None:
            return _json(await run_in_threadpool(live.snapshot), 201)
        first = await run_in_threadpool(live.start_turn, text, token.name, message_id)
        return self._stream(self._turn_events(live, first), status=201,
                            headers={"Location": f"/api/sessions/{live.id}"})

    async def get_session(self, request: Request, token: TokenRecord) -> Response:
        """``GET /api/sessions/{id}``: the session's snapshot."""
        live = await self._live(token, request.path_params["id"], sync=True)
        return _json(await run_in_threadpool(live.snapshot))

    async def delete_session(self, request: Request, token: TokenRecord) -> Response:
        """``DELETE /api/sessions/{id}``: delete a saved session (409 while a turn runs)."""
        sid = request.path_params["id"]
        await self._project(token, sid)
        live = self.hub.get(sid)
        if live is not None and live.running:
            raise ApiError(409, TURN_BUSY, _("a turn is running in this session — cancel it "
                                              "(POST …/cancel) first"))
        if live is not None:
            await run_in_threadpool(self.hub.discard, sid)
        if not await run_in_threadpool(self.catalog.delete, sid) and live is None:
            raise _not_found()
        return Response(status_code=204)

    async def export_session(self, request: Request, token: TokenRecord) -> Response:
        """``GET /api/sessions/{id}/export?format=md|json``."""
        sid = request.path_params["id"]
        fmt = request.query_params.get("format", "md")
        if fmt not in ("md", "json"):
            raise ApiError(400, BAD_REQUEST,
                           _("format '{format}' is not known — use md or json").format(format=fmt))
        await self._project(token, sid)
        text = redact(await run_in_threadpool(self.catalog.export, sid, fmt))
        media = "text/markdown; charset=utf-8" if fmt == "md" else "application/json"
        return Response(text, media_type=media, headers={"Cache-Control": "no-store"})

    # ------------------------------------------------------------------ turns and events

    def _stream(self, events: AsyncIterator[bytes], status: int = 200,
                headers: dict[str, str] | None = None) -> Response:
        from chatcli_remote.serve.sse import StreamResponse

        # a client that stops reading is let go after a minute (the turn goes on regardless)
        return StreamResponse(events, ping=15, stall_seconds=60, status=status,
                              headers={**_SSE_HEADERS, **(headers or {})})

    async def _turn_events(self, live: Any, first: str) -> AsyncIterator[bytes]:
        """The turn's events, from ``first`` (its ``turn_started``) to its ``done``."""
        boot, seq = _seq(first)
        stream = live.subscribe_batches(f"{boot}-{seq - 1}")
        try:
            async for batch in stream:
                frames: list[bytes] = []
                done = False
                for event in batch:
                    ev_boot, ev_seq = _seq(event.id)
                    if ev_boot != boot or ev_seq < seq:
                        continue  # a reset or what came before the turn
                    frames.append(event.sse())
                    if event.kind == "done":
                        done = True
                        break
                if frames:
                    yield b"".join(frames)  # the events waiting, in one write
                if done:
                    break
        finally:
            with contextlib.suppress(Exception):
                await stream.aclose()

    async def post_message(self, request: Request, token: TokenRecord) -> Response:
        """``POST /api/sessions/{id}/messages``: run a turn, streamed as SSE until ``done``."""
        body = await _body(request)
        text = body.get("text")
        if not isinstance(text, str) or not text.strip():
            raise ApiError(400, BAD_REQUEST, _("'text' must be the message (non-empty text)"))
        message_id = check_message_id(body.get("id"))
        live = await self._live(token, request.path_params["id"])
        first = await run_in_threadpool(live.start_turn, text, token.name, message_id)
        return self._stream(self._turn_events(live, first))

    async def post_command(self, request: Request, token: TokenRecord) -> Response:
        """``POST /api/sessions/{id}/commands``: run a slash command, streamed like a turn."""
        body = await _body(request)
        line = body.get("line")
        width = body.get("width", 100)
        color = body.get("color", False)
        if not isinstance(line, str) or not line.startswith("/"):
            raise ApiError(400, BAD_REQUEST,
                           _("'line' must be a slash command such as '/cost'"))
        if not isinstance(width, int) or isinstance(width, bool) or not 20 <= width <= 500:
            raise ApiError(400, BAD_REQUEST,
                           _("'width' must be a number of columns (20-500)"))
        if not isinstance(color, bool):
            raise ApiError(400, BAD_REQUEST, _("'color' must be true or false"))
        live = await self._live(token, request.path_params["id"])
        first = await run_in_threadpool(
            lambda: live.run_command(line, width=width, color=color, client=token.name))
        return self._stream(self._turn_events(live, first))

    async def events(self, request: Request, token: TokenRecord) -> Response:
        """``GET /api/sessions/{id}/events``: replay after ``Last-Event-ID`` (or ``?after=``),
        then live."""
        live = await self._live(token, request.path_params["id"], sync=True)
        last = request.headers.get("last-event-id") or request.query_params.get("after") or None

        async def frames() -> AsyncIterator[bytes]:
            stream = live.subscribe_batches(last)
            try:
                async for batch in stream:
                    yield b"".join(event.sse() for event in batch)  # one write
            finally:
                with contextlib.suppress(Exception):
                    await stream.aclose()

        return self._stream(frames())

    async def answer(self, request: Request, token: TokenRecord) -> Response:
        """``POST /api/sessions/{id}/questions/{qid}``: answer an approval or a menu."""
        body = await _body(request)
        live = await self._live(token, request.path_params["id"])
        qid = request.path_params["qid"]
        if "choice" in body:
            choice = body["choice"]
            if choice is not None and (not isinstance(choice, int) or isinstance(choice, bool)):
                raise ApiError(400, BAD_REQUEST,
                               _("'choice' must be an option's index or null"))
            await run_in_threadpool(lambda: live.choose(qid, choice, by=token.name))
            return Response(status_code=204)
        allow = body.get("allow")
        scope = body.get("scope", "once")
        reason = body.get("reason")
        if not isinstance(allow, bool):
            raise ApiError(400, BAD_REQUEST,
                           _("'allow' must be true or false (or send 'choice')"))
        if scope not in ("once", "session", "always"):
            raise ApiError(400, BAD_REQUEST, _("'scope' must be once, session or always"))
        if reason is not None and not isinstance(reason, str):
            raise ApiError(400, BAD_REQUEST, _("'reason' must be text"))
        await run_in_threadpool(lambda: live.answer(qid, allow=allow, scope=scope,
                                                    reason=reason, by=token.name))
        return Response(status_code=204)

    async def cancel(self, request: Request, token: TokenRecord) -> Response:
        """``POST /api/sessions/{id}/cancel``: stop the running turn (if any)."""
        sid = request.path_params["id"]
        await self._project(token, sid)
        live = self.hub.get(sid)
        if live is not None:
            await run_in_threadpool(live.cancel)
        return Response(status_code=204)

    async def commands(self, request: Request, token: TokenRecord) -> Response:
        """``GET /api/commands``: the slash commands a session can run."""
        found = await run_in_threadpool(self.host.slash_commands)
        return _json({"commands": [{"name": name, "description": command.help}
                                   for name, command in sorted(found.items())]})


def _log_failure(request: Request, err: BaseException) -> None:
    text = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    print(redact(f"chatcli serve: {request.method} {request.url.path} failed:\n{text}"),
          file=sys.stderr, flush=True)


# ---------------------------------------------------------------------- the page and the rest


async def openapi(request: Request) -> Response:
    """``GET /openapi.json``: the API's description (OpenAPI 3.1)."""
    return FileResponse(OPENAPI_PATH, media_type="application/json")


async def index(request: Request) -> Response:
    """``GET /``: the web page (it asks for the token itself; no token needed to load it)."""
    page = WEB_DIR / "index.html"
    if not page.is_file():
        raise HTTPException(404)
    return FileResponse(page, media_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-cache"})


async def words(request: Request) -> Response:
    """``GET /words.json``: the page's words in the server's language (``{english:
    translated}``, their language tag in ``Content-Language``); fixed UI words, no data, so no
    token is needed (the page asks it first)."""
    from chatcli_remote.web_words import page_language, web_words

    return Response(json.dumps(web_words(), ensure_ascii=False), media_type="application/json",
                    headers={"Cache-Control": "no-cache", "Content-Language": page_language()})


class SecurityHeaders:
    """``Content-Security-Policy: default-src 'self'`` and friends on every response."""

    HEADERS: tuple[tuple[bytes, bytes], ...] = (
        (b"content-security-policy", b"default-src 'self'"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"x-frame-options", b"DENY"))

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.HEADERS]}
            await send(message)

        await self.app(scope, receive, with_headers)


def _status_text(status: int) -> tuple[str, str]:
    """The error type (the protocol's) and the message of an HTTP ``status`` of its own."""
    if status == 404:
        return NOT_FOUND, _("no such page or route — see GET /openapi.json for the API")
    if status == 405:
        return "MethodNotAllowed", _("this route does not take that method — see GET "
                                     "/openapi.json")
    return "HTTPError", _("the request failed")


async def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    kind, message = _status_text(status)
    if isinstance(exc, ApiError):
        return exc.response()
    headers = dict(exc.headers or {}) if isinstance(exc, HTTPException) else {}
    return error_response(status, kind, message, {k: v for k, v in headers.items()
                                                  if k.lower() == "allow"})


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return exc.response()


async def _server_error(request: Request, exc: Exception) -> Response:
    _log_failure(request, exc)
    return error_response(500, INTERNAL_ERROR,
                          _("the server failed on this request — see its log"))


def _by_method(path: str, **endpoints: Callable[[Request], Awaitable[Response]]) -> Route:
    """One route for a path served by several methods (so a 405 lists them all in Allow)."""

    async def endpoint(request: Request) -> Response:
        return await endpoints[request.method if request.method != "HEAD" else "GET"](request)

    return Route(path, endpoint, methods=list(endpoints))


def routes(api: Api) -> list[BaseRoute]:
    """Every route of the server (``tests/remote`` keeps ``openapi.json`` equal to them)."""
    a = api.authed
    sid = "/api/sessions/{id}"
    return [
        Route("/", index, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/words.json", words, methods=["GET"]),
        Mount("/static", app=StaticFiles(directory=WEB_DIR, check_dir=False), name="static"),
        Route("/api/commands", a(api.commands), methods=["GET"]),
        _by_method("/api/sessions", GET=a(api.list_sessions), POST=a(api.create_session)),
        _by_method(sid, GET=a(api.get_session), DELETE=a(api.delete_session)),
        Route(sid + "/export", a(api.export_session), methods=["GET"]),
        Route(sid + "/messages", a(api.post_message), methods=["POST"]),
        Route(sid + "/commands", a(api.post_command), methods=["POST"]),
        Route(sid + "/events", a(api.events), methods=["GET"]),
        Route(sid + "/questions/{qid}", a(api.answer), methods=["POST"]),
        Route(sid + "/cancel", a(api.cancel), methods=["POST"]),
    ]


def build_app(hub: Any, catalog: Any, host: Any, tokens: TokenStore,
              limits: Limits | None = None) -> Starlette:
    """The application: the API over ``hub`` (live sessions) and ``catalog`` (saved ones)."""
    api = Api(hub=hub, catalog=catalog, host=host, tokens=tokens, limits=limits or Limits())
    app = Starlette(
        routes=routes(api),
        middleware=[Middleware(SecurityHeaders),
                    Middleware(BodyLimit, limit=api.limits.max_request_bytes)],
        exception_handlers={HTTPException: _http_error, ApiError: _api_error,
                            Exception: _server_error},
    )
    app.router.redirect_slashes = False  # a trailing "/" is no route: 404, not a redirect
    return app
