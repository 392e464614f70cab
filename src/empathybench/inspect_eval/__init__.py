"""Inspect AI tasks for empathybench (the ``inspect`` extra).

``empathybench._registry`` (the package's ``inspect_ai`` entry point) imports ``tasks``, which
registers ``empathybench/<suite>`` for every bundled suite, ``empathybench/suite`` for any
suite file and ``empathybench/generated`` for a freshly generated suite. See docs/inspect.md.
Nothing here is imported by the core package: only Inspect (or a user) imports it.
"""
