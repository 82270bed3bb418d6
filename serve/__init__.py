"""``coreflow serve``: the tournament in a browser (docs/serve.md).

:mod:`serve.app` is the web application, :mod:`serve.hub` the tables it serves (the live
table of ``coreflow play`` over the event store), :mod:`serve.db` what it keeps beside the
match records, :mod:`serve.views` and :mod:`serve.report` what each page is sent.
"""
