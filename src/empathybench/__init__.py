"""empathybench: measure, explain and steer the empathy of large language models."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("empathybench")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+source"

__all__ = ["__version__"]
