#!/usr/bin/env bash
# The benchmark runner (the project's main job): TPC-H, or TPC-DS with --suite tpcds (bench/tpcds.sh). Builds
# what it needs, then runs io.rowmatch.bench.tpch.TpchBenchmark. Options: bench/tpch.sh --help
#   bench/tpch.sh --sf 1 --engines vanilla,rowmatch,comet --reps 3
#   bench/tpch.sh --spark 4.2 --sf 1 --engines vanilla,rowmatch --reps 3   (Spark 4.2: builds with -Pspark-4.2)
set -euo pipefail
cd "$(dirname "$0")/.."

# --spark LINE picks the Spark line (a Maven profile, -Pspark-LINE) the runner is built and runs on; the script
# takes it out of the arguments, the runner never sees it. Default: 4.1, the build's default line.
spark_line=4.1
args=()
while (($#)); do
  case "$1" in
    --spark) spark_line="${2:?--spark needs a line: 4.1 or 4.2}"; shift 2 ;;
    --spark=*) spark_line="${1#--spark=}"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
case "$spark_line" in
  4.1|4.2) ;;
  *) echo "tpch.sh: --spark $spark_line: Rowmatch builds for Spark 4.1 and 4.2 only" >&2; exit 2 ;;
esac
set -- ${args[@]+"${args[@]}"}

mvn -B -ntp -q -pl bench -am package -DskipTests "-Pspark-$spark_line"

# Comet is a peer we compare with, not a dependency: fetch its jar only when asked for.
extra=()
if [[ " $* " =~ --engines[[:space:]=]+[^[:space:]]*comet && ! " $* " =~ --comet-jar ]]; then
  if [[ "$spark_line" != 4.1 ]]; then
    echo "tpch.sh: Comet 1.2.0 publishes no jar for Spark $spark_line; give one with --comet-jar FILE" >&2
    exit 2
  fi
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
