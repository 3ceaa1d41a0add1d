"""The SDK's version (kept apart so every module can import it without cycles)."""

__version__ = "0.1.0"
"""Version of the mus-sdk distribution."""

SDK_ID = f"mus-sdk-python/{__version__}"
"""How the SDK identifies itself in ``GetInfoResponse.sdk``."""
