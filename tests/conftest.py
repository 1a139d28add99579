import sys
from pathlib import Path

# tests/reference.py (the literal oracles) is imported as a plain module.
sys.path.insert(0, str(Path(__file__).parent))
