#!/usr/bin/env bash
# Prints each file of the bundle with its raw and gzip (-9) size, and the totals.
set -euo pipefail
dir="${1:-dist}"
printf '%-52s %10s %10s\n' "bundle file" "raw B" "gzip B"
total_raw=0
total_gz=0
while IFS= read -r f; do
  raw=$(wc -c <"$f")
  gz=$(gzip -9 -c "$f" | wc -c)
  total_raw=$((total_raw + raw))
  total_gz=$((total_gz + gz))
  printf '%-52s %10d %10d\n' "${f#"$dir"/}" "$raw" "$gz"
done < <(find "$dir" -type f | sort)
printf '%-52s %10d %10d  (%.1f KB gzip)\n' "total" "$total_raw" "$total_gz" "$(awk "BEGIN{print $total_gz/1024}")"
