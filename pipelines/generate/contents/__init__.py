"""Real file contents for the article pass's tests: the heads (and a 7z set's tail) of
the files a generated upload posts, in the formats the real tools write.

A posted file is GBs, so none is made whole: a file is its real head, deterministic
filler (`filler.filler`) up to its size, and for a 7z set's last volume a real tail.
"""
