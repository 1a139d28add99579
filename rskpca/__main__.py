"""``python -m rskpca``: the same as the ``rskpca`` console script."""

import sys

from rskpca.cli import main

if __name__ == "__main__":
    sys.exit(main())
