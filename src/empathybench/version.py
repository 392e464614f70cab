"""The installed package's version (``0.0.0+source`` when run from a source tree)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("empathybench")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+source"
