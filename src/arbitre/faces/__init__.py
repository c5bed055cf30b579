"""The faces of arbitre: the command line, the pictures, the page. No rule lives here."""
