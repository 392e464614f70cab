"""Versioned prompt texts: how scenarios are put to models, and prompt strategies."""
