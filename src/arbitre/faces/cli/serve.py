"""``arbitre serve``: the table page in a browser (a face: it starts the web server of
:mod:`arbitre.faces.web` and rules nothing itself)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from arbitre.faces.cli.common import command, load_file
from arbitre.i18n import N_, T_

PANEL = N_("Tables")
#: Where the page is served unless ``--host`` says otherwise: this machine only.
LOCAL = "127.0.0.1"


def serve(
    file: Annotated[
        Path | None,
        typer.Argument(
            metavar="FILE", help=N_("Scenario to open (default: the demo)."), show_default=False
        ),
    ] = None,
    port: Annotated[int, typer.Option("--port", metavar="N", help=N_("Port to listen on."))] = 8765,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            metavar="H",
            help=N_("Address to listen on; 0.0.0.0 lets a tablet on the network in (no password)."),
        ),
    ] = LOCAL,
    open_page: Annotated[
        bool, typer.Option("--open", help=N_("Open the page in the default browser."))
    ] = False,
) -> None:
    """Open a page where a table is built and played by hand, every ruling live."""
    import uvicorn

    from arbitre.faces.web.app import create_app
    from arbitre.faces.web.protocol import MAX_MESSAGE

    if file is not None:
        load_file(file, 10_000_000)  # a bad file: one line and exit 2, before listening
    app = create_app(None if file is None else str(file), warm=True)
    if host != LOCAL:
        print(
            T_(
                "arbitre: warning: serving on {host}: anyone who can reach this machine on port "
                "{port} can open the page and save over {file} (no password)",
                host=host,
                port=port,
                file=file or T_("nothing"),
            ),
            file=sys.stderr,
        )
    url = f"http://{'localhost' if host in (LOCAL, '0.0.0.0') else host}:{port}/"
    print(
        T_(
            "arbitre: serving {file} at {url} (Ctrl-C stops)",
            file=file or T_("the demo"),
            url=url,
        ),
        file=sys.stderr,
    )
    if open_page:
        import threading
        import webbrowser

        threading.Timer(0.8, webbrowser.open, args=(url,)).start()
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        ws="websockets-sansio",
        ws_max_size=MAX_MESSAGE + 1024,
    )


def register(app: typer.Typer) -> None:
    """Add ``serve`` to ``app``."""
    command(
        app,
        serve,
        PANEL,
        N_("Open a page where a table is built and played by hand, every ruling live."),
    )
