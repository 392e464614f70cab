"""Shortcut audit: can surface-only baselines answer a suite's items? (``empathybench audit``)

``audit_suite`` trains the baselines on a separately generated set of the suite's template
version and reports their accuracy beside chance; see docs/audit.md.
"""

from empathybench.audit.results import AuditReport
from empathybench.audit.suite_audit import audit_suite

__all__ = ["AuditReport", "audit_suite"]
