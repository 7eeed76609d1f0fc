"""The NZB of an upload's posted files, as a poster's tool writes one: what a spot
carries (`pipelines.generate.spots`) and what an upload posts beside its files
(`nzb_first`: `[00/27] - "Name.nzb"`), which the article pass reads and imports."""

from __future__ import annotations

from pipelines.generate.uploads import Upload
from pipelines.nzb.writer import xml_text

NZB_HEAD = (
    '<?xml version="1.0" encoding="utf-8"?>\n<nzb xmlns="http://www.newzbin.com/DTD/2003/nzb">'
)


def upload_nzb(upload: Upload, groups: list[str], skip: str | None = None) -> bytes:
    """The NZB of the upload's posted files (but the one named `skip`: an NZB posted in
    its own upload lists the other files), in the upload's groups."""
    out = [NZB_HEAD]
    names = "".join(f"<group>{xml_text(g)}</group>" for g in groups)
    poster = xml_text(upload.poster)
    for f in upload.files:
        if f.name == skip:
            continue
        segs = "".join(
            f'<segment bytes="{f.part_size or 1}" number="{f.first_part + k}">'
            f"{xml_text(m)}</segment>"
            for k, m in enumerate(f.message_ids)
        )
        subject = xml_text(f'"{f.name}" yEnc (1/{f.part_total})')
        out.append(
            f'<file poster="{poster}" date="{upload.posted_first}" subject="{subject}">'
            f"<groups>{names}</groups><segments>{segs}</segments></file>"
        )
    out.append("</nzb>")
    return "".join(out).encode()
