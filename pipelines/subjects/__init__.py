"""What a subject says, in plain Python: the parser's rules (`rules`), file names and
random tokens (`file_names`), RFC 2047 encoded words (`encoded_words`) and the 64-bit
hash of the identity keys (`hashing`).

The kernels in `kernels/` run the same rules on whole batches; these are the readable
version, which `pipelines.naming` and `pipelines.rfc2047` use on single subjects and which
the kernel tests (tests/test_*_kernel.py) hold the kernels to.
"""
