"""``coreflow serve``: the tournament in a browser (docs/serve.md).

Starts the web server (:mod:`serve.app`, Starlette on uvicorn) over the event store and
prints the organiser's link: a new organiser token each start (stored hashed, like every
token). It binds to 127.0.0.1 unless ``--host`` says otherwise, and then says how the
venue's network reaches it.

Exit status: 0 the server stopped (Ctrl-C), 2 it could not start (the store, the port).
"""

from __future__ import annotations

import socket
from typing import Annotated

import typer
from coreflow_judge.cli.options import LangOption, StoreOption


def _addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback (as the venue may reach it)."""
    found: set[str] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.add(str(info[4][0]))
    except OSError:
        pass
    return sorted(a for a in found if not a.startswith("127."))


def serve_command(
    store: StoreOption = None,
    host: Annotated[str, typer.Option(
        "--host", help="The address to listen on: 127.0.0.1 (this machine only), or "
        "0.0.0.0 for every network of the machine (the venue's).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="The port to listen on.")] = 8000,
    audit: Annotated[str | None, typer.Option(
        "--audit", help="The audit DuckDB file the report reads [default: the store's "
        "own].", show_default=False)] = None,
    rate: Annotated[float, typer.Option(
        "--rate", help="Writes a second one token may make on average (four times as many "
        "at once); more are answered 429.")] = 10.0,
    lang: LangOption = None,
) -> None:
    """Serve the tournament: table pages for scorekeepers, a live page for judges,
    spectators' boards and the organiser's standings and report.

    Prints the organiser's link (a new token each start). Two servers over one
    PostgreSQL store serve the same event.

    Example: coreflow serve --store spring.db
    """
    import uvicorn
    from coreflow_judge.cli.main import CliError, _language
    from coreflow_judge.events.store import StoreError, without_password
    from coreflow_judge.serve.app import create_app
    from coreflow_judge.serve.db import ServeDB

    language = _language(lang)
    if not rate > 0:
        raise CliError(f"--rate {rate}: more than 0 writes a second")
    if not 0 < port < 65536:
        raise CliError(f"--port {port}: a port is 1 to 65535")
    shown = "localhost" if host in ("127.0.0.1", "localhost", "::1") else host

    def started(db: ServeDB) -> None:
        token = db.issue("organiser", label="serve")
        where = without_password(store)[0] if store else "the default store"
        typer.echo(f"coreflow serve: {where} on http://{shown}:{port}/", err=True)
        typer.echo(f"organiser: http://{shown}:{port}/organiser/{token}", err=True)
        if host in ("0.0.0.0", "::"):
            for address in _addresses():
                typer.echo(f"from the venue's network: http://{address}:{port}/", err=True)
        elif shown == "localhost":
            typer.echo("only this machine can reach it: --host 0.0.0.0 lets the venue's "
                       "network in", err=True)

    try:
        app = create_app(store, lang=language, audit=audit, rate=rate, on_start=started)
    except StoreError as exc:
        raise CliError(str(exc)) from None
    config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                            proxy_headers=False, server_header=False, timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    try:
        server.run()
    except KeyboardInterrupt:
        # uvicorn shuts down on Ctrl-C, then raises it again: a server stopped the way it
        # is meant to stop exits 0.
        if server.started:
            return
        raise
    if not server.started:
        raise CliError(f"could not listen on {host}:{port} (is another server there?)")


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``coreflow`` command."""
    from coreflow_judge.cli.main import guarded

    app.command("serve")(guarded(serve_command))
