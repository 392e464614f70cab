"""Scoring responses: answer parsing, deterministic dimensions, judges."""
