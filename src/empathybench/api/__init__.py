"""The Python API: suites, runs, judging, summaries and reports, one small module per stage.

``empathybench`` re-exports the public names (``eb.run``, ``eb.judge``, …); this package
imports nothing itself, so ``import empathybench`` stays cheap. See ``docs/python-api.md``.
"""
