"""Release names read as title, year, season, episodes, day, absolute numbers and quality.

One module a job: `clean` (what is not the name, and titles' comparable form), `markers`
(the marks of an episode, a day or a season), `bare` (episodes numbered by digits alone),
`quality` (source and height), `parse` (the reading), `agreement` (how far the reading
agrees with Sonarr's own parser cases). Callers use the names below.
"""

from pipelines.names.clean import title_key
from pipelines.names.parse import ParsedName, parse_name

__all__ = ["ParsedName", "parse_name", "title_key"]
