"""Inspect AI's entry point (group ``inspect_ai``): importing it registers our tasks.

Inspect imports this module when a task name starts with ``empathybench/``; see
``empathybench.inspect_eval.tasks`` and docs/inspect.md.
"""

from empathybench.inspect_eval.tasks import BUNDLED_TASKS, generated, suite

__all__ = ["BUNDLED_TASKS", "generated", "suite"]
