"""gm: a game master for Snakes and Ladders by email."""

__version__ = "0.2.0"
