"""Stored article bodies: what a generated corpus's probe targets hold (`store`)."""
