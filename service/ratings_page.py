"""The lobby's ladder: a season's ratings (service.ratings) as a small HTML table, kept apart
from the lobby's own markup so the pages can change look without touching it."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.season import LedgerReading


def season_ratings_html(reading: LedgerReading) -> str:
    """The sealed games' ratings, highest ordinal first; nothing before the first seal."""
    from service.season import season_ratings

    table = season_ratings(reading.season)
    if not table:
        return ""
    rows = "".join(
        f"<tr><td>{html.escape(r.player)}</td><td>{r.games}</td><td>{r.mu:.2f}</td>"
        f"<td>{r.sigma:.2f}</td><td>{r.ordinal:.2f}</td></tr>"
        for r in table
    )
    return (
        '<table id="season-ratings"><caption>Ratings (openskill Plackett-Luce; ordinal = mu − 3 sigma)'
        "</caption><thead><tr><th>player</th><th>games</th><th>mu</th><th>sigma</th><th>ordinal</th>"
        f"</tr></thead><tbody>{rows}</tbody></table>"
    )
