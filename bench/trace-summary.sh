#!/bin/bash
# Where did time go? Per-worker and per-codelet totals from an FxT trace.
#   bash bench/trace-summary.sh DIR [BUCKET_MS]
# DIR holds a prof_file_* written by a driver's -fxt DIR (StarPU built with FxT);
# starpu_fxt_tool turns it into tasks.rec there (once), then for each worker:
# busy time, idle time inside the span from the first task's start to the last
# task's end, and per codelet the count, total and mean time. Times in ms.
# With BUCKET_MS, also a timeline: for each BUCKET_MS slice of the span, each
# worker's busy percentage and the codelet it spent most time on (phases: a GPU
# idle at the start waits for transfers, one idle at the end for a tail).
set -eu
dir=${1:?usage: bash bench/trace-summary.sh DIR [BUCKET_MS]}
bucket=${2:-0}
cd "$dir"
if [ ! -f tasks.rec ]; then
  prof=$(ls prof_file_* 2>/dev/null | head -1)
  [ -n "$prof" ] || { echo "trace-summary: no prof_file_* in $dir" >&2; exit 1; }
  starpu_fxt_tool -i "$prof" > fxt_tool.log 2>&1
fi
awk -v bucket="$bucket" '
  /^Name: /      { name = $2 }
  /^WorkerId: /  { worker = $2 }
  /^StartTime: / { start = $2 }
  /^EndTime: /   { end = $2 }
  /^$/ {
    # tasks that ran have a start and an end; StarPU-internal ones are skipped
    if (name != "" && start != "" && end != "" && name !~ /^_starpu|^starpu_/) {
      if (first == "" || start < first) first = start
      if (last == "" || end > last) last = end
      busy[worker] += end - start; n[worker]++
      key = worker SUBSEP name; tot[key] += end - start; cnt[key]++
      t++; S[t] = start; E[t] = end; W[t] = worker; N[t] = name
    }
    name = worker = start = end = ""
  }
  END {
    span = last - first
    printf "span %.1f ms (first task start to last task end)\n", span
    for (w in busy) {
      printf "worker %s: %d tasks, busy %.1f ms, idle %.1f ms (%.0f%% busy)\n", w, n[w], busy[w], span - busy[w], 100 * busy[w] / span
      for (k in tot) {
        split(k, p, SUBSEP)
        if (p[1] == w)
          printf "    %-20s %6d tasks %10.1f ms total %8.3f ms mean\n", p[2], cnt[k], tot[k], tot[k] / cnt[k]
      }
    }
    if (bucket <= 0)
      exit
    nb = int(span / bucket) + 1
    for (i = 1; i <= t; i++)   # spread each task over the buckets it covers
      for (b = int((S[i] - first) / bucket); b < nb && first + b * bucket < E[i]; b++) {
        lo = S[i] > first + b * bucket ? S[i] : first + b * bucket
        hi = E[i] < first + (b + 1) * bucket ? E[i] : first + (b + 1) * bucket
        if (hi > lo) { wbusy[W[i], b] += hi - lo; by[W[i], b, N[i]] += hi - lo; names[N[i]] = 1 }
      }
    printf "timeline (%g ms buckets from the first task): per worker busy %% and main codelet\n", bucket
    for (b = 0; b < nb; b++) {
      printf "%8.0f ms", b * bucket
      for (k in busy) {
        top = "-"; most = 0
        for (nm in names) if (by[k, b, nm] > most) { most = by[k, b, nm]; top = nm }
        if (wbusy[k, b] > 0) printf "  w%s %3.0f%% %-14s", k, 100 * wbusy[k, b] / bucket, top
      }
      printf "\n"
    }
  }' tasks.rec
