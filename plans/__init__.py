"""The typed plan IR and everything that converts to and from it."""

from .catalog import Catalog

__all__ = ["Catalog"]
