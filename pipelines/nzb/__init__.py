"""NZB 1.1 files: the writer, and their assembly from a release's catalog rows."""
