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


SHOWN_LENGTH = 60


def clipped(text: str, limit: int = SHOWN_LENGTH) -> str:
    """`text` as it is when short, else its first `limit` characters, "..." and its length: a
    value echoed in an error or a header (a name pasted by mistake, a megabyte-long field name
    in a hostile log) must not fill the screen. The one place such values are cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def shown(text: object, limit: int = SHOWN_LENGTH) -> str:
    """A value quoted for an error message (repr, so control characters show as escapes), cut
    as `clipped` cuts."""
    if isinstance(text, str) and len(text) > limit:
        return f"{repr(text[:limit])[:-1]}...{repr(text[:limit])[-1]} ({len(text):,} characters)"
    quoted = repr(text)
    return clipped(quoted, limit)
