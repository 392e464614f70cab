"""Statistical analysis of benchmark results."""
