"""Human validation of benchmark items: raters answer the emotion and help questions blind.

``annotate init`` draws a study from a suite (``study``), raters answer in the web app or
offline (``session``, ``store``, ``csv_io``), and ``annotate results`` compares their answers
with the key and with each other (``agreement``, ``kappa``, ``report``). See
docs/annotation.md.
"""
