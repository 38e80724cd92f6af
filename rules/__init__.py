"""The rewrite rules, one module per family (Catalyst's names)."""

from .base import Rule, RuleContext, expression_rule, plan_rule

__all__ = ["Rule", "RuleContext", "expression_rule", "plan_rule"]
