"""Small things every layer may use: bounded JSON reading, retired-setting warnings, logging setup."""
