"""The OpenAPI 3.1 description of the JSON API, served at ``/api/openapi.json``."""

from __future__ import annotations

from typing import Any


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_ERRORS = {
    "400": _json(_ref("Error"), "refused: the body says which rule or line"),
    "401": _json(_ref("Error"), "no or invalid token"),
    "403": _json(_ref("Error"), "someone else's agent"),
    "404": _json(_ref("Error"), "no such object"),
}
_ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Agent Arena API", "version": "1"},
    "components": {
        "securitySchemes": {
            "token": {
                "type": "apiKey",
                "in": "header",
                "name": "Authorization",
                "description": "`Token <key>`, the key from POST /api/token",
            }
        },
        "schemas": {
            "Error": {
                "type": "object",
                "required": ["error"],
                "properties": {
                    "error": {"type": "string"},
                    "details": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "rule": {"type": "string"},
                                "line": {"type": ["integer", "null"]},
                                "message": {"type": "string"},
                            },
                        },
                    },
                },
            },
            "Submission": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "agent": {"type": "string"},
                    "game": {"type": "string"},
                    "version": {"type": "integer"},
                    "status": {"enum": ["pending", "accepted", "rejected"]},
                    "detail": {"type": "string"},
                    "active": {"type": "boolean"},
                    "errors": {"type": "array"},
                    "validation_match": {"type": ["integer", "null"]},
                },
            },
            "Match": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "game": {"type": "string"},
                    "kind": {"enum": ["validation", "training", "ranked"]},
                    "status": {"enum": ["queued", "running", "finished", "error"]},
                    "participants": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "seat": {"type": "integer"},
                                "agent": {"type": "string"},
                                "outcome": {"enum": ["win", "loss", "draw", None]},
                                "reason": {
                                    "enum": [
                                        "normal",
                                        "timeout",
                                        "illegal",
                                        "crash",
                                        "init_error",
                                        None,
                                    ]
                                },
                                "score": {"type": ["number", "null"]},
                                "rating_before": {"type": ["number", "null"]},
                                "rating_after": {"type": ["number", "null"]},
                            },
                        },
                    },
                    "rounds": {"type": "array"},
                },
            },
            "LeaderboardRow": {
                "type": "object",
                "properties": {
                    "rank": {"type": "integer"},
                    "agent": {"type": "string"},
                    "owner": {"type": "string"},
                    "rating": {"type": "number"},
                    "games": {"type": "integer"},
                    "wins": {"type": "integer"},
                    "losses": {"type": "integer"},
                    "draws": {"type": "integer"},
                    "provisional": {"type": "boolean"},
                },
            },
        },
    },
    "security": [{"token": []}],
    "paths": {
        "/api/token": {
            "post": {
                "summary": "Exchange a username and password for the API token",
                "security": [],
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["username", "password"],
                                "properties": {
                                    "username": {"type": "string"},
                                    "password": {"type": "string"},
                                },
                            }
                        }
                    }
                },
                "responses": {
                    "200": _json(
                        {"type": "object", "properties": {"token": {"type": "string"}}}, "the token"
                    ),
                    **_ERRORS,
                },
            }
        },
        "/api/games": {
            "get": {
                "summary": "The games",
                "security": [],
                "responses": {"200": {"description": "games"}},
            }
        },
        "/api/submissions": {
            "post": {
                "summary": "Upload an agent (multipart `file` and optional `name`, or JSON)",
                "requestBody": {
                    "content": {
                        "multipart/form-data": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "file": {"type": "string", "format": "binary"},
                                    "name": {"type": "string"},
                                },
                            }
                        },
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["source"],
                                "properties": {
                                    "source": {"type": "string"},
                                    "name": {"type": "string"},
                                },
                            }
                        },
                    }
                },
                "responses": {
                    "201": _json(_ref("Submission"), "stored, validation queued"),
                    **_ERRORS,
                },
            }
        },
        "/api/submissions/{id}": {
            "get": {
                "parameters": [_ID],
                "summary": "One submission",
                "responses": {"200": _json(_ref("Submission"), "the submission"), **_ERRORS},
            }
        },
        "/api/submissions/{id}/activate": {
            "post": {
                "parameters": [_ID],
                "summary": "Enter the ranked ladder (at most 3 active per game)",
                "responses": {"200": _json(_ref("Submission"), "active"), **_ERRORS},
            }
        },
        "/api/submissions/{id}/deactivate": {
            "post": {
                "parameters": [_ID],
                "summary": "Leave the ladder",
                "responses": {"200": _json(_ref("Submission"), "inactive"), **_ERRORS},
            }
        },
        "/api/training": {
            "post": {
                "summary": "Start an unrated training match",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["submission", "opponent"],
                                "properties": {
                                    "submission": {"type": "integer"},
                                    "opponent": {
                                        "type": ["string", "integer"],
                                        "description": "house:<bot> or one of your submission ids",
                                    },
                                    "timed": {"type": "boolean", "default": True},
                                },
                            }
                        }
                    }
                },
                "responses": {
                    "201": _json(
                        {"type": "object", "properties": {"match": {"type": "integer"}}}, "queued"
                    ),
                    **_ERRORS,
                    "429": _json(_ref("Error"), "training limit per hour reached"),
                },
            }
        },
        "/api/matches/{id}": {
            "get": {
                "parameters": [_ID],
                "summary": "A match",
                "responses": {"200": _json(_ref("Match"), "the match"), **_ERRORS},
            }
        },
        "/api/matches/{id}/log": {
            "get": {
                "parameters": [_ID],
                "summary": "The per-call log as JSON lines; prints only for your own seats",
                "responses": {
                    "200": {"description": "JSON lines", "content": {"application/x-ndjson": {}}},
                    **_ERRORS,
                },
            }
        },
        "/api/leaderboard/{game}": {
            "get": {
                "security": [],
                "summary": "A game's ladder",
                "parameters": [
                    {"name": "game", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": _json({"type": "array", "items": _ref("LeaderboardRow")}, "best first"),
                    **_ERRORS,
                },
            }
        },
    },
}
