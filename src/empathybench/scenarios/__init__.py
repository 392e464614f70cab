"""Scenario templates, the seeded generator, bundled suites and validation."""
