"""Reports: tables (Markdown, CSV), matplotlib figures and a self-contained HTML report."""
