"""The network layer: one HTTP client (:class:`pubfetch.net.client.HttpClient`) that turns every request into a
classified :class:`pubfetch.net.outcome.FetchResult`, with PubFetcher's timeouts, retries, per-host slots and
fetchException rule, plus size caps, an SSRF guard, encoding detection and overridable endpoints
(:class:`pubfetch.net.endpoints.Endpoints`).

Nothing is imported here, so that importing one module of the layer does not pull in the others.
"""

__all__: list[str] = []
