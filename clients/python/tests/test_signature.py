"""The version 2 signature against the known answers every signer shares
(testdata/signature-v2-vectors.json at the repository's root, computed by
hand with python3's hmac, not with this client). Needs no server."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

from mdqs import Client, canonical_query, signature_v2  # noqa: E402

with open(os.path.join(REPO, "testdata", "signature-v2-vectors.json"), encoding="utf-8") as _f:
    VECTORS = json.load(_f)


class TestVectors(unittest.TestCase):
    def test_canonical_query(self):
        self.assertGreater(len(VECTORS["canonical_query"]), 10)
        for c in VECTORS["canonical_query"]:
            with self.subTest(c["what"]):
                self.assertEqual(canonical_query(c["query"]), c["canonical"])

    def test_malformed_query(self):
        for c in VECTORS["malformed_query"]:
            with self.subTest(c["what"]):
                with self.assertRaises(ValueError) as cm:
                    canonical_query(c["query"])
                self.assertIn("%25", str(cm.exception))

    def test_signatures(self):
        self.assertGreater(len(VECTORS["signatures"]), 5)
        for c in VECTORS["signatures"]:
            with self.subTest(c["what"]):
                got = signature_v2(c["token"], c["method"], c["path"], c["query"], c["timestamp"], c["nonce"],
                                   c["body"].encode("utf-8"))
                self.assertEqual(got, c["signature"])

    def test_sign_headers(self):
        c = Client("127.0.0.1:1", token_cache=False)
        v = VECTORS["signatures"][2]
        target = v["path"] + "?" + v["query"]
        h = c.sign(v["token"], b"", v["method"], target, version=2)
        self.assertEqual(h["X-Signature-Version"], "2")
        self.assertEqual(h["X-Signature"], signature_v2(v["token"], v["method"], v["path"], v["query"],
                                                        h["X-Timestamp"], h["X-Nonce"]))
        self.assertNotIn("X-Signature-Version", c.sign(v["token"]), "without method and target: version 1")
        self.assertEqual(c.version, 1, "a server that listed no versions: version 1")
        c.signature_versions = [1, 2]
        self.assertEqual(c.version, 2)


if __name__ == "__main__":
    unittest.main()
