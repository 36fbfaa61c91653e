"""The three tasks of three_tasks_client.py written against raw HTTP, with
the signing snippet of docs/getting-started.md and nothing else: what a script looks like
without the client.

    python3 clients/python/examples/three_tasks_raw.py START END CODE...
"""
import sys
import time

import hashlib, json, os, secrets, urllib.error, urllib.parse, urllib.request  # noqa: E401

# --- the snippet of docs/getting-started.md
BASE = "http://" + os.environ.get("MDQS_ADDR", "127.0.0.1:8080")

def token(client_id, secret):
    body = json.dumps({"client_id": client_id, "client_secret": secret}).encode()
    req = urllib.request.Request(BASE + "/v1/auth/token", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)["data"]["token"]

def call(tok, method, path, payload=None):
    body = b"" if payload is None else json.dumps(payload).encode()
    ts, nonce = str(int(time.time())), secrets.token_hex(16)
    sig = hashlib.md5(tok.encode() + ts.encode() + nonce.encode() + body).hexdigest()
    req = urllib.request.Request(BASE + path, data=body or None, method=method, headers={
        "Authorization": "Bearer " + tok, "X-Timestamp": ts, "X-Nonce": nonce,
        "X-Signature": sig, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:  # 4xx/5xx still carry the JSON envelope
        return json.load(e)
# --- end of the snippet


# --- task 1: a year of daily bars for ten codes
def year_of_bars(tok, codes, start, end):
    out = {}
    for code in codes:
        q = urllib.parse.urlencode({"code": code, "freq": "D", "start": start, "end": end})
        doc = call(tok, "GET", "/v1/api/kline?" + q)
        if doc.get("code") != 1:
            raise RuntimeError("%s: %s" % (doc.get("message"), doc.get("detail")))
        out[code] = doc["data"]["rows"]
    return out


# --- task 2: today's sector ranking
def ranking(tok):
    doc = call(tok, "GET", "/v1/api/boards/top50?top=10")
    if "sectors" not in doc:
        raise RuntimeError("%s: %s" % (doc.get("message"), doc.get("detail")))
    return [s["sector_name"] for s in doc["sectors"]]


# --- task 3: a full-market screen
def full_screen(tok):
    doc = call(tok, "POST", "/v1/api/screener/queue/submit", {"expression": "pct > 0 and amount > 1e8", "sort": "-pct"})
    if doc.get("code") != 1:
        raise RuntimeError("%s: %s" % (doc.get("message"), doc.get("detail")))
    job = doc["data"]
    while job["state"] in ("queued", "running"):
        time.sleep(0.05)
        job = call(tok, "GET", "/v1/api/screener/queue/status?id=" + job["id"])["data"]
    if job["state"] != "succeeded":
        raise RuntimeError("screen %s: %s" % (job["state"], job.get("error")))
    items, page = [], 1
    while True:
        q = urllib.parse.urlencode({"id": job["id"], "page": page, "page_size": 500})
        res = call(tok, "GET", "/v1/api/screener/queue/result?" + q)["data"]
        items += res["items"]
        if not res["items"] or len(items) >= res["total"]:
            return items
        page += 1
# --- end of tasks


def main():
    start, end, codes = sys.argv[1], sys.argv[2], sys.argv[3:]
    tok = token(os.environ.get("MDQS_CLIENT_ID", "demo"), os.environ.get("MDQS_CLIENT_SECRET", "demo-secret"))
    for name, run in (("bars", lambda: year_of_bars(tok, codes, start, end)),
                      ("ranking", lambda: ranking(tok)), ("screen", lambda: full_screen(tok))):
        t0 = time.perf_counter()
        out = run()
        ms = (time.perf_counter() - t0) * 1000
        if name == "bars":
            out = {k: [(r["trade_date"], r["close"]) for r in v] for k, v in out.items()}
        elif name == "screen":
            out = [(x["code"], x["pct"]) for x in out]
        print(name, repr(out))
        print("time", name, "%.1f" % ms, file=sys.stderr)


if __name__ == "__main__":
    main()
