"""The house-rule flags of `we record` and `we simulate`, made from the registry in
`wecore.rulesets`: a rule declared there gets its flag here without a line of its own."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import click

from wecore.rulesets import HOUSE_RULES, MAX_PLAYERS, MIN_PLAYERS, Shape

F = TypeVar("F", bound=Callable[..., Any])


def house_rule_options(help_prefix: str) -> Callable[[F], F]:
    """Add one click option per house rule; the command receives them named by the rule."""

    def decorate(command: F) -> F:
        for rule in reversed(HOUSE_RULES):
            if rule.shape is Shape.FLAG:
                option = click.option(
                    rule.flag, rule.name, is_flag=True, default=False, help=help_prefix + rule.flag_help
                )
            else:
                option = click.option(
                    rule.flag,
                    rule.name,
                    type=click.IntRange(min=1),
                    metavar="N",
                    default=None,
                    help=help_prefix + rule.flag_help,
                )
            command = option(command)
        return command

    return decorate


def pop_house_rule_flags(values: dict[str, Any]) -> dict[str, Any]:
    """The house-rule flags' values out of a command's keyword arguments, by rule name."""
    return {rule.name: values.pop(rule.name) for rule in HOUSE_RULES}


def given_flags(flags: Mapping[str, Any]) -> list[str]:
    """The flags (as typed) that were given."""
    return [rule.flag for rule in HOUSE_RULES if flags.get(rule.name) not in (None, False)]


def options_from_flags(flags: Mapping[str, Any], player_count: int) -> dict[str, Any]:
    """`game_started.options` for the flags given, in a game of `player_count`."""
    options: dict[str, Any] = {}
    for rule in HOUSE_RULES:
        value = flags.get(rule.name)
        if value is None or value is False:
            continue
        if rule.shape is Shape.COUNTS and not MIN_PLAYERS <= player_count <= MAX_PLAYERS:
            continue  # the player count itself is refused, with its own message
        options[rule.name] = rule.option_from_flag(value, player_count)
    return options
