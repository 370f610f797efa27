"""gm: a game master for Snakes and Ladders by email."""

__version__ = "0.1.0"
