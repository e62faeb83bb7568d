"""`python -m web [--host H] [--port P]`: run the dashboard alone."""

import argparse

from web.app import main

if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        prog="python -m web",
        description="The CoDreamer dashboard: webhook receiver and live page.",
    )
    parser.add_argument("--host", help="interface (env CODREAMER_WEB_HOST; default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (env CODREAMER_WEB_PORT; default 3000)")
    args = parser.parse_args()
    main(host=args.host, port=args.port)
