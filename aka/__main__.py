"""`python -m aka` runs the command line (for machines where the console script is not installed)."""

from aka.cli.main import main

main()
