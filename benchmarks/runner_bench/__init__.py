"""The parts of ``benchmarks/runner.py``: the systems measured (``systems``), the fake
server process (``servers``), the clients (``clients``), one measurement in a child process
(``measurement``, ``meter``), the profile (``profiling``) and the report (``report``)."""
