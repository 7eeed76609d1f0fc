"""The Newznab API: request parameters, XML/JSON rendering, and the `/api` and `/rss` routes."""
