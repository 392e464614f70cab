"""The plain HTTP both batch APIs share: JSON calls whose failure ends the run clearly.

A batch call that fails (a bad key, a refused file, an unreachable server) stops the run with
one error line; the batch ids already recorded in the run folder let ``--resume`` go on.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from empathybench.errors import UserError
from empathybench.models.http_errors import provider_message, sanitise


class BatchTransientError(UserError):
    """A batch call that may succeed when tried again (no connection, 429, 5xx)."""


class BatchHTTP:
    def __init__(self, headers: dict[str, str], secrets: tuple[str | None, ...]) -> None:
        self._client = httpx.AsyncClient(headers=headers, timeout=120.0)
        self._secrets = secrets

    async def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            response = await self._client.request(method, url, **kwargs)
        except httpx.HTTPError as error:
            raise BatchTransientError(
                sanitise(
                    f"batch API {method} {url}: {type(error).__name__}: {error}", self._secrets
                )
            ) from None
        if response.status_code >= 400:
            try:
                body: object = response.json()
            except ValueError:
                body = None
            message = provider_message(body, response.text[:200])
            transient = response.status_code == 429 or response.status_code >= 500
            raise (BatchTransientError if transient else UserError)(
                sanitise(
                    f"batch API {method} {url}: HTTP {response.status_code}: {message}",
                    self._secrets,
                )
            )
        return response

    async def json(self, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        response = await self.request(method, url, **kwargs)
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise UserError(f"batch API {method} {url}: the answer is not a JSON object")
        return body

    async def created_id(self, url: str, **kwargs: Any) -> str:
        """POST ``url`` and return the ``id`` of what it created."""
        created = (await self.json("POST", url, **kwargs)).get("id")
        if not isinstance(created, str) or not created:
            raise UserError(f"batch API POST {url}: the answer holds no id")
        return created

    async def jsonl(self, url: str) -> list[dict[str, Any]]:
        """The JSON objects of a JSONL download (a line that is not one is skipped)."""
        response = await self.request("GET", url)
        lines: list[dict[str, Any]] = []
        for line in response.text.splitlines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                lines.append(value)
        return lines

    async def aclose(self) -> None:
        await self._client.aclose()
