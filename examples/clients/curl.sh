#!/bin/sh
# Calling the SOR service with curl: the bulk endpoint, then the async job API, gzip both ways.
#
#     sh curl.sh http://localhost:8080 students.csv results.csv [windows-1252 [semicolon]]
#
# --compressed asks for a gzip answer and decompresses it; the upload is gzipped by gzip(1) and sent as is.
set -eu
BASE=${1%/}
IN=$2
OUT=$3
CHARSET=${4:-utf-8}
DELIMITER=${5:-comma}

# Bulk: one request, the results as the answer (fail on a 4xx/5xx and show the error envelope).
gzip -c "$IN" | curl -sS --fail-with-body --compressed \
  -H "Content-Type: text/csv; charset=$CHARSET" -H 'Content-Encoding: gzip' \
  --data-binary @- "$BASE/v1/calculate/bulk?delimiter=$DELIMITER" -o "$OUT"

# Jobs: submit (202 + Location), poll the status, download the result.
KEY="example-$(date +%s)-$$"
JOB=$(gzip -c "$IN" | curl -sS --fail-with-body \
  -H "Content-Type: text/csv; charset=$CHARSET" -H 'Content-Encoding: gzip' -H "Idempotency-Key: $KEY" \
  --data-binary @- "$BASE/v1/jobs?delimiter=$DELIMITER")
ID=$(printf '%s' "$JOB" | sed 's/.*"id":"\([^"]*\)".*/\1/')
while :; do
  STATUS=$(curl -sS "$BASE/v1/jobs/$ID" | sed 's/.*"status":"\([a-z]*\)".*/\1/')
  [ "$STATUS" = completed ] && break
  [ "$STATUS" = failed ] && { echo "job $ID failed" >&2; exit 1; }
  sleep 0.5
done
curl -sS --fail-with-body --compressed "$BASE/v1/jobs/$ID/result" -o "$OUT.job"
echo "$OUT and $OUT.job written"
