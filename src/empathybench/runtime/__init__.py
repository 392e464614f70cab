"""Run-time machinery: response cache, run store, rate limiting."""
