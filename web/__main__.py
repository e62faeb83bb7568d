"""`python -m web`: run the dashboard alone."""

from web.app import main

if __name__ == "__main__":
    main()
