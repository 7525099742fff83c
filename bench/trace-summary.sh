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
# Then the GPU workers (from paje.trace) in stream order: an asynchronous CUDA
# task is queued at its start and ends when its stream reaches its end, so it
# really runs from max(its start, the previous end on its worker) to its end.
# From those intervals: each codelet's GPU time, and how the span splits into
# time with a panel running (PANEL_RE, a regular expression on codelet names),
# a panel running alone, other work only, and no GPU work at all.
# LAST_RUN=1: only the tasks after the longest gap with no task starting (a
# driver's -niter 2 trace holds two runs, parted by the check and the next
# matrix; the first run pays the process's first calls).
set -eu
dir=${1:?usage: bash bench/trace-summary.sh DIR [BUCKET_MS]}
bucket=${2:-0}
panel_re=${PANEL_RE:-panel|potrf|getrf_nopiv|geqrt}
cd "$dir"
if [ ! -f tasks.rec ]; then
  prof=$(ls prof_file_* 2>/dev/null | head -1)
  [ -n "$prof" ] || { echo "trace-summary: no prof_file_* in $dir" >&2; exit 1; }
  starpu_fxt_tool -i "$prof" > fxt_tool.log 2>&1
fi
cut=0
if [ "${LAST_RUN:-0}" = 1 ]; then
  cut=$(awk '/^StartTime: / { print $2 }' tasks.rec | sort -g |
        awk 'NR > 1 && $1 - prev > widest { widest = $1 - prev; cut = $1 } { prev = $1 } END { print cut + 0 }')
  echo "last run only: tasks from $cut ms"
fi
awk -v bucket="$bucket" -v cut="$cut" '
  /^Name: /      { name = $2 }
  /^WorkerId: /  { worker = $2 }
  /^StartTime: / { start = $2 }
  /^EndTime: /   { end = $2 }
  /^$/ {
    # tasks that ran have a start and an end; StarPU-internal ones are skipped
    if (name != "" && start != "" && end != "" && name !~ /^_starpu|^starpu_/ && start >= cut) {
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

# GPU workers: paje.trace names each worker (CPU0, CUDA0_0, ...)
gpus=$(awk -F'\t' '$1 == 7 && $4 == "W" && $6 !~ /^CPU/ { sub(/^w/, "", $3); printf "%s ", $3 }' paje.trace 2>/dev/null || true)
[ -n "$gpus" ] || exit 0
awk -v gpus="$gpus" -v cut="$cut" '
  BEGIN { n = split(gpus, g, " "); for (i = 1; i <= n; i++) gpu[g[i]] = 1 }
  /^Name: /      { name = $2 }
  /^WorkerId: /  { worker = $2 }
  /^StartTime: / { start = $2 }
  /^EndTime: /   { end = $2 }
  /^$/ {
    if (name != "" && start != "" && end != "" && name !~ /^_starpu|^starpu_/ && (worker in gpu) && start >= cut)
      print worker, start, end, name
    name = worker = start = end = ""
  }' tasks.rec | sort -k1,1n -k2,2g | awk -v re="$panel_re" '
  {
    w = $1; s = $2; e = $3; nm = $4
    if ((w in last) && last[w] > s) s = last[w]      # the stream was still busy with the previous task
    if (e > last[w] || !(w in last)) last[w] = e
    if (e <= s) next
    gt[nm] += e - s; gc[nm]++
    print s, 1, (nm ~ re ? "P" : "O") > "/dev/stderr"
    print e, -1, (nm ~ re ? "P" : "O") > "/dev/stderr"
  }
  END {
    printf "GPU workers in stream order (a task runs from max(start, previous end on its worker)):\n"
    for (nm in gt) printf "    %-20s %6d tasks %10.1f ms GPU time %8.3f ms mean\n", nm, gc[nm], gt[nm], gt[nm] / gc[nm]
  }' 2> gpu-events.txt
sort -k1,1g -k2,2n gpu-events.txt | awk -v re="$panel_re" '
  NR == 1 { first = $1 }
  {
    if (NR > 1) {
      d = $1 - t
      if (np + no > 0) busy += d; else idle += d
      if (np > 0) pan += d
      if (np > 0 && no == 0) alone += d
      if (np == 0 && no > 0) other += d
    }
    t = $1
    if ($3 == "P") np += $2; else no += $2
  }
  END {
    span = t - first
    printf "GPU span %.1f ms: some GPU work %.1f ms (%.0f%%), none %.1f ms; a panel (%s) running %.1f ms, alone %.1f ms; other work only %.1f ms\n",
           span, busy, 100 * busy / span, idle, re, pan, alone, other
  }'
