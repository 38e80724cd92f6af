"""Every rule by its display name (Catalyst's names), filled as rule modules import."""

from __future__ import annotations

from .base import Rule

RULES: dict[str, Rule] = {}


def register(rule: Rule) -> Rule:
    if rule.name in RULES and RULES[rule.name] is not rule:
        raise ValueError(f"two rules named {rule.name}")
    RULES[rule.name] = rule
    return rule


def load_all() -> dict[str, Rule]:
    """Import every module of the rules package (each registers its rules)."""
    import importlib
    import pkgutil

    import rules

    for info in pkgutil.iter_modules(rules.__path__):
        if info.name not in ("base", "registry"):
            importlib.import_module(f"rules.{info.name}")
    return RULES
