"""broken: exits at start with a message on stderr, before announcing its address."""

import sys

sys.stderr.write("broken-bot: cannot load its model file weights.bin\n")
sys.exit(3)
