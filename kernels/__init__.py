"""numba kernels over byte buffers and numpy arrays; no I/O, no Arrow, no Dagster."""
