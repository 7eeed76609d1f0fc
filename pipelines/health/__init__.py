"""The health sweep: do a release's articles still exist on the news server (docs/HEALTH.md)."""
