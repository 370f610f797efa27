"""`python -m gm`: the same command as `gm`."""

from .cli import main

if __name__ == "__main__":
    main()
