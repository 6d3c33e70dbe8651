"""The REST world's HTTP edge: JSON bodies for every answer, also for requests aiohttp refuses before a handler runs.

aiohttp answers a request it cannot parse (a request line over 8,190 bytes, a malformed header) from its
protocol, in ``text/plain``, and logs the client's mistake as a full traceback. ``JsonErrorServer`` is aiohttp's
low-level server with a protocol that answers those in JSON instead, with the status RFC 9112 and RFC 6585 name
(414 for a request line too long, 431 for a header field too long, 400 otherwise), and logs one debug line: a
client's error is not the server's. Server errors (5xx) keep aiohttp's handling, traceback included.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError, LineTooLong

REQUEST_LINE_LIMIT = 8190  # aiohttp's default, RFC 9112's "at least 8000 octets"
HEADER_FIELD_LIMIT = 8192  # one more than any request line: LineTooLong carries only the limit it broke
_PROTOCOL_OPTIONS: Mapping[str, Any] = MappingProxyType(
    {"access_log": None, "max_line_size": REQUEST_LINE_LIMIT, "max_field_size": HEADER_FIELD_LIMIT}
)
_LOG = logging.getLogger(__name__)


def json_response(body: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    return web.Response(text=json.dumps(body), status=status, content_type="application/json", headers=headers)


def error_response(
    message: str,
    code: str,
    status: str,
    http_status: int,
    parameter: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> web.Response:
    """The one error shape (the OpenAPI document's ``Error``): what is wrong, a code, the ToolResult status."""
    body = {"error": message, "code": code, "status": status, "parameter": parameter}
    return json_response(body, http_status, headers)


def parse_error_response(error: HttpProcessingError) -> web.Response:
    """The answer to a request aiohttp could not parse."""
    if isinstance(error, LineTooLong):
        if error.args[1:2] == (REQUEST_LINE_LIMIT,):
            message = f"The request line is longer than {REQUEST_LINE_LIMIT} bytes."
            return error_response(message, "uri_too_long", "invalid_arguments", 414)
        message = f"A request header field is longer than {HEADER_FIELD_LIMIT} bytes."
        return error_response(message, "header_too_large", "invalid_arguments", 431)
    return error_response(f"Malformed HTTP request: {error.message}", "bad_request", "invalid_arguments", 400)


class _JsonErrorProtocol(web.RequestHandler):
    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if status >= 500 or not isinstance(exc, HttpProcessingError) or request.writer.output_size > 0:
            return super().handle_error(request, status, exc, message)
        _LOG.debug("refused a malformed request from %s: %s", request.remote, exc)
        response = parse_error_response(exc)
        response.force_close()  # what follows an unparsable request cannot be trusted to be a request
        return response


class JsonErrorServer(web.Server):
    """``web.Server`` whose connections answer unparsable requests in JSON (see the module docstring)."""

    def __call__(self) -> web.RequestHandler:
        return _JsonErrorProtocol(self, loop=asyncio.get_running_loop(), **_PROTOCOL_OPTIONS)
