"""Refuse bad input before any view or database sees it (no bad input ever gets a 500).

* A body larger than ``ARENA_REQUEST_MAX_BYTES`` (by its Content-Length) is refused with 413
  before a byte of it is read, so a 200 MB multipart upload is never spooled to disk.
* A JSON body nested deeper than ``ARENA_JSON_MAX_DEPTH`` is refused with 400 before anything
  parses it.
* An integer id in the URL beyond the database's 64-bit range answers 404.
* A NUL character (which PostgreSQL text columns refuse) or a lone UTF-16 surrogate (which no
  database can store as UTF-8) in the path, the query string, a cookie, a header or a form field
  is refused with 400. JSON bodies are checked by the API's schemas (``arena.api``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError

#: Characters no text column takes: NUL (PostgreSQL) and the UTF-16 surrogates (not UTF-8).
BAD_CHARACTERS = re.compile("[\x00\ud800-\udfff]")


def bad_character(text: str) -> str | None:
    """A description of the first character in ``text`` the database refuses, or None."""
    found = BAD_CHARACTERS.search(text)
    if found is None:
        return None
    if found.group() == "\x00":
        return "a NUL character (\\x00)"
    return f"a lone surrogate (\\u{ord(found.group()):04x})"


FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")

#: A JSON string literal (escapes included), so brackets inside strings are not counted.
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_JSON_BRACKET = re.compile(rb"[\[\]{}]")


def json_depth(body: bytes, limit: int) -> int:
    """How deep ``body``'s arrays and objects nest, counting no further than ``limit + 1``.

    Linear and iterative: it runs before ``json.loads``, whose recursion a deeply nested body
    would exhaust (RecursionError).
    """
    depth = deepest = 0
    for bracket in _JSON_BRACKET.finditer(_JSON_STRING.sub(b'""', body)):
        if bracket.group() in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                break
        else:
            depth -= 1
    return deepest


def input_refusal(request: HttpRequest, message: str, status: int) -> HttpResponse:
    """The API's error shape under /api/, plain text elsewhere."""
    if request.path_info.startswith("/api/"):
        return JsonResponse({"error": message, "details": []}, status=status)
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


class RequestGuardMiddleware:
    """Size cap and character check, before sessions, CSRF or any view read the request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.ARENA_REQUEST_MAX_BYTES
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return input_refusal(request, "the Content-Length header is not a number", 400)
        if length > limit:
            return input_refusal(
                request,
                f"the request body is {length:,} bytes; the limit is {limit:,} bytes. "
                f"Agents may be at most {settings.ARENA_UPLOAD_MAX_BYTES:,} bytes: upload the "
                "source file alone.",
                413,
            )
        if length and request.content_type not in FORM_TYPES:
            # JSON, or anything a JSON endpoint might parse as JSON whatever its Content-Type.
            depth = json_depth(request.body, settings.ARENA_JSON_MAX_DEPTH)
            if depth > settings.ARENA_JSON_MAX_DEPTH:
                return input_refusal(
                    request,
                    f"the JSON body nests more than {settings.ARENA_JSON_MAX_DEPTH} levels deep; "
                    "send a flatter document",
                    400,
                )
        problem = self._bad_input(request)
        if problem:
            return input_refusal(request, problem, 400)
        response = self.get_response(request)
        if (
            response.status_code == 405
            and request.path_info.startswith("/api/")
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            # django-ninja's own 405 is the plain text "Method not allowed".
            allowed = response.get("Allow", "")
            refusal = input_refusal(
                request,
                f"{request.method} is not allowed on {request.path}: it answers {allowed} "
                "(see /api/openapi.json)",
                405,
            )
            refusal["Allow"] = allowed
            return refusal
        return response

    def process_view(
        self,
        request: HttpRequest,
        view: Callable[..., HttpResponse],
        args: tuple[object, ...],
        kwargs: dict[str, object],
    ) -> HttpResponse | None:
        """An id in the URL beyond the database's 64-bit range names nothing: 404, not an
        overflow in the query."""
        for value in [*args, *kwargs.values()]:
            if isinstance(value, int) and not -(2**63) <= value < 2**63:
                return input_refusal(request, f"no such object: {value} is not a valid id", 404)
        return None

    def _bad_input(self, request: HttpRequest) -> str | None:
        places: list[tuple[str, Iterable[str]]] = [
            ("the URL path", [request.path]),
            ("the query string", _items(request.GET.lists())),
            ("a cookie", _items((k, [v]) for k, v in request.COOKIES.items())),
            ("a header", [v for v in request.META.values() if isinstance(v, str)]),
        ]
        if request.method == "POST" and request.content_type in FORM_TYPES:
            # Read the (capped) body first: the form is then parsed from memory, and a view
            # that reads the body itself (the API) still can.
            _ = request.body
            try:
                fields = list(_items(request.POST.lists()))
            except (MultiPartParserError, SuspiciousOperation) as exc:
                return f"the form body cannot be parsed ({exc}); send a well-formed form"
            places.append(("a form field", fields))
        for where, texts in places:
            for text in texts:
                found = bad_character(text)
                if found:
                    return (
                        f"{where} contains {found}, which cannot be stored; "
                        "remove it and send the request again"
                    )
        return None


def _items(pairs: Iterable[tuple[str, list[str]]]) -> Iterable[str]:
    for key, values in pairs:
        yield key
        yield from (v for v in values if isinstance(v, str))
