"""Python client of the mdqs market data service.

    import mdqs
    c = mdqs.Client()                      # MDQS_ADDR / MDQS_CLIENT_ID / ... or the demo on loopback
    bars = c.kline("600519.SH", "D", "2026-01-01", "2026-06-30", as_frame=True)
"""

from .client import Client, canonical_query, parse_sse, signature_v2, token_cache_dir, token_cache_path
from .errors import MdqsError

__all__ = ["Client", "MdqsError", "canonical_query", "parse_sse", "signature_v2", "token_cache_dir",
           "token_cache_path"]
__version__ = "0.1.0"
