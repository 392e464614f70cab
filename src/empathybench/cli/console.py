"""Shared rich consoles (stdout for results, stderr for progress and errors)."""

from rich.console import Console

console = Console()
err_console = Console(stderr=True)
