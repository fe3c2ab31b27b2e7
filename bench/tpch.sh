#!/usr/bin/env bash
# The benchmark runner (the project's main job): TPC-H, or TPC-DS with --suite tpcds (bench/tpcds.sh). Builds
# what it needs, then runs io.rowmatch.bench.tpch.TpchBenchmark. Options: bench/tpch.sh --help
#   bench/tpch.sh --sf 1 --engines vanilla,rowmatch,comet --reps 3
set -euo pipefail
cd "$(dirname "$0")/.."

mvn -B -ntp -q -pl bench -am package -DskipTests

# Comet is a peer we compare with, not a dependency: fetch its jar only when asked for.
extra=()
if [[ " $* " =~ --engines[[:space:]=]+[^[:space:]]*comet ]]; then
  comet_dir="$PWD/bench/target/comet"
  comet_jar="$comet_dir/comet-spark-spark4.1_2.13-1.2.0.jar"
  if [[ ! -f "$comet_jar" ]]; then
    mvn -B -ntp -q -pl bench dependency:copy \
      -Dartifact=org.apache.datafusion:comet-spark-spark4.1_2.13:1.2.0 -DoutputDirectory="$comet_dir"
  fi
  extra=(--comet-jar "$comet_jar")
fi

read -r -a jvm_flags < bench/target/classes/rowmatch-jvm-flags.txt
exec java "${jvm_flags[@]}" -Xmx4g -XX:+UseParallelGC \
  -cp "bench/target/classes:$(cat bench/target/classpath.txt)" \
  io.rowmatch.bench.tpch.TpchBenchmark "$@" "${extra[@]}"
