from arbitre.cli import run

run()
