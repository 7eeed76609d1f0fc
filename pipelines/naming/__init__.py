"""Text for people: release and file names, and the Newznab category of a name.

Called once per release or file, not per overview line, so plain Python. The release
name comes from the same blanked-out subject as identity_key
(`pipelines.subjects.rules`): two subjects of one identity get one name (up to ASCII
case, which the key folds and the name keeps).

Each release of a range passes here, so the rules run in as few passes as they can: a
subject of the common shape has its identity cut from around its file name, a regex runs
only when the text holds what it needs, a category rule only when the ones before it did
not decide, and on an ASCII name the keyword rules look its words up. The plainer first
version is kept as `bench.naming_reference`: tests/test_naming.py holds the two to the
same results, tests/test_naming_fast.py each shortcut to the rule it stands for, and
`python -m bench.naming` times them.

One module a job: `text` (bytes to text, file names and stems), `identity` (a subject's
identity text), `display` (the release name shown), `keywords`, `tv`, `groups` and
`categories` (the Newznab category), `content` (what the files hold), `random_names` and
`usable` (random names, and whether a release can be named). Callers use the names below.
"""

from pipelines.naming.categories import category_of
from pipelines.naming.content import content_of, content_of_block
from pipelines.naming.display import display_name

# the benchmark empties the caches of random_token and _group_facts (as a new range would
# find them) by their names on this module
from pipelines.naming.groups import _group_facts
from pipelines.naming.random_names import random_token
from pipelines.naming.text import file_name, stem, to_text
from pipelines.naming.usable import usable_name

__all__ = [
    "_group_facts",
    "category_of",
    "content_of",
    "content_of_block",
    "display_name",
    "file_name",
    "random_token",
    "stem",
    "to_text",
    "usable_name",
]
