"""The API's contract: the OpenAPI document the code generates is the one committed.

Clients (the ``arena`` command, scripts, generated SDKs) are written against
``/api/openapi.json``; moving an endpoint between modules or renaming its function must not
change a path, an operation id, a parameter or a schema. When the API is meant to change,
regenerate the fixture (the command is in the assertion's message) and review its diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.test import Client

FIXTURE = Path(__file__).parent / "fixtures" / "openapi.json"
REGENERATE = (
    "PYTHONPATH=$PWD/platform:$PWD DJANGO_SETTINGS_MODULE=arena.settings python -c "
    "\"import django, json; django.setup(); from arena.api import api; open('"
    + str(FIXTURE.relative_to(Path(__file__).parents[3]))
    + "', 'w').write(json.dumps(json.loads(json.dumps(api.get_openapi_schema())), "
    "indent=1, sort_keys=True) + '\\n')\""
)


def test_the_served_openapi_document_is_the_committed_one() -> None:
    served = Client().get("/api/openapi.json")
    assert served.status_code == 200
    expected = json.loads(FIXTURE.read_text())
    assert served.json() == expected, (
        "the API's OpenAPI document changed; if that is intended, regenerate the fixture with "
        f"`{REGENERATE}` and review its diff"
    )


def test_every_operation_keeps_its_id_and_path() -> None:
    """The same check as above, narrowed to what breaks a client first, for a readable diff."""
    served = Client().get("/api/openapi.json").json()
    expected = json.loads(FIXTURE.read_text())

    def operations(doc: dict[str, Any]) -> set[tuple[str, str, str]]:
        return {
            (path, method, op["operationId"])
            for path, methods in doc["paths"].items()
            for method, op in methods.items()
        }

    assert operations(served) == operations(expected)
