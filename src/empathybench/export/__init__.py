"""Exports of suites and runs to other tools' formats."""
