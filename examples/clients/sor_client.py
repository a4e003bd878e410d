"""Calling the SOR service from Python with `requests`: the bulk endpoint and the async job API, gzip both ways.

    python3 sor_client.py bulk http://localhost:8080 students.csv results.csv [windows-1252 [semicolon]]
    python3 sor_client.py job  http://localhost:8080 students.csv results.csv [windows-1252 [semicolon]]

Exit status: 0 every row ok, 2 some rows are errors (row_status=error), 1 the service refused the file.
"""
import csv
import gzip
import io
import sys
import time
import uuid

import requests

# The answer comes in the file's own delimiter (semicolons in, semicolons out), unless ?output_delimiter= asks.
DELIMITERS = {"comma": ",", "semicolon": ";", "tab": "\t"}


def upload(path, charset, delimiter):
    """The file as sent: gzip-compressed (the service counts its limits on the decompressed bytes)."""
    with open(path, "rb") as f:
        body = gzip.compress(f.read())
    headers = {
        "Content-Type": f"text/csv; charset={charset}",
        "Content-Encoding": "gzip",
        "Accept": "text/csv",
        "Accept-Encoding": "gzip",  # requests decompresses the answer itself
    }
    params = {"delimiter": delimiter}
    return body, headers, params


def refused(res):
    error = res.json()
    print(f"{res.status_code} {error['code']}: {error['message']}", file=sys.stderr)
    for field in error.get("field_errors", []):
        print(f"  {field['field']}: {field['message']}", file=sys.stderr)
    return 1


def save(text, out, delimiter):
    with open(out, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    rows = list(csv.DictReader(io.StringIO(text), delimiter=DELIMITERS[delimiter]))
    errors = sum(1 for row in rows if row["row_status"] == "error")
    print(f"{out}: {len(rows)} rows, {errors} with errors")
    return 0 if errors == 0 else 2


def bulk(base, path, out, charset, delimiter):
    body, headers, params = upload(path, charset, delimiter)
    res = requests.post(f"{base}/v1/calculate/bulk", data=body, headers=headers, params=params, timeout=600)
    if res.status_code != 200:
        return refused(res)
    res.encoding = "utf-8"
    return save(res.text, out, delimiter)


def job(base, path, out, charset, delimiter):
    body, headers, params = upload(path, charset, delimiter)
    headers["Idempotency-Key"] = f"example-{uuid.uuid4()}"  # a key no one else can guess
    res = requests.post(f"{base}/v1/jobs", data=body, headers=headers, params=params, timeout=600)
    if res.status_code != 202:
        return refused(res)
    status_url = base + res.json()["status_url"]
    while True:
        status = requests.get(status_url, timeout=60).json()
        if status["status"] in ("completed", "failed"):
            break
        time.sleep(0.5)
    if status["status"] == "failed":
        print(f"job failed: {status['error']['message']}", file=sys.stderr)
        return 1
    result = requests.get(base + status["result_url"], headers={"Accept-Encoding": "gzip"}, timeout=600)
    result.encoding = "utf-8"
    return save(result.text, out, delimiter)


if __name__ == "__main__":
    mode, base, path, out = sys.argv[1:5]
    charset = sys.argv[5] if len(sys.argv) > 5 else "utf-8"
    delimiter = sys.argv[6] if len(sys.argv) > 6 else "comma"
    sys.exit((bulk if mode == "bulk" else job)(base.rstrip("/"), path, out, charset, delimiter))
