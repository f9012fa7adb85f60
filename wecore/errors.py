"""Error classes of the rules engine.

Every message is one line a person at the table can act on. The audit maps
`EventSchemaError` to the log-format kind "schema" and `RuleViolation` to "rules".
"""


class WeError(Exception):
    """Base of every error the engine raises on bad input."""


class CardNotationError(WeError, ValueError):
    """Text that is not a gift card in card notation (R7, b10, ...)."""


class ColourError(WeError, ValueError):
    """Text that is not one of the five colours."""


class RulesetError(WeError, ValueError):
    """An unknown ruleset, an unknown house rule or a bad value for one."""


class EventSchemaError(WeError, ValueError):
    """An event that does not have the shape the log format gives it."""


class RuleViolation(WeError):
    """A well-formed event or command that the rules do not allow at this point."""


class UnknownPlayerError(RuleViolation):
    """A name that matches no player, or more than one."""


def shown(text: object, limit: int = 40) -> str:
    """A value quoted for an error message, cut to `limit` characters: a name pasted by
    mistake (or a megabyte long, in a hostile log) must not fill the screen."""
    quoted = repr(text)
    return quoted if len(quoted) <= limit else quoted[: limit - 4] + "...'"
