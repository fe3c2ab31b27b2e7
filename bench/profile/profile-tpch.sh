#!/usr/bin/env bash
# JFR profile of TPC-H queries on one engine: runs bench/tpch.sh's runner with a flight recording in every JVM
# (the runner and the engine's worker JVM, through JAVA_TOOL_OPTIONS), then prints the executor threads' top
# frames of the worker's recording (jfr_frames.py) and saves it next to the .jfr.
#   bench/profile/profile-tpch.sh --queries 6,19,11 [--engine rowmatch] [--out DIR] [--top N] [tpch.sh options]
# Example (the whole suite): bench/profile/profile-tpch.sh --queries all --reps 1
# Needs the bench module built: mvn -B -ntp -o -q -pl bench -am package -DskipTests
set -euo pipefail
cd "$(dirname "$0")/../.."
engine=rowmatch
out=/tmp/rowmatch-profile
top=40
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --engine) engine="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --top) top="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
rm -rf "$out" && mkdir -p "$out/rec"
read -r -a jvm_flags < bench/target/classes/rowmatch-jvm-flags.txt
# A directory as filename: each JVM writes its own <pid>-<time>.jfr there. 10 ms sampling ("profile" settings).
# DebugNonSafepoints: without it a sample is attributed to the nearest safepoint's frame (a call or a constructor
# next to a hot loop), not to the loop.
JAVA_TOOL_OPTIONS="-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -XX:StartFlightRecording=settings=profile,filename=$out/rec/,dumponexit=true" \
  java "${jvm_flags[@]}" -Xmx2g -XX:+UseParallelGC \
  -cp "bench/target/classes:$(cat bench/target/classpath.txt)" \
  io.rowmatch.bench.tpch.TpchBenchmark --engines "$engine" --results-dir "$out/results" \
  --data-dir /tmp/tpch-data "${args[@]}" || true  # one engine: answers are unchecked, which it reports as a failure
# The worker's recording is the largest one (the runner's only waits).
rec=$(ls -S "$out"/rec/*.jfr | head -1)
jfr print --stack-depth 200 --events jdk.ExecutionSample "$rec" > "$out/samples.txt"
python3 bench/profile/jfr_frames.py "$out/samples.txt" "Executor task launch" "$top" | tee "$out/frames.txt"
echo "recording: $rec; frames: $out/frames.txt"
