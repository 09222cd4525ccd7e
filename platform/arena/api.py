"""The JSON API on django-ninja: thin adapters over services and selectors.

Each endpoint's request and response schemas sit beside it; the OpenAPI document at
``/api/openapi.json`` is generated from them. Auth is ``Authorization: Token <key>`` (reads also
accept the browser's session). Every refusal is a 4xx with ``{"error": "...", "details": [...]}``
saying why; a 429 also carries ``Retry-After``. What a response contains comes from the
selectors (``match_as_dict``, ``match_log``, ``leaderboard``, ``submission_as_dict``), which
decide what each caller may see.
"""

from __future__ import annotations

import datetime
import json
from typing import Annotated, Any, Literal

from django.contrib.auth import authenticate
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from ninja import NinjaAPI, Path, Query, Schema, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.security import APIKeyHeader
from pydantic import AfterValidator, ConfigDict, Field, StringConstraints
from pydantic import ValidationError as PydanticValidationError

from arena.accounts.models import User
from arena.accounts.services import token_get_or_create, token_user
from arena.errors import NotFound, RateLimited, Refused
from arena.llm import selectors as llm_selectors
from arena.matches import selectors as match_selectors
from arena.middleware import bad_character
from arena.ratings.selectors import MAX_PER_PAGE, PER_PAGE, ladder_wait, leaderboard_page
from arena.submissions import selectors as submission_selectors
from arena.submissions.checks import UPLOAD_READ_LIMIT_BYTES
from arena.submissions.services import submission_deactivate
from arena.tournaments import selectors as tournament_selectors
from arena.tournaments.services import entry_create, entry_withdraw
from arena.workflows.llm import model_entrant_submit
from arena.workflows.matches import training_request
from arena.workflows.submissions import submission_activate, submission_upload
from games.core import UnknownGameError, available_game_ids, get_game_spec

# --- Shared types ---------------------------------------------------------------------------------

#: Database ids: positive and within a signed 64-bit column (bigger ones would overflow it).
MAX_ID = 2**63 - 1
Id = Annotated[int, Field(ge=1, le=MAX_ID)]


def _storable(text: str) -> str:
    found = bad_character(text)
    if found:
        raise ValueError(f"contains {found}, which cannot be stored; remove it")
    return text


#: Strings the database can store (no NUL, no lone surrogate), each with a length bound.
Storable = AfterValidator(_storable)
Username = Annotated[str, StringConstraints(max_length=150), Storable]
Password = Annotated[str, StringConstraints(max_length=4096), Storable]
AgentName = Annotated[str, StringConstraints(max_length=200), Storable]
#: The request cap bounds it; the upload checks then apply their rules (size, a NUL is "utf8").
Source = str
Opponent = Annotated[str, StringConstraints(max_length=200), Storable]


class Error(Schema):
    """Every refusal: what went wrong and what to do, with one detail per problem."""

    error: str
    details: list[dict[str, Any]] = []


ERRORS: dict[int, type[Error]] = {
    400: Error,
    401: Error,
    403: Error,
    404: Error,
    413: Error,
    429: Error,
}


def api_refusal(
    message: str,
    status: int,
    details: list[dict[str, Any]] | None = None,
    *,
    retry_after_s: int | None = None,
) -> JsonResponse:
    """A 4xx answer with a body saying why (and, for a 429, when to retry)."""
    response = JsonResponse({"error": message, "details": details or []}, status=status)
    if retry_after_s is not None:
        response["Retry-After"] = str(retry_after_s)
    return response


# --- Auth -----------------------------------------------------------------------------------------


class InvalidToken(Exception):
    """An ``Authorization`` header that names no active user's token."""


def _user_from_request(request: HttpRequest) -> User | None:
    """The token's user; on a GET without a header, the browser's session user; else None."""
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _, key = header.partition(" ")
        key = key.strip()
        if scheme.lower() != "token" or not key or len(key) > 128 or bad_character(key):
            raise InvalidToken
        user = token_user(key)
        if user is None:
            raise InvalidToken
        return user
    if request.method == "GET" and isinstance(request.user, User) and request.user.is_active:
        # Reads may use the browser's session (links from the pages); writes may not, since the
        # API is exempt from CSRF checks.
        return request.user
    return None


class TokenAuth(APIKeyHeader):
    """``Authorization: Token <key>``, the key from POST /api/token."""

    param_name = "Authorization"
    openapi_description = "`Token <key>`, the key from POST /api/token"

    def __call__(self, request: HttpRequest) -> User | None:
        return _user_from_request(request)

    def authenticate(self, request: HttpRequest, key: str | None) -> User | None:
        return _user_from_request(request)


class Anonymous:
    """Stands for a caller without credentials on the endpoints that allow one."""


ANONYMOUS = Anonymous()


def optional_auth(request: HttpRequest) -> User | Anonymous:
    """A token if one is sent (a wrong one is refused), else the anonymous caller."""
    return _user_from_request(request) or ANONYMOUS


def caller(request: HttpRequest) -> User | None:
    """The authenticated user of this request, or None for an anonymous caller."""
    auth = getattr(request, "auth", None)
    return auth if isinstance(auth, User) else None


def user_of(request: HttpRequest) -> User:
    """The authenticated user of an endpoint that requires one."""
    user = caller(request)
    if user is None:
        raise AuthenticationError()
    return user


api = NinjaAPI(
    title="Agent Arena API",
    version="1",
    description=__doc__ or "",
    auth=TokenAuth(),
    urls_namespace="api",
    openapi_url="/openapi.json",
    docs_url=None,
)
api.add_router("", "arena.llm.api.router")


@api.exception_handler(Refused)
def _refused(request: HttpRequest, exc: Refused) -> HttpResponse:
    retry = exc.retry_after_s if isinstance(exc, RateLimited) else None
    return api_refusal(exc.message, exc.status, exc.details, retry_after_s=retry)


@api.exception_handler(InvalidToken)
def _invalid_token(request: HttpRequest, exc: InvalidToken) -> HttpResponse:
    return api_refusal(
        "invalid token: use the header `Authorization: Token <key>` "
        "with a key from POST /api/token",
        401,
    )


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return api_refusal(
        "authentication required: send `Authorization: Token <key>` (get one from POST /api/token)",
        401,
    )


def _validation_details(errors: list[dict[str, Any]] | list[Any]) -> list[dict[str, Any]]:
    details = []
    for error in errors:
        loc = [str(part) for part in error.get("loc", ()) if part not in ("body", "payload")]
        field = ".".join(loc) or "body"
        details.append(
            {"rule": "schema", "field": field, "line": None, "message": f"{field}: {error['msg']}"}
        )
    return details


def _schema_refusal(errors: list[dict[str, Any]] | list[Any]) -> HttpResponse:
    details = _validation_details(errors)
    summary = "; ".join(d["message"] for d in details[:3])
    return api_refusal(
        f"the request does not match the API's schema ({summary}); see /api/openapi.json",
        400,
        details,
    )


@api.exception_handler(ValidationError)
def _invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    return _schema_refusal(exc.errors)


@api.exception_handler(PydanticValidationError)
def _invalid_body(request: HttpRequest, exc: PydanticValidationError) -> HttpResponse:
    return _schema_refusal(list(exc.errors(include_url=False)))


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    message = str(exc)
    if exc.status_code == 400 and message.startswith("Cannot parse request body"):
        message = (
            "the body is not valid JSON: send a JSON object with the header "
            "`Content-Type: application/json`"
        )
    return api_refusal(message, exc.status_code)


# --- Endpoints ------------------------------------------------------------------------------------


class TokenIn(Schema):
    username: Username
    password: Password


class TokenOut(Schema):
    token: str


@api.post("/token", auth=None, response={200: TokenOut, **ERRORS}, summary="Get your API token")
def token(request: HttpRequest, body: TokenIn) -> Any:
    """Exchange a username and password for the API token (failed attempts are throttled)."""
    try:
        user = authenticate(request, username=body.username, password=body.password)
    except PermissionDenied:
        # django-axes: this address is locked out after too many failures.
        from arena.throttles import login_lockout_response

        return login_lockout_response(request, None)
    if user is None:
        return api_refusal("wrong username or password (or the account is disabled)", 401)
    return {"token": token_get_or_create(user=user).key}


class MeOut(Schema):
    username: str


@api.get("/me", response={200: MeOut, **ERRORS}, summary="Who the token belongs to")
def me(request: HttpRequest) -> Any:
    """The account the token acts for (``arena login`` checks a token with it)."""
    return {"username": user_of(request).get_username()}


class GameOut(Schema):
    id: str
    title: str
    version: str | int
    house_bots: list[str]


@api.get("/games", auth=None, response={200: list[GameOut], **ERRORS}, summary="The games")
def games(request: HttpRequest) -> Any:
    """Every game on this platform, with its version and house bots."""
    items = []
    for game_id in available_game_ids():
        spec = get_game_spec(game_id)
        items.append(
            {
                "id": game_id,
                "title": spec.title,
                "version": spec.version,
                "house_bots": sorted(spec.bots),
            }
        )
    return items


class SubmissionJsonIn(Schema):
    """The agent's text as JSON."""

    source: Source
    name: AgentName | None = None


class SubmissionFormIn(Schema):
    """The multipart form's fields besides ``file``."""

    name: AgentName | None = None


class LadderWaitOut(Schema):
    state: Literal[
        "inactive",
        "playing",
        "queued",
        "next-pass",
        "rematch-cooldown",
        "opponents-busy",
        "no-opponent",
    ]
    text: str
    match: int | None
    until: str | None


class SubmissionOut(Schema):
    model_config = ConfigDict(extra="allow")

    id: int
    agent: str
    agent_id: int
    game: str
    version: int
    status: Literal["pending", "accepted", "rejected"]
    detail: str
    active: bool
    sha256: str
    errors: list[Any]
    validation_match: int | None
    #: Why it is (not) playing a ranked match now (GET /submissions/{id} only).
    ladder: LadderWaitOut | None = None


_UPLOAD_BODY = {
    "required": True,
    "content": {
        "application/json": {"schema": SubmissionJsonIn.model_json_schema()},
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["file"],
                "properties": {
                    "file": {"type": "string", "format": "binary"},
                    "name": {"type": "string", "maxLength": 200},
                },
            }
        },
    },
}


@api.post(
    "/submissions",
    response={201: SubmissionOut, **ERRORS},
    openapi_extra={"requestBody": _UPLOAD_BODY},
    summary="Upload an agent",
)
def submissions(request: HttpRequest) -> Any:
    """Multipart ``file`` (+ ``name``) or JSON ``{source, name}``; validated in self-play."""
    owner = user_of(request)
    if request.content_type == "application/json":
        try:
            raw = json.loads(request.body or b"null")
        except (ValueError, UnicodeDecodeError):
            raise HttpError(400, "Cannot parse request body") from None
        if not isinstance(raw, dict):
            raise Refused('send a JSON object {"source": "<the agent\'s text>", "name": "..."}')
        body = SubmissionJsonIn.model_validate(raw)
        submission = submission_upload(owner=owner, source=body.source, name=body.name)
    else:
        upload = request.FILES.get("file")
        if upload is None:
            raise Refused(
                'send the agent as a multipart field `file` (or JSON {"source": "..."}) '
                "with a Content-Type of multipart/form-data or application/json"
            )
        form = SubmissionFormIn.model_validate({"name": request.POST.get("name")})
        submission = submission_upload(
            owner=owner,
            data=upload.read(UPLOAD_READ_LIMIT_BYTES),
            name=form.name,
            filename=upload.name,
            size=upload.size,  # the real size, for the size error
        )
    return Status(201, submission_selectors.submission_as_dict(submission))


SubmissionId = Annotated[int, Path(ge=1, le=MAX_ID)]


@api.get(
    "/submissions/{submission_id}",
    response={200: SubmissionOut, **ERRORS},
    summary="One of your submissions",
)
def submission_detail(request: HttpRequest, submission_id: SubmissionId) -> Any:
    """Owner only: it carries the validation's verdict."""
    submission = submission_selectors.submission_get_owned(
        submission_id=submission_id, user=user_of(request)
    )
    return {
        **submission_selectors.submission_as_dict(submission),
        "ladder": ladder_wait(submission=submission).as_dict(),
    }


@api.post(
    "/submissions/{submission_id}/activate",
    response={200: SubmissionOut, **ERRORS},
    summary="Put a submission on its ladder",
)
def submission_activate_view(request: HttpRequest, submission_id: SubmissionId) -> Any:
    """Ranked matches start within a minute; at most ``ARENA_ACTIVE_PER_GAME`` per game."""
    submission = submission_selectors.submission_get(submission_id=submission_id)
    submission = submission_activate(submission=submission, user=user_of(request))
    return submission_selectors.submission_as_dict(submission)


@api.post(
    "/submissions/{submission_id}/deactivate",
    response={200: SubmissionOut, **ERRORS},
    summary="Take a submission off its ladder",
)
def submission_deactivate_view(request: HttpRequest, submission_id: SubmissionId) -> Any:
    """Its rating and history stay."""
    submission = submission_selectors.submission_get(submission_id=submission_id)
    submission = submission_deactivate(submission=submission, user=user_of(request))
    return submission_selectors.submission_as_dict(submission)


class TrainingIn(Schema):
    submission: Id
    #: ``house:<bot>`` or the id of another of your accepted submissions of the same game.
    opponent: Opponent | Id
    timed: bool = True


class TrainingOut(Schema):
    match: int
    status: str


@api.post("/training", response={201: TrainingOut, **ERRORS}, summary="Start a training match")
def training(request: HttpRequest, body: TrainingIn) -> Any:
    """An unrated match against a house bot or your own submission (throttled per hour)."""
    match = training_request(
        user=user_of(request),
        submission_id=body.submission,
        opponent=str(body.opponent),
        timed=body.timed,
    )
    return Status(201, {"match": match.pk, "status": match.status})


class LanguageModelOut(Schema):
    name: str
    display_name: str
    model_id: str
    max_tokens_cap: int
    price_input_per_mtok_usd: float
    price_output_per_mtok_usd: float


@api.get(
    "/models",
    auth=None,
    response={200: list[LanguageModelOut], **ERRORS},
    summary="The language models you may enter",
)
def language_models(request: HttpRequest) -> Any:
    """Enabled models (the operator's registry; keys never leave the workers' environment)."""
    return [
        {
            "name": m.name,
            "display_name": m.display_name,
            "model_id": m.model_id,
            "max_tokens_cap": m.max_tokens_cap,
            "price_input_per_mtok_usd": float(m.price_input_per_mtok_usd),
            "price_output_per_mtok_usd": float(m.price_output_per_mtok_usd),
        }
        for m in llm_selectors.models_enabled()
    ]


class ModelEntrantIn(Schema):
    model: Annotated[str, StringConstraints(max_length=64), Storable]
    game: Annotated[str, StringConstraints(max_length=64), Storable]
    name: AgentName
    system_prompt_addition: Annotated[str, StringConstraints(max_length=20_000), Storable] = ""
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: Annotated[int, Field(ge=1, le=1_000_000)] | None = None
    json_output: bool = True


@api.post(
    "/model-entrants",
    response={201: SubmissionOut, **ERRORS},
    summary="Enter a language model (a new version, validated in self-play)",
)
def model_entrant_create_view(request: HttpRequest, body: ModelEntrantIn) -> Any:
    """A registered model + game + your settings; changing anything makes a new version."""
    fields = body.model_dump()
    submission = model_entrant_submit(
        owner=user_of(request), model_name=fields.pop("model"), **fields
    )
    return Status(201, submission_selectors.submission_as_dict(submission))


class ParticipantOut(Schema):
    model_config = ConfigDict(extra="allow")

    seat: int
    submission: int | None = None
    agent_id: int | None = None
    agent: str | None = None
    owner: str | None = None
    outcome: Literal["win", "loss", "draw"] | None = None
    reason: str | None = None
    #: Why the seat's match ended as it did; others than the owner read a neutral sentence.
    detail: str | None = None
    score: float | None = None
    rating_before: float | None = None
    rating_after: float | None = None


class MatchOut(Schema):
    model_config = ConfigDict(extra="allow")

    id: int
    status: Literal["queued", "running", "finished", "error"]
    #: ``validation``, ``training``, ``ranked``, ``challenge``, ``tournament`` (and kinds added
    #: later).
    kind: str
    game: str
    game_version: int | None = None
    timed: bool | None = None
    seed: int | None = None
    summary: str | None = None
    duration_s: float | None = None
    error: str | None = None
    #: Staff only: the platform failure's exception and traceback.
    error_trace: str | None = None
    winner_seat: int | None = None
    participants: list[ParticipantOut]
    rounds: Any = None
    stats: Any = None


MatchId = Annotated[int, Path(ge=1, le=MAX_ID)]


@api.get(
    "/matches/{match_id}",
    auth=optional_auth,
    response={200: MatchOut, **ERRORS},
    exclude_unset=True,
    summary="A match",
)
def match_detail(request: HttpRequest, match_id: MatchId) -> Any:
    """Ranked matches are public, others owner-only; others see each seat's public view."""
    match = match_selectors.match_get_visible(match_id=match_id, user=caller(request))
    return match_selectors.match_as_dict(match, caller(request))


@api.get(
    "/matches/{match_id}/log",
    auth=optional_auth,
    response={**ERRORS},
    openapi_extra={
        "responses": {
            "200": {
                "description": "one JSON object a line, one line per call to an agent",
                "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
            }
        }
    },
    summary="A match's per-call log",
)
def match_log(request: HttpRequest, match_id: MatchId) -> HttpResponse:
    """JSON lines; prints and errors only for the caller's own seats."""
    user = caller(request)
    match = match_selectors.match_get_visible(match_id=match_id, user=user)
    lines = "".join(json.dumps(e) + "\n" for e in match_selectors.match_log(match, user))
    return HttpResponse(lines, content_type="application/x-ndjson")


class LadderFigureOut(Schema):
    key: str
    label: str
    description: str


class LeaderboardRow(Schema):
    model_config = ConfigDict(extra="allow")

    rank: int
    agent: str
    agent_id: int
    submission: int
    owner: str
    #: "model" for a language-model entrant (``model`` names it), else "code".
    kind: Literal["code", "model"] = "code"
    model: str | None = None
    rating: float
    games: int
    wins: int
    losses: int
    draws: int
    provisional: bool
    active: bool
    #: The game's own figures by key (``figures`` of the page says what each is), e.g. poker's
    #: ``bb_per_100``; empty for a game that declares none.
    figures: dict[str, float | None]
    mean_payoff: float | None
    #: Half-width of the 95 % interval of the mean payoff.
    payoff_interval: float | None
    #: False on a mean-payoff ladder while the entry has fewer than ``min_matches``.
    ranked: bool


class LeaderboardPage(Schema):
    game: str
    version: int
    #: The measure that orders the ladder (``Game.ranking``).
    ranking: Literal["elo", "mean_payoff"]
    measure: str
    min_matches: int | None
    page: int
    pages: int
    per_page: int
    total: int
    search: str
    #: The game's own ladder figures: ``key``, ``label``, ``description``.
    figures: list[LadderFigureOut]
    #: The ``kind`` filter applied: "" (all), "code" or "model".
    kind: str = ""
    rows: list[LeaderboardRow]


@api.get(
    "/leaderboard/{game}",
    auth=None,
    response={200: LeaderboardPage, **ERRORS},
    summary="One page of a game's ladder and the measure that ranks it",
)
def leaderboard_view(
    request: HttpRequest,
    game: Annotated[str, Path(max_length=100)],
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
    per_page: Annotated[int, Query(ge=1, le=MAX_PER_PAGE)] = PER_PAGE,
    q: Annotated[str, Query(max_length=64, description="agent name or owner contains")] = "",
    kind: Annotated[
        Literal["", "code", "model"], Query(description="only uploaded code, or only models")
    ] = "",
) -> Any:
    """Best first; rows keep their rank on the whole ladder when searching."""
    try:
        get_game_spec(game)
    except UnknownGameError as exc:
        raise NotFound(str(exc)) from None
    return leaderboard_page(game=game, page=page, per_page=per_page, search=q, kind=kind).as_dict()


# --- Challenges, history, head-to-head, notifications (README "Challenges", "History") --------


class ChallengeIn(Schema):
    #: One of your accepted submissions.
    submission: Id
    #: The agent challenged (someone else's, same game).
    agent: Id


class ChallengeOut(Schema):
    match: int
    status: str
    #: False when it waits for one of your challenges in flight to end.
    sent: bool


@api.post("/challenges", response={201: ChallengeOut, **ERRORS}, summary="Challenge an agent")
def challenge_view(request: HttpRequest, body: ChallengeIn) -> Any:
    """An unrated match of your submission against another user's agent (the version it plays:
    its active one, else its newest accepted one). Throttled per hour (429 + Retry-After)."""
    from arena.workflows.competitions import challenge_request

    match = challenge_request(
        user=user_of(request), submission_id=body.submission, agent_id=body.agent
    )
    match.refresh_from_db(fields=["status", "enqueued"])
    return Status(
        201, {"match": match.pk, "status": match.status, "sent": match.enqueued is not None}
    )


class ChallengeSettingsIn(Schema):
    accepts: bool = True
    min_rating: Annotated[float, Field(ge=-10_000, le=10_000)] | None = None


class ChallengeSettingsOut(Schema):
    agent: int
    accepts: bool
    min_rating: float | None


AgentId = Annotated[int, Path(ge=1, le=MAX_ID)]


@api.put(
    "/agents/{agent_id}/challenge-settings",
    response={200: ChallengeSettingsOut, **ERRORS},
    summary="Whether your agent accepts challenges",
)
def challenge_settings_view(
    request: HttpRequest, agent_id: AgentId, body: ChallengeSettingsIn
) -> Any:
    """Owner only: opt out of challenges, or accept them only from agents rated at least
    ``min_rating``."""
    from arena.competitions.services import challenge_policy_set

    agent = submission_selectors.agent_get(agent_id=agent_id)
    policy = challenge_policy_set(
        agent=agent, user=user_of(request), accepts=body.accepts, min_rating=body.min_rating
    )
    return {"agent": agent.pk, "accepts": policy.accepts, "min_rating": policy.min_rating}


class HistoryOpponent(Schema):
    seat: int
    agent_id: int
    agent: str
    owner: str
    version: int
    submission: int
    outcome: str | None
    reason: str | None
    score: float | None
    rating_before: float | None
    rating_after: float | None


class HistoryRow(Schema):
    model_config = ConfigDict(extra="allow")

    match: int
    kind: str
    status: str
    game: str
    created: str
    finished: str | None
    seat: int
    version: int
    submission: int
    outcome: str | None
    reason: str | None
    score: float | None
    rating_before: float | None
    rating_after: float | None
    opponents: list[HistoryOpponent]
    #: Why the match ended as it did for this seat: only when the agent is yours.
    detail: str | None = None


class HistoryPageOut(Schema):
    agent: int
    matches: list[HistoryRow]
    #: Pass as ``before`` for the next (older) page; null on the last page.
    next_before: int | None


@api.get(
    "/matches",
    auth=optional_auth,
    response={200: HistoryPageOut, **ERRORS},
    exclude_unset=True,
    summary="An agent's matches, newest first (cursor pagination)",
)
def matches_list(
    request: HttpRequest,
    agent: Annotated[int, Query(ge=1, le=MAX_ID, description="the agent whose matches")],
    opponent: Annotated[int | None, Query(ge=1, le=MAX_ID, description="agent id")] = None,
    kind: Annotated[str, Query(max_length=32)] = "",
    result: Annotated[str, Query(max_length=8, description="win, loss or draw")] = "",
    since: Annotated[datetime.date | None, Query(description="YYYY-MM-DD")] = None,
    until: Annotated[datetime.date | None, Query(description="YYYY-MM-DD, inclusive")] = None,
    before: Annotated[int | None, Query(ge=1, le=MAX_ID, description="a match id")] = None,
    per_page: Annotated[int, Query(ge=1, le=100)] = 25,
) -> Any:
    """The matches of ``agent`` you may see (others' training is private; challenges show to
    the owners of their agents), with public facts about the other seats."""
    from arena.competitions.selectors import HistoryFilters, history_page

    the_agent = submission_selectors.agent_get(agent_id=agent)
    page = history_page(
        agent=the_agent,
        viewer=caller(request),
        filters=HistoryFilters(
            kind=kind,
            opponent=opponent,
            result=result,
            since=since,
            until=until,
            before=before,
            limit=per_page,
        ),
    )
    return {"agent": the_agent.pk, "matches": page.rows, "next_before": page.next_before}


class HeadToHeadRow(Schema):
    opponent_id: int
    opponent: str
    owner: str
    played: int
    wins: int
    draws: int
    losses: int
    #: This agent's mean payoff (score) per match against that opponent, and the opponent's.
    mean_payoff: float | None
    opponent_mean_payoff: float | None
    last_match: int
    last_met: str | None


class HeadToHeadOut(Schema):
    agent: int
    game: str
    rows: list[HeadToHeadRow]


@api.get(
    "/agents/{agent_id}/head-to-head",
    auth=optional_auth,
    response={200: HeadToHeadOut, **ERRORS},
    summary="An agent's record against each opponent",
)
def head_to_head_view(request: HttpRequest, agent_id: AgentId) -> Any:
    """Per opponent: played, wins, draws, losses, mean payoffs, last met (most played first);
    public matches only, unless the agent is yours."""
    from arena.competitions.selectors import head_to_head

    the_agent = submission_selectors.agent_get(agent_id=agent_id)
    return {
        "agent": the_agent.pk,
        "game": the_agent.game,
        "rows": head_to_head(agent=the_agent, viewer=caller(request)),
    }


class NotificationOut(Schema):
    id: int
    kind: str
    subject: str
    body: str
    url: str
    created: str
    read: bool


class NotificationsOut(Schema):
    unread: int
    notifications: list[NotificationOut]
    next_before: int | None


@api.get("/notifications", response={200: NotificationsOut, **ERRORS}, summary="Your inbox")
def notifications_view(
    request: HttpRequest,
    before: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
) -> Any:
    """Your notifications, newest first, 50 a page (``before``: the last id of a page)."""
    from arena.notifications.selectors import INBOX_PER_PAGE, inbox, unread_count

    user = user_of(request)
    rows = list(inbox(user=user, before=before))
    return {
        "unread": unread_count(user=user),
        "notifications": [
            {
                "id": n.pk,
                "kind": n.kind,
                "subject": n.subject,
                "body": n.body,
                "url": n.url,
                "created": n.created.isoformat(),
                "read": n.read is not None,
            }
            for n in rows
        ],
        "next_before": rows[-1].pk if len(rows) == INBOX_PER_PAGE else None,
    }


class ReadIn(Schema):
    #: The notifications to mark read; all of them when absent.
    ids: list[Id] | None = None


class ReadOut(Schema):
    marked: int


@api.post("/notifications/read", response={200: ReadOut, **ERRORS}, summary="Mark read")
def notifications_read_view(request: HttpRequest, body: ReadIn) -> Any:
    """Mark your notifications read (the ones listed, or all)."""
    from arena.notifications.services import notifications_mark_read

    return {"marked": notifications_mark_read(user=user_of(request), ids=body.ids)}


# --- Tournaments (docs/tournaments.md) ------------------------------------------------------------


class StandingOut(Schema):
    rank: int
    entry: int
    agent_id: int
    agent: str
    owner: str
    submission: int | None
    score: float
    #: The 95 % interval of the score (see docs/tournaments.md).
    score_low: float
    score_high: float
    games: int
    wins: int
    draws: int
    losses: int
    byes: int
    buchholz: float
    sonneborn_berger: float


class TournamentOut(Schema):
    model_config = ConfigDict(extra="allow")

    id: int
    name: str
    edition: int
    game: str
    status: Literal["upcoming", "running", "paused", "finished", "published", "cancelled"]
    format: str
    games_per_pairing: int
    duplicate_seats: bool
    timed: bool
    #: The time control when ``timed`` (seconds): a code seat's budget a turn and a model
    #: seat's a move, the platform's where the tournament chose none.
    turn_budget_s: float
    model_move_budget_s: float
    entry_opens: datetime.datetime
    entry_closes: datetime.datetime
    freeze_at: datetime.datetime
    publish_at: datetime.datetime
    entrants: int
    #: Whether this caller sees standings, crosstable and games (everyone once published;
    #: before, staff and the entrants' owners).
    results_visible: bool
    rerun_of: int | None = None
    played_format: str | None = None
    rounds: int | None = None
    published: datetime.datetime | None = None
    #: The rest only when ``results_visible``.
    progress: dict[str, int] | None = None
    standings: list[StandingOut] | None = None
    #: Per entry (standings order): points scored against each opponent's entry id.
    crosstable: list[dict[str, Any]] | None = None
    #: Every game: round, board, seats (entry ids), status, points, its match and replay.
    games: list[dict[str, Any]] | None = None
    byes: list[dict[str, int]] | None = None
    dropped: list[dict[str, Any]] | None = None


TournamentId = Annotated[int, Path(ge=1, le=MAX_ID)]


@api.get(
    "/tournaments",
    auth=optional_auth,
    response={200: list[TournamentOut], **ERRORS},
    exclude_unset=True,
    summary="The tournaments, newest first",
)
def tournaments(request: HttpRequest) -> Any:
    """Settings, schedule and status of each (the latest 200); results are on each one's own
    endpoint."""
    user = caller(request)
    rows = tournament_selectors.tournaments_list()[:200]
    results = {"progress", "standings", "crosstable", "games", "byes", "dropped"}
    return [
        {
            k: v
            for k, v in tournament_selectors.tournament_as_dict(t, user, results=False).items()
            if k not in results
        }
        for t in rows
    ]


@api.get(
    "/tournaments/{tournament_id}",
    auth=optional_auth,
    response={200: TournamentOut, **ERRORS},
    exclude_unset=True,
    summary="A tournament: standings, crosstable and games once published",
)
def tournament_detail(request: HttpRequest, tournament_id: TournamentId) -> Any:
    """Standings carry score, a 95 % interval (``score_low``..``score_high``), Buchholz and
    Sonneborn-Berger; each game links its replay."""
    tournament = tournament_selectors.tournament_get(tournament_id=tournament_id)
    return tournament_selectors.tournament_as_dict(tournament, caller(request))


class EntryIn(Schema):
    agent: Id


class EntryOut(Schema):
    tournament: int
    entry: int
    agent: int


@api.post(
    "/tournaments/{tournament_id}/entry",
    response={201: EntryOut, **ERRORS},
    summary="Enter one of your agents",
)
def tournament_enter(request: HttpRequest, tournament_id: TournamentId, body: EntryIn) -> Any:
    """One entry per user (entering again replaces the agent) while entries are open; the
    agent's latest accepted version at the freeze is the one that plays."""
    entry = entry_create(user=user_of(request), tournament_id=tournament_id, agent_id=body.agent)
    return Status(201, {"tournament": tournament_id, "entry": entry.pk, "agent": entry.agent_id})


@api.delete(
    "/tournaments/{tournament_id}/entry",
    response={204: None, **ERRORS},
    summary="Withdraw your entry",
)
def tournament_withdraw(request: HttpRequest, tournament_id: TournamentId) -> Any:
    """Only while entries are open."""
    entry_withdraw(user=user_of(request), tournament_id=tournament_id)
    return Status(204, None)


def not_found(request: HttpRequest) -> HttpResponse:
    """Any /api/ path no endpoint answers."""
    return api_refusal(
        f"no API endpoint at {request.path}: see /api/openapi.json for the endpoints", 404
    )
