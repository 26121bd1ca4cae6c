"""Helpers the tests share: loopback servers, synthetic and recorded services, worker processes and waits.

Nothing here is collected as a test. The tests import these as ``support.<module>``: pytest puts ``tests/`` on
``sys.path`` (the rootdir-relative "prepend" import mode), and the benchmarks add it themselves. Test data lives
beside this package in ``tests/data/<kind>/``.
"""
