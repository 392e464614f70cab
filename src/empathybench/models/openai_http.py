"""The lean OpenAI-compatible adapter: one aiohttp session, one keep-alive pool, no SDK.

The ``openai`` SDK costs ~1.8 ms of CPU per request (request options, httpx, response models)
and that CPU is the ceiling of a run against a fast server. This adapter sends the same body
(``openai_format.request_body``) straight through an ``aiohttp`` connection pool sized to the
run's ``--max-connections`` and reads the answer from the decoded JSON, so a request costs one
body encode, one POST and one decode. Errors are classified exactly as the SDK adapter's
(``http_errors``): status errors by status and Retry-After, timeouts, dropped connections,
bodies that are not JSON. It is the default for local servers (vLLM, llama.cpp, Ollama, any
``openai-compatible`` URL); ``--option client=sdk`` selects the SDK adapter instead, and
``--option client=lean`` selects this one for a hosted provider.
"""

from __future__ import annotations

import asyncio
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson

from empathybench.models.base import ModelCallError, ModelOutput, ModelRequest, ModelSpec
from empathybench.models.http_errors import error_for_status, sanitise, timeout_seconds
from empathybench.models.openai_format import guided_output, output_from_body, request_body
from empathybench.models.registry import resolve_api_key
from empathybench.runtime.url_secrets import redact_url

NO_KEY = "not-needed"
"""Sent to local servers that need no key, as the SDK adapter does."""
DEFAULT_POOL_SIZE = 100
"""Connections kept when the caller does not say (aiohttp's own default)."""
USER_AGENT = "empathybench"


class OpenAIHttpModel:
    """``ModelAPI`` for one model behind a ``/chat/completions`` endpoint, via aiohttp."""

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        key = resolve_api_key(spec)
        self._secrets = (key,)
        self._timeout = timeout_seconds(spec)
        # The key goes in the Authorization header; aiohttp refuses to combine it with
        # credentials in the URL (user:pass@host), so those are left out of the request.
        self._url = without_userinfo(f"{(spec.base_url or '').rstrip('/')}/chat/completions")
        self._headers = {
            "Authorization": f"Bearer {key or NO_KEY}",
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
        }
        self._proxy = env_proxy(self._url)
        self._pool_size = DEFAULT_POOL_SIZE
        self._session: aiohttp.ClientSession | None = None

    def __repr__(self) -> str:
        url = redact_url(self.spec.base_url) if self.spec.base_url else None
        return f"{type(self).__name__}({self.spec.id!r}, base_url={url!r})"

    def size_pool(self, connections: int) -> None:
        """Keep up to ``connections`` open (the run's ``--max-connections``); before first use."""
        self._pool_size = max(1, connections)

    def _open(self) -> aiohttp.ClientSession:
        """The session, made on first use inside the running event loop."""
        connector = aiohttp.TCPConnector(limit=self._pool_size, limit_per_host=0)
        self._session = aiohttp.ClientSession(
            connector=connector,
            headers=self._headers,
            timeout=aiohttp.ClientTimeout(total=self._timeout),
            json_serialize=lambda data: orjson.dumps(data).decode(),
            skip_auto_headers=("Accept-Encoding",),
        )
        return self._session

    async def generate(self, request: ModelRequest) -> ModelOutput:
        data = orjson.dumps(request_body(self.spec, request))
        session = self._session or self._open()
        try:
            async with session.post(self._url, data=data, proxy=self._proxy) as response:
                raw = await response.read()
                status = response.status
                headers = response.headers
        except (TimeoutError, asyncio.TimeoutError):
            raise ModelCallError("timeout", f"no response within {self._timeout:g} s") from None
        except aiohttp.ClientConnectionError as error:
            raise ModelCallError("connection", self._describe(error)) from None
        except aiohttp.ClientError as error:  # a broken payload, a bad URL
            raise ModelCallError("client", self._describe(error)) from None
        body = _decode(raw)
        if status >= 400:
            fallback = raw[:200].decode("utf-8", "replace") or f"HTTP {status}"
            details = None if body is _NOT_JSON else body
            raise error_for_status(status, headers, details, fallback, self._secrets)
        if body is _NOT_JSON:
            raise ModelCallError("bad_response", "response body is not valid JSON")
        return guided_output(request, output_from_body(body))

    def _describe(self, error: BaseException) -> str:
        text = str(error) or "no details"
        return sanitise(f"Connection error: {type(error).__name__}: {text}", self._secrets)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def without_userinfo(url: str) -> str:
    """``url`` without a ``user:password@`` part."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def env_proxy(url: str) -> str | None:
    """The proxy the environment names for ``url`` (``HTTPS_PROXY``, ``NO_PROXY`` …), once.

    aiohttp's ``trust_env`` looks it up again in a thread for every request, which costs more
    CPU than the rest of the request; the environment does not change during a run.
    """
    parts = urlsplit(url)
    proxies = urllib.request.getproxies()
    proxy = proxies.get(parts.scheme)
    if proxy is None or urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return proxy


_NOT_JSON: Any = object()


def _decode(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _NOT_JSON
