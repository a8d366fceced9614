#!/usr/bin/env python3
"""Turn a LiteLLM_SpendLogs table dump (CSV, as cmd/tokenfare-gen -format dump
writes it) into the same rows as GET /spend/logs?summarize=false answers them:
a JSON array of row objects, compact as the proxy sends it (Starlette's
JSONResponse), JSON columns as JSON values, counts and spend as numbers,
empty fields as null, one row a line.

    python3 bench/dump2json.py < dump.csv > spendlogs.json
"""
import csv
import json
import sys

JSON_COLS = {"metadata", "request_tags", "messages", "response", "proxy_server_request"}
NUM_COLS = {"spend", "total_tokens", "prompt_tokens", "completion_tokens", "request_duration_ms"}


def value(col, text):
    if text == "":
        return None
    if col in JSON_COLS or col in NUM_COLS:
        return json.loads(text)
    return text


def main():
    csv.field_size_limit(1 << 30)
    rows = csv.reader(sys.stdin)
    header = next(rows)
    out = sys.stdout
    out.write("[")
    sep = "\n"
    for row in rows:
        obj = {col: value(col, text) for col, text in zip(header, row)}
        out.write(sep + json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
        sep = ",\n"
    out.write("\n]\n")


if __name__ == "__main__":
    main()
